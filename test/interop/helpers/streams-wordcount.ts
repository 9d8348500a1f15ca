// The Kafka Streams 4.4.0 word count of the streams interop tests (test/helpers/java/StreamsWordCount.java):
// compiling it, running its modes, and the demo run (exactly_once_v2, two instances, one
// killed with -9 mid-run), shared by the streams-protocol test (streams-group-kafka.test.ts) and
// the classic-protocol one (streams-classic-kafka.test.ts).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { RawClient } from '../../helpers/raw-client.js';
import { REPO_ROOT } from '../../helpers/spec-models.js';
import { compileJava } from '../../helpers/javac.js';
import { kafkaLibDir } from './apache-kafka.js';
import { ApiKey } from '../../../src/protocol/frame.js';
import { ErrorCode as E } from '../../../src/protocol/errors.js';

const JAVA_SOURCE = join(REPO_ROOT, 'test', 'helpers', 'java', 'StreamsWordCount.java');
const JAVA_CLASSES = join(tmpdir(), 'tkafka-streams-wordcount-classes');
// provisioned by test/clients/java/setup.sh (scripts/provision.sh) with Kafka's Java client
const JAVA_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const STREAMS_JARS = [join(JAVA_LIB, 'kafka-streams-4.4.0.jar'), join(JAVA_LIB, 'rocksdbjni-10.1.3.jar')];
const JVM = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xmx256m'];

/** Input lines of one produce run. */
export const LINES = 300;
/** Words in LINES lines (three a line). */
export const TOTAL = LINES * 3;

/** The counts StreamsWordCount.line(i) gives for i < lines. */
export function expectedCounts(lines = LINES): string[] {
  const m = new Map<string, number>();
  for (let i = 0; i < lines; i++)
    for (const w of [`w${i % 7}`, `w${i % 5}`, `w${i % 3}`]) m.set(w, (m.get(w) ?? 0) + 1);
  return [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([w, n]) => `count ${w}=${n}`);
}

let classpath = '';
const children = new Set<ChildProcess>();

/** Compiles StreamsWordCount.java (when changed) against Kafka 4.4.0's and Kafka Streams' jars. */
export async function compileWordCount(): Promise<void> {
  const lib = kafkaLibDir();
  for (const j of STREAMS_JARS)
    if (!existsSync(j))
      throw new Error(`Kafka Streams 4.4.0 is not provisioned (${j}): run bash test/clients/java/setup.sh`);
  classpath = [JAVA_CLASSES, `${lib}/*`, ...STREAMS_JARS].join(':');
  await compileJava(JAVA_SOURCE, JAVA_CLASSES, classpath);
}

/** Kills the application instances still running (an `after` hook). */
export function killWordCounts(): void {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
}

/** Runs one short mode of StreamsWordCount (produce, counts) to its end; its stdout. */
export async function wordCount(args: string[], timeoutMs = 120_000): Promise<string> {
  const r = await execa('nice', ['-n', '19', 'java', ...JVM, '-cp', classpath, 'StreamsWordCount', ...args], {
    timeout: timeoutMs,
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`StreamsWordCount ${args[0]} exited ${r.exitCode}:\n${r.stdout}\n${r.stderr}`);
  return String(r.stdout);
}

/** The "count <word>=<n>" lines of the output topic once they add up to `total` (or the timeout). */
export async function readCounts(
  bootstrap: string,
  topic: string,
  total: number,
  timeoutMs: number,
): Promise<string[]> {
  return (await wordCount(['counts', bootstrap, topic, String(total), String(timeoutMs)], timeoutMs + 60_000))
    .split('\n')
    .filter((l) => l.startsWith('count '));
}

export interface InstanceOptions {
  app: string;
  topics: [input: string, output: string];
  /** processing.guarantee=exactly_once_v2 */
  eos?: boolean;
  /** group.protocol=classic (a consumer group, the StreamsPartitionAssignor) instead of streams */
  classic?: boolean;
}

export type WordCountInstance = ReturnType<typeof wordCountInstance>;

/** One application instance: its printed states; `stop()` closes it (leaving the group), `kill()` is a kill -9. */
export function wordCountInstance(bootstrap: string, tag: string, opts: InstanceOptions) {
  const stateDir = mkdtempSync(join(tmpdir(), 'tkafka-streams-state-'));
  // `nice` execs java: the pid is the JVM's (kill() is a kill -9 of the instance)
  const p = spawn('nice', [
    '-n',
    '19',
    'java',
    ...JVM,
    '-cp',
    classpath,
    'StreamsWordCount',
    'run',
    bootstrap,
    opts.app,
    opts.topics[0],
    opts.topics[1],
    stateDir,
    tag,
    ...(opts.eos ? ['eos'] : []),
    ...(opts.classic ? ['classic'] : []),
  ]);
  children.add(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  return {
    states: () => [...out.matchAll(/^state=(\w+)$/gm)].map((m) => m[1]!),
    log: () => `${out}\n${err.slice(-4000)}`,
    async kill() {
      p.kill('SIGKILL');
      await exited;
      children.delete(p);
    },
    async stop() {
      if (!children.has(p)) return;
      p.stdin!.end('stop\n');
      const t = setTimeout(() => p.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(t);
      children.delete(p);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** Creates the topics (name → partitions), asserting no error. */
export async function createTopics(c: RawClient, topics: Record<string, number>): Promise<void> {
  const created = await c.request(ApiKey.CreateTopics, 7, {
    topics: Object.entries(topics).map(([name, numPartitions]) => ({
      name,
      numPartitions,
      replicationFactor: 1,
      assignments: [],
      configs: [],
    })),
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.deepEqual(
    created.topics.map((t) => [t.name, t.errorCode]),
    Object.keys(topics).map((n) => [n, E.NONE]),
  );
}

export interface KillRunOptions {
  app: string;
  topics: [input: string, output: string];
  classic?: boolean;
  /** Awaits the group with both instances working (before the kill). */
  bothWorking: (c: RawClient) => Promise<void>;
  /** Awaits the group with the survivor alone (after the kill, before the second half is produced). */
  survivorAlone?: (c: RawClient) => Promise<void>;
}

/**
 * The demo: exactly_once_v2, two instances, one killed (-9) mid-run. Half the input is counted
 * by both; instance b is killed; the other half is produced; once b's membership ends, instance a
 * takes its tasks and the output (read_committed) holds the exact counts of all the input.
 */
export async function eosKillRun(bootstrap: string, port: number, o: KillRunOptions): Promise<string[]> {
  const c = await RawClient.connect(port);
  const [input, output] = o.topics;
  const instances: WordCountInstance[] = [];
  try {
    await createTopics(c, { [input]: 2, [output]: 1 });
    await wordCount(['produce', bootstrap, input, String(LINES), '0']);
    const opts = { app: o.app, topics: o.topics, eos: true, classic: o.classic };
    instances.push(wordCountInstance(bootstrap, 'a', opts), wordCountInstance(bootstrap, 'b', opts));
    const half = await readCounts(bootstrap, output, TOTAL, 150_000);
    assert.deepEqual(half, expectedCounts(LINES), 'the first half counted');
    await o.bothWorking(c);
    await instances[1]!.kill();
    await o.survivorAlone?.(c);
    await wordCount(['produce', bootstrap, input, String(LINES), String(LINES)]);
    return await readCounts(bootstrap, output, 2 * TOTAL, 200_000);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${instances.map((i) => i.log()).join('\n----\n')}`, { cause: e });
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
    c.close();
  }
}
