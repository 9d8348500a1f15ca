// The implicit AddPartitionsToTxn of transactions V2 produce requests, batched as Kafka's
// AddPartitionsToTxnManager batches them: the partitions of one transactional producer (id and
// epoch) that reach verification in the same turn of the event loop go to the coordinator in one
// call. Without it, a produce request for two new partitions of a transaction adds the first, the
// second meets the first's pending transition (CONCURRENT_TRANSACTIONS, answered as the retriable
// NOT_ENOUGH_REPLICAS) and the client retries it after its retry backoff (100 ms for the Java client),
// once per transaction.

/** Adds `partitionKeys` to the transaction; one error code for the whole set. */
export type AddPartitions = (
  transactionalId: string,
  producerId: number,
  producerEpoch: number,
  partitionKeys: readonly string[],
) => Promise<number>;

interface Pending {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly keys: Set<string>;
  readonly waiters: { resolve: (code: number) => void; reject: (e: unknown) => void }[];
}

export class AddPartitionsBatcher {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly add: AddPartitions) {}

  /** Resolves with the coordinator's answer for the batch `partitionKey` went out in. */
  addPartition(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    partitionKey: string,
  ): Promise<number> {
    const id = `${producerId}:${producerEpoch}:${transactionalId}`;
    let p = this.pending.get(id);
    if (!p) {
      p = { transactionalId, producerId, producerEpoch, keys: new Set(), waiters: [] };
      this.pending.set(id, p);
      const batch = p;
      setImmediate(() => {
        this.pending.delete(id);
        void this.send(batch);
      });
    }
    p.keys.add(partitionKey);
    return new Promise<number>((resolve, reject) => p.waiters.push({ resolve, reject }));
  }

  /** An exception reaches every caller of the batch (the produce path logs it as a failed append). */
  private async send(p: Pending): Promise<void> {
    try {
      const code = await this.add(p.transactionalId, p.producerId, p.producerEpoch, [...p.keys]);
      for (const w of p.waiters) w.resolve(code);
    } catch (e) {
      for (const w of p.waiters) w.reject(e);
    }
  }
}
