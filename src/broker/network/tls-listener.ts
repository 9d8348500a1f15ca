// TLS for the broker's listeners: a listener whose security protocol (listener.security.protocol.map)
// is SSL or SASL_SSL is served through node:tls with Kafka's ssl.* settings, each read first with the
// listener's prefix (listener.name.<lower-case name>.ssl.*, ListenerName.configPrefix), then bare.
// Settings tkafka cannot honour stop start-up with a message naming the key.
import { X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import { tlsStoresFromSettings } from '../../client/tls-config.js';
import { ConfigError } from '../../config/config-def.js';
import type { ServerConfig } from '../../config/server-config.js';
import { SslPrincipalMapper } from '../security/ssl-principal.js';
import type { ListenerConfig, ListenerTls } from './acceptor.js';
import type { MetadataPublisher, MetadataUpdate } from '../metadata/events.js';
import { ConfigResourceType } from '../metadata/image.js';

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
  const { options, hasKeystore, keystoreCertificates } = tlsStoresFromSettings(
    get,
    (message, key) => new ConfigError(message, fullKey(key)),
  );
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
  return { options, clientAuth: auth, principalMapper, keystoreCertificates };
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

// ------------------------------------------------------------------ dynamic key and trust stores

/** SslConfigs.RECONFIGURABLE_CONFIGS: the ssl.* keys an SSL listener reloads when altered (per listener). */
export const SSL_RECONFIGURABLE_CONFIGS: readonly string[] = [
  'ssl.keystore.type',
  'ssl.keystore.location',
  'ssl.keystore.password',
  'ssl.key.password',
  'ssl.truststore.type',
  'ssl.truststore.location',
  'ssl.truststore.password',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.truststore.certificates',
];
const RECONFIGURABLE = new Set(SSL_RECONFIGURABLE_CONFIGS);

/** DynamicBrokerConfig.ListenerConfigRegex (matched whole): the base name of a listener-prefixed key. */
export function listenerConfigBaseName(name: string): string | null {
  const m = /^listener\.name\.[^.]*\.(.*)$/s.exec(name);
  return m ? m[1]! : null;
}

/** ClusterLevelListenerConfigs: the listener-prefixed keys that may be set at the cluster default. */
const CLUSTER_LEVEL_LISTENER_CONFIGS = new Set([
  'max.connections',
  'max.connection.creation.rate',
  'num.network.threads',
]);

/** A bare SslConfigs.RECONFIGURABLE_CONFIGS key: dynamic only with a listener prefix. */
export const isSecurityConfigWithoutListenerPrefix = (name: string): boolean => RECONFIGURABLE.has(name);

/** DynamicBrokerConfig.perBrokerConfigs, for listener-prefixed keys: not allowed at the cluster default. */
export function isPerBrokerListenerConfig(name: string): boolean {
  const base = listenerConfigBaseName(name);
  return base !== null && !CLUSTER_LEVEL_LISTENER_CONFIGS.has(base);
}

/** The settings a node runs with: static ones, overridden by the cluster default, then by its own dynamic configs. */
export function effectiveSettings(
  originals: ReadonlyMap<string, string>,
  clusterDefault: ReadonlyMap<string, string>,
  perBroker: ReadonlyMap<string, string>,
): Map<string, string> {
  return new Map([...originals, ...clusterDefault, ...perBroker]);
}

/** Whether an SSL listener's key or trust store settings differ between two settings maps. */
export function listenerStoresChanged(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  listenerName: string,
): boolean {
  return SSL_RECONFIGURABLE_CONFIGS.some(
    (k) => listenerSetting(before, listenerName, k) !== listenerSetting(after, listenerName, k),
  );
}

/** Why a listener's new stores were refused: `javaCause` is the Java exception text Kafka prints (class: message). */
export class SslReconfigurationError extends Error {
  constructor(readonly javaCause: string) {
    super(`Validation of dynamic config update of SSLFactory failed: ${javaCause}`);
    this.name = 'SslReconfigurationError';
  }
  /** The message Kafka's broker answers AlterConfigs with (INVALID_REQUEST). */
  get kafkaMessage(): string {
    return `Invalid value org.apache.kafka.common.config.ConfigException: ${this.message} for configuration Invalid dynamic configuration`;
  }
}

interface KeystoreEntry {
  alias: string;
  /** X500Principal.toString */
  dn: string;
  /** getSubjectAlternativeNames as [type, value] */
  sans: [number, string][];
}

const SAN_TYPES: Record<string, number> = {
  othername: 0,
  email: 1,
  DNS: 2,
  DirName: 4,
  URI: 6,
  'IP Address': 7,
  'Registered ID': 8,
};

/**
 * Set.copyOf(getSubjectAlternativeNames()).toString(): Java's immutable sets iterate in an order
 * salted per JVM, so Kafka's own order varies from run to run; tkafka prints the certificate's order.
 */
const javaSanSet = (sans: readonly [number, string][]): string =>
  `[${sans.map(([t, v]) => `[${t}, ${v}]`).join(', ')}]`;

function keystoreEntry(alias: string, pem: string): KeystoreEntry {
  const cert = new X509Certificate(pem);
  const dn = cert.subject.split('\n').reverse().join(', ');
  const sans: [number, string][] = [];
  for (const part of (cert.subjectAltName ?? '').split(', ').filter((p) => p !== '')) {
    const i = part.indexOf(':');
    sans.push([SAN_TYPES[part.slice(0, i)] ?? 0, part.slice(i + 1)]);
  }
  return { alias, dn, sans };
}

/** CertificateEntries.create: the key entries of a listener's key store (PEM stores have the alias "kafka"). */
function keystoreEntries({ options, keystoreCertificates: all }: ListenerTls): KeystoreEntry[] {
  if (all !== undefined) {
    const keyed = all.filter((e) => e.keyed);
    return (keyed.length ? keyed : all.slice(0, 1)).map((e) => keystoreEntry(e.alias ?? '', e.pem));
  }
  if (options.cert !== undefined) {
    const first = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(String(options.cert));
    return first ? [keystoreEntry('kafka', first[0])] : [];
  }
  return [];
}

const boolSetting = (settings: ReadonlyMap<string, string>, listenerName: string, key: string): boolean =>
  (listenerSetting(settings, listenerName, key) ?? 'false').trim().toLowerCase() === 'true';

/**
 * SslFactory.validateReconfiguration for an SSL listener whose key store now has `oldEntries`, to
 * `after` (the node's effective settings): the new stores must load, and (but at start-up, where
 * `oldEntries` is null: Kafka builds the listener from the stored configs directly) unless
 * ssl.allow.dn.changes / ssl.allow.san.changes the new certificates keep the subject and the SANs
 * (CertificateEntries.ensureCompatible). Those two are read from `started`, the settings the listener
 * started with: SslFactory copies only the reconfigurable keys into its configs, so altering them
 * has no effect until a restart. Returns the new TLS settings; throws SslReconfigurationError.
 */
function validateListenerTlsUpdate(
  old: { readonly entries: readonly KeystoreEntry[]; readonly truststore: boolean } | null,
  after: ReadonlyMap<string, string>,
  listenerName: string,
  started: ReadonlyMap<string, string>,
): ListenerTls {
  let next: ListenerTls;
  try {
    next = listenerTls(after, listenerName);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const key = e.key ?? '';
    if (/Failed to load SSL|could not be loaded/.test(e.message)) {
      const what = key.includes('truststore') ? 'truststore' : 'keystore';
      const location = listenerSetting(after, listenerName, `ssl.${what}.location`) ?? '';
      const type = (listenerSetting(after, listenerName, `ssl.${what}.type`) ?? 'JKS').trim().toUpperCase();
      throw new SslReconfigurationError(
        `org.apache.kafka.common.KafkaException: Failed to load SSL ${what} ${location} of type ${type}`,
      );
    }
    throw new SslReconfigurationError(`org.apache.kafka.common.errors.InvalidConfigurationException: ${e.message}`);
  }
  if (old === null) return next;
  const oldEntries = old.entries;
  const newEntries = keystoreEntries(next);
  const mismatch = (): never => {
    throw new SslReconfigurationError(
      `org.apache.kafka.common.config.ConfigException: Keystore entries do not match, existing store contains ${oldEntries.length} entries, new store contains ${newEntries.length} entries`,
    );
  };
  if (!boolSetting(started, listenerName, 'ssl.allow.dn.changes')) {
    if (newEntries.length !== oldEntries.length) mismatch();
    newEntries.forEach((n, i) => {
      const o = oldEntries[i]!;
      if (n.dn.toLowerCase() !== o.dn.toLowerCase())
        throw new SslReconfigurationError(
          `org.apache.kafka.common.config.ConfigException: Keystore DistinguishedName does not match:  existing={alias=${o.alias}, DN=${o.dn}}, new={alias=${n.alias}, DN=${n.dn}}`,
        );
    });
  }
  if (!boolSetting(started, listenerName, 'ssl.allow.san.changes')) {
    if (newEntries.length !== oldEntries.length) mismatch();
    newEntries.forEach((n, i) => {
      const o = oldEntries[i]!;
      const has = new Set(n.sans.map(([t, v]) => `${t}:${v}`));
      if (!o.sans.every(([t, v]) => has.has(`${t}:${v}`)))
        throw new SslReconfigurationError(
          `org.apache.kafka.common.config.ConfigException: Keystore SubjectAltNames do not match:  existing={alias=${o.alias}, SAN=${javaSanSet(o.sans)}}, new={alias=${n.alias}, SAN=${javaSanSet(n.sans)}}`,
        );
    });
  }
  if (!old.truststore && next.options.ca !== undefined)
    throw new SslReconfigurationError(
      'org.apache.kafka.common.config.ConfigException: Cannot add SSL truststore to an existing listener for which no truststore was configured.',
    );
  return next;
}

/** The SSL/SASL_SSL listeners of a node, by name. */
export function tlsListenerNames(config: ServerConfig): string[] {
  return config.listeners.filter((e) => TLS_PROTOCOLS.has(e.securityProtocol)).map((e) => e.listenerName);
}

/** The modification times of a listener's key and trust store files (SslEngineFactory.shouldBeRebuilt). */
function fileStamp(settings: ReadonlyMap<string, string>, listenerName: string): string {
  return ['ssl.keystore.location', 'ssl.truststore.location']
    .map((k) => {
      const path = listenerSetting(settings, listenerName, k)?.trim();
      if (!path) return '';
      try {
        return String(statSync(path).mtimeMs);
      } catch {
        return 'missing';
      }
    })
    .join('|');
}

interface LoadedStores {
  /** the settings at start-up (ssl.allow.dn.changes, ssl.allow.san.changes) */
  readonly started: ReadonlyMap<string, string>;
  readonly settings: ReadonlyMap<string, string>;
  readonly entries: readonly KeystoreEntry[];
  /** whether a trust store is configured */
  readonly truststore: boolean;
  readonly stamp: string;
}

/**
 * What each SSL listener of a node runs with (settings, key store entries, store file times):
 * the broker-side check of an AlterConfigs (DynamicBrokerConfig.validate) and the reload when the
 * ConfigRecord reaches the image (DynamicConfigPublisher) both go through it.
 */
export class ListenerStores {
  private readonly loaded = new Map<string, LoadedStores>();

  constructor(config: ServerConfig) {
    for (const l of tlsListenerNames(config)) {
      const stamp = fileStamp(config.originals, l);
      const tls = listenerTls(config.originals, l);
      const { options } = tls;
      this.loaded.set(l, {
        started: config.originals,
        settings: config.originals,
        entries: keystoreEntries(tls),
        truststore: options.ca !== undefined,
        stamp,
      });
    }
  }

  /**
   * DynamicBrokerConfig.validate for the node's effective settings `after`: every listener whose
   * store settings change must load the new stores and keep its certificates' DN and SANs.
   * Throws SslReconfigurationError.
   */
  validate(after: ReadonlyMap<string, string>): void {
    for (const [l, cur] of this.loaded)
      if (listenerStoresChanged(cur.settings, after, l)) validateListenerTlsUpdate(cur, after, l, cur.started);
  }

  /**
   * Applies `after` (SslFactory.reconfigure) to the listeners whose store settings changed, and
   * with `reloadFiles` (a ConfigRecord for this node arrived: reloadUpdatedFilesWithoutConfigChange)
   * to those whose store files changed on disk too. A change that fails validation is logged and
   * the listener keeps its stores, as Kafka does. `startUp`: the stored configs of a starting node,
   * taken without the DN/SAN checks (Kafka starts its listeners with them).
   */
  apply(
    after: ReadonlyMap<string, string>,
    reloadFiles: boolean,
    server: { reloadListenerTls(listenerName: string, originals: ReadonlyMap<string, string>): void },
    log: { info(message: string): void; error(message: string): void },
    startUp = false,
  ): void {
    for (const [l, cur] of this.loaded) {
      const stamp = fileStamp(after, l);
      if (!listenerStoresChanged(cur.settings, after, l) && !(reloadFiles && stamp !== cur.stamp)) continue;
      try {
        const next = validateListenerTlsUpdate(startUp ? null : cur, after, l, cur.started);
        server.reloadListenerTls(l, after);
        const started = startUp ? after : cur.started;
        this.loaded.set(l, {
          started,
          settings: after,
          entries: keystoreEntries(next),
          truststore: next.options.ca !== undefined,
          stamp,
        });
        log.info(`Reconfigured the SSL key and trust stores of listener ${l.toUpperCase()}`);
      } catch (e) {
        log.error(`Failed to update the SSL stores of listener ${l.toUpperCase()}: ${(e as Error).message}`);
      }
    }
  }
}

/**
 * DynamicConfigPublisher for the SSL listeners: when the node's dynamic configs (its own, or the
 * cluster default) change a listener's key or trust store settings, or a ConfigRecord for this node
 * arrives while a store file has changed, the listener reloads its stores: new connections get the
 * new certificate, open ones keep theirs.
 */
export function tlsReloadPublisher(
  stores: ListenerStores,
  config: ServerConfig,
  nodeId: number,
  server: { reloadListenerTls(listenerName: string, originals: ReadonlyMap<string, string>): void },
  log: { info(message: string): void; error(message: string): void },
): MetadataPublisher {
  return {
    name: 'ssl-listener-reconfiguration',
    onMetadataUpdate(u: MetadataUpdate): void {
      const next = effectiveSettings(config.originals, u.image.brokerConfigs(''), u.image.brokerConfigs(nodeId));
      const recordForThisNode = u.events.some(
        (e) =>
          e.type === 'configChanged' &&
          e.resourceType === ConfigResourceType.Broker &&
          e.resourceName === String(nodeId),
      );
      stores.apply(next, recordForThisNode, server, log, u.kind === 'initial');
    },
  };
}
