// Reading answers to kafka-acls.sh's `(y/n)` questions, one line at a time, from the tool's stdin.
// Kafka 4.4 reads them with System.console().readLine(); tkafka reads stdin whether or not it is a
// terminal, so an answer can be piped in. End of input counts as "no".

export class LineReader {
  private buffer = '';
  private ended = false;
  private waiting: (() => void) | null = null;
  private attached = false;
  private readonly onData = (chunk: Buffer | string): void => {
    this.buffer += String(chunk);
    this.wake();
  };
  private readonly onEnd = (): void => {
    this.ended = true;
    this.wake();
  };

  constructor(private readonly stream: NodeJS.ReadableStream) {}

  private wake(): void {
    const w = this.waiting;
    this.waiting = null;
    w?.();
  }

  private attach(): void {
    if (this.attached) return;
    this.attached = true;
    this.stream.on('data', this.onData);
    this.stream.on('end', this.onEnd);
    this.stream.on('error', this.onEnd);
    this.stream.resume();
  }

  /** The next line without its line ending, or null at the end of input. */
  async next(): Promise<string | null> {
    this.attach();
    for (;;) {
      const i = this.buffer.indexOf('\n');
      if (i >= 0) {
        const line = this.buffer.slice(0, i).replace(/\r$/, '');
        this.buffer = this.buffer.slice(i + 1);
        return line;
      }
      if (this.ended) {
        if (this.buffer === '') return null;
        const line = this.buffer;
        this.buffer = '';
        return line;
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  /** Stops reading (so an interactive stdin no longer keeps the process alive). */
  close(): void {
    if (!this.attached) return;
    this.stream.removeListener('data', this.onData);
    this.stream.removeListener('end', this.onEnd);
    this.stream.removeListener('error', this.onEnd);
    this.stream.pause();
  }
}
