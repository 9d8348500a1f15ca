// ShareFetch / ShareAcknowledge against a real tkafka broker with raw requests over share sessions.
// Each member joins its share group with ShareGroupHeartbeat first, until it is assigned the
// partition: the group coordinator initializes the share-partition's state in __share_group_state
// (Kafka's ShareFetch does not check the assignment, but reads that state): acquire, accept, release →
// redelivered with delivery count 2, reject → never again, lock expiry → redelivered, the delivery
// count limit, two members on one partition, a session closed or a connection dropped releasing the
// member's records, session and partition errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { ZERO_UUID } from '../src/protocol/uuid.js';
import { decodeBatchSync } from '../src/protocol/records/batch-records.js';
import type { ShareFetchResponse } from '../src/protocol/generated/protocol/ShareFetch.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { createTopicAt } from './helpers/create-topic.js';
import { produceRawAppended } from './helpers/replication.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';

const RETRIABLE = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);
const LOCK_MS = 1500;
const DELIVERY_LIMIT = 3;
let broker: BrokerProcess;
let topicId = ZERO_UUID;
const TOPIC = 'share-q';

const newMemberId = (): string => randomBytes(16).toString('base64url');

type Ack = { firstOffset: number; lastOffset: number; types: number[] };

/** One member's share session over a raw connection. */
class ShareMember {
  epoch = 0;
  constructor(
    readonly c: RawClient,
    readonly group: string,
    readonly memberId = newMemberId(),
  ) {}

  static async open(group: string): Promise<ShareMember> {
    const m = new ShareMember(await RawClient.connect(broker.port), group);
    await m.join();
    return m;
  }

  /** ShareGroupHeartbeat until the partition is assigned (its share-partition state initialized). */
  async join(): Promise<void> {
    let memberEpoch = 0;
    await waitFor(
      async () => {
        const r = await this.c.request(ApiKey.ShareGroupHeartbeat, 1, {
          groupId: this.group,
          memberId: this.memberId,
          memberEpoch,
          rackId: null,
          subscribedTopicNames: memberEpoch === 0 ? [TOPIC] : null,
        });
        if (RETRIABLE.has(r.errorCode)) {
          // the first FindCoordinator creates __consumer_offsets, as a share consumer's does
          await this.c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: [this.group] });
          return false;
        }
        assert.equal(r.errorCode, ErrorCode.NONE, `ShareGroupHeartbeat ${r.errorCode} ${r.errorMessage}`);
        memberEpoch = r.memberEpoch;
        return r.assignment?.topicPartitions.some((t) => t.topicId === topicId) ?? false;
      },
      { what: `${this.memberId} to be assigned ${TOPIC} in ${this.group}`, timeoutMs: 20_000 },
    );
  }

  async fetch(o: { maxWaitMs?: number; acks?: Ack[]; maxRecords?: number; epoch?: number } = {}) {
    const epoch = o.epoch ?? this.epoch;
    const r = await this.c.request(ApiKey.ShareFetch, 2, {
      groupId: this.group,
      memberId: this.memberId,
      shareSessionEpoch: epoch,
      maxWaitMs: o.maxWaitMs ?? 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      maxRecords: o.maxRecords ?? 100,
      batchSize: 100,
      topics: [
        {
          topicId,
          partitions: [
            {
              partitionIndex: 0,
              acknowledgementBatches: (o.acks ?? []).map((a) => ({
                firstOffset: BigInt(a.firstOffset),
                lastOffset: BigInt(a.lastOffset),
                acknowledgeTypes: a.types,
              })),
            },
          ],
        },
      ],
      forgottenTopicsData: [],
    });
    if (r.errorCode === 0 && o.epoch === undefined) this.epoch = this.epoch === -1 ? 0 : this.epoch + 1;
    return r;
  }

  async acknowledge(acks: Ack[], epoch = this.epoch) {
    const r = await this.c.request(ApiKey.ShareAcknowledge, 2, {
      groupId: this.group,
      memberId: this.memberId,
      shareSessionEpoch: epoch,
      topics: [
        {
          topicId,
          partitions: [
            {
              partitionIndex: 0,
              acknowledgementBatches: acks.map((a) => ({
                firstOffset: BigInt(a.firstOffset),
                lastOffset: BigInt(a.lastOffset),
                acknowledgeTypes: a.types,
              })),
            },
          ],
        },
      ],
    });
    if (r.errorCode === 0 && epoch > 0) this.epoch++;
    return r;
  }
}

