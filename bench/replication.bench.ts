// Replication cost: acks=all produce throughput with replication factor 3 next to replication factor 1,
// on a local cluster of one controller and three brokers, tkafka and Apache Kafka 4.4.0 side by side on
// this machine. The load is Kafka's own ProducerPerformance (kafka-producer-perf-test.sh) from the
// 4.4.0 jars, the same client for both; topics of 6 partitions, min.insync.replicas=2 for RF 3.
// Rounds alternate the implementations; the table gives every round and the median.
//   npm run build && node dist/bench/replication.bench.js [--records N] [--rounds R] [--only tkafka|kafka]
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { startCluster, tkafkaLauncher, type Cluster, type NodeLauncher } from '../test/helpers/cluster.js';
import { REPO_ROOT } from '../test/helpers/spec-models.js';
import { kafkaLibDir } from '../test/interop/helpers/apache-kafka.js';
import { kafkaLauncher, shape } from '../test/interop/helpers/kafka-cluster.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const N = Number(arg('--records', '1000000'));
const ROUNDS = Number(arg('--rounds', '3'));
const ONLY = arg('--only', '');
const SIZE = 100;
const PARTITIONS = 6;

interface Figure {
  impl: string;
  rf: number;
  round: number;
  recsPerSec: number;
  p99Ms: number;
  brokerRssMiB: number;
}

/** Peak RSS (VmHWM) of a process, in MiB. */
function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function createTopic(cluster: Cluster, topic: string, rf: number): Promise<void> {
  const r = await execa(
    'node',
    [
      'bin/tkafka',
      'topics',
      '--bootstrap-server',
      cluster.bootstrap(),
      '--create',
      '--topic',
      topic,
      '--partitions',
      String(PARTITIONS),
      '--replication-factor',
      String(rf),
      '--config',
      `min.insync.replicas=${Math.min(rf, 2)}`,
    ],
    { cwd: REPO_ROOT, reject: false, timeout: 60_000 },
  );
  if (r.exitCode !== 0) throw new Error(`topics --create ${topic}: ${r.stderr}`);
}

/** Kafka's ProducerPerformance with full JIT (not the tools' fast-start flags): records/s and p99. */
async function producerPerf(cluster: Cluster, topic: string): Promise<{ recsPerSec: number; p99Ms: number }> {
  const r = await execa(
    'java',
    [
      '-Xmx1g',
      '-cp',
      `${kafkaLibDir()}/*`,
      'org.apache.kafka.tools.ProducerPerformance',
      '--topic',
      topic,
      '--num-records',
      String(N),
      '--record-size',
      String(SIZE),
      '--throughput',
      '-1',
      '--producer-props',
      `bootstrap.servers=${cluster.bootstrap()}`,
      'acks=all',
      'linger.ms=5',
      'batch.size=65536',
    ],
    { reject: false, timeout: 900_000 },
  );
  // "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, p50 ms 50th, p95 ms 95th, p99 ms 99th, ..."
  const last = /(\d+) records sent, ([\d.]+) records\/sec .* ([\d.]+) ms 99th/.exec(String(r.stdout));
  if (r.exitCode !== 0 || !last) throw new Error(`ProducerPerformance failed:\n${r.stdout}\n${r.stderr}`);
  return { recsPerSec: Number(last[2]), p99Ms: Number(last[3]) };
}

async function runOnce(impl: string, launcher: NodeLauncher, round: number): Promise<Figure[]> {
  const cluster = await startCluster({
    nodes: shape({ controllers: 1, brokers: 3 }),
    launcher,
    quorum: 'static',
    brokerOverrides: { 'group.initial.rebalance.delay.ms': 0 },
    startTimeoutMs: 300_000,
  });
  const out: Figure[] = [];
  try {
    for (const rf of [1, 3]) {
      const topic = `bench-rf${rf}`;
      await createTopic(cluster, topic, rf);
      const f = await producerPerf(cluster, topic);
      const rss = Math.max(...cluster.brokers.map((b) => peakRssMiB(b.pid())));
      out.push({ impl, rf, round, ...f, brokerRssMiB: rss });
      console.log(
        `${impl}\tround ${round}\tRF ${rf}\t${f.recsPerSec.toFixed(0)} rec/s\tp99 ${f.p99Ms} ms\t${rss.toFixed(0)} MiB`,
      );
    }
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${cluster.logs(3000)}`, { cause: e });
  } finally {
    await cluster.cleanup();
  }
  return out;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function main(): Promise<void> {
  console.log(`${N} records of ${SIZE} B per run, acks=all, ${PARTITIONS} partitions, 1 controller + 3 brokers`);
  const impls: Array<[string, NodeLauncher]> = [
    ['kafka', kafkaLauncher({ heap: '1g' })],
    ['tkafka', tkafkaLauncher],
  ];
  const figures: Figure[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [impl, launcher] of round % 2 ? impls : [...impls].reverse()) {
      if (ONLY && impl !== ONLY) continue;
      figures.push(...(await runOnce(impl, launcher, round)));
    }
  }
  console.log('\n| implementation | replication factor | records/s (median) | p99 ms (median) | rounds |');
  console.log('|---|---|---|---|---|');
  for (const [impl] of impls) {
    for (const rf of [1, 3]) {
      const fs = figures.filter((f) => f.impl === impl && f.rf === rf);
      if (fs.length === 0) continue;
      const rounds = fs.map((f) => f.recsPerSec.toFixed(0)).join(', ');
      console.log(
        `| ${impl} | ${rf} | ${median(fs.map((f) => f.recsPerSec)).toFixed(0)} | ${median(fs.map((f) => f.p99Ms))} | ${rounds} |`,
      );
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
