// The checks of `tkafka top` that run the same against tkafka and Apache Kafka 4.4.0
// (test/top.test.ts, test/interop/top-kafka.test.ts): a topic with records, a group whose committed
// offsets leave it lag (set with `consumer-groups --reset-offsets`, so the offsets are still), a
// bounded producer while the live view runs under a pseudo-terminal, and the numbers compared with
// `consumer-groups --describe`'s.
import assert from 'node:assert/strict';
import { execa, type ResultPromise } from 'execa';
import { REPO_ROOT } from './spec-models.js';
import { screenText, terminalEnv, tkafkaUnderPty } from './pty.js';
import { waitFor } from './wait-for.js';

export const ESC = /\x1b/;

/** `node bin/tkafka <args>` with its output (never throws for a non-zero exit). */
export async function tkafka(args: string[], env: NodeJS.ProcessEnv = {}, input?: string) {
  return execa('node', ['bin/tkafka', ...args], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 120_000,
    env: { TKAFKA_NO_TTY: '', ...env },
    ...(input !== undefined ? { input } : {}),
  });
}

/** Produces `count` records of 50 bytes (producer-perf-test, as fast as it goes). */
export async function produce(bootstrap: string, topic: string, count: number): Promise<void> {
  const r = await tkafka([
    'producer-perf-test',
    '--bootstrap-server',
    bootstrap,
    '--topic',
    topic,
    '--num-records',
    String(count),
    '--record-size',
    '50',
    '--throughput',
    '-1',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
}

/** Commits offset `offset` on every partition of `topic` for `group` (no consumer runs). */
export async function commitOffsets(bootstrap: string, group: string, topic: string, offset: number): Promise<void> {
  const r = await tkafka([
    'consumer-groups',
    '--bootstrap-server',
    bootstrap,
    '--reset-offsets',
    '--group',
    group,
    '--topic',
    topic,
    '--to-offset',
    String(offset),
    '--execute',
  ]);
  assert.equal(r.exitCode, 0, r.stderr + r.stdout);
}

export interface LagRow {
  current: bigint;
  end: bigint;
  lag: bigint;
}

/** `consumer-groups --describe --group G`: `topic-partition` → offsets and lag. */
export async function describeLag(bootstrap: string, group: string): Promise<Map<string, LagRow>> {
  const r = await tkafka(['consumer-groups', '--bootstrap-server', bootstrap, '--describe', '--group', group]);
  assert.equal(r.exitCode, 0, r.stderr + r.stdout);
  return parseDescribe(r.stdout, group);
}

/** The offsets table of `consumer-groups --describe` (tkafka's or Kafka's ConsumerGroupCommand). */
export function parseDescribe(stdout: string, group: string): Map<string, LagRow> {
  const out = new Map<string, LagRow>();
  for (const line of stdout.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c[0] !== group || !/^\d+$/.test(c[2] ?? '')) continue;
    out.set(`${c[1]}-${c[2]}`, { current: BigInt(c[3]!), end: BigInt(c[4]!), lag: BigInt(c[5]!) });
  }
  assert.ok(out.size > 0, stdout);
  return out;
}

/** Makes share group `group` start at the earliest offsets of `topic` (`share-groups --reset-offsets`). */
export async function shareGroupAtEarliest(bootstrap: string, group: string, topic: string): Promise<void> {
  const r = await tkafka([
    'share-groups',
    '--bootstrap-server',
    bootstrap,
    '--reset-offsets',
    '--group',
    group,
    '--topic',
    topic,
    '--to-earliest',
    '--execute',
  ]);
  assert.equal(r.exitCode, 0, r.stderr + r.stdout);
}

/** The offsets table of `share-groups --describe` (tkafka's or Kafka's ShareGroupCommand): `topic-partition` → lag. */
export function parseShareDescribe(stdout: string, group: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const line of stdout.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c[0] !== group || !/^\d+$/.test(c[2] ?? '') || !/^\d+$/.test(c[4] ?? '')) continue;
    out.set(`${c[1]}-${c[2]}`, BigInt(c[4]!));
  }
  assert.ok(out.size > 0, stdout);
  return out;
}

