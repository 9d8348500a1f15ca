// Loading a broker configuration: server.properties (or the embedded default) plus
// `--override key=value`, parsed and validated like KafkaConfig, with the derived values the
// broker needs (listeners, voters, effective retention/roll times, metadata log dir).
import { existsSync, statSync } from 'node:fs';
import {
  type ConfigValue,
  ConfigError,
  parseConfigValue,
  BROKER_CONFIG_KEYS,
  BROKER_CONFIGS,
  DEFAULT_LISTENER_SECURITY_PROTOCOL_MAP,
  SECURITY_PROTOCOLS,
  parseVoterEntry,
  parseBootstrapServer,
} from './definitions.js';
import { MINIMUM_KRAFT_VERSION, isKRaftSupported, metadataVersionFromString } from './features.js';
import { readPropertiesFile } from './properties.js';
import { parseListeners, validateServerConfig } from './validate.js';

export { ConfigError } from './config-def.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export type ProcessRole = 'broker' | 'controller';

export interface Endpoint {
  /** Upper-cased listener name, e.g. PLAINTEXT, CONTROLLER. */
  listenerName: string;
  securityProtocol: SecurityProtocol;
  /** null means "all interfaces" (an empty host in the listener URI). */
  host: string | null;
  port: number;
}

export interface VoterEntry {
  id: number;
  host: string;
  port: number;
}

/** The configuration `tkafka server start` uses when no file is given. */
export const EMBEDDED_DEFAULT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['process.roles', 'broker,controller'],
  ['node.id', '1'],
  ['listeners', 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093'],
  ['advertised.listeners', 'PLAINTEXT://127.0.0.1:9092'],
  ['controller.listener.names', 'CONTROLLER'],
  ['listener.security.protocol.map', 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT'],
  ['controller.quorum.voters', '1@127.0.0.1:9093'],
  ['log.dirs', './tkafka-data'],
  ['num.partitions', '1'],
  ['offsets.topic.replication.factor', '1'],
  ['transaction.state.log.replication.factor', '1'],
  ['transaction.state.log.min.isr', '1'],
];

export interface LoadServerConfigOptions {
  /** server.properties path; omitted → the embedded default. */
  file?: string;
  /** `key=value` strings, applied after the file (Kafka's `--override`). */
  overrides?: string[];
  /** Properties to use instead of a file (tests, embedding). */
  properties?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
}

export interface LoadedServerConfig {
  config: ServerConfig;
  /** Human-readable warnings (unknown keys, deprecated settings); print each once. */
  warnings: string[];
  /** Keys that are not broker configurations. */
  unknownKeys: string[];
  source: 'file' | 'embedded' | 'properties';
}

/** CommandLineUtils.parseKeyValueArgs: split at the first `=`; a missing value is "". */
export function parseOverrides(overrides: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const arg of overrides) {
    const i = arg.indexOf('=');
    if (i < 0) out.set(arg, '');
    else out.set(arg.slice(0, i), arg.slice(i + 1));
  }
  return out;
}

/** Read and validate a broker configuration. Throws ConfigError with Kafka's message. */
export function loadServerConfig(opts: LoadServerConfigOptions = {}): LoadedServerConfig {
  let props: Map<string, string>;
  let source: LoadedServerConfig['source'];
  if (opts.properties) {
    const entries = opts.properties instanceof Map ? [...opts.properties] : Object.entries(opts.properties);
    props = new Map(entries.filter(([, v]) => v !== undefined && v !== null));
    source = 'properties';
  } else if (opts.file !== undefined) {
    if (!existsSync(opts.file)) throw new ConfigError(opts.file, undefined, 'java.nio.file.NoSuchFileException');
    if (statSync(opts.file).isDirectory())
      throw new ConfigError(`${opts.file}: Is a directory`, undefined, 'java.io.IOException');
    props = readPropertiesFile(opts.file);
    source = 'file';
  } else {
    props = new Map(EMBEDDED_DEFAULT_CONFIG.map(([k, v]) => [k, v]));
    source = 'embedded';
  }
  for (const [k, v] of parseOverrides(opts.overrides ?? [])) props.set(k, v);
  const config = new ServerConfig(props);
  const unknownKeys = [...props.keys()].filter((k) => !BROKER_CONFIGS.has(k));
  const warnings: string[] = [];
  if (unknownKeys.length)
    warnings.push(`These configurations '[${unknownKeys.join(', ')}]' were supplied but are not used yet.`);
  if (props.has('inter.broker.protocol.version')) {
    warnings.push(
      'inter.broker.protocol.version is deprecated in KRaft mode as of 3.3 and will only be read when first upgrading from a KRaft prior to 3.3. See kafka-storage.sh help for details on setting the metadata.version for a new KRaft cluster.',
    );
  }
  if (config.controllerListenerNames.length > 1 && !config.isController) {
    warnings.push(
      `controller.listener.names has multiple entries; only the first will be used since process.roles=broker: [${config.controllerListenerNames.join(', ')}]`,
    );
  }
  return { config, warnings, unknownKeys, source };
}

