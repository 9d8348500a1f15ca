// The Admin operations kafka-transactions uses, over the shared client: listTransactions (every
// broker), describeTransactions (FindCoordinator(TRANSACTION) + DescribeTransactions),
// describeProducers (partition leader or a chosen broker), abortTransaction (WriteTxnMarkers
// ABORT to the partition leader). Errors surface as ApiError with Kafka's messages.
import type { KafkaClient } from '../../client/client.js';
import { ApiError } from '../../client/errors.js';
import type { DescribeProducersResponse } from '../../protocol/generated/protocol/DescribeProducers.js';
import type { DescribeTransactionsResponse } from '../../protocol/generated/protocol/DescribeTransactions.js';
import type { InitProducerIdResponse } from '../../protocol/generated/protocol/InitProducerId.js';
import type { ListTransactionsResponse } from '../../protocol/generated/protocol/ListTransactions.js';
import type { WriteTxnMarkersResponse } from '../../protocol/generated/protocol/WriteTxnMarkers.js';

export interface TransactionListing {
  transactionalId: string;
  producerId: bigint;
  state: string;
}

export interface TransactionDescription {
  coordinatorId: number;
  transactionalId: string;
  producerId: bigint;
  producerEpoch: number;
  state: string;
  transactionTimeoutMs: number;
  /** null when no transaction is open (-1 on the wire) */
  transactionStartTimeMs: bigint | null;
  topicPartitions: { topic: string; partition: number }[];
}

export interface ProducerState {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: bigint;
  /** null when unknown (-1 on the wire) */
  coordinatorEpoch: number | null;
  /** null when no transaction is open */
  currentTransactionStartOffset: bigint | null;
}

export interface AbortTransactionSpec {
  topic: string;
  partition: number;
  producerId: bigint;
  producerEpoch: number;
  coordinatorEpoch: number;
}

/** Kafka's AbortTransactionSpec.toString(). */
export const abortSpecString = (s: AbortTransactionSpec): string =>
  `AbortTransactionSpec(topicPartition=${s.topic}-${s.partition}, producerId=${s.producerId}, producerEpoch=${s.producerEpoch}, coordinatorEpoch=${s.coordinatorEpoch})`;

/** Admin's TransactionState.parse(...).toString(): unknown names print as Unknown. */
const KNOWN_STATES = new Set([
  'Ongoing',
  'PrepareAbort',
  'PrepareCommit',
  'CompleteAbort',
  'CompleteCommit',
  'Empty',
  'PrepareEpochFence',
]);
export const stateString = (s: string): string => (KNOWN_STATES.has(s) ? s : 'Unknown');

/** ListTransactions on every broker of the cluster, results by broker id (ascending). */
export async function listTransactions(
  client: KafkaClient,
  opts: { durationFilterMs?: number; producerIds?: bigint[]; states?: string[]; transactionalIdPattern?: string } = {},
): Promise<Map<number, TransactionListing[]>> {
  const md = await client.call('listTransactions', () => client.metadata({ topics: [], refresh: true }));
  const ids = [...md.brokers.keys()].sort((a, b) => a - b);
  const out = new Map<number, TransactionListing[]>();
  const duration =
    opts.durationFilterMs !== undefined && opts.durationFilterMs >= 0 ? opts.durationFilterMs : undefined;
  // ListTransactionsHandler: the pattern is sent only when non-empty, and needs v2 (KIP-1152)
  const pattern =
    opts.transactionalIdPattern !== undefined && opts.transactionalIdPattern.length > 0
      ? opts.transactionalIdPattern
      : undefined;
  const results = await Promise.all(
    ids.map((id) =>
      client.call('listTransactions', async () => {
        const r = await client.send<ListTransactionsResponse>(
          { node: id },
          'ListTransactions',
          (v: number) => ({
            stateFilters: opts.states ?? [],
            producerIdFilters: opts.producerIds ?? [],
            ...(v >= 1 ? { durationFilter: BigInt(duration ?? -1) } : {}),
            ...(v >= 2 ? { transactionalIdPattern: pattern ?? null } : {}),
          }),
          { minVersion: pattern !== undefined ? 2 : duration === undefined ? 0 : 1 },
        );
        // COORDINATOR_LOAD_IN_PROGRESS is retriable: client.call retries it
        const code = r.body.errorCode;
        if (code === 15)
          throw new ApiError(
            15,
            `ListTransactions request sent to broker ${id} failed because the coordinator is shutting down`,
          );
        if (code !== 0 && code !== 14)
          throw new ApiError(code, `ListTransactions request sent to broker ${id} failed with an unexpected exception`);
        if (code === 14) throw new ApiError(14); // retriable: still loading
        return r;
      }),
    ),
  );
  ids.forEach((id, i) => {
    out.set(
      id,
      results[i]!.body.transactionStates.map((s) => ({
        transactionalId: s.transactionalId,
        producerId: s.producerId,
        state: stateString(s.transactionState),
      })),
    );
  });
  return out;
}

