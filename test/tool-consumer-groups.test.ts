// `tkafka consumer-groups` --list, --describe (offsets, members, state, verbose), --delete and
// --delete-offsets against a real `tkafka server start` process. Records, committed offsets and an
// active group come from kafkajs, which also checks the cluster state the tool leaves behind.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { execa } from 'execa';
import { startBroker, unusedPort, type BrokerProcess } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { run as consumerGroups } from '../src/tools/consumer-groups/main.js';

const { Kafka, logLevel } = kafkajs;

let broker: BrokerProcess;
let kafka: kafkajs.Kafka;
let admin: kafkajs.Admin;
let active: kafkajs.Consumer;

async function cg(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = new Writable({
    write(c, _e, cb) {
      out += String(c);
      cb();
    },
  });
  const stderr = new Writable({
    write(c, _e, cb) {
      err += String(c);
      cb();
    },
  });
  const code = await consumerGroups(argv, { stdout, stderr, stdin: Readable.from([]), env });
  return { code, out, err };
}

const B = (): string[] => ['--bootstrap-server', broker.bootstrap];
async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const found = await waitFor(
    async () => {
      const v = await fn();
      return v === undefined ? undefined : { v };
    },
    { what, timeoutMs: ms },
  );
  return found.v;
}

async function committed(groupId: string, topic: string): Promise<Record<number, string>> {
  const r = await admin.fetchOffsets({ groupId, topics: [topic] });
  return Object.fromEntries(r[0]!.partitions.map((p) => [p.partition, p.offset]));
}

before(async () => {
  broker = await startBroker({
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 1000 },
  });
  kafka = new Kafka({
    brokers: [broker.bootstrap],
    clientId: 'cg-test',
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 100 },
  });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: 'orders', numPartitions: 3 },
      { topic: 'audit', numPartitions: 1 },
      { topic: 'live', numPartitions: 2 },
    ],
    waitForLeaders: true,
  });
  const producer = kafka.producer();
  await producer.connect();
  for (let p = 0; p < 3; p++) {
    await producer.send({
      topic: 'orders',
      acks: -1,
      messages: Array.from({ length: 10 }, (_, i) => ({ partition: p, key: `k${i}`, value: `v${i}` })),
    });
  }
  await producer.send({ topic: 'audit', acks: -1, messages: [{ value: 'a' }, { value: 'b' }] });
  await producer.send({
    topic: 'live',
    acks: -1,
    messages: [
      { partition: 0, value: 'x' },
      { partition: 1, value: 'y' },
    ],
  });
  await producer.disconnect();
  await admin.setOffsets({
    groupId: 'billing',
    topic: 'orders',
    partitions: [
      { partition: 0, offset: '4' },
      { partition: 1, offset: '10' },
      { partition: 2, offset: '0' },
    ],
  });
  await admin.setOffsets({ groupId: 'billing', topic: 'audit', partitions: [{ partition: 0, offset: '1' }] });
  await admin.setOffsets({ groupId: 'to-delete', topic: 'audit', partitions: [{ partition: 0, offset: '2' }] });
  active = kafka.consumer({ groupId: 'watchers', sessionTimeout: 10_000, heartbeatInterval: 500 });
  await active.connect();
  await active.subscribe({ topic: 'live', fromBeginning: true });
  let seen = 0;
  await active.run({
    autoCommitInterval: 100,
    eachMessage: async () => {
      seen++;
    },
  });
  await until('the active group to consume', async () => (seen >= 2 ? true : undefined));
  await until('watchers to commit', async () => {
    const c = await committed('watchers', 'live');
    return c[0] === '1' && c[1] === '1' ? true : undefined;
  });
});

after(async () => {
  await active?.disconnect().catch(() => undefined);
  await admin?.disconnect();
  await broker?.stop();
  broker?.cleanup();
});

test("--list prints one group id per line; --state/--type add Kafka's padded columns", async () => {
  const plain = await cg([...B(), '--list']);
  assert.equal(plain.code, 0, plain.err);
  assert.deepEqual(plain.out.split('\n').slice(0, -1).sort(), ['billing', 'to-delete', 'watchers']);
  const both = await cg([...B(), '--list', '--type', '--state']);
  const lines = both.out.split('\n').slice(0, -1);
  assert.equal(lines[0], `${'GROUP'.padEnd(25)} ${'TYPE'.padEnd(20)} ${'STATE'.padEnd(20)}`);
  assert.deepEqual(lines.slice(1).sort(), [
    `${'billing'.padEnd(25)} ${'Classic'.padEnd(20)} ${'Empty'.padEnd(20)}`,
    `${'to-delete'.padEnd(25)} ${'Classic'.padEnd(20)} ${'Empty'.padEnd(20)}`,
    `${'watchers'.padEnd(25)} ${'Classic'.padEnd(20)} ${'Stable'.padEnd(20)}`,
  ]);
  const stable = await cg([...B(), '--list', '--state', 'stable']);
  assert.equal(
    stable.out,
    `${'GROUP'.padEnd(25)} ${'STATE'.padEnd(20)}\n${'watchers'.padEnd(25)} ${'Stable'.padEnd(20)}\n`,
  );
  const json = JSON.parse((await cg([...B(), '--list', '--output', 'json'])).out);
  assert.deepEqual(
    json.groups.find((g: { group: string }) => g.group === 'billing'),
    { group: 'billing', type: 'Classic', state: 'Empty', protocolType: 'consumer' },
  );
  const bad = await cg([...B(), '--list', '--state', 'foo']);
  assert.equal(bad.code, 1);
  assert.match(
    bad.err,
    /^Invalid state list 'foo'\. Valid states are: Dead, Reconciling, CompletingRebalance, Assigning, Empty, Stable, PreparingRebalance\nOption /,
  );
});

