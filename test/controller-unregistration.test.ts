// UnregisterController (API 94, KIP-1201) on a real `tkafka server start` process (combined node,
// controller id 1, metadata.version 4.4-IV2): a controller registration (forged with
// ControllerRegistration for id 2 on the controller listener) is removed by UnregisterController —
// NONE, then gone from DescribeCluster (EndpointType CONTROLLER) and `tkafka cluster list-endpoints
// --bootstrap-controller`; an unknown id is CONTROLLER_ID_NOT_REGISTERED and the active controller
// itself INVALID_REQUEST, with Kafka's messages (ClusterControlManager / QuorumController); the
// broker listener serves it too, and the controller answers it inside an Envelope (forwarding).
// `tkafka cluster unregister-controller` (Kafka 4.4's ClusterTool subcommand) prints Kafka's lines. The UnregisterControllerRecord is in the metadata log as
// `dump-log --cluster-metadata-decoder` prints it, the snapshot written at shutdown holds no
// registration of id 2, and after a restart id 2 is still not listed.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey, type ApiKeyWithMessages, type ApiRequest, type ApiResponse } from '../src/protocol/generated/apis.js';
import type { Input } from '../src/protocol/codec/types.js';
import { decodeResponse, encodeRequest } from '../src/protocol/frame.js';
import { ANONYMOUS, serializePrincipal } from '../src/broker/forwarding/principal.js';
import { run as clusterTool } from '../src/tools/cluster/main.js';
import { run as dumpLog } from '../src/tools/dump-log/main.js';
import type { ToolIO } from '../src/tools/common/io.js';

const CONTROLLER_ID_NOT_REGISTERED = 136;
const INVALID_REQUEST = 42;

let node: BrokerProcess;

before(async () => {
  node = await startBroker();
});

after(async () => {
  await node?.stop();
  node?.cleanup();
});

async function tool(
  run: (argv: string[], io: ToolIO) => Promise<number>,
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void): Writable =>
    new Writable({
      write(c, _e, cb) {
        append(String(c));
        cb();
      },
    });
  const code = await run(argv, {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    env: {},
  });
  return { code, out, err };
}

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

async function controllersListed(): Promise<number[]> {
  const d = await request(node.controllerPort, ApiKey.DescribeCluster, 1, {
    includeClusterAuthorizedOperations: false,
    endpointType: 2,
    includeFencedBrokers: false,
  });
  assert.equal(d.errorCode, 0);
  return d.brokers.map((b) => b.brokerId).sort((a, b) => a - b);
}

const unregister = (port: number, controllerId: number) =>
  request(port, ApiKey.UnregisterController, 0, { controllerId });

const metadataDir = (): string => join(node.dataDir, 'logs', '__cluster_metadata-0');

test('UnregisterController removes a registered controller; unknown ids and the active controller are refused', async () => {
  await waitFor(async () => (await controllersListed()).join(',') === '1', {
    what: 'the active controller registered',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  const reg = await request(node.controllerPort, ApiKey.ControllerRegistration, 0, {
    controllerId: 2,
    incarnationId: 'AAAAAAAAAAAAAAAAAAAAAg',
    zkMigrationReady: false,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 1, securityProtocol: 0 }],
    features: [{ name: 'metadata.version', minSupportedVersion: 7, maxSupportedVersion: 33 }],
  });
  assert.equal(reg.errorCode, 0, JSON.stringify(reg));
  assert.deepEqual(await controllersListed(), [1, 2]);
  const before = await tool(clusterTool, [
    'list-endpoints',
    '--bootstrap-controller',
    `127.0.0.1:${node.controllerPort}`,
  ]);
  assert.equal(before.code, 0, before.err);
  assert.match(before.out, /^2 +127\.0\.0\.1 +1 /m);

  assert.deepEqual(await unregister(node.controllerPort, 2), { throttleTimeMs: 0, errorCode: 0, errorMessage: '' });
  assert.deepEqual(await controllersListed(), [1]);
  const afterOut = await tool(clusterTool, [
    'list-endpoints',
    '--bootstrap-controller',
    `127.0.0.1:${node.controllerPort}`,
  ]);
  assert.equal(afterOut.code, 0, afterOut.err);
  assert.doesNotMatch(afterOut.out, /^2 /m);
  assert.match(afterOut.out, /^1 +127\.0\.0\.1 /m);

  // a second unregistration, and one of an id never registered, on the controller and the broker listener
  for (const [port, id] of [
    [node.controllerPort, 2],
    [node.port, 7],
  ] as const) {
    assert.deepEqual(await unregister(port, id), {
      throttleTimeMs: 0,
      errorCode: CONTROLLER_ID_NOT_REGISTERED,
      errorMessage: `Controller ID ${id} is not currently registered.`,
    });
  }
  assert.deepEqual(await unregister(node.controllerPort, 1), {
    throttleTimeMs: 0,
    errorCode: INVALID_REQUEST,
    errorMessage: 'Controller cannot unregister itself while it is active.',
  });
  assert.deepEqual(await controllersListed(), [1]);
});

