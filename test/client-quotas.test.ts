// Client quotas end to end on a tkafka broker: quotas set and removed with `tkafka configs`
// (AlterClientQuotas, served by the controller), Kafka's validation answers over the wire, and
// producer_byte_rate / consumer_byte_rate enforced as KIP-219: a throttled client sees
// throttle_time_ms > 0 in the response, its connection handles nothing more for that time, and a
// client of another client id on the same broker is not throttled.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey, decodeResponse, encodeRequest } from '../src/protocol/frame.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch-build.js';
import type { ApiKeyWithMessages, ApiRequest, ApiResponse } from '../src/protocol/generated/apis.js';
import type { Input } from '../src/protocol/codec/types.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { STANDARD_AUTHORIZER_CLASS } from '../src/config/support.js';

let broker: BrokerProcess;

/** One connection with a chosen client id; requests answered in order. */
class Conn {
  private buf = Buffer.alloc(0);
  private waiters: ((frame: Buffer) => void)[] = [];
  private corr = 1;
  private constructor(
    private readonly socket: Socket,
    private readonly clientId: string,
  ) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4 && this.buf.length >= 4 + this.buf.readInt32BE(0)) {
        const n = this.buf.readInt32BE(0);
        const frame = this.buf.subarray(4, 4 + n);
        this.buf = this.buf.subarray(4 + n);
        this.waiters.shift()?.(frame);
      }
    });
    socket.on('error', () => undefined);
  }
  static async open(port: number, clientId: string): Promise<Conn> {
    const s = connect(port, '127.0.0.1');
    await new Promise<void>((res, rej) => {
      s.once('connect', res);
      s.once('error', rej);
    });
    return new Conn(s, clientId);
  }
  async request<K extends ApiKeyWithMessages>(
    apiKey: K,
    version: number,
    body: Input<ApiRequest<K>>,
  ): Promise<ApiResponse<K>> {
    const p = new Promise<Buffer>((res) => this.waiters.push(res));
    this.socket.write(Buffer.concat(encodeRequest(apiKey, version, this.corr++, this.clientId, body)));
    return decodeResponse(apiKey, version, await p).body as ApiResponse<K>;
  }
  close(): void {
    this.socket.destroy();
  }
}

const configs = (args: string[]): ReturnType<typeof runTkafka> =>
  runTkafka('configs', ['--bootstrap-server', broker.bootstrap, ...args]);

/** `tkafka configs --alter --entity-type clients --entity-name <name> --add-config|--delete-config <config>`. */
const clientQuota = (
  name: string,
  op: '--add-config' | '--delete-config',
  config: string,
): ReturnType<typeof runTkafka> => configs(['--alter', '--entity-type', 'clients', '--entity-name', name, op, config]);

/** A batch of about `bytes` bytes (one record). */
const batchOf = (bytes: number): Buffer =>
  buildRecordBatchSync({ records: [{ key: null, value: Buffer.alloc(bytes, 7) }] });

const produce = (c: Conn, records: Buffer): Promise<ApiResponse<typeof ApiKey.Produce>> =>
  c.request(ApiKey.Produce, 9, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: 'q', partitionData: [{ index: 0, records }] }],
  });

