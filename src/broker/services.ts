// What API handlers may use. The server (src/broker/server.ts) builds one BrokerServices and
// passes it to every handler; handlers never reach into each other.
import type { ServerConfig } from '../config/load.js';
import type { QuorumController } from './controller/index.js';
import type { GroupCoordinator } from './group/coordinator.js';
import type { BrokerLoggers } from './loggers.js';
import type { ReplicaManager } from './replication/replica-manager.js';
import type { TxnCoordinatorHandle } from './txn/handle.js';

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
  /** The KRaft controller: metadata reads (image) and writes (create/delete topics, configs, ...). */
  readonly controller: QuorumController;
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
}
