// `.log` segments and `.checkpoint` snapshots: DumpLogSegments.dumpLog, streamed batch by batch.
// Batch boundaries follow FileLogInputStream exactly (a torn tail or a batch running past the end
// stops the walk and is reported as invalid trailing bytes; a length below 14 is Kafka's
// CorruptRecordException); each batch prints Kafka's line, then, with deep iteration, its records.
import type { ChunkedFile } from './chunked-file.js';
import { controlRecordJson, DecoderFailure, type MessageParser } from './decoders.js';
import { javaAbsolutePath, javaFileName, optionalLong, parseJavaLong } from './java.js';
import type { DumpLogOptions } from './options.js';
import { jsonLine, js, type Output } from './output.js';
import { nextBatch, SegmentError, type BatchRef } from './segment-scan.js';
import {
  COMPRESSION_NAMES,
  RECORD_BATCH_OVERHEAD,
  RecordError,
  compressionOf,
  decompressPayload,
  deleteHorizon,
  isControl,
  isTransactional,
  lastOffsetOf,
  lastSequenceOf,
  legacyInnerRecords,
  legacyRecord,
  readLegacyEntry,
  readV2Header,
  timestampTypeOf,
  v2Checksum,
  v2Records,
  type DumpRecord,
  type V2Header,
} from './records.js';
import { problem, type Reports } from './reports.js';

export interface LogDumpContext {
  out: Output;
  opts: DumpLogOptions;
  parser: MessageParser;
  reports: Reports;
}

const CONTROL_TYPES = [
  'ABORT',
  'COMMIT',
  'LEADER_CHANGE',
  'SNAPSHOT_HEADER',
  'SNAPSHOT_FOOTER',
  'KRAFT_VERSION',
  'KRAFT_VOTERS',
];
const CONTROL_JSON: Record<number, [string, string]> = {
  2: ['LeaderChange:', 'LeaderChangeMessage'], // Kafka 4.4 (4.0 printed `controlType: LEADER_CHANGE(2)`)
  3: ['SnapshotHeader', 'SnapshotHeaderRecord'],
  4: ['SnapshotFooter', 'SnapshotFooterRecord'],
  5: ['KRaftVersion', 'KRaftVersionRecord'],
  6: ['KRaftVoters', 'VotersRecord'],
};
/** Largest batch read into one buffer without deep iteration (the CRC is computed in slices beyond). */
const WHOLE_BATCH_LIMIT = 16 * 1024 * 1024;

/** The header line of a `.log` / `.checkpoint` file, or null when the name cannot be parsed. */
export function logHeaderLine(name: string): { text: string; json: [string, string][] } | { error: string } {
  if (name.endsWith('.log')) {
    const base = name.split('.')[0]!;
    const v = parseJavaLong(base);
    if (v === null) return { error: `java.lang.NumberFormatException: For input string: "${base}"` };
    return { text: `Log starting offset: ${v}`, json: [['baseOffset', String(v)]] };
  }
  if (name === 'bootstrap.checkpoint')
    return { text: 'KRaft bootstrap snapshot', json: [['bootstrapSnapshot', 'true']] };
  const m = /^(.{20})-(.{10})/.exec(name);
  const offset = m ? parseJavaLong(m[1]!) : null;
  const epoch = m ? parseJavaLong(m[2]!) : null;
  if (!m || offset === null || epoch === null || epoch > 2147483647n || epoch < -2147483648n) {
    return { error: `${name} is not a snapshot file name (<20-digit end offset>-<10-digit epoch>.checkpoint)` };
  }
  return {
    text: `Snapshot end offset: ${offset}, epoch: ${epoch}`,
    json: [
      ['snapshotEndOffset', String(offset)],
      ['snapshotEpoch', String(epoch)],
    ],
  };
}

export async function dumpLogFile(ctx: LogDumpContext, path: string, f: ChunkedFile): Promise<void> {
  const { out, opts } = ctx;
  const abs = javaAbsolutePath(path);
  const name = javaFileName(path);
  if (opts.maxBytes < 0)
    return problem(out, path, null, `java.lang.IllegalArgumentException: Invalid size: ${opts.maxBytes}`);
  const end = Math.min(opts.maxBytes, f.size);
  let position = 0;
  let lastOffset = -1n;
  out.startProgress(`Dumping ${path}`);
  for (;;) {
    let b: BatchRef | null;
    try {
      b = nextBatch(f, position, end, path);
    } catch (e) {
      if (!(e instanceof SegmentError)) throw e;
      const tail = zeroTail(f, position);
      problem(
        out,
        path,
        position,
        e.message +
          (tail > 0 ? ` The rest of the file (${tail} bytes) is zero-filled (preallocated or never written).` : ''),
      );
      return;
    }
    if (b === null) break;
    const track = (o: bigint): void => {
      lastOffset = trackOffset(ctx, abs, lastOffset, o);
    };
    const ok =
      b.magic >= 2
        ? await v2Batch(ctx, path, f, position, b.size, track)
        : await legacyBatch(ctx, path, f, position, b.size, track);
    if (!ok) return;
    position += b.size;
    out.progress(position, end);
    await out.maybeFlush();
  }
  const trailing = end - position;
  if (trailing > 0 && opts.maxBytes === 2147483647) {
    if (out.json)
      out.line(
        jsonLine([
          ['type', js('invalid-bytes')],
          ['file', js(path)],
          ['position', String(position)],
          ['bytes', String(trailing)],
        ]),
      );
    else out.line(`Found ${trailing} invalid bytes at the end of ${name}`);
  }
}

