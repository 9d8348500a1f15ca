// Producer ids for InitProducerId (Kafka's RPCProducerIdManager): blocks of 1000 allocated by the
// KRaft controller (AllocateProducerIds → ProducerIdsRecord in the metadata log, so an id is never
// handed out twice, restarts included). The next block is prefetched when 90% of the current one
// is used; while none is available, callers get COORDINATOR_LOAD_IN_PROGRESS (retriable).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';

export interface ProducerIdBlockSource {
  allocateProducerIds(): Promise<{
    errorCode: number;
    errorMessage?: string | null;
    producerIdStart: bigint;
    producerIdLen: number;
  }>;
}

interface Block {
  next: number;
  end: number; // exclusive
  size: number;
}

const PREFETCH_RATIO = 0.9;

export class ProducerIdManager {
  private current: Block | undefined;
  private nextBlock: Block | undefined;
  private fetching: Promise<void> | undefined;
  private lastError: string | undefined;

  constructor(
    private readonly source: ProducerIdBlockSource,
    private readonly logger?: (level: string, msg: string) => void,
  ) {}

  private fetchBlock(): Promise<void> {
    if (this.fetching) return this.fetching;
    this.fetching = (async () => {
      try {
        const r = await this.source.allocateProducerIds();
        if (r.errorCode !== ErrorCode.NONE) {
          this.lastError = r.errorMessage ?? `error ${r.errorCode}`;
          this.logger?.('WARN', `Failed to allocate a producer id block: ${this.lastError}`);
          return;
        }
        const start = Number(r.producerIdStart);
        const block = { next: start, end: start + r.producerIdLen, size: r.producerIdLen };
        if (!this.current || this.current.next >= this.current.end) this.current = block;
        else this.nextBlock = block;
        this.logger?.('INFO', `Acquired new producerId block (start ${start}, length ${r.producerIdLen})`);
      } catch (e) {
        this.lastError = (e as Error).message;
        this.logger?.('WARN', `Failed to allocate a producer id block: ${this.lastError}`);
      } finally {
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }

  /** The next producer id; waits for a block when none is held. */
  async generateProducerId(): Promise<number> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if ((!this.current || this.current.next >= this.current.end) && this.nextBlock) {
        this.current = this.nextBlock;
        this.nextBlock = undefined;
      }
      const b = this.current;
      if (b && b.next < b.end) {
        const id = b.next++;
        if (!this.nextBlock && b.next - (b.end - b.size) >= b.size * PREFETCH_RATIO) void this.fetchBlock();
        return id;
      }
      await this.fetchBlock();
    }
    throw new KafkaError(
      ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
      `Producer ID block is not available yet${this.lastError ? `: ${this.lastError}` : ''}`,
    );
  }
}
