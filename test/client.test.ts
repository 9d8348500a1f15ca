// The shared Kafka client (src/client) against scripted fake brokers on loopback: ApiVersions
// negotiation (including the v0 fallback and a clear error when no version is common), the
// bootstrap list tried in turn, pipelining on one connection, request timeouts, retries with a
// metadata refresh on retriable errors, leader/coordinator/controller routing, and the
// command-config properties that configure it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { API_SPECS, type ApiKeyWithMessages, type ApiRequest } from '../src/protocol/generated/apis.js';
import { decodeRequest, encodeResponse } from '../src/protocol/frame.js';
import { CLIENT_APIS, apiByName, clientMaxVersion } from '../src/client/apis.js';
import { KafkaClient } from '../src/client/client.js';
import { clientConfigFromProperties, parseBootstrapServers } from '../src/client/config.js';
import {
  ApiError,
  ClientConfigError,
  ConnectionError,
  OperationTimeoutError,
  RequestTimeoutError,
  UnsupportedApiError,
  javaExceptionClass,
} from '../src/client/errors.js';
import { createTopics, describeTopics, listTopics } from '../src/client/admin/topics.js';
import { listOffsets } from '../src/client/admin/offsets.js';
import { Consumer } from '../src/client/consumer.js';
import { waitFor } from './helpers/wait-for.js';

/** A decoded request: checking apiKey narrows body to that API's generated request type. */
type DecodedReq = {
  [K in ApiKeyWithMessages]: { apiKey: K; apiVersion: number; body: ApiRequest<K> };
}[ApiKeyWithMessages];

type Handler = (
  req: DecodedReq & { socket: Socket; corr: number },
) => unknown | undefined | Promise<unknown | undefined>;

interface FakeBroker {
  port: number;
  address: string;
  requests: DecodedReq[];
  connections: number;
  close(): Promise<void>;
}

/** Every API at its full range, as a recent broker would advertise. */
const ALL_VERSIONS = API_SPECS.map((s) => ({ apiKey: s.key, minVersion: s.minVersion, maxVersion: s.maxVersion }));

/**
 * A fake broker: answers ApiVersions from `versions` (unless the handler does), passes other
 * requests to `handler`; `undefined` from the handler means "never answer".
 */