/** DescribeTransactions for one transactional id, at its coordinator. */
export async function describeTransaction(
  client: KafkaClient,
  transactionalId: string,
): Promise<TransactionDescription> {
  return client.call('describeTransactions', async () => {
    const coordinatorId = await client.coordinatorOf('transaction', transactionalId);
    const r = await client.send<DescribeTransactionsResponse>({ node: coordinatorId }, 'DescribeTransactions', {
      transactionalIds: [transactionalId],
    });
    const s = r.body.transactionStates.find((x) => x.transactionalId === transactionalId);
    if (!s) throw new ApiError(-1, `No response for transactional id ${transactionalId}`);
    if (s.errorCode !== 0) {
      const what = `DescribeTransactions request for transactionalId \`${transactionalId}\``;
      const e =
        s.errorCode === 105
          ? new ApiError(105, `${what} failed because the ID could not be found`)
          : s.errorCode === 53
            ? new ApiError(53, `${what} failed due to authorization failure`)
            : [14, 15, 16].includes(s.errorCode)
              ? new ApiError(s.errorCode) // retried (after finding the coordinator again)
              : new ApiError(s.errorCode, `${what} failed due to unexpected error`);
      client.noteFailure(e);
      throw e;
    }
    return {
      coordinatorId,
      transactionalId,
      producerId: s.producerId,
      producerEpoch: s.producerEpoch,
      state: stateString(s.transactionState),
      transactionTimeoutMs: s.transactionTimeoutMs,
      transactionStartTimeMs: s.transactionStartTimeMs < 0n ? null : s.transactionStartTimeMs,
      topicPartitions: s.topics.flatMap((t) =>
        (t.partitions as number[]).map((p) => ({ topic: t.topic as string, partition: p })),
      ),
    };
  });
}

/**
 * Admin.forceTerminateTransaction (Kafka 4.x): fenceProducers of the one id, i.e. FenceProducersHandler's
 * InitProducerId (producer id and epoch -1, transaction timeout = the client's request.timeout.ms) at the
 * id's coordinator, which bumps the epoch and aborts an ongoing transaction. Retries while the
 * coordinator loads or a concurrent transaction completes; finds the coordinator again on
 * NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE; other errors carry FenceProducersHandler's messages.
 */
export async function forceTerminateTransaction(
  client: KafkaClient,
  transactionalId: string,
): Promise<{ producerId: bigint; producerEpoch: number }> {
  return client.call('fenceProducer', async () => {
    const coordinatorId = await client.coordinatorOf('transaction', transactionalId);
    const r = await client.send<InitProducerIdResponse>({ node: coordinatorId }, 'InitProducerId', {
      transactionalId,
      transactionTimeoutMs: client.config.requestTimeoutMs,
      producerId: -1n,
      producerEpoch: -1,
      enable2Pc: false,
      keepPreparedTxn: false,
    });
    const code = r.body.errorCode;
    if (code !== 0) {
      const what = `InitProducerId request for transactionalId \`${transactionalId}\``;
      const e =
        code === 31
          ? new ApiError(31, `${what} failed due to cluster authorization failure`)
          : code === 53
            ? new ApiError(53, `${what} failed due to transactional ID authorization failure`)
            : [14, 15, 16, 51].includes(code)
              ? new ApiError(code) // retried (after finding the coordinator again for 15 and 16)
              : new ApiError(code, `${what} failed due to unexpected error`);
      client.noteFailure(e);
      throw e;
    }
    return { producerId: r.body.producerId, producerEpoch: r.body.producerEpoch };
  });
}

/**
 * DescribeProducers for partitions, grouped by the broker asked (the leader, or `brokerId`).
 * Returns per partition the producers or the partition's error.
 */
