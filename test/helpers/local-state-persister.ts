// A process-local Persister for the share-partition side until the share coordinator's
// DefaultStatePersister (src/broker/share/default-state-persister.ts, another branch) is merged,
// and for the in-process tests. It keeps each share-partition's state as the share coordinator
// does (ShareCoordinatorShard: a write's state batches replace the offsets they cover, batches
// below the start offset are dropped) but in memory only: the state does not survive a restart.
import { ErrorCode } from '../../src/protocol/errors.js';
import type {
  Persister,
  PersisterReadResult,
  PersisterResult,
  PersisterStateBatch,
  PersisterSummaryResult,
  PersisterWriteState,
  SharePartitionKey,
} from '../../src/broker/share/types.js';

interface StoredState {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  deliveryCompleteCount: number;
  batches: PersisterStateBatch[];
}

const OK: PersisterResult = { errorCode: ErrorCode.NONE, errorMessage: null };
const keyOf = (k: SharePartitionKey): string => `${k.groupId}\u0000${k.topicId}\u0000${k.partition}`;

/** Replaces the offsets of `old` that `add` covers, drops what is below `start`; sorted, adjacent equal batches merged. */
export function mergeStateBatches(
  old: readonly PersisterStateBatch[],
  add: readonly PersisterStateBatch[],
  start: bigint,
): PersisterStateBatch[] {
  let out: PersisterStateBatch[] = [...old];
  for (const n of add) {
    const next: PersisterStateBatch[] = [];
    for (const o of out) {
      if (o.lastOffset < n.firstOffset || o.firstOffset > n.lastOffset) {
        next.push(o);
        continue;
      }
      if (o.firstOffset < n.firstOffset) next.push({ ...o, lastOffset: n.firstOffset - 1n });
      if (o.lastOffset > n.lastOffset) next.push({ ...o, firstOffset: n.lastOffset + 1n });
    }
    next.push({ ...n });
    out = next;
  }
  out = out
    .filter((b) => b.lastOffset >= start)
    .map((b) => (b.firstOffset < start ? { ...b, firstOffset: start } : b))
    .sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const merged: PersisterStateBatch[] = [];
  for (const b of out) {
    const prev = merged[merged.length - 1];
    if (
      prev &&
      prev.lastOffset + 1n === b.firstOffset &&
      prev.deliveryState === b.deliveryState &&
      prev.deliveryCount === b.deliveryCount
    )
      merged[merged.length - 1] = { ...prev, lastOffset: b.lastOffset };
    else merged.push(b);
  }
  return merged;
}

export class LocalStatePersister implements Persister {
  private readonly states = new Map<string, StoredState>();
  /** Every write, in order (tests look at what was persisted). */
  readonly writes: { key: SharePartitionKey; state: PersisterWriteState }[] = [];

  initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<PersisterResult> {
    this.states.set(keyOf(key), { stateEpoch, leaderEpoch: -1, startOffset, deliveryCompleteCount: 0, batches: [] });
    return Promise.resolve(OK);
  }

  readState(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterReadResult> {
    const s = this.states.get(keyOf(key));
    if (!s) return Promise.resolve({ ...OK, stateEpoch: 0, startOffset: -1n, stateBatches: [] });
    if (leaderEpoch < s.leaderEpoch)
      return Promise.resolve({
        errorCode: ErrorCode.FENCED_LEADER_EPOCH,
        errorMessage: 'The leader epoch is stale.',
        stateEpoch: s.stateEpoch,
        startOffset: -1n,
        stateBatches: [],
      });
    s.leaderEpoch = leaderEpoch;
    return Promise.resolve({ ...OK, stateEpoch: s.stateEpoch, startOffset: s.startOffset, stateBatches: s.batches });
  }

  writeState(key: SharePartitionKey, state: PersisterWriteState): Promise<PersisterResult> {
    this.writes.push({ key, state });
    const prev = this.states.get(keyOf(key));
    if (prev && state.stateEpoch < prev.stateEpoch)
      return Promise.resolve({ errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: 'The state epoch is stale.' });
    if (prev && state.leaderEpoch < prev.leaderEpoch)
      return Promise.resolve({ errorCode: ErrorCode.FENCED_LEADER_EPOCH, errorMessage: 'The leader epoch is stale.' });
    const start = prev && prev.startOffset > state.startOffset ? prev.startOffset : state.startOffset;
    this.states.set(keyOf(key), {
      stateEpoch: state.stateEpoch,
      leaderEpoch: state.leaderEpoch,
      startOffset: start,
      deliveryCompleteCount: state.deliveryCompleteCount,
      batches: mergeStateBatches(prev?.batches ?? [], state.stateBatches, start),
    });
    return Promise.resolve(OK);
  }

  deleteState(key: SharePartitionKey): Promise<PersisterResult> {
    this.states.delete(keyOf(key));
    return Promise.resolve(OK);
  }

  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterSummaryResult> {
    const s = this.states.get(keyOf(key));
    return Promise.resolve({
      ...OK,
      stateEpoch: s?.stateEpoch ?? 0,
      leaderEpoch: s?.leaderEpoch ?? leaderEpoch,
      startOffset: s?.startOffset ?? -1n,
      deliveryCompleteCount: s?.deliveryCompleteCount ?? 0,
    });
  }

  /** The stored state of a share-partition (tests). */
  stored(key: SharePartitionKey): StoredState | undefined {
    return this.states.get(keyOf(key));
  }
}
