// Record batch, magic v2: encoding (builders, with compression), control record keys/values and
// transaction marker batches. Import through batch.ts.

import * as L from './layout.js';
import { CompressionType, TimestampType } from './layout.js';
import { compress } from './compression.js';
import {
  writeInt16 as wrI16,
  writeInt32 as wrI32,
  writeInt64 as wrI64,
  zigzag32 as zz32,
  zigzag64 as zz64,
  sizeOfUnsignedVarint as sizeOfUnsigned,
  sizeOfVarint,
  writeUnsignedVarint as wrUnsigned,
} from './layout.js';
import { ControlRecordType, type BuildBatchOptions } from './batch-types.js';
import { writeBatchCrc } from './batch-header.js';

const toBytes = (v: Uint8Array | string | null | undefined): Uint8Array | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? Buffer.from(v, 'utf8') : v;

interface Prepared {
  size: number; // records section size
  write(out: Uint8Array, pos: number): void;
  baseTimestamp: number;
  maxTimestamp: number;
  lastOffsetDelta: number;
}

function prepareRecords(o: BuildBatchOptions): Prepared {
  const now = Date.now();
  const recs = o.records;
  const n = recs.length;
  const baseTimestamp = o.baseTimestamp ?? (n > 0 ? (recs[0]!.timestamp ?? now) : L.NO_TIMESTAMP);
  let maxTimestamp = L.NO_TIMESTAMP;
  let prevDelta = -1;
  let size = 0;
  const plan: {
    body: number;
    ts: number;
    od: number;
    key: Uint8Array | null;
    value: Uint8Array | null;
    hdrs: [Buffer, Uint8Array | null][];
  }[] = [];
  for (let i = 0; i < n; i++) {
    const r = recs[i]!;
    const ts = r.timestamp ?? now;
    const od = r.offsetDelta ?? i;
    if (!Number.isInteger(od) || od <= prevDelta || od > 0x7fffffff)
      throw new RangeError(`offsetDelta ${od} must be increasing and fit an int32`);
    prevDelta = od;
    if (ts > maxTimestamp) maxTimestamp = ts;
    const key = toBytes(r.key);
    const value = toBytes(r.value);
    const hdrs: [Buffer, Uint8Array | null][] = (r.headers ?? []).map((h) => [
      Buffer.from(h.key, 'utf8'),
      toBytes(h.value),
    ]);
    let body = 1 + sizeOfUnsigned(zz64(ts - baseTimestamp)) + sizeOfVarint(od);
    body += key === null ? 1 : sizeOfVarint(key.length) + key.length;
    body += value === null ? 1 : sizeOfVarint(value.length) + value.length;
    body += sizeOfVarint(hdrs.length);
    for (const [hk, hv] of hdrs)
      body += sizeOfVarint(hk.length) + hk.length + (hv === null ? 1 : sizeOfVarint(hv.length) + hv.length);
    size += sizeOfVarint(body) + body;
    plan.push({ body, ts, od, key, value, hdrs });
  }
  if (o.timestampType === TimestampType.LogAppendTime) maxTimestamp = o.logAppendTime ?? now;
  const putBytes = (out: Uint8Array, p: number, v: Uint8Array | null): number => {
    if (v === null) return wrUnsigned(out, p, 1);
    p = wrUnsigned(out, p, zz32(v.length));
    out.set(v, p);
    return p + v.length;
  };
  return {
    size,
    baseTimestamp,
    maxTimestamp,
    lastOffsetDelta: n > 0 ? prevDelta : 0,
    write(out, p) {
      for (const r of plan) {
        p = wrUnsigned(out, p, zz32(r.body));
        out[p++] = 0;
        p = wrUnsigned(out, p, zz64(r.ts - baseTimestamp));
        p = wrUnsigned(out, p, zz32(r.od));
        p = putBytes(out, p, r.key);
        p = putBytes(out, p, r.value);
        p = wrUnsigned(out, p, zz32(r.hdrs.length));
        for (const [hk, hv] of r.hdrs) p = putBytes(out, putBytes(out, p, hk), hv);
      }
    },
  };
}

