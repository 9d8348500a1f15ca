// tkafka's broker-side cluster membership against an Apache Kafka 4.4.0 controller (the controller
// of a combined Kafka node started from the jars): the BrokerLifecycleManager registers a broker with
// Kafka's controller, which lists it fenced; it reaches RECOVERY once its metadata offset reaches
// Kafka's quorum high watermark (Kafka's BrokerHeartbeatManager decides IsCaughtUp), is unfenced when
// ready, and is let go by Kafka's controller on a controlled shutdown; after that a new incarnation
// registers with a new broker epoch. The ForwardingManager forwards CreateTopics/DeleteTopics in
// Envelopes to Kafka's controller, which creates and deletes the topics; the envelope errors of
// Kafka's controller equal tkafka's (test/broker-node-forwarding.test.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRequest } from '../../src/protocol/frame.js';
import type { CreateTopicsResponse } from '../../src/protocol/generated/protocol/CreateTopics.js';
import type { DeleteTopicsResponse } from '../../src/protocol/generated/protocol/DeleteTopics.js';
import { ControllerChannel } from '../../src/broker/forwarding/controller-channel.js';
import { ForwardingManager } from '../../src/broker/forwarding/forwarding-manager.js';
import { ANONYMOUS, serializePrincipal } from '../../src/broker/forwarding/principal.js';
import { BrokerLifecycleManager } from '../../src/broker/lifecycle/broker-lifecycle-manager.js';
import { supportedFeatureRanges } from '../../src/broker/metadata/features.js';
import { randomUuid } from '../../src/broker/controller/uuid.js';
import type { RequestContext } from '../../src/broker/api/types.js';
import { UNIMPLEMENTED_FEATURES_AT_ZERO as UNIMPLEMENTED_AT_ZERO } from './helpers/kafka-cluster.js';

let kafka: ApacheKafka;
let channel: ControllerChannel;

before(async () => {
  // tkafka does not implement share groups or streams groups, so its broker cannot support the
  // levels Kafka 4.4 finalizes for them by default (ClusterControlManager.processRegistrationFeature
  // would refuse the registration with UNSUPPORTED_VERSION): the cluster is formatted with them at 0.
  kafka = await startApacheKafka({ formatArgs: UNIMPLEMENTED_AT_ZERO });
  channel = new ControllerChannel({
    clientId: 'broker-2-lifecycle',
    provider: () => ({ id: kafka.nodeId, host: '127.0.0.1', port: kafka.controllerPort }),
    requestTimeoutMs: 5000,
    retryBackoffMs: 50,
  });
});

after(async () => {
  channel?.close();
  await kafka?.cleanup();
});

async function describeBrokers(): Promise<Map<number, boolean>> {
  const c = await RawClient.connect(kafka.port);
  try {
    const r = await c.request(ApiKey.DescribeCluster, 2, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
      includeFencedBrokers: true,
    });
    assert.equal(r.errorCode, ErrorCode.NONE);
    return new Map(r.brokers.map((b) => [b.brokerId, b.isFenced]));
  } finally {
    c.close();
  }
}

async function quorumHighWatermark(): Promise<number> {
  const c = await RawClient.connect(kafka.controllerPort);
  try {
    const r = await c.request(ApiKey.DescribeQuorum, 2, {
      topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
    });
    return Number(r.topics[0]!.partitions[0]!.highWatermark);
  } finally {
    c.close();
  }
}

function lifecycle(metadataOffset: () => number): BrokerLifecycleManager {
  return new BrokerLifecycleManager({
    nodeId: 2,
    clusterId: kafka.clusterId,
    listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 19092, securityProtocol: 0 }],
    features: supportedFeatureRanges(),
    logDirIds: [randomUuid()],
    channel,
    heartbeatIntervalMs: 200,
    requestTimeoutMs: 5000,
    metadataOffset,
    logger: {
      info: () => {},
      warn: (m) => console.log(`[lifecycle] ${m}`),
      error: (m) => console.log(`[lifecycle] ${m}`),
    },
  });
}

/** Waits until Kafka's broker lists broker 2 as `fenced` (its image follows the controller's by a moment). */
async function listed(fenced: boolean, what: string): Promise<void> {
  await waitFor(async () => (await describeBrokers()).get(2) === fenced, { what, timeoutMs: 15_000, intervalMs: 100 });
}

