// Client quota enforcement: with producer_byte_rate=1048576 for client id `raw-test`, one producer
// connection sends 64 KiB Produce requests (acks=1) back to back for 20 s; prints the bytes/s
// acknowledged, its ratio to the quota, and the throttle times seen. Runs on tkafka, then on Apache
// Kafka 4.4.0 (the quota set with kafka-configs' AlterClientQuotas on both), for the figures of
// docs/notes/i18-quotas.md.
//   npm run build && node dist/bench/quota-throttle.bench.js [--seconds 20] [--only tkafka|kafka]
import { performance } from 'node:perf_hooks';
import { startBroker } from '../test/helpers/broker-process.js';
import { startApacheKafka } from '../test/interop/helpers/apache-kafka.js';
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
    `${name}\t${(rate / 1048576).toFixed(3)} MiB/s\t${((rate / QUOTA - 1) * 100).toFixed(1)}% off quota\t` +
      `${requests} requests, ${throttled} throttled, max throttle ${maxThrottle} ms, ${secs.toFixed(1)} s`,
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
