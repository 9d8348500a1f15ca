// The Kafka APIs as the client sees them: key, name, the versions the client writes and reads (within
// what the codec can: the codec may know newer versions the client does not use yet), the first
// flexible version, and whether the client skips its latest version as unstable. A plain table, so
// tools pay only for the message codecs they actually use (each loaded on first use), not for the
// whole generated protocol. test/client.test.ts checks it against the generated API_SPECS. An API
// Kafka removed keeps its row with versions 0 to -1.
import type { Reader } from '../protocol/codec/reader.js';
import type { Writer } from '../protocol/codec/writer.js';

export interface ClientApi {
  readonly key: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** First flexible version, -1 when none. */
  readonly firstFlexible: number;
  /** The latest version is marked unstable in Kafka's spec: the client does not use it. */
  readonly latestUnstable: boolean;
}

type Row = [key: number, name: string, min: number, max: number, flexible: number, unstable: 0 | 1];

// prettier-ignore
const ROWS: Row[] = [
  [0, 'Produce', 3, 11, 9, 0],
  [1, 'Fetch', 4, 17, 12, 0],
  [2, 'ListOffsets', 1, 10, 6, 0],
  [3, 'Metadata', 0, 12, 9, 0],
  [4, 'LeaderAndIsr', 0, -1, -1, 0],
  [5, 'StopReplica', 0, -1, -1, 0],
  [6, 'UpdateMetadata', 0, -1, -1, 0],
  [7, 'ControlledShutdown', 0, -1, -1, 0],
  [8, 'OffsetCommit', 2, 9, 8, 0],
  [9, 'OffsetFetch', 1, 9, 6, 0],
  [10, 'FindCoordinator', 0, 6, 3, 0],
  [11, 'JoinGroup', 0, 9, 6, 0],
  [12, 'Heartbeat', 0, 4, 4, 0],
  [13, 'LeaveGroup', 0, 5, 4, 0],
  [14, 'SyncGroup', 0, 5, 4, 0],
  [15, 'DescribeGroups', 0, 5, 5, 0],
  [16, 'ListGroups', 0, 5, 3, 0],
  [17, 'SaslHandshake', 0, 1, -1, 0],
  [18, 'ApiVersions', 0, 4, 3, 0],
  [19, 'CreateTopics', 2, 7, 5, 0],
  [20, 'DeleteTopics', 1, 6, 4, 0],
  [21, 'DeleteRecords', 0, 2, 2, 0],
  [22, 'InitProducerId', 0, 5, 2, 0],
  [23, 'OffsetForLeaderEpoch', 2, 4, 4, 0],
  [24, 'AddPartitionsToTxn', 0, 5, 3, 0],
  [25, 'AddOffsetsToTxn', 0, 4, 3, 0],
  [26, 'EndTxn', 0, 5, 3, 1],
  [27, 'WriteTxnMarkers', 1, 1, 1, 0],
  [28, 'TxnOffsetCommit', 0, 4, 3, 0],
  [29, 'DescribeAcls', 1, 3, 2, 0],
  [30, 'CreateAcls', 1, 3, 2, 0],
  [31, 'DeleteAcls', 1, 3, 2, 0],
  [32, 'DescribeConfigs', 1, 4, 4, 0],
  [33, 'AlterConfigs', 0, 2, 2, 0],
  [34, 'AlterReplicaLogDirs', 1, 2, 2, 0],
  [35, 'DescribeLogDirs', 1, 4, 2, 0],
  [36, 'SaslAuthenticate', 0, 2, 2, 0],
  [37, 'CreatePartitions', 0, 3, 2, 0],
  [38, 'CreateDelegationToken', 1, 3, 2, 0],
  [39, 'RenewDelegationToken', 1, 2, 2, 0],
  [40, 'ExpireDelegationToken', 1, 2, 2, 0],
  [41, 'DescribeDelegationToken', 1, 3, 2, 0],
  [42, 'DeleteGroups', 0, 2, 2, 0],
  [43, 'ElectLeaders', 0, 2, 2, 0],
  [44, 'IncrementalAlterConfigs', 0, 1, 1, 0],
  [45, 'AlterPartitionReassignments', 0, 1, 0, 0],
  [46, 'ListPartitionReassignments', 0, 0, 0, 0],
  [47, 'OffsetDelete', 0, 0, -1, 0],
  [48, 'DescribeClientQuotas', 0, 1, 1, 0],
  [49, 'AlterClientQuotas', 0, 1, 1, 0],
  [50, 'DescribeUserScramCredentials', 0, 0, 0, 0],
  [51, 'AlterUserScramCredentials', 0, 0, 0, 0],
  [52, 'Vote', 0, 2, 0, 0],
  [53, 'BeginQuorumEpoch', 0, 1, 1, 0],
  [54, 'EndQuorumEpoch', 0, 1, 1, 0],
  [55, 'DescribeQuorum', 0, 2, 0, 0],
  [56, 'AlterPartition', 2, 3, 0, 0],
  [57, 'UpdateFeatures', 0, 2, 0, 0],
  [58, 'Envelope', 0, 0, 0, 0],
  [59, 'FetchSnapshot', 0, 1, 0, 0],
  [60, 'DescribeCluster', 0, 2, 0, 0],
  [61, 'DescribeProducers', 0, 0, 0, 0],
  [62, 'BrokerRegistration', 0, 4, 0, 0],
  [63, 'BrokerHeartbeat', 0, 1, 0, 0],
  [64, 'UnregisterBroker', 0, 0, 0, 0],
  [65, 'DescribeTransactions', 0, 0, 0, 0],
  [66, 'ListTransactions', 0, 2, 0, 0],
  [67, 'AllocateProducerIds', 0, 0, 0, 0],
  [68, 'ConsumerGroupHeartbeat', 0, 1, 0, 1],
  [69, 'ConsumerGroupDescribe', 0, 1, 0, 0],
  [70, 'ControllerRegistration', 0, 0, 0, 0],
  [71, 'GetTelemetrySubscriptions', 0, 0, 0, 0],
  [72, 'PushTelemetry', 0, 0, 0, 0],
  [73, 'AssignReplicasToDirs', 0, 0, 0, 0],
  [74, 'ListConfigResources', 0, 1, 0, 0],
  [75, 'DescribeTopicPartitions', 0, 0, 0, 0],
  [76, 'ShareGroupHeartbeat', 1, 1, 0, 0],
  [77, 'ShareGroupDescribe', 1, 1, 0, 0],
  [78, 'ShareFetch', 1, 1, 0, 0],
  [79, 'ShareAcknowledge', 1, 1, 0, 0],
  [80, 'AddRaftVoter', 0, 1, 0, 0],
  [81, 'RemoveRaftVoter', 0, 0, 0, 0],
  [82, 'UpdateRaftVoter', 0, 0, 0, 0],
  [83, 'InitializeShareGroupState', 0, 0, 0, 0],
  [84, 'ReadShareGroupState', 0, 0, 0, 0],
  [85, 'WriteShareGroupState', 0, 1, 0, 0],
  [86, 'DeleteShareGroupState', 0, 0, 0, 0],
  [87, 'ReadShareGroupStateSummary', 0, 1, 0, 0],
  [88, 'StreamsGroupHeartbeat', 0, 1, 0, 0],
  [89, 'StreamsGroupDescribe', 0, 1, 0, 0],
  [90, 'DescribeShareGroupOffsets', 0, 1, 0, 0],
  [91, 'AlterShareGroupOffsets', 0, 0, 0, 0],
  [92, 'DeleteShareGroupOffsets', 0, 0, 0, 0],
  [93, 'StreamsGroupTopologyDescriptionUpdate', 0, 0, 0, 0],
  [94, 'UnregisterController', 0, 0, 0, 0],
];