async function fakeBroker(handler: Handler, versions = ALL_VERSIONS, nodeId = 1): Promise<FakeBroker> {
  const requests: FakeBroker['requests'] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    const handle = async (frame: Buffer): Promise<void> => {
      const req = decodeRequest(frame);
      // decodeRequest read the body with the codec of req.apiKey
      const decoded = { apiKey: req.apiKey, apiVersion: req.apiVersion, body: req.body } as DecodedReq;
      requests.push(decoded);
      let resp = await handler({ ...decoded, socket, corr: req.correlationId });
      if (resp === undefined && req.apiKey === 18)
        resp = { errorCode: 0, apiKeys: versions, finalizedFeaturesEpoch: -1n };
      if (resp === undefined || resp === 'skip') return;
      if (resp === 'close') {
        socket.destroy();
        return;
      }
      socket.write(Buffer.concat(encodeResponse(req.apiKey, req.apiVersion, req.correlationId, resp)));
    };
    socket.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      // Every complete frame is handled at once (answers may come back out of order).
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const frame = Buffer.from(buf.subarray(4, 4 + buf.readInt32BE(0)));
        buf = buf.subarray(4 + frame.length);
        void handle(frame);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  void nodeId;
  return {
    port,
    address: `127.0.0.1:${port}`,
    requests,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

function metadataBody(
  port: number,
  topics: { name: string; partitions: { id: number; leader: number; error?: number }[] }[] = [],
  brokers = [{ nodeId: 1, host: '127.0.0.1', port }],
): unknown {
  return {
    brokers: brokers.map((b) => ({ ...b, rack: null })),
    clusterId: 'fake-cluster',
    controllerId: brokers[0]!.nodeId,
    topics: topics.map((t) => ({
      errorCode: 0,
      name: t.name,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      isInternal: false,
      partitions: t.partitions.map((p) => ({
        errorCode: p.error ?? 0,
        partitionIndex: p.id,
        leaderId: p.leader,
        leaderEpoch: 0,
        replicaNodes: [p.leader],
        isrNodes: [p.leader],
        offlineReplicas: [],
      })),
    })),
  };
}

test('the client API table lists every API of the generated protocol specs, within their versions', () => {
  assert.equal(CLIENT_APIS.length, API_SPECS.length);
  for (const s of API_SPECS) {
    const a = CLIENT_APIS.find((x) => x.key === s.key)!;
    assert.ok(a, s.name);
    assert.deepEqual([a.name, a.firstFlexible], [s.name, s.firstFlexible]);
    if (s.maxVersion < s.minVersion) {
      assert.ok(a.maxVersion < a.minVersion, `${s.name} has no versions`);
      continue;
    }
    assert.ok(
      a.minVersion >= s.minVersion && a.maxVersion <= s.maxVersion,
      `${s.name} ${a.minVersion}-${a.maxVersion}`,
    );
    // the client never sends the spec's unstable latest version
    if (s.latestVersionUnstable) assert.ok(clientMaxVersion(a) < s.maxVersion, s.name);
  }
});

test('ApiVersions picks the highest version both sides support', async () => {
  const versions = ALL_VERSIONS.map((v) => (v.apiKey === 3 ? { ...v, minVersion: 1, maxVersion: 7 } : v));
  const b = await fakeBroker((r) => (r.apiKey === 3 ? metadataBody(b.port) : undefined), versions);
  const c = new KafkaClient({ bootstrapServers: [b.address] });
  try {
    await c.metadata({ refresh: true });
    assert.equal(b.requests.find((r) => r.apiKey === 3)!.apiVersion, 7);
    const av = b.requests.find((r) => r.apiKey === 18)!;
    assert.equal(av.apiVersion, 4 - (apiByName('ApiVersions').latestUnstable ? 1 : 0));
    assert.equal(av.apiKey === 18 && av.body.clientSoftwareName, 'tkafka');
  } finally {
    c.close();
    await b.close();
  }
});

test('an old broker answering ApiVersions with UNSUPPORTED_VERSION gets a retry at its version', async () => {
  const old = ALL_VERSIONS.map((v) => (v.apiKey === 18 ? { ...v, maxVersion: 2 } : v));
  const b = await fakeBroker((r) => {
    if (r.apiKey === 18 && r.apiVersion > 2) {
      assert.equal(r.apiVersion, 4);
      // Kafka answers at v0 with error 35 and its own range.
      r.socket.write(
        Buffer.concat(
          encodeResponse(18, 0, r.corr, { errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 2 }] }),
        ),
      );
      return 'skip';
    }
    if (r.apiKey === 3) return metadataBody(b.port);
    return undefined;
  }, old);
  const c = new KafkaClient({ bootstrapServers: [b.address] });
  try {
    const md = await c.metadata({ refresh: true });
    assert.equal(md.clusterId, 'fake-cluster');
    assert.deepEqual(
      b.requests.filter((r) => r.apiKey === 18).map((r) => r.apiVersion),
      [4, 2],
    );
  } finally {
    c.close();
    await b.close();
  }
});

test('no common version, or a missing API, is a clear error naming the API', async () => {
  const versions = ALL_VERSIONS.filter((v) => v.apiKey !== 75).map((v) =>
    v.apiKey === 3 ? { ...v, minVersion: 50, maxVersion: 60 } : v,
  );
  const b = await fakeBroker(() => undefined, versions);
  const c = new KafkaClient({ bootstrapServers: [b.address] });
  try {
    await assert.rejects(c.metadata({ refresh: true }), (e: Error) => {
      assert.ok(e instanceof UnsupportedApiError);
      assert.match(e.message, /does not support a usable version of Metadata: it supports 50 to 60/);
      return true;
    });
    await assert.rejects(
      c.send('any', 'DescribeTopicPartitions', {}),
      /does not support the DescribeTopicPartitions API/,
    );
  } finally {
    c.close();
    await b.close();
  }
});

