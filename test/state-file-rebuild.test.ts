// Issue 20, item 3: a corrupt index or state file is rebuilt from the log (or refused the way Kafka
// refuses it), never trusted blindly. One real broker process holds a partition written by a
// transactional producer (kafkajs; every third transaction aborted) and an idempotent producer
// (raw Produce requests with our own producer id, epoch and sequences), over three segments. Before
// each case the broker is stopped cleanly (`.kafka_cleanshutdown` is there, so no recovery runs on
// the next start), one file is corrupted (truncated mid-entry, random bytes, zero-filled; a wrong
// version line or random bytes for the text files), and the broker restarted: the log line naming
// the file appears, the file is rebuilt, and everything a client can observe is exactly what it was
// before the first stop: read_committed and read_uncommitted fetches over the whole log (record
// bytes, aborted transactions, high watermark, last stable offset), ListOffsets (earliest, latest,
// max timestamp, and by time for each transaction's timestamps, both isolation levels),
// DescribeProducers, and the idempotent producer's duplicate and out-of-order answers.
// (The data and the observations: test/helpers/state-file-scenario.ts.)
// Files Kafka refuses to trust (the offset checkpoints, leader-epoch-checkpoint, partition.metadata:
// the log directory goes offline, here the only one; quorum-state: fatal) stop the broker with
// Kafka's line naming the file; the file put back, it serves as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { runTkafka } from './helpers/tool-run.js';
import {
  CORRUPTIONS,
  StateFileScenario,
  TOPIC,
  corruptFile,
  seededRandom,
  type Corruption,
  type Observation,
} from './helpers/state-file-scenario.js';
import { offsetIndexContentError } from '../src/storage/offset-index.js';
import { timeIndexContentError } from '../src/storage/time-index.js';
import { checkTransactionIndex } from '../src/storage/txn-index.js';
import { parseOffsetCheckpoint } from '../src/storage/checkpoint-file.js';

const SEED = Number(process.env.REBUILD_SEED ?? 20);
const random = seededRandom(SEED);

let broker: BrokerProcess;
let scenario: StateFileScenario;
let partDir: string;
let logsDir: string;
/** what a client observes, captured once before the first corruption */
let expected: Observation;

const observe = () => scenario.observe();
const corrupt = (file: string, how: Corruption, entrySize: number) => corruptFile(file, how, entrySize, random);

/** Stops the broker cleanly; the text checkpoints it left parse (a rebuilt one included). */
async function stopCleanly(): Promise<void> {
  await broker.stop();
  await fsp.access(join(logsDir, '.kafka_cleanshutdown'));
  parseOffsetCheckpoint(await fsp.readFile(join(logsDir, 'log-start-offset-checkpoint'), 'utf8'));
  // (log-start-offset-checkpoint names only logs whose start is past their first segment's base)
  for (const f of ['recovery-point-offset-checkpoint', 'replication-offset-checkpoint']) {
    const text = await fsp.readFile(join(logsDir, f), 'utf8');
    assert.ok(
      parseOffsetCheckpoint(text, f).some((e) => e.topic === TOPIC),
      `${f} names ${TOPIC}-0 after a clean stop`,
    );
  }
}

function segmentFiles(ext: string): string[] {
  return readdirSync(partDir)
    .filter((n) => n.endsWith(ext))
    .sort();
}

