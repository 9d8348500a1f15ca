// `.snapshot` producer-state files (ProducerStateManager.readSnapshot) and `.txnindex` aborted
// transaction indexes (TransactionIndex.allAbortedTxns), as DumpLogSegments prints them.
import { crc32c } from '../../protocol/records/crc.js';
import type { ChunkedFile } from './chunked-file.js';
import { decrementSequence, javaAbsolutePath, optionalLong } from './java.js';
import { jsonLine, js, type Output } from './output.js';
import { problem } from './reports.js';

const ENTRY = 46;
const ENTRIES_OFFSET = 6;
/** Producer snapshots are read whole, as Kafka does; anything beyond this is not a real snapshot. */
const MAX_SNAPSHOT = 256 * 1024 * 1024;

export async function dumpProducerSnapshot(out: Output, path: string, f: ChunkedFile): Promise<void> {
  if (f.size > MAX_SNAPSHOT) return problem(out, path, null, `${f.size} bytes is too large for a producer snapshot`);
  const b = f.readFully(0, f.size);
  const corrupt = (msg: string): void => {
    // Kafka prints CorruptSnapshotException's message on stderr and carries on (exit status 0).
    if (out.json)
      out.line(
        jsonLine([
          ['type', js('corrupt-snapshot')],
          ['file', js(path)],
          ['reason', js(msg)],
        ]),
      );
    else out.errLine(msg);
  };
  if (b.length < 2) return corrupt('Snapshot failed schema validation: null');
  const version = b.readInt16BE(0);
  if (version !== 1)
    return corrupt(`Snapshot failed schema validation: Snapshot contained an unknown file version ${version}`);
  if (b.length < 10) return corrupt('Snapshot failed schema validation: null');
  const stored = b.readUInt32BE(2);
  const count = b.readInt32BE(6);
  if (count < 0)
    return corrupt('Snapshot failed schema validation: non-nullable field producerEntries was serialized as null');
  const remaining = b.length - 10;
  if (count > remaining) {
    return corrupt(
      `Snapshot failed schema validation: Tried to allocate a collection of size ${count}, but there are only ${remaining} bytes remaining.`,
    );
  }
  if (remaining < count * ENTRY) return corrupt('Snapshot failed schema validation: null');
  const computed = crc32c(b, ENTRIES_OFFSET, b.length) >>> 0;
  if (stored !== computed)
    return corrupt(`Snapshot is corrupt (CRC is no longer valid). Stored crc: ${stored}. Computed crc: ${computed}`);
  for (let i = 0; i < count; i++) {
    const p = 10 + i * ENTRY;
    const producerId = b.readBigInt64BE(p);
    const epoch = b.readInt16BE(p + 8);
    const lastSequence = b.readInt32BE(p + 10);
    const lastOffset = b.readBigInt64BE(p + 14);
    const offsetDelta = b.readInt32BE(p + 22);
    const timestamp = b.readBigInt64BE(p + 26);
    const coordinatorEpoch = b.readInt32BE(p + 34);
    const txnFirst = b.readBigInt64BE(p + 38);
    const current = txnFirst >= 0n ? txnFirst : null;
    const hasBatch = lastOffset >= 0n;
    if (out.json) {
      const pairs: [string, string][] = [
        ['type', js('producer')],
        ['file', js(path)],
        ['producerId', String(producerId)],
        ['producerEpoch', String(epoch)],
        ['coordinatorEpoch', String(coordinatorEpoch)],
        ['currentTxnFirstOffset', current === null ? 'null' : String(current)],
        ['lastTimestamp', String(timestamp)],
      ];
      if (hasBatch) {
        pairs.push(
          ['firstSequence', String(decrementSequence(lastSequence, offsetDelta))],
          ['lastSequence', String(lastSequence)],
          ['lastOffset', String(lastOffset)],
          ['offsetDelta', String(offsetDelta)],
          ['timestamp', String(timestamp)],
        );
      }
      out.line(jsonLine(pairs));
    } else {
      let line = `producerId: ${producerId} producerEpoch: ${epoch} coordinatorEpoch: ${coordinatorEpoch} currentTxnFirstOffset: ${optionalLong(current)} lastTimestamp: ${timestamp} `;
      if (hasBatch) {
        line += `firstSequence: ${decrementSequence(lastSequence, offsetDelta)} lastSequence: ${lastSequence} lastOffset: ${lastOffset} offsetDelta: ${offsetDelta} timestamp: ${timestamp}`;
      }
      out.line(line);
    }
    await out.maybeFlush();
  }
}

const TXN_ENTRY = 34;

export async function dumpTxnIndex(out: Output, path: string, f: ChunkedFile): Promise<void> {
  out.startProgress(`Dumping ${path}`);
  for (let p = 0; f.size - p >= TXN_ENTRY; p += TXN_ENTRY) {
    const b = f.read(p, TXN_ENTRY);
    const version = b.readInt16BE(0);
    if (version > 0) {
      return problem(
        out,
        path,
        p,
        `org.apache.kafka.common.KafkaException: Unexpected aborted transaction version ${version} in transaction index ${javaAbsolutePath(path)}, current version is 0`,
      );
    }
    const producerId = b.readBigInt64BE(2);
    const firstOffset = b.readBigInt64BE(10);
    const lastOffset = b.readBigInt64BE(18);
    const lso = b.readBigInt64BE(26);
    if (out.json) {
      out.line(
        jsonLine([
          ['type', js('aborted-txn')],
          ['file', js(path)],
          ['version', String(version)],
          ['producerId', String(producerId)],
          ['firstOffset', String(firstOffset)],
          ['lastOffset', String(lastOffset)],
          ['lastStableOffset', String(lso)],
        ]),
      );
    } else {
      out.line(
        `version: ${version} producerId: ${producerId} firstOffset: ${firstOffset} lastOffset: ${lastOffset} lastStableOffset: ${lso}`,
      );
    }
    out.progress(p, f.size);
    await out.maybeFlush();
  }
}