export const CLIENT_APIS: readonly ClientApi[] = ROWS.map(([key, name, minVersion, maxVersion, firstFlexible, u]) => ({
  key,
  name,
  minVersion,
  maxVersion,
  firstFlexible,
  latestUnstable: u === 1,
}));

const BY_KEY = new Map<number, ClientApi>(CLIENT_APIS.map((a) => [a.key, a]));
const BY_NAME = new Map<string, ClientApi>(CLIENT_APIS.map((a) => [a.name, a]));

export function apiByKey(key: number): ClientApi | undefined {
  return BY_KEY.get(key);
}

export function apiByName(name: string): ClientApi {
  const a = BY_NAME.get(name);
  if (!a) throw new Error(`unknown Kafka API ${name}`);
  return a;
}

/** The newest version the client is willing to send (an unstable latest version is skipped). */
export function clientMaxVersion(api: ClientApi): number {
  return api.latestUnstable ? api.maxVersion - 1 : api.maxVersion;
}

export function isFlexibleVersion(api: ClientApi, version: number): boolean {
  return api.firstFlexible >= 0 && version >= api.firstFlexible;
}

export function requestHeaderVersion(api: ClientApi, version: number): number {
  if (api.key === 7 && version === 0) return 0; // ControlledShutdown v0
  return isFlexibleVersion(api, version) ? 2 : 1;
}

export function responseHeaderVersion(api: ClientApi, version: number): number {
  if (api.key === 18) return 0; // ApiVersions responses always use header v0 (KIP-511)
  return isFlexibleVersion(api, version) ? 1 : 0;
}

export interface ApiCodec {
  /** The generated writer of the API's request (it accepts `Input<...Request>`). */
  writeRequest(w: Writer, v: number, body: unknown): void;
  /** The generated reader of the API's response (it returns `...Response`). */
  readResponse(r: Reader, v: number): unknown;
}

const codecs = new Map<number, Promise<ApiCodec>>();

/** Loads the generated request/response codec of one API, once. */
export function loadCodec(api: ClientApi): Promise<ApiCodec> {
  let p = codecs.get(api.key);
  if (!p) {
    p = import(`../protocol/generated/protocol/${api.name}.js`).then((m: Record<string, unknown>) => {
      const writeRequest = m[`write${api.name}Request`] as ApiCodec['writeRequest'] | undefined;
      const readResponse = m[`read${api.name}Response`] as ApiCodec['readResponse'] | undefined;
      if (!writeRequest || !readResponse) throw new Error(`no codec for ${api.name}`);
      return { writeRequest, readResponse };
    });
    codecs.set(api.key, p);
  }
  return p;
}
