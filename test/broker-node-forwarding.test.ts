// Forwarding (KIP-590) against a real tkafka process: the Envelope handler on the controller listener
// (the embedded request is handled as if the client sent it; Kafka's envelope error codes for a bad
// principal, address or API), and the broker side — ForwardingManager over a ControllerChannel — that
// finds the controller through its provider, retries when the controller is unreachable, and answers
// REQUEST_TIMED_OUT when its deadline passes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, unusedPort, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { encodeRequest, decodeResponse } from '../src/protocol/frame.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import type { CreateTopicsResponse } from '../src/protocol/generated/protocol/CreateTopics.js';
import type { DeleteTopicsResponse } from '../src/protocol/generated/protocol/DeleteTopics.js';
import { ControllerChannel, type ControllerNode } from '../src/broker/forwarding/controller-channel.js';
import { ForwardingManager } from '../src/broker/forwarding/forwarding-manager.js';
import { ANONYMOUS, serializePrincipal } from '../src/broker/forwarding/principal.js';
import type { RequestContext } from '../src/broker/api/types.js';

let broker: BrokerProcess;
let controller: RawClient;
let client: RawClient;

before(async () => {
  broker = await startBroker();
  controller = await RawClient.connect(broker.controllerPort);
  client = await RawClient.connect(broker.port);
});

after(async () => {
  controller?.close();
  client?.close();
  await broker?.stop();
  broker?.cleanup();
});

