// `tkafka transactions` against a real Apache Kafka 4.4 broker, compared with Kafka's own
// TransactionsCommand: a librdkafka producer (confluent-kafka) holds a transaction open while both
// tools run list, describe and describe-producers (and their error cases). Time-dependent cells
// (TransactionDurationMs) are compared loosely; everything else must be identical.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker as startTxnBroker } from '../helpers/broker-process.js';
import kafkajs from 'kafkajs';
import { waitFor } from '../helpers/wait-for.js';

const TOOL = 'org.apache.kafka.tools.TransactionsCommand';
let kafka: ApacheKafka;
let holder: ResultPromise | undefined;
let scratch = '';

/** Opens a transaction (two records in topic itx, partition 0), prints "open" and waits for stdin to close. */
const HOLD_OPEN = `
import sys
from confluent_kafka import Producer
p = Producer({'bootstrap.servers': sys.argv[1], 'transactional.id': sys.argv[2] if len(sys.argv) > 2 else 'interop-txn', 'transaction.timeout.ms': 600000})
p.init_transactions(60)
p.begin_transaction()
p.produce('itx', value=b'one', partition=0)
p.produce('itx', value=b'two', partition=0)
p.flush(60)
print('open', flush=True)
sys.stdin.read()
p.abort_transaction(60)
`;

before(async () => {
  kafka = await startApacheKafka({
    overrides: { 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 },
  });
  const created = await kafka.runTool('org.apache.kafka.tools.TopicCommand', [
    '--bootstrap-server',
    kafka.bootstrap,
    '--create',
    '--topic',
    'itx',
    '--partitions',
    '2',
    '--replication-factor',
    '1',
  ]);
  assert.equal(created.exitCode, 0, created.stderr);
  await kafka.waitForTopic('itx', { partitions: 2 });
  scratch = mkdtempSync(join(tmpdir(), 'tkafka-itx-'));
  const script = join(scratch, 'hold.py');
  writeFileSync(script, HOLD_OPEN);
  holder = execa('/usr/bin/python3', [script, kafka.bootstrap], { reject: false, stdin: 'pipe', buffer: false });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the transaction did not open in time')), 90_000);
    holder!.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('open')) {
        clearTimeout(t);
        resolve();
      }
    });
  });
});

after(async () => {
  holder?.stdin?.end();
  await holder?.catch(() => undefined);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await kafka?.cleanup();
});

const ours = (args: string[]) =>
  execa('node', [join(REPO_ROOT, 'bin/tkafka'), 'transactions', '--bootstrap-server', kafka.bootstrap, ...args], {
    reject: false,
    timeout: 60_000,
  });
const theirs = (args: string[]) => kafka.runTool(TOOL, ['--bootstrap-server', kafka.bootstrap, ...args]);

/** Splits a table into rows of trimmed cells (Kafka pads each cell and ends it with a TAB). */
const cells = (s: string): string[][] =>
  s
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t').map((c) => c.trim()));

test("list: the same table as Kafka's tool", async () => {
  const [a, b] = await Promise.all([ours(['list']), theirs(['list'])]);
  assert.equal(b.exitCode, 0, b.stderr);
  assert.equal(a.exitCode, 0, a.stderr);
  assert.equal(a.stdout, b.stdout.replace(/\n$/, ''));
  assert.ok(cells(a.stdout).some((r) => r[0] === 'interop-txn' && r[3] === 'Ongoing'));
});

