// Bounded reads of a possibly huge file: a 1 MiB window is refilled as the reader moves on, so a
// 1 GiB segment is dumped with flat memory. A read larger than the window (one big batch) gets a
// buffer of its own, bounded by the file size.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export const WINDOW = 1024 * 1024;

export class ChunkedFile {
  readonly size: number;
  private readonly window: Buffer;
  private windowStart = 0;
  private windowLen = 0;

  private constructor(private readonly fd: number) {
    this.size = fstatSync(fd).size;
    this.window = Buffer.allocUnsafe(Math.max(1, Math.min(WINDOW, this.size)));
  }

  /** Opens a regular file for reading; throws the fs error (ENOENT, EISDIR, EACCES) otherwise. */
  static open(path: string): ChunkedFile {
    const fd = openSync(path, 'r');
    try {
      if (!fstatSync(fd).isFile()) {
        const e = new Error(`EISDIR: illegal operation on a directory, read '${path}'`) as NodeJS.ErrnoException;
        e.code = 'EISDIR';
        throw e;
      }
      return new ChunkedFile(fd);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /**
   * Bytes [pos, pos + len) clipped to the end of the file (the result may be shorter). The buffer
   * may be a view of the window: use it before the next read.
   */
  read(pos: number, len: number): Buffer {
    const end = Math.min(pos + len, this.size);
    if (pos >= end) return Buffer.alloc(0);
    if (pos >= this.windowStart && end <= this.windowStart + this.windowLen) {
      return this.window.subarray(pos - this.windowStart, end - this.windowStart);
    }
    const n = end - pos;
    if (n > this.window.length) return this.readFully(pos, n);
    this.windowStart = pos;
    this.windowLen = this.fill(this.window, pos, Math.min(this.window.length, this.size - pos));
    return this.window.subarray(0, Math.min(n, this.windowLen));
  }

  /** A fresh buffer with bytes [pos, pos + len), clipped to the file. */
  readFully(pos: number, len: number): Buffer {
    const n = Math.max(0, Math.min(len, this.size - pos));
    const b = Buffer.allocUnsafe(n);
    const got = this.fill(b, pos, n);
    return got === n ? b : b.subarray(0, got);
  }

  private fill(b: Buffer, pos: number, n: number): number {
    let got = 0;
    while (got < n) {
      const r = readSync(this.fd, b, got, n - got, pos + got);
      if (r === 0) break;
      got += r;
    }
    return got;
  }

  close(): void {
    closeSync(this.fd);
  }
}
