// The `.log` file of a segment (Kafka's FileRecords + FileLogInputStream): batches back to back,
// appended at the end with positional writes, read back as byte ranges, and scanned header by
// header with buffered chunk reads.

import { constants as fsConstants, promises as fsp } from 'node:fs';
import { deleteIfExists, faultsEnabled, injectedFault, renameFile } from './file-ops.js';
import * as L from '../protocol/records/layout.js';
import { CorruptRecordError, HEADER_SIZE_UP_TO_MAGIC } from '../protocol/records/layout.js';
// The header view (StoredBatch) and validity checks of stored batches are the records layer's
// (src/protocol/records/batch-stored.ts); corrupt data is its CorruptRecordError.
import { parseBatchHeader, type StoredBatch as BatchInfo } from '../protocol/records/batch-stored.js';
import type { DeferredBytes } from '../protocol/codec/types.js';

/** The segment file was closed (deleted by retention/cleaning, or the log closed) under a reader. */
export class SegmentClosedError extends Error {
  override name = 'SegmentClosedError';
}

/**
 * FileLogInputStream.nextBatch's rule for the entry at file position `pos` (its first 17 bytes at
 * `head[off..]`) in a file read up to `end`: the entry's total size, or null when fewer than 17 bytes
 * remain or the entry runs past `end`; a length below the minimum record overhead is Kafka's
 * CorruptRecordException, naming `file`.
 */
export function nextBatchSize(head: Buffer, off: number, pos: number, end: number, file: string): number | null {
  if (pos >= end - HEADER_SIZE_UP_TO_MAGIC) return null;
  const length = head.readInt32BE(off + L.BATCH_LENGTH);
  if (length < L.LEGACY_RECORD_OVERHEAD_V0) {
    throw new CorruptRecordError(
      `Found record size ${length} smaller than minimum record overhead (${L.LEGACY_RECORD_OVERHEAD_V0}) in file ${file}.`,
      'INVALID_LENGTH',
    );
  }
  if (pos > end - L.LOG_OVERHEAD - length) return null;
  return L.LOG_OVERHEAD + length;
}

const HEADER_CHUNK = 16 * 1024;
const DATA_CHUNK = 1024 * 1024;

export class FileRecords {
  private _file: string;
  private fh: fsp.FileHandle | null;
  private _size: number;

  private constructor(file: string, fh: fsp.FileHandle, size: number) {
    this._file = file;
    this.fh = fh;
    this._size = size;
  }

  /** Opens (creating if needed) a log file; the size is the current file length. */
  static async open(file: string, create: boolean, readOnly = false): Promise<FileRecords> {
    if (faultsEnabled) {
      const f = injectedFault(file, 'open');
      if (f) throw f.error;
    }
    const mode = readOnly ? fsConstants.O_RDONLY : fsConstants.O_RDWR | (create ? fsConstants.O_CREAT : 0);
    const fh = await fsp.open(file, mode);
    const size = (await fh.stat()).size;
    return new FileRecords(file, fh, size);
  }

  get file(): string {
    return this._file;
  }
  get size(): number {
    return this._size;
  }
  get isOpen(): boolean {
    return this.fh !== null;
  }

  private handle(): fsp.FileHandle {
    if (!this.fh) throw new SegmentClosedError(`log file ${this._file} is closed`);
    return this.fh;
  }

  /**
   * Appends buf at the current end; returns the number of bytes written. All or nothing: a write
   * that fails part-way (ENOSPC, EIO) is cut back to the previous end before the error is thrown, so
   * no torn bytes stay in the file (and the size seen by readers never moved).
   */
  async append(buf: Buffer): Promise<number> {
    const fh = this.handle();
    const start = this._size;
    let limit = buf.length;
    let fault: Error | undefined;
    if (faultsEnabled) {
      const f = injectedFault(this._file, 'write', buf.length);
      if (f) [limit, fault] = [f.allowed, f.error];
    }
    let written = 0;
    try {
      while (written < limit) {
        const r = await fh.write(buf, written, limit - written, start + written);
        if (r.bytesWritten <= 0) throw new Error(`short write of ${this._file} at ${start + written}`);
        written += r.bytesWritten;
      }
      if (fault) throw fault;
    } catch (e) {
      if (written > 0) await fh.truncate(start).catch(() => undefined);
      throw e;
    }
    this._size += buf.length;
    return buf.length;
  }

  /** Cuts the file to its logical size (FileRecords.trim): bytes past it are never part of the log. */
  async trim(): Promise<void> {
    const fh = this.handle();
    if ((await fh.stat()).size > this._size) await fh.truncate(this._size);
  }

  /** Reads [position, position+length) clipped to the file size into one new Buffer. */
  async read(position: number, length: number): Promise<Buffer> {
    const len = Math.max(0, Math.min(length, this._size - position));
    const out = Buffer.allocUnsafe(len);
    await this.readInto(out, 0, len, position);
    return out;
  }

  /**
   * [position, position+length) clipped to the file size, not read now: its bytes are read when the
   * slice is written (Kafka's FileRecords.slice, sent with transferTo). A read after the file was
   * truncated below the range returns fewer bytes; after it was closed, SegmentClosedError.
   */
  slice(position: number, length: number): FileSlice {
    return new FileSlice(this, position, Math.max(0, Math.min(length, this._size - position)));
  }

