// Bits of Java/Scala behaviour that show in DumpLogSegments' output: java.io.File path text, the
// iteration order of Scala's mutable.HashMap / HashSet (reports and transaction partitions are
// printed in that order), OptionalLong.toString, and 32-bit sequence arithmetic.
import * as path from 'node:path';

/** java.lang.String.hashCode over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** java.io.File's normalized path text: repeated separators collapsed, no trailing separator. */
export function javaFilePath(p: string): string {
  let s = p.replace(/\/{2,}/g, '/');
  if (s.length > 1 && s.endsWith('/')) s = s.slice(0, -1);
  return s;
}

/** File.getAbsolutePath: the path resolved against the working directory, without normalizing `..`. */
export function javaAbsolutePath(p: string, cwd = process.cwd()): string {
  const s = javaFilePath(p);
  if (s.startsWith('/')) return s;
  return s === '' ? cwd : `${cwd.endsWith('/') ? cwd.slice(0, -1) : cwd}/${s}`;
}

/** File.getName. */
export function javaFileName(p: string): string {
  const s = javaFilePath(p);
  const i = s.lastIndexOf('/');
  return i < 0 ? s : s.slice(i + 1);
}

/** File.getAbsoluteFile.getParent. */
export function javaAbsoluteParent(p: string): string {
  const abs = javaAbsolutePath(p);
  const i = abs.lastIndexOf('/');
  return i <= 0 ? '/' : abs.slice(0, i);
}

export const siblingPath = (p: string, name: string): string => path.join(javaAbsoluteParent(p), name);

export function optionalLong(v: bigint | number | null): string {
  return v === null ? 'OptionalLong.empty' : `OptionalLong[${v}]`;
}

const INT_MAX = 2147483647;

/** DefaultRecordBatch.incrementSequence. */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT_MAX - increment) return increment - (INT_MAX - sequence) - 1;
  return sequence + increment;
}

/** DefaultRecordBatch.decrementSequence (int arithmetic). */
export function decrementSequence(sequence: number, decrement: number): number {
  if (sequence < decrement) return (INT_MAX - (decrement - sequence) + 1) | 0;
  return (sequence - decrement) | 0;
}

/** Parses a decimal long as Java's Long.parseLong (optional sign, ASCII digits, 64-bit range). */
export function parseJavaLong(s: string): bigint | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const v = BigInt(s);
  return v < -(2n ** 63n) || v >= 2n ** 63n ? null : v;
}

/**
 * Iteration order of a Scala 2.13 mutable.HashMap/HashSet whose keys were added in `inserts`
 * order (repeats allowed: a put of an existing key can still grow the table). Buckets are
 * visited in index order; within a bucket nodes are kept sorted by (improved) hash.
 */
export function scalaHashOrder<K>(inserts: readonly K[], hash: (k: K) => number, initialCapacity = 16): K[] {
  let tableLength = initialCapacity;
  const seen = new Map<K, number>();
  for (const k of inserts) {
    if (seen.size + 1 >= Math.floor(tableLength * 0.75)) tableLength *= 2;
    if (!seen.has(k)) {
      const h = hash(k);
      seen.set(k, h ^ (h >>> 16));
    }
  }
  const keys = [...seen.keys()];
  return orderByTable(keys, (k) => seen.get(k)!, tableLength);
}

/** Sort keys by bucket index, then by improved hash (signed), as Scala's mutable hash tables iterate. */
export function orderByTable<K>(keys: readonly K[], improved: (k: K) => number, tableLength: number): K[] {
  return [...keys].sort((a, b) => {
    const ha = improved(a);
    const hb = improved(b);
    const ia = ha & (tableLength - 1);
    const ib = hb & (tableLength - 1);
    return ia !== ib ? ia - ib : ha - hb;
  });
}
