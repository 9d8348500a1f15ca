// The request path's cost of RequestMetrics (src/broker/metrics): (1) in process, record() and the
// ErrorsPerSec walk of a Produce response per call; (2) end to end, small requests back to back on
// one connection to a real broker (Produce acks=1 of one 100-byte record, then Fetch of it), the
// per-request overhead being what the metrics add. Run it on a build with and without the metrics.
//   npm run build && node dist/bench/request-metrics.bench.js [--requests 20000] [--only e2e]
import { performance } from 'node:perf_hooks';
import { existsSync } from 'node:fs';
import { startBroker } from '../test/helpers/broker-process.js';
import { RawClient } from '../test/helpers/raw-client.js';
import { runTkafka } from '../test/helpers/tool-run.js';
import { ApiKey } from '../src/protocol/frame.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch-build.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const REQUESTS = Number(arg('--requests') ?? 20_000);

async function inProcess(): Promise<void> {
  const modPath = new URL('../src/broker/metrics/request-metrics.js', import.meta.url);
  if (!existsSync(modPath)) {
    console.log('in process: this build has no RequestMetrics');
    return;
  }
  const { RequestMetrics } = (await import(modPath.href)) as typeof import('../src/broker/metrics/request-metrics.js');
  const m = new RequestMetrics();
  const t = { received: 0, started: 0.01, completed: 0.2, sendStart: 0.2, sendEnd: 0.21 };
  const response = {
    responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 1n, recordErrors: [] }] }],
    throttleTimeMs: 0,
  };
  const N = 2_000_000;
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      t.completed = 0.2 + (i & 1023) / 1000;
      m.record(ApiKey.Produce, 9, 180, t, 0, 0, false);
      m.recordErrors(ApiKey.Produce, response);
    }
    const ns = ((performance.now() - t0) * 1e6) / N;
    console.log(`in process: record + recordErrors ${ns.toFixed(0)} ns per request`);
  }
}

async function endToEnd(): Promise<void> {
  const b = await startBroker();
  try {
    const created = await runTkafka('topics', ['--bootstrap-server', b.bootstrap, '--create', '--topic', 'bench']);
    if (created.code !== 0) throw new Error(created.err);
    const c = await RawClient.connect(b.port);
    const records = buildRecordBatchSync({ records: [{ key: null, value: Buffer.alloc(100, 1) }] });
    const produce = () =>
      c.request(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 30_000,
        topicData: [{ name: 'bench', partitionData: [{ index: 0, records }] }],
      });
    // warm-up, then three measured rounds
    for (let i = 0; i < 2000; i++) await produce();
    for (let round = 0; round < 3; round++) {
      const t0 = performance.now();
      for (let i = 0; i < REQUESTS; i++) {
        const r = await produce();
        if (r.responses[0]!.partitionResponses[0]!.errorCode !== 0) throw new Error('produce failed');
      }
      const ms = performance.now() - t0;
      console.log(
        `end to end: ${REQUESTS} Produce requests, ${((ms * 1000) / REQUESTS).toFixed(1)} µs each, ${(REQUESTS / (ms / 1000)).toFixed(0)}/s`,
      );
    }
    c.close();
  } finally {
    await b.stop();
    b.cleanup();
  }
}

if (arg('--only') !== 'e2e') await inProcess();
if (arg('--only') !== 'in-process') await endToEnd();
