// `.snapshot` producer-state files (ProducerStateManager.readSnapshot) and `.txnindex` aborted
// transaction indexes (TransactionIndex.allAbortedTxns), as DumpLogSegments prints them.
import { CorruptSnapshotError, decodeSnapshotEntries, type RawSnapshotEntry } from '../../storage/producer-snapshot.js';
import { ABORTED_TXN_SIZE, decodeAbortedTxn, type RawAbortedTxn } from '../../storage/txn-index.js';
import type { ChunkedFile } from './chunked-file.js';
import { decrementSequence, javaAbsolutePath, optionalLong } from './java.js';
import { jsonLine, js, type Output } from './output.js';
import { problem } from './reports.js';

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
  let entries: RawSnapshotEntry[];
  try {
    entries = decodeSnapshotEntries(b);
  } catch (e) {
    if (e instanceof CorruptSnapshotError) return corrupt(e.message);
    throw e;
  }
  for (const entry of entries) {
    const { producerId, producerEpoch: epoch, lastSequence, lastOffset, offsetDelta, timestamp } = entry;
    const { coordinatorEpoch, currentTxnFirstOffset: txnFirst } = entry;
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

export async function dumpTxnIndex(out: Output, path: string, f: ChunkedFile): Promise<void> {
  out.startProgress(`Dumping ${path}`);
  for (let p = 0; f.size - p >= ABORTED_TXN_SIZE; p += ABORTED_TXN_SIZE) {
    let e: RawAbortedTxn;
    try {
      e = decodeAbortedTxn(f.read(p, ABORTED_TXN_SIZE), 0, javaAbsolutePath(path));
    } catch (err) {
      return problem(out, path, p, `org.apache.kafka.common.KafkaException: ${(err as Error).message}`);
    }
    const { version, producerId, firstOffset, lastOffset, lastStableOffset: lso } = e;
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
