// TLS for the broker's listeners: a listener whose security protocol (listener.security.protocol.map)
// is SSL or SASL_SSL is served through node:tls with Kafka's ssl.* settings, each read first with the
// listener's prefix (listener.name.<lower-case name>.ssl.*, ListenerName.configPrefix), then bare.
// Settings tkafka cannot honour stop start-up with a message naming the key.
import { tlsStoresFromSettings } from '../../client/tls-config.js';
import { ConfigError } from '../../config/config-def.js';
import type { ServerConfig } from '../../config/server-config.js';
import { SslPrincipalMapper } from '../security/ssl-principal.js';
import type { ListenerConfig, ListenerTls } from './acceptor.js';

export type { ListenerTls, SslClientAuth } from './acceptor.js';

/** The listener's setting `key`: listener.name.<name>.<key>, else <key>. */
export function listenerSetting(
  originals: ReadonlyMap<string, string>,
  listenerName: string,
  key: string,
): string | undefined {
  return originals.get(`listener.name.${listenerName.toLowerCase()}.${key}`) ?? originals.get(key);
}

/** TLS settings for one SSL/SASL_SSL listener (throws ConfigError naming the key). */
export function listenerTls(originals: ReadonlyMap<string, string>, listenerName: string): ListenerTls {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const fullKey = (key: string): string => (originals.has(prefix + key) ? prefix + key : key);
  const get = (key: string): string | undefined => listenerSetting(originals, listenerName, key);
  const { options, hasKeystore } = tlsStoresFromSettings(get, (message, key) => new ConfigError(message, fullKey(key)));
  if (!hasKeystore) {
    throw new ConfigError(
      `The SSL listener ${listenerName} has no key store: set ${prefix}ssl.keystore.location or ssl.keystore.location (with ssl.keystore.type PKCS12 or PEM), or ssl.keystore.key and ssl.keystore.certificate.chain`,
      `${prefix}ssl.keystore.location`,
    );
  }
  const auth = (get('ssl.client.auth') ?? 'none').trim().toLowerCase();
  if (auth !== 'required' && auth !== 'requested' && auth !== 'none') {
    throw new ConfigError(
      `Invalid value ${auth} for configuration ${fullKey('ssl.client.auth')}: String must be one of: required, requested, none`,
      fullKey('ssl.client.auth'),
    );
  }
  let principalMapper: SslPrincipalMapper;
  const rules = get('ssl.principal.mapping.rules') ?? 'DEFAULT';
  try {
    principalMapper = new SslPrincipalMapper(rules);
  } catch (e) {
    throw new ConfigError(
      `Invalid value ${rules} for configuration ${fullKey('ssl.principal.mapping.rules')}: ${(e as Error).message}`,
      fullKey('ssl.principal.mapping.rules'),
    );
  }
  return { options, clientAuth: auth, principalMapper };
}

const TLS_PROTOCOLS = new Set(['SSL', 'SASL_SSL']);

/**
 * The Acceptor configs for a node's `listeners`, with TLS for SSL/SASL_SSL listeners. Refuses an
 * inter-broker or controller listener that is not PLAINTEXT: the node's own outgoing connections
 * (raft, replica fetchers, forwarding) do not speak TLS or SASL yet.
 */
export function acceptorListeners(config: ServerConfig): ListenerConfig[] {
  const protocols = config.listenerSecurityProtocolMap;
  for (const name of config.controllerListenerNames) {
    const p = protocols.get(name.toUpperCase());
    if (p !== undefined && p !== 'PLAINTEXT') {
      throw new ConfigError(
        `controller.listener.names: the controller listener ${name.toUpperCase()} uses ${p}, but tkafka's raft and controller connections only speak PLAINTEXT; map ${name.toUpperCase()} to PLAINTEXT in listener.security.protocol.map`,
        'controller.listener.names',
      );
    }
  }
  if (config.isBroker) {
    const ib = config.interBrokerListenerName.toUpperCase();
    const p = protocols.get(ib);
    if (p !== undefined && p !== 'PLAINTEXT') {
      throw new ConfigError(
        `inter.broker.listener.name: the inter-broker listener ${ib} uses ${p}, but tkafka's replica fetchers and broker-to-broker connections only speak PLAINTEXT; set inter.broker.listener.name to a PLAINTEXT listener`,
        'inter.broker.listener.name',
      );
    }
  }
  return config.listeners.map((e) => ({
    name: e.listenerName,
    host: e.host,
    port: e.port,
    ...(TLS_PROTOCOLS.has(e.securityProtocol) ? { tls: listenerTls(config.originals, e.listenerName) } : {}),
  }));
}
