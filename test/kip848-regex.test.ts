// Issue 11 against a real tkafka broker, over the raw protocol: a Metadata v12 request with bytes after
// its body is answered (Kafka ignores them; librdkafka 2.15 sends some), a ConsumerGroupHeartbeat with an
// empty SubscribedTopicRegex joins (empty means "no regex"), and KIP-848 regex subscriptions resolve to
// the matching topics, follow topic creation and deletion, refuse an invalid regex as Kafka does, and
// are kept across a restart: the resolution is written as a ConsumerGroupRegularExpression record (type 16)
// to __consumer_offsets, as Kafka writes it, tombstoned when the last member using the regex leaves, and
// replayed on load. test/interop/kip848-regex.test.ts runs the same scenarios on Apache Kafka 4.4.0.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { ApiKey, type ApiResponse } from '../src/protocol/generated/apis.js';
import { RawClient } from './helpers/raw-client.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import {
  Member,
  createTopic,
  describeGroup,
  findCoordinator,
  runRegexScenarios,
  suffix,
  topicIds,
  type RegexObservations,
} from './helpers/kip848-regex-scenarios.js';

let broker: BrokerProcess;
let seen: RegexObservations;

before(async () => {
  broker = await startBroker();
  seen = await runRegexScenarios(broker.port, (m) => console.log(m));
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

test('Metadata v12 with 3 bytes after the body gets a normal answer', () => {
  assert.deepEqual(seen.trailingBytes, { errorlessTopics: true, brokers: 1, listsTopic: true });
});

test('ConsumerGroupHeartbeat v1 with an empty SubscribedTopicRegex joins with the member id it sent', () => {
  const e = seen.emptyRegex;
  assert.equal(e.errorCode, 0);
  assert.ok(e.sameMemberId && e.epochAtLeast1, JSON.stringify(e));
  assert.equal(e.owned.length, 1);
  assert.match(e.owned[0]!, /^plain-[0-9a-f]+-0$/);
});

test('a regex gets the matching topics, then a matching topic created later, and loses a deleted one', () => {
  const r = seen.regex;
  const id = /^rx-([0-9a-f]+)-a-0$/.exec(r.owned[0] ?? '')?.[1];
  assert.ok(id, JSON.stringify(r));
  assert.deepEqual(r.owned, [`rx-${id}-a-0`, `rx-${id}-a-1`, `rx-${id}-b-0`]);
  assert.deepEqual(r.ownedAfterCreate, [`rx-${id}-a-0`, `rx-${id}-a-1`, `rx-${id}-b-0`, `rx-${id}-c-0`]);
  assert.deepEqual(r.ownedAfterDelete, [`rx-${id}-a-0`, `rx-${id}-a-1`, `rx-${id}-c-0`]);
  assert.equal(r.describedRegex, `rx-${id}-.*`, 'ConsumerGroupDescribe shows the regex');
});

test("an invalid regex is INVALID_REGULAR_EXPRESSION with Kafka's message", () => {
  assert.deepEqual(seen.invalid, {
    errorCode: 128,
    errorMessage: 'SubscribedTopicRegex `[` is not a valid regular expression: missing closing ].',
  });
});

test('a regex matching only __consumer_offsets resolves to it, as Kafka scans every topic name', () => {
  assert.deepEqual(seen.internal.owned, ['__consumer_offsets']);
});

test('after a restart the member goes on with its epoch and partitions', async () => {
  const id = suffix();
  let c = await RawClient.connect(broker.port);
  const topics = [`rr-${id}-a`, `rr-${id}-b`];
  for (const t of topics) await createTopic(c, t, 2);
  const names = new Map([...(await topicIds(c, topics))].map(([n, i]) => [i, n]));
  await findCoordinator(c, `g-restart-${id}`);
  const m = new Member(c, `g-restart-${id}`);
  await m.join({ regex: `rr-${id}-.*` });
  const want = [`rr-${id}-a-0`, `rr-${id}-a-1`, `rr-${id}-b-0`, `rr-${id}-b-1`];
  const assigned = await m.beatUntil(() => m.ownedNames(names).join() === want.join(), 20_000);
  assert.ok(assigned, m.ownedNames(names).join());
  const epoch = m.epoch;
  c.close();
  await broker.restart();
  c = await RawClient.connect(broker.port);
  await findCoordinator(c, `g-restart-${id}`);
  const again = new Member(c, m.groupId, m.memberId);
  again.epoch = epoch;
  again.owned = m.owned;
  const r = await again.beat();
  assert.equal(r.memberEpoch, epoch, 'no new group epoch: the regex resolves to the same topics');
  assert.deepEqual(again.ownedNames(names), want);
  c.close();
});

/** The records of __consumer_offsets-0 as `tkafka dump-log --offsets-decoder` prints them (a tombstone: null). */
/** One `key: {...} payload: {...}` line of dump-log's offsets decoder, as its JSON reads. */
interface DumpedRecord {
  key: { type: string; data: Record<string, unknown> };
  payload: {
    version: string;
    data: Record<string, unknown> & { topics?: string[]; version?: string; timestamp?: string };
  } | null;
}

async function dumpOffsets(dataDir: string): Promise<DumpedRecord[]> {
  const dir = join(dataDir, 'logs', '__consumer_offsets-0');
  const out: DumpedRecord[] = [];
  for (const seg of readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()) {
    const args = ['bin/tkafka', 'dump-log', '--offsets-decoder', '--files', join(dir, seg)];
    const r = await execa('node', args, { cwd: REPO_ROOT, reject: false });
    assert.equal(r.exitCode, 0, r.stderr);
    for (const line of r.stdout.split('\n')) {
      const m = /key: (\{.*\}) payload: (.*)$/.exec(line);
      if (m) out.push({ key: JSON.parse(m[1]!), payload: m[2] === '<DELETE>' ? null : JSON.parse(m[2]!) });
    }
  }
  return out;
}

test('a resolved regex is a type-16 record in __consumer_offsets, kept across a restart, tombstoned', async () => {
  const b = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  try {
    const id = suffix();
    const groupId = `g-rxrec-${id}`;
    const regex = `px-${id}-(a|b)`;
    let c = await RawClient.connect(b.port);
    for (const [t, n] of [
      [`px-${id}-b`, 1],
      [`px-${id}-a`, 2],
      [`px-${id}-z`, 1],
    ] as const)
      await createTopic(c, t, n);
    const names = new Map([...(await topicIds(c, [`px-${id}-a`, `px-${id}-b`]))].map(([n, i]) => [i, n]));
    await findCoordinator(c, groupId);
    const m = new Member(c, groupId);
    await m.join({ regex });
    const want = [`px-${id}-a-0`, `px-${id}-a-1`, `px-${id}-b-0`];
    assert.ok(await m.beatUntil(() => m.ownedNames(names).join() === want.join(), 20_000), m.ownedNames(names).join());
    const described = await describeGroup(c, groupId);
    c.close();

    await b.restart();
    c = await RawClient.connect(b.port);
    await findCoordinator(c, groupId);
    const again = new Member(c, groupId, m.memberId);
    again.epoch = m.epoch;
    again.owned = m.owned;
    const r = await again.beat();
    assert.equal(r.memberEpoch, m.epoch, 'the replayed resolution: no new group epoch');
    assert.deepEqual(again.ownedNames(names), want);
    const after = await describeGroup(c, groupId);
    const shape = (d: ApiResponse<typeof ApiKey.ConsumerGroupDescribe>['groups'][number]) => ({
      groupState: d.groupState,
      groupEpoch: d.groupEpoch,
      assignmentEpoch: d.assignmentEpoch,
      members: d.members.map((x) => ({
        memberId: x.memberId,
        memberEpoch: x.memberEpoch,
        subscribedTopicRegex: x.subscribedTopicRegex,
        assignment: x.assignment,
        targetAssignment: x.targetAssignment,
      })),
    });
    assert.deepEqual(shape(after), shape(described), 'the group after the restart is the group before it');
    await again.leave();
    c.close();
    await b.stop();

    const regexRecords = (await dumpOffsets(b.dataDir)).filter((x) => x.key.type === '16');
    assert.ok(regexRecords.length >= 2, JSON.stringify(regexRecords));
    const first = regexRecords[0]!;
    assert.deepEqual(first.key.data, { groupId, regularExpression: regex });
    assert.equal(first.payload?.version, '0');
    assert.deepEqual(first.payload?.data.topics, [`px-${id}-a`, `px-${id}-b`], 'the matching topics, sorted');
    assert.ok(Number(first.payload?.data.version) > 0, 'the metadata offset it was resolved at');
    assert.ok(Number(first.payload?.data.timestamp) > 1_600_000_000_000, 'when it was resolved');
    const resolutions = regexRecords.filter((x) => x.payload !== null);
    assert.equal(resolutions.length, 1, 'resolved once: the restart used the record');
    const last = regexRecords[regexRecords.length - 1]!;
    assert.deepEqual(last.key.data, { groupId, regularExpression: regex });
    assert.equal(last.payload, null, 'a tombstone once no member uses the regex');
  } finally {
    await b.stop();
    b.cleanup();
  }
});
