// `tkafka transactions` against a broker process: Kafka's tables and error lines for list,
// describe, describe-producers, abort and find-hanging, --output json, and the kill -9 scenario:
// a transaction open when the broker dies is aborted after the restart, find-hanging reports
// nothing, and `tkafka dump-log` shows the ABORT marker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { join } from 'node:path';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch.js';
import { RawClient } from './helpers/raw-client.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import type { BrokerProcess } from './helpers/broker-process.js';
import { startBroker as startTxnBroker } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';

let broker: BrokerProcess;
let c: RawClient;
let pid = 0n;
let openOffset = 0n;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const found = await waitFor(
    async () => {
      const v = await fn();
      return v === undefined ? undefined : { v };
    },
    { what, timeoutMs: ms },
  );
  return found.v;
}

const tkafka = (args: string[]) =>
  execa('node', [join(REPO_ROOT, 'bin/tkafka'), ...args], { reject: false, timeout: 60_000 });
const txns = (...args: string[]) => tkafka(['transactions', '--bootstrap-server', broker.bootstrap, ...args]);

/** Kafka's ToolsUtils.prettyPrintTable, to state expected output. */
const table = (rows: string[][]): string => {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((v, i) => v.padEnd(w[i]!) + '\t').join('') + '\n').join('');
};

async function produce(topic: string, records: Buffer, transactionalId: string | null) {
  const r = await c.request(ApiKey.Produce, 9, {
    transactionalId,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
  });
  return r.responses[0].partitionResponses[0];
}

