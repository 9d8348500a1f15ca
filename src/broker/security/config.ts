// What SASL needs from the broker's configuration, read as Kafka's broker reads it, and the
// start-up refusals where tkafka cannot do what the configuration asks (never a silent downgrade):
// - sasl.enabled.mechanisms (default GSSAPI), listener.name.<l>.sasl.enabled.mechanisms overriding it;
// - the JAAS login module of each mechanism from listener.name.<l>.<mechanism>.sasl.jaas.config
//   (JaasContext.loadServerContext; the unprefixed sasl.jaas.config is ignored with Kafka's warning,
//   and the static JAAS file of java.security.auth.login.config does not exist in tkafka);
// - connections.max.reauth.ms (KIP-368) and connection.failed.authentication.delay.ms.
// (The node's own connections to a SASL controller or inter-broker listener: security/outgoing.ts.)
import type { SecureContextOptions } from 'node:tls';
import { unsecuredToken } from '../../client/sasl/oauthbearer.js';
import { tlsStoresFromSettings } from '../../client/tls-config.js';
import { ConfigError } from '../../config/config-def.js';
import type { ServerConfig } from '../../config/server-config.js';
import {
  JaasConfigError,
  OAUTHBEARER_LOGIN_MODULE,
  parseSingleLoginModule,
  PLAIN_LOGIN_MODULE,
  SCRAM_LOGIN_MODULE,
} from '../../protocol/sasl/jaas.js';
import { jwksKeySource } from './jwks.js';
import type { JwtValidatorSettings } from './jwt-validator.js';
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
  /** OAUTHBEARER's JWKS validation (OAuthBearerValidatorCallbackHandler), when configured. */
  readonly oauthbearerJwks?: JwtValidatorSettings;
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

  // custom server callback handlers: only OAuthBearerValidatorCallbackHandler (JWKS validation) on
  // an OAUTHBEARER listener, under listener.name.<l>.oauthbearer. (SaslChannelBuilder's key)
  for (const [k, v] of originals)
    if (/(^|\.)sasl\.server\.callback\.handler\.class$/.test(k) && !isJwksHandlerKey(k, v, sasl))
      throw new ConfigError(
        `${k} is set: tkafka does not load SASL server callback handlers (it implements PLAIN with the JAAS users, SCRAM with the metadata credentials and OAUTHBEARER with unsecured JWS validation, or with JWKS validation when listener.name.<listener>.oauthbearer.sasl.server.callback.handler.class=${OAUTHBEARER_VALIDATOR_HANDLER})`,
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
    let oauthbearerJwks: JwtValidatorSettings | undefined;
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
        // the broker's own OAuthBearerLoginModule logs in at start-up with the unsecured login
        // callback handler: with any option set, it must be able to build its token (a principal)
        if (module.options.size > 0)
          try {
            unsecuredToken(module.options);
          } catch (err) {
            throw new ConfigError(
              `Invalid value for ${jaasKey}: the listener's OAuthBearerLoginModule cannot log in (An internal error occurred while retrieving token from callback handler): ${(err as Error).message}`,
              jaasKey,
            );
          }
        if (originals.has(`${prefix}oauthbearer.sasl.server.callback.handler.class`))
          oauthbearerJwks = jwksValidatorSettings(originals, prefix, warn, process.env, module.options, jaasKey);
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
      ...(oauthbearerJwks ? { oauthbearerJwks } : {}),
      maxReauthMs,
      failedAuthenticationDelayMs,
      maxReceiveSize: config.getInt('sasl.server.max.receive.size'),
    });
  }
  return out;
}

export const OAUTHBEARER_VALIDATOR_HANDLER =
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler';
const DEFAULT_JWT_VALIDATOR = 'org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator';
/** ConfigurationUtils' system property listing the URLs an OAuth configuration may name. */
export const ALLOWED_URLS_PROPERTY = 'org.apache.kafka.sasl.oauthbearer.allowed.urls';

function isJwksHandlerKey(key: string, value: string, sasl: readonly { listenerName: string }[]): boolean {
  if (value.trim() !== OAUTHBEARER_VALIDATOR_HANDLER) return false;
  return sasl.some(
    (e) => key === `listener.name.${e.listenerName.toLowerCase()}.oauthbearer.sasl.server.callback.handler.class`,
  );
}

/**
 * A JVM system property as Kafka's start scripts pass it: `-D<name>=<value>` in KAFKA_OPTS (tkafka
 * has no JVM, so the same environment that configures Kafka configures tkafka).
 */
