// Record-format layer benchmarks: CRC-32C validation (native and JS fallback), v2 batch
// encode/decode, and compress/decompress per codec, over 1 MiB of 1 KiB records.
// Run: npx tsc -p tsconfig.json && node dist/bench/records.bench.js [--quick]
// Each measurement is bounded by an iteration count and a time budget, whichever ends first.

import {
  crc32c,
  crc32cJs,
  crcImplementation,
  buildRecordBatchSync,
  decodeBatchSync,
  validateBatch,
  iterateBatches,
  compress,
  decompress,
  compressionTypeName,
  CompressionType,
  RECORD_BATCH_OVERHEAD,
  ATTRIBUTES,
  type RecordInput,
} from '../src/protocol/records/index.js';

const quick = process.argv.includes('--quick');
const MAX_ITERS = quick ? 20 : 2000;
const BUDGET_MS = quick ? 150 : 1000;
const MiB = 1024 * 1024;

interface Row {
  name: string;
  mbps: number;
  iters: number;
  note: string;
}
const rows: Row[] = [];

async function measure(name: string, bytes: number, fn: () => unknown, note = ''): Promise<void> {
  for (let i = 0; i < 3; i++) await fn(); // warm up
  let iters = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (iters < MAX_ITERS && elapsed < BUDGET_MS) {
    await fn();
    iters++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  rows.push({ name, mbps: (bytes * iters) / MiB / (elapsed / 1000), iters, note });
}

function makeRecords(count: number, valueSize: number): RecordInput[] {
  let seed = 42;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const t0 = 1700000000000;
  return Array.from({ length: count }, (_, i) => {
    let json = `{"id":${i},"user":"user-${next() % 1000}","event":"click","ts":${t0 + i},"tags":[`;
    while (json.length < valueSize - 40) json += `"t${next() % 97}",`;
    json = (json + `"end"],"v":${next()}}`).padEnd(valueSize, ' ').slice(0, valueSize);
    return {
      key: `key-${next() % 10000}`,
      value: Buffer.from(json),
      timestamp: t0 + i,
      headers: [{ key: 'src', value: 'bench' }],
    };
  });
}

const records = makeRecords(1024, 1024);
const batch = buildRecordBatchSync({ baseOffset: 0, records });
const singles = Buffer.concat(records.map((r, i) => buildRecordBatchSync({ baseOffset: i, records: [r] })));
const recordsSection = batch.subarray(RECORD_BATCH_OVERHEAD);

// CRC-32C validation
await measure('crc32c validate: 1 batch of 1024 x 1 KiB', batch.length, () => validateBatch(batch), crcImplementation);
await measure('crc32c (JS fallback): same batch', batch.length, () => crc32cJs(batch, ATTRIBUTES, batch.length));
await measure(
  'crc32c validate: 1024 batches of 1 record',
  singles.length,
  () => {
    for (const _ of iterateBatches(singles, { verifyCrc: true })) {
      /* validate only */
    }
  },
  crcImplementation,
);
await measure('crc32c (JS fallback): 1024 batches', singles.length, () => {
  for (const e of iterateBatches(singles)) crc32cJs(singles, e.position + ATTRIBUTES, e.position + e.sizeInBytes);
});
await measure('crc32c raw 1 MiB (native path)', batch.length, () => crc32c(batch));

// Encode / decode
await measure('encode v2 batch (1024 x 1 KiB, uncompressed)', batch.length, () =>
  buildRecordBatchSync({ baseOffset: 0, records }),
);
await measure('decode v2 batch (CRC + records, views)', batch.length, () => decodeBatchSync(batch));
await measure('decode v2 batch (no CRC)', batch.length, () => decodeBatchSync(batch, 0, { verifyCrc: false }));

// Codecs over the records section (what a batch compresses)
const codecRows: { codec: string; ratio: number }[] = [];
for (const type of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd]) {
  const packed = await compress(type, recordsSection);
  codecRows.push({ codec: compressionTypeName(type), ratio: recordsSection.length / packed.length });
  await measure(
    `${compressionTypeName(type)} compress`,
    recordsSection.length,
    () => compress(type, recordsSection),
    `ratio ${(recordsSection.length / packed.length).toFixed(2)}`,
  );
  await measure(`${compressionTypeName(type)} decompress`, recordsSection.length, () => decompress(type, packed));
}

const w = Math.max(...rows.map((r) => r.name.length));
console.log(
  `node ${process.version}, CRC-32C implementation: ${crcImplementation}, input ${(batch.length / MiB).toFixed(2)} MiB`,
);
console.log(`${'benchmark'.padEnd(w)}  ${'MB/s'.padStart(9)}  ${'iters'.padStart(6)}  note`);
console.log(`${'-'.repeat(w)}  ${'-'.repeat(9)}  ${'-'.repeat(6)}  ----`);
for (const r of rows)
  console.log(`${r.name.padEnd(w)}  ${r.mbps.toFixed(1).padStart(9)}  ${String(r.iters).padStart(6)}  ${r.note}`);
