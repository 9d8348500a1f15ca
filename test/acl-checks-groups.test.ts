// ACL checks of the group, offset, coordinator and transaction APIs on a real tkafka node with the
// StandardAuthorizer and a SASL PLAIN listener (KafkaApis 4.4): raw requests of bob, who is no super
// user, get the denied codes (GROUP_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_FAILED per partition,
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED, filtered listings) until ACLs
// grant him READ/DELETE on a group, READ/WRITE on a topic and WRITE on a transactional id, then succeed
// where those ACLs allow. The same scenario runs against Kafka 4.4.0 in
// test/interop/acl-checks-groups-kafka.test.ts.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, boundPorts, type BrokerProcess } from './helpers/broker-process.js';
import {
  ALLOWED,
  CLUSTER_WIDE,
  CONSUMER_GROUP,
  DENIED,
  TKAFKA_SASL,
  assertSubset,
  clusterScenario,
  consumerGroupScenario,
  grant,
  prepare,
  saslClient,
  scenario,
} from './helpers/acl-groups-scenario.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';

let tkafka: BrokerProcess;
let port: number;

before(async () => {
  tkafka = await startBroker({ overrides: TKAFKA_SASL });
  port = boundPorts(tkafka.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL'])!.get('SASL')!;
  await prepare(port);
});

after(async () => {
  await tkafka?.stop();
  tkafka?.cleanup();
});

test('group, offset and transaction APIs deny bob without ACLs and allow him what the ACLs grant', async () => {
  const denied = await scenario(port);
  assertSubset(denied, DENIED, 'no ACLs');
  await grant(port);
  const allowed = await scenario(port);
  assertSubset(allowed, ALLOWED, 'with ACLs');
});

test('the consumer group protocol answers TOPIC_AUTHORIZATION_FAILED once an assigned topic is not describable', async () => {
  assertSubset(await consumerGroupScenario(port), CONSUMER_GROUP, 'tkafka');
});

test('DESCRIBE and CLUSTER_ACTION on the cluster: every group listed, OffsetForLeaderEpoch and AddPartitionsToTxn v4 allowed', async () => {
  assertSubset(await clusterScenario(port), CLUSTER_WIDE, 'tkafka');
});

test('a disabled consumer protocol is answered before the ACL checks (UNSUPPORTED_VERSION, as KafkaApis)', async () => {
  const classicOnly = await startBroker({
    overrides: { ...TKAFKA_SASL, 'group.coordinator.rebalance.protocols': 'classic' },
  });
  const bob = await saslClient(
    boundPorts(classicOnly.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL'])!.get('SASL')!,
    'bob',
  );
  try {
    const h = await bob.request(ApiKey.ConsumerGroupHeartbeat, 0, {
      groupId: 'g1',
      memberId: '',
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 10_000,
      subscribedTopicNames: ['gt'],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
    });
    assert.equal(h.errorCode, ErrorCode.UNSUPPORTED_VERSION);
    const d = await bob.request(ApiKey.ConsumerGroupDescribe, 0, {
      groupIds: ['g1', 'g2'],
      includeAuthorizedOperations: false,
    });
    assert.deepEqual(
      d.groups.map((g) => [g.groupId, g.errorCode]),
      [
        ['g1', ErrorCode.UNSUPPORTED_VERSION],
        ['g2', ErrorCode.UNSUPPORTED_VERSION],
      ],
    );
    // the classic protocol still checks the ACLs
    const j = await bob.request(ApiKey.Heartbeat, 4, {
      groupId: 'g1',
      generationId: 1,
      memberId: 'm',
      groupInstanceId: null,
    });
    assert.equal(j.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  } finally {
    bob.close();
    await classicOnly.stop();
    classicOnly.cleanup();
  }
});