test("--describe (offsets) of an empty group: Kafka's lines, the state message on stderr", async () => {
  const r = await cg([...B(), '--describe', '--group', 'billing']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, "\nConsumer group 'billing' has no active members.\n");
  const lines = r.out.split('\n');
  assert.equal(lines[0], '');
  assert.equal(
    lines[1],
    'GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID',
  );
  const row = (t: string, p: number, cur: number, end: number): string =>
    `${'billing'.padEnd(15)} ${t.padEnd(15)} ${String(p).padEnd(10)} ${String(cur).padEnd(15)} ${String(end).padEnd(15)} ${String(end - cur).padEnd(15)} ${'-'.padEnd(15)} ${'-'.padEnd(15)} -`;
  assert.deepEqual(
    lines.slice(2, -1).sort(),
    [row('audit', 0, 1, 2), row('orders', 0, 4, 10), row('orders', 1, 10, 10), row('orders', 2, 0, 10)].sort(),
  );
  assert.equal(lines[lines.length - 1], '');
  const json = JSON.parse((await cg([...B(), '--describe', '--group', 'billing', '--output', 'json'])).out);
  assert.equal(json.groups[0].state, 'Empty');
  assert.deepEqual(
    json.groups[0].offsets.find((o: { topic: string; partition: number }) => o.topic === 'orders' && o.partition === 0),
    {
      topic: 'orders',
      partition: 0,
      leaderEpoch: null,
      currentOffset: 4,
      logEndOffset: 10,
      lag: 6,
      consumerId: '-',
      host: '-',
      clientId: '-',
    },
  );
  const table = await cg([...B(), '--describe', '--group', 'billing', '--output', 'table']);
  assert.match(
    table.out.split('\n')[0]!,
    /^GROUP\s+TOPIC\s+PARTITION\s+CURRENT-OFFSET\s+LOG-END-OFFSET\s+LAG\s+CONSUMER-ID\s+HOST\s+CLIENT-ID$/,
  );
});

test('--describe of an active group shows its members as kafkajs reports them', async () => {
  const described = (await admin.describeGroups(['watchers'])).groups[0]!;
  assert.equal(described.state, 'Stable');
  const member = described.members[0]!;
  const r = await cg([...B(), '--describe', '--group', 'watchers']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '');
  const rows = r.out.split('\n').slice(2, -1);
  assert.equal(rows.length, 2);
  for (const row of rows) {
    const cols = row.split(/\s+/);
    assert.deepEqual(
      [cols[0], cols[1], cols[6], cols[7], cols[8]],
      ['watchers', 'live', member.memberId, member.clientHost, member.clientId],
    );
    assert.deepEqual([cols[3], cols[4], cols[5]], ['1', '1', '0']);
  }
  const members = await cg([...B(), '--describe', '--group', 'watchers', '--members', '--verbose']);
  const m = members.out.split('\n');
  assert.match(
    m[1]!,
    /^GROUP +CONSUMER-ID +HOST +CLIENT-ID +#PARTITIONS +CURRENT-EPOCH +CURRENT-ASSIGNMENT +TARGET-EPOCH +TARGET-ASSIGNMENT +$/,
  );
  assert.match(
    m[2]!,
    new RegExp(
      `^watchers +${member.memberId} +${member.clientHost.replace(/\./g, '\\.')} +${member.clientId} +2 +- +live:0,1 +- +- *$`,
    ),
  );
  const state = await cg([...B(), '--describe', '--group', 'watchers', '--state']);
  const s = state.out.split('\n');
  assert.equal(
    s[1],
    `${'GROUP'.padEnd(15)} ${'COORDINATOR (ID)'.padEnd(25)} ${'ASSIGNMENT-STRATEGY'.padEnd(20)} ${'STATE'.padEnd(20)} #MEMBERS`,
  );
  assert.equal(
    s[2],
    `${'watchers'.padEnd(15)} ${`127.0.0.1:${broker.port}  (1)`.padEnd(25)} ${described.protocol.padEnd(20)} ${'Stable'.padEnd(20)} 1`,
  );
});