/** `share-groups --describe --group G`'s lag per partition. */
export async function describeShareLag(bootstrap: string, group: string): Promise<Map<string, bigint>> {
  const r = await tkafka(['share-groups', '--bootstrap-server', bootstrap, '--describe', '--group', group]);
  assert.equal(r.exitCode, 0, r.stderr + r.stdout);
  return parseShareDescribe(r.stdout, group);
}

export const totalOf = (rows: Map<string, LagRow>): bigint => [...rows.values()].reduce((n, r) => n + r.lag, 0n);

/** A producer-perf-test bounded in records and rate, running in the background. */
export function startProducer(bootstrap: string, topic: string, records: number, perSecond: number): ResultPromise {
  return execa(
    'node',
    [
      'bin/tkafka',
      'producer-perf-test',
      '--bootstrap-server',
      bootstrap,
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--record-size',
      '50',
      '--throughput',
      String(perSecond),
    ],
    { cwd: REPO_ROOT, reject: false, timeout: 120_000 },
  );
}

/** The last frame drawn on the terminal (from its last title line). */
export function lastFrame(raw: string): string {
  const screen = screenText(raw);
  const i = screen.lastIndexOf('q to quit');
  assert.ok(i >= 0, screen);
  return screen.slice(i);
}

/** A topic's row in a frame: produce rate (records/s) and log end offset. */
export function topicRow(frame: string, topic: string): { leo: bigint; produce: number | null } | null {
  const m = new RegExp(`^${topic}\\s+\\d+\\s+([\\d,]+)\\s+(-|[\\d.]+/s)\\s`, 'm').exec(frame);
  if (!m) return null;
  return { leo: BigInt(m[1]!.replace(/,/g, '')), produce: m[2] === '-' ? null : Number(m[2]!.replace('/s', '')) };
}

/** A group's row in a frame: type, state and total lag. */
export function groupRow(frame: string, group: string): { type: string; state: string; lag: bigint } | null {
  const m = new RegExp(`^${group}\\s+(\\S+)\\s+(\\w+)\\s+([\\d,]+)\\s`, 'm').exec(frame);
  return m ? { type: m[1]!, state: m[2]!, lag: BigInt(m[3]!.replace(/,/g, '')) } : null;
}

/** `tkafka top` under a pseudo-terminal for `iterations` refreshes of `interval` seconds. */
export async function topUnderPty(bootstrap: string, args: string[], iterations: number, interval = 1) {
  return tkafkaUnderPty(
    [
      'top',
      '--bootstrap-server',
      bootstrap,
      '--interval',
      String(interval),
      '--iterations',
      String(iterations),
      ...args,
    ],
    {},
    { cols: 140, rows: 50 },
  );
}

