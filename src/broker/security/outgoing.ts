// The security of the node's own outgoing connections, as Kafka's ChannelBuilders.clientChannelBuilder
// builds it for a listener: raft, controller registration, forwarding and broker heartbeats use the
// first of controller.listener.names (KafkaRaftManager, NodeToControllerChannelManager) with
// sasl.mechanism.controller.protocol; replica fetchers and the transaction coordinator's channels use
// the inter-broker listener (BrokerBlockingSender, TransactionMarkerChannelManager) with
// sasl.mechanism.inter.broker.protocol. Both mechanisms default to GSSAPI.
// - TLS: the listener's ssl.* settings (listener.name.<l>.ssl.*, else ssl.*): its trust store, and its
//   key store as the client certificate; ssl.endpoint.identification.algorithm (default https).
// - SASL: the login module of listener.name.<l>.<mechanism>.sasl.jaas.config (JaasContext.loadServerContext),
//   whose username/password options are what the client sends (PlainLoginModule, ScramLoginModule).
// What tkafka cannot do (GSSAPI, OAUTHBEARER between nodes) stops start-up with a ConfigError naming the key.
import { ClientConfigError } from '../../client/errors.js';
import { saslConfigFromProperties, type SaslConfig } from '../../client/sasl-config.js';
import { tlsStoresFromSettings, type ClientTlsConfig } from '../../client/tls-config.js';
import { ConfigError } from '../../config/config-def.js';
import type { ServerConfig } from '../../config/server-config.js';

/** What a BrokerConnection to a node's listener needs: `{}` for PLAINTEXT. */
export interface OutgoingSecurity {
  readonly tls?: ClientTlsConfig;
  readonly sasl?: SaslConfig;
}

/** The mechanisms the node's own connections can authenticate with. */
const OUTGOING_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

type MechanismKey = 'sasl.mechanism.inter.broker.protocol' | 'sasl.mechanism.controller.protocol';

/**
 * `{ tls?, sasl? }` for connections to `listenerName` (its security protocol from
 * listener.security.protocol.map), with `mechanismKey` naming the SASL mechanism.
 */
export function outgoingSecurity(
  config: ServerConfig,
  listenerName: string,
  mechanismKey: MechanismKey,
): OutgoingSecurity {
  const name = listenerName.toUpperCase();
  const protocol = config.listenerSecurityProtocolMap.get(name) ?? name;
  const originals = config.originals;
  const prefix = `listener.name.${name.toLowerCase()}.`;
  const fullKey = (key: string): string => (originals.has(prefix + key) ? prefix + key : key);
  const out: { tls?: ClientTlsConfig; sasl?: SaslConfig } = {};
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    // the listener's setting, else the bare one (tls-listener.ts listenerSetting; not imported: the
    // channels that import this module must not depend on the acceptor)
    const get = (key: string): string | undefined => originals.get(prefix + key) ?? originals.get(key);
    const { options } = tlsStoresFromSettings(get, (message, key) => new ConfigError(message, fullKey(key)));
    const algorithm = (get('ssl.endpoint.identification.algorithm') ?? 'https').trim();
    if (algorithm !== '' && algorithm.toLowerCase() !== 'https')
      throw new ConfigError(
        `Invalid value ${algorithm} for configuration ${fullKey('ssl.endpoint.identification.algorithm')}: tkafka supports https or an empty value`,
        fullKey('ssl.endpoint.identification.algorithm'),
      );
    out.tls = { options, verifyHostname: algorithm !== '' };
  }
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    const mechanism = (config.getString(mechanismKey) ?? 'GSSAPI').trim();
    const why = `the ${name} listener is ${protocol}, and the node's own connections to it authenticate with ${mechanismKey}`;
    if (mechanism === 'GSSAPI')
      throw new ConfigError(
        `${mechanismKey} is GSSAPI${originals.has(mechanismKey) ? '' : " (Kafka's default)"}, which tkafka does not implement: ${why}; set it to one of ${OUTGOING_MECHANISMS.join(', ')}`,
        mechanismKey,
      );
    if (!OUTGOING_MECHANISMS.includes(mechanism))
      throw new ConfigError(
        `${mechanismKey} is ${mechanism}: tkafka's broker-to-broker and controller connections authenticate with ${OUTGOING_MECHANISMS.join(', ')} only (${why})`,
        mechanismKey,
      );
    const mech = mechanism.toLowerCase();
    // SaslChannelBuilder / LoginManager on the node's client side: classes tkafka cannot load
    for (const key of [
      `${mech}.sasl.login.class`,
      `${mech}.sasl.login.callback.handler.class`,
      'sasl.client.callback.handler.class',
    ]) {
      const set = [prefix + key, key].find((k) => originals.has(k));
      if (set !== undefined)
        throw new ConfigError(
          `${set} is set: tkafka's own connections to the ${name} listener send the username and password of its ${mechanism} login module and load no login or callback classes`,
          set,
        );
    }
    const jaasKey = [`${prefix}${mech}.sasl.jaas.config`, `${mech}.sasl.jaas.config`].find((k) => originals.has(k));
    if (jaasKey === undefined)
      throw new ConfigError(
        `${prefix}${mech}.sasl.jaas.config is not set: ${why} (${mechanism}), and tkafka reads the username and password it sends from that login module (a static JAAS file, java.security.auth.login.config, is not supported)`,
        `${prefix}${mech}.sasl.jaas.config`,
      );
    try {
      out.sasl = saslConfigFromProperties(
        new Map([
          ['sasl.mechanism', mechanism],
          ['sasl.jaas.config', originals.get(jaasKey)!],
        ]),
      );
    } catch (e) {
      if (e instanceof ClientConfigError) throw new ConfigError(`Invalid value for ${jaasKey}: ${e.message}`, jaasKey);
      throw e;
    }
  }
  return out;
}

