// A small Kafka producer on top of KafkaClient: records are placed on partitions like the Java
// producer (explicit partition; murmur2 of the key; a sticky partition per batch for keyless
// records), collected per partition into v2 record batches (batch.size, linger.ms, compression),
// and sent to each partition's leader with one request in flight per partition (so retries keep
// the order). With acks=all the producer is idempotent when the cluster grants a producer id
// (InitProducerId), as Kafka's default. `send` resolves with the record's offset once acked.
// With transactional.id: initTransactions, then begin/commit/abortTransaction (AddPartitionsToTxn
// before a partition's first batch of a transaction, EndTxn at the end).
import type { KafkaClient } from './client.js';
import { ApiError } from './errors.js';
import { defaultPartition } from '../protocol/partitioner.js';
import type { AddPartitionsToTxnResponse } from '../protocol/generated/protocol/AddPartitionsToTxn.js';
import type { EndTxnResponse } from '../protocol/generated/protocol/EndTxn.js';
import type { InitProducerIdResponse } from '../protocol/generated/protocol/InitProducerId.js';
import type { ProduceResponse } from '../protocol/generated/protocol/Produce.js';

export interface ProducerConfig {
  /** acks: -1 (all), 1 or 0 (sent as 1: this client always reads the response). */
  acks: number;
  lingerMs: number;
  batchSize: number;
  /** compression.type: none, gzip, snappy, lz4, zstd. */
  compression: string;
  requestTimeoutMs: number;
  retries: number;
  retryBackoffMs: number;
  /** max.block.ms: how long send() waits for the topic's metadata. */
  maxBlockMs: number;
  deliveryTimeoutMs: number;
  /** enable.idempotence (used with acks=all only). */
  idempotence: boolean;
  /** transactional.id: enables initTransactions/beginTransaction/commitTransaction/abortTransaction. */
  transactionalId: string | null;
  transactionTimeoutMs: number;
}

export const DEFAULT_PRODUCER_CONFIG: ProducerConfig = {
  acks: -1,
  lingerMs: 5,
  batchSize: 16384,
  compression: 'none',
  requestTimeoutMs: 30_000,
  retries: 2147483647,
  retryBackoffMs: 100,
  maxBlockMs: 60_000,
  deliveryTimeoutMs: 120_000,
  idempotence: true,
  transactionalId: null,
  transactionTimeoutMs: 60_000,
};

export interface ProducerHeader {
  key: string;
  value: Buffer | null;
}

export interface ProducerRecord {
  topic: string;
  partition?: number;
  key?: Buffer | null;
  value?: Buffer | null;
  headers?: ProducerHeader[];
  timestamp?: number;
}

export interface RecordMetadata {
  topic: string;
  partition: number;
  /** -1 when unknown (acks=0). */
  offset: bigint;
  timestamp: number;
}