export function jvmSystemProperty(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  let value: string | undefined;
  for (const token of (env['KAFKA_OPTS'] ?? '').split(/\s+/))
    if (token.startsWith(`-D${name}=`)) value = token.slice(name.length + 3).replace(/^(["'])(.*)\1$/, '$2');
  return value;
}

/**
 * The settings OAuthBearerValidatorCallbackHandler reads for a listener (ConfigurationUtils with the
 * "oauthbearer." mechanism prefix over the listener's configs: listener.name.<l>.oauthbearer.<key>,
 * then listener.name.<l>.<key>, then <key>), with Kafka's configure-time refusals.
 */
export function jwksValidatorSettings(
  originals: ReadonlyMap<string, string>,
  listenerPrefix: string,
  warn: (m: string) => void = () => {},
  env: NodeJS.ProcessEnv = process.env,
  jaasOptions: ReadonlyMap<string, string> = new Map(),
  jaasKey = `${listenerPrefix}oauthbearer.sasl.jaas.config`,
): JwtValidatorSettings {
  const keyOf = (k: string): string =>
    [`${listenerPrefix}oauthbearer.${k}`, `${listenerPrefix}${k}`, k].find((x) => originals.has(x)) ?? k;
  const get = (k: string): string | undefined => {
    const v = originals.get(keyOf(k))?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const long = (k: string, dflt: number, min: number): number => {
    const raw = get(k);
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(n))
      throw new ConfigError(`Invalid value ${raw} for configuration ${keyOf(k)}: Not a number of type LONG`, keyOf(k));
    if (n < min) throw new ConfigError(`The OAuth configuration option ${k} value must be at least ${min}`, keyOf(k));
    return n;
  };
  const bool = (k: string): boolean => {
    const raw = get(k);
    if (raw === undefined) return false;
    if (!/^(true|false)$/i.test(raw))
      throw new ConfigError(
        `Invalid value ${raw} for configuration ${keyOf(k)}: Expected value to be either true or false`,
        keyOf(k),
      );
    return raw.toLowerCase() === 'true';
  };
  const validator = get('sasl.oauthbearer.jwt.validator.class');
  if (validator !== undefined && validator !== DEFAULT_JWT_VALIDATOR)
    throw new ConfigError(
      `${keyOf('sasl.oauthbearer.jwt.validator.class')}=${validator} is set: tkafka does not load JWT validator classes (only ${DEFAULT_JWT_VALIDATOR})`,
      keyOf('sasl.oauthbearer.jwt.validator.class'),
    );
  const urlKey = 'sasl.oauthbearer.jwks.endpoint.url';
  const url = get(urlKey);
  if (url === undefined)
    throw new ConfigError(
      `The OAuth validator for the broker requires "${urlKey}" to be configured so that JWT signatures can be verified, but it was not set. Set "${urlKey}" to the OAuth/OIDC provider's JWKS endpoint URL for this listener, or configure a signature-verifying "sasl.oauthbearer.jwt.validator.class".`,
      keyOf(urlKey),
    );
  // ConfigurationUtils.validateUrl
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (e) {
    throw new ConfigError(
      `The OAuth configuration option ${urlKey} contains a URL (${url}) that is malformed: ${(e as Error).message}`,
      keyOf(urlKey),
    );
  }
  const protocol = parsed.protocol.slice(0, -1).toLowerCase();
  if (!['http', 'https', 'file'].includes(protocol))
    throw new ConfigError(
      `The OAuth configuration option ${urlKey} contains a URL (${url}) that contains an invalid protocol (${protocol}); only "http", "https", and "file" protocol are supported`,
      keyOf(urlKey),
    );
  const allowed = new Set((jvmSystemProperty(ALLOWED_URLS_PROPERTY, env) ?? '').split(',').map((s) => s.trim()));
  if (!allowed.has(url))
    throw new ConfigError(
      `Invalid value ${url} for configuration ${urlKey}: The URL cannot be accessed due to restrictions. Update the system property '${ALLOWED_URLS_PROPERTY}' to allow the URL to be accessed. (tkafka reads -D${ALLOWED_URLS_PROPERTY}=<url>,... from KAFKA_OPTS)`,
      keyOf(urlKey),
    );
  // JaasOptionsUtils.createSSLSocketFactory: an https JWKS is fetched with the ssl.* options of the
  // listener's OAUTHBEARER JAAS login module (SslFactory in client mode); none set: the default trust
  let tls: SecureContextOptions | undefined;
  if (protocol === 'https' && [...jaasOptions.keys()].some((k) => k.startsWith('ssl.')))
    tls = tlsStoresFromSettings(
      (k) => jaasOptions.get(k),
      (message, k) => new ConfigError(`Invalid value for ${jaasKey} (option ${k}): ${message}`, jaasKey),
    ).options;
  const expectedAudience = (get('sasl.oauthbearer.expected.audience') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const expectedIssuer = get('sasl.oauthbearer.expected.issuer') ?? null;
  const allowUnverifiedAudience = bool('sasl.oauthbearer.allow.unverified.audience');
  const allowUnverifiedIssuer = bool('sasl.oauthbearer.allow.unverified.issuer');
  const skewRaw = get('sasl.oauthbearer.clock.skew.seconds') ?? '30';
  const clockSkewSeconds = Number(skewRaw);
  if (!/^[+-]?\d+$/.test(skewRaw) || !Number.isSafeInteger(clockSkewSeconds))
    throw new ConfigError(
      `Invalid value ${skewRaw} for configuration ${keyOf('sasl.oauthbearer.clock.skew.seconds')}: Not a number of type INT`,
      keyOf('sasl.oauthbearer.clock.skew.seconds'),
    );
  const scopeClaimName = get('sasl.oauthbearer.scope.claim.name') ?? 'scope';
  const subClaimName = get('sasl.oauthbearer.sub.claim.name') ?? 'sub';
  if (expectedAudience.length === 0 && !allowUnverifiedAudience)
    throw new ConfigError(
      `The OAuth validator for the broker requires "sasl.oauthbearer.expected.audience" to be configured so that the token's audience ("aud") claim can be verified, but it was not set. Set "sasl.oauthbearer.expected.audience" to the audience(s) that identify this cluster, or set "sasl.oauthbearer.allow.unverified.audience" to true to accept tokens regardless of their audience.`,
      keyOf('sasl.oauthbearer.expected.audience'),
    );
  if (expectedIssuer === null && !allowUnverifiedIssuer)
    throw new ConfigError(
      `The OAuth validator for the broker requires "sasl.oauthbearer.expected.issuer" to be configured so that the token's issuer ("iss") claim can be verified, but it was not set. Set "sasl.oauthbearer.expected.issuer" to the issuer URL of the OAuth/OIDC provider that signs the tokens, or set "sasl.oauthbearer.allow.unverified.issuer" to true to accept tokens regardless of their issuer.`,
      keyOf('sasl.oauthbearer.expected.issuer'),
    );
  if (expectedAudience.length === 0)
    warn(
      'The OAuth broker validator is configured with a JWKS endpoint but without "sasl.oauthbearer.expected.audience", and "sasl.oauthbearer.allow.unverified.audience" is set to true, so it will accept a JWT regardless of its "aud" (audience) claim.',
    );
  if (expectedIssuer === null)
    warn(
      'The OAuth broker validator is configured with a JWKS endpoint but without "sasl.oauthbearer.expected.issuer", and "sasl.oauthbearer.allow.unverified.issuer" is set to true, so it will accept a JWT bearing any (or no) "iss" (issuer) claim.',
    );
  return {
    jwks: {
      url,
      refreshMs: long('sasl.oauthbearer.jwks.endpoint.refresh.ms', 3_600_000, 1),
      retryBackoffMs: long('sasl.oauthbearer.jwks.endpoint.retry.backoff.ms', 100, 1),
      retryBackoffMaxMs: long('sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms', 10_000, 0),
      ...(tls ? { tls } : {}),
    },
    expectedAudience,
    expectedIssuer,
    scopeClaimName,
    subClaimName,
    clockSkewSeconds,
  };
}

/**
 * Loads the JWKS of every listener validating OAUTHBEARER tokens with one (Kafka fetches it when the
 * callback handler is configured): a JWKS that cannot be read stops start-up naming the key.
 */
export async function loadJwksKeySources(
  configs: ReadonlyMap<string, SaslListenerConfig>,
  log?: (level: 'DEBUG' | 'WARN', m: string) => void,
): Promise<void> {
  for (const c of configs.values()) {
    if (!c.oauthbearerJwks) continue;
    try {
      await jwksKeySource(c.oauthbearerJwks.jwks, log).init();
    } catch (e) {
      throw new ConfigError(
        `listener ${c.listenerName}: the JWKS of sasl.oauthbearer.jwks.endpoint.url (${c.oauthbearerJwks.jwks.url}) could not be read: ${(e as Error).message}`,
        'sasl.oauthbearer.jwks.endpoint.url',
      );
    }
  }
}
