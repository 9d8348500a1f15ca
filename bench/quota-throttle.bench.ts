// Client quota enforcement: with producer_byte_rate=1048576 for client id `raw-test`, one producer
// connection sends 64 KiB Produce requests (acks=1) back to back for 20 s; prints the bytes/s
// acknowledged, its ratio to the quota, and the throttle times seen. Runs on tkafka, then on Apache
// Kafka 4.4.0 (the quota set with kafka-configs' AlterClientQuotas on both), for the figures of
// docs/notes/i18-quotas.md.
//   npm run build && node dist/bench/quota-throttle.bench.js [--seconds 20] [--only tkafka|kafka]
import { performance } from 'node:perf_hooks';
import { startBroker } from '../test/helpers/broker-process.js';
import { runKafkaTool, startApacheKafka } from '../test/interop/helpers/apache-kafka.js';
import { RawClient } from '../test/helpers/raw-client.js';
import { runTkafka } from '../test/helpers/tool-run.js';
import { waitFor } from '../test/helpers/wait-for.js';
import { ApiKey } from '../src/protocol/frame.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch-build.js';

const QUOTA = 1048576;
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const SECONDS = Number(arg('--seconds') ?? 20);
const only = arg('--only');

async function run(name: string, bootstrap: string, port: number): Promise<void> {
  const tool = (args: string[]): ReturnType<typeof runTkafka> =>
    runTkafka(args[0]!, ['--bootstrap-server', bootstrap, ...args.slice(1)]);
  const created = await tool(['topics', '--create', '--topic', 'bench']);
  if (created.code !== 0) throw new Error(created.err);
  const set = await tool([
    'configs',
    '--alter',
    '--entity-type',
    'clients',
    '--entity-name',
    'raw-test',
    '--add-config',
    `producer_byte_rate=${QUOTA}`,
  ]);
  if (set.code !== 0) throw new Error(set.err);
  const records = buildRecordBatchSync({ records: [{ key: null, value: Buffer.alloc(64 * 1024, 1) }] });
  const c = await RawClient.connect(port);
  const produce = (): Promise<{ throttle: number; error: number }> =>
    c
      .request(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 30_000,
        topicData: [{ name: 'bench', partitionData: [{ index: 0, records }] }],
      })
      .then((r) => ({ throttle: r.throttleTimeMs, error: r.responses[0]!.partitionResponses[0]!.errorCode }));
  // the quota is applied by the broker's metadata listener: produce until it bites (bounded), then
  // measure the steady state
  await waitFor(async () => (await produce()).throttle > 0, {
    what: `${name} throttling`,
    timeoutMs: 60_000,
    intervalMs: 1,
  });
  let bytes = 0;
  let throttled = 0;
  let maxThrottle = 0;
  let requests = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < SECONDS * 1000 && requests < 100_000) {
    const r = await produce();
    requests++;
    if (r.error !== 0) throw new Error(`produce error ${r.error}`);
    bytes += records.length;
    if (r.throttle > 0) throttled++;
    maxThrottle = Math.max(maxThrottle, r.throttle);
  }
  const secs = (performance.now() - t0) / 1000;
  const rate = bytes / secs;
  c.close();
  console.log(
    `${name}\traw\t${(rate / 1048576).toFixed(3)} MiB/s\t${((rate / QUOTA - 1) * 100).toFixed(1)}% off quota\t` +
      `${requests} requests, ${throttled} throttled, max throttle ${maxThrottle} ms, ${secs.toFixed(1)} s`,
  );

  // Kafka's Java producer (honours throttle_time_ms, 5 requests in flight) as fast as it can, client
  // id `perf` under the same quota, for 2 × SECONDS: the first half takes the burst the 11-sample
  // window allows a new client; the figure is the second half (ProducerPerformance's 5 s windows)
  const perf = await tool([
    'configs',
    '--alter',
    '--entity-type',
    'clients',
    '--entity-name',
    'perf',
    '--add-config',
    `producer_byte_rate=${QUOTA}`,
  ]);
  if (perf.code !== 0) throw new Error(perf.err);
  const recordSize = 1000;
  const n = Math.round((2 * SECONDS * QUOTA) / recordSize);
  const r = await runKafkaTool(
    'org.apache.kafka.tools.ProducerPerformance',
    [
      '--topic',
      'bench',
      '--num-records',
      String(n),
      '--record-size',
      String(recordSize),
      '--throughput',
      '-1',
      '--producer-props',
      `bootstrap.servers=${bootstrap}`,
      'client.id=perf',
      'acks=1',
    ],
    { timeoutMs: 20 * SECONDS * 1000 },
  );
  const lines = r.stdout.trim().split('\n');
  const mb = (l: string): number => Number(/\(([\d.]+) MB\/sec\)/.exec(l)?.[1] ?? NaN);
  const windows = lines.filter((l) => / ms max latency\.$/.test(l)).map(mb);
  const skip = Math.floor(SECONDS / 5);
  const steady = windows.slice(skip);
  const steadyRate = (steady.reduce((a, b) => a + b, 0) / steady.length) * 1048576;
  const overall = mb(lines.at(-1) ?? '') * 1048576;
  console.log(
    `${name}\tjava\t${(steadyRate / 1048576).toFixed(3)} MiB/s\t${((steadyRate / QUOTA - 1) * 100).toFixed(1)}% off quota\t` +
      `after ${SECONDS} s (${steady.length} windows of 5 s: ${steady.join(', ')} MiB/s); from cold: ${(overall / 1048576).toFixed(3)} MiB/s over ${n} records`,
  );
}

console.log(`producer_byte_rate=${QUOTA}, ${SECONDS} s, 64 KiB requests, one connection`);
if (only !== 'kafka') {
  const b = await startBroker();
  try {
    await run('tkafka', b.bootstrap, b.port);
  } finally {
    await b.stop();
    b.cleanup();
  }
}
if (only !== 'tkafka') {
  const k = await startApacheKafka();
  try {
    await run('kafka-4.4.0', k.bootstrap, k.port);
  } finally {
    await k.cleanup();
  }
}
