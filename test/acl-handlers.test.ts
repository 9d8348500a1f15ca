// The ACL APIs on real tkafka processes, as AclApis answers them: without an authorizer
// SECURITY_DISABLED with Kafka's messages; with StandardAuthorizer, CLUSTER_AUTHORIZATION_FAILED for a
// principal that is not a super user (User:ANONYMOUS on PLAINTEXT), success for one. A forwarded
// CreateAcls is authorized with the Envelope's principal, and the ForwardingManager sends the
// request's principal (not ANONYMOUS). A request with an UNKNOWN code closes the connection (Kafka
// cannot parse it). `tkafka server start` refuses any other authorizer class, naming the key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { decodeResponse, encodeRequest } from '../src/protocol/frame.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import type { CreateAclsResponse } from '../src/protocol/generated/protocol/CreateAcls.js';
import { serializePrincipal } from '../src/broker/forwarding/principal.js';
import { ControllerChannel } from '../src/broker/forwarding/controller-channel.js';
import { ForwardingManager } from '../src/broker/forwarding/forwarding-manager.js';
import type { RequestContext } from '../src/broker/api/types.js';
import { AclOperation, AclPermissionType, PatternType, ResourceType } from '../src/protocol/acl.js';

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

let plain: BrokerProcess;
let secured: BrokerProcess;

before(async () => {
  plain = await startBroker();
  secured = await startBroker({ overrides: { 'authorizer.class.name': STANDARD, 'super.users': 'User:admin' } });
});

after(async () => {
  for (const b of [plain, secured]) {
    await b?.stop();
    b?.cleanup();
  }
});

const creation = (principal: string) => ({
  resourceType: ResourceType.TOPIC,
  resourceName: 'orders-',
  resourcePatternType: PatternType.PREFIXED,
  principal,
  host: '*',
  operation: AclOperation.WRITE,
  permissionType: AclPermissionType.ALLOW,
});
const anyFilter = {
  resourceTypeFilter: ResourceType.ANY,
  resourceNameFilter: null,
  patternTypeFilter: PatternType.ANY,
  principalFilter: null,
  hostFilter: null,
  operation: AclOperation.ANY,
  permissionType: AclPermissionType.ANY,
};

