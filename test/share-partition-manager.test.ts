// The SharePartitionManager and the ShareFetch / ShareAcknowledge handlers in-process, over a
// ReplicaManager on real logs (requests and responses encoded and decoded at v2 as on the wire):
// acquisition through share sessions, records sent as stored, parked fetches completing on new
// data and on released records, maxRecords across partitions, share.auto.offset.reset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../src/protocol/frame.js';
import { decodeBatchSync } from '../src/protocol/records/batch-records.js';
import type { ShareFetchResponse } from '../src/protocol/generated/protocol/ShareFetch.js';
import type { ShareAcknowledgeResponse } from '../src/protocol/generated/protocol/ShareAcknowledge.js';
import type { ApiHandler, RequestContext } from '../src/broker/api/types.js';
import type { BrokerServices } from '../src/broker/services.js';
import { handler as shareFetch } from '../src/broker/api/share-fetch.js';
import { handler as shareAcknowledge } from '../src/broker/api/share-acknowledge.js';
import { shareBrokerEnv, type ShareBrokerEnv } from './helpers/share-partition-fixtures.js';

async function call<Res>(h: ApiHandler<BrokerServices>, e: ShareBrokerEnv, body: unknown, conn = 'c1'): Promise<Res> {
  const v = 2;
  const frame = Buffer.concat(encodeRequest(h.apiKey, v, 1, 'test', body)).subarray(4);
  const req = decodeRequest(frame).body;
  const ctx: RequestContext = {
    apiKey: h.apiKey,
    apiVersion: v,
    correlationId: 1,
    clientId: 'test',
    header: { requestApiKey: h.apiKey, requestApiVersion: v, correlationId: 1, clientId: 'test' },
    connectionId: conn,
    listenerName: 'PLAINTEXT',
    isControllerListener: false,
    clientAddress: '127.0.0.1',
    requestSize: 0,
  };
  const res = await h.handle(ctx, req, e.services);
  const out = Buffer.concat(encodeResponse(h.apiKey, v, 1, res)).subarray(4);
  return decodeResponse(h.apiKey, v, out).body as Res;
}

type Ack = { partition?: number; firstOffset: number; lastOffset: number; types: number[] };

