// What in-process replica manager tests hand the replica manager: a topic id, record batches, and
// Fetch parameters and partition requests with the defaults a replica's Fetch v17 carries.
import { buildRecordBatchSync } from '../../src/protocol/records/batch.js';
import type { FetchParams, FetchPartitionRequest } from '../../src/broker/replication/types.js';

export const TOPIC_ID = 'dGtha2ZrYS10b3BpYy1pZA';

/** acks=1 with a short timeout: an append that answers after the local write. */
export const APPEND = { acks: 1, timeoutMs: 1000 };

/** One uncompressed batch of `n` records valued `${prefix}0`.. */
export const recordBatch = (n: number, prefix = 'v'): Buffer =>
  buildRecordBatchSync({ records: Array.from({ length: n }, (_, i) => ({ value: `${prefix}${i}` })) });

/** Fetch v17 from `replicaId` (-1: a consumer), no wait, 1 MiB. */
export const fetchParams = (replicaId: number, o: Partial<FetchParams> = {}): FetchParams => ({
  version: 17,
  replicaId,
  replicaEpoch: -1,
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 1 << 20,
  isolationLevel: 0,
  ...o,
});

/** Partition t-0 of TOPIC_ID from `fetchOffset`, no epochs. */
export const fetchRequest = (fetchOffset: number, o: Partial<FetchPartitionRequest> = {}): FetchPartitionRequest => ({
  topic: 't',
  topicId: TOPIC_ID,
  partition: 0,
  fetchOffset,
  logStartOffset: 0,
  maxBytes: 1 << 20,
  currentLeaderEpoch: -1,
  lastFetchedEpoch: -1,
  ...o,
});