/** Csv.parseCsvList: split on commas with surrounding blanks, dropping empty entries. */
export function parseCsvList(s: string | null): string[] {
  if (s === null || s === '') return [];
  return s.split(/\s*,\s*/).filter((v) => v !== '');
}

/** A validated broker configuration (Kafka's KafkaConfig). */
export class ServerConfig {
  /** The static configuration as written (file + overrides, broker.id/node.id synonyms filled in). */
  readonly originals: Map<string, string>;
  /** Every broker key's parsed value (defaults included). */
  readonly values: Map<string, ConfigValue>;

  readonly processRoles: ProcessRole[];
  readonly nodeId: number;
  readonly logDirs: string[];
  readonly metadataLogDir: string;
  readonly listenerSecurityProtocolMap: Map<string, SecurityProtocol>;
  readonly listeners: Endpoint[];
  readonly controllerListenerNames: string[];
  readonly quorumVoters: VoterEntry[];
  readonly quorumBootstrapServers: Array<{ host: string; port: number }>;
  readonly interBrokerListenerName: string;

  constructor(props: ReadonlyMap<string, string>) {
    const originals = new Map(props);
    // KafkaConfig.populateSynonyms: node.id and broker.id stand in for each other.
    if (originals.has('node.id') && !originals.has('broker.id')) originals.set('broker.id', originals.get('node.id')!);
    else if (originals.has('broker.id') && !originals.has('node.id'))
      originals.set('node.id', originals.get('broker.id')!);
    this.originals = originals;
    this.values = new Map();
    for (const key of BROKER_CONFIG_KEYS) this.values.set(key.name, parseConfigValue(key, originals.get(key.name)));

    const roles = this.getList('process.roles');
    if (new Set(roles).size !== roles.length) {
      throw new ConfigError(
        `Duplicate role names found in \`process.roles\`: Buffer(${roles.join(', ')})`,
        'process.roles',
      );
    }
    this.processRoles = roles as ProcessRole[];
    this.nodeId = this.getInt('node.id');
    if (this.nodeId !== this.getInt('broker.id')) {
      throw new ConfigError('You must set `node.id` to the same value as `broker.id`.', 'node.id');
    }
    if (originals.has('inter.broker.protocol.version')) {
      const ibp = this.getString('inter.broker.protocol.version')!;
      if (!isKRaftSupported(metadataVersionFromString(ibp))) {
        throw new ConfigError(
          `A non-KRaft version ${ibp} given for inter.broker.protocol.version. The minimum version is ${MINIMUM_KRAFT_VERSION.version}`,
          'inter.broker.protocol.version',
        );
      }
    }
    const groupProtocols = this.getList('group.coordinator.rebalance.protocols');
    if (!groupProtocols.includes('classic')) {
      throw new ConfigError(
        "Disabling the 'classic' protocol is not supported.",
        'group.coordinator.rebalance.protocols',
      );
    }

    this.logDirs = parseCsvList(this.getString('log.dirs') ?? this.getString('log.dir'));
    this.metadataLogDir = this.getString('metadata.log.dir') ?? this.logDirs[0];
    this.controllerListenerNames =
      (this.getString('controller.listener.names') ?? '') === ''
        ? []
        : this.getString('controller.listener.names')!.split(',');
    this.listenerSecurityProtocolMap = this.effectiveSecurityProtocolMap();
    this.listeners = parseListeners(this.getString('listeners') ?? '', this.listenerSecurityProtocolMap, true);
    this.quorumVoters = this.getList('controller.quorum.voters').map(parseVoterEntry);
    this.quorumBootstrapServers = this.getList('controller.quorum.bootstrap.servers').map(parseBootstrapServer);
    this.interBrokerListenerName = this.resolveInterBrokerListenerName();
    validateServerConfig(this);
  }

  get(name: string): ConfigValue {
    if (!this.values.has(name)) throw new Error(`Unknown configuration '${name}'`);
    return this.values.get(name)!;
  }
  getInt(name: string): number {
    return this.get(name) as number;
  }
  getLong(name: string): bigint {
    return this.get(name) as bigint;
  }
  /** A long or int as a JS number (Long.MAX_VALUE becomes 2^63, which compares as "never"). */
  getNumber(name: string): number {
    const v = this.get(name);
    return v === null ? NaN : Number(v as number | bigint);
  }
  getString(name: string): string | null {
    return this.get(name) as string | null;
  }
  getBoolean(name: string): boolean {
    return this.get(name) as boolean;
  }
  getList(name: string): string[] {
    return (this.get(name) as string[] | null) ?? [];
  }