before(async () => {
  // verification off, so that a transactional write without a coordinator (a hanging transaction) can be made
  broker = await startTxnBroker({
    overrides: {
      'offsets.topic.num.partitions': 1,
      'transaction.state.log.num.partitions': 1,
      'transaction.partition.verification.enable': false,
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': 300,
    },
  });
  c = await RawClient.connect(broker.port);
  for (const name of ['tool', 'hang']) {
    await c.request(ApiKey.CreateTopics, 7, {
      topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
  }
  await until('leaders', async () => {
    const md = await c.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
    return md.topics.filter((t) => ['tool', 'hang'].includes(t.name ?? '') && (t.partitions[0]?.leaderId ?? -1) >= 0)
      .length === 2
      ? true
      : undefined;
  });
  await until('coordinator', async () =>
    (await c.request(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tool-txn'] })).coordinators[0]
      .errorCode === 0
      ? true
      : undefined,
  );
  const init = await until('InitProducerId', async () => {
    const r = await c.request(ApiKey.InitProducerId, 4, {
      transactionalId: 'tool-txn',
      // long enough to stay open through the first test on a loaded machine (it failed at 3 s once, when the
      // tools took 7 s); short enough that the coordinator aborts it soon after the kill -9 test's restart
      transactionTimeoutMs: 30_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    return r.errorCode === 0 ? r : undefined;
  });
  pid = init.producerId;
  const add = await c.request(ApiKey.AddPartitionsToTxn, 3, {
    v3AndBelowTransactionalId: 'tool-txn',
    v3AndBelowProducerId: pid,
    v3AndBelowProducerEpoch: 0,
    v3AndBelowTopics: [{ name: 'tool', partitions: [0] }],
  });
  assert.equal(add.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode, 0);
  await produce('tool', buildRecordBatchSync({ records: [{ value: 'plain' }] }), null);
  const w = await produce(
    'tool',
    buildRecordBatchSync({
      producerId: pid,
      producerEpoch: 0,
      baseSequence: 0,
      transactional: true,
      records: [{ value: 'a' }, { value: 'b' }],
    }),
    'tool-txn',
  );
  assert.equal(w.errorCode, 0);
  openOffset = w.baseOffset;
});

after(async () => {
  c?.close();
  await broker?.stop();
  broker?.cleanup();
});

test("list, describe and describe-producers print Kafka's tables during an open transaction", async () => {
  const list = await txns('list');
  assert.equal(list.exitCode, 0, list.stderr);
  assert.equal(
    list.stdout + '\n',
    table([
      ['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState'],
      ['tool-txn', '1', String(pid), 'Ongoing'],
    ]),
  );

  // --transactional-id-pattern (ListTransactions v2, KIP-1152): the whole id must match
  const byPattern = await txns('list', '--transactional-id-pattern', 'tool-.*');
  assert.equal(byPattern.stdout, list.stdout);
  const none = await txns('list', '--transactional-id-pattern', 'tool');
  assert.equal(none.exitCode, 0, none.stderr);
  assert.equal(none.stdout + '\n', table([['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState']]));
  const bad = await txns('list', '--transactional-id-pattern', '(');
  assert.equal(bad.exitCode, 1);
  assert.equal(
    bad.stderr.trim(),
    'Failed to list transactions: ListTransactions request sent to broker 1 failed with an unexpected exception. Enable debug logging for additional detail.',
  );

  const d = await txns('describe', '--transactional-id', 'tool-txn');
  assert.equal(d.exitCode, 0, d.stderr);
  const [head, row] = d.stdout.split('\n');
  assert.equal(
    head,
    'CoordinatorId\tTransactionalId\tProducerId\tProducerEpoch\tTransactionState\tTransactionTimeoutMs\tCurrentTransactionStartTimeMs\tTransactionDurationMs\tTopicPartitions\t',
  );
  const cells = row!.split('\t').map((s) => s.trim());
  assert.deepEqual(
    [cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[8]],
    ['1', 'tool-txn', String(pid), '0', 'Ongoing', '30000', 'tool-0'],
  );
  assert.match(cells[6]!, /^\d{13}$/);
  assert.match(cells[7]!, /^\d+$/);

  const p = await txns('describe-producers', '--topic', 'tool', '--partition', '0');
  assert.equal(p.exitCode, 0, p.stderr);
  const lines = p.stdout.split('\n');
  assert.equal(
    lines[0],
    'ProducerId\tProducerEpoch\tLatestCoordinatorEpoch\tLastSequence\tLastTimestamp\tCurrentTransactionStartOffset\t',
  );
  const prow = lines[1]!.split('\t').map((s) => s.trim());
  assert.deepEqual([prow[0], prow[1], prow[2], prow[3], prow[5]], [String(pid), '0', '-1', '1', String(openOffset)]);

  const json = await txns('describe-producers', '--topic', 'tool', '--partition', '0', '--output', 'json');
  const doc = JSON.parse(json.stdout);
  assert.deepEqual(
    { ...doc.producers[0], lastTimestamp: 0 },
    {
      producerId: Number(pid),
      producerEpoch: 0,
      latestCoordinatorEpoch: -1,
      lastSequence: 1,
      lastTimestamp: 0,
      currentTransactionStartOffset: Number(openOffset),
    },
  );
  const dj = JSON.parse((await txns('describe', '--transactional-id', 'tool-txn', '--output', 'json')).stdout);
  assert.equal(dj.transactionState, 'Ongoing');
  assert.deepEqual(dj.topicPartitions, ['tool-0']);
  const lj = JSON.parse((await txns('list', '--output', 'json')).stdout);
  assert.deepEqual(lj, {
    transactions: [
      { transactionalId: 'tool-txn', coordinator: 1, producerId: Number(pid), transactionState: 'Ongoing' },
    ],
  });
});

test('errors: unknown id, unknown partition, bad usage, --help exits 1', async () => {
  const d = await txns('describe', '--transactional-id', 'ghost');
  assert.equal(d.exitCode, 1);
  assert.equal(
    d.stderr.trim(),
    'Failed to describe transaction state of transactional-id `ghost`: DescribeTransactions request for transactionalId `ghost` failed because the ID could not be found. Enable debug logging for additional detail.',
  );
  const a = await txns('abort', '--topic', 'tool', '--partition', '0');
  assert.equal(a.exitCode, 1);
  assert.match(
    a.stderr,
    /^The transaction to abort must be identified either with --start-offset \(for brokers on 3\.0 or above\) or with --producer-id, --producer-epoch, and --coordinator-epoch \(for older brokers\)$/m,
  );
  const e = await txns('abort', '--topic', 'tool', '--partition', '0', '--producer-id', '5');
  assert.equal(e.stderr.trim(), 'Missing required argument --producer-epoch');
  const none = await txns('abort', '--topic', 'tool', '--partition', '0', '--start-offset', '999');
  assert.equal(none.stderr.trim(), 'Could not find any open transactions starting at offset 999 on partition tool-0');
  const fh = await txns('find-hanging', '--broker-id', '1', '--partition', '0');
  assert.equal(fh.stderr.trim(), 'The --partition argument requires --topic to be provided');
  const usage = await tkafka(['transactions', 'list']);
  assert.equal(usage.exitCode, 1);
  assert.match(usage.stderr, /kafka-transactions\.sh: error: argument --bootstrap-server is required/);
  const help = await tkafka(['transactions', '--help']);
  assert.equal(help.exitCode, 1);
  assert.match(help.stdout, /^usage: kafka-transactions\.sh/);
});

test('find-hanging reports a transaction its coordinator does not know; abort --start-offset ends it', async () => {
  const idem = await c.request(ApiKey.InitProducerId, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  const w = await produce(
    'hang',
    buildRecordBatchSync({
      producerId: idem.producerId,
      producerEpoch: 0,
      baseSequence: 0,
      transactional: true,
      records: [{ value: 'stuck' }],
    }),
    'nobody',
  );
  assert.equal(w.errorCode, 0);
  await sleep(5); // time is the point: the transaction must be older than --max-transaction-timeout 0
  const found = await txns('find-hanging', '--broker-id', '1', '--max-transaction-timeout', '0');
  assert.equal(found.exitCode, 0, found.stderr);
  const lines = found.stdout.split('\n').filter((l) => l !== '');
  assert.equal(
    lines[0],
    'Topic\tPartition\tProducerId\tProducerEpoch\tCoordinatorEpoch\tStartOffset\tLastTimestamp\tDuration(min)\t',
  );
  assert.equal(lines.length, 2, found.stdout); // tool-txn is open but known to its coordinator: not hanging
  assert.deepEqual(
    lines[1]!
      .split('\t')
      .map((s) => s.trim())
      .slice(0, 6),
    ['hang', '0', String(idem.producerId), '0', '-1', String(w.baseOffset)],
  );
  const fj = JSON.parse(
    (await txns('find-hanging', '--topic', 'hang', '--max-transaction-timeout', '0', '--output', 'json')).stdout,
  );
  assert.equal(fj.hangingTransactions.length, 1);

  const ab = await txns('abort', '--topic', 'hang', '--partition', '0', '--start-offset', String(w.baseOffset));
  assert.equal(ab.exitCode, 0, ab.stderr);
  assert.equal(ab.stdout, '');
  const after = await txns('find-hanging', '--topic', 'hang', '--max-transaction-timeout', '0');
  assert.equal(
    after.stdout + '\n',
    'Topic\tPartition\tProducerId\tProducerEpoch\tCoordinatorEpoch\tStartOffset\tLastTimestamp\tDuration(min)\t\n',
  );
  const lso = await c.request(ApiKey.ListOffsets, 7, {
    replicaId: -1,
    isolationLevel: 1,
    topics: [{ name: 'hang', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
  });
  assert.equal(lso.topics[0].partitions[0].offset, w.baseOffset + 2n);
});

test(
  'kill -9 with the transaction open: aborted after the restart, nothing hanging, dump-log shows the marker',
  { timeout: 120_000 },
  async () => {
    c.close();
    await broker.kill();
    await broker.restart();
    c = await RawClient.connect(broker.port);
    await until(
      'abort by timeout',
      async () => {
        const r = await txns('describe', '--transactional-id', 'tool-txn', '--output', 'json');
        return r.exitCode === 0 && JSON.parse(r.stdout).transactionState === 'CompleteAbort' ? true : undefined;
      },
      60_000,
    );
    const offsets = async (iso: number) =>
      (
        await c.request(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: iso,
          topics: [{ name: 'tool', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        })
      ).topics[0].partitions[0];
    assert.equal((await offsets(1)).errorCode, ErrorCode.NONE);
    assert.equal((await offsets(1)).offset, (await offsets(0)).offset, 'LSO advanced to the high watermark');
    const hanging = await txns('find-hanging', '--broker-id', '1', '--max-transaction-timeout', '0');
    assert.equal(hanging.exitCode, 0, hanging.stderr);
    assert.equal(hanging.stdout.split('\n').filter((l) => l !== '').length, 1, hanging.stdout);
    const dump = await tkafka([
      'dump-log',
      '--files',
      join(broker.dataDir, 'logs', 'tool-0', '00000000000000000000.log'),
      '--print-data-log',
    ]);
    assert.equal(dump.exitCode, 0, dump.stderr);
    assert.match(
      dump.stdout,
      // the coordinator's abort of the timed-out transaction is a V2 one (transaction.version 2):
      // fenced (+1) and aborted (+1)
      new RegExp(`producerId: ${pid} producerEpoch: 2 .*isTransactional: true isControl: true`),
    );
    assert.match(dump.stdout, /endTxnMarker: ABORT coordinatorEpoch: \d+/);
  },
);

test(
  'forceTerminateTransaction aborts an ongoing transaction and fences its producer',
  { timeout: 60_000 },
  async () => {
    const init = await until('InitProducerId', async () => {
      const r = await c.request(ApiKey.InitProducerId, 4, {
        transactionalId: 'force-txn',
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
      });
      return r.errorCode === 0 ? r : undefined;
    });
    const add = await c.request(ApiKey.AddPartitionsToTxn, 3, {
      v3AndBelowTransactionalId: 'force-txn',
      v3AndBelowProducerId: init.producerId,
      v3AndBelowProducerEpoch: init.producerEpoch,
      v3AndBelowTopics: [{ name: 'tool', partitions: [0] }],
    });
    assert.equal(add.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode, 0);
    const batch = (seq: number) =>
      buildRecordBatchSync({
        producerId: init.producerId,
        producerEpoch: init.producerEpoch,
        baseSequence: seq,
        transactional: true,
        records: [{ value: 'x' }],
      });
    assert.equal((await produce('tool', batch(0), 'force-txn')).errorCode, 0);
    const before = await txns('describe', '--transactional-id', 'force-txn', '--output', 'json');
    assert.equal(JSON.parse(before.stdout).transactionState, 'Ongoing');

    const force = await txns('forceTerminateTransaction', '--transactionalId', 'force-txn');
    assert.equal(force.exitCode, 0, force.stderr);
    assert.equal(force.stdout, '');
    const after = await until('the abort completes', async () => {
      const r = await txns('describe', '--transactional-id', 'force-txn', '--output', 'json');
      const d = r.exitCode === 0 ? JSON.parse(r.stdout) : undefined;
      return d && ['CompleteAbort', 'Empty'].includes(d.transactionState) ? d : undefined;
    });
    assert.equal(after.producerId, Number(init.producerId));
    assert.ok(after.producerEpoch > init.producerEpoch, `epoch ${after.producerEpoch} > ${init.producerEpoch}`);
    // the old producer is fenced
    const stale = await produce('tool', batch(1), 'force-txn');
    assert.notEqual(stale.errorCode, ErrorCode.NONE);

    const usage = await txns('forceTerminateTransaction');
    assert.equal(usage.exitCode, 1);
    assert.match(usage.stderr, /kafka-transactions\.sh: error: argument --transactionalId is required/);
  },
);
