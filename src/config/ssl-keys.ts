// The ssl.* keys of a broker's listeners (SslConfigs.addClientSslSupport, BrokerSecurityConfigs):
// their types and defaults, which DescribeConfigs needs for listener-prefixed names such as
// listener.name.ssl.ssl.keystore.location (KafkaConfig.configType falls back to the base name's
// type; PASSWORD types are sensitive).
import type { ConfigKey, ConfigType, ConfigValue } from './config-def.js';

export interface SslKey {
  readonly type: ConfigType;
  /** The default as Kafka prints it (null: none). */
  readonly default: ConfigValue;
}

export const SSL_KEYS: ReadonlyMap<string, SslKey> = new Map<string, SslKey>([
  ['ssl.protocol', { type: 'string', default: 'TLSv1.3' }],
  ['ssl.provider', { type: 'string', default: null }],
  ['ssl.cipher.suites', { type: 'list', default: null }],
  ['ssl.enabled.protocols', { type: 'list', default: ['TLSv1.2', 'TLSv1.3'] }],
  ['ssl.keystore.type', { type: 'string', default: 'JKS' }],
  ['ssl.keystore.location', { type: 'string', default: null }],
  ['ssl.keystore.password', { type: 'password', default: null }],
  ['ssl.key.password', { type: 'password', default: null }],
  ['ssl.keystore.key', { type: 'password', default: null }],
  ['ssl.keystore.certificate.chain', { type: 'password', default: null }],
  ['ssl.truststore.certificates', { type: 'password', default: null }],
  ['ssl.truststore.type', { type: 'string', default: 'JKS' }],
  ['ssl.truststore.location', { type: 'string', default: null }],
  ['ssl.truststore.password', { type: 'password', default: null }],
  ['ssl.keymanager.algorithm', { type: 'string', default: 'SunX509' }],
  ['ssl.trustmanager.algorithm', { type: 'string', default: 'PKIX' }],
  ['ssl.endpoint.identification.algorithm', { type: 'string', default: 'https' }],
  ['ssl.secure.random.implementation', { type: 'string', default: null }],
  ['ssl.engine.factory.class', { type: 'class', default: null }],
  ['ssl.client.auth', { type: 'string', default: 'none' }],
  ['ssl.principal.mapping.rules', { type: 'string', default: 'DEFAULT' }],
  ['ssl.allow.dn.changes', { type: 'boolean', default: false }],
  ['ssl.allow.san.changes', { type: 'boolean', default: false }],
]);

/** A ConfigKey for an ssl.* key (to parse a value as Kafka's ConfigDef does), or undefined. */
export function sslConfigKey(name: string): ConfigKey | undefined {
  const k = SSL_KEYS.get(name);
  return k && { name, type: k.type, default: k.default, importance: 'low', doc: '' };
}
