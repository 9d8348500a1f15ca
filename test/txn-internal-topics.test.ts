// Internal topics' replication factors as Kafka 4.4 applies them when FindCoordinator auto-creates
// them (DefaultAutoTopicCreationManager.creatableTopic): offsets.topic.replication.factor and
// transaction.state.log.replication.factor are the topics' replication factors, so with fewer
// registered brokers the controller refuses them (INVALID_REPLICATION_FACTOR) and FindCoordinator
// keeps answering COORDINATOR_NOT_AVAILABLE (the client retries until enough brokers registered);
// transaction.state.log.min.isr becomes the __transaction_state topic's min.insync.replicas.
//
//   npm run build && node --test dist/test/txn-internal-topics.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { ZERO_UUID } from '../src/protocol/uuid.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';

const INTERNAL = ['__consumer_offsets', '__transaction_state'];

async function internalTopicsListed(c: RawClient): Promise<string[]> {
  const md = await c.request(ApiKey.Metadata, 12, {
    topics: INTERNAL.map((name) => ({ name, topicId: ZERO_UUID })),
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  return md.topics.filter((t) => t.errorCode === 0).map((t) => t.name ?? '');
}

test('internal topics: a replication factor above the registered brokers is refused, FindCoordinator answers COORDINATOR_NOT_AVAILABLE', async () => {
  let b: BrokerProcess | null = null;
  let c: RawClient | null = null;
  try {
    b = await startBroker({
      overrides: { 'offsets.topic.replication.factor': 3, 'transaction.state.log.replication.factor': 2 },
    });
    c = await RawClient.connect(b.port);
    const client = c;
    // each answer waits for the creation it started, so every round follows a refused CreateTopics
    for (let round = 0; round < 3; round++) {
      for (const keyType of [0, 1]) {
        const r = await client.request(ApiKey.FindCoordinator, 4, { keyType, coordinatorKeys: ['k'] });
        assert.equal(r.coordinators[0]?.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE, `key type ${keyType}`);
        assert.equal(r.coordinators[0]?.nodeId, -1);
      }
    }
    assert.deepEqual(await internalTopicsListed(client), [], 'no internal topic was created');
  } finally {
    c?.close();
    await b?.stop();
    b?.cleanup();
  }
});

test('internal topics: transaction.state.log.min.isr is __transaction_state min.insync.replicas; the factors are the topics', async () => {
  let b: BrokerProcess | null = null;
  let c: RawClient | null = null;
  try {
    b = await startBroker({
      overrides: {
        'offsets.topic.replication.factor': 1,
        'transaction.state.log.replication.factor': 1,
        'transaction.state.log.min.isr': 1,
        'min.insync.replicas': 2,
      },
    });
    c = await RawClient.connect(b.port);
    const client = c;
    await waitFor(
      async () => {
        const found = [];
        for (const keyType of [0, 1]) {
          const r = await client.request(ApiKey.FindCoordinator, 4, { keyType, coordinatorKeys: ['k'] });
          found.push(r.coordinators[0]?.errorCode === ErrorCode.NONE);
        }
        return found.every(Boolean);
      },
      { what: 'both coordinators to be found', timeoutMs: 30_000, intervalMs: 200 },
    );
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: INTERNAL.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    for (const t of md.topics) {
      assert.equal(t.errorCode, 0, `${t.name}`);
      assert.ok(t.isInternal, `${t.name} is internal`);
      for (const p of t.partitions) assert.deepEqual(p.replicaNodes, [1], `${t.name}-${p.partitionIndex} replicas`);
    }
    const dc = await c.request(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: 2, resourceName: '__transaction_state', configurationKeys: ['min.insync.replicas'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const entry = dc.results[0]?.configs.find((x) => x.name === 'min.insync.replicas');
    // the topic override (transaction.state.log.min.isr), not the broker's min.insync.replicas=2
    assert.equal(entry?.value, '1');
    assert.equal(entry?.configSource, 1, 'a topic config (DYNAMIC_TOPIC_CONFIG)');
  } finally {
    c?.close();
    await b?.stop();
    b?.cleanup();
  }
});
