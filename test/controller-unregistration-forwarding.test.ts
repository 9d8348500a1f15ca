// UnregisterController sent to a tkafka broker-only node is forwarded to the active controller
// (KafkaApis.forwardToController): the broker-only node advertises API 94 on its broker listener as
// the controller does, a controller registration (forged with ControllerRegistration for id 5 on
// the controller-only node) is removed through the broker (NONE, gone from DescribeCluster with
// EndpointType CONTROLLER), and a second request gets the controller's CONTROLLER_ID_NOT_REGISTERED.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey, type ApiKeyWithMessages, type ApiRequest, type ApiResponse } from '../src/protocol/generated/apis.js';
import type { Input } from '../src/protocol/codec/types.js';

let cluster: Cluster | null = null;
after(async () => {
  await cluster?.cleanup();
});

async function request<K extends ApiKeyWithMessages>(
  port: number,
  apiKey: K,
  version: number,
  body: Input<ApiRequest<K>>,
): Promise<ApiResponse<K>> {
  const c = await RawClient.connect(port);
  try {
    return await c.request(apiKey, version, body);
  } finally {
    c.close();
  }
}

test('a broker-only node forwards UnregisterController to the active controller', async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'broker' },
    ],
  });
  const c = cluster;
  const ctl = c.node(1);
  const broker = c.node(2);
  const controllersListed = async (): Promise<number[]> => {
    const d = await request(ctl.controllerPort, ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 2,
      includeFencedBrokers: false,
    });
    return d.brokers.map((b) => b.brokerId).sort((a, b) => a - b);
  };
  const advertised = async (port: number): Promise<string | undefined> => {
    const av = await request(port, ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'tkafka-test',
      clientSoftwareVersion: '1.0',
    });
    const k = av.apiKeys.find((a) => a.apiKey === ApiKey.UnregisterController);
    return k && `${k.minVersion}-${k.maxVersion}`;
  };
  await waitFor(async () => (await controllersListed()).join(',') === '1', {
    what: 'controller 1 registered',
    timeoutMs: 30_000,
    intervalMs: 100,
  }).catch((e: Error) => {
    throw new Error(`${e.message}\n${c.logs(3000)}`);
  });
  // the broker advertises forwarded APIs once it knows the controller's versions
  await waitFor(async () => (await advertised(broker.port)) === '0-0', {
    what: 'UnregisterController v0 on the broker listener',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  assert.equal(await advertised(ctl.controllerPort), '0-0');

  const reg = await request(ctl.controllerPort, ApiKey.ControllerRegistration, 0, {
    controllerId: 5,
    incarnationId: 'AAAAAAAAAAAAAAAAAAAABQ',
    zkMigrationReady: false,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 1, securityProtocol: 0 }],
    features: [],
  });
  assert.equal(reg.errorCode, 0);
  assert.deepEqual(await controllersListed(), [1, 5]);

  const r = await request(broker.port, ApiKey.UnregisterController, 0, { controllerId: 5 });
  assert.deepEqual(r, { throttleTimeMs: 0, errorCode: 0, errorMessage: '' });
  assert.deepEqual(await controllersListed(), [1]);
  const again = await request(broker.port, ApiKey.UnregisterController, 0, { controllerId: 5 });
  assert.deepEqual(again, {
    throttleTimeMs: 0,
    errorCode: 136,
    errorMessage: 'Controller ID 5 is not currently registered.',
  });
});
