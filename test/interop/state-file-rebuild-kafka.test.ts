// Issue 20, item 3 beside Apache Kafka 4.4.0: the same partition (test/helpers/state-file-scenario.ts)
// written to a Kafka broker and to a tkafka broker gives the same client-visible results, and after
// the same corruption of the same file on both (each broker stopped cleanly first, so no recovery
// would run) both log the same LogLoader line where Kafka has one, both serve what they served
// before, and Kafka's DumpLogSegments `--index-sanity-check` passes the index files both rebuilt.
// The cases are those where Kafka 4.4 has a defined answer:
//  - `.txnindex` zero-filled (second segment): TransactionIndex.sanityCheck finds an aborted
//    transaction below the segment's start → CorruptIndexException → the segment is recovered;
//  - `.index` and `.timeindex` truncated mid-entry: Kafka trusts the whole entries left (tkafka
//    rebuilds them); the answers are the same;
//  - `.index` deleted: `Could not find offset index file …`, rebuilt;
//  - the newest producer `.snapshot` (three corruptions): deleted, state rebuilt from the log;
//  - `recovery-point-offset-checkpoint` (wrong version line), `leader-epoch-checkpoint`,
//    `partition.metadata` (random bytes): the log directory goes offline (Kafka) / the broker
//    refuses to start (tkafka); `quorum-state` (random bytes): fatal on both. Neither serves, both
//    name the file; with the file put back both serve as before.
// Where Kafka 4.4 trusts a corrupt file blindly (random or zeroed `.index`/`.timeindex`, a torn or
// zeroed first-segment `.txnindex`) or recreates it empty (a deleted `.timeindex`: lookups by time
// then skip the segment) tkafka rebuilds instead; those cases are in
// test/state-file-rebuild.test.ts and docs/notes/i20-rebuild.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import {
  CORRUPTIONS,
  StateFileScenario,
  TOPIC,
  corruptFile,
  seededRandom,
  type Corruption,
} from '../helpers/state-file-scenario.js';

const SEED = Number(process.env.REBUILD_SEED ?? 44);

interface Side {
  name: string;
  scenario: StateFileScenario;
  logsDir: () => string;
  stop(): Promise<void>;
  restart(): Promise<void>;
  output(): string;
  baseline?: unknown;
}

let kafka: ApacheKafka;
let tk: BrokerProcess;
let sides: Side[];

before(async () => {
  kafka = await startApacheKafka();
  tk = await startBroker({
    overrides: { 'offsets.topic.num.partitions': 1, 'transaction.state.log.num.partitions': 1 },
  });
  sides = [
    {
      name: 'Kafka',
      scenario: new StateFileScenario(() => kafka.port),
      logsDir: () => kafka.dataDir,
      stop: () => kafka.stop(),
      restart: () => kafka.restart(),
      // server.log only (kafka.logs() joins two files, so it does not grow at its end)
      output: () => readFileSync(join(kafka.logDir, 'server.log'), 'utf8'),
    },
    {
      name: 'tkafka',
      scenario: new StateFileScenario(() => tk.port),
      logsDir: () => join(tk.dataDir, 'logs'),
      stop: () => tk.stop(),
      restart: () => tk.restart(),
      output: () => tk.output(),
    },
  ];
  for (const s of sides) {
    await s.scenario.write();
    const o = await s.scenario.observe();
    s.scenario.checkWritten(o);
    s.baseline = s.scenario.comparable(o);
  }
  assert.deepEqual(sides[1]!.baseline, sides[0]!.baseline, 'tkafka serves the partition as Kafka does');
});

after(async () => {
  await kafka?.cleanup();
  await tk?.stop();
  tk?.cleanup();
});

const partDir = (s: Side) => join(s.logsDir(), `${TOPIC}-0`);
const segmentFiles = (s: Side, ext: string) =>
  readdirSync(partDir(s))
    .filter((n) => n.endsWith(ext))
    .sort();

