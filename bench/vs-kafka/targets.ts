// The two brokers the side-by-side benchmark compares, behind one interface: a single combined
// node (broker + KRaft controller) on loopback, started fresh for each round — tkafka from this
// build, Apache Kafka 4.4.0 from the Maven jars with a 1 GiB heap (as kafka-server-start.sh's default).
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { startBroker } from '../../test/helpers/broker-process.js';
import { REPO_ROOT } from '../../test/helpers/spec-models.js';
import { metadataAnswers, startApacheKafka } from '../../test/interop/helpers/apache-kafka.js';
import { kafkaTopicsListArgv } from './java-perf.js';

export type Impl = 'kafka' | 'tkafka';

export interface Target {
  readonly impl: Impl;
  readonly bootstrap: string;
  /** The PLAINTEXT port (the same across restarts unless it was taken meanwhile). */
  readonly port: number;
  /** pid of the broker process (the JVM for Kafka; undefined while stopped), for pinning it to cores and reading its CPU time. */
  pid(): number | undefined;
  /** SIGTERM (a clean shutdown); resolves when the process is gone. */
  stop(): Promise<void>;
  /** SIGKILL (an unclean shutdown); resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts the node again on its files after stop() or kill(); resolves once it serves. */
  relaunch(): Promise<void>;
  /** The broker's log output so far (for a failure message). */
  logs(): string;
  /** Creates a topic and waits until every partition has a leader. */
  createTopic(topic: string, partitions: number): Promise<void>;
  /** Peak RSS (VmHWM) of the broker process so far, MiB. */
  peakRssMiB(): number;
  /** CPU seconds (user + system, all threads) the broker process has used so far. */
  cpuSeconds(): number;
  /** Stops the node cleanly, starts it again, and returns ms from the launch to the first answered Metadata. */
  restartMs(): Promise<number>;
  /** argv of `topics --list` against this node, as an operator runs it for this implementation. */
  topicsListArgv(): string[];
  cleanup(): Promise<void>;
}

const NODE_ID = 1;
/** A (re)start may take minutes with 10,000 partitions to load (bench:scale). */
const START_TIMEOUT_MS = 600_000;

export function vmHwmMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** utime + stime of a process from /proc/<pid>/stat, in seconds (clock ticks of 1/100 s on Linux). */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name, which is in parentheses and may contain spaces
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * ms from `launch()` until the node on `port` answers Metadata, polled every 10 ms by this process
 * for both implementations (the helpers' own start-up waits poll at different intervals).
 */
async function timeStart(port: number, launch: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  const launched = launch();
  let failed: unknown = null;
  launched.catch((e: unknown) => {
    failed = e;
  });
  for (let i = 0; i < 12_000; i++) {
    if (failed) throw failed as Error;
    if (await metadataAnswers(port, NODE_ID, 1000)) {
      const ms = performance.now() - t0;
      await launched;
      return ms;
    }
    await delay(10);
  }
  throw new Error(`no Metadata answer on port ${port} within 2 minutes`);
}

/** `tkafkaNodeArgs`: node's own options for the tkafka process (e.g. --cpu-prof); Kafka ignores them. */
export async function startTarget(impl: Impl, tkafkaNodeArgs: readonly string[] = []): Promise<Target> {
  return impl === 'kafka' ? startKafka() : startTkafka(tkafkaNodeArgs);
}

async function startTkafka(nodeArgs: readonly string[]): Promise<Target> {
  const b = await startBroker({
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 },
    nodeArgs,
    startTimeoutMs: START_TIMEOUT_MS,
  });
  return {
    impl: 'tkafka',
    get bootstrap() {
      return b.bootstrap;
    },
    get port() {
      return b.port;
    },
    pid: () => b.pid(),
    stop: () => b.stop(),
    kill: () => b.kill(),
    relaunch: () => b.restart(),
    logs: () => b.output(),
    async createTopic(topic, partitions) {
      const r = await run([
        'node',
        join(REPO_ROOT, 'bin', 'tkafka'),
        'topics',
        '--bootstrap-server',
        b.bootstrap,
        '--create',
        '--topic',
        topic,
        '--partitions',
        String(partitions),
      ]);
      if (r !== 0) throw new Error(`tkafka topics --create ${topic} exited ${r}`);
    },
    peakRssMiB: () => vmHwmMiB(b.pid()),
    cpuSeconds: () => processCpuSeconds(b.pid()),
    async restartMs() {
      await b.stop();
      return timeStart(b.port, () => b.restart());
    },
    topicsListArgv: () => [
      'node',
      join(REPO_ROOT, 'bin', 'tkafka'),
      'topics',
      '--bootstrap-server',
      b.bootstrap,
      '--list',
    ],
    async cleanup() {
      await b.stop();
      b.cleanup();
    },
  };
}

async function startKafka(): Promise<Target> {
  const k = await startApacheKafka({
    heap: '1g',
    startTimeoutMs: START_TIMEOUT_MS,
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 1 },
  });
  return {
    impl: 'kafka',
    get bootstrap() {
      return k.bootstrap;
    },
    get port() {
      return k.port;
    },
    pid: () => k.pid(),
    stop: () => k.stop(),
    kill: () => k.kill(),
    relaunch: () => k.restart(),
    logs: () => k.logs(),
    async createTopic(topic, partitions) {
      const r = await k.runTool('org.apache.kafka.tools.TopicCommand', [
        '--bootstrap-server',
        k.bootstrap,
        '--create',
        '--topic',
        topic,
        '--partitions',
        String(partitions),
      ]);
      if (r.exitCode !== 0) throw new Error(`kafka-topics --create ${topic}: ${r.stderr}`);
      await k.waitForTopic(topic, { partitions });
    },
    peakRssMiB: () => vmHwmMiB(k.pid()),
    cpuSeconds: () => processCpuSeconds(k.pid()),
    async restartMs() {
      await k.stop();
      return timeStart(k.port, () => k.restart());
    },
    topicsListArgv: () => kafkaTopicsListArgv(k.bootstrap),
    async cleanup() {
      await k.cleanup();
    },
  };
}

async function run(argv: string[]): Promise<number | undefined> {
  const r = await execa(argv[0]!, argv.slice(1), { cwd: REPO_ROOT, reject: false, timeout: 60_000 });
  return r.exitCode;
}