/** The controller listener's (the first of controller.listener.names): raft, registration, forwarding, heartbeats. */
export function controllerOutgoingSecurity(config: ServerConfig): OutgoingSecurity {
  const listener = config.controllerListenerNames[0];
  return listener === undefined ? {} : outgoingSecurity(config, listener, 'sasl.mechanism.controller.protocol');
}

/** The inter-broker listener's: replica fetchers, transaction markers, AddPartitionsToTxn verification. */
export function interBrokerOutgoingSecurity(config: ServerConfig): OutgoingSecurity {
  const listener = config.interBrokerListenerName;
  const protocol = config.listenerSecurityProtocolMap.get(listener.toUpperCase());
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    // KafkaConfig.validateValues
    const key = 'sasl.mechanism.inter.broker.protocol';
    const mechanism = (config.getString(key) ?? 'GSSAPI').trim();
    const prefixed = `listener.name.${listener.toLowerCase()}.sasl.enabled.mechanisms`;
    const enabled = (config.originals.get(prefixed) ?? config.getList('sasl.enabled.mechanisms').join(','))
      .split(',')
      .map((m) => m.trim());
    if (mechanism !== 'GSSAPI' && !enabled.includes(mechanism))
      throw new ConfigError(
        `${key} must be included in sasl.enabled.mechanisms when SASL is used for inter-broker communication`,
        key,
      );
  }
  return outgoingSecurity(config, listener, 'sasl.mechanism.inter.broker.protocol');
}

export interface NodeOutgoingSecurity {
  /** For connections to the controller listener. */
  readonly controller: OutgoingSecurity;
  /** For connections to the inter-broker listener (`{}` on a controller-only node). */
  readonly interBroker: OutgoingSecurity;
}

const computed = new WeakMap<ServerConfig, NodeOutgoingSecurity>();

/**
 * Both, read once per configuration (startNode calls it first, so a ConfigError naming the key
 * stops start-up before anything binds; the channels' constructors then get the same objects).
 */
export function nodeOutgoingSecurity(config: ServerConfig): NodeOutgoingSecurity {
  let s = computed.get(config);
  if (!s) {
    s = {
      controller: controllerOutgoingSecurity(config),
      interBroker: config.isBroker ? interBrokerOutgoingSecurity(config) : {},
    };
    computed.set(config, s);
  }
  return s;
}
