// The metadata image: an immutable view of the cluster metadata as of one committed offset of the
// `__cluster_metadata` log (Kafka's org.apache.kafka.image.MetadataImage). A new image object is
// published after every committed batch; objects inside it are never mutated afterwards, so a
// reader may hold an image across awaits and see one consistent state.

import type {
  AccessControlEntryRecord,
  ClientQuotaRecordEntityData,
  DelegationTokenRecord,
  UserScramCredentialRecord,
} from '../../protocol/generated/metadata/index.js';
import { METADATA_VERSION_FEATURE } from './features.js';

/** ConfigResource.Type ids as stored in ConfigRecord.resourceType. */
export const ConfigResourceType = {
  Unknown: 0,
  Topic: 2,
  Broker: 4,
  BrokerLogger: 8,
  ClientMetrics: 16,
  Group: 32,
} as const;

export interface ConfigResource {
  readonly type: number;
  /** Topic name; broker id as decimal string ("" = cluster-wide broker default); group id; ... */
  readonly name: string;
}

export const configResourceKey = (type: number, name: string): string => `${type}:${name}`;

export interface PartitionImage {
  readonly topicId: string;
  readonly partitionId: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly removingReplicas: readonly number[];
  readonly addingReplicas: readonly number[];
  /** -1 = no leader. */
  readonly leader: number;
  /** 0 RECOVERED, 1 RECOVERING. */
  readonly leaderRecoveryState: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  /** Log directory id of each replica (same order as replicas); empty before MV 3.7-IV2. */
  readonly directories: readonly string[];
  readonly eligibleLeaderReplicas: readonly number[];
  readonly lastKnownElr: readonly number[];
}

export interface TopicImage {
  readonly name: string;
  readonly id: string;
  /** By partition id; ids are 0..n-1. */
  readonly partitions: ReadonlyMap<number, PartitionImage>;
}

export interface Endpoint {
  /** Listener name, e.g. PLAINTEXT. */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** SecurityProtocol id: 0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL. */
  readonly securityProtocol: number;
}

export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

export interface BrokerRegistration {
  readonly id: number;
  /** The metadata offset of the RegisterBrokerRecord of this incarnation. */
  readonly epoch: bigint;
  readonly incarnationId: string;
  readonly endpoints: readonly Endpoint[];
  readonly supportedFeatures: ReadonlyMap<string, VersionRange>;
  readonly rack: string | null;
  readonly fenced: boolean;
  readonly inControlledShutdown: boolean;
  readonly isMigratingZkBroker: boolean;
  /** Log directory ids (KIP-858). */
  readonly directories: readonly string[];
}

export interface ControllerRegistration {
  readonly id: number;
  readonly incarnationId: string;
  readonly zkMigrationReady: boolean;
  readonly endpoints: readonly Endpoint[];
  readonly supportedFeatures: ReadonlyMap<string, VersionRange>;
}

export interface ClientQuotaEntity {
  readonly entries: readonly ClientQuotaRecordEntityData[];
  readonly quotas: ReadonlyMap<string, number>;
}

/** Where an image came from: the last committed offset/epoch applied, and its append time. */
export interface ImageProvenance {
  /** Offset of the last record applied; -1 for the empty image. */
  readonly offset: number;
  /** Epoch of the batch holding that record; -1 for the empty image. */
  readonly epoch: number;
  /** Append time (ms) of that batch; -1 if unknown. */
  readonly lastContainedLogTimeMs: number;
}

export interface MetadataImageParts {
  provenance: ImageProvenance;
  clusterId: string;
  controllerId: number;
  features: ReadonlyMap<string, number>;
  zkMigrationState: number;
  brokers: ReadonlyMap<number, BrokerRegistration>;
  controllers: ReadonlyMap<number, ControllerRegistration>;
  topicsByName: ReadonlyMap<string, TopicImage>;
  topicsById: ReadonlyMap<string, TopicImage>;
  /** Keyed by configResourceKey(type, name); values: config name -> value. */
  configs: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Next producer id to hand out; -1n before the first ProducerIdsRecord. */
  nextProducerId: bigint;
  clientQuotas: ReadonlyMap<string, ClientQuotaEntity>;
  acls: ReadonlyMap<string, AccessControlEntryRecord>;
  /** Keyed by `${mechanism}:${name}`. */
  scramCredentials: ReadonlyMap<string, UserScramCredentialRecord>;
  delegationTokens: ReadonlyMap<string, DelegationTokenRecord>;
}

const EMPTY_CONFIG: ReadonlyMap<string, string> = new Map();

