// The data and the observations of the state-file corruption tests (issue 20, item 3), for a tkafka
// broker (test/state-file-rebuild.test.ts) and for Apache Kafka beside it
// (test/interop/state-file-rebuild-kafka.test.ts): one partition written by a transactional
// producer (kafkajs; every third transaction aborted) interleaved with an idempotent producer (raw
// Produce requests with our own producer id, epoch and sequences), over three 1 MiB segments; and
// everything a client observes of it: read_committed and read_uncommitted fetches over the whole
// log, ListOffsets (earliest, latest, max timestamp, by time; both isolation levels),
// DescribeProducers, and the idempotent producer's duplicate and out-of-order answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import kafkajs from 'kafkajs';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { buildRecordBatchSync, decodeBatchSync } from '../../src/protocol/records/batch.js';

const { Kafka, logLevel } = kafkajs;

export const TOPIC = 'rebuild';
const TRANSACTIONS = 66;
const RECORDS_PER_TXN = 20;
const VALUE_BYTES = 2000;

export type Corruption = 'truncated mid-entry' | 'random bytes' | 'zero-filled';
export const CORRUPTIONS: readonly Corruption[] = ['truncated mid-entry', 'random bytes', 'zero-filled'];

/** mulberry32: the seeded bytes of the "random bytes" corruptions */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Corrupts `file` in place: cut half an entry off its end, or overwrite it with random bytes or zeros. */
export async function corruptFile(file: string, how: Corruption, entrySize: number, random: () => number) {
  const size = (await fsp.stat(file)).size;
  assert.ok(size >= entrySize, `${file} has an entry to corrupt (${size} bytes)`);
  if (how === 'truncated mid-entry') await fsp.truncate(file, size - Math.ceil(entrySize / 2));
  else if (how === 'zero-filled') await fsp.writeFile(file, Buffer.alloc(size));
  else await fsp.writeFile(file, Buffer.from(Array.from({ length: size }, () => Math.floor(random() * 256))));
}

export interface FetchView {
  isolationLevel: number;
  offset: number;
  errorCode: number;
  highWatermark: string;
  lastStableOffset: string;
  logStartOffset: string;
  aborted: { producerId: string; firstOffset: string }[];
  /** data records "offset key value-sha timestamp", control records "offset CONTROL type" */
  records: string[];
  bytes: number;
  sha: string;
}

export interface Observation {
  fetches: FetchView[];
  listOffsets: { isolationLevel: number; asked: string; errorCode: number; timestamp: string; offset: string }[];
  producers: {
    errorCode: number;
    active: {
      producerId: string;
      producerEpoch: number;
      lastSequence: number;
      lastTimestamp: string;
      coordinatorEpoch: number;
      currentTxnStartOffset: string;
    }[];
  };
  duplicate: { errorCode: number; baseOffset: string };
  outOfOrder: { errorCode: number; baseOffset: string };
}

/** Offset after the last whole batch of a fetched records buffer, and the records of those batches. */
function readBatches(records: Buffer, from: number): { next: number; lines: string[] } {
  let next = from;
  const lines: string[] = [];
  for (let p = 0; p + 61 <= records.length;) {
    const size = records.readInt32BE(p + 8) + 12;
    if (p + size > records.length) break;
    const b = decodeBatchSync(records.subarray(p, p + size));
    for (const r of b.records) {
      if (r.control) lines.push(`${r.offset} CONTROL ${r.control.type}`);
      else
        lines.push(
          `${r.offset} ${r.key?.toString() ?? 'null'} ${createHash('sha256')
            .update(r.value ?? Buffer.alloc(0))
            .digest('hex')
            .slice(0, 12)} ${r.timestamp}`,
        );
    }
    next = b.baseOffset + b.lastOffsetDelta + 1;
    p += size;
  }
  return { next, lines };
}

export class StateFileScenario {
  /**
   * Record timestamps start 10 minutes ahead (within message.timestamp.after.max.ms, 1 h), so the
   * COMMIT/ABORT markers (stamped with the broker's clock) are below every timestamp asked by time.
   */
  readonly t0 = Date.now() + 600_000;
  /** the idempotent producer */
  pid = -1n;
  private epoch = 0;
  private nextSeq = 0;
  private lastBatch: Buffer | undefined;
  /** base offset the last idempotent batch was written at */
  lastIdempotentOffset = '';
  /** the partition's log end offset once written */
  logEndOffset = '';

  /** `port()`: the broker's PLAINTEXT port now (it may change across restarts). */
  constructor(private readonly port: () => number) {}

  async withClient<T>(fn: (c: RawClient) => Promise<T>): Promise<T> {
    const c = await RawClient.connect(this.port());
    try {
      return await fn(c);
    } finally {
      c.close();
    }
  }

