// A broker configuration parsed like KafkaConfig: every key's value (defaults included) and the
// derived values the broker needs (listeners, voters, effective retention/roll times, metadata log
// dir). loadServerConfig (load.ts) builds one and runs validateServerConfig (validate.ts) on it.
import {
  type ConfigValue,
  ConfigError,
  parseConfigValue,
  BROKER_CONFIG_KEYS,
  SECURITY_PROTOCOLS,
  parseVoterEntry,
  parseBootstrapServer,
  parseMetricsListener,
} from './definitions.js';
import { MINIMUM_KRAFT_VERSION, isKRaftSupported, metadataVersionFromString } from './features.js';
import { parseListeners, type Endpoint, type SecurityProtocol } from './listeners.js';

export type ProcessRole = 'broker' | 'controller';

export interface VoterEntry {
  id: number;
  host: string;
  port: number;
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
  /** tkafka.metrics.listener, parsed; null when unset (no metrics endpoint). */
  get metricsListener(): { host: string; port: number } | null {
    const v = this.getString('tkafka.metrics.listener');
    return v === null || v === '' ? null : parseMetricsListener('tkafka.metrics.listener', v);
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