export class MetadataImage implements Readonly<MetadataImageParts> {
  readonly provenance: ImageProvenance;
  readonly clusterId: string;
  /** Active controller (Raft leader) id; -1 if unknown. */
  readonly controllerId: number;
  readonly features: ReadonlyMap<string, number>;
  readonly zkMigrationState: number;
  readonly brokers: ReadonlyMap<number, BrokerRegistration>;
  readonly controllers: ReadonlyMap<number, ControllerRegistration>;
  readonly topicsByName: ReadonlyMap<string, TopicImage>;
  readonly topicsById: ReadonlyMap<string, TopicImage>;
  readonly configs: ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly nextProducerId: bigint;
  readonly clientQuotas: ReadonlyMap<string, ClientQuotaEntity>;
  readonly acls: ReadonlyMap<string, AccessControlEntryRecord>;
  readonly scramCredentials: ReadonlyMap<string, UserScramCredentialRecord>;
  readonly delegationTokens: ReadonlyMap<string, DelegationTokenRecord>;

  constructor(p: MetadataImageParts) {
    this.provenance = p.provenance;
    this.clusterId = p.clusterId;
    this.controllerId = p.controllerId;
    this.features = p.features;
    this.zkMigrationState = p.zkMigrationState;
    this.brokers = p.brokers;
    this.controllers = p.controllers;
    this.topicsByName = p.topicsByName;
    this.topicsById = p.topicsById;
    this.configs = p.configs;
    this.nextProducerId = p.nextProducerId;
    this.clientQuotas = p.clientQuotas;
    this.acls = p.acls;
    this.scramCredentials = p.scramCredentials;
    this.delegationTokens = p.delegationTokens;
    Object.freeze(this);
  }

  static empty(clusterId = '', controllerId = -1): MetadataImage {
    return new MetadataImage({
      provenance: { offset: -1, epoch: -1, lastContainedLogTimeMs: -1 },
      clusterId,
      controllerId,
      features: new Map(),
      zkMigrationState: 0,
      brokers: new Map(),
      controllers: new Map(),
      topicsByName: new Map(),
      topicsById: new Map(),
      configs: new Map(),
      nextProducerId: -1n,
      clientQuotas: new Map(),
      acls: new Map(),
      scramCredentials: new Map(),
      delegationTokens: new Map(),
    });
  }

  /** A copy with other parts replaced (cheap: maps are shared). */
  with(parts: Partial<MetadataImageParts>): MetadataImage {
    return new MetadataImage({ ...this, ...parts });
  }

  /** Offset of the last applied record (-1 = nothing applied). */
  get offset(): number {
    return this.provenance.offset;
  }

  get isEmpty(): boolean {
    return this.provenance.offset < 0 && this.features.size === 0 && this.topicsById.size === 0;
  }

  /** The finalized metadata.version level; 0 if none was recorded (Kafka then assumes 3.0-IV1). */
  get metadataVersion(): number {
    return this.features.get(METADATA_VERSION_FEATURE) ?? 0;
  }

  topic(name: string): TopicImage | undefined {
    return this.topicsByName.get(name);
  }

  topicById(id: string): TopicImage | undefined {
    return this.topicsById.get(id);
  }

  partition(topic: string, partitionId: number): PartitionImage | undefined {
    return this.topicsByName.get(topic)?.partitions.get(partitionId);
  }

  configsOf(type: number, name: string): ReadonlyMap<string, string> {
    return this.configs.get(configResourceKey(type, name)) ?? EMPTY_CONFIG;
  }

  topicConfigs(topic: string): ReadonlyMap<string, string> {
    return this.configsOf(ConfigResourceType.Topic, topic);
  }

  /** Dynamic configs of one broker (id) or, with "" / undefined, the cluster-wide broker default. */
  brokerConfigs(brokerId?: number | string): ReadonlyMap<string, string> {
    return this.configsOf(ConfigResourceType.Broker, brokerId === undefined ? '' : String(brokerId));
  }

  broker(id: number): BrokerRegistration | undefined {
    return this.brokers.get(id);
  }

  /** Registered brokers that are not fenced and not in controlled shutdown (Kafka's isActive). */
  activeBrokers(): BrokerRegistration[] {
    return [...this.brokers.values()].filter((b) => !b.fenced && !b.inControlledShutdown);
  }

  /** Endpoint of a broker on a listener, if it has one. */
  endpoint(brokerId: number, listenerName: string): Endpoint | undefined {
    return this.brokers.get(brokerId)?.endpoints.find((e) => e.name === listenerName);
  }

  /** Partitions (of all topics) for which `brokerId` is a replica. */
  *partitionsOnBroker(brokerId: number): IterableIterator<{ topic: TopicImage; partition: PartitionImage }> {
    for (const topic of this.topicsById.values()) {
      for (const partition of topic.partitions.values()) {
        if (partition.replicas.includes(brokerId)) yield { topic, partition };
      }
    }
  }
}
