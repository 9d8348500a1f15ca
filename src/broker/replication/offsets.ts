// Offset queries on a led partition: ListOffsets (Partition.fetchOffsetForTimestamp and v0's
// legacyFetchOffsetsForTimestamp), OffsetForLeaderEpoch (lastOffsetForLeaderEpoch) and
// DeleteRecords (deleteRecordsOnLeader).

import { ErrorCode } from '../../protocol/errors.js';
import {
  EARLIEST_LOCAL_TIMESTAMP,
  EARLIEST_PENDING_UPLOAD_TIMESTAMP,
  EARLIEST_TIMESTAMP,
  LATEST_TIERED_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
} from '../log/list-offsets.js';
import { LogError } from '../log/log-errors.js';
import type { Partition } from './partition.js';
import { CONSUMER_REPLICA_ID, READ_COMMITTED } from './types.js';

export interface ListOffsetQuery {
  timestamp: number;
  currentLeaderEpoch: number;
  isolationLevel: number;
  replicaId: number;
  version: number;
}

export interface ListOffsetResult {
  errorCode: number;
  timestamp: number;
  offset: number;
  leaderEpoch: number;
}

/** The ListOffsets version that introduced each special timestamp (ReplicaManager.timestampMinSupportedVersion). */
const MIN_VERSION_FOR: ReadonlyMap<number, number> = new Map([
  [EARLIEST_TIMESTAMP, 1],
  [LATEST_TIMESTAMP, 1],
  [MAX_TIMESTAMP, 7],
  [EARLIEST_LOCAL_TIMESTAMP, 8],
  [LATEST_TIERED_TIMESTAMP, 9],
  [EARLIEST_PENDING_UPLOAD_TIMESTAMP, 11],
]);

export function isListOffsetsTimestampUnsupported(timestamp: number, version: number): boolean {
  if (timestamp >= 0) return false;
  const min = MIN_VERSION_FOR.get(timestamp);
  return min === undefined || version < min;
}

const unknown = (errorCode: number): ListOffsetResult => ({ errorCode, timestamp: -1, offset: -1, leaderEpoch: -1 });

export async function listOffset(p: Partition, q: ListOffsetQuery): Promise<ListOffsetResult> {
  // a partition in a failed log dir (ReplicaManager.getPartitionOrException: HostedPartition.Offline)
  if (p.log.isOffline) return unknown(ErrorCode.KAFKA_STORAGE_ERROR);
  const epochError = p.checkLeaderEpoch(q.currentLeaderEpoch);
  if (epochError !== ErrorCode.NONE) return unknown(epochError);
  const isClient = q.replicaId === CONSUMER_REPLICA_ID;
  const hw = p.highWatermark;
  const lastFetchable = !isClient ? p.logEndOffset : q.isolationLevel === READ_COMMITTED ? p.lastStableOffset : hw;
  // after a leader change, a client may not read below the new epoch's start until the HW catches up
  const offsetsError =
    isClient && p.leaderEpochStartOffset > hw
      ? q.version >= 5
        ? ErrorCode.OFFSET_NOT_AVAILABLE
        : ErrorCode.LEADER_NOT_AVAILABLE
      : ErrorCode.NONE;
  const withEpoch = (timestamp: number, offset: number, epoch: number | undefined): ListOffsetResult => ({
    errorCode: ErrorCode.NONE,
    timestamp,
    offset,
    leaderEpoch: epoch !== undefined && q.version >= 4 ? epoch : -1,
  });

  if (q.timestamp === LATEST_TIMESTAMP) {
    if (offsetsError !== ErrorCode.NONE) return unknown(offsetsError);
    return withEpoch(-1, lastFetchable, p.leaderEpoch);
  }
  let found;
  try {
    found = await p.log.offsetForTimestamp(q.timestamp);
  } catch {
    return unknown(p.closed ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.KAFKA_STORAGE_ERROR);
  }
  if (q.timestamp === EARLIEST_TIMESTAMP || q.timestamp === EARLIEST_LOCAL_TIMESTAMP) {
    return found ? withEpoch(found.timestamp, found.offset, found.leaderEpoch) : unknown(ErrorCode.NONE);
  }
  if (found === undefined || found.offset >= lastFetchable) return unknown(offsetsError);
  return withEpoch(found.timestamp, found.offset, found.leaderEpoch);
}