test('list --transactional-id-pattern (KIP-1152): a match, no match and a bad pattern read the same', async () => {
  for (const pattern of ['interop-.*', 'interop', '(']) {
    const args = ['list', '--transactional-id-pattern', pattern];
    const [a, b] = await Promise.all([ours(args), theirs(args)]);
    assert.equal(a.exitCode, b.exitCode, `${pattern}: ${a.stderr} / ${b.stderr}`);
    assert.equal(a.stdout, b.stdout.replace(/\n$/, ''), pattern);
    const kafkaLine =
      b.stderr
        .split('\n')
        .filter((l) => l !== '' && !/^\[\d{4}-|^\s+at |WARN|ERROR|Exception in thread/.test(l))
        .pop() ?? '';
    assert.equal(a.stderr.trim(), kafkaLine.trim(), pattern);
  }
  const rows = cells((await ours(['list', '--transactional-id-pattern', 'interop-.*'])).stdout);
  assert.deepEqual(
    rows.map((r) => r[0]),
    ['TransactionalId', 'interop-txn'],
  );
});

test("describe: same cells, the duration within a few seconds of Kafka's", async () => {
  const [a, b] = await Promise.all([
    ours(['describe', '--transactional-id', 'interop-txn']),
    theirs(['describe', '--transactional-id', 'interop-txn']),
  ]);
  assert.equal(b.exitCode, 0, b.stderr);
  assert.equal(a.exitCode, 0, a.stderr);
  const [ha, ra] = cells(a.stdout);
  const [hb, rb] = cells(b.stdout);
  assert.deepEqual(ha, hb);
  const durationCol = hb!.indexOf('TransactionDurationMs');
  assert.deepEqual(
    ra!.filter((_, i) => i !== durationCol),
    rb!.filter((_, i) => i !== durationCol),
  );
  assert.ok(Math.abs(Number(ra![durationCol]) - Number(rb![durationCol])) < 15_000);
  assert.equal(ra![hb!.indexOf('TransactionState')], 'Ongoing');
  assert.equal(ra![hb!.indexOf('TopicPartitions')], 'itx-0');
});

test('describe-producers: identical output for the partition with the open transaction and for an idle one', async () => {
  for (const partition of ['0', '1']) {
    const args = ['describe-producers', '--topic', 'itx', '--partition', partition];
    const [a, b] = await Promise.all([ours(args), theirs(args)]);
    assert.equal(b.exitCode, 0, b.stderr);
    assert.equal(a.exitCode, 0, a.stderr);
    assert.equal(a.stdout, b.stdout.replace(/\n$/, ''));
  }
  const rows = cells((await ours(['describe-producers', '--topic', 'itx', '--partition', '0'])).stdout);
  assert.equal(rows.length, 2);
  assert.equal(rows[1]![5], '0', 'CurrentTransactionStartOffset');
});

test('errors: unknown transactional id and find-hanging argument checks read the same', async () => {
  for (const args of [
    ['describe', '--transactional-id', 'no-such-txn'],
    ['find-hanging'],
    ['find-hanging', '--broker-id', '1', '--partition', '0'],
    ['abort', '--topic', 'itx', '--partition', '0'],
  ]) {
    const [a, b] = await Promise.all([ours(args), theirs(args)]);
    assert.equal(a.exitCode, b.exitCode, `${args.join(' ')}: ${a.stderr} / ${b.stderr}`);
    const kafkaLine =
      b.stderr
        .split('\n')
        .filter((l) => l !== '' && !/^\[\d{4}-|^\s+at |WARN|Exception in thread/.test(l))
        .pop() ?? '';
    assert.equal(a.stderr.trim(), kafkaLine.trim(), args.join(' '));
  }
});

test('find-hanging: nothing hanging while the producer is alive (both tools)', async () => {
  const args = ['find-hanging', '--broker-id', String(kafka.nodeId), '--max-transaction-timeout', '0'];
  const [a, b] = await Promise.all([ours(args), theirs(args)]);
  assert.equal(b.exitCode, 0, b.stderr);
  assert.equal(a.stdout, b.stdout.replace(/\n$/, ''));
});

/** Starts hold.py with `id` on `bootstrap` and resolves once its transaction is open (wrapped: a bare
 * ResultPromise would be awaited to the process's exit). */
async function holdOpen(bootstrap: string, id: string): Promise<{ p: ResultPromise }> {
  const p = execa('/usr/bin/python3', [join(scratch, 'hold.py'), bootstrap, id], {
    reject: false,
    stdin: 'pipe',
    buffer: false,
  });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('the transaction did not open in time')), 60_000);
    p.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('open')) {
        clearTimeout(t);
        resolve();
      }
    });
  });
  return { p };
}