const createTopicsBody = (name: string) => ({
  topics: [{ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
  timeoutMs: 30_000,
  validateOnly: false,
});

function payload(apiKey: number, version: number, body: unknown, correlationId = 77): Buffer {
  return Buffer.concat(encodeRequest(apiKey, version, correlationId, 'forwarded-client', body)).subarray(4);
}

async function topicIdOnBroker(name: string): Promise<string | null> {
  const md = await client.request(ApiKey.Metadata, 12, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  const t = md.topics.find((x) => x.name === name);
  return t && t.errorCode === ErrorCode.NONE ? t.topicId : null;
}

test('Envelope: the embedded CreateTopics is handled by the controller and answered inside the envelope', async () => {
  const r = await controller.request(ApiKey.Envelope, 0, {
    requestData: payload(ApiKey.CreateTopics, 7, createTopicsBody('forwarded-a')),
    requestPrincipal: serializePrincipal(ANONYMOUS),
    clientHostAddress: Buffer.from([127, 0, 0, 1]),
  });
  assert.equal(r.errorCode, ErrorCode.NONE);
  assert.ok(r.responseData);
  const inner = decodeResponse(ApiKey.CreateTopics, 7, r.responseData);
  assert.equal(inner.correlationId, 77, 'the response header carries the forwarded request correlation id');
  const body = inner.body as CreateTopicsResponse;
  assert.equal(body.topics.length, 1);
  assert.equal(body.topics[0]!.errorCode, ErrorCode.NONE);
  assert.equal(body.topics[0]!.numPartitions, 2);
  assert.equal(await topicIdOnBroker('forwarded-a'), body.topics[0]!.topicId);
});

test('Envelope: a per-topic error of the embedded request is data inside a successful envelope', async () => {
  const r = await controller.request(ApiKey.Envelope, 0, {
    requestData: payload(ApiKey.CreateTopics, 7, createTopicsBody('forwarded-a')),
    requestPrincipal: serializePrincipal(ANONYMOUS),
    clientHostAddress: Buffer.from([127, 0, 0, 1]),
  });
  assert.equal(r.errorCode, ErrorCode.NONE);
  const body = decodeResponse(ApiKey.CreateTopics, 7, r.responseData!).body as CreateTopicsResponse;
  assert.equal(body.topics[0]!.errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
});

test('Envelope: errors of the envelope itself, as EnvelopeUtils.handleEnvelopeRequest raises them', async () => {
  const good = payload(ApiKey.CreateTopics, 7, createTopicsBody('never-created'));
  const principal = serializePrincipal(ANONYMOUS);
  const localhost = Buffer.from([127, 0, 0, 1]);
  const cases: [string, Parameters<RawClient['request']>[2], number][] = [
    [
      'unreadable principal',
      { requestData: good, requestPrincipal: Buffer.from([0, 9, 1]), clientHostAddress: localhost },
      ErrorCode.PRINCIPAL_DESERIALIZATION_FAILURE,
    ],
    [
      'address of 5 bytes',
      { requestData: good, requestPrincipal: principal, clientHostAddress: Buffer.alloc(5) },
      ErrorCode.INVALID_REQUEST,
    ],
    [
      'an API that is not forwardable (Metadata)',
      {
        requestData: payload(ApiKey.Metadata, 12, {
          topics: null,
          allowAutoTopicCreation: false,
          includeTopicAuthorizedOperations: false,
        }),
        requestPrincipal: principal,
        clientHostAddress: localhost,
      },
      ErrorCode.INVALID_REQUEST,
    ],
    [
      'a truncated embedded request',
      { requestData: good.subarray(0, good.length - 6), requestPrincipal: principal, clientHostAddress: localhost },
      ErrorCode.UNSUPPORTED_VERSION,
    ],
  ];
  for (const [what, body, code] of cases) {
    const r = await controller.request(ApiKey.Envelope, 0, body as never);
    assert.equal(r.errorCode, code, what);
    assert.equal(r.responseData, null, what);
  }
  assert.equal(await topicIdOnBroker('never-created'), null);
});

function ctxFor(apiKey: number, apiVersion: number): RequestContext {
  return {
    apiKey,
    apiVersion,
    correlationId: 5,
    clientId: 'tool',
    header: { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId: 5, clientId: 'tool' },
    connectionId: 'test-conn',
    listenerName: 'PLAINTEXT',
    isControllerListener: false,
    clientAddress: '::ffff:127.0.0.1',
    requestSize: 0,
  };
}

test('ForwardingManager: forwards through the controller the provider names, retrying while it is unreachable', async () => {
  const dead = await unusedPort();
  let asked = 0;
  // the first answers point at a port nothing listens on, as a stale controller address would
  const provider = (): ControllerNode | null => {
    asked++;
    if (asked === 1) return null;
    return asked <= 3
      ? { id: 1, host: '127.0.0.1', port: dead }
      : { id: 1, host: '127.0.0.1', port: broker.controllerPort };
  };
  const channel = new ControllerChannel({
    clientId: 'broker-9-forwarding',
    provider,
    requestTimeoutMs: 5000,
    retryBackoffMs: 20,
  });
  const fm = new ForwardingManager(channel, { requestTimeoutMs: 20_000 });
  try {
    const created = (await fm.forward(ctxFor(ApiKey.CreateTopics, 7), createTopicsBody('forwarded-b'), () => {
      throw new Error('no error response expected');
    })) as CreateTopicsResponse;
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    assert.ok(asked >= 4, `the provider was asked again after each failure (${asked} times)`);
    // what the controller advertised on connecting (for the broker's own ApiVersions: intersectForwardableApis)
    assert.deepEqual(channel.activeControllerApiVersions?.get(ApiKey.CreateTopics), { minVersion: 2, maxVersion: 7 });
    assert.equal(await topicIdOnBroker('forwarded-b'), created.topics[0]!.topicId);

    const deleted = (await fm.forward(
      ctxFor(ApiKey.DeleteTopics, 6),
      { topics: [{ name: 'forwarded-b', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], topicNames: [], timeoutMs: 30_000 },
      () => {
        throw new Error('no error response expected');
      },
    )) as DeleteTopicsResponse;
    assert.equal(deleted.responses[0]!.errorCode, ErrorCode.NONE);
    assert.equal(await topicIdOnBroker('forwarded-b'), null);
  } finally {
    fm.close();
  }
});

test('ForwardingManager: with no reachable controller the client gets REQUEST_TIMED_OUT once the deadline passes', async () => {
  const dead = await unusedPort();
  const channel = new ControllerChannel({
    clientId: 'broker-9-forwarding',
    provider: () => ({ id: 1, host: '127.0.0.1', port: dead }),
    requestTimeoutMs: 500,
    retryBackoffMs: 50,
  });
  const fm = new ForwardingManager(channel, { requestTimeoutMs: 1000 });
  try {
    const t0 = Date.now();
    const r = await fm.forward(ctxFor(ApiKey.CreateTopics, 7), createTopicsBody('unreachable'), (code) => ({ code }));
    const ms = Date.now() - t0;
    assert.deepEqual(r, { code: ErrorCode.REQUEST_TIMED_OUT });
    assert.equal(channel.activeControllerApiVersions, null);
    assert.ok(ms >= 900 && ms < 5000, `gave up after ${ms} ms`);
  } finally {
    fm.close();
  }
});
