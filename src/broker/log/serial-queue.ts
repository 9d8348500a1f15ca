// A tiny promise queue: tasks run one at a time, in submission order, so a multi-step async
// operation on a partition log (append, roll, retention, cleaning, truncation) never interleaves
// with another across its awaits. A failing task rejects its own promise only.

export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending++;
    const result = this.tail.then(task);
    this.tail = result.then(
      () => {
        this.pending--;
      },
      () => {
        this.pending--;
      },
    );
    return result;
  }

  /** Number of tasks submitted and not yet finished. */
  get size(): number {
    return this.pending;
  }

  /** Resolves once every task submitted so far has finished (successfully or not). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