/** Bytes from `position` to the end that are all zero (0 if any is not). Bounded chunked scan. */
function zeroTail(f: ChunkedFile, position: number): number {
  for (let p = position; p < f.size; p += 1024 * 1024) {
    const part = f.read(p, 1024 * 1024);
    for (let i = 0; i < part.length; i++) if (part[i] !== 0) return 0;
  }
  return f.size - position;
}

function trackOffset(ctx: LogDumpContext, abs: string, last: bigint, offset: bigint): bigint {
  if (last !== -1n && offset !== last + 1n) ctx.reports.nonConsecutiveOffsets(abs, last, offset);
  return offset;
}

async function v2Batch(
  ctx: LogDumpContext,
  path: string,
  f: ChunkedFile,
  pos: number,
  size: number,
  track: (o: bigint) => void,
): Promise<boolean> {
  const { out, opts } = ctx;
  const headBytes = f.read(pos, RECORD_BATCH_OVERHEAD);
  if (headBytes.length < RECORD_BATCH_OVERHEAD) {
    problem(
      out,
      path,
      pos,
      `java.io.EOFException: Failed to read \`record batch header\` from file channel. Expected to read ${RECORD_BATCH_OVERHEAD} bytes, but reached end of file after reading ${headBytes.length} bytes. Started read from position ${pos}.`,
    );
    return false;
  }
  const h = readV2Header(headBytes);
  const codec = compressionOf(h);
  if (codec >= COMPRESSION_NAMES.length) {
    problem(out, path, pos, `java.lang.IllegalArgumentException: Unknown compression type id: ${codec}`);
    return false;
  }
  const deep = opts.deepIteration && h.count !== 0;
  const whole = size <= WHOLE_BATCH_LIMIT || deep ? f.read(pos, size) : null;
  const computed =
    size < RECORD_BATCH_OVERHEAD
      ? -1
      : whole
        ? v2Checksum((p, l) => whole.subarray(p - pos, p - pos + l), pos, size)
        : v2Checksum((p, l) => f.read(p, l), pos, size);
  const valid = size >= RECORD_BATCH_OVERHEAD && computed === h.crc;
  printV2Batch(out, path, pos, size, h, valid);
  if (!deep) return true;
  const batch = whole!;
  let data = batch;
  let start = RECORD_BATCH_OVERHEAD;
  if (codec !== 0) {
    try {
      data = await decompressPayload(codec, batch.subarray(RECORD_BATCH_OVERHEAD, size), 2);
      start = 0;
    } catch (e) {
      problem(out, path, pos, `${COMPRESSION_NAMES[codec]} batch could not be decompressed: ${(e as Error).message}`);
      return true;
    }
  }
  try {
    for (const r of v2Records(h, data, start, codec !== 0 ? data.length : size)) {
      track(r.offset);
      printRecord(ctx, path, pos, r, timestampTypeOf(h), 2, isControl(h));
    }
  } catch (e) {
    if (!(e instanceof RecordError) && !(e instanceof DecoderFailure)) throw e;
    problem(
      out,
      path,
      pos,
      e instanceof RecordError ? `org.apache.kafka.common.InvalidRecordException: ${e.message}` : e.message,
    );
  }
  return true;
}

