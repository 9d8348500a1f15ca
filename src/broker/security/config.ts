// What SASL needs from the broker's configuration, read as Kafka's broker reads it, and the
// start-up refusals where tkafka cannot do what the configuration asks (never a silent downgrade):
// - sasl.enabled.mechanisms (default GSSAPI), listener.name.<l>.sasl.enabled.mechanisms overriding it;
// - the JAAS login module of each mechanism from listener.name.<l>.<mechanism>.sasl.jaas.config
//   (JaasContext.loadServerContext; the unprefixed sasl.jaas.config is ignored with Kafka's warning,
//   and the static JAAS file of java.security.auth.login.config does not exist in tkafka);
// - connections.max.reauth.ms (KIP-368) and connection.failed.authentication.delay.ms.
// (The node's own connections to a SASL controller or inter-broker listener: security/outgoing.ts.)
import { ConfigError } from '../../config/config-def.js';
import type { ServerConfig } from '../../config/server-config.js';
import {
  JaasConfigError,
  OAUTHBEARER_LOGIN_MODULE,
  parseSingleLoginModule,
  PLAIN_LOGIN_MODULE,
  SCRAM_LOGIN_MODULE,
} from '../../protocol/sasl/jaas.js';
import { unsecuredValidatorOptions, type UnsecuredValidatorOptions } from './oauthbearer.js';
import { plainUsers } from './plain.js';

/** The mechanisms tkafka's broker implements. */
export const IMPLEMENTED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;
const LOGIN_MODULE: Record<string, string> = {
  PLAIN: PLAIN_LOGIN_MODULE,
  'SCRAM-SHA-256': SCRAM_LOGIN_MODULE,
  'SCRAM-SHA-512': SCRAM_LOGIN_MODULE,
  OAUTHBEARER: OAUTHBEARER_LOGIN_MODULE,
};

export interface SaslListenerConfig {
  readonly listenerName: string;
  /** In configuration order (what SaslHandshake answers). */
  readonly enabledMechanisms: readonly string[];
  /** PLAIN's users (user_<name> options), when PLAIN is enabled. */
  readonly plainUsers: ReadonlyMap<string, string>;
  /** OAUTHBEARER's unsecured-JWS validation options, when OAUTHBEARER is enabled. */
  readonly oauthbearer?: UnsecuredValidatorOptions;
  /** connections.max.reauth.ms per mechanism (0: sessions do not expire). */
  readonly maxReauthMs: ReadonlyMap<string, number>;
  /** connection.failed.authentication.delay.ms */
  readonly failedAuthenticationDelayMs: number;
  /** sasl.server.max.receive.size: the largest frame before the connection is authenticated. */
  readonly maxReceiveSize?: number;
}

const isSasl = (protocol: string): boolean => protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL';
const csv = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/**
 * The SASL configuration of each SASL listener of `config`, by listener name. Throws a ConfigError
 * naming the key for what tkafka cannot honour. `warn` gets Kafka's warnings.
 */
