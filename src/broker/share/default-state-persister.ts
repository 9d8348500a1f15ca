// The broker's Persister (Kafka 4.4's DefaultStatePersister over PersisterStateManager): each call
// is one share-partition; it finds the share coordinator of "group:topicId:partition" (what
// FindCoordinator with key type SHARE answers; cached per key, forgotten on NOT_COORDINATOR and the
// other coordinator errors), batches the calls of one RPC and group bound for the same coordinator
// node into one request, sends it (in-process when this broker is the coordinator, else over the
// inter-broker channel) and retries the coordinator errors (COORDINATOR_NOT_AVAILABLE,
// COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR) and network failures with Kafka's backoff (1 s
// doubling to 30 s, 20% jitter, 5 attempts); then the last error is the answer.
import { apiByKey, type ClientApi } from '../../client/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import { findShareCoordinatorNode } from '../api/find-coordinator.js';
import type { BrokerServices } from '../services.js';
import { brokerChannel, isNetworkFailure } from '../txn/inter-broker-channel.js';
import { asCoordinatorKey, type ShareCoordinator } from './coordinator/coordinator.js';
import type {
  Persister,
  PersisterReadResult,
  PersisterResult,
  PersisterSummaryResult,
  PersisterWriteState,
  SharePartitionKey,
} from './types.js';

/** How the persister reaches share coordinators (the broker's, or a test's). */
export interface PersisterTransport {
  readonly localNodeId: number;
  /** The coordinator node of a SharePartitionKey.asCoordinatorKey, or FindCoordinator's error. */
  findCoordinator(coordinatorKey: string): Promise<{ errorCode: number; nodeId: number }>;
  /** This broker's share coordinator (the in-process short cut). */
  local(): Promise<ShareCoordinator>;
  /** Sends one RPC to a broker; rejects on network failures (isNetworkFailure). */
  send(nodeId: number, api: ClientApi, body: unknown): Promise<unknown>;
}

export interface RetryPolicy {
  backoffMs: number;
  backoffMaxMs: number;
  maxAttempts: number;
  jitter: number;
}

/** PersisterStateManager.REQUEST_BACKOFF_MS, REQUEST_BACKOFF_MAX_MS, MAX_FIND_COORD_ATTEMPTS, jitter. */
export const KAFKA_RETRY: RetryPolicy = { backoffMs: 1000, backoffMaxMs: 30_000, maxAttempts: 5, jitter: 0.2 };

const RETRIABLE = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.NOT_COORDINATOR,
]);

type Rpc = 'initialize' | 'read' | 'write' | 'delete' | 'summary';

const API_OF: Record<Rpc, number> = {
  initialize: ApiKey.InitializeShareGroupState,
  read: ApiKey.ReadShareGroupState,
  write: ApiKey.WriteShareGroupState,
  delete: ApiKey.DeleteShareGroupState,
  summary: ApiKey.ReadShareGroupStateSummary,
};

interface PartitionAnswer {
  partition: number;
  errorCode: number;
  errorMessage: string | null;
  [field: string]: unknown;
}

interface RpcResponse {
  results: { topicId: string; partitions: PartitionAnswer[] }[];
}

interface Pending {
  key: SharePartitionKey;
  /** The partition entry of the request (partition included). */
  data: Record<string, unknown> & { partition: number };
  resolve: (a: PartitionAnswer) => void;
}