test('tkafka cluster unregister-controller prints what Kafka 4.4 ClusterTool prints', async () => {
  const reg = await request(node.controllerPort, ApiKey.ControllerRegistration, 0, {
    controllerId: 3,
    incarnationId: 'AAAAAAAAAAAAAAAAAAAAAw',
    zkMigrationReady: false,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 1, securityProtocol: 0 }],
    features: [],
  });
  assert.equal(reg.errorCode, 0);
  assert.deepEqual(await controllersListed(), [1, 3]);
  for (const conn of [
    ['--bootstrap-controller', `127.0.0.1:${node.controllerPort}`],
    ['--bootstrap-server', node.bootstrap],
  ]) {
    const r = await tool(clusterTool, ['unregister-controller', ...conn, '--id', '3']);
    if (conn[0] === '--bootstrap-controller') {
      assert.deepEqual([r.code, r.out, r.err], [0, 'Controller 3 is no longer registered.\n', '']);
      assert.deepEqual(await controllersListed(), [1]);
    } else {
      assert.deepEqual([r.code, r.out], [1, '']);
      assert.equal(
        r.err,
        'org.apache.kafka.common.errors.ControllerIdNotRegisteredException: Controller ID 3 is not currently registered.\n',
      );
    }
  }
});

test('UnregisterController forwarded in an Envelope (as a broker-only node forwards it) is answered inside the envelope', async () => {
  const inner = Buffer.concat(
    encodeRequest(ApiKey.UnregisterController, 0, 55, 'forwarded-client', { controllerId: 9 }),
  );
  const r = await request(node.controllerPort, ApiKey.Envelope, 0, {
    requestData: inner.subarray(4),
    requestPrincipal: serializePrincipal(ANONYMOUS),
    clientHostAddress: Buffer.from([127, 0, 0, 1]),
  });
  assert.equal(r.errorCode, 0);
  const answer = decodeResponse(ApiKey.UnregisterController, 0, r.responseData!);
  assert.equal(answer.correlationId, 55);
  assert.deepEqual(answer.body, {
    throttleTimeMs: 0,
    errorCode: CONTROLLER_ID_NOT_REGISTERED,
    errorMessage: 'Controller ID 9 is not currently registered.',
  });
});

test('the UnregisterControllerRecord is in the metadata log, the shutdown snapshot has no registration of id 2, a restart keeps it gone', async () => {
  await node.stop();
  const files = readdirSync(metadataDir()).sort();
  const logs = files.filter((f) => f.endsWith('.log')).map((f) => join(metadataDir(), f));
  const checkpoints = files.filter((f) => f.endsWith('.checkpoint')).map((f) => join(metadataDir(), f));
  assert.ok(logs.length > 0 && checkpoints.length > 0, files.join(','));

  const log = await tool(dumpLog, ['--cluster-metadata-decoder', '--files', logs.join(',')]);
  assert.equal(log.code, 0, log.err);
  assert.match(
    log.out,
    / payload: \{"type":"UNREGISTER_CONTROLLER_RECORD","version":0,"data":\{"controllerId":2\}\}$/m,
  );
  assert.match(log.out, /"type":"REGISTER_CONTROLLER_RECORD","version":0,"data":\{"controllerId":2,/);

  const snap = await tool(dumpLog, ['--cluster-metadata-decoder', '--files', checkpoints.at(-1)!]);
  assert.equal(snap.code, 0, snap.err);
  assert.match(snap.out, /"type":"REGISTER_CONTROLLER_RECORD","version":0,"data":\{"controllerId":1,/);
  assert.doesNotMatch(snap.out, /"controllerId":2/);

  await node.restart();
  await waitFor(async () => (await controllersListed()).join(',') === '1', {
    what: 'controller 1 listed after the restart',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  assert.deepEqual(await unregister(node.controllerPort, 2), {
    throttleTimeMs: 0,
    errorCode: CONTROLLER_ID_NOT_REGISTERED,
    errorMessage: 'Controller ID 2 is not currently registered.',
  });
});