test('BrokerLifecycleManager: registered fenced by Kafka, caught up, unfenced, then let go by a controlled shutdown', async () => {
  let applied = -1;
  const m = lifecycle(() => applied);
  try {
    m.start();
    await waitFor(() => m.brokerEpoch >= 0n, { what: 'the registration to succeed', timeoutMs: 30_000 });
    assert.equal(m.state, 'STARTING');
    await listed(true, 'Kafka to list broker 2 as fenced after its registration');
    // what an observer of Kafka's metadata log would have applied by now: everything committed
    applied = (await quorumHighWatermark()) - 1;
    await m.initialCatchUp;
    assert.equal(m.state, 'RECOVERY');
    assert.equal((await describeBrokers()).get(2), true, 'still fenced until the broker is ready');
    m.setReadyToUnfence();
    await m.initialUnfence;
    assert.equal(m.state, 'RUNNING');
    await listed(false, 'Kafka to list broker 2 unfenced');

    m.beginControlledShutdown();
    await m.controlledShutdownComplete;
    assert.equal(m.state, 'SHUTTING_DOWN');
  } finally {
    m.close();
  }

  // a new incarnation of the same broker id registers again, with a new broker epoch
  const first = m.brokerEpoch;
  const again = lifecycle(() => applied);
  try {
    const t0 = Date.now();
    again.start();
    await waitFor(() => again.brokerEpoch >= 0n, { what: 'the second registration to succeed', timeoutMs: 30_000 });
    // Kafka refuses a new incarnation with DUPLICATE_BROKER_REGISTRATION while the previous one's
    // session (broker.session.timeout.ms, 9 s) is alive, and the lifecycle manager keeps retrying
    console.log(`the new incarnation registered ${Date.now() - t0} ms after the controlled shutdown`);
    assert.ok(again.brokerEpoch > first, `new epoch ${again.brokerEpoch} > ${first}`);
    applied = (await quorumHighWatermark()) - 1;
    await again.initialCatchUp;
    again.setReadyToUnfence();
    await again.initialUnfence;
    await listed(false, 'Kafka to list the new incarnation unfenced');
  } finally {
    again.beginControlledShutdown();
    await again.controlledShutdownComplete;
    again.close();
  }
});

function ctxFor(apiKey: number, apiVersion: number): RequestContext {
  return {
    apiKey,
    apiVersion,
    correlationId: 11,
    clientId: 'forwarded-tool',
    header: { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId: 11, clientId: 'forwarded-tool' },
    connectionId: 'interop-conn',
    listenerName: 'PLAINTEXT',
    isControllerListener: false,
    clientAddress: '127.0.0.1',
    requestSize: 0,
  };
}

test("ForwardingManager: CreateTopics and DeleteTopics forwarded in Envelopes are carried out by Kafka's controller", async () => {
  const fm = new ForwardingManager(channel, { requestTimeoutMs: 30_000 });
  const noError = (): never => {
    throw new Error('unexpected error response');
  };
  const created = (await fm.forward(
    ctxFor(ApiKey.CreateTopics, 7),
    {
      topics: [{ name: 'via-envelope', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    },
    noError,
  )) as CreateTopicsResponse;
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE, JSON.stringify(created));
  assert.equal(created.topics[0]!.numPartitions, 3);
  await kafka.waitForTopic('via-envelope', { partitions: 3 });

  const deleted = (await fm.forward(
    ctxFor(ApiKey.DeleteTopics, 6),
    { topics: [{ name: 'via-envelope', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], topicNames: [], timeoutMs: 30_000 },
    noError,
  )) as DeleteTopicsResponse;
  assert.equal(deleted.responses[0]!.errorCode, ErrorCode.NONE);
});

test("Envelope errors of Kafka's controller: the codes tkafka's Envelope handler answers", async () => {
  const c = await RawClient.connect(kafka.controllerPort);
  try {
    const payload = (apiKey: number, version: number, body: unknown): Buffer =>
      Buffer.concat(encodeRequest(apiKey, version, 3, 'x', body)).subarray(4);
    const good = payload(ApiKey.CreateTopics, 7, {
      topics: [{ name: 'never-created', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    const principal = serializePrincipal(ANONYMOUS);
    const localhost = Buffer.from([127, 0, 0, 1]);
    const metadata = payload(ApiKey.Metadata, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const cases: [string, Buffer, Buffer, Buffer, number][] = [
      ['unreadable principal', good, Buffer.from([0, 9, 1]), localhost, ErrorCode.PRINCIPAL_DESERIALIZATION_FAILURE],
      ['address of 5 bytes', good, principal, Buffer.alloc(5), ErrorCode.INVALID_REQUEST],
      ['an API that is not forwardable (Metadata)', metadata, principal, localhost, ErrorCode.INVALID_REQUEST],
      [
        'a truncated embedded request',
        good.subarray(0, good.length - 6),
        principal,
        localhost,
        ErrorCode.UNSUPPORTED_VERSION,
      ],
    ];
    for (const [what, requestData, requestPrincipal, clientHostAddress, code] of cases) {
      const r = await c.request(ApiKey.Envelope, 0, { requestData, requestPrincipal, clientHostAddress });
      console.log(
        `Kafka Envelope, ${what}: error ${r.errorCode}, responseData ${r.responseData === null ? 'null' : 'set'}`,
      );
      assert.equal(r.errorCode, code, what);
      assert.equal(r.responseData, null, what);
    }
  } finally {
    c.close();
  }
});
