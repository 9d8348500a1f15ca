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
 * The Acceptor configs for a node's `listeners`, with TLS for SSL/SASL_SSL listeners (the node's own
 * connections to its controller and inter-broker listeners: security/outgoing.ts).
 */
export function acceptorListeners(config: ServerConfig): ListenerConfig[] {
  return config.listeners.map((e) => ({
    name: e.listenerName,
    host: e.host,
    port: e.port,
    ...(TLS_PROTOCOLS.has(e.securityProtocol) ? { tls: listenerTls(config.originals, e.listenerName) } : {}),
  }));
}