test('bootstrap servers are tried in turn; none reachable is one clear error', async () => {
  const b = await fakeBroker((r) => (r.apiKey === 3 ? metadataBody(b.port) : undefined));
  const dead = await fakeBroker(() => undefined);
  await dead.close();
  const c = new KafkaClient({ bootstrapServers: [dead.address, b.address] });
  try {
    assert.equal((await c.metadata({ refresh: true })).clusterId, 'fake-cluster');
  } finally {
    c.close();
    await b.close();
  }
  const none = new KafkaClient({ bootstrapServers: [dead.address], apiTimeoutMs: 60_000 });
  const t0 = Date.now();
  await assert.rejects(
    none.call('x', () => none.metadata({ refresh: true })),
    (e: Error) => {
      assert.ok(e instanceof ConnectionError);
      assert.equal(e.message, `Could not connect to any bootstrap server (${dead.address} failed: connection refused)`);
      return true;
    },
  );
  assert.ok(Date.now() - t0 < 5000, 'fails fast instead of waiting for the api timeout');
});

test('requests are pipelined on one connection per broker', async () => {
  let pending: (() => void)[] = [];
  const b = await fakeBroker(async (r) => {
    if (r.apiKey !== 3) return undefined;
    // Hold every Metadata response until five have arrived on the wire.
    await new Promise<void>((resolve) => {
      pending.push(resolve);
      if (pending.length === 5) {
        for (const p of pending) p();
        pending = [];
      }
    });
    return metadataBody(b.port);
  });
  const c = new KafkaClient({ bootstrapServers: [b.address], requestTimeoutMs: 5000 });
  try {
    const results = await Promise.all(Array.from({ length: 5 }, () => c.send('any', 'Metadata', { topics: [] })));
    assert.equal(results.length, 5);
    assert.equal(b.connections, 1);
  } finally {
    c.close();
    await b.close();
  }
});

test('a request without an answer times out after request.timeout.ms', async () => {
  const b = await fakeBroker((r) => (r.apiKey === 18 ? undefined : new Promise(() => undefined)));
  const c = new KafkaClient({
    bootstrapServers: [b.address],
    requestTimeoutMs: 200,
    apiTimeoutMs: 600,
    retryBackoffMs: 50,
  });
  try {
    await assert.rejects(
      c.send('any', 'Metadata', { topics: [] }),
      (e: Error) => e instanceof RequestTimeoutError && /timed out after 200 ms/.test(e.message),
    );
    await assert.rejects(
      c.request('any', 'Metadata', { topics: [] }),
      (e: Error) => e instanceof OperationTimeoutError && /Metadata timed out after 600 ms/.test(e.message),
    );
  } finally {
    c.close();
    await b.close();
  }
});

test('NOT_LEADER_OR_FOLLOWER refreshes metadata and retries at the new leader', async () => {
  // Broker 1 answers metadata; at first it says broker 1 leads p0, then broker 2.
  let metadataCalls = 0;
  const b2 = await fakeBroker((r) =>
    r.apiKey === 2
      ? {
          topics: [
            {
              name: 't',
              partitions: [{ partitionIndex: 0, errorCode: 0, offset: 42n, timestamp: -1n, leaderEpoch: 3 }],
            },
          ],
        }
      : undefined,
  );
  const b1 = await fakeBroker((r) => {
    if (r.apiKey === 3) {
      metadataCalls++;
      const leader = metadataCalls === 1 ? 1 : 2;
      return metadataBody(
        b1.port,
        [{ name: 't', partitions: [{ id: 0, leader }] }],
        [
          { nodeId: 1, host: '127.0.0.1', port: b1.port },
          { nodeId: 2, host: '127.0.0.1', port: b2.port },
        ],
      );
    }
    if (r.apiKey === 2)
      return {
        topics: [
          {
            name: 't',
            partitions: [{ partitionIndex: 0, errorCode: 6, offset: -1n, timestamp: -1n, leaderEpoch: -1 }],
          },
        ],
      };
    return undefined;
  });
  const c = new KafkaClient({ bootstrapServers: [b1.address], retryBackoffMs: 10 });
  try {
    const r = (await listOffsets(c, [{ topic: 't', partition: 0 }], -1n)).get('t-0')!;
    assert.ok(r.ok);
    assert.equal(r.value.offset, 42n);
    assert.ok(metadataCalls >= 2);
    assert.equal(b2.requests.filter((x) => x.apiKey === 2).length, 1);
  } finally {
    c.close();
    await b1.close();
    await b2.close();
  }
});