function printV2Batch(out: Output, path: string, pos: number, size: number, h: V2Header, valid: boolean): void {
  const tsType = timestampTypeOf(h);
  if (out.json) {
    out.line(
      jsonLine([
        ['type', js('batch')],
        ['file', js(path)],
        ['position', String(pos)],
        ['baseOffset', String(h.baseOffset)],
        ['lastOffset', String(lastOffsetOf(h))],
        ['count', String(h.count)],
        ['baseSequence', String(h.baseSequence)],
        ['lastSequence', String(lastSequenceOf(h))],
        ['producerId', String(h.producerId)],
        ['producerEpoch', String(h.producerEpoch)],
        ['partitionLeaderEpoch', String(h.partitionLeaderEpoch)],
        ['isTransactional', String(isTransactional(h))],
        ['isControl', String(isControl(h))],
        ['deleteHorizonMs', deleteHorizon(h)?.toString() ?? 'null'],
        ['timestampType', js(tsType)],
        ['maxTimestamp', String(h.maxTimestamp)],
        ['size', String(size)],
        ['magic', String(h.magic)],
        ['compression', js(COMPRESSION_NAMES[compressionOf(h)]!)],
        ['crc', String(h.crc)],
        ['isValid', String(valid)],
      ]),
    );
    return;
  }
  out.line(
    `baseOffset: ${h.baseOffset} lastOffset: ${lastOffsetOf(h)} count: ${h.count} baseSequence: ${h.baseSequence} lastSequence: ${lastSequenceOf(h)}` +
      ` producerId: ${h.producerId} producerEpoch: ${h.producerEpoch} partitionLeaderEpoch: ${h.partitionLeaderEpoch} isTransactional: ${isTransactional(h)}` +
      ` isControl: ${isControl(h)} deleteHorizonMs: ${optionalLong(deleteHorizon(h))} position: ${pos} ${tsType}: ${h.maxTimestamp} size: ${size}` +
      ` magic: ${h.magic} compresscodec: ${COMPRESSION_NAMES[compressionOf(h)]} crc: ${h.crc} isvalid: ${valid}`,
  );
}

async function legacyBatch(
  ctx: LogDumpContext,
  path: string,
  f: ChunkedFile,
  pos: number,
  size: number,
  track: (o: bigint) => void,
): Promise<boolean> {
  const { out, opts } = ctx;
  const buf = f.read(pos, size);
  let e;
  try {
    e = readLegacyEntry(buf, 0, buf.length);
  } catch (err) {
    if (!(err instanceof RecordError)) throw err;
    problem(out, path, pos, `org.apache.kafka.common.errors.CorruptRecordException: ${err.message}`);
    return false;
  }
  const codec = e.attributes & 0x07;
  if (codec >= COMPRESSION_NAMES.length) {
    problem(out, path, pos, `java.lang.IllegalArgumentException: Unknown compression type id: ${codec}`);
    return false;
  }
  const tsType = e.magic === 0 ? 'NoTimestampType' : (e.attributes & 0x08) !== 0 ? 'LogAppendTime' : 'CreateTime';
  if (out.json) {
    out.line(
      jsonLine([
        ['type', js('batch')],
        ['file', js(path)],
        ['position', String(pos)],
        ['offset', String(e.offset)],
        ['timestampType', js(tsType)],
        ['maxTimestamp', String(e.timestamp)],
        ['size', String(size)],
        ['magic', String(e.magic)],
        ['compression', js(COMPRESSION_NAMES[codec]!)],
        ['crc', String(e.crc)],
        ['isValid', String(e.isValid)],
      ]),
    );
  } else {
    out.line(
      `offset: ${e.offset} position: ${pos} ${tsType}: ${e.timestamp} size: ${size} magic: ${e.magic} compresscodec: ${COMPRESSION_NAMES[codec]} crc: ${e.crc} isvalid: ${e.isValid}`,
    );
  }
  if (!opts.deepIteration) return true;
  let records: DumpRecord[];
  let data: Buffer | null = null;
  if (codec !== 0 && e.value !== null) {
    try {
      data = await decompressPayload(codec, e.value, e.magic);
    } catch (err) {
      problem(out, path, pos, `${COMPRESSION_NAMES[codec]} batch could not be decompressed: ${(err as Error).message}`);
      return true;
    }
  }
  try {
    if (codec === 0) records = [legacyRecord(e)];
    else {
      if (data === null) throw new RecordError('Found invalid compressed record set with null value');
      records = legacyInnerRecords(e, data);
    }
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    problem(out, path, pos, `org.apache.kafka.common.InvalidRecordException: ${err.message}`);
    return true;
  }
  try {
    for (const r of records) {
      track(r.offset);
      printRecord(ctx, path, pos, r, tsType, e.magic, false);
    }
  } catch (err) {
    if (!(err instanceof DecoderFailure)) throw err;
    problem(out, path, pos, err.message);
  }
  return true;
}