/** A record that could not be delivered. */
export class ProduceError extends Error {
  override name = 'ProduceError';
  constructor(
    message: string,
    readonly topic: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

interface Pending {
  record: ProducerRecord;
  size: number;
  resolve: (m: RecordMetadata) => void;
  reject: (e: Error) => void;
}

interface Batch {
  topic: string;
  partition: number;
  records: Pending[];
  bytes: number;
  createdAt: number;
  attempts: number;
  baseSequence: number;
  encoded: Buffer | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const key = (t: string, p: number): string => `${t}\u0000${p}`;
const RETRIABLE_PRODUCE = new Set([3, 5, 6, 7, 13, 14, 15, 16, 19, 20, 56, 74, 75]);
// Transaction coordinator answers worth retrying: loading, not available, not coordinator, concurrent transactions.
const RETRIABLE_TXN = new Set([14, 15, 16, 51]);

export class Producer {
  readonly config: ProducerConfig;
  private readonly queues = new Map<string, Batch[]>();
  private readonly inFlight = new Set<string>();
  private readonly sticky = new Map<string, number>();
  private readonly sequences = new Map<string, number>();
  private producerId = -1n;
  private producerEpoch = -1;
  private idInit: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timerDue = 0;
  private flushing = 0;
  private preparing = 0;
  private closed = false;
  private readonly idle = new Set<() => void>();
  private inTransaction = false;
  private readonly txnPartitions = new Set<string>();

  constructor(
    private readonly client: KafkaClient,
    config: Partial<ProducerConfig> = {},
  ) {
    this.config = { ...DEFAULT_PRODUCER_CONFIG, ...config };
  }

  /** Number of partitions of `topic`, waiting (max.block.ms) for it to appear; asks for auto-creation. */
  async partitionsFor(topic: string): Promise<number> {
    const known = this.client.cachedMetadata?.topics.get(topic);
    if (known && known.errorCode === 0 && known.partitions.length > 0) return known.partitions.length;
    const deadline = Date.now() + this.config.maxBlockMs;
    let backoff = this.config.retryBackoffMs;
    for (;;) {
      await this.client.send('any', 'Metadata', (v: number) => ({
        topics: [{ name: topic }],
        allowAutoTopicCreation: v >= 4,
      }));
      const md = await this.client.metadata({ topics: [topic], refresh: true });
      const t = md.topics.get(topic);
      if (t && t.errorCode === 0 && t.partitions.length > 0) return t.partitions.length;
      if (t && t.errorCode !== 0 && !new ApiError(t.errorCode).retriable && t.errorCode !== 3)
        throw new ApiError(t.errorCode, null, topic);
      if (Date.now() + backoff > deadline) {
        throw new ProduceError(`Topic ${topic} not present in metadata after ${this.config.maxBlockMs} ms.`, topic);
      }
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 1000);
    }
  }

  private choosePartition(record: ProducerRecord, count: number): number {
    if (record.partition !== undefined && record.partition >= 0) {
      if (record.partition >= count)
        throw new ProduceError(
          `Invalid partition given with record: ${record.partition} is not in the range [0...${count}).`,
          record.topic,
        );
      return record.partition;
    }
    if (record.key) return defaultPartition(record.key, count);
    let p = this.sticky.get(record.topic);
    if (p === undefined || p >= count) {
      p = Math.floor(Math.random() * count);
      this.sticky.set(record.topic, p);
    }
    return p;
  }

  /** Queues a record; resolves with its offset when the leader acknowledged it. */
  async send(record: ProducerRecord): Promise<RecordMetadata> {
    if (this.closed) throw new ProduceError('Cannot send after the producer is closed.', record.topic);
    if (this.config.transactionalId !== null && !this.inTransaction) {
      throw new ProduceError('Cannot call send in state READY: begin a transaction first', record.topic);
    }
    // Counted until queued, so flush() also waits for sends still looking up their topic.
    this.preparing++;
    let partition: number;
    try {
      partition = this.choosePartition(record, await this.partitionsFor(record.topic));
    } catch (e) {
      this.preparing--;
      this.schedule();
      throw e;
    }
    const r: ProducerRecord = { ...record, timestamp: record.timestamp ?? Date.now() };
    const size =
      32 +
      (r.key?.length ?? 0) +
      (r.value?.length ?? 0) +
      (r.headers ?? []).reduce((n, h) => n + h.key.length + (h.value?.length ?? 0) + 8, 0);
    return new Promise<RecordMetadata>((resolve, reject) => {
      const k = key(r.topic, partition);
      const q = this.queues.get(k) ?? [];
      this.queues.set(k, q);
      let last = q[q.length - 1];
      if (!last || last.encoded !== null || (last.bytes + size > this.config.batchSize && last.records.length > 0)) {
        last = {
          topic: r.topic,
          partition,
          records: [],
          bytes: 61,
          createdAt: Date.now(),
          attempts: 0,
          baseSequence: -1,
          encoded: null,
        };
        q.push(last);
        // A full batch moves the sticky partition on, as Kafka's built-in partitioner does.
        if (!r.key && record.partition === undefined && q.length > 1) this.sticky.delete(r.topic);
      }
      last.records.push({ record: r, size, resolve, reject });
      last.bytes += size;
      this.preparing--;
      this.schedule();
    });
  }

  private ready(b: Batch, now: number): boolean {
    return (
      this.flushing > 0 ||
      this.closed ||
      b.bytes >= this.config.batchSize ||
      now - b.createdAt >= this.config.lingerMs ||
      b.attempts > 0
    );
  }

  private schedule(delay?: number): void {
    const now = Date.now();
    let wait = delay ?? Infinity;
    for (const [k, q] of this.queues) {
      if (q.length === 0 || this.inFlight.has(k)) continue;
      const b = q[0]!;
      wait = Math.min(wait, this.ready(b, now) ? 0 : this.config.lingerMs - (now - b.createdAt));
    }
    // A timer already due no later than this deadline stays: re-arming it on every send would
    // postpone the drain for as long as sends keep arriving.
    if (this.timer && this.timerDue <= now + Math.max(0, wait)) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (wait === Infinity) return this.notifyIdle();
    this.timerDue = now + Math.max(0, wait);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.drain();
      },
      Math.max(0, wait),
    );
  }