function writeHeader(out: Buffer, o: BuildBatchOptions, prep: Prepared, count: number): void {
  const compression = o.compression ?? CompressionType.None;
  let attrs = compression & L.COMPRESSION_CODEC_MASK;
  if (o.timestampType === TimestampType.LogAppendTime) attrs |= L.TIMESTAMP_TYPE_MASK;
  if (o.transactional) attrs |= L.TRANSACTIONAL_FLAG_MASK;
  if (o.isControl) attrs |= L.CONTROL_FLAG_MASK;
  if (o.deleteHorizon) attrs |= L.DELETE_HORIZON_FLAG_MASK;
  wrI64(out, L.BASE_OFFSET, o.baseOffset ?? 0);
  wrI32(out, L.BATCH_LENGTH, out.length - L.LOG_OVERHEAD);
  wrI32(out, L.PARTITION_LEADER_EPOCH, o.partitionLeaderEpoch ?? L.NO_PARTITION_LEADER_EPOCH);
  out[L.MAGIC] = L.MAGIC_V2;
  wrI16(out, L.ATTRIBUTES, attrs);
  wrI32(out, L.LAST_OFFSET_DELTA, prep.lastOffsetDelta);
  wrI64(out, L.BASE_TIMESTAMP, prep.baseTimestamp);
  wrI64(out, L.MAX_TIMESTAMP, prep.maxTimestamp);
  out.writeBigInt64BE(BigInt(o.producerId ?? L.NO_PRODUCER_ID), L.PRODUCER_ID);
  wrI16(out, L.PRODUCER_EPOCH, o.producerEpoch ?? L.NO_PRODUCER_EPOCH);
  wrI32(out, L.BASE_SEQUENCE, o.baseSequence ?? L.NO_SEQUENCE);
  wrI32(out, L.RECORDS_COUNT, count);
  writeBatchCrc(out, 0);
}

/** Encodes an uncompressed v2 batch synchronously. */
export function buildRecordBatchSync(o: BuildBatchOptions): Buffer {
  if ((o.compression ?? CompressionType.None) !== CompressionType.None)
    throw new TypeError('buildRecordBatchSync only builds uncompressed batches');
  const prep = prepareRecords(o);
  const out = Buffer.allocUnsafe(L.RECORD_BATCH_OVERHEAD + prep.size);
  prep.write(out, L.RECORD_BATCH_OVERHEAD);
  writeHeader(out, o, prep, o.records.length);
  return out;
}

/** Encodes a v2 batch (compressing the records section if requested) and writes its CRC. */
export async function buildRecordBatch(o: BuildBatchOptions): Promise<Buffer> {
  const compression = o.compression ?? CompressionType.None;
  if (compression === CompressionType.None) return buildRecordBatchSync(o);
  const prep = prepareRecords(o);
  const raw = Buffer.allocUnsafe(prep.size);
  prep.write(raw, 0);
  const packed = await compress(compression, raw, { level: o.compressionLevel, magic: 2 });
  const out = Buffer.allocUnsafe(L.RECORD_BATCH_OVERHEAD + packed.length);
  out.set(packed, L.RECORD_BATCH_OVERHEAD);
  writeHeader(out, o, prep, o.records.length);
  return out;
}

/** Control record key: int16 version, int16 type. */
export function controlRecordKey(type: ControlRecordType | number, version = 0): Buffer {
  const b = Buffer.allocUnsafe(4);
  wrI16(b, 0, version);
  wrI16(b, 2, type);
  return b;
}

/** ABORT/COMMIT marker value: int16 version (0), int32 coordinatorEpoch. */
export function endTxnMarkerValue(coordinatorEpoch: number, version = 0): Buffer {
  const b = Buffer.allocUnsafe(6);
  wrI16(b, 0, version);
  wrI32(b, 2, coordinatorEpoch);
  return b;
}

export interface EndTxnMarkerOptions {
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  producerId: bigint | number;
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
  timestamp?: number;
}

/** A transaction marker batch (MemoryRecords.writeEndTransactionalMarker). */
export function buildEndTxnMarker(o: EndTxnMarkerOptions): Buffer {
  return buildRecordBatchSync({
    baseOffset: o.baseOffset ?? 0,
    partitionLeaderEpoch: o.partitionLeaderEpoch ?? L.NO_PARTITION_LEADER_EPOCH,
    producerId: o.producerId,
    producerEpoch: o.producerEpoch,
    baseSequence: L.NO_SEQUENCE,
    transactional: true,
    isControl: true,
    records: [
      {
        key: controlRecordKey(o.commit ? ControlRecordType.Commit : ControlRecordType.Abort),
        value: endTxnMarkerValue(o.coordinatorEpoch),
        timestamp: o.timestamp ?? Date.now(),
      },
    ],
  });
}
