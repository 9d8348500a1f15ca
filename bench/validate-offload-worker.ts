// The worker of bench/validate-offload.bench.ts: validates each batch it is sent with the produce
// path's validateRecordsForAppend and sends the batch back (transferred) with the result's header facts.
import { parentPort } from 'node:worker_threads';
import { validateRecordsForAppend } from '../src/broker/replication/record-validator.js';
import type { AppendPolicy } from '../src/broker/replication/topic-config.js';

interface Job {
  id: number;
  bytes: ArrayBuffer;
  policy: AppendPolicy;
  now: number;
}

parentPort!.on('message', (job: Job) => {
  const records = Buffer.from(job.bytes);
  validateRecordsForAppend(records, 't-0', job.policy, job.now, 'client').then(
    (v) =>
      parentPort!.postMessage({ id: job.id, bytes: job.bytes, count: v?.recordCount ?? 0, error: null }, [job.bytes]),
    (e: Error) => parentPort!.postMessage({ id: job.id, bytes: job.bytes, count: 0, error: e.message }, [job.bytes]),
  );
});
