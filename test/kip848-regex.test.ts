// Issue 11 against a real tkafka broker, over the raw protocol: a Metadata v12 request with bytes after
// its body is answered (Kafka ignores them; librdkafka 2.15 sends some), a ConsumerGroupHeartbeat with an
// empty SubscribedTopicRegex joins (empty means "no regex"), and KIP-848 regex subscriptions resolve to
// the matching topics, follow topic creation and deletion, refuse an invalid regex as Kafka does, and
// are resolved again after a restart (tkafka does not write ConsumerGroupRegularExpression records).
// test/interop/kip848-regex.test.ts runs the same scenarios on Apache Kafka 4.4.0 and compares.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import {
  Member, createTopic, findCoordinator, runRegexScenarios, suffix, topicIds, type RegexObservations,
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

test('an invalid regex is INVALID_REGULAR_EXPRESSION with Kafka\'s message', () => {
  assert.deepEqual(seen.invalid, {
    errorCode: 128,
    errorMessage: 'SubscribedTopicRegex `[` is not a valid regular expression: missing closing ].',
  });
});

test('a regex matching only __consumer_offsets resolves to it, as Kafka scans every topic name', () => {
  assert.deepEqual(seen.internal.owned, ['__consumer_offsets']);
});

test('after a restart the regex is resolved again: the member goes on with its epoch and partitions', async () => {
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
