// Producer-state snapshot files `<20-digit offset>.snapshot` in Kafka's format
// (ProducerStateManager.readSnapshot/writeSnapshot, ProducerSnapshot.json v1): int16 version (1),
// uint32 CRC-32C of everything after the CRC field, int32 entry count, then 46-byte entries:
// producerId int64, epoch int16, lastSequence int32, lastOffset int64, offsetDelta int32,
// timestamp int64, coordinatorEpoch int32, currentTxnFirstOffset int64. The file name's offset is
// the log end offset the snapshot covers (exclusive).

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { crc32c } from '../protocol/records/crc.js';
import { listDir } from './file-ops.js';
import { asyncLoadIO, type LoadIO } from './load-io.js';

export const PRODUCER_SNAPSHOT_FILE_SUFFIX = '.snapshot';
export const PRODUCER_SNAPSHOT_VERSION = 1;
const CRC_OFFSET = 2;
/** where the CRC-covered bytes start (version + crc) */
const PRODUCER_ENTRIES_OFFSET = 6;
const ENTRY_SIZE = 46;

/** One producer as a snapshot stores it (only the last batch's metadata survives). */
export interface SnapshotEntry {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  /** last offset of the producer's last batch; -1: no batch metadata */
  lastOffset: number;
  /** lastOffset - first offset of that batch (= lastSequence - first sequence) */
  offsetDelta: number;
  timestamp: number;
  coordinatorEpoch: number;
  /** first offset of the open transaction, -1 when none */
  currentTxnFirstOffset: number;
}

export class CorruptSnapshotError extends Error {
  override name = 'CorruptSnapshotError';
}

export function snapshotFileName(offset: number): string {
  return String(offset).padStart(20, '0') + PRODUCER_SNAPSHOT_FILE_SUFFIX;
}

export function snapshotFile(dir: string, offset: number): string {
  return path.join(dir, snapshotFileName(offset));
}

/** Offset of a `<offset>.snapshot` file name, or undefined for other names. */
export function snapshotOffsetOf(name: string): number | undefined {
  if (!name.endsWith(PRODUCER_SNAPSHOT_FILE_SUFFIX)) return undefined;
  const prefix = name.slice(0, -PRODUCER_SNAPSHOT_FILE_SUFFIX.length);
  return /^\d+$/.test(prefix) ? Number(prefix) : undefined;
}

export function encodeSnapshot(entries: readonly SnapshotEntry[]): Buffer {
  const buf = Buffer.alloc(PRODUCER_ENTRIES_OFFSET + 4 + ENTRY_SIZE * entries.length);
  buf.writeInt16BE(PRODUCER_SNAPSHOT_VERSION, 0);
  buf.writeInt32BE(entries.length, PRODUCER_ENTRIES_OFFSET);
  let p = PRODUCER_ENTRIES_OFFSET + 4;
  for (const e of entries) {
    buf.writeBigInt64BE(BigInt(e.producerId), p);
    buf.writeInt16BE(e.producerEpoch, p + 8);
    buf.writeInt32BE(e.lastSequence, p + 10);
    buf.writeBigInt64BE(BigInt(e.lastOffset), p + 14);
    buf.writeInt32BE(e.offsetDelta, p + 22);
    buf.writeBigInt64BE(BigInt(e.timestamp), p + 26);
    buf.writeInt32BE(e.coordinatorEpoch, p + 34);
    buf.writeBigInt64BE(BigInt(e.currentTxnFirstOffset), p + 38);
    p += ENTRY_SIZE;
  }
  buf.writeUInt32BE(crc32c(buf, PRODUCER_ENTRIES_OFFSET, buf.length), CRC_OFFSET);
  return buf;
}

/** One snapshot entry with its int64 fields exact (as DumpLogSegments prints them). */
export interface RawSnapshotEntry {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastOffset: bigint;
  offsetDelta: number;
  timestamp: bigint;
  coordinatorEpoch: number;
  currentTxnFirstOffset: bigint;
}

