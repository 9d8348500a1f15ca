// tkafka's BrokerLifecycleManager reporting a failed log dir to an Apache Kafka 4.4.0 controller
// (Kafka's BrokerLifecycleManager.propagateDirectoryFailure, KIP-858): the broker registers with two
// directory ids and runs; once the second directory fails its id goes into every heartbeat's
// OfflineLogDirs, and Kafka's controller (ReplicationControlManager.handleDirectoriesOffline) logs
// "Directories [<id>] in broker 2 marked offline, remaining directories: [<other id>]". The answered
// heartbeat clears the log.dir.failure.timeout.ms deadline: the broker is not shut down. Against a
// controller that never answers, the deadline passes and the broker shuts down with Kafka's message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { waitFor } from '../helpers/wait-for.js';
import { unusedPort } from '../helpers/broker-process.js';
import { ControllerChannel } from '../../src/broker/forwarding/controller-channel.js';
import { BrokerLifecycleManager } from '../../src/broker/lifecycle/broker-lifecycle-manager.js';
import { supportedFeatureRanges } from '../../src/broker/metadata/features.js';
import { randomUuid } from '../../src/broker/controller/uuid.js';
import { UNIMPLEMENTED_FEATURES_AT_ZERO } from './helpers/kafka-cluster.js';

let kafka: ApacheKafka;
const channels: ControllerChannel[] = [];

before(async () => {
  kafka = await startApacheKafka({ formatArgs: UNIMPLEMENTED_FEATURES_AT_ZERO });
});

after(async () => {
  for (const c of channels) c.close();
  await kafka?.cleanup();
});

function lifecycle(port: number, logDirIds: string[], errors: string[]): BrokerLifecycleManager {
  const channel = new ControllerChannel({
    clientId: 'broker-2-lifecycle',
    provider: () => ({ id: kafka.nodeId, host: '127.0.0.1', port }),
    requestTimeoutMs: 2000,
    retryBackoffMs: 50,
  });
  channels.push(channel);
  return new BrokerLifecycleManager({
    nodeId: 2,
    clusterId: kafka.clusterId,
    listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 19092, securityProtocol: 0 }],
    features: supportedFeatureRanges(),
    logDirIds,
    channel,
    heartbeatIntervalMs: 200,
    requestTimeoutMs: 2000,
    metadataOffset: () => Number.MAX_SAFE_INTEGER,
    logger: { info: () => {}, warn: () => {}, error: (m) => errors.push(m) },
  });
}

test("a failed dir's id reaches Kafka's controller in the heartbeat; Kafka marks it offline", async () => {
  const [a, b] = [randomUuid(), randomUuid()];
  const errors: string[] = [];
  const m = lifecycle(kafka.controllerPort, [a, b], errors);
  let shutDown = false;
  try {
    m.start();
    await m.initialCatchUp;
    m.setReadyToUnfence();
    await m.initialUnfence;
    m.propagateDirectoryFailure(b, 3000, () => (shutDown = true));
    await waitFor(
      () =>
        new RegExp(`Directories \\[${b}\\] in broker 2 marked offline, remaining directories: \\[${a}\\]`).test(
          kafka.logs(),
        ),
      { what: "Kafka's controller to mark the directory offline", timeoutMs: 30_000, intervalMs: 200 },
    );
    // past the deadline: the heartbeat carrying the dir was answered, nothing shuts down
    await new Promise((r) => setTimeout(r, 3500));
    assert.equal(shutDown, false);
    assert.deepEqual(errors, []);
  } finally {
    m.beginControlledShutdown();
    await m.controlledShutdownComplete;
    m.close();
  }
});

test('no controller hears of the failed dir within log.dir.failure.timeout.ms: the broker shuts down', async () => {
  const errors: string[] = [];
  const m = lifecycle(await unusedPort(), [randomUuid()], errors);
  const dir = randomUuid();
  try {
    m.start();
    const shutDown = new Promise<void>((resolve) => m.propagateDirectoryFailure(dir, 500, resolve));
    await shutDown;
    assert.ok(errors.includes(`Shutting down because couldn't communicate offline log dir ${dir} with controllers`));
  } finally {
    m.close();
  }
});