/** Stops both cleanly, corrupts `pick(side)` on each, restarts both; returns each one's new output. */
async function corruptBoth(
  pick: (s: Side) => string,
  corrupt: (file: string) => Promise<void>,
): Promise<{ side: Side; out: string; file: string }[]> {
  const res: { side: Side; out: string; file: string }[] = [];
  for (const s of sides) {
    await s.stop();
    await fsp.access(join(s.logsDir(), '.kafka_cleanshutdown'));
    const file = pick(s);
    await corrupt(file);
    const from = s.output().length;
    await s.restart();
    await s.scenario.waitServed();
    res.push({ side: s, out: s.output().slice(from), file });
  }
  for (const s of sides)
    assert.deepEqual(s.scenario.comparable(await s.scenario.observe()), s.baseline, `${s.name} serves as before`);
  return res;
}

function bytesCorruption(how: Corruption, entrySize: number): (file: string) => Promise<void> {
  const random = seededRandom(SEED);
  return (file) => corruptFile(file, how, entrySize, random);
}

/**
 * Kafka's DumpLogSegments --index-sanity-check on each side's `exts` files of a segment: tkafka's
 * pass; Kafka's pass too unless `kafkaKeepsCorrupt` (Kafka 4.4 does not check or rebuild the
 * `.index`/`.timeindex` of a segment it does not recover, so its own tool then finds the corruption).
 */
async function sanityCheckBoth(base: string, exts: string[], kafkaKeepsCorrupt = false): Promise<void> {
  for (const s of sides) {
    const files = exts.map((e) => join(partDir(s), base + e));
    const r = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', [
      '--index-sanity-check',
      '--files',
      files.join(','),
    ]);
    if (s.name === 'Kafka' && kafkaKeepsCorrupt) {
      assert.notEqual(r.exitCode, 0, `Kafka's own ${exts.join(',')} still corrupt: ${r.stdout}`);
      assert.match(
        r.stderr + r.stdout,
        /CorruptIndexException: (Index|Time index) file .* is corrupt, found \d+ bytes which is neither positive nor a multiple of/,
      );
      continue;
    }
    assert.equal(r.exitCode, 0, `${s.name}: ${r.stderr}`);
    for (const f of files)
      assert.ok(r.stdout.includes(`${f} passed sanity check.`), `${s.name}'s ${f} passes: ${r.stdout}`);
  }
}

const FIRST = '00000000000000000000';

test('.txnindex of the second segment zero-filled: both log the same LogLoader line and rebuild it', async () => {
  const second = (s: Side) => segmentFiles(s, '.txnindex')[1]!;
  const names = sides.map(second);
  assert.equal(names[1], names[0], 'the segments start at the same offsets');
  const base = names[0]!.slice(0, 20);
  const before = await Promise.all(sides.map((s) => fsp.readFile(join(partDir(s), second(s)))));
  const res = await corruptBoth((s) => join(partDir(s), second(s)), bytesCorruption('zero-filled', 34));
  const lines = res.map(({ side, out }) => {
    const m = out.match(/Found a corrupted index file corresponding to log file (\S+) due to (.*), recovering segment/);
    assert.ok(m, `${side.name} logged LogLoader's line:\n${out.slice(-3000)}`);
    return `${m[1]!.split(partDir(side)).join('<dir>')} ${m[2]!.split(partDir(side)).join('<dir>')}`;
  });
  assert.equal(lines[1], lines[0], 'the same line, naming the same file, for the same reason');
  assert.match(lines[0]!, new RegExp(`<dir>/${base}\\.log .*is less than start offset ${Number(base)}$`));
  // rebuilt as each had it (a producer id differs between the clusters, the layout does not)
  for (const [i, s] of sides.entries()) {
    const rebuilt = await fsp.readFile(join(partDir(s), second(s)));
    assert.ok(rebuilt.equals(before[i]!), `${s.name} rebuilt ${second(s)} as it was`);
  }
  await sanityCheckBoth(base, ['.index', '.timeindex']);
});