  private notifyIdle(): void {
    if (this.inFlight.size > 0 || this.preparing > 0) return;
    for (const [, q] of this.queues) if (q.length > 0) return;
    for (const f of this.idle) f();
    this.idle.clear();
  }

  /** True once the cluster granted a producer id: batches carry sequence numbers, so a retry cannot write twice. */
  get idempotent(): boolean {
    return (this.config.transactionalId !== null || this.config.idempotence) && this.producerId >= 0n;
  }

  private async ensureProducerId(): Promise<void> {
    if (this.config.transactionalId !== null) {
      if (this.producerId < 0n)
        throw new ProduceError('Cannot send before initTransactions() on a transactional producer', '');
      return;
    }
    if (!this.config.idempotence || this.config.acks !== -1 || this.producerId >= 0n) return;
    this.idInit ??= (async () => {
      // A broker answers COORDINATOR_LOAD_IN_PROGRESS until it holds a block of producer ids (a
      // fresh Kafka broker does for a moment): retriable answers and lost connections are tried
      // again, as the Java producer does, for up to max.block.ms; producing without idempotence
      // then would let a retry write a batch twice.
      const deadline = Date.now() + this.config.maxBlockMs;
      for (let backoff = this.config.retryBackoffMs; ; backoff = Math.min(backoff * 2, 1000)) {
        let retriable: boolean;
        try {
          const resp = await this.client.request<InitProducerIdResponse>('any', 'InitProducerId', {
            transactionalId: null,
            transactionTimeoutMs: 2147483647,
            producerId: -1n,
            producerEpoch: -1,
          });
          if (resp.body.errorCode === 0) {
            this.producerId = resp.body.producerId;
            this.producerEpoch = resp.body.producerEpoch;
            return;
          }
          retriable = new ApiError(resp.body.errorCode).retriable;
        } catch (e) {
          retriable = !(e instanceof ApiError) || e.retriable;
        }
        // Not granted (old broker, no permission), or no answer in time: produce without idempotence.
        if (!retriable || Date.now() + backoff > deadline) {
          this.config.idempotence = false;
          return;
        }
        await sleep(backoff);
      }
    })();
    await this.idInit;
  }

