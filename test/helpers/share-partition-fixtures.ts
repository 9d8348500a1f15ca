// In-process fixtures for the share-partition state machine: a manual clock for acquisition locks,
// a persister whose answers can be made to fail, and fetched-batch shapes.
import { ErrorCode } from '../../src/protocol/errors.js';
import { buildRecordBatchSync } from '../../src/protocol/records/batch.js';
import { MetadataImage } from '../../src/broker/metadata/image.js';
import { DirectoryLogStore } from '../../src/broker/replication/log-store.js';
import { ReplicaManager } from '../../src/broker/replication/replica-manager.js';
import { defaultBrokerLoggers } from '../../src/broker/loggers.js';
import type { BrokerServices } from '../../src/broker/services.js';
import {
  DEFAULT_SHARE_BROKER_CONFIG,
  SharePartitionManager,
  setSharePartitionManager,
  type ShareBrokerConfig,
} from '../../src/broker/share/share-partition-manager.js';
import { removeDir, tempDir } from './log-fixtures.js';
import { soleReplicaPartition } from './partition-image.js';
import { LocalStatePersister } from './local-state-persister.js';
import {
  SharePartition,
  type FetchedBatch,
  type ShareTimer,
  type TimerHandle,
} from '../../src/broker/share/share-partition.js';
import type {
  PersisterReadResult,
  PersisterResult,
  PersisterWriteState,
  SharePartitionKey,
} from '../../src/broker/share/types.js';

/** Timer tasks run only when the test advances the clock. */
export class ManualTimer implements ShareTimer {
  private time = 0;
  private tasks: { due: number; task: () => void; cancelled: boolean }[] = [];
  now(): number {
    return this.time;
  }
  schedule(delayMs: number, task: () => void): TimerHandle {
    const t = { due: this.time + delayMs, task, cancelled: false };
    this.tasks.push(t);
    return { cancel: () => void (t.cancelled = true) };
  }
  /** Live (not cancelled, not run) tasks. */
  pending(): number {
    return this.tasks.filter((t) => !t.cancelled).length;
  }
  async advance(ms: number): Promise<void> {
    this.time += ms;
    const due = this.tasks.filter((t) => !t.cancelled && t.due <= this.time).sort((a, b) => a.due - b.due);
    this.tasks = this.tasks.filter((t) => !due.includes(t) && !t.cancelled);
    for (const t of due) t.task();
    await settle();
  }
}

/** Lets the persister's promises and their continuations run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** LocalStatePersister whose next answers can be errors. */
export class FaultyPersister extends LocalStatePersister {
  writeError: number = ErrorCode.NONE;
  readError: number = ErrorCode.NONE;
  override writeState(key: SharePartitionKey, state: PersisterWriteState): Promise<PersisterResult> {
    if (this.writeError !== ErrorCode.NONE) {
      this.writes.push({ key, state });
      return Promise.resolve({ errorCode: this.writeError, errorMessage: 'injected' });
    }
    return super.writeState(key, state);
  }
  override readState(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterReadResult> {
    if (this.readError !== ErrorCode.NONE)
      return Promise.resolve({
        errorCode: this.readError,
        errorMessage: 'injected',
        stateEpoch: 0,
        startOffset: -1n,
        stateBatches: [],
      });
    return super.readState(key, leaderEpoch);
  }
}

export const KEY: SharePartitionKey = { groupId: 'g1', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 0 };

/** Log batches [first, last] of `size` records each. */
export function batches(first: number, last: number, size = last - first + 1): FetchedBatch[] {
  const out: FetchedBatch[] = [];
  for (let o = first; o <= last; o += size)
    out.push({
      baseOffset: o,
      lastOffset: Math.min(last, o + size - 1),
      producerId: -1,
      isTransactional: false,
      isControl: false,
    });
  return out;
}

export interface SpFixture {
  sp: SharePartition;
  timer: ManualTimer;
  persister: FaultyPersister;
}

export async function sharePartition(
  o: {
    lockMs?: number;
    deliveryLimit?: number;
    maxInFlight?: number;
    persister?: FaultyPersister;
    resetOffset?: number;
    init?: boolean;
  } = {},
): Promise<SpFixture> {
  const timer = new ManualTimer();
  const persister = o.persister ?? new FaultyPersister();
  const sp = new SharePartition({
    key: KEY,
    persister,
    timer,
    leaderEpoch: () => 0,
    resetOffset: () => Promise.resolve(o.resetOffset ?? 0),
    config: {
      recordLockDurationMs: () => o.lockMs ?? 30_000,
      deliveryCountLimit: () => o.deliveryLimit ?? 5,
      maxInFlightRecords: () => o.maxInFlight ?? 2000,
    },
  });
  if (o.init !== false) await sp.maybeInitialize();
  return { sp, timer, persister };
}

/** A ReplicaManager on real logs in a temp dir leading `topic` (partitions 0..n-1), with a SharePartitionManager. */
export interface ShareBrokerEnv {
  rm: ReplicaManager;
  manager: SharePartitionManager;
  services: BrokerServices;
  persister: FaultyPersister;
  topicId: string;
  append(partition: number, values: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export async function shareBrokerEnv(
  o: {
    topic?: string;
    partitions?: number;
    config?: Partial<ShareBrokerConfig>;
    groupConfigs?: Record<string, string>;
  } = {},
): Promise<ShareBrokerEnv> {
  const topic = o.topic ?? 'q';
  const topicId = 'c2hhcmUtdG9waWMtaWQtMQ';
  const n = o.partitions ?? 1;
  const dir = await tempDir('tkafka-share-');
  const partitionImage = (p: number) => soleReplicaPartition(topicId, p);
  const t = {
    name: topic,
    id: topicId,
    partitions: new Map(Array.from({ length: n }, (_, p) => [p, partitionImage(p)])),
  };
  const img = MetadataImage.empty('cluster').with({
    topicsByName: new Map([[topic, t]]),
    topicsById: new Map([[topicId, t]]),
    // share.version finalized: ShareFetch / ShareAcknowledge are served (KafkaApis.isShareGroupProtocolEnabled)
    features: new Map([['share.version', 2]]),
  });
  const rm = new ReplicaManager({
    nodeId: 1,
    logs: new DirectoryLogStore(dir),
    metadata: () => img,
    config: { originals: new Map<string, string>() },
  });
  for (let p = 0; p < n; p++) await rm.ensurePartition(topic, topicId, p, 0);
  const services = {
    config: undefined as never,
    nodeId: 1,
    clusterId: 'cluster',
    endpoints: [],
    controller: { image: img } as never,
    replicas: rm,
    loggers: defaultBrokerLoggers(),
    groupCoordinator: null,
    txnCoordinator: null,
  } as BrokerServices;
  const persister = new FaultyPersister();
  const groupConfigs = new Map(Object.entries(o.groupConfigs ?? {}));
  const manager = new SharePartitionManager({
    replicas: rm,
    persister,
    config: { ...DEFAULT_SHARE_BROKER_CONFIG, ...o.config },
    groupConfigs: () => groupConfigs,
  });
  setSharePartitionManager(services, manager);
  return {
    rm,
    manager,
    services,
    persister,
    topicId,
    async append(partition, values) {
      const r = await rm.appendRecords(
        topic,
        partition,
        buildRecordBatchSync({ records: values.map((value) => ({ value })) }),
        { acks: -1, timeoutMs: 5000 },
      );
      if (r.errorCode !== 0) throw new Error(`append: error ${r.errorCode}`);
    },
    async close() {
      manager.close();
      await rm.shutdown();
      await removeDir(dir);
    },
  };
}
