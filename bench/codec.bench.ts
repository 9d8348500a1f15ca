// Produce request decode + CRC-32C validation, and request encode, over 1 MiB of 1 KiB records.
//   npm run build && node dist/bench/codec.bench.js
import { performance } from 'node:perf_hooks';
import { decodeRequest, encodeRequest } from '../src/protocol/frame.js';
import type { ProduceRequest } from '../src/protocol/generated/protocol/Produce.js';
import { buildRecordBatchSync, iterateBatches } from '../src/protocol/records/batch.js';
import { crcImplementation } from '../src/protocol/records/crc.js';

const RECORD = 1024;
const TOTAL = 1 << 20;
const PER_BATCH = 16; // 16 KiB batches, like a client's default batch.size

function makeRecords(): Buffer[] {
  const batches: Buffer[] = [];
  const value = Buffer.alloc(RECORD - 16, 'x');
  for (let n = 0; n < TOTAL / RECORD; n += PER_BATCH) {
    batches.push(
      buildRecordBatchSync({
        records: Array.from({ length: PER_BATCH }, (_, i) => ({
          key: `key-${n + i}`.padEnd(16, '.'),
          value,
          timestamp: 1700000000000 + i,
        })),
      }),
    );
  }
  return batches;
}

function measure(label: string, bytes: number, fn: () => void): void {
  for (let i = 0; i < 20; i++) fn(); // warm up
  let iters = 0;
  const start = performance.now();
  let now = start;
  while (now - start < 1500 && iters < 100_000) {
    fn();
    iters++;
    now = performance.now();
  }
  const secs = (now - start) / 1000;
  console.log(
    `${label.padEnd(58)} ${((bytes * iters) / secs / 1e6).toFixed(0).padStart(7)} MB/s  (${iters} iterations)`,
  );
}

const batches = makeRecords();
const records = Buffer.concat(batches);
// one partition holding 1 MiB of records
const parts = 1;
const body = {
  transactionalId: null,
  acks: -1,
  timeoutMs: 30000,
  topicData: [{ name: 'bench', partitionData: Array.from({ length: parts }, (_, i) => ({ index: i, records })) }],
};
const frame = Buffer.concat(encodeRequest(0, 9, 1, 'bench', body)).subarray(4);
const payload = records.length * parts;

console.log(
  `CRC-32C implementation: ${crcImplementation}; ${payload / (1 << 20)} MiB of ${RECORD}-byte records per request`,
);
measure('Produce v9 request decode (records stay slices)', payload, () => {
  decodeRequest(frame);
});
measure('Produce v9 request decode + CRC-32C validation of every batch', payload, () => {
  const req = decodeRequest(frame).body as ProduceRequest;
  for (const t of req.topicData)
    for (const p of t.partitionData) for (const _ of iterateBatches(p.records as Buffer, { verifyCrc: true }));
});
measure('Produce v9 request encode (records by reference)', payload, () => {
  encodeRequest(0, 9, 1, 'bench', body);
});
const recs = Array.from({ length: PER_BATCH }, (_, i) => ({
  key: `key-${i}`.padEnd(16, '.'),
  value: Buffer.alloc(RECORD - 16, 'y'),
  timestamp: 1700000000000 + i,
}));
measure('record batch v2 encode (16 x 1 KiB records, uncompressed)', PER_BATCH * RECORD, () => {
  buildRecordBatchSync({ records: recs });
});
