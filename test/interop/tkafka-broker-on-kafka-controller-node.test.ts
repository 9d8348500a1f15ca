// A tkafka broker-only node (`process.roles=broker`) joining an Apache Kafka 4.4.0 controller: the
// controller of a Kafka node started from the jars (formatted with share and streams at level 0,
// which tkafka does not implement and so cannot register as supporting; ELR at Kafka's default 1).
// The tkafka broker follows
// Kafka's metadata log as an observer, registers and is unfenced (Kafka's DescribeCluster lists it
// unfenced); a topic created through the tkafka broker (CreateTopics forwarded in an Envelope) and one
// created on Kafka's controller listener (as Admin with bootstrap.controllers does) both show on the
// tkafka broker with the ids Kafka gave them; Kafka's console producer and consumer write and read
// through the tkafka broker; kill -9 → Kafka fences it once its session expires; restart → unfenced.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { startCluster, tkafkaLauncher, describeBrokers, topicIds, type Cluster } from '../helpers/cluster.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FORWARDABLE_APIS } from '../../src/broker/forwarding/forwarding-manager.js';
import { UNIMPLEMENTED_FEATURES_AT_ZERO as UNIMPLEMENTED_AT_ZERO } from './helpers/kafka-cluster.js';

const BROKER = 2;

let kafka: ApacheKafka;
let cluster: Cluster;

before(async () => {
  kafka = await startApacheKafka({ formatArgs: UNIMPLEMENTED_AT_ZERO });
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [{ id: BROKER, roles: 'broker' }],
    external: {
      clusterId: kafka.clusterId,
      quorum: 'static',
      controllers: [{ id: kafka.nodeId, port: kafka.controllerPort }],
    },
    brokerOverrides: { 'broker.heartbeat.interval.ms': 500 },
  });
});

after(async () => {
  await cluster?.cleanup();
  await kafka?.cleanup();
});

async function fencedOnKafka(): Promise<boolean | undefined> {
  return (await describeBrokers(kafka.port))?.find((b) => b.brokerId === BROKER)?.isFenced;
}

async function createOn(port: number, name: string): Promise<{ errorCode: number; topicId: string }> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [BROKER] }],
          configs: [],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    return { errorCode: r.topics[0]!.errorCode, topicId: String(r.topics[0]!.topicId) };
  } finally {
    c.close();
  }
}

test('the tkafka broker registered with Kafka’s controller and is unfenced', async () => {
  assert.equal(await fencedOnKafka(), false, cluster.logs());
});

test('topics created through the tkafka broker (forwarded) and on Kafka’s controller have the same ids on both', async () => {
  const broker = cluster.node(BROKER);
  const viaTkafka = await createOn(broker.port, 'via-tkafka-broker');
  assert.equal(viaTkafka.errorCode, ErrorCode.NONE);
  const viaController = await createOn(kafka.controllerPort, 'via-kafka-controller');
  assert.equal(viaController.errorCode, ErrorCode.NONE);
  const names = ['via-tkafka-broker', 'via-kafka-controller'];
  const onTkafka = await waitFor(
    async () => {
      const ids = await topicIds(broker.port, names);
      return ids && ids.size === 2 ? ids : null;
    },
    { what: 'both topics on the tkafka broker', timeoutMs: 30_000 },
  );
  const onKafka = await topicIds(kafka.port, names);
  assert.equal(onTkafka.get('via-tkafka-broker'), viaTkafka.topicId);
  assert.equal(onTkafka.get('via-kafka-controller'), viaController.topicId);
  assert.deepEqual(onKafka, onTkafka);
});

/** ApiVersions v3 of one listener: API key → [min, max]. */
async function apiRanges(port: number): Promise<Map<number, [number, number]>> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'tkafka-test',
      clientSoftwareVersion: '1.0',
    });
    assert.equal(r.errorCode, 0);
    return new Map(r.apiKeys.map((a) => [a.apiKey, [a.minVersion, a.maxVersion] as [number, number]]));
  } finally {
    c.close();
  }
}

test('the tkafka broker advertises forwarded APIs at the intersection with Kafka’s controller (ApiVersionManager)', async () => {
  const [onBroker, onController] = await Promise.all([
    apiRanges(cluster.node(BROKER).port),
    apiRanges(kafka.controllerPort),
  ]);
  const forwarded = [...onBroker.keys()].filter((k) => FORWARDABLE_APIS.has(k));
  console.log(
    `forwarded APIs on the tkafka broker / Kafka's controller: ${forwarded
      .map((k) => `${k} ${onBroker.get(k)!.join('-')} / ${onController.get(k)?.join('-') ?? '—'}`)
      .join(', ')}`,
  );
  assert.ok(forwarded.includes(ApiKey.CreateTopics));
  for (const k of forwarded) {
    const [min, max] = onBroker.get(k)!;
    const c = onController.get(k);
    assert.ok(c, `API ${k}: advertised by the broker, not served by the controller`);
    assert.ok(min >= c[0] && max <= c[1], `API ${k}: ${min}-${max} is not within the controller's ${c.join('-')}`);
  }
});

test('Kafka’s console producer and consumer write and read through the tkafka broker', async () => {
  const broker = cluster.node(BROKER);
  const bootstrap = `127.0.0.1:${broker.port}`;
  const created = await createOn(broker.port, 'through-tkafka');
  assert.equal(created.errorCode, ErrorCode.NONE);
  await waitFor(async () => ((await topicIds(broker.port, ['through-tkafka']))?.size ?? 0) === 1, {
    what: 'the topic on the tkafka broker',
    timeoutMs: 30_000,
  });
  const produced = await runKafkaTool(
    'org.apache.kafka.tools.ConsoleProducer',
    ['--bootstrap-server', bootstrap, '--topic', 'through-tkafka'],
    { input: 'one\ntwo\nthree\n' },
  );
  assert.equal(produced.exitCode, 0, produced.stderr);
  const consumed = await runKafkaTool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    'through-tkafka',
    '--partition',
    '0',
    '--offset',
    'earliest',
    '--max-messages',
    '3',
    '--timeout-ms',
    '60000',
  ]);
  assert.equal(consumed.exitCode, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trim().split('\n'), ['one', 'two', 'three']);
});

test('kill -9: Kafka fences the tkafka broker when its session expires; restarted, it is unfenced again', async () => {
  const broker = cluster.node(BROKER);
  await broker.kill();
  const t0 = Date.now();
  await waitFor(async () => (await fencedOnKafka()) === true, {
    what: 'Kafka to fence the killed tkafka broker',
    timeoutMs: 60_000,
  });
  console.log(`fenced ${Date.now() - t0} ms after kill -9 (broker.session.timeout.ms 9000)`);
  const t1 = Date.now();
  await broker.start();
  await waitFor(async () => (await fencedOnKafka()) === false, {
    what: 'Kafka to unfence the restarted tkafka broker',
    timeoutMs: 60_000,
  });
  console.log(`unfenced ${Date.now() - t1} ms after the restart began`);
});