/** The TransactionState cell of `describe` for `id` (either tool's table). */
const stateOf = (out: string): string | undefined => {
  const [h, r] = cells(out);
  return h && r ? r[h.indexOf('TransactionState')] : undefined;
};

test(
  'forceTerminateTransaction: the same usage and help as Kafka 4.4; ours aborts an open transaction on Apache Kafka',
  { timeout: 120_000 },
  async () => {
    for (const args of [['forceTerminateTransaction'], ['forceTerminateTransaction', '--help']]) {
      const [a, b] = await Promise.all([ours(args), theirs(args)]);
      assert.equal(a.exitCode, b.exitCode, args.join(' '));
      assert.equal(a.stdout, b.stdout.replace(/\n$/, ''), args.join(' '));
      assert.equal(a.stderr, b.stderr.replace(/\n$/, ''), args.join(' '));
    }
    const { p: hold } = await holdOpen(kafka.bootstrap, 'force-kafka');
    try {
      const open = await theirs(['describe', '--transactional-id', 'force-kafka']);
      assert.equal(stateOf(open.stdout), 'Ongoing', open.stdout);
      const f = await ours(['forceTerminateTransaction', '--transactionalId', 'force-kafka']);
      assert.equal(f.exitCode, 0, f.stderr);
      assert.equal(f.stdout, '');
      await waitFor(
        async () => {
          const d = await theirs(['describe', '--transactional-id', 'force-kafka']);
          return ['CompleteAbort', 'Empty'].includes(stateOf(d.stdout) ?? '') ? true : undefined;
        },
        { what: "Kafka's coordinator to abort force-kafka", timeoutMs: 30_000 },
      );
    } finally {
      hold.stdin?.end();
      await hold.catch(() => undefined);
    }
  },
);

test(
  "Kafka's TransactionsCommand against a tkafka broker prints what tkafka's tool prints",
  { timeout: 180_000 },
  async () => {
    const broker = await startTxnBroker({
      overrides: { 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 },
    });
    let hold: ResultPromise | undefined;
    try {
      const mk = await execa(
        'node',
        [
          join(REPO_ROOT, 'bin/tkafka'),
          'topics',
          '--bootstrap-server',
          broker.bootstrap,
          '--create',
          '--topic',
          'itx',
          '--partitions',
          '2',
        ],
        { reject: false },
      );
      assert.equal(mk.exitCode, 0, mk.stderr);
      hold = execa('/usr/bin/python3', [join(scratch, 'hold.py'), broker.bootstrap, 'tk-txn'], {
        reject: false,
        stdin: 'pipe',
        buffer: false,
      });
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('the transaction did not open in time')), 60_000);
        hold!.stdout!.on('data', (d: Buffer) => {
          if (d.toString().includes('open')) {
            clearTimeout(t);
            resolve();
          }
        });
      });
      const ourTool = (args: string[]) =>
        execa(
          'node',
          [join(REPO_ROOT, 'bin/tkafka'), 'transactions', '--bootstrap-server', broker.bootstrap, ...args],
          { reject: false, timeout: 60_000 },
        );
      const kafkaTool = (args: string[]) => runKafkaTool(TOOL, ['--bootstrap-server', broker.bootstrap, ...args]);
      for (const args of [
        ['list'],
        ['list', '--transactional-id-pattern', 'tk-.*'],
        ['list', '--transactional-id-pattern', 'tk'],
        ['list', '--transactional-id-pattern', '('],
        ['describe-producers', '--topic', 'itx', '--partition', '0'],
        ['find-hanging', '--broker-id', '1'],
        ['describe', '--transactional-id', 'nope'],
      ]) {
        const [a, b] = await Promise.all([ourTool(args), kafkaTool(args)]);
        assert.equal(a.exitCode, b.exitCode, `${args.join(' ')}: ${a.stderr} / ${b.stderr}`);
        assert.equal(a.stdout, b.stdout.replace(/\n$/, ''), args.join(' '));
      }
      const [a, b] = await Promise.all([
        ourTool(['describe', '--transactional-id', 'tk-txn']),
        kafkaTool(['describe', '--transactional-id', 'tk-txn']),
      ]);
      assert.equal(b.exitCode, 0, b.stderr);
      const strip = (rows: string[][]) => rows.map((r) => r.filter((_, i) => i !== 7));
      assert.deepEqual(strip(cells(a.stdout)), strip(cells(b.stdout)));
      // Kafka's forceTerminateTransaction (FenceProducersHandler's InitProducerId) against tkafka's coordinator
      const f = await kafkaTool(['forceTerminateTransaction', '--transactionalId', 'tk-txn']);
      assert.equal(f.exitCode, 0, f.stderr);
      await waitFor(
        async () => {
          const d = await ourTool(['describe', '--transactional-id', 'tk-txn']);
          return ['CompleteAbort', 'Empty'].includes(stateOf(d.stdout) ?? '') ? true : undefined;
        },
        { what: 'tkafka to abort tk-txn', timeoutMs: 30_000 },
      );
    } finally {
      hold?.stdin?.end();
      await hold?.catch(() => undefined);
      await broker.stop();
      broker.cleanup();
    }
  },
);

