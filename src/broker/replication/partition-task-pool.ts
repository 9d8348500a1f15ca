// Applying one metadata update's partition changes with bounded concurrency. Each change (become
// leader or follower, stop hosting) awaits file operations on its partition's log — create the dir,
// the segment, partition.metadata and leader-epoch-checkpoint, with their fsyncs — so applying
// 10,000 of them one after another pays each one's I/O latency in turn. Here the changes of
// different partitions run up to `limit` at once, while the changes of one partition still run one
// at a time in the order they were submitted (a topic deleted and recreated in one update, a
// partition changed twice): the partition stays the single owner of its state.

export class PartitionTaskPool {
  private readonly limit: number;
  /** The last task submitted per partition key; the next one for that key starts after it settles. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private peak = 0;
  private readonly failures: unknown[] = [];

  constructor(limit: number) {
    if (!(limit >= 1)) throw new RangeError(`concurrency limit must be at least 1, got ${limit}`);
    this.limit = limit;
  }

  /** Most tasks seen running at once (for tests). */
  get peakConcurrency(): number {
    return this.peak;
  }

  /**
   * Runs `task` after every task submitted earlier for `key` has settled, once fewer than `limit`
   * tasks are running. A task's failure is reported by drain(), and does not stop the key's next task.
   */
  submit(key: string, task: () => Promise<void>): void {
    const previous = this.tails.get(key);
    const run = async (): Promise<void> => {
      if (previous) await previous.catch(() => undefined);
      await this.acquire();
      try {
        await task();
      } finally {
        this.release();
      }
    };
    const p = run();
    this.tails.set(key, p);
    this.inFlight.add(p);
    const settled = (): void => {
      this.inFlight.delete(p);
      if (this.tails.get(key) === p) this.tails.delete(key);
    };
    p.then(settled, (e: unknown) => {
      this.failures.push(e);
      settled();
    });
  }

  /**
   * Resolves once every task submitted so far (and any they submit) has settled; rejects with the
   * first failure since the last drain.
   */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const failures = this.failures.splice(0);
    if (failures.length > 0) throw failures[0];
  }

  private acquire(): Promise<void> {
    if (this.running < this.limit) {
      this.running++;
      this.peak = Math.max(this.peak, this.running);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    // the slot passes straight to the next waiter
    if (next) next();
    else this.running--;
  }
}