before(async () => {
  broker = await startBroker();
  const created = await runTkafka('topics', ['--bootstrap-server', broker.bootstrap, '--create', '--topic', 'q']);
  assert.equal(created.code, 0, created.err);
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

test('AlterClientQuotas: Kafka validation per entity, validateOnly writes nothing, describe shows the rest', async () => {
  const c = await Conn.open(broker.port, 'admin');
  try {
    const r = await c.request(ApiKey.AlterClientQuotas, 1, {
      validateOnly: false,
      entries: [
        {
          entity: [{ entityType: 'user', entityName: 'alice' }],
          ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }],
        },
        {
          entity: [{ entityType: 'user', entityName: 'bob' }],
          ops: [{ key: 'producer_byte_rate', value: 1.5, remove: false }],
        },
        {
          entity: [{ entityType: 'ip', entityName: 'example.invalid' }],
          ops: [{ key: 'connection_creation_rate', value: 5, remove: false }],
        },
        {
          entity: [
            { entityType: 'ip', entityName: '127.0.0.1' },
            { entityType: 'user', entityName: 'alice' },
          ],
          ops: [{ key: 'connection_creation_rate', value: 5, remove: false }],
        },
        {
          entity: [{ entityType: 'ip', entityName: null }],
          ops: [{ key: 'connection_creation_rate', value: 5, remove: false }],
        },
      ],
    });
    // keyed by the entity's sorted type=name pairs (the response lists them in Java's HashMap order)
    const key = (e: { entityType: string; entityName: string | null }[]): string =>
      e
        .map((x) => `${x.entityType}=${x.entityName}`)
        .sort()
        .join(',');
    const byEntity = new Map(r.entries.map((e) => [key(e.entity), [e.errorCode, e.errorMessage]]));
    assert.deepEqual(byEntity.get('user=alice'), [ErrorCode.NONE, null]);
    assert.deepEqual(byEntity.get('user=bob'), [
      ErrorCode.INVALID_REQUEST,
      'producer_byte_rate cannot be a fractional value.',
    ]);
    assert.deepEqual(byEntity.get('ip=example.invalid'), [
      ErrorCode.INVALID_REQUEST,
      'example.invalid is not a valid IP or resolvable host.',
    ]);
    assert.deepEqual(byEntity.get('ip=127.0.0.1,user=alice'), [
      ErrorCode.INVALID_REQUEST,
      'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId',
    ]);
    assert.deepEqual(byEntity.get('ip=null'), [ErrorCode.NONE, null]);
    const v = await c.request(ApiKey.AlterClientQuotas, 1, {
      validateOnly: true,
      entries: [
        {
          entity: [{ entityType: 'user', entityName: 'carol' }],
          ops: [{ key: 'consumer_byte_rate', value: 5, remove: false }],
        },
      ],
    });
    assert.equal(v.entries[0]!.errorCode, ErrorCode.NONE);
  } finally {
    c.close();
  }
  const users = await configs(['--describe', '--entity-type', 'users']);
  assert.equal(users.code, 0, users.err);
  assert.match(users.out, /^Quota configs for user-principal 'alice' are producer_byte_rate=1024\.0$/m);
  assert.doesNotMatch(users.out, /carol|bob/);
  const ips = await configs(['--describe', '--entity-type', 'ips', '--entity-default']);
  assert.equal(ips.out, 'Quota configs for the default ip are connection_creation_rate=5.0\n');
  // removal with remove: true (kafka-configs --delete-config)
  assert.equal(
    (
      await configs([
        '--alter',
        '--entity-type',
        'users',
        '--entity-name',
        'alice',
        '--delete-config',
        'producer_byte_rate',
      ])
    ).code,
    0,
  );
  assert.equal(
    (
      await configs([
        '--alter',
        '--entity-type',
        'ips',
        '--entity-default',
        '--delete-config',
        'connection_creation_rate',
      ])
    ).code,
    0,
  );
  assert.equal((await configs(['--describe', '--entity-type', 'users', '--entity-name', 'alice'])).out, '');
});