test("Kafka's DumpLogSegments reads tkafka's .snapshot and .txnindex files", { timeout: 120_000 }, async () => {
  const broker = await startTxnBroker({
    overrides: { 'transaction.state.log.num.partitions': 1, 'offsets.topic.num.partitions': 1 },
  });
  try {
    const client = new kafkajs.Kafka({ brokers: [broker.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
    const admin = client.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'snap', numPartitions: 1 }] });
    await admin.disconnect();
    const p = client.producer({ transactionalId: 'snap-txn', maxInFlightRequests: 1, idempotent: true });
    await p.connect();
    for (const commit of [true, false, true]) {
      const t = await p.transaction();
      await t.send({ topic: 'snap', messages: [{ value: 'x' }, { value: 'y' }] });
      await (commit ? t.commit() : t.abort());
    }
    await p.disconnect();
  } finally {
    await broker.stop(); // clean shutdown: a snapshot at the log end offset
  }
  try {
    const dir = join(broker.dataDir, 'logs', 'snap-0');
    const files = readdirSync(dir).filter((f) => /\.(snapshot|txnindex)$/.test(f));
    assert.deepEqual(files.map((f) => f.slice(20)).sort(), ['.snapshot', '.txnindex']);
    for (const f of files) {
      const k = await runKafkaTool('org.apache.kafka.tools.DumpLogSegments', ['--files', join(dir, f)]);
      assert.equal(k.exitCode, 0, k.stderr);
      const t = await execa('node', [join(REPO_ROOT, 'bin/tkafka'), 'dump-log', '--files', join(dir, f)], {
        reject: false,
      });
      assert.equal(t.exitCode, 0, t.stderr);
      const lines = (s: string) =>
        s
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '');
      assert.deepEqual(lines(t.stdout), lines(k.stdout), f);
      assert.match(
        k.stdout,
        f.endsWith('.txnindex')
          ? /version: 0 producerId: \d+ firstOffset: 3 lastOffset: 5 lastStableOffset: 6/
          : /producerId: \d+ producerEpoch: 0 coordinatorEpoch: \d+ currentTxnFirstOffset: OptionalLong.empty/,
      );
    }
  } finally {
    broker.cleanup();
  }
});