test('without an authorizer: SECURITY_DISABLED with AclApis messages', async () => {
  const c = await RawClient.connect(plain.port);
  try {
    const d = await c.request(ApiKey.DescribeAcls, 3, anyFilter);
    assert.equal(d.errorCode, ErrorCode.SECURITY_DISABLED);
    assert.equal(d.errorMessage, 'No Authorizer is configured on the broker');
    const cr = await c.request(ApiKey.CreateAcls, 3, { creations: [creation('User:a'), creation('User:b')] });
    assert.deepEqual(cr.results, [
      { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' },
      { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' },
    ]);
    const del = await c.request(ApiKey.DeleteAcls, 3, { filters: [anyFilter] });
    assert.deepEqual(del.filterResults, [
      { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.', matchingAcls: [] },
    ]);
  } finally {
    c.close();
  }
});

test('with StandardAuthorizer: ANONYMOUS is refused, an unknown code closes the connection', async () => {
  const c = await RawClient.connect(secured.port);
  try {
    const d = await c.request(ApiKey.DescribeAcls, 3, anyFilter);
    assert.equal(d.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const cr = await c.request(ApiKey.CreateAcls, 3, { creations: [creation('User:a')] });
    assert.equal(cr.results[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const del = await c.request(ApiKey.DeleteAcls, 3, { filters: [anyFilter] });
    assert.equal(del.filterResults[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    // resource type 99 is UNKNOWN: DescribeAclsRequest cannot be built, Kafka drops the connection
    c.writeRaw(
      Buffer.concat(encodeRequest(ApiKey.DescribeAcls, 3, 9, 'raw-test', { ...anyFilter, resourceTypeFilter: 99 })),
    );
    assert.ok(await c.waitClosed(10_000), 'connection closed');
  } finally {
    c.close();
  }
});

test('a forwarded CreateAcls is authorized with the Envelope principal', async (t) => {
  // the Envelope itself needs CLUSTER_ACTION for the forwarding connection's principal
  // (ControllerApis.handleEnvelopeRequest): ANONYMOUS is no super user on `secured`
  const s = await RawClient.connect(secured.controllerPort);
  try {
    const r = await s.request(ApiKey.Envelope, 0, {
      requestData: Buffer.concat(
        encodeRequest(ApiKey.CreateAcls, 3, 40, 'forwarded', { creations: [creation('User:alice')] }),
      ).subarray(4),
      requestPrincipal: serializePrincipal({ type: 'User', name: 'admin', tokenAuthenticated: false }),
      clientHostAddress: Buffer.from([127, 0, 0, 1]),
    });
    assert.deepEqual([r.errorCode, r.responseData], [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null]);
  } finally {
    s.close();
  }
  // a node whose forwarding principal (ANONYMOUS on PLAINTEXT) is a super user, as Kafka's
  // inter-broker principal must be: the forwarded request is checked with the Envelope's principal
  const forwarder = await startBroker({
    overrides: { 'authorizer.class.name': STANDARD, 'super.users': 'User:admin;User:ANONYMOUS' },
  });
  t.after(async () => {
    await forwarder.stop();
    forwarder.cleanup();
  });
  const c = await RawClient.connect(forwarder.controllerPort);
  try {
    const envelope = async (principal: string): Promise<CreateAclsResponse> => {
      const requestData = Buffer.concat(
        encodeRequest(ApiKey.CreateAcls, 3, 41, 'forwarded', { creations: [creation('User:alice')] }),
      ).subarray(4);
      const r = await c.request(ApiKey.Envelope, 0, {
        requestData,
        requestPrincipal: serializePrincipal({ type: 'User', name: principal, tokenAuthenticated: false }),
        clientHostAddress: Buffer.from([127, 0, 0, 1]),
      });
      assert.equal(r.errorCode, ErrorCode.NONE);
      return decodeResponse(ApiKey.CreateAcls, 3, r.responseData!).body as CreateAclsResponse;
    };
    assert.equal((await envelope('mallory')).results[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    assert.deepEqual((await envelope('admin')).results, [{ errorCode: ErrorCode.NONE, errorMessage: null }]);
  } finally {
    c.close();
  }

  // the ForwardingManager puts the request's principal in the Envelope
  const channel = new ControllerChannel({
    clientId: 'broker-9-forwarding',
    provider: () => ({ id: 1, host: '127.0.0.1', port: forwarder.controllerPort }),
    requestTimeoutMs: 5000,
    retryBackoffMs: 20,
  });
  const fm = new ForwardingManager(channel, { requestTimeoutMs: 20_000 });
  const ctx = (principal: string): RequestContext => ({
    apiKey: ApiKey.DeleteAcls,
    apiVersion: 3,
    correlationId: 5,
    clientId: 'tool',
    header: { requestApiKey: ApiKey.DeleteAcls, requestApiVersion: 3, correlationId: 5, clientId: 'tool' },
    connectionId: 'test-conn',
    listenerName: 'PLAINTEXT',
    isControllerListener: false,
    clientAddress: '127.0.0.1',
    requestSize: 0,
    principal,
  });
  try {
    const fail = (): never => {
      throw new Error('no error response expected');
    };
    const denied = (await fm.forward(ctx('User:mallory'), { filters: [anyFilter] }, fail)) as {
      filterResults: { errorCode: number; matchingAcls: unknown[] }[];
    };
    assert.equal(denied.filterResults[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const deleted = (await fm.forward(ctx('User:admin'), { filters: [anyFilter] }, fail)) as typeof denied;
    assert.equal(deleted.filterResults[0]!.errorCode, ErrorCode.NONE);
    assert.equal(deleted.filterResults[0]!.matchingAcls.length, 1);
  } finally {
    fm.close();
  }
});
