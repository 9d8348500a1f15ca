// An in-memory group coordinator for unit tests: MemoryCoordinatorLog, a settable clock, topics.
import { DEFAULT_GROUP_CONFIG, type GroupConfig } from '../../src/broker/group/config.js';
import { GroupCoordinator, type GroupCoordinatorOptions } from '../../src/broker/group/coordinator.js';
import { MemoryCoordinatorLog } from '../../src/broker/group/log.js';
import type { TopicView } from '../../src/broker/group/shard-types.js';
import { encodeSubscription } from '../../src/broker/group/consumer-protocol.js';
import type { JoinRequest } from '../../src/broker/group/classic-ops.js';

export interface Harness {
  gc: GroupCoordinator;
  log: MemoryCoordinatorLog;
  topics: Map<string, TopicView>;
  config: GroupConfig;
  addTopic(name: string, partitions: number, id?: string): TopicView;
  /** A coordinator over the same log and topics (a restart). */
  restart(): Promise<Harness>;
  close(): Promise<void>;
}

export const INFO = { apiVersion: 9, clientId: 'test-client', clientHost: '/127.0.0.1' };
export const INFO_V3 = { ...INFO, apiVersion: 3 };

export async function harness(
  overrides: Partial<GroupConfig> = {},
  shared?: { log: MemoryCoordinatorLog; topics: Map<string, TopicView> },
  /** Further coordinator options (share groups: persister, listener). */
  extra: Partial<GroupCoordinatorOptions> = {},
): Promise<Harness> {
  const config: GroupConfig = {
    ...DEFAULT_GROUP_CONFIG,
    offsetsTopicPartitions: 4,
    classicInitialRebalanceDelayMs: 0,
    classicMinSessionTimeoutMs: 10,
    ...overrides,
  };
  const log = shared?.log ?? new MemoryCoordinatorLog();
  const topics = shared?.topics ?? new Map<string, TopicView>();
  const metadata = {
    topic: (n: string) => topics.get(n),
    topicById: (id: string) => [...topics.values()].find((t) => t.id === id),
    topicNames: () => topics.keys(),
  };
  const gc = new GroupCoordinator({ config, log, metadata, ...extra });
  for (let p = 0; p < config.offsetsTopicPartitions; p++) await gc.loadPartition(p);
  const h: Harness = {
    gc,
    log,
    topics,
    config,
    addTopic(name, partitions, id) {
      const t = {
        name,
        numPartitions: partitions,
        id: id ?? Buffer.from(name.padEnd(16, '_').slice(0, 16)).toString('base64url'),
      };
      topics.set(name, t);
      gc.onTopicsChanged();
      return t;
    },
    async restart() {
      await gc.shutdown();
      return harness(overrides, { log, topics }, extra);
    },
    close: () => gc.shutdown(),
  };
  return h;
}

export function joinReq(groupId: string, memberId = '', o: Partial<JoinRequest> = {}): JoinRequest {
  return {
    groupId,
    memberId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 5_000,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: encodeSubscription(['t']) }],
    ...o,
  };
}

/** Joins with the two-step KIP-394 handshake; resolves when the join phase completes. */
export async function join(h: Harness, groupId: string, o: Partial<JoinRequest> = {}) {
  const first = await h.gc.joinGroup(joinReq(groupId, '', o), INFO);
  if (first.errorCode !== 79) return first;
  return h.gc.joinGroup(joinReq(groupId, first.memberId, o), INFO);
}
