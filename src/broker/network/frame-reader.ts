// Incremental reader of int32-size-prefixed frames from a byte stream (Kafka's NetworkReceive).
// The size is checked against socket.request.max.bytes before anything is allocated; a negative
// or oversize size is an InvalidFrameError and the connection must be closed. Chunks of a partial
// frame are collected and copied once when the frame is complete; a frame that lies within one
// chunk is returned as a zero-copy slice of that chunk.

export class InvalidFrameError extends Error {
  constructor(
    message: string,
    readonly size: number,
  ) {
    super(message);
    this.name = 'InvalidFrameError';
  }
}

export class FrameReader {
  /** The size prefix when it arrives split across chunks. */
  private readonly sizeBuf = Buffer.alloc(4);
  private sizeHave = 0;
  /** Payload size of the frame being collected, or -1 when no size has been read. */
  private frameSize = -1;
  /** Payload pieces of the incomplete frame, in order (slices of the chunks, not copies). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Frames completed so far (the index of the frame being read). */
  framesCompleted = 0;

  /** Mutable: a SASL connection reads with sasl.server.max.receive.size until it is authenticated. */
  constructor(public maxFrameBytes: number) {
    if (!(maxFrameBytes >= 0)) throw new RangeError(`maxFrameBytes must be >= 0, got ${maxFrameBytes}`);
  }

  /** Bytes held for the incomplete frame (its size prefix and payload so far). */
  get bufferedBytes(): number {
    return this.sizeHave + this.pendingBytes + (this.frameSize >= 0 ? 4 : 0);
  }

  /**
   * Bytes reserved for the frame being read: its whole size once the size prefix is read (as Kafka's
   * NetworkReceive allocates from the MemoryPool), else the prefix bytes so far.
   */
  get reservedBytes(): number {
    return this.frameSize >= 0 ? this.frameSize + 4 : this.sizeHave;
  }

  /**
   * Consumes a chunk; returns the frames it completes (payloads without the size prefix), in order.
   * Throws InvalidFrameError on a negative or too large size; the reader is unusable afterwards.
   */
  push(chunk: Buffer): Buffer[] {
    const frames = this.read(chunk);
    this.framesCompleted += frames.length;
    return frames;
  }

  private read(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    const len = chunk.length;
    let off = 0;
    if (this.sizeHave > 0) {
      const n = Math.min(4 - this.sizeHave, len);
      chunk.copy(this.sizeBuf, this.sizeHave, 0, n);
      this.sizeHave += n;
      off = n;
      if (this.sizeHave < 4) return frames;
      this.sizeHave = 0;
      this.frameSize = this.checkSize(this.sizeBuf.readInt32BE(0));
    }
    if (this.frameSize >= 0) {
      const missing = this.frameSize - this.pendingBytes;
      if (len - off < missing) {
        if (len > off) {
          this.pending.push(off === 0 ? chunk : chunk.subarray(off));
          this.pendingBytes += len - off;
        }
        return frames;
      }
      if (this.pending.length === 0) {
        frames.push(chunk.subarray(off, off + missing)); // only the size prefix was split
      } else {
        const frame = Buffer.allocUnsafe(this.frameSize);
        let pos = 0;
        for (const p of this.pending) {
          p.copy(frame, pos);
          pos += p.length;
        }
        chunk.copy(frame, pos, off, off + missing);
        frames.push(frame);
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.frameSize = -1;
      off += missing;
    }
    // Frames entirely inside this chunk are slices of it.
    while (len - off >= 4) {
      const size = this.checkSize(chunk.readInt32BE(off));
      if (len - off - 4 < size) {
        this.frameSize = size;
        if (len - off > 4) {
          this.pending.push(chunk.subarray(off + 4));
          this.pendingBytes = len - off - 4;
        }
        return frames;
      }
      frames.push(chunk.subarray(off + 4, off + 4 + size));
      off += 4 + size;
    }
    if (off < len) {
      chunk.copy(this.sizeBuf, 0, off, len);
      this.sizeHave = len - off;
    }
    return frames;
  }

  private checkSize(size: number): number {
    if (size < 0) throw new InvalidFrameError(`invalid receive (size = ${size})`, size);
    if (size > this.maxFrameBytes) {
      throw new InvalidFrameError(`invalid receive (size = ${size} larger than ${this.maxFrameBytes})`, size);
    }
    return size;
  }
}