  private idempotentBatch(seq: number, i: number): Buffer {
    return buildRecordBatchSync({
      producerId: this.pid,
      producerEpoch: this.epoch,
      baseSequence: seq,
      records: [0, 1, 2].map((k) => ({
        key: Buffer.from(`idem-${i}-${k}`),
        value: Buffer.from(`v${i}-${k}`.padEnd(100, '.')),
        timestamp: this.t0 + i * 1000 + 700,
      })),
    });
  }

  private async produceRaw(batch: Buffer): Promise<{ errorCode: number; baseOffset: string }> {
    return this.withClient(async (c) => {
      const r = await c.request(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }],
      });
      const p = r.responses[0]!.partitionResponses[0]!;
      return { errorCode: p.errorCode, baseOffset: String(p.baseOffset) };
    });
  }

  /** Creates the topic and writes the transactions and idempotent batches. */
  async write(): Promise<void> {
    // (a broker that has just started may answer a retriable error first)
    await waitFor(
      () =>
        this.withClient(async (c) => {
          const r = await c.request(ApiKey.CreateTopics, 7, {
            topics: [
              {
                name: TOPIC,
                numPartitions: 1,
                replicationFactor: 1,
                assignments: [],
                configs: [
                  { name: 'segment.bytes', value: '1048576' },
                  { name: 'index.interval.bytes', value: '1000' },
                ],
              },
            ],
            timeoutMs: 10_000,
            validateOnly: false,
          });
          const t = r.topics[0]!;
          if (t.errorCode === 0 || t.errorCode === 36) return true; // 36: created by the attempt before
          if (![7, 14, 15, 41].includes(t.errorCode))
            assert.fail(`CreateTopics ${TOPIC}: error ${t.errorCode} ${t.errorMessage ?? ''}`);
          return false;
        }),
      { what: `topic ${TOPIC} created`, timeoutMs: 60_000 },
    );
    await this.waitServed('0');
    // (COORDINATOR_LOAD_IN_PROGRESS / NOT_AVAILABLE until the transaction coordinator is ready)
    await waitFor(
      () =>
        this.withClient(async (c) => {
          const init = await c.request(ApiKey.InitProducerId, 4, {
            transactionalId: null,
            transactionTimeoutMs: 60_000,
            producerId: -1n,
            producerEpoch: -1,
          });
          if (init.errorCode === 14 || init.errorCode === 15) return false;
          assert.equal(init.errorCode, 0, 'InitProducerId');
          this.pid = init.producerId;
          this.epoch = init.producerEpoch;
          return true;
        }),
      { what: 'a producer id', timeoutMs: 60_000 },
    );
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${this.port()}`],
      logLevel: logLevel.NOTHING,
      clientId: 'rebuild',
    });
    const producer = kafka.producer({ transactionalId: 'rebuild-tx', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const value = Buffer.alloc(VALUE_BYTES, 'x');
    for (let i = 0; i < TRANSACTIONS; i++) {
      const txn = await producer.transaction();
      await txn.send({
        topic: TOPIC,
        messages: Array.from({ length: RECORDS_PER_TXN }, (_, k) => ({
          key: `t${i}-${k}`,
          value,
          timestamp: String(this.t0 + i * 1000 + k),
        })),
      });
      if (i % 3 === 2) await txn.abort();
      else await txn.commit();
      // the marker written before the next batch (Kafka answers EndTxn before it writes the markers)
      await waitFor(async () => (await this.latest(1)) === (await this.latest(0)), {
        what: `transaction ${i}'s marker`,
      });
      this.lastBatch = this.idempotentBatch(this.nextSeq, i);
      const r = await this.produceRaw(this.lastBatch);
      assert.equal(r.errorCode, 0, `idempotent batch ${i}`);
      this.lastIdempotentOffset = r.baseOffset;
      this.nextSeq += 3;
    }
    await producer.disconnect();
    this.logEndOffset = await this.latest();
  }

  private async latest(isolationLevel = 0): Promise<string> {
    return this.withClient(async (c) => {
      const r = await c.request(ApiKey.ListOffsets, 9, {
        replicaId: -1,
        isolationLevel,
        timeoutMs: 5_000,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
      });
      const p = r.topics[0]!.partitions[0]!;
      return p.errorCode === 0 ? String(p.offset) : `error ${p.errorCode}`;
    });
  }

  /** Waits until the partition is served up to `end` (default: the end it was written to). */
  async waitServed(end = this.logEndOffset): Promise<void> {
    await waitFor(async () => (await this.latest()) === end, {
      what: `partition ${TOPIC}-0 served up to ${end}`,
      timeoutMs: 60_000,
    });
  }

  private async fetchAll(c: RawClient, isolationLevel: number): Promise<FetchView[]> {
    const out: FetchView[] = [];
    let offset = 0;
    for (let i = 0; i < 200; i++) {
      const r = await c.request(ApiKey.Fetch, 12, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 4 << 20,
        isolationLevel,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: TOPIC,
            partitions: [
              { partition: 0, fetchOffset: BigInt(offset), logStartOffset: -1n, partitionMaxBytes: 300_000 },
            ],
          },
        ],
      });
      const p = r.responses[0]!.partitions[0]!;
      const records = (p.records as Buffer | null) ?? Buffer.alloc(0);
      const { next, lines } = readBatches(records, offset);
      out.push({
        isolationLevel,
        offset,
        errorCode: p.errorCode,
        highWatermark: String(p.highWatermark),
        lastStableOffset: String(p.lastStableOffset),
        logStartOffset: String(p.logStartOffset),
        aborted: (p.abortedTransactions ?? []).map((a) => ({
          producerId: String(a.producerId),
          firstOffset: String(a.firstOffset),
        })),
        records: lines,
        bytes: records.length,
        sha: createHash('sha256').update(records).digest('hex'),
      });
      const end = isolationLevel === 1 ? Number(p.lastStableOffset) : Number(p.highWatermark);
      if (p.errorCode !== 0 || next >= end || next === offset) break;
      offset = next;
    }
    return out;
  }

  /** Everything a client sees of the partition (a duplicate and an out-of-order batch append nothing). */
  async observe(): Promise<Observation> {
    return this.withClient(async (c) => {
      const fetches = [...(await this.fetchAll(c, 0)), ...(await this.fetchAll(c, 1))];
      const timestamps = [-2n, -1n, -3n];
      for (let i = 0; i < TRANSACTIONS; i += 5)
        timestamps.push(BigInt(this.t0 + i * 1000 + 500), BigInt(this.t0 + i * 1000 + 700));
      const listOffsets: Observation['listOffsets'] = [];
      for (const isolationLevel of [0, 1]) {
        // one request per timestamp: a partition asked twice in one request is INVALID_REQUEST
        for (const timestamp of timestamps) {
          const r = await c.request(ApiKey.ListOffsets, 9, {
            replicaId: -1,
            isolationLevel,
            timeoutMs: 10_000,
            topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
          });
          const p = r.topics[0]!.partitions[0]!;
          listOffsets.push({
            isolationLevel,
            asked: String(timestamp),
            errorCode: p.errorCode,
            timestamp: String(p.timestamp),
            offset: String(p.offset),
          });
        }
      }
      const d = await c.request(ApiKey.DescribeProducers, 0, { topics: [{ name: TOPIC, partitionIndexes: [0] }] });
      const dp = d.topics[0]!.partitions[0]!;
      const producers = {
        errorCode: dp.errorCode,
        active: dp.activeProducers
          .map((a) => ({
            producerId: String(a.producerId),
            producerEpoch: a.producerEpoch,
            lastSequence: a.lastSequence,
            lastTimestamp: String(a.lastTimestamp),
            coordinatorEpoch: a.coordinatorEpoch,
            currentTxnStartOffset: String(a.currentTxnStartOffset),
          }))
          .sort((x, y) => x.producerId.localeCompare(y.producerId)),
      };
      const duplicate = await this.produceRaw(this.lastBatch!);
      const outOfOrder = await this.produceRaw(this.idempotentBatch(this.nextSeq + 5, 999));
      return { fetches, listOffsets, producers, duplicate, outOfOrder };
    });
  }

  /** The data is what the cases need: aborted transactions, a duplicate answered with its offset. */
  checkWritten(o: Observation): void {
    assert.ok(
      o.fetches.some((f) => f.isolationLevel === 1 && f.aborted.length > 0),
      'read_committed fetches name aborted transactions',
    );
    assert.deepEqual(o.duplicate, { errorCode: 0, baseOffset: this.lastIdempotentOffset }, 'a duplicate batch');
    assert.equal(o.outOfOrder.errorCode, 45, 'OUT_OF_ORDER_SEQUENCE_NUMBER');
  }

  /**
   * What two clusters written alike agree on: producer ids named by role (this idempotent producer
   * or the transactional one), no raw batch bytes (control markers carry each broker's clock), no
   * marker-clock timestamps (MAX_TIMESTAMP's and the transactional producer's last timestamp).
   */
  comparable(o: Observation): unknown {
    const role = (pid: string) => (pid === String(this.pid) ? 'idempotent' : 'transactional');
    return {
      fetches: o.fetches.map(({ bytes: _b, sha: _s, aborted, ...f }) => ({
        ...f,
        aborted: aborted.map((a) => `${role(a.producerId)}@${a.firstOffset}`),
      })),
      listOffsets: o.listOffsets.map((l) => (l.asked === '-3' ? { ...l, timestamp: 'marker clock' } : l)),
      producers: {
        errorCode: o.producers.errorCode,
        active: o.producers.active
          .map((a) => ({
            ...a,
            producerId: role(a.producerId),
            lastTimestamp: role(a.producerId) === 'idempotent' ? a.lastTimestamp : 'marker clock',
          }))
          .sort((x, y) => x.producerId.localeCompare(y.producerId)),
      },
      duplicate: o.duplicate,
      outOfOrder: o.outOfOrder,
    };
  }
}