test('--describe --all-groups prints every group sorted by id; Dead/unknown groups are errors', async () => {
  const r = await cg([...B(), '--describe', '--all-groups', '--state']);
  const groups = r.out
    .split('\n')
    .filter((l) => /^\S/.test(l) && !l.startsWith('GROUP'))
    .map((l) => l.split(' ')[0]);
  assert.deepEqual(groups, ['billing', 'to-delete', 'watchers']);
  const missing = await cg([...B(), '--describe', '--group', 'nope']);
  assert.equal(missing.code, 1);
  assert.equal(
    missing.out,
    '\nError: Executing consumer group command failed due to org.apache.kafka.common.errors.GroupIdNotFoundException: Group nope not found.\n',
  );
  assert.equal(missing.err.split('\n').length, 2, missing.err);
  assert.doesNotMatch(missing.err, /\n\s+at /);
});

test('--delete-offsets and --delete change the cluster as kafkajs sees it', async () => {
  const refused = await cg([...B(), '--delete-offsets', '--group', 'watchers', '--topic', 'live']);
  assert.equal(refused.code, 1);
  assert.match(
    refused.out,
    /^\nError: Encountered some partition-level error, see the follow-up details\.\n\nTOPIC {11}PARTITION {2}STATUS {9}\nlive {12}0 {10}Error: org\.apache\.kafka\.common\.errors\.GroupSubscribedToTopicException: /,
  );
  assert.deepEqual(await committed('watchers', 'live'), { 0: '1', 1: '1' });

  const ok = await cg([...B(), '--delete-offsets', '--group', 'billing', '--topic', 'audit', '--topic', 'orders:2']);
  assert.equal(ok.code, 0, ok.err);
  assert.equal(
    ok.out,
    'Request succeeded for deleting offsets from group billing.\n' +
      `\n${'TOPIC'.padEnd(15)} ${'PARTITION'.padEnd(10)} ${'STATUS'.padEnd(15)}` +
      `\n${'audit'.padEnd(15)} ${'0'.padEnd(10)} ${'Successful'.padEnd(15)}` +
      `\n${'orders'.padEnd(15)} ${'2'.padEnd(10)} ${'Successful'.padEnd(15)}\n`,
  );
  assert.deepEqual(await committed('billing', 'audit'), { 0: '-1' });
  assert.deepEqual(await committed('billing', 'orders'), { 0: '4', 1: '10', 2: '-1' });

  const notEmpty = await cg([...B(), '--delete', '--group', 'watchers', '--group', 'to-delete']);
  assert.equal(notEmpty.code, 1);
  assert.equal(
    notEmpty.out,
    '\nError: Deletion of some consumer groups failed:\n' +
      "* Group 'watchers' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException: The group is not empty.\n" +
      "\nThese consumer groups were deleted successfully: 'to-delete', '\n",
  );
  const listed = (await admin.listGroups()).groups.map((g) => g.groupId).sort();
  assert.deepEqual(listed, ['billing', 'watchers']);
});

test("usage errors: Kafka's message and help on stderr, exit 1", async () => {
  const cases: [string[], string][] = [
    [['--describe'], 'Option [describe] takes one of these options: [all-groups], [group]'],
    [['--list', '--group', 'g'], 'Option "[group]" can\'t be used with option "[list]"'],
    [
      ['--describe', '--group', 'g', '--members', '--state'],
      'Option [describe] takes at most one of these options: [members], [offsets], [state]',
    ],
    [
      ['--delete', '--group', 'g', '--topic', 't'],
      'The consumer does not support topic-specific offset deletion from a consumer group.',
    ],
    [['--delete-offsets', '--group', 'g'], 'Option [delete-offsets] takes the following options: [group], [topic]'],
    [
      ['--reset-offsets', '--group', 'g', '--to-offset', '1', '--to-latest', '--dry-run'],
      'Option "[to-offset]" can\'t be used with option "[to-latest]"',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--execute'],
      'Option [reset-offsets] only accepts one of [execute] and [dry-run]',
    ],
    [
      ['--group', 'g'],
      'Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets, --validate-regex',
    ],
  ];
  for (const [args, message] of cases) {
    const r = await cg([...B(), ...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.out, '');
    assert.equal(r.err.split('\n')[0], message, args.join(' '));
    assert.match(r.err, /\nOption {34}Description {28}\n/);
  }
  const unavailable = await cg([...B(), '--list', '--members']);
  assert.deepEqual(unavailable, {
    code: 1,
    out: '',
    err: 'Option(s) [members] are unavailable given other options on the command line\n',
  });
  const missing = await cg(['--list']);
  assert.equal(missing.err.split('\n')[0], 'Missing required argument "[bootstrap-server]"');
  const fromEnv = await cg(['--list'], { TKAFKA_BOOTSTRAP_SERVER: broker.bootstrap });
  assert.equal(fromEnv.code, 0);
  assert.match(fromEnv.out, /^billing$/m);
});

test('an unreachable cluster is one line on stderr and exit 1 (bin/tkafka, no stack trace)', async () => {
  const port = await unusedPort();
  const r = await execa(
    'node',
    ['bin/tkafka', 'consumer-groups', '--bootstrap-server', `127.0.0.1:${port}`, '--list'],
    { cwd: REPO_ROOT, reject: false },
  );
  assert.equal(r.exitCode, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').length, 1, r.stderr);
  assert.match(
    r.stderr,
    /^Error: Executing consumer group command failed due to Could not connect to any bootstrap server \(127\.0\.0\.1:\d+/,
  );
});
