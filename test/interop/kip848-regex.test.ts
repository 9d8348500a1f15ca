// The issue-11 raw-protocol scenarios (test/helpers/kip848-regex-scenarios.ts) on Apache Kafka 4.4.0 and
// on tkafka, side by side: a Metadata v12 request with bytes after its body, a ConsumerGroupHeartbeat
// with an empty SubscribedTopicRegex, and KIP-848 regex subscriptions (matching topics, a topic created
// later, a deleted one, an invalid regex, a regex on the internal __consumer_offsets). Both brokers must
// give the same observations (topic and group names normalised).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { runRegexScenarios, type RegexObservations } from '../helpers/kip848-regex-scenarios.js';

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
const seen: { kafka?: RegexObservations; tkafka?: RegexObservations } = {};

/** The observations with each run's random suffix replaced by "*". */
const normalise = (o: RegexObservations): unknown =>
  JSON.parse(JSON.stringify(o).replace(/-[0-9a-f]{8}(?=[-"])/g, '-*'));

before(async () => {
  [kafka, tkafka] = await Promise.all([startApacheKafka(), startBroker()]);
  seen.kafka = await runRegexScenarios(kafka.port, (m) => console.log(`Kafka ${KAFKA_VERSION}: ${m}`));
  seen.tkafka = await runRegexScenarios(tkafka.port, (m) => console.log(`tkafka: ${m}`));
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
});

test(`Apache Kafka ${KAFKA_VERSION} answers as the tkafka tests expect`, () => {
  const k = normalise(seen.kafka!) as RegexObservations;
  assert.deepEqual(k.trailingBytes, { errorlessTopics: true, brokers: 1, listsTopic: true });
  assert.equal(k.emptyRegex.errorCode, 0);
  assert.deepEqual(k.regex.owned, ['rx-*-a-0', 'rx-*-a-1', 'rx-*-b-0']);
  assert.deepEqual(k.regex.ownedAfterCreate, ['rx-*-a-0', 'rx-*-a-1', 'rx-*-b-0', 'rx-*-c-0']);
  assert.deepEqual(k.regex.ownedAfterDelete, ['rx-*-a-0', 'rx-*-a-1', 'rx-*-c-0']);
  assert.equal(k.invalid.errorCode, 128);
});

test('tkafka gives the same observations as Apache Kafka', () => {
  assert.deepEqual(normalise(seen.tkafka!), normalise(seen.kafka!));
});
