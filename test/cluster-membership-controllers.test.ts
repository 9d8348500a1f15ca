// Three tkafka controller-only nodes (static voters): whichever is elected registers itself as it
// activates, and the two others register with it over ControllerRegistration (Kafka's
// ControllerRegistrationManager), so DescribeCluster on any controller (and
// `tkafka cluster list-endpoints --bootstrap-controller`) lists all three controllers. A controller
// that is not the active one answers the registration APIs with NOT_CONTROLLER.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { startCluster, tkafkaLauncher, waitForLeader, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

let cluster: Cluster | null = null;
after(async () => {
  await cluster?.cleanup();
});

async function controllersListedBy(port: number): Promise<number[]> {
  const c = await RawClient.connect(port);
  try {
    const d = await c.request(ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 2,
      includeFencedBrokers: false,
    });
    return d.errorCode === 0 ? d.brokers.map((b) => b.brokerId).sort() : [];
  } finally {
    c.close();
  }
}

test('every controller of a three-controller quorum is registered and listed', async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'controller' },
      { id: 3, roles: 'controller' },
    ],
  });
  const c = cluster;
  await waitForLeader(c);
  for (const n of c.controllers) {
    await waitFor(async () => (await controllersListedBy(n.controllerPort)).join(',') === '1,2,3', {
      what: `controller ${n.id} to list controllers 1, 2 and 3`,
      timeoutMs: 30_000,
      intervalMs: 200,
    }).catch((e: Error) => {
      throw new Error(`${e.message}\n${c.logs(3000)}`);
    });
  }
  // a controller that is not the active one answers the registration APIs with NOT_CONTROLLER (41)
  const leaderId = (await waitForLeader(c)).leaderId;
  const follower = c.controllers.find((n) => n.id !== leaderId)!;
  const f = await RawClient.connect(follower.controllerPort);
  try {
    const reg = await f.request(ApiKey.BrokerRegistration, 4, {
      brokerId: 7,
      clusterId: c.clusterId,
      incarnationId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      listeners: [],
      features: [{ name: 'metadata.version', minSupportedVersion: 7, maxSupportedVersion: 33 }],
      rack: null,
      isMigratingZkBroker: false,
      logDirs: ['AAAAAAAAAAAAAAAAAAAAAw'],
      previousBrokerEpoch: -1n,
    });
    const hb = await f.request(ApiKey.BrokerHeartbeat, 1, {
      brokerId: 7,
      brokerEpoch: 1n,
      currentMetadataOffset: 0n,
      wantFence: false,
      wantShutDown: false,
      offlineLogDirs: [],
    });
    const creg = await f.request(ApiKey.ControllerRegistration, 0, {
      controllerId: 9,
      incarnationId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      zkMigrationReady: false,
      listeners: [],
      features: [],
    });
    assert.deepEqual([reg.errorCode, hb.errorCode, creg.errorCode], [41, 41, 41]);
  } finally {
    f.close();
  }

  const listed = await execa(
    'node',
    ['bin/tkafka', 'cluster', 'list-endpoints', '--bootstrap-controller', c.controllerBootstrap()],
    { cwd: REPO_ROOT, reject: false, all: true },
  );
  assert.equal(listed.exitCode, 0, listed.all);
  for (const n of c.controllers)
    assert.match(
      String(listed.all),
      new RegExp(`^${n.id}\\s+127\\.0\\.0\\.1\\s+${n.controllerPort}\\s+null\\s+controller`, 'm'),
    );
});
