// Interop: `tkafka dump-log` and `tkafka metadata-quorum` against Apache Kafka 4.4.0.
//  1. A real Apache Kafka broker gets data from real clients (kcat with every codec, headers and null
//     keys; a classic consumer group; a KIP-848 consumer group via Kafka's console consumer; kafkajs
//     transactions, committed and aborted) and writes metadata snapshots. tkafka dump-log then prints
//     exactly what Kafka's DumpLogSegments prints for the broker's own segments, indexes, time
//     indexes, producer snapshots, transaction indexes, __consumer_offsets, __transaction_state,
//     __cluster_metadata logs and .checkpoint snapshots, with every decoder and the main flags, while
//     the broker runs (preallocated indexes) and after it stopped.
//  2. Kafka's DumpLogSegments reads tkafka's own files without errors, and prints what tkafka prints.
//  3. metadata-quorum describe --status / --replication: the same lines from tkafka's tool and Kafka's
//     tool, against the Apache Kafka broker and against the tkafka broker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Kafka, CompressionTypes, logLevel } from 'kafkajs';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { dumpLog } from '../dump-log-fixtures.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { waitFor } from '../helpers/wait-for.js';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
let kafka: ApacheKafka;
let copies: string;

async function produceEverything(k: ApacheKafka): Promise<void> {
  for (const codec of CODECS) {
    const t = `dl-${codec}`;
    const r = await k.runTool('org.apache.kafka.tools.TopicCommand', [
      '--bootstrap-server',
      k.bootstrap,
      '--create',
      '--topic',
      t,
      '--partitions',
      '1',
    ]);
    assert.equal(r.exitCode, 0, r.stderr);
    await k.waitForTopic(t);
    const input =
      Array.from({ length: 400 }, (_, i) => `${i % 5 === 0 ? '' : `key-${i}`}\tvalue-${i}-${'x'.repeat(i % 60)}`).join(
        '\n',
      ) + '\n';
    await execa(
      'kcat',
      [
        '-P',
        '-b',
        k.bootstrap,
        '-t',
        t,
        '-p',
        '0',
        '-K',
        '\t',
        '-Z',
        '-z',
        codec,
        '-H',
        'h1=v1',
        '-H',
        'h2=',
        '-X',
        'batch.num.messages=25',
      ],
      { input, timeout: 60_000 },
    );
  }
  await execa(
    'kcat',
    ['-C', '-b', k.bootstrap, '-G', 'classic-group', 'dl-none', '-e', '-q', '-X', 'auto.offset.reset=earliest'],
    { timeout: 60_000, reject: false },
  );
  const cc = await k.runTool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
    '--bootstrap-server',
    k.bootstrap,
    '--topic',
    'dl-zstd',
    '--group',
    'kip848-group',
    '--consumer-property',
    'group.protocol=consumer',
    '--from-beginning',
    '--max-messages',
    '400',
    '--timeout-ms',
    '30000',
  ]);
  assert.equal(cc.exitCode, 0, cc.stderr);
  const kjs = new Kafka({ clientId: 'dump-log-interop', brokers: [k.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kjs.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'dl-txn', numPartitions: 2 }] });
  await admin.disconnect();
  const p = kjs.producer({ transactionalId: 'dump-log-tx', maxInFlightRequests: 1, idempotent: true });
  await p.connect();
  for (let i = 0; i < 6; i++) {
    const tx = await p.transaction();
    await tx.send({
      topic: 'dl-txn',
      compression: CompressionTypes.GZIP,
      messages: [
        { key: `k${i}`, value: `v${i}`, headers: { a: 'b' }, partition: i % 2 },
        { key: null, value: `n${i}`, partition: 0 },
      ],
    });
    await (i % 3 === 1 ? tx.abort() : tx.commit());
  }
  await p.disconnect();
}

function segmentFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(log|index|timeindex|snapshot|txnindex|checkpoint)$/.test(f)) out.push(relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

function decoderFor(file: string): string[] {
  if (file.includes('__consumer_offsets')) return ['--offsets-decoder'];
  if (file.includes('__transaction_state')) return ['--transaction-log-decoder'];
  if (file.includes('__cluster_metadata') || file.endsWith('.checkpoint')) return ['--cluster-metadata-decoder'];
  return ['--print-data-log'];
}

/** Runs both tools on the same files (one JVM per flag set) and compares everything they print. */
async function compareAll(
  root: string,
  files: string[],
  flagSets: string[][],
  skip?: (file: string, flags: string[]) => boolean,
): Promise<number> {
  let compared = 0;
  const groups = new Map<string, string[]>();
  for (const f of files)
    for (const flags of [...flagSets, decoderFor(f)]) {
      if (skip?.(f, flags)) continue;
      const key = flags.join(' ');
      groups.set(key, [...(groups.get(key) ?? []), f]);
    }
  for (const [key, group] of groups) {
    const args = ['--files', group.join(','), ...(key ? key.split(' ') : [])];
    const k = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', args, { cwd: root });
    const t = await dumpLog(args, root);
    assert.equal(k.exitCode, 0, `Kafka failed on ${args.join(' ')}: ${k.stderr}`);
    assert.equal(t.stdout, k.stdout, `stdout of ${args.join(' ')}`);
    assert.equal(t.stderr, k.stderr, `stderr of ${args.join(' ')}`);
    assert.equal(t.code, 0);
    compared += group.length;
  }
  return compared;
}

before(async () => {
  kafka = await startApacheKafka({
    quorum: 'dynamic',
    overrides: { 'log.index.interval.bytes': 512, 'metadata.log.max.snapshot.interval.ms': 2000 },
  });
  await produceEverything(kafka);
  // a metadata snapshot (metadata.log.max.snapshot.interval.ms=2000) beside format's bootstrap one
  const metadataDir = join(kafka.dataDir, '__cluster_metadata-0');
  await waitFor(
    () =>
      readdirSync(metadataDir).some(
        (f) => /^\d{20}-\d{10}\.checkpoint$/.test(f) && f !== '00000000000000000000-0000000000.checkpoint',
      ),
    { what: 'Apache Kafka to write a metadata snapshot', timeoutMs: 30_000 },
  );
  copies = mkdtempSync(join(tmpdir(), 'tkafka-dump-log-interop-'));
  // A snapshot being written (*.part) may vanish while it is copied.
  cpSync(kafka.dataDir, join(copies, 'running'), { recursive: true, filter: (src) => !src.endsWith('.part') });
});

after(async () => {
  await kafka?.cleanup();
  if (copies) rmSync(copies, { recursive: true, force: true });
});

const FLAG_SETS = [
  [],
  ['--deep-iteration'],
  ['--verify-index-only'],
  ['--index-sanity-check'],
  ['--print-data-log', '--skip-record-metadata'],
];

test("dump-log prints what Kafka's DumpLogSegments prints for a running broker's files", async () => {
  const root = join(copies, 'running');
  // The active segment's indexes are preallocated (zero-filled) while the broker runs; the sanity
  // check fails on them in Kafka with an exception, so that flag is compared on stopped files only.
  const files = segmentFiles(root);
  const n = await compareAll(
    root,
    files,
    FLAG_SETS.filter((f) => !f.includes('--index-sanity-check')),
  );
  assert.ok(n >= files.length * 4);
});

test("dump-log prints what Kafka's DumpLogSegments prints for a stopped broker's files (all file kinds)", async () => {
  await kafka.stop();
  cpSync(kafka.dataDir, join(copies, 'stopped'), { recursive: true });
  const root = join(copies, 'stopped');
  const files = segmentFiles(root);
  for (const kind of ['.log', '.index', '.timeindex', '.snapshot', '.txnindex', '.checkpoint']) {
    assert.ok(
      files.some((f) => f.endsWith(kind)),
      `the broker wrote a ${kind} file`,
    );
  }
  for (const topic of ['__consumer_offsets-0', '__transaction_state-0', '__cluster_metadata-0'])
    assert.ok(
      files.some((f) => f.startsWith(topic)),
      topic,
    );
  // A stopped Kafka 4.4 broker leaves its metadata log's active time index preallocated (4.0 trimmed
  // it), and 4.4's DumpLogSegments dies on its own sanity check of that file. That file is compared
  // on its own below; every other file with every flag set as usual.
  const metaTimeIndex = files
    .filter((f) => f.startsWith('__cluster_metadata-0/') && f.endsWith('.timeindex'))
    .sort()
    .at(-1)!;
  const sanity = (f: string, flags: string[]): boolean => f === metaTimeIndex && flags.includes('--index-sanity-check');
  await compareAll(root, files, FLAG_SETS, sanity);
  const args = ['--files', metaTimeIndex, '--index-sanity-check'];
  const k = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', args, { cwd: root });
  const t = await dumpLog(args, root);
  if (k.exitCode === 0) {
    assert.deepEqual([t.code, t.stdout, t.stderr], [0, k.stdout, k.stderr]);
  } else {
    // Kafka: the uncaught exception and its stack trace; tkafka: the same exception, on one line, exit 1.
    const died = /^Exception in thread "main" (\S+Exception: .+)$/m.exec(k.stderr);
    assert.ok(died, `Kafka failed without an exception line: ${k.stderr}`);
    assert.equal(t.code, 1);
    assert.equal(t.stdout, k.stdout);
    assert.ok(t.stderr.includes(died[1]!), `tkafka's stderr ${t.stderr} lacks ${died[1]}`);
  }
});

let tk: BrokerProcess;
test("Kafka's DumpLogSegments reads tkafka's files without errors and prints what tkafka prints", async () => {
  tk = await startBroker({ overrides: { 'log.index.interval.bytes': 512 } });
  try {
    for (const codec of ['none', 'zstd']) {
      const input =
        Array.from({ length: 300 }, (_, i) => `${i % 5 === 0 ? '' : `key-${i}`}\tvalue-${i}`).join('\n') + '\n';
      await execa(
        'kcat',
        [
          '-P',
          '-b',
          tk.bootstrap,
          '-t',
          `tk-${codec}`,
          '-p',
          '0',
          '-K',
          '\t',
          '-Z',
          '-z',
          codec,
          '-H',
          'h=v',
          '-X',
          'batch.num.messages=20',
        ],
        { input, timeout: 60_000 },
      );
    }
    const kjs = new Kafka({ clientId: 'tk', brokers: [tk.bootstrap], logLevel: logLevel.NOTHING });
    const producer = kjs.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    for (let b = 0; b < 10; b++) {
      await producer.send({
        topic: 'tk-gzip',
        compression: CompressionTypes.GZIP,
        messages: Array.from({ length: 10 }, (_, i) => ({
          partition: 0,
          key: i % 3 ? `k${i}` : null,
          value: `v${b}-${i}`,
          headers: { x: 'y' },
        })),
      });
    }
    await producer.disconnect();
    await tk.stop();
    const root = join(tk.dataDir, 'logs');
    const files = segmentFiles(root);
    assert.ok(files.some((f) => f.startsWith('tk-gzip-0')) && files.some((f) => f.startsWith('__cluster_metadata-0')));
    for (const f of files) {
      const k = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', ['--files', f, ...decoderFor(f)], {
        cwd: root,
      });
      assert.equal(k.exitCode, 0, `${f}: ${k.stderr}`);
      assert.equal(k.stderr, '', `${f}: Kafka reported ${k.stderr}`);
      const t = await dumpLog(['--files', f, ...decoderFor(f)], root);
      assert.equal(t.stdout, k.stdout, f);
    }
  } finally {
    await tk.stop();
    tk.cleanup();
  }
});

