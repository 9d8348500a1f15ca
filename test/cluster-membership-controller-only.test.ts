// The controller-only node (process.roles=controller): only the metadata quorum, the controller and
// the controller listener with the controller APIs. Tools reach it with --bootstrap-controller;
// a broker (forged requests) registers and heartbeats there, and the controller fences it by
// itself when its session expires; topics created on it get no partition logs on the node.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execa, type ResultPromise } from 'execa';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { RawClient } from './helpers/raw-client.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { waitFor } from './helpers/wait-for.js';

const SESSION_TIMEOUT_MS = 2000;
const dataDir = mkdtempSync(join(tmpdir(), 'tkafka-controller-only-'));
let child: ResultPromise | null = null;
let out = '';
after(async () => {
  if (child) {
    child.kill('SIGKILL');
    await child;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const tkafka = (args: string[]) => execa('node', ['bin/tkafka', ...args], { cwd: REPO_ROOT, reject: false, all: true });
const uuid = (): string => randomBytes(16).toString('base64url');

test('a controller-only node serves the controller APIs and the --bootstrap-controller tools, nothing else', async () => {
  const overrides = {
    'process.roles': 'controller',
    'node.id': '1',
    listeners: 'CONTROLLER://127.0.0.1:0',
    'controller.quorum.voters': '1@127.0.0.1:0',
    'log.dirs': join(dataDir, 'logs'),
    'broker.session.timeout.ms': String(SESSION_TIMEOUT_MS),
  };
  const args = ['bin/tkafka', 'server', 'start'];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);
  const c = execa('node', args, { cwd: REPO_ROOT, all: true, reject: false, buffer: false });
  child = c;
  c.all?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const port = await waitFor(
    () => {
      if (!/\] Kafka Server started/.test(out)) return null;
      return Number(/Awaiting socket connections on 127\.0\.0\.1:(\d+)\./.exec(out)?.[1]);
    },
    { what: 'the controller to start', timeoutMs: 60_000 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${out}`);
  });
  assert.equal([...out.matchAll(/Awaiting socket connections/g)].length, 1, 'one listener: the controller one');

  const ctl = await RawClient.connect(port);
  try {
    const av = await ctl.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    const keys = new Set(av.apiKeys.map((a) => a.apiKey));
    for (const k of [
      ApiKey.CreateTopics,
      ApiKey.DeleteTopics,
      ApiKey.CreatePartitions,
      ApiKey.IncrementalAlterConfigs,
      ApiKey.DescribeCluster,
      ApiKey.DescribeQuorum,
      ApiKey.AllocateProducerIds,
      ApiKey.BrokerRegistration,
      ApiKey.BrokerHeartbeat,
      ApiKey.ControllerRegistration,
      ApiKey.UnregisterBroker,
    ])
      assert.ok(keys.has(k), `API ${k} served on the controller listener`);
    for (const k of [ApiKey.Produce, ApiKey.Metadata, ApiKey.FindCoordinator, ApiKey.JoinGroup])
      assert.ok(!keys.has(k), `API ${k} is a broker API`);

    // the tools with --bootstrap-controller
    const endpoints = await tkafka(['cluster', 'list-endpoints', '--bootstrap-controller', `127.0.0.1:${port}`]);
    assert.equal(endpoints.exitCode, 0, endpoints.all);
    assert.match(String(endpoints.all), new RegExp(`^1\\s+127\\.0\\.0\\.1\\s+${port}\\s+null\\s+controller\\s*$`, 'm'));
    const status = await tkafka([
      'metadata-quorum',
      '--bootstrap-controller',
      `127.0.0.1:${port}`,
      'describe',
      '--status',
    ]);
    assert.equal(status.exitCode, 0, status.all);
    assert.match(String(status.all), /^LeaderId:\s+1$/m);

    // a topic created on the controller: in the metadata, no partition log on this node
    const created = await ctl.request(ApiKey.CreateTopics, 7, {
      topics: [{ name: 'on-controller', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    // no broker is registered yet: Kafka answers INVALID_REPLICATION_FACTOR (no usable broker)
    assert.equal(created.topics[0]?.errorCode, 38);

    // a broker registers and heartbeats until unfenced; then a topic can be placed on it
    const md = await ctl.request(ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 2,
      includeFencedBrokers: false,
    });
    const reg = await ctl.request(ApiKey.BrokerRegistration, 4, {
      brokerId: 2,
      clusterId: md.clusterId,
      incarnationId: uuid(),
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 1, securityProtocol: 0 }],
      features: [
        { name: 'metadata.version', minSupportedVersion: 7, maxSupportedVersion: 33 },
        { name: 'kraft.version', minSupportedVersion: 0, maxSupportedVersion: 1 },
        { name: 'group.version', minSupportedVersion: 0, maxSupportedVersion: 1 },
        { name: 'transaction.version', minSupportedVersion: 0, maxSupportedVersion: 2 },
        { name: 'eligible.leader.replicas.version', minSupportedVersion: 0, maxSupportedVersion: 1 },
        { name: 'share.version', minSupportedVersion: 0, maxSupportedVersion: 2 },
        { name: 'streams.version', minSupportedVersion: 0, maxSupportedVersion: 1 },
      ],
      rack: null,
      isMigratingZkBroker: false,
      logDirs: [uuid()],
      previousBrokerEpoch: -1n,
    });
    assert.equal(reg.errorCode, 0);
    const hb = await ctl.request(ApiKey.BrokerHeartbeat, 1, {
      brokerId: 2,
      brokerEpoch: reg.brokerEpoch,
      currentMetadataOffset: reg.brokerEpoch + 1000n,
      wantFence: false,
      wantShutDown: false,
      offlineLogDirs: [],
    });
    assert.deepEqual([hb.errorCode, hb.isFenced], [0, false]);
    const t0 = Date.now();
    const placed = await ctl.request(ApiKey.CreateTopics, 7, {
      topics: [{ name: 'on-broker-2', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.equal(placed.topics[0]?.errorCode, 0);
    const dirs = readdirSync(join(dataDir, 'logs'));
    assert.ok(!dirs.some((d) => d.startsWith('on-broker-2')), `no partition log here: ${dirs.join(', ')}`);

    // no more heartbeats: the controller fences broker 2 by itself
    await waitFor(() => /Fencing broker 2 at epoch \d+ because its session has timed out\./.test(out), {
      what: 'the controller to fence broker 2',
      timeoutMs: SESSION_TIMEOUT_MS * 5 + 5000,
    });
    console.log(`controller-only node: broker 2 fenced ${Date.now() - t0} ms after its last heartbeat`);
    const again = await ctl.request(ApiKey.BrokerHeartbeat, 1, {
      brokerId: 2,
      brokerEpoch: reg.brokerEpoch,
      currentMetadataOffset: reg.brokerEpoch + 1000n,
      wantFence: false,
      wantShutDown: true,
      offlineLogDirs: [],
    });
    assert.deepEqual([again.errorCode, again.isFenced, again.shouldShutDown], [0, true, true]);
  } finally {
    ctl.close();
  }
  // SIGTERM: a clean shutdown
  c.kill('SIGTERM');
  const r = await c;
  child = null;
  assert.equal(r.exitCode, 0, out.slice(-3000));
  assert.match(out, /shut down completed/);
});