test('producer_byte_rate: the throttled client sees throttle_time_ms and is muted; another client id is not', async () => {
  const set = await clientQuota('slow', '--add-config', 'producer_byte_rate=102400');
  assert.deepEqual(set, { code: 0, out: 'Completed updating config for client slow.\n', err: '' });
  const slow = await Conn.open(broker.port, 'slow');
  const fast = await Conn.open(broker.port, 'fast');
  try {
    const records = batchOf(64 * 1024);
    // 100 KiB/s over a 10 s window: about 16 such requests are allowed; the quota reaches the
    // broker's image after the alter, so keep producing (bounded) until a response is throttled
    let throttled = 0;
    for (let i = 0; i < 200 && throttled === 0; i++) {
      const r = await produce(slow, records);
      assert.equal(r.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
      throttled = r.throttleTimeMs;
    }
    assert.ok(throttled > 0, 'a slow response carries throttle_time_ms');
    // the connection is muted: the next request is handled only after the throttle time
    const t0 = performance.now();
    await produce(slow, batchOf(10));
    const waited = performance.now() - t0;
    // (the mute starts as the response is written: allow for its delivery on a loaded machine)
    assert.ok(waited >= throttled / 2, `next response after ${waited.toFixed(0)} ms, throttle ${throttled} ms`);
    // another client id on the same broker: never throttled for the same volume
    for (let i = 0; i < 40; i++) assert.equal((await produce(fast, records)).throttleTimeMs, 0);
  } finally {
    slow.close();
    fast.close();
  }
  // quota removed: no more throttling of the slow client
  assert.equal((await clientQuota('slow', '--delete-config', 'producer_byte_rate')).code, 0);
  const again = await Conn.open(broker.port, 'slow');
  try {
    await waitFor(async () => (await produce(again, batchOf(64 * 1024))).throttleTimeMs === 0, {
      what: 'the removed quota to stop throttling',
      timeoutMs: 20_000,
    });
  } finally {
    again.close();
  }
});

test('consumer_byte_rate: a fetching client over its quota sees throttle_time_ms and an empty answer', async () => {
  const set = await clientQuota('reader', '--add-config', 'consumer_byte_rate=10240');
  assert.equal(set.code, 0, set.err);
  const c = await Conn.open(broker.port, 'reader');
  try {
    const fetch = (): Promise<ApiResponse<typeof ApiKey.Fetch>> =>
      c.request(ApiKey.Fetch, 11, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: 'q',
            partitions: [
              {
                partition: 0,
                currentLeaderEpoch: -1,
                fetchOffset: 0n,
                logStartOffset: -1n,
                partitionMaxBytes: 1 << 20,
              },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      });
    const writer = await Conn.open(broker.port, 'writer');
    try {
      assert.equal((await produce(writer, batchOf(64 * 1024))).responses[0]!.partitionResponses[0]!.errorCode, 0);
    } finally {
      writer.close();
    }
    const throttled = await waitFor(
      async () => {
        const r = await fetch();
        assert.equal(r.errorCode, ErrorCode.NONE);
        return r.throttleTimeMs > 0 ? r : null;
      },
      { what: 'a throttled fetch', timeoutMs: 20_000, intervalMs: 1 },
    );
    // as Kafka's FetchContext.getThrottledResponse: no partitions, the bytes taken back off the rate
    assert.deepEqual(throttled.responses, [], 'a throttled fetch is answered empty');
    // the data was there: once the quota is removed the same fetch returns it
    const removed = await clientQuota('reader', '--delete-config', 'consumer_byte_rate');
    assert.equal(removed.code, 0, removed.err);
    await waitFor(
      async () => {
        const r = await fetch();
        return r.throttleTimeMs === 0 && (r.responses[0]?.partitions[0]?.records?.length ?? 0) > 0;
      },
      { what: 'the data once the quota is removed', timeoutMs: 20_000 },
    );
  } finally {
    c.close();
  }
});

test('request_percentage: a client keeping the broker busy over its share sees throttle_time_ms (at most one quota window) on any API; another client id is not', async () => {
  const set = await clientQuota('busy', '--add-config', 'request_percentage=1');
  assert.equal(set.code, 0, set.err);
  const busy = await Conn.open(broker.port, 'busy');
  const calm = await Conn.open(broker.port, 'calm');
  const metadata = (c: Conn): Promise<ApiResponse<typeof ApiKey.Metadata>> =>
    c.request(ApiKey.Metadata, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
  try {
    // 1% is 10 ms of the broker's time per second: back-to-back requests exceed it within a few
    // hundred (bounded); the quota reaches the broker's image after the alter
    let throttled = 0;
    for (let i = 0; i < 20_000 && throttled === 0; i++) {
      const r = i % 2 === 0 ? await metadata(busy) : await produce(busy, batchOf(4096));
      throttled = r.throttleTimeMs;
    }
    assert.ok(throttled > 0, 'a busy client sees throttle_time_ms');
    assert.ok(throttled <= 1000, `bounded by one quota window (quota.window.size.seconds=1): ${throttled} ms`);
    for (let i = 0; i < 200; i++) assert.equal((await metadata(calm)).throttleTimeMs, 0, 'another client id');
  } finally {
    busy.close();
    calm.close();
  }
  assert.equal((await clientQuota('busy', '--delete-config', 'request_percentage')).code, 0);
});

test('controller_mutation_rate: CreateTopics v6+ refuses topics once the bucket is empty (89), older versions only throttle', async () => {
  const set = await clientQuota('creator', '--add-config', 'controller_mutation_rate=1');
  assert.equal(set.code, 0, set.err);
  const create = async (
    version: number,
    topics: [string, number][],
  ): Promise<ApiResponse<typeof ApiKey.CreateTopics>> => {
    const c = await Conn.open(broker.port, 'creator');
    try {
      return await c.request(ApiKey.CreateTopics, version, {
        timeoutMs: 30_000,
        validateOnly: false,
        topics: topics.map(([name, numPartitions]) => ({
          name,
          numPartitions,
          replicationFactor: 1,
          assignments: [],
          configs: [],
        })),
      });
    } finally {
      c.close();
    }
  };
  // burst: 11 windows × 1 s × 1/s = 11 partitions; a mutation is allowed while the bucket is not negative
  const strict = await create(7, [
    ['m1', 11],
    ['m2', 5],
    ['m3', 1],
  ]);
  const byName = new Map(strict.topics.map((t) => [t.name, [t.errorCode, t.errorMessage]]));
  assert.deepEqual(byName.get('m1'), [ErrorCode.NONE, null]);
  assert.deepEqual(byName.get('m2'), [ErrorCode.NONE, null]);
  assert.deepEqual(byName.get('m3'), [ErrorCode.THROTTLING_QUOTA_EXCEEDED, 'The throttling quota has been exceeded.']);
  // −5 tokens at 1/s: 5 s, less the time since the refusal
  assert.ok(strict.throttleTimeMs > 2000 && strict.throttleTimeMs <= 5000, `throttle ${strict.throttleTimeMs}`);
  // v5 (before KIP-599's strict versions): created anyway, the throttle time answered
  const permissive = await create(5, [['m4', 2]]);
  assert.equal(permissive.topics[0]!.errorCode, ErrorCode.NONE);
  assert.ok(permissive.throttleTimeMs > 0);
  // another client id is not limited
  const other = await Conn.open(broker.port, 'someone-else');
  try {
    const r = await other.request(ApiKey.CreateTopics, 7, {
      timeoutMs: 30_000,
      validateOnly: false,
      topics: [{ name: 'm5', numPartitions: 20, replicationFactor: 1, assignments: [], configs: [] }],
    });
    assert.deepEqual([r.topics[0]!.errorCode, r.throttleTimeMs], [ErrorCode.NONE, 0]);
  } finally {
    other.close();
  }
});

test('controller_mutation_rate: CreatePartitions v3+ and DeleteTopics v5+ refused on an empty bucket, older versions throttled', async () => {
  const set = await clientQuota('deleter', '--add-config', 'controller_mutation_rate=0.1');
  assert.equal(set.code, 0, set.err);
  const call = async <K extends ApiKeyWithMessages>(
    apiKey: K,
    version: number,
    body: Input<ApiRequest<K>>,
  ): Promise<ApiResponse<K>> => {
    const c = await Conn.open(broker.port, 'deleter');
    try {
      return await c.request(apiKey, version, body);
    } finally {
      c.close();
    }
  };
  // burst 1.1 partitions: 2 are created, the bucket is then at −0.9 (9 s to refill)
  const created = await call(ApiKey.CreateTopics, 7, {
    timeoutMs: 30_000,
    validateOnly: false,
    topics: [{ name: 'd1', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
  });
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
  const grow = (v: number): Promise<ApiResponse<typeof ApiKey.CreatePartitions>> =>
    call(ApiKey.CreatePartitions, v, {
      timeoutMs: 30_000,
      validateOnly: false,
      topics: [{ name: 'd1', count: 3, assignments: null }],
    });
  const refused = await grow(3);
  assert.deepEqual(
    [refused.results[0]!.errorCode, refused.results[0]!.errorMessage],
    [ErrorCode.THROTTLING_QUOTA_EXCEEDED, 'The throttling quota has been exceeded.'],
  );
  assert.ok(refused.throttleTimeMs > 0);
  const grown = await grow(2);
  assert.equal(grown.results[0]!.errorCode, ErrorCode.NONE);
  assert.ok(grown.throttleTimeMs > 0);
  const del = (v: number): Promise<ApiResponse<typeof ApiKey.DeleteTopics>> =>
    call(ApiKey.DeleteTopics, v, { timeoutMs: 30_000, topicNames: ['d1'], topics: [] });
  const notDeleted = await del(5);
  assert.deepEqual(
    [notDeleted.responses[0]!.errorCode, notDeleted.responses[0]!.errorMessage],
    [ErrorCode.THROTTLING_QUOTA_EXCEEDED, 'The throttling quota has been exceeded.'],
  );
  const deleted = await del(4);
  assert.equal(deleted.responses[0]!.errorCode, ErrorCode.NONE);
  assert.ok(deleted.throttleTimeMs > 0);
});

test('with the StandardAuthorizer: Alter/DescribeClientQuotas without ALTER_CONFIGS / DESCRIBE_CONFIGS on the cluster', async () => {
  const secured = await startBroker({
    overrides: { 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'super.users': 'User:admin' },
  });
  const c = await Conn.open(secured.port, 'anonymous-admin');
  try {
    const alter = await c.request(ApiKey.AlterClientQuotas, 1, {
      validateOnly: false,
      entries: [
        {
          entity: [{ entityType: 'user', entityName: 'x' }],
          ops: [{ key: 'producer_byte_rate', value: 5, remove: false }],
        },
        {
          entity: [{ entityType: 'client-id', entityName: null }],
          ops: [{ key: 'producer_byte_rate', value: 5, remove: false }],
        },
      ],
    });
    assert.deepEqual(alter.entries, [
      {
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: 'Cluster authorization failed.',
        entity: [{ entityType: 'user', entityName: 'x' }],
      },
      {
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: 'Cluster authorization failed.',
        entity: [{ entityType: 'client-id', entityName: null }],
      },
    ]);
    const describe = await c.request(ApiKey.DescribeClientQuotas, 1, { components: [], strict: false });
    assert.deepEqual(
      [describe.errorCode, describe.errorMessage, describe.entries],
      [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.', null],
    );
  } finally {
    c.close();
    await secured.stop();
    secured.cleanup();
  }
});