/**
 * ListOffsets v0 (UnifiedLog.legacyFetchOffsetsBefore): segment base offsets whose file was last
 * modified at or before the timestamp, plus the log end offset, newest first, at most maxNumOffsets;
 * consumers never see offsets above the high watermark.
 */
export async function legacyOffsetsBefore(
  p: Partition,
  timestamp: number,
  maxNumOffsets: number,
  now: number,
  isConsumer: boolean,
): Promise<number[]> {
  const log = p.log;
  const segments = [...log.segments];
  const entries: Array<[number, number]> = [];
  for (const s of segments) entries.push([Math.max(s.baseOffset, log.logStartOffset), await s.lastModified()]);
  if (segments.length > 0 && segments[segments.length - 1]!.size > 0) entries.push([log.logEndOffset, now]);
  let start: number;
  if (timestamp === LATEST_TIMESTAMP) start = entries.length - 1;
  else if (timestamp === EARLIEST_TIMESTAMP) start = 0;
  else {
    start = entries.length - 1;
    while (start >= 0 && entries[start]![1] > timestamp) start--;
  }
  const n = Math.max(0, Math.min(maxNumOffsets, start + 1));
  const offsets: number[] = [];
  for (let j = 0; j < n; j++) offsets.push(entries[start - j]![0]);
  offsets.sort((a, b) => b - a);
  if (!isConsumer) return offsets;
  const hw = p.highWatermark;
  if (!offsets.some((o) => o > hw)) return offsets;
  let i = 0;
  while (i < offsets.length && offsets[i]! > hw) i++;
  return [hw, ...offsets.slice(i)];
}

export interface EpochEndOffsetResult {
  errorCode: number;
  leaderEpoch: number;
  endOffset: number;
}

/** Partition.lastOffsetForLeaderEpoch: the end offset of the largest epoch <= the requested one. */
export function lastOffsetForLeaderEpoch(
  p: Partition,
  currentLeaderEpoch: number,
  leaderEpoch: number,
): EpochEndOffsetResult {
  const epochError = p.checkLeaderEpoch(currentLeaderEpoch);
  if (epochError !== ErrorCode.NONE) return { errorCode: epochError, leaderEpoch: -1, endOffset: -1 };
  const r = p.log.epochCache.endOffsetFor(leaderEpoch, p.logEndOffset);
  if (r.endOffset === -1) return { errorCode: ErrorCode.NONE, leaderEpoch: -1, endOffset: -1 };
  return { errorCode: ErrorCode.NONE, leaderEpoch: r.epoch, endOffset: r.endOffset };
}

export interface DeleteRecordsResult {
  errorCode: number;
  lowWatermark: number;
}

/** Partition.deleteRecordsOnLeader: moves the log start offset (-1 = the high watermark). */
export async function deleteRecordsOnLeader(p: Partition, offset: number): Promise<DeleteRecordsResult> {
  if (!p.config.policy.deletable) return { errorCode: ErrorCode.POLICY_VIOLATION, lowWatermark: -1 };
  const target = offset === -1 ? p.highWatermark : offset;
  if (target < 0) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 };
  try {
    await p.log.deleteRecordsBefore(target);
  } catch (e) {
    if (e instanceof LogError && e.kafkaError === 'OFFSET_OUT_OF_RANGE')
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, lowWatermark: -1 };
    return { errorCode: p.closed ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.KAFKA_STORAGE_ERROR, lowWatermark: -1 };
  }
  // single replica: the low watermark is our log start offset (followers' come with replication)
  return { errorCode: ErrorCode.NONE, lowWatermark: p.logStartOffset };
}
