// Produce bombs: 200 connections each send one maximal compressed Produce request (just under
// message.max.bytes, 1 MiB) whose batch decompresses to gigabytes (test/helpers/bombs.ts), all at
// once, while a correct producer keeps producing on its own connection. Reports, for tkafka and
// Apache Kafka 4.4.0: the error codes, how long the flood took, the correct producer's records and
// slowest send during it, and the broker's peak RSS (VmHWM of /proc/<pid>/status) before and after.
//   npm run build && nice -n 19 node dist/bench/produce-bomb.bench.js [--codec zstd|gzip|lz4]
//     [--shape trailing|big] [--connections N] [--only tkafka|kafka]
// trailing: one record then zeros the batch does not declare; big: one record of that many zeros
// (on a topic with max.decompressed.message.bytes=1 MiB, so both brokers refuse it).
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startBroker } from '../test/helpers/broker-process.js';
import { startApacheKafka } from '../test/interop/helpers/apache-kafka.js';
import { RawClient } from '../test/helpers/raw-client.js';
import { bigRecordBomb, trailingBomb } from '../test/helpers/bombs.js';
import {
  BOMB_TOPIC,
  createBombTopics,
  GoodProducer,
  LIMITED_TOPIC,
  produceBatch,
  produceOnce,
  vmHwmMiB,
} from '../test/helpers/bomb-scenario.js';
import { CompressionType } from '../src/protocol/records/layout.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CODEC = arg('codec') ?? 'zstd';
const SHAPE = arg('shape') ?? 'trailing';
const CONNECTIONS = Number(arg('connections') ?? 200);
const ONLY = arg('only');
const DEADLINE_MS = 300_000;
const MiB = 1024 * 1024;

/** The largest bomb of the codec under 1 MiB compressed (zeros in whole codec blocks). */
async function bomb(): Promise<Buffer> {
  const codec = { zstd: CompressionType.Zstd, gzip: CompressionType.Gzip, lz4: CompressionType.Lz4 }[CODEC];
  if (codec === undefined) throw new Error(`--codec zstd|gzip|lz4, not ${CODEC}`);
  // compressed bytes per MiB of zeros: zstd 32 (RLE blocks), gzip ~1043 (members), lz4 ~4.2 KiB
  const most = { zstd: 32_000 * MiB, gzip: 960 * MiB, lz4: 230 * MiB }[CODEC]!;
  const zeros = SHAPE === 'big' ? Math.min(most, 2000 * MiB) : most; // a record's size is an int32
  const b = SHAPE === 'big' ? await bigRecordBomb(codec, zeros) : await trailingBomb(codec, zeros);
  if (b.length > 1_048_588 - 200) throw new Error(`bomb of ${b.length} bytes is over message.max.bytes`);
  return b;
}

/** The pid of the JVM whose command line names `configFile`. */
function jvmPid(configFile: string): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.includes('java') && cmd.includes(configFile)) return Number(d);
    } catch {
      // gone
    }
  }
  throw new Error(`no JVM running ${configFile}`);
}

interface Result {
  codes: Map<number, number>;
  floodMs: number;
  goodDuring: number;
  goodSlowestMs: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  bombBytes: number;
}

async function run(port: number, bootstrap: string, pid: number): Promise<Result> {
  await createBombTopics(port);
  const topic = SHAPE === 'big' ? LIMITED_TOPIC : BOMB_TOPIC;
  const batch = await bomb();
  // warm up: the topic's leader known, one bomb answered, the correct producer served
  await produceOnce(port, topic, batch);
  const good = new GoodProducer(bootstrap);
  const start = performance.now();
  while (good.acked < 10 && performance.now() - start < 60_000) await new Promise((r) => setTimeout(r, 50));
  const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => RawClient.connect(port)));
  const rssBeforeMiB = vmHwmMiB(pid);
  const ackedBefore = good.acked;
  good.slowestMs = 0;
  const t0 = performance.now();
  const codes = new Map<number, number>();
  const timer = setTimeout(() => {
    throw new Error(`flood not answered in ${DEADLINE_MS} ms`);
  }, DEADLINE_MS);
  await Promise.all(
    clients.map(async (c) => {
      const code = await produceBatch(c, topic, batch, 120_000).catch(() => -999);
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }),
  );
  clearTimeout(timer);
  const floodMs = performance.now() - t0;
  const goodDuring = good.acked - ackedBefore;
  const goodSlowestMs = good.slowestMs;
  await good.stop();
  for (const c of clients) c.close();
  return {
    codes,
    floodMs,
    goodDuring,
    goodSlowestMs,
    rssBeforeMiB,
    rssPeakMiB: vmHwmMiB(pid),
    bombBytes: batch.length,
  };
}

function report(name: string, r: Result): void {
  const codes = [...r.codes].map(([c, n]) => `${n} x code ${c}`).join(', ');
  console.log(
    `${name.padEnd(12)} ${CONNECTIONS} x ${CODEC} ${SHAPE} bomb (${(r.bombBytes / 1024).toFixed(0)} KiB): ${codes}; ` +
      `flood ${r.floodMs.toFixed(0)} ms; correct producer: ${r.goodDuring} records, slowest ${r.goodSlowestMs.toFixed(0)} ms; ` +
      `VmHWM before ${r.rssBeforeMiB.toFixed(0)} MiB, after ${r.rssPeakMiB.toFixed(0)} MiB`,
  );
}

if (ONLY !== 'kafka') {
  const b = await startBroker();
  try {
    report('tkafka', await run(b.port, b.bootstrap, b.pid()!));
  } finally {
    await b.stop();
    b.cleanup();
  }
}
if (ONLY !== 'tkafka') {
  const k = await startApacheKafka();
  try {
    report('Kafka 4.4.0', await run(k.port, k.bootstrap, jvmPid(k.configFile)));
  } finally {
    await k.cleanup();
  }
}