class Member {
  epoch = 0;
  constructor(
    readonly e: ShareBrokerEnv,
    readonly memberId: string,
    readonly group = 'g',
    readonly partitions = [0],
    readonly conn = 'c1',
  ) {}
  async fetch(o: { maxWaitMs?: number; maxRecords?: number; acks?: Ack[]; minBytes?: number } = {}) {
    const r = await call<ShareFetchResponse>(
      shareFetch,
      this.e,
      {
        groupId: this.group,
        memberId: this.memberId,
        shareSessionEpoch: this.epoch,
        maxWaitMs: o.maxWaitMs ?? 0,
        minBytes: o.minBytes ?? 1,
        maxBytes: 1 << 20,
        maxRecords: o.maxRecords ?? 100,
        batchSize: 100,
        topics: [
          {
            topicId: this.e.topicId,
            partitions: this.partitions.map((p) => ({
              partitionIndex: p,
              acknowledgementBatches: (o.acks ?? [])
                .filter((a) => (a.partition ?? 0) === p)
                .map((a) => ({
                  firstOffset: BigInt(a.firstOffset),
                  lastOffset: BigInt(a.lastOffset),
                  acknowledgeTypes: a.types,
                })),
            })),
          },
        ],
        forgottenTopicsData: [],
      },
      this.conn,
    );
    assert.equal(r.errorCode, 0, `ShareFetch: ${r.errorCode} ${r.errorMessage}`);
    this.epoch++;
    return r;
  }
  async ack(acks: Ack[], epoch = this.epoch) {
    const r = await call<ShareAcknowledgeResponse>(
      shareAcknowledge,
      this.e,
      {
        groupId: this.group,
        memberId: this.memberId,
        shareSessionEpoch: epoch,
        topics: [
          {
            topicId: this.e.topicId,
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
      },
      this.conn,
    );
    if (r.errorCode === 0 && epoch > 0) this.epoch++;
    return r;
  }
}

/** Per partition: [first, last, deliveryCount] ranges and the values of the records sent. */
function got(r: ShareFetchResponse, partition = 0): { ranges: number[][]; values: string[] } {
  const p = r.responses[0]?.partitions.find((x) => x.partitionIndex === partition);
  if (!p) return { ranges: [], values: [] };
  assert.equal(p.errorCode, 0);
  const values: string[] = [];
  const bytes = p.records as Buffer | null;
  let pos = 0;
  while (bytes && bytes.length - pos >= 12) {
    const size = bytes.readInt32BE(pos + 8) + 12;
    for (const rec of decodeBatchSync(bytes, pos).records) values.push(rec.value?.toString() ?? '');
    pos += size;
  }
  return {
    ranges: p.acquiredRecords.map((a) => [Number(a.firstOffset), Number(a.lastOffset), a.deliveryCount]),
    values,
  };
}

test('ShareFetch acquires, ShareAcknowledge accepts/releases/rejects, redelivery with delivery count 2', async () => {
  const e = await shareBrokerEnv({ config: { recordLockDurationMs: 60_000 } });
  try {
    const m = new Member(e, 'member-aaaaaaaaaaaaaaa');
    const open = await m.fetch();
    assert.equal(open.acquisitionLockTimeoutMs, 60_000);
    assert.deepEqual(got(open).ranges, []);
    await e.append(0, ['a']);
    await e.append(0, ['b', 'c']);
    const r1 = got(await m.fetch());
    assert.deepEqual(r1.ranges, [[0, 2, 1]]);
    assert.deepEqual(r1.values, ['a', 'b', 'c']);
    const ack = await m.ack([{ firstOffset: 0, lastOffset: 2, types: [1, 2, 3] }]);
    assert.equal(ack.errorCode, 0);
    assert.equal(ack.responses[0]!.partitions[0]!.errorCode, 0);
    const r2 = got(await m.fetch());
    assert.deepEqual(r2.ranges, [[1, 1, 2]]);
    // the batch holding offset 1 is sent whole (b, c): the client keeps the acquired offsets only
    assert.deepEqual(r2.values, ['b', 'c']);
    const r3 = await m.fetch({ acks: [{ firstOffset: 1, lastOffset: 1, types: [1] }] });
    assert.equal(r3.responses[0]!.partitions[0]!.acknowledgeErrorCode, 0);
    assert.deepEqual(got(r3).ranges, []);
    assert.equal(e.manager.cached('g', e.topicId, 0)!.startOffset, 3);
    // written lazily: the start offset before the last acknowledgement moved it
    assert.equal(e.persister.stored({ groupId: 'g', topicId: e.topicId, partition: 0 })!.startOffset, 1n);
  } finally {
    await e.close();
  }
});

test('a parked ShareFetch completes on new data and on records released by another member', async () => {
  const e = await shareBrokerEnv();
  try {
    const a = new Member(e, 'member-a', 'g', [0], 'ca');
    const b = new Member(e, 'member-b', 'g', [0], 'cb');
    await a.fetch();
    await b.fetch();
    const started = Date.now();
    const parked = a.fetch({ maxWaitMs: 10_000 });
    setTimeout(() => void e.append(0, ['x', 'y']), 100);
    assert.deepEqual(got(await parked).ranges, [[0, 1, 1]]);
    assert.ok(Date.now() - started < 5000);
    const waiting = b.fetch({ maxWaitMs: 10_000 });
    setTimeout(() => void a.ack([{ firstOffset: 0, lastOffset: 1, types: [2] }]), 100);
    assert.deepEqual(got(await waiting).ranges, [[0, 1, 2]]);
    assert.ok(Date.now() - started < 8000);
    // a's connection closes: nothing of a's is left; b's records stay b's
    e.manager.connectionClosed('ca');
    assert.equal(e.manager.sessions.get('g', 'member-a'), undefined);
    assert.deepEqual(
      e.manager
        .cached('g', e.topicId, 0)!
        .cachedState()
        .map((x) => x.memberId),
      ['member-b'],
    );
    // maxWaitMs passes with nothing to acquire: an empty answer
    const t0 = Date.now();
    assert.deepEqual(got(await b.fetch({ maxWaitMs: 300 })).ranges, []);
    assert.ok(Date.now() - t0 >= 250);
  } finally {
    await e.close();
  }
});

test('maxRecords is shared by the partitions; earliest reset; records of each partition', async () => {
  const e = await shareBrokerEnv({ partitions: 2, groupConfigs: { 'share.auto.offset.reset': 'earliest' } });
  try {
    for (let i = 0; i < 3; i++) {
      await e.append(0, [`p0-${i}`]);
      await e.append(1, [`p1-${i}`]);
    }
    const m = new Member(e, 'member-m', 'g', [0, 1]);
    const r = await m.fetch({ maxRecords: 4 });
    const p0 = got(r, 0);
    const p1 = got(r, 1);
    assert.deepEqual(p0.ranges, [[0, 2, 1]]);
    assert.deepEqual(p0.values, ['p0-0', 'p0-1', 'p0-2']);
    assert.deepEqual(p1.ranges, [[0, 0, 1]]);
    assert.deepEqual(p1.values, ['p1-0']);
    const r2 = await m.fetch({ maxRecords: 10 });
    assert.deepEqual(got(r2, 1).ranges, [[1, 2, 1]]);
  } finally {
    await e.close();
  }
});
