// What API handlers may use. The server (src/broker/server.ts) builds one BrokerServices and
// passes it to every handler; handlers never reach into each other.
import type { ServerConfig } from '../config/load.js';

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
  readonly controller: any; // narrowed by the server to the controller's type (src/broker/controller)
  /** Partition data plane: appends, reads, offsets (src/broker/replication/replica-manager.ts). */
  readonly replicas: any;
  /** Registry of slots for extra services (group coordinator, txn coordinator) added by later work. */
  readonly extra: Map<string, unknown>;
}