/** One `| offset: ...` line (or a JSON record event). */
function printRecord(
  ctx: LogDumpContext,
  path: string,
  pos: number,
  r: DumpRecord,
  tsType: string,
  magic: number,
  control: boolean,
): void {
  const { out, opts } = ctx;
  let meta = '';
  let controlJson: string | null = null;
  let failure: Error | null = null;
  if (!opts.skipRecordMetadata || out.json) {
    meta = `offset: ${r.offset} ${tsType}: ${r.timestamp} keySize: ${r.key ? r.key.length : -1} valueSize: ${r.value ? r.value.length : -1}`;
    if (magic >= 2) meta += ` sequence: ${r.sequence} headerKeys: [${r.headers.map((x) => x.key).join(',')}]`;
    if (r.legacy) meta += ` isValid: ${r.legacy.isValid} crc: ${r.legacy.crc}`; // Kafka 4.0 printed a stray "}" after the crc
    if (control) {
      try {
        const c = controlDetails(r);
        meta += c.text;
        controlJson = c.json;
      } catch (e) {
        failure = e as Error;
      }
    }
  }
  let key: string | undefined;
  let payload: string | undefined;
  let keyIsJson = false;
  let payloadIsJson = false;
  if (opts.printDataLog && !control && !failure) {
    try {
      ({
        key,
        payload,
        keyIsJson = false,
        payloadIsJson = false,
      } = ctx.parser({ offset: r.offset, key: r.key, value: r.value }));
    } catch (e) {
      if (!(e instanceof DecoderFailure)) throw e;
      failure = e;
    }
  }
  if (out.json) {
    const pairs: [string, string][] = [
      ['type', js('record')],
      ['file', js(path)],
      ['batchPosition', String(pos)],
      ['offset', String(r.offset)],
      ['timestampType', js(tsType)],
      ['timestamp', String(r.timestamp)],
      ['keySize', String(r.key ? r.key.length : -1)],
      ['valueSize', String(r.value ? r.value.length : -1)],
    ];
    if (magic >= 2) {
      pairs.push(['sequence', String(r.sequence)]);
      pairs.push([
        'headers',
        `[${r.headers
          .map((x) =>
            jsonLine([
              ['key', js(x.key)],
              ['value', x.value === null ? 'null' : js(x.value.toString('utf8'))],
            ]),
          )
          .join(',')}]`,
      ]);
    }
    if (r.legacy) pairs.push(['isValid', String(r.legacy.isValid)], ['crc', String(r.legacy.crc)]);
    if (controlJson !== null) pairs.push(['control', controlJson]);
    if (key !== undefined) pairs.push(['key', keyIsJson ? key : js(key)]);
    if (payload !== undefined) pairs.push(['payload', payloadIsJson ? payload : js(payload)]);
    out.line(jsonLine(pairs));
  } else {
    let line = '';
    let prefix = '| ';
    if (!opts.skipRecordMetadata) {
      line += prefix + meta;
      prefix = ' ';
    }
    if (key !== undefined) {
      line += `${prefix}key: ${key}`;
      prefix = ' ';
    }
    // Kafka 4.4: the payload takes the "| " prefix too when it comes first (no metadata, no key).
    if (payload !== undefined) line += `${prefix}payload: ${payload}`;
    out.line(line);
  }
  if (failure)
    throw failure instanceof DecoderFailure
      ? failure
      : new DecoderFailure(`org.apache.kafka.common.InvalidRecordException: ${failure.message}`);
}

/** The control-record part of a record line: endTxnMarker, KRaft control JSON, or `controlType: X(n)`. */
function controlDetails(r: DumpRecord): { text: string; json: string } {
  const key = r.key;
  if (key === null) throw new Error('java.lang.NullPointerException: control record without a key');
  if (key.length < 4)
    throw new Error(
      `Invalid value size found for end control record key. Must have at least 4 bytes, but found only ${key.length}`,
    );
  const version = key.readInt16BE(0);
  if (version < 0)
    throw new Error(`Invalid version found for control record: ${version}. May indicate data corruption`);
  const type = key.readInt16BE(2);
  const name = CONTROL_TYPES[type] ?? 'UNKNOWN';
  if (type === 0 || type === 1) {
    const v = r.value;
    if (v === null || v.length < 6)
      throw new Error(
        `Invalid value size found for end transaction marker. Must have at least 6 bytes, but found only ${v ? v.length : 0}`,
      );
    if (v.readInt16BE(0) < 0)
      throw new Error(
        `Invalid version found for end transaction marker: ${v.readInt16BE(0)}. May indicate data corruption`,
      );
    const epoch = v.readInt32BE(2);
    return {
      text: ` endTxnMarker: ${name} coordinatorEpoch: ${epoch}`,
      json: jsonLine([
        ['type', js(name)],
        ['coordinatorEpoch', String(epoch)],
      ]),
    };
  }
  const kraft = CONTROL_JSON[type];
  if (kraft) {
    const json = controlRecordJson(kraft[1], r.value);
    return {
      text: ` ${kraft[0]} ${json}`,
      json: jsonLine([
        ['type', js(name)],
        ['data', json],
      ]),
    };
  }
  return {
    text: ` controlType: ${name}(${type})`,
    json: jsonLine([
      ['type', js(name)],
      ['id', String(type)],
    ]),
  };
}