for (const kind of [
  { ext: '.index', entry: 8 },
  { ext: '.timeindex', entry: 12 },
]) {
  test(`${kind.ext} of the first segment truncated mid-entry: the same answers; tkafka rebuilt it, Kafka keeps it`, async () => {
    await corruptBoth((s) => join(partDir(s), FIRST + kind.ext), bytesCorruption('truncated mid-entry', kind.entry));
    await sanityCheckBoth(FIRST, [kind.ext], true);
  });
}

test('.index of the first segment deleted: both log "Could not find offset index file" and rebuild it', async () => {
  const res = await corruptBoth(
    (s) => join(partDir(s), FIRST + '.index'),
    (file) => fsp.rm(file),
  );
  for (const { side, out } of res)
    assert.ok(
      out.includes(
        `Could not find offset index file corresponding to log file ${join(partDir(side), FIRST)}.log, recovering segment and rebuilding index files...`,
      ),
      `${side.name}:\n${out.slice(-3000)}`,
    );
  await sanityCheckBoth(FIRST, ['.index']);
});

for (const how of CORRUPTIONS) {
  test(`newest producer .snapshot ${how}: both delete it with the same line and rebuild the state`, async () => {
    const res = await corruptBoth(
      (s) => {
        const snaps = segmentFiles(s, '.snapshot');
        return join(partDir(s), snaps[snaps.length - 1]!);
      },
      bytesCorruption(how, 64),
    );
    for (const { side, out, file } of res)
      assert.ok(
        out.includes(`Failed to load producer snapshot from '${file}': `),
        `${side.name} logged ProducerStateManager's line for ${file}:\n${out.slice(-3000)}`,
      );
  });
}

for (const c of [
  {
    name: 'recovery-point-offset-checkpoint with a wrong version line',
    kafka: 'its log directory fails',
    file: (s: Side) => join(s.logsDir(), 'recovery-point-offset-checkpoint'),
    corrupt: async (file: string) => fsp.writeFile(file, (await fsp.readFile(file, 'utf8')).replace(/^0\n/, '1\n')),
    lines: (s: Side, f: string) => [
      `Error while reading checkpoint file ${f}`,
      `Error occurred while reading recovery-point-offset-checkpoint file of directory ${s.logsDir()}, resetting the recovery checkpoint to 0`,
    ],
  },
  {
    name: 'leader-epoch-checkpoint with random bytes',
    kafka: 'its log directory fails',
    file: (s: Side) => join(partDir(s), 'leader-epoch-checkpoint'),
    corrupt: (file: string) => corruptFile(file, 'random bytes', 1, seededRandom(SEED)),
    lines: (_s: Side, f: string) => [`Error while reading checkpoint file ${f}`],
  },
  {
    name: 'partition.metadata with random bytes',
    kafka: 'its log directory fails',
    file: (s: Side) => join(partDir(s), 'partition.metadata'),
    corrupt: (file: string) => corruptFile(file, 'random bytes', 1, seededRandom(SEED)),
    lines: (_s: Side, f: string) => [`Error while reading partition metadata file ${f}`],
  },
  {
    name: 'quorum-state with random bytes',
    kafka: 'fatal at start',
    file: (s: Side) => join(s.logsDir(), '__cluster_metadata-0', 'quorum-state'),
    corrupt: (file: string) => corruptFile(file, 'random bytes', 1, seededRandom(SEED)),
    lines: (_s: Side, f: string) => [`Error while reading the Quorum status from the file ${f}`],
  },
]) {
  test(`${c.name}: neither serves (Kafka: ${c.kafka}), both name the file; put back, both serve as before`, async () => {
    for (const s of sides) {
      await s.stop();
      const file = c.file(s);
      const original = await fsp.readFile(file);
      await c.corrupt(file);
      const from = s.output().length;
      await assert.rejects(s.restart(), /exited before serving/, `${s.name} does not serve`);
      const out = s.output().slice(from);
      for (const line of c.lines(s, file))
        assert.ok(out.includes(line), `${s.name} logged "${line}":\n${out.slice(-3000)}`);
      await fsp.writeFile(file, original);
      await s.restart();
      await s.scenario.waitServed();
      assert.deepEqual(s.scenario.comparable(await s.scenario.observe()), s.baseline, `${s.name} serves as before`);
    }
  });
}