async function bothTools(args: string[]): Promise<{ kafka: string; tkafka: string }> {
  const k = await kafka.runTool('org.apache.kafka.tools.MetadataQuorumCommand', args);
  const t = await execa('node', [join(REPO_ROOT, 'bin', 'tkafka'), 'metadata-quorum', ...args], { reject: false });
  assert.equal(k.exitCode, 0, k.stderr);
  assert.equal(t.exitCode, 0, t.stderr);
  return { kafka: k.stdout, tkafka: `${t.stdout}\n` };
}

/** Lines with the values that move between two calls (offsets, timestamps, lag times) masked. */
const stable = (s: string): string =>
  s
    .replace(/^(HighWatermark|MaxFollowerLagTimeMs): +-?\d+$/gm, '$1: N')
    .replace(/\t\d+( +)\t(\d+ +)\t(\d+ +)\t(\d+ +)\t/g, '\tN$1\t$2\tT\tT\t');

test("metadata-quorum describe prints the same fields as Kafka's tool (Apache Kafka broker, then tkafka broker)", async () => {
  await kafka.restart();
  for (const conn of [
    ['--bootstrap-server', kafka.bootstrap],
    ['--bootstrap-controller', kafka.controllerBootstrap],
  ]) {
    const status = await bothTools([...conn, 'describe', '--status']);
    assert.equal(stable(status.tkafka), stable(status.kafka));
    const repl = await bothTools([...conn, 'describe', '--replication']);
    assert.equal(repl.tkafka.split('\n')[0], repl.kafka.split('\n')[0]);
    assert.equal(repl.tkafka.split('\n').length, repl.kafka.split('\n').length);
  }
  const b = await startBroker();
  try {
    for (const conn of [
      ['--bootstrap-server', b.bootstrap],
      ['--bootstrap-controller', `127.0.0.1:${b.controllerPort}`],
    ]) {
      const k = await kafka.runTool('org.apache.kafka.tools.MetadataQuorumCommand', [...conn, 'describe', '--status']);
      const t = await execa(
        'node',
        [join(REPO_ROOT, 'bin', 'tkafka'), 'metadata-quorum', ...conn, 'describe', '--status'],
        { reject: false },
      );
      assert.equal(k.exitCode, 0, k.stderr);
      assert.equal(stable(`${t.stdout}\n`), stable(k.stdout));
    }
  } finally {
    await b.stop();
    b.cleanup();
  }
});