/** `tkafka top --output json` (one snapshot). */
export async function topJson(bootstrap: string, args: string[] = []): Promise<TopJson> {
  const r = await tkafka(['top', '--bootstrap-server', bootstrap, '--output', 'json', ...args]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.ok(!ESC.test(r.stdout));
  return JSON.parse(r.stdout) as TopJson;
}

export interface TopJson {
  clusterId: string;
  quorumLeader: number | null;
  underReplicatedPartitions: number;
  underMinIsrPartitions: number;
  offlinePartitions: number;
  brokers: { id: number; state: string; quorumLeader: boolean }[];
  topics: {
    name: string;
    partitions: number;
    logEndOffset: number;
    produceRate: number | null;
    consumeRate: number | null;
    underReplicated: number;
  }[];
  problemPartitions: { topic: string; partition: number; problems: string[] }[];
  groups: {
    group: string;
    type: string | null;
    state: string;
    totalLag: number;
    lagRate: number | null;
    consumeRate: number | null;
    partitions: { topic: string; partition: number; currentOffset: number; logEndOffset: number; lag: number }[];
  }[];
}

/**
 * The view under a terminal while a bounded producer writes to `busy`: brokers listed, `busy`'s
 * produce rate above zero in the last frame, `group` with the lag `consumer-groups --describe`
 * reports (the group's offsets are still; `lagTopic` takes no writes). Returns the last frame.
 */
export async function checkLiveView(opts: {
  bootstrap: string;
  busy: string;
  group: string;
  brokerIds: number[];
}): Promise<string> {
  const { bootstrap, busy, group } = opts;
  const producer = startProducer(bootstrap, busy, 20_000, 1000);
  try {
    // the view starts once records arrive
    await waitFor(
      async () => {
        const j = await topJson(bootstrap, ['--topic', busy, '--iterations', '1', '--group', group]);
        return (j.topics[0]?.logEndOffset ?? 0) > 0;
      },
      { what: `records in ${busy}`, timeoutMs: 60_000, intervalMs: 200 },
    );
    const { raw, exitCode } = await topUnderPty(bootstrap, [], 4);
    assert.equal(exitCode, 0, screenText(raw));
    assert.ok(ESC.test(raw), 'a live view (escape sequences)');
    const frame = lastFrame(raw);
    for (const id of opts.brokerIds) assert.match(frame, new RegExp(`^${id}\\s+127\\.0\\.0\\.1:\\d+\\s`, 'm'), frame);
    const busyRow = topicRow(frame, busy);
    assert.ok(busyRow && busyRow.produce !== null && busyRow.produce > 0, `non-zero produce rate:\n${frame}`);
    const g = groupRow(frame, group);
    assert.ok(g, frame);
    assert.equal(g.type, 'classic', 'a group with committed offsets and no members is a classic group');
    const described = await describeLag(bootstrap, group);
    assert.equal(g.lag, totalOf(described), frame);
    return frame;
  } finally {
    producer.kill();
    await producer;
  }
}

/** `--output json` and piped lines carry `consumer-groups --describe`'s lag per partition and in total. */
export async function checkSnapshotAndPiped(bootstrap: string, group: string): Promise<void> {
  const described = await describeLag(bootstrap, group);
  const j = await topJson(bootstrap, ['--interval', '0.5', '--group', group]);
  assert.equal(j.groups.length, 1);
  const g = j.groups[0]!;
  assert.equal(g.type, 'classic');
  assert.equal(BigInt(g.totalLag), totalOf(described));
  assert.equal(g.lagRate, 0, 'the offsets are still');
  assert.equal(g.partitions.length, described.size);
  for (const p of g.partitions) {
    const d = described.get(`${p.topic}-${p.partition}`);
    assert.ok(d, `${p.topic}-${p.partition}`);
    assert.deepEqual([BigInt(p.currentOffset), BigInt(p.logEndOffset), BigInt(p.lag)], [d.current, d.end, d.lag]);
  }
  const piped = await tkafka(['top', '--bootstrap-server', bootstrap, '--interval', '0.5', '--iterations', '2']);
  assert.equal(piped.exitCode, 0, piped.stderr);
  assert.ok(!ESC.test(piped.stdout), 'no escape sequences when piped');
  const groupLines = piped.stdout.split('\n').filter((l) => l.includes(` group=${group} `));
  assert.equal(groupLines.length, 2, piped.stdout);
  for (const l of groupLines) assert.match(l, new RegExp(` total-lag=${totalOf(described)} `));
  assert.match(groupLines[1]!, / lag-rate=0\.0 /);
}

/**
 * `tkafka top` (no --iterations) under a pseudo-terminal; once two frames are drawn, `key` is typed.
 * Resolves with the exit code and the frames drawn when the key was typed (the process must end by itself).
 */
export async function quitWithKey(
  bootstrap: string,
  key: string,
): Promise<{ exitCode: number | undefined; raw: string }> {
  const cmd = `stty cols 120 rows 40; exec node bin/tkafka top --bootstrap-server '${bootstrap}' --interval 0.5`;
  const p = execa('script', ['-qfec', cmd, '/dev/null'], {
    cwd: REPO_ROOT,
    stdin: 'pipe',
    reject: false,
    timeout: 60_000,
    extendEnv: false,
    env: terminalEnv(),
  });
  let out = '';
  let typed = false;
  p.stdout.on('data', (d: Buffer) => {
    out += String(d);
    if (!typed && (screenText(out).match(/q to quit/g) ?? []).length >= 2) {
      typed = true;
      p.stdin.write(key);
    }
  });
  const r = await p;
  assert.ok(typed, `two frames drawn:\n${screenText(out)}`);
  assert.ok(!r.timedOut, 'ended after the key');
  return { exitCode: r.exitCode, raw: out };
}