interface Batch {
  rpc: Rpc;
  groupId: string;
  nodeId: number;
  entries: Pending[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class DefaultStatePersister implements Persister {
  private readonly coordinators = new Map<string, number>();
  private readonly batches = new Map<string, Batch>();
  private closed = false;

  constructor(
    private readonly transport: PersisterTransport,
    private readonly retry: RetryPolicy = KAFKA_RETRY,
    private readonly logger: (level: string, msg: string) => void = () => undefined,
  ) {}

  close(): void {
    this.closed = true;
  }

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<PersisterResult> {
    const a = await this.call('initialize', key, { partition: key.partition, stateEpoch, startOffset });
    return { errorCode: a.errorCode, errorMessage: a.errorMessage };
  }

  async readState(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterReadResult> {
    const a = await this.call('read', key, { partition: key.partition, leaderEpoch });
    return {
      errorCode: a.errorCode,
      errorMessage: a.errorMessage,
      stateEpoch: (a.stateEpoch as number | undefined) ?? 0,
      startOffset: (a.startOffset as bigint | undefined) ?? 0n,
      stateBatches: ((a.stateBatches as PersisterReadResult['stateBatches'] | undefined) ?? []).map((b) => ({
        firstOffset: b.firstOffset,
        lastOffset: b.lastOffset,
        deliveryState: b.deliveryState,
        deliveryCount: b.deliveryCount,
      })),
    };
  }

  async writeState(key: SharePartitionKey, state: PersisterWriteState): Promise<PersisterResult> {
    const a = await this.call('write', key, {
      partition: key.partition,
      stateEpoch: state.stateEpoch,
      leaderEpoch: state.leaderEpoch,
      startOffset: state.startOffset,
      deliveryCompleteCount: state.deliveryCompleteCount,
      stateBatches: state.stateBatches.map((b) => ({ ...b })),
    });
    return { errorCode: a.errorCode, errorMessage: a.errorMessage };
  }

  async deleteState(key: SharePartitionKey): Promise<PersisterResult> {
    const a = await this.call('delete', key, { partition: key.partition });
    return { errorCode: a.errorCode, errorMessage: a.errorMessage };
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterSummaryResult> {
    const a = await this.call('summary', key, { partition: key.partition, leaderEpoch });
    return {
      errorCode: a.errorCode,
      errorMessage: a.errorMessage,
      stateEpoch: (a.stateEpoch as number | undefined) ?? 0,
      leaderEpoch: (a.leaderEpoch as number | undefined) ?? 0,
      startOffset: (a.startOffset as bigint | undefined) ?? 0n,
      deliveryCompleteCount: (a.deliveryCompleteCount as number | undefined) ?? -1,
    };
  }

  /** One share-partition's RPC, with coordinator lookups and retries. */
  private async call(rpc: Rpc, key: SharePartitionKey, data: Pending['data']): Promise<PartitionAnswer> {
    const ck = asCoordinatorKey(key);
    let last: PartitionAnswer = {
      partition: key.partition,
      errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
      errorMessage: null,
    };
    for (let attempt = 0; attempt < this.retry.maxAttempts; attempt++) {
      if (attempt > 0) await sleep(this.backoff(attempt));
      if (this.closed)
        return { partition: key.partition, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
      let nodeId = this.coordinators.get(ck);
      if (nodeId === undefined) {
        const found = await this.transport.findCoordinator(ck);
        if (found.errorCode !== ErrorCode.NONE) {
          last = { partition: key.partition, errorCode: found.errorCode, errorMessage: null };
          if (RETRIABLE.has(found.errorCode)) continue;
          return last;
        }
        nodeId = found.nodeId;
        this.coordinators.set(ck, nodeId);
      }
      const answer = await this.enqueue(rpc, key, data, nodeId);
      if (!RETRIABLE.has(answer.errorCode)) return answer;
      this.logger('DEBUG', `[Persister] ${rpc} for ${ck} answered ${answer.errorCode}: retrying`);
      this.coordinators.delete(ck);
      last = answer;
    }
    return last;
  }

  private backoff(attempt: number): number {
    const exp = Math.min(this.retry.backoffMs * 2 ** (attempt - 1), this.retry.backoffMaxMs);
    const jitter = 1 - this.retry.jitter + Math.random() * 2 * this.retry.jitter;
    return Math.round(exp * jitter);
  }

  /** Adds the share-partition to the batch of (rpc, group, node) this tick sends. */
  private enqueue(rpc: Rpc, key: SharePartitionKey, data: Pending['data'], nodeId: number): Promise<PartitionAnswer> {
    return new Promise((resolve) => {
      const bk = `${rpc}|${nodeId}|${key.groupId}`;
      let b = this.batches.get(bk);
      if (b && b.entries.some((e) => e.key.topicId === key.topicId && e.key.partition === key.partition)) {
        // the same share-partition twice in one request is not allowed: send the earlier batch now
        this.batches.delete(bk);
        void this.flush(b);
        b = undefined;
      }
      if (!b) {
        const nb: Batch = { rpc, groupId: key.groupId, nodeId, entries: [] };
        b = nb;
        this.batches.set(bk, nb);
        setImmediate(() => {
          if (this.batches.get(bk) === nb) this.batches.delete(bk);
          void this.flush(nb);
        });
      }
      b.entries.push({ key, data, resolve });
    });
  }

  private async flush(b: Batch): Promise<void> {
    if (b.entries.length === 0) return;
    const entries = b.entries.splice(0);
    const topics = new Map<string, Pending['data'][]>();
    for (const e of entries) {
      let ps = topics.get(e.key.topicId);
      if (!ps) topics.set(e.key.topicId, (ps = []));
      ps.push(e.data);
    }
    const body = { groupId: b.groupId, topics: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })) };
    let res: RpcResponse;
    try {
      if (b.nodeId === this.transport.localNodeId) {
        const c = await this.transport.local();
        res = (await localCall(c, b.rpc, body)) as RpcResponse;
      } else {
        res = (await this.transport.send(b.nodeId, apiByKey(API_OF[b.rpc])!, body)) as RpcResponse;
      }
    } catch (e) {
      // a network failure is retried as a coordinator error (the coordinator is looked up again)
      const code = isNetworkFailure(e) ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.UNKNOWN_SERVER_ERROR;
      const message = e instanceof Error ? e.message : String(e);
      for (const en of entries) en.resolve({ partition: en.key.partition, errorCode: code, errorMessage: message });
      return;
    }
    for (const en of entries) {
      const a = res.results
        .find((t) => t.topicId === en.key.topicId)
        ?.partitions.find((p) => p.partition === en.key.partition);
      en.resolve(
        a ?? {
          partition: en.key.partition,
          errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
          errorMessage: 'The share coordinator did not answer for this share-partition.',
        },
      );
    }
  }
}

function localCall(c: ShareCoordinator, rpc: Rpc, body: { groupId: string; topics: unknown[] }): Promise<unknown> {
  switch (rpc) {
    case 'initialize':
      return c.initializeState(body as Parameters<ShareCoordinator['initializeState']>[0]);
    case 'read':
      return c.readState(body as Parameters<ShareCoordinator['readState']>[0]);
    case 'write':
      return c.writeState(body as Parameters<ShareCoordinator['writeState']>[0]);
    case 'delete':
      return c.deleteState(body as Parameters<ShareCoordinator['deleteState']>[0]);
    case 'summary':
      return c.readStateSummary(body as Parameters<ShareCoordinator['readStateSummary']>[0]);
  }
}

/**
 * The transport of a broker: its FindCoordinator answer in-process, its own share coordinator
 * (`local`), the inter-broker listener for the others. `close()` closes the connections.
 */
export function brokerPersisterTransport(
  services: BrokerServices,
  local: () => Promise<ShareCoordinator>,
): PersisterTransport & { close(): void } {
  const channel = brokerChannel(services, 'share-persister');
  return {
    localNodeId: services.nodeId,
    findCoordinator: (key) => findShareCoordinatorNode(services, key),
    local,
    send: async (nodeId, api, body) => (await channel.send(nodeId, api, body)).body,
    close: () => channel.close(),
  };
}
