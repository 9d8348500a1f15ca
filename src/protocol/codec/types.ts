/** A tagged field the schema does not know: kept on decode, written back on encode. */
export interface TaggedField {
  tag: number;
  data: Buffer;
}

/** The `records` type: a received buffer on decode; on encode also a list of buffers sent as they are. */
export type Records = Buffer | readonly Buffer[] | null;

/**
 * Bytes a response promises but has not read yet: a range of a log file, read in chunks while the
 * response is written to the socket (what Kafka's FileRecords is to its transferTo). Only `records`
 * fields take them, and only in a response the broker's connection writes itself.
 */
export interface DeferredBytes {
  readonly length: number;
  /**
   * Reads `length` bytes starting `from` bytes into the range into `into[offset..]`; returns the
   * bytes read, fewer only when the data is no longer there (the file was truncated).
   */
  readInto(into: Buffer, offset: number, length: number, from: number): Promise<number>;
}

/** One piece of an encoded frame: bytes in memory, or bytes to read when the frame is written. */
export type FramePart = Buffer | DeferredBytes;

/** What an encoder accepts: the decoded shape with every field optional (absent = the schema default). */
export type Input<T> = T extends Buffer
  ? T
  : T extends readonly Buffer[]
    ? T | DeferredBytes
    : T extends bigint | number | string | boolean | null | undefined
      ? T
      : T extends readonly (infer U)[]
        ? Input<U>[]
        : T extends object
          ? { [K in keyof T]?: K extends '_unknownTaggedFields' ? T[K] : Input<T[K]> }
          : T;

export { ZERO_UUID } from '../uuid.js';

/** Deep equality over decoded values, used for `ignorable` checks of struct fields. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    if (ka.length !== kb.length) return false;
    for (const k of ka)
      if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
    return true;
  }
  return false;
}
