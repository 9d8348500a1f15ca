// ListOffsets lookups over a partition log (Kafka's UnifiedLog.fetchOffsetByTimestamp, local only).

import type { LeaderEpochCache } from './leader-epoch.js';
import { offsetOfMaxTimestamp } from './record-keys.js';
import type { LogSegment } from './segment.js';

export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;
export const MAX_TIMESTAMP = -3;
export const EARLIEST_LOCAL_TIMESTAMP = -4;
export const LATEST_TIERED_TIMESTAMP = -5;
/** KIP-1023 (ListOffsets v11): the earliest offset not yet uploaded to remote storage. */
export const EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6;

export interface TimestampAndOffset {
  timestamp: number;
  offset: number;
  leaderEpoch?: number;
}

export interface TimestampSearchable {
  readonly segments: readonly LogSegment[];
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly epochCache: LeaderEpochCache;
}

export async function fetchOffsetByTimestamp(
  log: TimestampSearchable,
  ts: number,
): Promise<TimestampAndOffset | undefined> {
  if (ts === EARLIEST_TIMESTAMP || ts === EARLIEST_LOCAL_TIMESTAMP) {
    // the first cached epoch is reported only if it covers the log start offset
    const first = log.epochCache.earliestEntry();
    const leaderEpoch = first && first.startOffset <= log.logStartOffset ? first.epoch : undefined;
    return { timestamp: -1, offset: log.logStartOffset, leaderEpoch };
  }
  if (ts === LATEST_TIMESTAMP)
    return { timestamp: -1, offset: log.logEndOffset, leaderEpoch: log.epochCache.latestEpoch() };
  // no tiered storage: nothing is tiered and nothing is pending upload (UnifiedLog with remote storage off)
  if (ts === LATEST_TIERED_TIMESTAMP || ts === EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
    return { timestamp: -1, offset: -1, leaderEpoch: -1 };
  }
  const segments = [...log.segments];
  if (ts === MAX_TIMESTAMP) return maxTimestampOffset(segments);
  // the first segment whose largest timestamp reaches the target
  for (const seg of segments) {
    if ((await seg.largestTimestamp()) >= ts) return seg.findOffsetByTimestamp(ts, log.logStartOffset);
  }
  return undefined;
}

/** Offset and timestamp of the record with the largest timestamp (ListOffsets MAX_TIMESTAMP). */
async function maxTimestampOffset(segments: LogSegment[]): Promise<TimestampAndOffset | undefined> {
  let best: LogSegment | undefined;
  let bestTs = Number.NEGATIVE_INFINITY;
  for (const s of segments) {
    const t = await s.maxTimestampSoFar();
    if (t > bestTs) {
      bestTs = t;
      best = s;
    }
  }
  if (!best) return undefined;
  const m = await best.readMaxTimestampAndOffsetSoFar();
  const pos = await best.positionOf(m.offset);
  for await (const b of best.log.batches(pos, { withData: true })) {
    if (b.maxTimestamp !== m.timestamp) continue;
    const off = b.magic >= 2 ? await offsetOfMaxTimestamp(b.data!, b) : b.lastOffset;
    if (off === undefined) return undefined;
    return {
      timestamp: b.maxTimestamp,
      offset: off,
      leaderEpoch: b.partitionLeaderEpoch >= 0 ? b.partitionLeaderEpoch : undefined,
    };
  }
  return undefined;
}