/** The acquired ranges of partition 0 as [first, last, deliveryCount], and the record offsets sent. */
function acquired(r: ShareFetchResponse): { ranges: [number, number, number][]; offsets: number[] } {
  assert.equal(r.errorCode, 0, `ShareFetch error ${r.errorCode} ${r.errorMessage}`);
  const p = r.responses.find((t) => t.topicId === topicId)?.partitions.find((x) => x.partitionIndex === 0);
  if (!p) return { ranges: [], offsets: [] };
  assert.equal(p.errorCode, 0, `partition error ${p.errorCode}`);
  const ranges = p.acquiredRecords.map((a) => [Number(a.firstOffset), Number(a.lastOffset), a.deliveryCount]) as [
    number,
    number,
    number,
  ][];
  const offsets: number[] = [];
  const bytes = p.records as Buffer | null;
  let pos = 0;
  while (bytes && bytes.length - pos >= 12) {
    const size = bytes.readInt32BE(pos + 8) + 12;
    for (const rec of decodeBatchSync(bytes, pos).records) offsets.push(rec.offset);
    pos += size;
  }
  return { ranges, offsets };
}

const ackErrorOf = (r: ShareFetchResponse): number | undefined =>
  r.responses.find((t) => t.topicId === topicId)?.partitions.find((x) => x.partitionIndex === 0)?.acknowledgeErrorCode;

/** Each record in its own batch, so offsets are acknowledged one by one. */
async function produce(n: number, prefix: string): Promise<void> {
  for (let i = 0; i < n; i++) await produceRawAppended(broker.port, TOPIC, [`${prefix}-${i}`], { acks: -1 });
}