before(async () => {
  broker = await startBroker({
    overrides: { 'offsets.topic.num.partitions': 1, 'transaction.state.log.num.partitions': 1 },
  });
  logsDir = join(broker.dataDir, 'logs');
  partDir = join(logsDir, `${TOPIC}-0`);
  scenario = new StateFileScenario(() => broker.port);
  await scenario.write();
  expected = await observe();
  scenario.checkWritten(expected);
  // several segments, aborted transactions indexed in the first one
  assert.ok(segmentFiles('.log').length >= 3, `segments: ${segmentFiles('.log').join(' ')}`);
  assert.ok((await fsp.stat(join(partDir, segmentFiles('.txnindex')[0]!))).size >= 34 * 3);
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

/** Restarts and waits for the partition; returns the output of this start. */
async function restart(): Promise<string> {
  const from = broker.output().length;
  await broker.restart();
  await scenario.waitServed();
  return broker.output().slice(from);
}

const FIRST = '00000000000000000000';

for (const kind of [
  { ext: '.index', entry: 8, check: (f: string, b: Buffer, size: number) => offsetIndexContentError(f, b, 0, size) },
  { ext: '.timeindex', entry: 12, check: (f: string, b: Buffer) => timeIndexContentError(f, b, 0) },
  {
    ext: '.txnindex',
    entry: 34,
    check: (f: string, b: Buffer) => {
      checkTransactionIndex(b, f, 0);
      return undefined;
    },
  },
]) {
  for (const how of CORRUPTIONS) {
    test(`${kind.ext} of the first segment ${how}: rebuilt from the log, clients see the same`, async () => {
      await stopCleanly();
      const file = join(partDir, FIRST + kind.ext);
      const original = await fsp.readFile(file);
      await corrupt(file, how, kind.entry);
      const out = await restart();
      assert.deepEqual(await observe(), expected);
      assert.match(
        out,
        new RegExp(
          `Found a corrupted index file corresponding to log file ${join(partDir, FIRST)}\\.log due to .*, recovering segment and rebuilding index files\\.\\.\\.`,
        ),
      );
      const rebuilt = await fsp.readFile(file);
      const logSize = (await fsp.stat(join(partDir, FIRST + '.log'))).size;
      assert.equal(kind.check(file, rebuilt, logSize), undefined, `${file} is sane again`);
      assert.ok(rebuilt.equals(original), `${file} rebuilt as it was (${rebuilt.length} vs ${original.length} bytes)`);
      if (kind.ext !== '.txnindex') {
        const r = await runTkafka('dump-log', ['--index-sanity-check', '--files', file]);
        assert.equal(r.code, 0, r.err);
        assert.ok(r.out.includes(`${file} passed sanity check.`), r.out);
      }
    });
  }
}

test('.index of the first segment deleted: Kafka\'s "Could not find offset index file" line, rebuilt as it was', async () => {
  await stopCleanly();
  const file = join(partDir, FIRST + '.index');
  const original = await fsp.readFile(file);
  await fsp.rm(file);
  const out = await restart();
  assert.deepEqual(await observe(), expected);
  assert.ok(
    out.includes(
      `Could not find offset index file corresponding to log file ${join(partDir, FIRST)}.log, recovering segment and rebuilding index files...`,
    ),
    out,
  );
  assert.ok((await fsp.readFile(file)).equals(original), `${file} rebuilt as it was`);
});

test('.timeindex of the first segment deleted: rebuilt as it was (Kafka 4.4 would recreate it empty), clients see the same', async () => {
  await stopCleanly();
  const file = join(partDir, FIRST + '.timeindex');
  const original = await fsp.readFile(file);
  await fsp.rm(file);
  const out = await restart();
  assert.deepEqual(await observe(), expected);
  assert.ok(
    out.includes(
      `Could not find time index file corresponding to log file ${join(partDir, FIRST)}.log, recovering segment and rebuilding index files...`,
    ),
    out,
  );
  assert.ok((await fsp.readFile(file)).equals(original), `${file} rebuilt as it was`);
});

for (const how of CORRUPTIONS) {
  test(`newest producer .snapshot ${how}: deleted, producer state rebuilt from the log`, async () => {
    await stopCleanly();
    const snaps = segmentFiles('.snapshot');
    assert.ok(snaps.length >= 2, `snapshots: ${snaps.join(' ')}`);
    const file = join(partDir, snaps[snaps.length - 1]!);
    const original = await fsp.readFile(file);
    await corrupt(file, how, 64);
    const out = await restart();
    assert.match(out, new RegExp(`Failed to load producer snapshot from '${file}': `));
    assert.ok((await fsp.readFile(file)).equals(original), 'the snapshot at the log end offset is written again');
    assert.deepEqual(await observe(), expected);
  });
}

test("killed (-9), the active segment's .txnindex deleted: recovery rebuilds it from the log, as Kafka's recoverSegment", async () => {
  // a clean start first: its producer snapshot at the log end offset is newer than the roll's
  await stopCleanly();
  await restart();
  await broker.kill();
  const active = segmentFiles('.log').pop()!.slice(0, 20);
  const file = join(partDir, active + '.txnindex');
  const original = await fsp.readFile(file);
  assert.ok(original.length >= 34, 'the active segment indexes aborted transactions');
  await fsp.rm(file);
  await restart();
  assert.deepEqual(await observe(), expected);
  assert.ok((await fsp.readFile(file)).equals(original), `${file} rebuilt as it was`);
});

const wrongVersion = async (file: string) =>
  fsp.writeFile(file, (await fsp.readFile(file, 'utf8')).replace(/^0\n/, '1\n'));
const randomBytes = (file: string) => corrupt(file, 'random bytes', 1);

// Kafka reads these through CheckpointFileWithFailureHandler / PartitionMetadataFile /
// FileQuorumStateStore: an unreadable one takes the log directory offline (the only one here: the
// broker stops) or is fatal. LogManager still warns for the two it "resets".
for (const c of [
  {
    name: 'recovery-point-offset-checkpoint with a wrong version line',
    file: () => join(logsDir, 'recovery-point-offset-checkpoint'),
    corrupt: wrongVersion,
    lines: (f: string) => [
      `Error while reading checkpoint file ${f}`,
      `Error occurred while reading recovery-point-offset-checkpoint file of directory ${logsDir}, resetting the recovery checkpoint to 0`,
    ],
  },
  {
    name: 'log-start-offset-checkpoint with random bytes',
    file: () => join(logsDir, 'log-start-offset-checkpoint'),
    corrupt: randomBytes,
    lines: (f: string) => [
      `Error while reading checkpoint file ${f}`,
      `Error occurred while reading log-start-offset-checkpoint file of directory ${logsDir}, resetting to the base offset of the first segment`,
    ],
  },
  {
    name: 'replication-offset-checkpoint with a wrong version line',
    file: () => join(logsDir, 'replication-offset-checkpoint'),
    corrupt: wrongVersion,
    lines: (f: string) => [`Error while reading checkpoint file ${f}`],
  },
  {
    name: 'leader-epoch-checkpoint with random bytes',
    file: () => join(partDir, 'leader-epoch-checkpoint'),
    corrupt: randomBytes,
    lines: (f: string) => [`Error while reading checkpoint file ${f}`],
  },
  {
    name: 'partition.metadata with random bytes',
    file: () => join(partDir, 'partition.metadata'),
    corrupt: randomBytes,
    lines: (f: string) => [`Error while reading partition metadata file ${f}`],
  },
  {
    name: 'quorum-state with random bytes',
    file: () => join(logsDir, '__cluster_metadata-0', 'quorum-state'),
    corrupt: randomBytes,
    lines: (f: string) => [`Error while reading the Quorum status from the file ${f}`],
  },
]) {
  test(`${c.name}: the broker stops naming the file; put back, it serves as before`, async () => {
    await stopCleanly();
    const file = c.file();
    const original = await fsp.readFile(file);
    await c.corrupt(file);
    const from = broker.output().length;
    await assert.rejects(broker.restart(), /broker exited before serving/);
    for (const line of c.lines(file))
      assert.ok(broker.output().slice(from).includes(line), `the broker logged "${line}"`);
    await fsp.writeFile(file, original);
    await broker.restart();
    await scenario.waitServed();
    assert.deepEqual(await observe(), expected);
  });
}