  /** Reads up to len bytes at position into buf[off..]; returns the bytes read (less only at EOF). */
  async readInto(buf: Buffer, off: number, len: number, position: number): Promise<number> {
    const fh = this.handle();
    let got = 0;
    while (got < len) {
      const r = await fh.read(buf, off + got, len - got, position + got);
      if (r.bytesRead === 0) break;
      got += r.bytesRead;
    }
    return got;
  }

  /**
   * Iterates batches from `start` until `end` (default: size), Kafka's FileLogInputStream rules:
   * stops (without error) when fewer than 18 bytes remain or the next batch is incomplete; throws
   * CorruptRecordError when a length field is smaller than the minimum legacy record overhead.
   * With `withData`, each BatchInfo carries the full batch bytes (a view into a reused chunk).
   */
  async *batches(start = 0, opts: { end?: number; withData?: boolean } = {}): AsyncGenerator<BatchInfo> {
    const end = Math.min(opts.end ?? this._size, this._size);
    const withData = opts.withData ?? false;
    let chunk = Buffer.alloc(0);
    let chunkPos = 0;
    let chunkLen = 0;
    const ensure = async (from: number, to: number): Promise<void> => {
      if (from >= chunkPos && to <= chunkPos + chunkLen) return;
      const want = Math.max(to - from, withData ? DATA_CHUNK : HEADER_CHUNK);
      if (chunk.length < want) chunk = Buffer.allocUnsafe(want);
      chunkPos = from;
      chunkLen = await this.readInto(chunk, 0, Math.min(want, end - from), from);
    };
    let pos = start;
    while (pos < end - HEADER_SIZE_UP_TO_MAGIC) {
      await ensure(pos, Math.min(pos + L.RECORD_BATCH_OVERHEAD, end));
      const off = pos - chunkPos;
      const avail = Math.min(chunkLen - off, end - pos);
      if (avail < HEADER_SIZE_UP_TO_MAGIC + 1) return; // file shrank under us
      if (nextBatchSize(chunk, off, pos, end, this._file) === null) return;
      const info = parseBatchHeader(chunk, off, avail, pos);
      if (withData) {
        await ensure(pos, pos + info.size);
        const o = pos - chunkPos;
        info.data = chunk.subarray(o, o + info.size);
      }
      yield info;
      pos += info.size;
    }
  }

  /** First batch (from startingPosition) whose last offset >= targetOffset (Kafka's searchForOffsetWithSize). */
  async searchForOffsetWithSize(
    targetOffset: number,
    startingPosition: number,
  ): Promise<{ offset: number; position: number; size: number } | undefined> {
    for await (const b of this.batches(startingPosition)) {
      if (b.lastOffset >= targetOffset) return { offset: b.lastOffset, position: b.position, size: b.size };
    }
    return undefined;
  }

  /** Largest batch max timestamp after a position, with the batch's last offset. */
  async largestTimestampAfter(startingPosition: number): Promise<{ timestamp: number; offset: number }> {
    let timestamp = -1;
    let offset = -1;
    for await (const b of this.batches(startingPosition)) {
      if (b.maxTimestamp > timestamp) {
        timestamp = b.maxTimestamp;
        offset = b.lastOffset;
      }
    }
    return { timestamp, offset };
  }

  /** Truncates to targetSize bytes; returns the number of bytes removed. */
  async truncateTo(targetSize: number): Promise<number> {
    const original = this._size;
    if (targetSize > original || targetSize < 0) {
      throw new Error(
        `Attempt to truncate log segment ${this._file} to ${targetSize} bytes failed, size of this log segment is ${original} bytes.`,
      );
    }
    if (faultsEnabled) {
      const f = injectedFault(this._file, 'truncate');
      if (f) throw f.error;
    }
    const actual = (await this.handle().stat()).size;
    if (targetSize < actual) await this.handle().truncate(targetSize);
    this._size = targetSize;
    return original - targetSize;
  }

  async flush(): Promise<void> {
    if (!this.fh) return;
    if (faultsEnabled) {
      const f = injectedFault(this._file, 'fsync');
      if (f) throw f.error;
    }
    await this.fh.sync();
  }

  /** Releases the file handle without trimming (closeHandlers, a failed directory). */
  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    if (fh) await fh.close();
  }

  /** Clean close: trimmed to the logical size, then closed (Kafka's FileRecords.close). */
  async trimAndClose(): Promise<void> {
    if (this.fh) await this.trim();
    await this.close();
  }

  async renameTo(newFile: string): Promise<void> {
    try {
      await renameFile(this._file, newFile, false);
    } finally {
      this._file = newFile;
    }
  }

  async deleteIfExists(): Promise<boolean> {
    await this.close();
    return deleteIfExists(this._file);
  }

  async lastModified(): Promise<number> {
    try {
      return (await fsp.stat(this._file)).mtimeMs;
    } catch {
      return 0;
    }
  }

  updateParentDir(newFile: string): void {
    this._file = newFile;
  }
}

/** A range of a log file whose bytes are read when they are sent (FileRecords.slice). */
export class FileSlice implements DeferredBytes {
  constructor(
    private readonly records: FileRecords,
    readonly position: number,
    readonly length: number,
  ) {}

  readInto(into: Buffer, offset: number, length: number, from: number): Promise<number> {
    const len = Math.max(0, Math.min(length, this.length - from));
    return this.records.readInto(into, offset, len, this.position + from);
  }
}
