// Partition-leader operations: ListOffsets and DeleteRecords. Partitions are grouped by leader,
// one request per leader; partitions that fail with a retriable error (leader moved, no leader
// yet) are retried after a metadata refresh, the others keep their error.
import type { KafkaClient } from '../client.js';
import { ApiError } from '../errors.js';
import type { Outcome } from './topics.js';
import type { DeleteRecordsResponse } from '../../protocol/generated/protocol/DeleteRecords.js';
import type { ListOffsetsResponse } from '../../protocol/generated/protocol/ListOffsets.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

export const tpKey = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;

/** Special ListOffsets timestamps. */
export const OffsetSpec = {
  LATEST: -1n,
  EARLIEST: -2n,
  MAX_TIMESTAMP: -3n,
  EARLIEST_LOCAL: -4n,
  LATEST_TIERED: -5n,
  EARLIEST_PENDING_UPLOAD: -6n,
} as const;

/** Lowest ListOffsets version that understands a special timestamp. */
function minListOffsetsVersion(ts: bigint): number {
  if (ts === -6n) return 11;
  if (ts === -5n) return 9;
  if (ts === -4n) return 8;
  if (ts === -3n) return 7;
  return 0;
}

export interface ListOffsetsResult {
  offset: bigint;
  timestamp: bigint;
  leaderEpoch: number;
}

/**
 * Runs `perLeader` for the partitions grouped by their leader, retrying partitions whose error is
 * retriable until the client's api timeout, and returns an outcome per partition.
 */
async function byLeader<T>(
  client: KafkaClient,
  what: string,
  partitions: TopicPartition[],
  perLeader: (leader: number, tps: TopicPartition[]) => Promise<Map<string, { code: number; value?: T }>>,
): Promise<Map<string, Outcome<T>>> {
  const out = new Map<string, Outcome<T>>();
  let pending = partitions;
  await client
    .call(what, async () => {
      const groups = new Map<number, TopicPartition[]>();
      const retry: TopicPartition[] = [];
      let firstRetriable: Error | null = null;
      for (const tp of pending) {
        try {
          const leader = await client.leaderOf(tp.topic, tp.partition);
          groups.set(leader, [...(groups.get(leader) ?? []), tp]);
        } catch (e) {
          if (e instanceof ApiError && e.retriable && e.code !== 3) {
            retry.push(tp);
            firstRetriable ??= e;
          } else out.set(tpKey(tp), { ok: false, error: e as Error });
        }
      }
      await Promise.all(
        [...groups].map(async ([leader, tps]) => {
          let results: Map<string, { code: number; value?: T }>;
          try {
            results = await perLeader(leader, tps);
          } catch (e) {
            if ((e as { retriable?: boolean }).retriable) {
              retry.push(...tps);
              firstRetriable ??= e as Error;
              return;
            }
            throw e;
          }
          for (const tp of tps) {
            const r = results.get(tpKey(tp));
            if (!r)
              out.set(tpKey(tp), { ok: false, error: new ApiError(-1, `The response did not include ${tpKey(tp)}`) });
            else if (r.code === 0) out.set(tpKey(tp), { ok: true, value: r.value as T });
            else {
              const err = new ApiError(r.code);
              if (err.retriable) {
                retry.push(tp);
                firstRetriable ??= err;
              } else out.set(tpKey(tp), { ok: false, error: err });
            }
          }
        }),
      );
      pending = retry;
      if (firstRetriable) throw firstRetriable;
    })
    .catch((e: unknown) => {
      for (const tp of pending) out.set(tpKey(tp), { ok: false, error: e as Error });
    });
  return out;
}

function groupByTopic(tps: TopicPartition[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const tp of tps) m.set(tp.topic, [...(m.get(tp.topic) ?? []), tp.partition]);
  return m;
}

/** Offsets for a timestamp spec (see OffsetSpec) per partition. */
export function listOffsets(
  client: KafkaClient,
  partitions: TopicPartition[],
  timestamp: bigint,
  opts: { isolationLevel?: 0 | 1 } = {},
): Promise<Map<string, Outcome<ListOffsetsResult>>> {
  return byLeader<ListOffsetsResult>(client, 'listOffsets', partitions, async (leader, tps) => {
    const resp = await client.send<ListOffsetsResponse>(
      { node: leader },
      'ListOffsets',
      (v: number) => ({
        replicaId: -1,
        isolationLevel: opts.isolationLevel ?? 0,
        timeoutMs: client.config.requestTimeoutMs,
        topics: [...groupByTopic(tps)].map(([name, ps]) => ({
          name,
          partitions: ps.map((partitionIndex) => ({
            partitionIndex,
            currentLeaderEpoch: -1,
            timestamp,
            ...(v === 0 ? { maxNumOffsets: 1 } : {}),
          })),
        })),
      }),
      { minVersion: minListOffsetsVersion(timestamp) },
    );
    const m = new Map<string, { code: number; value?: ListOffsetsResult }>();
    for (const t of resp.body.topics) {
      for (const p of t.partitions) {
        const offset: bigint = p.offset; // v1+ (the client does not send v0)
        m.set(`${t.name}-${p.partitionIndex}`, {
          code: p.errorCode,
          value: { offset, timestamp: p.timestamp ?? -1n, leaderEpoch: p.leaderEpoch ?? -1 },
        });
      }
    }
    return m;
  });
}

/** Deletes records before the given offsets (-1 = the high watermark); returns the new low watermarks. */
export function deleteRecords(
  client: KafkaClient,
  offsets: Map<string, { tp: TopicPartition; offset: bigint }>,
): Promise<Map<string, Outcome<bigint>>> {
  const wanted = new Map([...offsets.values()].map((x) => [tpKey(x.tp), x.offset]));
  return byLeader<bigint>(
    client,
    'deleteRecords',
    [...offsets.values()].map((x) => x.tp),
    async (leader, tps) => {
      const resp = await client.send<DeleteRecordsResponse>({ node: leader }, 'DeleteRecords', {
        timeoutMs: client.config.requestTimeoutMs,
        topics: [...groupByTopic(tps)].map(([name, ps]) => ({
          name,
          partitions: ps.map((partitionIndex) => ({
            partitionIndex,
            offset: wanted.get(`${name}-${partitionIndex}`)!,
          })),
        })),
      });
      const m = new Map<string, { code: number; value?: bigint }>();
      for (const t of resp.body.topics) {
        for (const p of t.partitions)
          m.set(`${t.name}-${p.partitionIndex}`, { code: p.errorCode, value: p.lowWatermark });
      }
      return m;
    },
  );
}