const schemaError = (detail: string): CorruptSnapshotError =>
  new CorruptSnapshotError(`Snapshot failed schema validation: ${detail}`);

/**
 * Parses a snapshot as ProducerStateManager.readSnapshot does, with its CorruptSnapshotException
 * texts (schema validation of the struct first, then the CRC).
 */
export function decodeSnapshotEntries(buf: Buffer): RawSnapshotEntry[] {
  if (buf.length < 2) throw schemaError('null');
  const version = buf.readInt16BE(0);
  if (version !== PRODUCER_SNAPSHOT_VERSION) throw schemaError(`Snapshot contained an unknown file version ${version}`);
  if (buf.length < PRODUCER_ENTRIES_OFFSET + 4) throw schemaError('null');
  const n = buf.readInt32BE(PRODUCER_ENTRIES_OFFSET);
  if (n < 0) throw schemaError('non-nullable field producerEntries was serialized as null');
  const remaining = buf.length - PRODUCER_ENTRIES_OFFSET - 4;
  if (n > remaining)
    throw schemaError(`Tried to allocate a collection of size ${n}, but there are only ${remaining} bytes remaining.`);
  if (remaining < n * ENTRY_SIZE) throw schemaError('null');
  const stored = buf.readUInt32BE(CRC_OFFSET);
  const computed = crc32c(buf, PRODUCER_ENTRIES_OFFSET, buf.length) >>> 0;
  if (stored !== computed)
    throw new CorruptSnapshotError(
      `Snapshot is corrupt (CRC is no longer valid). Stored crc: ${stored}. Computed crc: ${computed}`,
    );
  const out: RawSnapshotEntry[] = [];
  let p = PRODUCER_ENTRIES_OFFSET + 4;
  for (let i = 0; i < n; i++) {
    out.push({
      producerId: buf.readBigInt64BE(p),
      producerEpoch: buf.readInt16BE(p + 8),
      lastSequence: buf.readInt32BE(p + 10),
      lastOffset: buf.readBigInt64BE(p + 14),
      offsetDelta: buf.readInt32BE(p + 22),
      timestamp: buf.readBigInt64BE(p + 26),
      coordinatorEpoch: buf.readInt32BE(p + 34),
      currentTxnFirstOffset: buf.readBigInt64BE(p + 38),
    });
    p += ENTRY_SIZE;
  }
  return out;
}

/** Parses a snapshot; throws CorruptSnapshotError on a bad version, length or CRC. */
export function decodeSnapshot(buf: Buffer): SnapshotEntry[] {
  return decodeSnapshotEntries(buf).map((e) => ({
    ...e,
    producerId: Number(e.producerId),
    lastOffset: Number(e.lastOffset),
    timestamp: Number(e.timestamp),
    currentTxnFirstOffset: Number(e.currentTxnFirstOffset),
  }));
}

export async function readSnapshotFile(file: string, io: LoadIO = asyncLoadIO): Promise<SnapshotEntry[]> {
  return decodeSnapshot(await io.read(file));
}

/** Writes a snapshot (to a temporary name, fsynced, then renamed into place). */
export async function writeSnapshotFile(file: string, entries: readonly SnapshotEntry[], sync = true): Promise<void> {
  const tmp = `${file}.tmp`;
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(encodeSnapshot(entries));
    if (sync) await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
}

/** Snapshot offsets present in a partition directory (listed now, or its `names` as just listed), ascending. */
export async function listSnapshotOffsets(dir: string, names?: readonly string[]): Promise<number[]> {
  const out: number[] = [];
  for (const n of names ?? (await listDir(dir))) {
    const o = snapshotOffsetOf(n);
    if (o !== undefined) out.push(o);
    else if (n.endsWith(`${PRODUCER_SNAPSHOT_FILE_SUFFIX}.tmp`)) await fsp.rm(path.join(dir, n), { force: true });
  }
  return out.sort((a, b) => a - b);
}