test('retriable errors (COORDINATOR_LOAD_IN_PROGRESS, LEADER_NOT_AVAILABLE) are retried; others are not', async () => {
  let findCalls = 0;
  const b = await fakeBroker((r) => {
    if (r.apiKey === 3) return metadataBody(b.port);
    if (r.apiKey === 10) {
      findCalls++;
      const errorCode = findCalls < 3 ? 14 : 0;
      return {
        coordinators: [
          { key: r.body.coordinatorKeys[0], nodeId: 1, host: '127.0.0.1', port: b.port, errorCode, errorMessage: null },
        ],
      };
    }
    if (r.apiKey === 19) {
      return {
        topics: r.body.topics.map((t) => ({
          name: t.name,
          topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
          errorCode: t.name === 'exists' ? 36 : 0,
          errorMessage: t.name === 'exists' ? "Topic 'exists' already exists." : null,
          numPartitions: 1,
          replicationFactor: 1,
          configs: [],
        })),
      };
    }
    return undefined;
  });
  const c = new KafkaClient({ bootstrapServers: [b.address], retryBackoffMs: 10 });
  try {
    assert.equal(await c.call('findCoordinator', () => c.coordinatorOf('group', 'g1')), 1);
    assert.equal(findCalls, 3);
    const created = await createTopics(c, [{ name: 'fresh' }, { name: 'exists' }]);
    assert.ok(created.get('fresh')!.ok);
    const failed = created.get('exists')!;
    assert.ok(!failed.ok && failed.error instanceof ApiError);
    assert.equal(
      (failed.error as ApiError).javaString(),
      "org.apache.kafka.common.errors.TopicExistsException: Topic 'exists' already exists.",
    );
    assert.equal(b.requests.filter((x) => x.apiKey === 19).length, 1);
  } finally {
    c.close();
    await b.close();
  }
});

test('describeTopics pages DescribeTopicPartitions with the cursor and falls back to Metadata', async () => {
  const parts = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => ({
      errorCode: 0,
      partitionIndex: from + i,
      leaderId: 1,
      leaderEpoch: 0,
      replicaNodes: [1],
      isrNodes: [1],
      eligibleLeaderReplicas: [],
      lastKnownElr: [],
      offlineReplicas: [],
    }));
  const b = await fakeBroker((r) => {
    if (r.apiKey === 3)
      return metadataBody(b.port, [
        { name: 'a', partitions: [{ id: 0, leader: 1 }] },
        { name: 'b', partitions: [{ id: 0, leader: 1 }] },
      ]);
    if (r.apiKey !== 75) return undefined;
    const cursor = r.body.cursor;
    const topic = (name: string, from: number, to: number) => ({
      errorCode: 0,
      name,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
      isInternal: false,
      partitions: parts(from, to),
      topicAuthorizedOperations: 0,
    });
    if (!cursor) return { topics: [topic('a', 0, 2)], nextCursor: { topicName: 'a', partitionIndex: 2 } };
    if (cursor.topicName === 'a')
      return { topics: [topic('a', 2, 3), topic('b', 0, 1)], nextCursor: { topicName: 'b', partitionIndex: 1 } };
    return { topics: [topic('b', 1, 2)], nextCursor: null };
  });
  const c = new KafkaClient({ bootstrapServers: [b.address] });
  try {
    const d = await describeTopics(c, ['b', 'a'], { partitionLimit: 2 });
    const a = d.get('a')!;
    const bb = d.get('b')!;
    assert.ok(a.ok && bb.ok);
    assert.deepEqual(
      a.value.partitions.map((p) => p.partition),
      [0, 1, 2],
    );
    assert.deepEqual(
      bb.value.partitions.map((p) => p.partition),
      [0, 1],
    );
    assert.equal(b.requests.filter((x) => x.apiKey === 75).length, 3);
    const viaMetadata = await describeTopics(c, ['a'], { useMetadata: true });
    const m = viaMetadata.get('a')!;
    assert.ok(m.ok);
    assert.equal(m.value.partitions[0]!.elr, null);
    assert.deepEqual(
      (await listTopics(c)).map((t) => t.name),
      ['a', 'b'],
    );
  } finally {
    c.close();
    await b.close();
  }
});