  private draining = false;

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      await this.drainOnce();
    } finally {
      this.draining = false;
      this.schedule();
    }
  }

  private async drainOnce(): Promise<void> {
    await this.ensureProducerId();
    const now = Date.now();
    const byLeader = new Map<number, Batch[]>();
    for (const [k, q] of this.queues) {
      if (q.length === 0 || this.inFlight.has(k) || !this.ready(q[0]!, now)) continue;
      const b = q[0]!;
      let leader: number;
      try {
        if (this.config.transactionalId !== null && !this.txnPartitions.has(k))
          await this.addPartitionToTxn(b.topic, b.partition);
        leader = await this.client.leaderOf(b.topic, b.partition);
      } catch (e) {
        this.retryOrFail(b, e);
        continue;
      }
      this.inFlight.add(k);
      byLeader.set(leader, [...(byLeader.get(leader) ?? []), b]);
    }
    for (const [leader, batches] of byLeader) void this.sendBatches(leader, batches);
  }

  private async encode(b: Batch): Promise<Buffer> {
    if (b.encoded) return b.encoded;
    const { buildRecordBatch } = await import('../protocol/records/batch.js');
    const { parseCompressionType } = await import('../protocol/records/compression.js');
    const transactional = this.config.transactionalId !== null;
    const idempotent = (transactional || this.config.idempotence) && this.producerId >= 0n;
    if (idempotent) {
      const k = key(b.topic, b.partition);
      b.baseSequence = this.sequences.get(k) ?? 0;
      this.sequences.set(k, (b.baseSequence + b.records.length) % 2147483648);
    }
    b.encoded = await buildRecordBatch({
      records: b.records.map((p) => ({
        key: p.record.key ?? null,
        value: p.record.value ?? null,
        headers: p.record.headers ?? [],
        timestamp: p.record.timestamp,
      })),
      compression: parseCompressionType(this.config.compression),
      ...(idempotent
        ? { producerId: this.producerId, producerEpoch: this.producerEpoch, baseSequence: b.baseSequence }
        : {}),
      transactional,
    });
    return b.encoded;
  }

  private async sendBatches(leader: number, batches: Batch[]): Promise<void> {
    try {
      const encoded = await Promise.all(batches.map((b) => this.encode(b)));
      const topics = new Map<string, { index: number; records: Buffer }[]>();
      batches.forEach((b, i) =>
        topics.set(b.topic, [...(topics.get(b.topic) ?? []), { index: b.partition, records: encoded[i]! }]),
      );
      const resp = await this.client.send<ProduceResponse>(
        { node: leader },
        'Produce',
        {
          transactionalId: this.config.transactionalId,
          acks: this.config.acks === 0 ? 1 : this.config.acks,
          timeoutMs: this.config.requestTimeoutMs,
          topicData: [...topics].map(([name, partitionData]) => ({ name, partitionData })),
        },
        { minVersion: 3, timeoutMs: this.config.requestTimeoutMs + 5000 },
      );
      const results = new Map<string, ProduceResponse['responses'][number]['partitionResponses'][number]>();
      for (const t of resp.body.responses) for (const p of t.partitionResponses) results.set(key(t.name, p.index), p);
      for (const b of batches) {
        const p = results.get(key(b.topic, b.partition));
        if (!p) this.retryOrFail(b, new ApiError(-1, 'The produce response did not include the partition'));
        else if (p.errorCode === 0 || p.errorCode === 46)
          this.complete(b, p.errorCode === 0 ? p.baseOffset : -1n, p.logAppendTimeMs);
        else this.retryOrFail(b, new ApiError(p.errorCode, p.errorMessage));
      }
    } catch (e) {
      for (const b of batches) this.retryOrFail(b, e);
    } finally {
      for (const b of batches) this.inFlight.delete(key(b.topic, b.partition));
      this.schedule();
    }
  }

  private complete(b: Batch, baseOffset: bigint, logAppendTime: bigint | undefined): void {
    this.remove(b);
    b.records.forEach((p, i) =>
      p.resolve({
        topic: b.topic,
        partition: b.partition,
        offset: baseOffset < 0n ? -1n : baseOffset + BigInt(i),
        timestamp: logAppendTime !== undefined && logAppendTime >= 0n ? Number(logAppendTime) : p.record.timestamp!,
      }),
    );
  }

  private remove(b: Batch): void {
    const q = this.queues.get(key(b.topic, b.partition));
    const i = q?.indexOf(b) ?? -1;
    if (q && i >= 0) q.splice(i, 1);
  }

  private retryOrFail(b: Batch, e: unknown): void {
    const code = e instanceof ApiError ? e.code : null;
    const retriable = code === null ? (e as { retriable?: boolean }).retriable === true : RETRIABLE_PRODUCE.has(code);
    b.attempts++;
    this.client.noteFailure(e);
    if (retriable && b.attempts <= this.config.retries && Date.now() - b.createdAt < this.config.deliveryTimeoutMs) {
      setTimeout(() => this.schedule(0), this.config.retryBackoffMs);
      return;
    }
    this.remove(b);
    const err = e instanceof Error ? e : new Error(String(e));
    for (const p of b.records) p.reject(err);
  }

  /** A transaction coordinator call, retried while the coordinator is busy or moving. */
  private async txnCall<T extends { errorCode: number }>(api: string, body: unknown, maxVersion?: number): Promise<T> {
    const id = this.config.transactionalId!;
    const deadline = Date.now() + this.config.maxBlockMs;
    for (let backoff = this.config.retryBackoffMs; ; backoff = Math.min(backoff * 2, 1000)) {
      const resp = await this.client.request<T>(
        { coordinator: { type: 'transaction', key: id } },
        api,
        body,
        maxVersion === undefined ? {} : { maxVersion },
      );
      const code: number = resp.body.errorCode ?? 0;
      if (code === 0) return resp.body;
      const err = new ApiError(code);
      this.client.noteFailure(err);
      if (!RETRIABLE_TXN.has(code) || Date.now() + backoff > deadline) throw err;
      await sleep(backoff);
    }
  }

  /** InitProducerId for transactional.id (fencing older producers with the same id). */
  async initTransactions(): Promise<void> {
    const id = this.config.transactionalId;
    if (id === null) throw new ProduceError('initTransactions needs transactional.id', '');
    const b = await this.txnCall<InitProducerIdResponse>('InitProducerId', {
      transactionalId: id,
      transactionTimeoutMs: this.config.transactionTimeoutMs,
      producerId: -1n,
      producerEpoch: -1,
    });
    this.producerId = b.producerId;
    this.producerEpoch = b.producerEpoch;
    this.sequences.clear();
  }

  beginTransaction(): void {
    if (this.producerId < 0n) throw new ProduceError('Cannot begin a transaction before initTransactions()', '');
    if (this.inTransaction) throw new ProduceError('A transaction is already in progress', '');
    this.inTransaction = true;
    this.txnPartitions.clear();
  }

  private async addPartitionToTxn(topic: string, partition: number): Promise<void> {
    const id = this.config.transactionalId!;
    const deadline = Date.now() + this.config.maxBlockMs;
    for (let backoff = 20; ; backoff = Math.min(backoff * 2, 1000)) {
      const body = await this.txnCall<AddPartitionsToTxnResponse>(
        'AddPartitionsToTxn',
        (v: number) =>
          v >= 4
            ? {
                transactions: [
                  {
                    transactionalId: id,
                    producerId: this.producerId,
                    producerEpoch: this.producerEpoch,
                    verifyOnly: false,
                    topics: [{ name: topic, partitions: [partition] }],
                  },
                ],
              }
            : {
                v3AndBelowTransactionalId: id,
                v3AndBelowProducerId: this.producerId,
                v3AndBelowProducerEpoch: this.producerEpoch,
                v3AndBelowTopics: [{ name: topic, partitions: [partition] }],
              },
        // Versions 4+ are for brokers (KIP-890); clients send 3 or lower.
        3,
      );
      const results = [
        ...(body.resultsByTopicV3AndBelow ?? []),
        ...(body.resultsByTransaction ?? []).flatMap((t) => t.topicResults),
      ];
      const codes = results
        .flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode as number))
        .filter((c) => c !== 0);
      if (codes.length === 0) break;
      // The previous transaction may still be completing (CONCURRENT_TRANSACTIONS): retry.
      if (!codes.every((c) => RETRIABLE_TXN.has(c)) || Date.now() + backoff > deadline)
        throw new ApiError(codes[0]!, null, `${topic}-${partition}`);
      await sleep(backoff);
    }
    this.txnPartitions.add(key(topic, partition));
  }

  private async endTransaction(committed: boolean): Promise<void> {
    if (!this.inTransaction) throw new ProduceError('No transaction in progress', '');
    await this.flush();
    if (this.txnPartitions.size > 0) {
      await this.txnCall<EndTxnResponse>('EndTxn', {
        transactionalId: this.config.transactionalId!,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        committed,
      });
    }
    this.inTransaction = false;
    this.txnPartitions.clear();
  }

  commitTransaction(): Promise<void> {
    return this.endTransaction(true);
  }

  abortTransaction(): Promise<void> {
    return this.endTransaction(false);
  }

  /** Sends everything queued now and waits for the answers. */
  async flush(): Promise<void> {
    this.flushing++;
    try {
      await new Promise<void>((resolve) => {
        this.idle.add(resolve);
        this.schedule(0);
      });
    } finally {
      this.flushing--;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
