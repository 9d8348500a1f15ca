// What API handlers may use. The server (src/broker/server.ts) builds one BrokerServices and
// passes it to every handler; handlers never reach into each other.
import type { StandardAuthorizer } from './authorizer/standard-authorizer.js';
import type { ListenerStores } from './network/tls-listener.js';
import type { ServerConfig } from '../config/load.js';
import type { QuorumController } from './controller/index.js';
import type { GroupCoordinator } from './group/coordinator.js';
import type { BrokerLoggers } from './loggers.js';
import type { ReplicaManager } from './replication/replica-manager.js';
import type { TxnCoordinatorHandle } from './txn/handle.js';
import type { MetadataImage } from './metadata/image.js';
import type { MetadataPublisher } from './metadata/events.js';
import type { ForwardingManager } from './forwarding/forwarding-manager.js';
import type { CreatableTopic } from './controller/topics.js';
import type { AllocateProducerIdsResult } from './controller/quorum-controller.js';
import type { NodeMetrics } from './metrics/node-metrics.js';

export interface AdvertisedEndpoint {
  listenerName: string;
  host: string;
  port: number;
  securityProtocol: string;
}

export interface BrokerServices {
  readonly config: ServerConfig;
  readonly nodeId: number;
  readonly clusterId: string;
  /** Endpoints of this node by listener name (advertised). */
  readonly endpoints: readonly AdvertisedEndpoint[];
  /**
   * The KRaft controller in this process: metadata reads (image) and writes (create/delete topics,
   * configs, ...). A broker-only node has none (`remote` is set instead): reading it there throws, so
   * a handler that reaches it on such a node fails as the bug it is.
   */
  readonly controller: QuorumController;
  /** Set on a broker-only node (process.roles=broker): the active controller is another process. */
  readonly remote?: RemoteController;
  /** Partition data plane: appends, reads, offsets (src/broker/replication/replica-manager.ts). */
  readonly replicas: ReplicaManager;
  /** Runtime logger levels (the BROKER_LOGGER config resource). */
  readonly loggers: BrokerLoggers;
  /**
   * The group coordinator while it runs. Written only by src/broker/group/broker-glue.ts (set when it
   * starts, cleared at shutdown); handlers reach it through groupCoordinatorOf.
   */
  groupCoordinator: GroupCoordinator | null;
  /**
   * The transaction coordinator while it runs. Written only by src/broker/txn/broker-glue.ts;
   * handlers reach it through txnCoordinatorOf.
   */
  txnCoordinator: TxnCoordinatorHandle | null;
  /** The key and trust stores the SSL listeners run with (dynamic listener.name.<l>.ssl.* configs). */
  readonly listenerStores?: ListenerStores;
  /**
   * The StandardAuthorizer when authorizer.class.name names it (api/authz.ts asks it); absent or
   * null: no authorizer, every request is allowed.
   */
  readonly authorizer?: StandardAuthorizer | null;
  /**
   * The process's metrics registry (src/broker/metrics): modules register their metrics and
   * collectors on it; served on tkafka.metrics.listener when set. Absent in handler unit tests.
   */
  readonly metrics?: NodeMetrics;
}

/** The metadata image a node has applied, and the publishers that follow it (the MetadataLoader). */
export interface MetadataSource {
  readonly image: MetadataImage;
  addPublisher(publisher: MetadataPublisher): Promise<void>;
  removePublisher(publisher: MetadataPublisher): Promise<void>;
}

/** The active controller as a broker-only node reaches it (src/broker/forwarding/remote-controller.ts). */
export interface RemoteController {
  /** The metadata replicated from the quorum (the observer's loader). */
  readonly metadata: MetadataSource;
  /** Controller APIs of clients, forwarded in Envelopes (KIP-590). */
  readonly forwarding: ForwardingManager;
  /** AutoTopicCreationManager: CreateTopics sent to the controller; resolves when it answered. */
  createTopics(topics: readonly CreatableTopic[]): Promise<void>;
  /** AllocateProducerIds sent to the controller with this broker's id and epoch. */
  allocateProducerIds(): Promise<AllocateProducerIdsResult>;
}

/** Where this node reads metadata: the observer's loader on a broker-only node, else the controller's. */
export function metadataSourceOf(services: BrokerServices): MetadataSource {
  return services.remote ? services.remote.metadata : services.controller;
}
