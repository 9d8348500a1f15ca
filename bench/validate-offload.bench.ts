// Does produce validation pay for a worker thread? (issue 22 item 3) For one batch shape at a time,
// the event loop's own time per batch when it validates the batch itself (validateRecordsForAppend,
// as the produce path does) against when it only hands the batch to a worker_threads worker that
// validates it: a copy into a transferable ArrayBuffer, postMessage, and the reply's handling,
// with 32 batches in flight. The event loop's time is the main thread's CPU time (its
// /proc/self/task/<pid>/stat, so neither the worker's CPU nor time the thread waited for a core on a
// shared machine is counted): the offload pays where the second figure is the smaller.
// Bounded: 1.5 s or 200,000 batches per case.
//   npm run build && node dist/bench/validate-offload.bench.js
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { buildRecordBatch } from '../src/protocol/records/batch.js';
import { CompressionType } from '../src/protocol/records/layout.js';
import { validateRecordsForAppend } from '../src/broker/replication/record-validator.js';
import { BENCH_POLICY } from './append-policy.js';

const policy = BENCH_POLICY;
const MAX_MS = 1500;
const MAX_BATCHES = 200_000;
const IN_FLIGHT = 32;
const TICKS_PER_SEC = 100; // USER_HZ on Linux

/** user + system CPU seconds of this process's main thread (its task id is the pid). */
function mainThreadCpu(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS_PER_SEC;
}

function batchOf(count: number, size: number, compression: CompressionType): Promise<Buffer> {
  const now = Date.now();
  return buildRecordBatch({
    records: Array.from({ length: count }, (_, i) => ({
      key: null,
      value: Buffer.from(Array.from({ length: size }, (_, j) => 65 + ((i * 7 + j * j) % 26))),
      timestamp: now + i,
      headers: [],
    })),
    producerId: -1n,
    producerEpoch: -1,
    baseSequence: -1,
    compression,
  });
}

/** µs of main-thread CPU per batch, validating inline. */
async function inline(batch: Buffer): Promise<number> {
  const now = Date.now();
  for (let i = 0; i < 200; i++) await validateRecordsForAppend(batch, 't-0', policy, now, 'client');
  const cpu0 = mainThreadCpu();
  const start = performance.now();
  let n = 0;
  while (n < MAX_BATCHES && performance.now() - start < MAX_MS) {
    await validateRecordsForAppend(batch, 't-0', policy, now, 'client');
    n++;
  }
  return ((mainThreadCpu() - cpu0) * 1e6) / n;
}

/** µs of main-thread CPU per batch, handing each to the worker (IN_FLIGHT outstanding). */
async function offloaded(worker: Worker, batch: Buffer): Promise<number> {
  const now = Date.now();
  const pending = new Map<number, () => void>();
  worker.on('message', (m: { id: number; error: string | null }) => {
    if (m.error !== null) throw new Error(m.error);
    pending.get(m.id)!();
    pending.delete(m.id);
  });
  let id = 0;
  const send = (): Promise<void> => {
    const bytes = new ArrayBuffer(batch.length);
    new Uint8Array(bytes).set(batch);
    const job = { id: id++, bytes, policy, now };
    return new Promise<void>((resolve) => {
      pending.set(job.id, resolve);
      worker.postMessage(job, [bytes]);
    });
  };
  const run = async (batches: number, deadline: number): Promise<number> => {
    let sent = 0;
    const lane = async (): Promise<void> => {
      while (sent < batches && performance.now() < deadline) {
        sent++;
        await send();
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    return sent;
  };
  await run(200, Infinity);
  const cpu0 = mainThreadCpu();
  const n = await run(MAX_BATCHES, performance.now() + MAX_MS);
  const cpu = mainThreadCpu() - cpu0;
  worker.removeAllListeners('message');
  return (cpu * 1e6) / n;
}

const CASES: [string, number, number, CompressionType][] = [
  ['7 x 100 B, none (the 24-partition franz load)', 7, 100, CompressionType.None],
  ['100 x 100 B, none', 100, 100, CompressionType.None],
  ['16 x 1 KiB, none', 16, 1024, CompressionType.None],
  ['1000 x 100 B, none', 1000, 100, CompressionType.None],
  ['1000 x 100 B, lz4', 1000, 100, CompressionType.Lz4],
  ['1000 x 100 B, zstd', 1000, 100, CompressionType.Zstd],
];

const worker = new Worker(new URL('./validate-offload-worker.js', import.meta.url));
console.log(`${'batch'.padEnd(48)} ${'bytes'.padStart(8)}  inline µs  offloaded µs  (main-thread CPU per batch)`);
for (const [label, count, size, codec] of CASES) {
  const batch = await batchOf(count, size, codec);
  const a = await inline(batch);
  const b = await offloaded(worker, batch);
  console.log(
    `${label.padEnd(48)} ${String(batch.length).padStart(8)}  ${a.toFixed(2).padStart(9)}  ${b.toFixed(2).padStart(12)}`,
  );
}
await worker.terminate();