before(async () => {
  broker = await startBroker({
    overrides: {
      'group.share.record.lock.duration.ms': LOCK_MS,
      'group.share.delivery.count.limit': DELIVERY_LIMIT,
    },
  });
  await createTopicAt(broker.port, TOPIC, { partitions: 1 });
  const c = await RawClient.connect(broker.port);
  const md = await c.request(ApiKey.Metadata, 12, {
    topics: [{ name: TOPIC, topicId: ZERO_UUID }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  c.close();
  topicId = md.topics[0]!.topicId;
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

test('acquire, accept, release → redelivered with delivery count 2, reject → never again', async () => {
  const m = await ShareMember.open('g-basic');
  try {
    // the first fetch opens the session and starts the share-partition at the log end (latest)
    const first = await m.fetch();
    assert.equal(first.acquisitionLockTimeoutMs, LOCK_MS);
    assert.deepEqual(acquired(first).ranges, []);
    await produce(3, 'basic');
    const r1 = acquired(await m.fetch({ maxWaitMs: 5000 }));
    const base = r1.ranges[0]![0];
    assert.deepEqual(r1.ranges, [[base, base + 2, 1]]);
    assert.deepEqual(r1.offsets, [base, base + 1, base + 2]);
    const ack = await m.acknowledge([{ firstOffset: base, lastOffset: base + 2, types: [1, 2, 3] }]);
    assert.equal(ack.errorCode, 0);
    assert.equal(ack.responses[0]!.partitions[0]!.errorCode, 0);
    // the released record comes back, its delivery count 2
    const r2 = acquired(await m.fetch({ maxWaitMs: 5000 }));
    assert.deepEqual(r2.ranges, [[base + 1, base + 1, 2]]);
    assert.deepEqual(r2.offsets, [base + 1]);
    // accepted through the next ShareFetch; the rejected record never comes again
    const r3 = await m.fetch({ maxWaitMs: 500, acks: [{ firstOffset: base + 1, lastOffset: base + 1, types: [1] }] });
    assert.equal(ackErrorOf(r3), 0);
    assert.deepEqual(acquired(r3).ranges, []);
    // acknowledging again what is already acknowledged: below the start offset, nothing to do
    const again = await m.acknowledge([{ firstOffset: base + 2, lastOffset: base + 2, types: [1] }]);
    assert.equal(again.responses[0]!.partitions[0]!.errorCode, 0);
    // records past the in-flight ones are not acquired yet: an ack of them is INVALID_RECORD_STATE
    const early = await m.acknowledge([{ firstOffset: base + 10, lastOffset: base + 10, types: [1] }]);
    assert.equal(early.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_RECORD_STATE);
  } finally {
    m.c.close();
  }
});

test('lock expiry → redelivered with a higher delivery count; past the delivery limit → archived', async () => {
  const m = await ShareMember.open('g-locks');
  try {
    await m.fetch();
    await produce(1, 'locks');
    let offset = -1;
    for (let delivery = 1; delivery <= DELIVERY_LIMIT; delivery++) {
      // a parked ShareFetch completes when the previous lock expires and the record is available again
      const started = Date.now();
      const r = acquired(await m.fetch({ maxWaitMs: LOCK_MS * 3 }));
      assert.equal(r.ranges.length, 1, `delivery ${delivery}: ${JSON.stringify(r.ranges)}`);
      if (offset < 0) offset = r.ranges[0]![0];
      assert.deepEqual(r.ranges, [[offset, offset, delivery]]);
      if (delivery > 1) assert.ok(Date.now() - started < LOCK_MS * 3, 'redelivered before the fetch timed out');
    }
    // delivered DELIVERY_LIMIT times and timed out again: archived, not delivered any more
    const last = acquired(await m.fetch({ maxWaitMs: LOCK_MS * 2 }));
    assert.deepEqual(last.ranges, []);
    // an acknowledgement after the record was archived: below the start offset, ignored
    const late = await m.acknowledge([{ firstOffset: offset, lastOffset: offset, types: [1] }]);
    assert.equal(late.responses[0]!.partitions[0]!.errorCode, 0, 'archived, below the start offset: skipped');
  } finally {
    m.c.close();
  }
});

test('DescribeShareGroupOffsets v1: lag = log end - start offset - records delivered past it', async () => {
  const m = await ShareMember.open('g-lag');
  try {
    await m.fetch();
    await produce(4, 'lag');
    const r = acquired(await m.fetch({ maxWaitMs: 5000 }));
    const base = r.ranges[0]![0];
    assert.deepEqual(r.ranges, [[base, base + 3, 1]]);
    // base and base+2 accepted, base+1 and base+3 still acquired: the start offset moves to base+1,
    // one record past it is complete, so the lag is (base+4) - (base+1) - 1 = 2
    const ack = await m.acknowledge([
      { firstOffset: base, lastOffset: base, types: [1] },
      { firstOffset: base + 2, lastOffset: base + 2, types: [1] },
    ]);
    assert.equal(ack.responses[0]!.partitions[0]!.errorCode, 0);
    let last = '';
    const described = await waitFor(
      async () => {
        const o = await m.c.request(ApiKey.DescribeShareGroupOffsets, 1, {
          groups: [{ groupId: 'g-lag', topics: [{ topicName: TOPIC, partitions: [0] }] }],
        });
        const p = o.groups[0]!.topics[0]!.partitions[0]!;
        last = JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
        return p.startOffset === BigInt(base + 1) ? p : null;
      },
      { what: 'the start offset persisted past the accepted record', timeoutMs: 20_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message} (base ${base}): ${last}`);
    });
    assert.deepEqual([described.errorCode, described.lag], [0, 2n]);
  } finally {
    m.c.close();
  }
});

test('two members on one partition; a closed session and a dropped connection give their records back', async () => {
  const a = await ShareMember.open('g-two');
  const b = await ShareMember.open('g-two');
  try {
    await a.fetch();
    await b.fetch();
    await produce(4, 'two');
    const ra = acquired(await a.fetch({ maxWaitMs: 5000, maxRecords: 2 }));
    const base = ra.ranges[0]![0];
    assert.deepEqual(ra.ranges, [[base, base + 1, 1]]);
    const rb = acquired(await b.fetch({ maxWaitMs: 5000 }));
    assert.deepEqual(rb.ranges, [[base + 2, base + 3, 1]]);
    // b may not acknowledge a's records
    const wrong = await b.acknowledge([{ firstOffset: base, lastOffset: base, types: [1] }]);
    assert.equal(wrong.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_RECORD_STATE);
    // a closes its session (final epoch) accepting one record: the other is released at once, keeping
    // its delivery count (Kafka 4.4: a killed share consumer's records come back with a higher count)
    const close = await a.acknowledge([{ firstOffset: base, lastOffset: base, types: [1] }], -1);
    assert.equal(close.responses[0]!.partitions[0]!.errorCode, 0);
    const rb2 = acquired(await b.fetch({ maxWaitMs: 5000 }));
    assert.deepEqual(rb2.ranges, [[base + 1, base + 1, 2]]);
    // b's connection drops: its records are released without waiting for the lock
    b.c.close();
    const c = await ShareMember.open('g-two');
    try {
      // the session-opening fetch acquires them (waiting for the release if the close is not seen yet);
      // base + 1 is at its last delivery (limit 3), so it comes alone (delivery throttling), then the others
      // (the group had no session left: its share-partition was reloaded from the persisted state,
      // where the released ranges may have merged, so the ranges are compared offset by offset)
      const perOffset: number[][] = [];
      for (let i = 0; i < 3 && perOffset.length < 3; i++) {
        const rc = acquired(await c.fetch({ maxWaitMs: LOCK_MS - 500 }));
        perOffset.push(...rc.ranges.flatMap(([f, l, n]) => Array.from({ length: l - f + 1 }, (_, j) => [f + j, n])));
      }
      assert.deepEqual(perOffset, [
        [base + 1, 3],
        [base + 2, 2],
        [base + 3, 2],
      ]);
    } finally {
      c.c.close();
    }
  } finally {
    a.c.close();
    b.c.close();
  }
});

test('session and partition errors', async () => {
  const m = await ShareMember.open('g-errors');
  try {
    // no session yet
    let r = await m.fetch({ epoch: 3 });
    assert.equal(r.errorCode, ErrorCode.SHARE_SESSION_NOT_FOUND);
    const ack0 = await m.acknowledge([{ firstOffset: 0, lastOffset: 0, types: [1] }], 0);
    assert.equal(ack0.errorCode, ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    await m.fetch();
    r = await m.fetch({ epoch: 7 });
    assert.equal(r.errorCode, ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    // acknowledgements in a request opening a session
    const fresh = new ShareMember(m.c, 'g-errors');
    r = await fresh.fetch({ acks: [{ firstOffset: 0, lastOffset: 0, types: [1] }] });
    assert.equal(r.errorCode, ErrorCode.INVALID_REQUEST);
    // a malformed batch: INVALID_REQUEST for the partition
    const bad = await m.acknowledge([{ firstOffset: 5, lastOffset: 4, types: [1] }]);
    assert.equal(bad.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_REQUEST);
    // invalid member id, unknown topic id
    const noMember = await m.c.request(ApiKey.ShareFetch, 2, {
      groupId: 'g-errors',
      memberId: '',
      shareSessionEpoch: 0,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1000,
      maxRecords: 10,
      batchSize: 10,
      topics: [],
      forgottenTopicsData: [],
    });
    assert.equal(noMember.errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal(noMember.errorMessage, 'Invalid member id in the request.');
    const other = new ShareMember(m.c, 'g-errors');
    const unknown = await other.c.request(ApiKey.ShareFetch, 2, {
      groupId: 'g-errors',
      memberId: other.memberId,
      shareSessionEpoch: 0,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1000,
      maxRecords: 10,
      batchSize: 10,
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      forgottenTopicsData: [],
    });
    assert.equal(unknown.errorCode, 0);
    assert.equal(unknown.responses[0]!.partitions[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
    // IsRenewAck with fetch limits set
    const renew = await m.c.request(ApiKey.ShareFetch, 2, {
      groupId: 'g-errors',
      memberId: m.memberId,
      shareSessionEpoch: m.epoch,
      maxWaitMs: 100,
      minBytes: 0,
      maxBytes: 0,
      maxRecords: 0,
      batchSize: 0,
      isRenewAck: true,
      topics: [],
      forgottenTopicsData: [],
    });
    assert.equal(renew.errorCode, ErrorCode.INVALID_REQUEST);
    assert.equal(renew.errorMessage, 'maxWaitMs must be set to 0, if isRenewAck is true.');
  } finally {
    m.c.close();
  }
});