export function saslListenerConfigs(
  config: ServerConfig,
  warn: (m: string) => void = () => {},
): Map<string, SaslListenerConfig> {
  const out = new Map<string, SaslListenerConfig>();
  const originals = config.originals;
  const sasl = config.listeners.filter((e) => isSasl(e.securityProtocol));
  if (sasl.length === 0) return out;

  // custom server callback handlers (e.g. OAuthBearerValidatorCallbackHandler with a JWKS endpoint)
  for (const k of originals.keys())
    if (/(^|\.)sasl\.server\.callback\.handler\.class$/.test(k))
      throw new ConfigError(
        `${k} is set: tkafka does not load SASL server callback handlers (it implements PLAIN with the JAAS users, SCRAM with the metadata credentials and OAUTHBEARER with unsecured JWS validation)`,
        k,
      );
  if (originals.has('sasl.jaas.config'))
    warn('Server config sasl.jaas.config should be prefixed with SASL mechanism name, ignoring config');
  const failedAuthenticationDelayMs = config.getInt('connection.failed.authentication.delay.ms');

  for (const e of sasl) {
    const prefix = `listener.name.${e.listenerName.toLowerCase()}.`;
    const mechanismsKey = originals.has(`${prefix}sasl.enabled.mechanisms`)
      ? `${prefix}sasl.enabled.mechanisms`
      : 'sasl.enabled.mechanisms';
    const mechanisms = originals.has(mechanismsKey)
      ? csv(originals.get(mechanismsKey)!)
      : config.getList('sasl.enabled.mechanisms');
    if (mechanisms.length === 0)
      throw new ConfigError(
        `${mechanismsKey} is empty: no SASL mechanism is enabled on listener ${e.listenerName}`,
        mechanismsKey,
      );
    for (const m of mechanisms) {
      if (!(IMPLEMENTED_MECHANISMS as readonly string[]).includes(m))
        throw new ConfigError(
          `${mechanismsKey} contains ${m}, which tkafka does not implement (${IMPLEMENTED_MECHANISMS.join(', ')} are)${mechanismsKey === 'sasl.enabled.mechanisms' && !originals.has(mechanismsKey) ? ` (GSSAPI is Kafka's default: set ${prefix}sasl.enabled.mechanisms or sasl.enabled.mechanisms for listener ${e.listenerName})` : ''}`,
          mechanismsKey,
        );
    }

    let users = new Map<string, string>();
    let oauthbearer: UnsecuredValidatorOptions | undefined;
    const maxReauthMs = new Map<string, number>();
    for (const m of mechanisms) {
      const mech = m.toLowerCase();
      const jaasKey = [`${prefix}${mech}.sasl.jaas.config`, `${mech}.sasl.jaas.config`].find((k) => originals.has(k));
      if (!jaasKey)
        throw new ConfigError(
          `listener ${e.listenerName} enables ${m} but ${prefix}${mech}.sasl.jaas.config is not set: tkafka reads the broker's JAAS login module only from that property (a static JAAS file, java.security.auth.login.config, is not supported)`,
          `${prefix}${mech}.sasl.jaas.config`,
        );
      let module;
      try {
        module = parseSingleLoginModule(originals.get(jaasKey)!);
      } catch (err) {
        if (err instanceof JaasConfigError)
          throw new ConfigError(`Invalid value for ${jaasKey}: ${err.message}`, jaasKey);
        throw err;
      }
      if (module.loginModule !== LOGIN_MODULE[m])
        throw new ConfigError(
          `${jaasKey}: login module ${module.loginModule} is not supported for ${m} in tkafka (expected ${LOGIN_MODULE[m]})`,
          jaasKey,
        );
      if (m === 'PLAIN') users = plainUsers(module.options);
      if (m === 'OAUTHBEARER') {
        try {
          oauthbearer = unsecuredValidatorOptions(module.options);
        } catch (err) {
          throw new ConfigError(`Invalid value for ${jaasKey}: ${(err as Error).message}`, jaasKey);
        }
      }
      const reauthKey = [`${prefix}${mech}.connections.max.reauth.ms`, `${prefix}connections.max.reauth.ms`].find((k) =>
        originals.has(k),
      );
      const reauth = reauthKey ? Number(originals.get(reauthKey)) : Number(config.getLong('connections.max.reauth.ms'));
      if (!Number.isSafeInteger(reauth))
        throw new ConfigError(`Invalid value ${originals.get(reauthKey!)} for configuration ${reauthKey}`, reauthKey);
      maxReauthMs.set(m, reauth);
    }
    out.set(e.listenerName, {
      listenerName: e.listenerName,
      enabledMechanisms: mechanisms,
      plainUsers: users,
      ...(oauthbearer ? { oauthbearer } : {}),
      maxReauthMs,
      failedAuthenticationDelayMs,
      maxReceiveSize: config.getInt('sasl.server.max.receive.size'),
    });
  }
  return out;
}
