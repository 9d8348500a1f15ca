// What the group state machines share within one coordinator shard (one __consumer_offsets
// partition): the groups, the timer, the configuration, the clock and the metadata view. An
// operation returns the records to write and the response; the shard writes the records and
// answers only after the write (Kafka's CoordinatorResult).
import type { ClassicGroup, ClassicMember } from './classic-group.js';
import type { ConsumerGroup } from './consumer-group.js';
import type { ShareGroup } from './share-group.js';
import type { StreamsGroup } from './streams-group.js';
import type { GroupConfig } from './config.js';
import type { CoordinatorRecord } from './records.js';

export type Group = ClassicGroup | ConsumerGroup | ShareGroup | StreamsGroup;

export interface OpResult<T> {
  records: CoordinatorRecord[];
  response: T;
  /**
   * Whether the shard replays the records into its state after writing them (offset commits,
   * KIP-848 groups: default true). Classic-group operations change the state themselves and set false.
   */
  replay?: boolean;
  /** Called after the write with NONE or the write's error (mapped as Kafka maps append errors). */
  onAppended?: (errorCode: number) => void;
}

export const result = <T>(response: T, records: CoordinatorRecord[] = [], replay = true): OpResult<T> => ({
  records,
  response,
  replay,
});

export interface ShardTimer {
  /** (Re)schedules `op` under `key` after `delayMs`; it runs on the shard's queue as a write. */
  schedule(key: string, delayMs: number, op: () => OpResult<unknown>): void;
  cancel(key: string): void;
  has(key: string): boolean;
}

export interface TopicView {
  id: string;
  name: string;
  numPartitions: number;
}

/** The metadata the coordinator needs: topics by name and id. */
export interface MetadataView {
  topic(name: string): TopicView | undefined;
  topicById(id: string): TopicView | undefined;
  /** Every topic name (regex subscriptions are resolved against them; none when absent). */
  topicNames?(): Iterable<string>;
  /** The metadata image's offset (the version regex resolutions are made at; a local counter when absent). */
  version?(): number;
  /** The group's dynamic configs (ConfigRecords of resource type GROUP); none when absent. */
  groupConfigs?(groupId: string): ReadonlyMap<string, string>;
  /** A dynamic broker config of this broker (its own, else the cluster default); undefined when not set. */
  dynamicBrokerConfig?(name: string): string | undefined;
}

export interface ShardContext {
  readonly partition: number;
  readonly groups: Map<string, Group>;
  readonly timer: ShardTimer;
  readonly config: GroupConfig;
  readonly clock: () => number;
  readonly metadata: MetadataView;
  log(level: 'INFO' | 'WARN' | 'DEBUG', msg: string): void;
}

/**
 * What the consumer-group half needs of the classic half when a group goes back to classic (the
 * ClassicGroupManager implements it; an interface keeps the two modules from importing each other).
 */
export interface ClassicRebalancer {
  rescheduleHeartbeat(g: ClassicGroup, m: ClassicMember): void;
  prepareRebalance(g: ClassicGroup, reason: string): OpResult<void>;
}

/** Per-request facts the operations use. */
export interface RequestInfo {
  apiVersion: number;
  clientId: string;
  /** "/127.0.0.1" as Kafka prints InetAddress */
  clientHost: string;
  /**
   * With an authorizer: whether the request's principal may DESCRIBE a topic. Regexes resolved in a
   * ConsumerGroupHeartbeat keep only those topics (GroupMetadataManager.filterTopicDescribeAuthorizedTopics,
   * with the context of the heartbeat that refreshes them). Absent: no filtering.
   */
  describableTopic?: (topic: string) => boolean;
}

/** A promise with its resolver; resolving twice keeps the first value. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  done: boolean;
}

export function deferred<T>(): Deferred<T> {
  let res!: (v: T) => void;
  const d: Deferred<T> = {
    promise: new Promise<T>((r) => {
      res = r;
    }),
    done: false,
    resolve(v: T) {
      if (d.done) return;
      d.done = true;
      res(v);
    },
  };
  return d;
}
