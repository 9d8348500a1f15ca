// Produce-path record validation (the leader's LogValidator walk): validateRecordsForAppend over
// v2 batches, 16 records of 1 KiB (a client's default batch.size) and 1000 records of 100 bytes,
// uncompressed and with each codec (in place: the topic keeps the producer's codec), CreateTime, no
// rebuild. Measures batches/s and MB/s (of the batch as received).
//   npm run build && node dist/bench/produce-validate.bench.js
import { performance } from 'node:perf_hooks';
import { buildRecordBatch, buildRecordBatchSync } from '../src/protocol/records/batch.js';
import { CompressionType } from '../src/protocol/records/layout.js';
import { validateRecordsForAppend } from '../src/broker/replication/record-validator.js';
import { BENCH_POLICY } from './append-policy.js';

const policy = BENCH_POLICY;

function recordsOf(count: number, size: number) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    key: `key-${i}`.padEnd(16, '.'),
    // compressible but not trivially (about 4:1 with gzip)
    value: Buffer.from(Array.from({ length: size - 16 }, (_, j) => 97 + ((i * 7 + j * j) % 13))),
    timestamp: now + i,
    headers: i % 4 === 0 ? [{ key: 'h', value: 'x' }] : [],
  }));
}

function compressedBatchOf(count: number, size: number, compression: CompressionType): Promise<Buffer> {
  return buildRecordBatch({
    records: recordsOf(count, size),
    producerId: 1000n,
    producerEpoch: 0,
    baseSequence: 0,
    compression,
  });
}

function batchOf(count: number, size: number): Buffer {
  const value = Buffer.alloc(size - 16, 'v');
  const now = Date.now();
  return buildRecordBatchSync({
    records: Array.from({ length: count }, (_, i) => ({
      key: `key-${i}`.padEnd(16, '.'),
      value,
      timestamp: now + i,
      headers: i % 4 === 0 ? [{ key: 'h', value: 'x' }] : [],
    })),
    producerId: 1000n,
    producerEpoch: 0,
    baseSequence: 0,
  });
}

async function measure(label: string, batch: Buffer): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < 200; i++) await validateRecordsForAppend(batch, 't-0', policy, now, 'client');
  let iters = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let t = start;
  while (t - start < 1500 && iters < 1_000_000) {
    await validateRecordsForAppend(batch, 't-0', policy, now, 'client');
    iters++;
    t = performance.now();
  }
  const secs = (t - start) / 1000;
  // CPU time of the process (every thread: the codecs run on the libuv pool), steadier than
  // wall-clock time on a shared machine
  const cpu = process.cpuUsage(cpu0);
  const cpuUsPerBatch = (cpu.user + cpu.system) / iters;
  console.log(
    `${label.padEnd(52)} ${((batch.length * iters) / secs / 1e6).toFixed(0).padStart(6)} MB/s ${(iters / secs).toFixed(0).padStart(8)} batches/s ${cpuUsPerBatch.toFixed(1).padStart(8)} µs CPU/batch`,
  );
}

await measure('validate 16 x 1 KiB records (uncompressed)', batchOf(16, 1024));
await measure('validate 1000 x 100 B records (uncompressed)', batchOf(1000, 100));
for (const [name, codec] of [
  ['gzip', CompressionType.Gzip],
  ['snappy', CompressionType.Snappy],
  ['lz4', CompressionType.Lz4],
  ['zstd', CompressionType.Zstd],
] as const) {
  await measure(`validate 16 x 1 KiB records (${name})`, await compressedBatchOf(16, 1024, codec));
  await measure(`validate 1000 x 100 B records (${name})`, await compressedBatchOf(1000, 100, codec));
}
