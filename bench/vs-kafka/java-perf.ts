// Kafka's own load tools from the 4.4.0 jars (ProducerPerformance, ConsumerPerformance,
// EndToEndLatency), run with full JIT and a 1 GiB heap (not the test tools' fast-start flags), and
// their last summary line parsed into numbers. The same programs load both brokers.
import { execa } from 'execa';
import { kafkaLibDir } from '../../test/interop/helpers/apache-kafka.js';

const JVM = ['-Xmx1g', '-XX:+UseG1GC', '-Djava.awt.headless=true'];

async function java(mainClass: string, args: string[], timeoutMs: number): Promise<string> {
  const r = await execa('java', [...JVM, '-cp', `${kafkaLibDir()}/*`, mainClass, ...args], {
    reject: false,
    timeout: timeoutMs,
    all: true,
  });
  if (r.exitCode !== 0) throw new Error(`${mainClass} ${args.join(' ')} exited ${r.exitCode}:\n${r.all}`);
  return String(r.stdout);
}

export interface ProduceLoad {
  topic: string;
  records: number;
  recordSize: number;
  acks: '1' | 'all';
  compression: 'none' | 'lz4' | 'zstd';
}

export interface ProduceFigures {
  recsPerSec: number;
  mbPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

/** ProducerPerformance at full speed (`--throughput -1`), batching as a throughput-tuned producer does. */
export async function producerPerformance(bootstrap: string, load: ProduceLoad): Promise<ProduceFigures> {
  const out = await java(
    'org.apache.kafka.tools.ProducerPerformance',
    [
      '--topic',
      load.topic,
      '--num-records',
      String(load.records),
      '--record-size',
      String(load.recordSize),
      '--throughput',
      '-1',
      '--producer-props',
      `bootstrap.servers=${bootstrap}`,
      `acks=${load.acks}`,
      `compression.type=${load.compression}`,
      'linger.ms=5',
      'batch.size=262144',
      'buffer.memory=268435456',
    ],
    900_000,
  );
  // "N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency, p50 ms 50th, p95 ms 95th, p99 ms 99th, ..."
  const m = /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\).*?(\d+) ms 50th.*?(\d+) ms 99th/.exec(out);
  if (!m) throw new Error(`ProducerPerformance printed no summary:\n${out}`);
  return { recsPerSec: Number(m[2]), mbPerSec: Number(m[3]), p50Ms: Number(m[4]), p99Ms: Number(m[5]) };
}

/**
 * ConsumerPerformance from the start of `topic` until `records` are read, in a fresh group; the
 * fetch-phase rate (fetch.nMsg.sec: after the group's first assignment, as Kafka reports it).
 */
export async function consumerPerformance(bootstrap: string, topic: string, records: number): Promise<number> {
  const out = await java(
    'org.apache.kafka.tools.ConsumerPerformance',
    [
      '--bootstrap-server',
      bootstrap,
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--group',
      `bench-${topic}-${Date.now()}`,
      '--timeout',
      '60000',
      '--hide-header',
    ],
    900_000,
  );
  // start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
  // rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
  const line = out.trim().split('\n').at(-1) ?? '';
  const cols = line.split(',').map((c) => c.trim());
  const n = Number(cols[4]);
  const rate = Number(cols[9]);
  if (cols.length < 10 || n < records || !Number.isFinite(rate)) throw new Error(`ConsumerPerformance:\n${out}`);
  return rate;
}

export interface LatencyFigures {
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
}

/**
 * EndToEndLatency: one record at a time, produced with `acks` and consumed by a consumer polling
 * the same partition; the percentiles of produce-to-consume time.
 */
export async function endToEndLatency(bootstrap: string, topic: string, records: number): Promise<LatencyFigures> {
  const out = await java(
    'org.apache.kafka.tools.EndToEndLatency',
    [
      '--bootstrap-server',
      bootstrap,
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--producer-acks',
      'all',
      '--record-size',
      '100',
    ],
    900_000,
  );
  // "Percentiles: 50th = 1, 99th = 3, 99.9th = 7"
  const m = /50th = ([\d.]+), 99th = ([\d.]+), 99\.9th = ([\d.]+)/.exec(out);
  if (!m) throw new Error(`EndToEndLatency printed no percentiles:\n${out}`);
  return { p50Ms: Number(m[1]), p99Ms: Number(m[2]), p999Ms: Number(m[3]) };
}

/** The JVM flags kafka-run-class.sh gives a tool (KAFKA_HEAP_OPTS and KAFKA_JVM_PERFORMANCE_OPTS defaults). */
const KAFKA_RUN_CLASS = [
  '-Xmx256M',
  '-server',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-XX:MaxInlineLevel=15',
  '-Djava.awt.headless=true',
];

/** `kafka-topics.sh --bootstrap-server … --list` as the script runs it: the argv of one run. */
export function kafkaTopicsListArgv(bootstrap: string): string[] {
  return [
    'java',
    ...KAFKA_RUN_CLASS,
    '-cp',
    `${kafkaLibDir()}/*`,
    'org.apache.kafka.tools.TopicCommand',
    '--bootstrap-server',
    bootstrap,
    '--list',
  ];
}
