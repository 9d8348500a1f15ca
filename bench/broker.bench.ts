// Broker throughput: produce and consume 1,000,000 records of 100 bytes with kcat (librdkafka)
// and kafkajs, acks=1 and acks=all, 1 and 6 partitions; records/s, MB/s and the broker's peak RSS.
//   npm run build && node dist/bench/broker.bench.js [--records N]
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from '../test/helpers/broker-process.js';

const { Kafka, logLevel } = kafkajs;
const argi = process.argv.indexOf('--records');
const N = argi > 0 ? Number(process.argv[argi + 1]) : 1_000_000;
const SIZE = 100;
const MB = (N * SIZE) / 1e6;

function peakRssMiB(b: BrokerProcess): number {
  const status = readFileSync(`/proc/${b.pid()}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

const rows: string[][] = [];
function row(client: string, op: string, acks: string, parts: number, ms: number, rss: number): void {
  const secs = ms / 1000;
  rows.push([client, op, acks, String(parts), (N / secs).toFixed(0), (MB / secs).toFixed(1), rss.toFixed(0)]);
  console.log(rows.at(-1)!.join('\t'));
}

async function createTopic(broker: BrokerProcess, topic: string, partitions: number): Promise<void> {
  const admin = new Kafka({ clientId: 'bench', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }] });
  await admin.disconnect();
}

async function kcatConsume(broker: BrokerProcess, topic: string): Promise<number> {
  const t0 = performance.now();
  const r = await execa(
    'kcat',
    [
      '-C',
      '-b',
      broker.bootstrap,
      '-t',
      topic,
      '-o',
      'beginning',
      '-e',
      '-q',
      '-f',
      '%o\\n',
      '-X',
      'fetch.max.bytes=52428800',
    ],
    { timeout: 600_000, maxBuffer: 1 << 30 },
  );
  const ms = performance.now() - t0;
  const got = r.stdout.split('\n').filter(Boolean).length;
  if (got !== N) throw new Error(`kcat consumed ${got} of ${N}`);
  return ms;
}

async function kafkajsConsume(broker: BrokerProcess, topic: string): Promise<number> {
  const consumer = new Kafka({ clientId: 'bench', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).consumer({
    groupId: `bench-${topic}`,
    maxBytes: 50 * 1024 * 1024,
    maxBytesPerPartition: 10 * 1024 * 1024,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let seen = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kafkajs consumed ${seen} of ${N} in time`)), 600_000);
    void consumer.run({
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        seen += batch.messages.length;
        if (seen >= N) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  const ms = performance.now() - t0;
  await consumer.disconnect();
  return ms;
}

async function main(): Promise<void> {
  // no initial rebalance delay: the kafkajs consume figure measures fetching, not the 3 s join wait
  const broker = await startBroker({
    overrides: { 'log.segment.bytes': 256 * 1024 * 1024, 'group.initial.rebalance.delay.ms': 0 },
  });
  console.log(`${N} records of ${SIZE} bytes (${MB} MB) per run; node ${process.version}`);
  console.log(['client', 'op', 'acks', 'partitions', 'records/s', 'MB/s', 'broker peak RSS MiB'].join('\t'));
  try {
    const value = 'x'.repeat(SIZE);
    const input = Buffer.from(Array.from({ length: N }, () => value).join('\n') + '\n');
    for (const parts of [1, 6]) {
      for (const acks of ['1', 'all']) {
        const topic = `kcat-${parts}-${acks}`;
        await createTopic(broker, topic, parts);
        const t0 = performance.now();
        await execa(
          'kcat',
          [
            '-P',
            '-b',
            broker.bootstrap,
            '-t',
            topic,
            '-X',
            `acks=${acks === 'all' ? -1 : 1}`,
            '-X',
            'linger.ms=5',
            '-X',
            'batch.num.messages=10000',
            '-X',
            'queue.buffering.max.messages=1000000',
          ],
          { input, timeout: 600_000 },
        );
        row('kcat', 'produce', acks, parts, performance.now() - t0, peakRssMiB(broker));
        row('kcat', 'consume', '-', parts, await kcatConsume(broker, topic), peakRssMiB(broker));

        const ktopic = `kafkajs-${parts}-${acks}`;
        await createTopic(broker, ktopic, parts);
        const producer = new Kafka({
          clientId: 'bench',
          brokers: [broker.bootstrap],
          logLevel: logLevel.NOTHING,
        }).producer();
        await producer.connect();
        const batch = 5_000; // one batch per send stays under max.message.bytes (1 MiB)
        const messages = Array.from({ length: batch }, () => ({ value }));
        const k0 = performance.now();
        const inflight: Promise<unknown>[] = [];
        for (let i = 0; i < N; i += batch) {
          inflight.push(producer.send({ topic: ktopic, acks: acks === 'all' ? -1 : 1, messages }));
          if (inflight.length >= 4) await inflight.shift();
        }
        await Promise.all(inflight);
        row('kafkajs', 'produce', acks, parts, performance.now() - k0, peakRssMiB(broker));
        await producer.disconnect();
        row('kafkajs', 'consume', '-', parts, await kafkajsConsume(broker, ktopic), peakRssMiB(broker));
      }
    }
  } finally {
    await broker.stop();
    broker.cleanup();
  }
  console.log(
    '\n| client | op | acks | partitions | records/s | MB/s | broker peak RSS (MiB) |\n|---|---|---|---|---|---|---|',
  );
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