export async function describeProducers(
  client: KafkaClient,
  partitions: { topic: string; partition: number }[],
  brokerId?: number,
): Promise<Map<string, { ok: true; producers: ProducerState[] } | { ok: false; error: ApiError }>> {
  const out = new Map<string, { ok: true; producers: ProducerState[] } | { ok: false; error: ApiError }>();
  const byNode = new Map<number, { topic: string; partition: number }[]>();
  for (const tp of partitions) {
    let node = brokerId;
    if (node === undefined) {
      try {
        node = await client.call('describeProducers', () => client.leaderOf(tp.topic, tp.partition));
      } catch (e) {
        if (e instanceof ApiError) {
          out.set(`${tp.topic}-${tp.partition}`, { ok: false, error: e });
          continue;
        }
        throw e;
      }
    }
    let l = byNode.get(node);
    if (!l) byNode.set(node, (l = []));
    l.push(tp);
  }
  await Promise.all(
    [...byNode].map(async ([node, tps]) => {
      const topics = new Map<string, number[]>();
      for (const tp of tps) {
        let l = topics.get(tp.topic);
        if (!l) topics.set(tp.topic, (l = []));
        l.push(tp.partition);
      }
      const r = await client.request<DescribeProducersResponse>({ node }, 'DescribeProducers', {
        topics: [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      });
      for (const t of r.body.topics) {
        for (const p of t.partitions) {
          const key = `${t.name}-${p.partitionIndex}`;
          if (p.errorCode !== 0)
            out.set(key, { ok: false, error: producersError(key, p.errorCode, p.errorMessage, brokerId) });
          else {
            out.set(key, {
              ok: true,
              producers: p.activeProducers.map((s) => ({
                producerId: s.producerId,
                producerEpoch: s.producerEpoch,
                lastSequence: s.lastSequence,
                lastTimestamp: s.lastTimestamp,
                coordinatorEpoch: s.coordinatorEpoch < 0 ? null : s.coordinatorEpoch,
                currentTransactionStartOffset: s.currentTxnStartOffset < 0n ? null : s.currentTxnStartOffset,
              })),
            });
          }
        }
      }
    }),
  );
  return out;
}

/** DescribeProducersHandler.handlePartitionError's exceptions. */
function producersError(tp: string, code: number, message: string | null, brokerId: number | undefined): ApiError {
  if (code === 6 && brokerId !== undefined)
    return new ApiError(code, `Failed to describe active producers for partition ${tp} on brokerId ${brokerId}`);
  if (code === 6 || code === 3) return new ApiError(code, message);
  if (code === 17)
    return new ApiError(
      code,
      `Failed to fetch metadata for partition ${tp} due to invalid topic error: ${message ?? new ApiError(code).message}`,
    );
  if (code === 29)
    return new ApiError(
      code,
      `Failed to describe active producers for partition ${tp} due to authorization failure on topic \`${tp.slice(0, tp.lastIndexOf('-'))}\``,
    );
  return new ApiError(code, `Failed to describe active producers for partition ${tp} due to unexpected error`);
}

/** WriteTxnMarkers(ABORT) for one partition, sent to its leader (Admin.abortTransaction). */
export async function abortTransaction(client: KafkaClient, spec: AbortTransactionSpec): Promise<void> {
  await client.call('abortTransaction', async () => {
    const leader = await client.leaderOf(spec.topic, spec.partition);
    const r = await client.send<WriteTxnMarkersResponse>({ node: leader }, 'WriteTxnMarkers', {
      markers: [
        {
          producerId: spec.producerId,
          producerEpoch: spec.producerEpoch,
          transactionResult: false,
          coordinatorEpoch: spec.coordinatorEpoch,
          topics: [{ name: spec.topic, partitionIndexes: [spec.partition] }],
        },
      ],
    });
    const m = r.body.markers[0];
    const p = m?.topics?.[0]?.partitions?.[0];
    if (!p) throw new ApiError(-1, 'WriteTxnMarkers returned no result for the partition');
    if (p.errorCode !== 0) {
      const what = `WriteTxnMarkers request with ${abortSpecString(spec)}`;
      const code = p.errorCode;
      // NOT_LEADER_OR_FOLLOWER, REPLICA_NOT_AVAILABLE, BROKER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION: find the leader again
      if ([6, 9, 8, 3].includes(code)) {
        const e = Object.assign(new ApiError(code), { retriable: true });
        client.noteFailure(e);
        throw e;
      }
      if (code === 31) throw new ApiError(code, `${what} failed due to cluster authorization error`);
      if (code === 47) throw new ApiError(code, `${what} failed due an invalid producer epoch`);
      if (code === 52)
        throw new ApiError(
          code,
          `${what} failed since the provided coordinator epoch ${spec.coordinatorEpoch} has been fenced by the active coordinator`,
        );
      throw new ApiError(code, `${what} failed due to unexpected error: ${new ApiError(code).message}`);
    }
  });
}