test('command-config properties configure the client; unsupported security is refused', () => {
  const cfg = clientConfigFromProperties(
    new Map([
      ['client.id', 'my-tool'],
      ['request.timeout.ms', '1234'],
      ['default.api.timeout.ms', '5678'],
      ['retry.backoff.ms', '7'],
      ['bootstrap.servers', 'a:1,b:2'],
    ]),
  );
  assert.deepEqual(
    [cfg.clientId, cfg.requestTimeoutMs, cfg.apiTimeoutMs, cfg.retryBackoffMs, cfg.bootstrapServers],
    ['my-tool', 1234, 5678, 7, ['a:1', 'b:2']],
  );
  assert.deepEqual(clientConfigFromProperties(new Map(), { bootstrapServers: ['x:9'] }).bootstrapServers, ['x:9']);
  assert.throws(
    () => clientConfigFromProperties(new Map([['security.protocol', 'TLS']])),
    (e: Error) =>
      e instanceof ClientConfigError &&
      e.message ===
        'Invalid value TLS for configuration security.protocol: String must be one of (case insensitive): PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL',
  );
  assert.throws(
    () => clientConfigFromProperties(new Map([['request.timeout.ms', 'soon']])),
    /Invalid value soon for configuration request.timeout.ms/,
  );
  assert.throws(() => parseBootstrapServers('nohost'), /Invalid url in bootstrap.servers: nohost/);
  assert.equal(javaExceptionClass(56), 'org.apache.kafka.common.errors.KafkaStorageException');
  assert.equal(javaExceptionClass(87), 'org.apache.kafka.common.InvalidRecordException');
});

test('a consumer assigned a partition its broker does not know yet keeps polling; it positions once the topic appears', async () => {
  // The first Metadata answers UNKNOWN_TOPIC_OR_PARTITION for the topic (a broker still replaying the
  // controller's record); Kafka's consumer retries the offset lookup instead of failing poll.
  let known = false;
  const b = await fakeBroker((r) => {
    if (r.apiKey === 3) {
      if (known) return metadataBody(b.port, [{ name: 'late', partitions: [{ id: 0, leader: 1 }] }]);
      const body = metadataBody(b.port, [{ name: 'late', partitions: [] }]) as { topics: { errorCode: number }[] };
      body.topics[0]!.errorCode = 3;
      return body;
    }
    if (r.apiKey === 2)
      return {
        topics: [
          {
            name: 'late',
            partitions: [{ partitionIndex: 0, errorCode: 0, offset: 7n, timestamp: -1n, leaderEpoch: 0 }],
          },
        ],
      };
    if (r.apiKey === 1) return 'skip';
    return undefined;
  });
  const c = new KafkaClient({ bootstrapServers: [b.address], retryBackoffMs: 10 });
  const consumer = new Consumer(c, { groupId: null, enableAutoCommit: false });
  try {
    consumer.assign([{ topic: 'late', partition: 0 }]);
    assert.deepEqual(await consumer.poll(300), []);
    assert.equal(b.requests.filter((x) => x.apiKey === 2).length, 0);
    known = true;
    // the fake never answers the Fetch: the poll stays in it until the client closes
    const polling = consumer.poll(1000).catch(() => []);
    await waitFor(() => b.requests.some((x) => x.apiKey === 1), {
      what: 'a Fetch from the positioned partition',
      timeoutMs: 10_000,
    });
    c.close();
    await polling;
    const fetch = b.requests.find((x) => x.apiKey === 1)!;
    assert.ok(fetch.apiKey === 1);
    assert.equal(fetch.body.topics[0]!.partitions[0]!.fetchOffset, 7n);
  } finally {
    await consumer.close().catch(() => undefined);
    c.close();
    await b.close();
  }
});
