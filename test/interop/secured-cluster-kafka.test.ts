// Mixed clusters where every listener is SASL_SSL (helpers/secured-nodes.ts: CONTROLLER with PLAIN,
// BROKER with SCRAM-SHA-512 between brokers and for clients, users from `storage format --add-scram`):
// an Apache Kafka 4.4.0 controller with a tkafka broker and a Kafka broker, then a tkafka controller
// with a Kafka broker and a tkafka broker. In each, a tkafka broker authenticates to the other side's
// controller listener (raft fetches, registration, heartbeats, forwarding) and each broker's replica
// fetcher authenticates to the other one's inter-broker listener: two RF=2 topics, one led by each
// broker, are written with acks=all once both replicas are in the ISR and read through both brokers.
// The Kafka controller is formatted with UNIMPLEMENTED_FEATURES_AT_ZERO (README, Clusters).
// Certificates are made by the test.
//
//   npm run build && node --test dist/test/interop/secured-cluster-kafka.test.js
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeCerts } from '../helpers/certs.js';
import { startCluster, tkafkaLauncher, type Cluster, type NodeLauncher } from '../helpers/cluster.js';
import {
  aliceClientProperties,
  consumeAssigned,
  describePartition,
  replicaSizes,
  SCRAM_FORMAT_ARGS,
  securedNodeProperties,
} from '../helpers/secured-nodes.js';
import { runTkafka } from '../helpers/tool-run.js';
import { waitFor } from '../helpers/wait-for.js';
import { kafkaLauncher, UNIMPLEMENTED_FEATURES_AT_ZERO } from './helpers/kafka-cluster.js';

const certs = makeCerts();
after(() => certs.cleanup());

/** Controller 1 of `controller`'s kind, broker 2 of `first`'s, broker 3 of `second`'s; every listener SASL_SSL. */
async function securedMixed(controller: NodeLauncher, first: NodeLauncher, second: NodeLauncher): Promise<void> {
  let cluster: Cluster | null = null;
  const clientProps = aliceClientProperties(certs);
  try {
    cluster = await startCluster({
      launcher: controller,
      brokerListener: 'BROKER',
      nodes: [
        {
          id: 1,
          roles: 'controller',
          formatArgs: [...(controller.impl === 'kafka' ? UNIMPLEMENTED_FEATURES_AT_ZERO : []), ...SCRAM_FORMAT_ARGS],
        },
        { id: 2, roles: 'broker', launcher: first },
        { id: 3, roles: 'broker', launcher: second },
      ],
      quorum: 'static',
      overrides: securedNodeProperties(certs),
      startTimeoutMs: 420_000,
    });
    const c = cluster;
    const addr = (id: number): string => `127.0.0.1:${c.node(id).port}`;
    const logs = (): string => c.logs(3000);
    for (const [topic, assignment] of [
      ['led-by-2', '2:3'],
      ['led-by-3', '3:2'],
    ] as const) {
      // created through broker 2 (a tkafka or Kafka broker forwards it to the controller)
      const created = await runTkafka('topics', [
        '--bootstrap-server',
        addr(2),
        '--command-config',
        clientProps,
        '--create',
        '--topic',
        topic,
        '--replica-assignment',
        assignment,
      ]);
      assert.equal(created.code, 0, created.out + created.err + logs());
      await waitFor(async () => (await describePartition(addr(3), clientProps, topic))?.isr.length === 2, {
        what: `the ISR of ${topic} to hold both brokers`,
        timeoutMs: 60_000,
      }).catch((e: Error) => assert.fail(`${e.message}\n${logs()}`));
      const lines = Array.from({ length: 10 }, (_, i) => `${topic}-${i}`);
      const produced = await runTkafka(
        'console-producer',
        [
          '--bootstrap-server',
          addr(3),
          '--command-config',
          clientProps,
          '--topic',
          topic,
          '--request-required-acks',
          'all',
        ],
        {},
        lines.join('\n') + '\n',
      );
      assert.equal(produced.code, 0, produced.out + produced.err + logs());
      for (const via of [2, 3])
        assert.equal(await consumeAssigned(addr(via), clientProps, topic, lines.length, logs), lines.join('\n') + '\n');
      // the follower holds every byte the leader has: its fetcher authenticated to the other implementation
      await waitFor(
        async () => {
          const sizes = await replicaSizes(addr(2), clientProps, topic);
          return sizes.size === 2 && sizes.get(2)! > 0 && sizes.get(2) === sizes.get(3);
        },
        { what: `both replicas of ${topic} to hold the same bytes`, timeoutMs: 30_000 },
      ).catch((e: Error) => assert.fail(`${e.message}\n${logs()}`));
    }
  } finally {
    await cluster?.cleanup();
  }
}

test('tkafka and Kafka brokers on an Apache Kafka controller, every listener SASL_SSL', async () => {
  await securedMixed(kafkaLauncher(), tkafkaLauncher, kafkaLauncher());
});

test('Kafka and tkafka brokers on a tkafka controller, every listener SASL_SSL', async () => {
  await securedMixed(tkafkaLauncher, kafkaLauncher(), tkafkaLauncher);
});