  get isBroker(): boolean {
    return this.processRoles.includes('broker');
  }
  get isController(): boolean {
    return this.processRoles.includes('controller');
  }
  get isCombined(): boolean {
    return this.isBroker && this.isController;
  }
  /** Listeners named in controller.listener.names. */
  get controllerListeners(): Endpoint[] {
    return this.listeners.filter((l) => this.controllerListenerNames.includes(l.listenerName));
  }
  /** Listeners that serve clients (everything not used by the controller). */
  get brokerListeners(): Endpoint[] {
    return this.listeners.filter((l) => !this.controllerListenerNames.includes(l.listenerName));
  }
  /** advertised.listeners if set, otherwise listeners (duplicate ports allowed). */
  get advertisedListeners(): Endpoint[] {
    const prop = this.getString('advertised.listeners');
    return prop === null ? this.listeners : parseListeners(prop, this.listenerSecurityProtocolMap, false);
  }
  /** Broker endpoints published in broker registrations. */
  get effectiveAdvertisedBrokerListeners(): Endpoint[] {
    return this.advertisedListeners.filter((l) => !this.controllerListenerNames.includes(l.listenerName));
  }
  /** Controller endpoints, one per controller listener name (advertised first, else listeners). */
  get effectiveAdvertisedControllerListeners(): Endpoint[] {
    const adv = this.advertisedListeners;
    const out: Endpoint[] = [];
    for (const name of this.controllerListenerNames) {
      const n = name.toUpperCase();
      const e = adv.find((l) => l.listenerName === n) ?? this.controllerListeners.find((l) => l.listenerName === n);
      if (e) out.push(e);
    }
    return out;
  }
  /** The listener the controller quorum is reached through (the first controller listener name). */
  get controllerListenerName(): string | undefined {
    return this.controllerListenerNames[0];
  }
  get voterIds(): number[] {
    return this.quorumVoters.map((v) => v.id);
  }
  /** KafkaConfig.logRetentionTimeMillis: ms > minutes > hours; negative means -1 (unlimited). */
  get logRetentionMs(): number {
    const ms = this.get('log.retention.ms');
    const mins = this.get('log.retention.minutes');
    const millis =
      ms !== null ? Number(ms) : mins !== null ? Number(mins) * 60000 : this.getInt('log.retention.hours') * 3600000;
    return millis < 0 ? -1 : millis;
  }
  /** KafkaConfig.logRollTimeMillis: log.roll.ms, else log.roll.hours. */
  get logRollMs(): number {
    const ms = this.get('log.roll.ms');
    return ms !== null ? Number(ms) : this.getInt('log.roll.hours') * 3600000;
  }
  get logRollJitterMs(): number {
    const ms = this.get('log.roll.jitter.ms');
    return ms !== null ? Number(ms) : this.getInt('log.roll.jitter.hours') * 3600000;
  }
  /** log.flush.interval.ms, else log.flush.scheduler.interval.ms. */
  get logFlushIntervalMs(): number {
    const ms = this.get('log.flush.interval.ms');
    return ms !== null ? Number(ms) : this.getNumber('log.flush.scheduler.interval.ms');
  }
  get requestLog(): boolean {
    return this.getBoolean('tkafka.request.log');
  }

  private effectiveSecurityProtocolMap(): Map<string, SecurityProtocol> {
    const raw = this.getString('listener.security.protocol.map') ?? '';
    const map = new Map<string, SecurityProtocol>();
    if (raw !== '') {
      for (const entry of raw.split(/\s*,\s*/)) {
        const i = entry.lastIndexOf(':');
        if (i < 0) {
          throw new ConfigError(
            `Error parsing configuration property 'listener.security.protocol.map': begin 0, end -1, length ${entry.length}`,
            'listener.security.protocol.map',
            'java.lang.IllegalArgumentException',
          );
        }
        const protocol = entry.slice(i + 1).trim();
        if (!SECURITY_PROTOCOLS.includes(protocol.toUpperCase())) {
          throw new ConfigError(
            `Invalid security protocol \`${protocol}\` defined in listener.security.protocol.map`,
            'listener.security.protocol.map',
          );
        }
        map.set(entry.slice(0, i).trim().toUpperCase(), protocol.toUpperCase() as SecurityProtocol);
      }
    }
    if (!this.originals.has('listener.security.protocol.map')) {
      // KRaft: controller listeners default to PLAINTEXT unless SSL or SASL is in use anywhere.
      const sslOrSasl = (n: string): boolean => n === 'SSL' || n === 'SASL_SSL' || n === 'SASL_PLAINTEXT';
      const listenerNames = parseCsvList(this.getString('listeners')).map((l) =>
        l.includes(':') ? l.slice(0, l.indexOf(':')).toUpperCase() : l,
      );
      if (!this.controllerListenerNames.some(sslOrSasl) && !listenerNames.some(sslOrSasl)) {
        for (const n of this.controllerListenerNames) if (n !== 'PLAINTEXT') map.set(n, 'PLAINTEXT');
      }
    }
    return map;
  }

  private resolveInterBrokerListenerName(): string {
    const name = this.getString('inter.broker.listener.name');
    if (name !== null) {
      if (this.originals.has('security.inter.broker.protocol')) {
        throw new ConfigError(
          'Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.',
          'inter.broker.listener.name',
        );
      }
      const n = name.toUpperCase();
      if (!this.listenerSecurityProtocolMap.has(n)) {
        throw new ConfigError(
          `Listener with name ${n} defined in inter.broker.listener.name not found in listener.security.protocol.map.`,
          'inter.broker.listener.name',
        );
      }
      return n;
    }
    return this.getString('security.inter.broker.protocol')!;
  }
}

export { DEFAULT_LISTENER_SECURITY_PROTOCOL_MAP, parseListeners };
