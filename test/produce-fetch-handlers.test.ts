// The data-plane handlers end to end without sockets: requests built with the generated types are
// encoded and decoded at each version, handled over a ReplicaManager on real logs, and the
// responses are encoded and decoded back, so every field is checked at the version it exists in.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/generated/apis.js';
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponseParts,
  materializeFrame,
} from '../src/protocol/frame.js';
import type { Input } from '../src/protocol/codec/types.js';
import type { FetchRequest, FetchResponse } from '../src/protocol/generated/protocol/Fetch.js';
import type { ProduceRequest, ProduceResponse } from '../src/protocol/generated/protocol/Produce.js';
import type { ListOffsetsResponse } from '../src/protocol/generated/protocol/ListOffsets.js';
import type { OffsetForLeaderEpochResponse } from '../src/protocol/generated/protocol/OffsetForLeaderEpoch.js';
import type { DeleteRecordsResponse } from '../src/protocol/generated/protocol/DeleteRecords.js';
import { ErrorCode } from '../src/protocol/errors.js';
import * as L from '../src/protocol/records/layout.js';
import {
  buildRecordBatchSync,
  decodeBatch,
  iterateBatches,
  readBatchHeader,
  writeBatchCrc,
} from '../src/protocol/records/batch.js';
import { encodeLegacyEntry } from '../src/protocol/records/legacy.js';
import { MetadataImage, type TopicImage } from '../src/broker/metadata/image.js';
import { DirectoryLogStore } from '../src/broker/replication/log-store.js';
import { ReplicaManager } from '../src/broker/replication/replica-manager.js';
import type { ApiHandler, RequestContext } from '../src/broker/api/types.js';
import type { BrokerServices } from '../src/broker/services.js';
import { defaultBrokerLoggers } from '../src/broker/loggers.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { registerDataHandlers } from '../src/broker/api/register-data.js';
import { handler as produce, CloseConnectionError } from '../src/broker/api/produce.js';
import { handler as fetch } from '../src/broker/api/fetch.js';
import { handler as listOffsets } from '../src/broker/api/list-offsets.js';
import { handler as offsetForLeaderEpoch } from '../src/broker/api/offset-for-leader-epoch.js';
import { handler as deleteRecords } from '../src/broker/api/delete-records.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';
import { soleReplicaPartition } from './helpers/partition-image.js';

const T_ID = 'dGtha2ZrYS10b3BpYy1pZA';
const U_ID = 'b3RoZXItdG9waWMtaWQtMQ';
const REMOTE_ID = 'cmVtb3RlLXRvcGljLWlkMQ';
const UNKNOWN_ID = 'dW5rbm93bi10b3BpYy1pZA';

const partitionImage = soleReplicaPartition;

function image(): MetadataImage {
  const topics: TopicImage[] = [
    {
      name: 't',
      id: T_ID,
      partitions: new Map([
        [0, partitionImage(T_ID, 0, 1)],
        [1, partitionImage(T_ID, 1, 1)],
      ]),
    },
    { name: 'u', id: U_ID, partitions: new Map([[0, partitionImage(U_ID, 0, 1)]]) },
    {
      name: 'remote',
      id: REMOTE_ID,
      partitions: new Map([[0, { ...partitionImage(REMOTE_ID, 0, 2), leaderEpoch: 4 }]]),
    },
  ];
  const broker = (id: number, port: number) => ({
    id,
    epoch: 1n,
    incarnationId: 'AAAAAAAAAAAAAAAAAAAAAA',
    endpoints: [{ name: 'PLAINTEXT', host: 'localhost', port, securityProtocol: 0 }],
    supportedFeatures: new Map(),
    rack: null,
    fenced: false,
    inControlledShutdown: false,
    isMigratingZkBroker: false,
    directories: [],
  });
  return MetadataImage.empty('cluster').with({
    topicsByName: new Map(topics.map((t) => [t.name, t])),
    topicsById: new Map(topics.map((t) => [t.id, t])),
    brokers: new Map([
      [1, broker(1, 9092)],
      [2, broker(2, 9093)],
    ]),
  });
}

interface Env {
  rm: ReplicaManager;
  services: BrokerServices;
  close(): Promise<void>;
}

async function env(slots?: number): Promise<Env> {
  const dir = await tempDir('tkafka-handlers-');
  const img = image();
  const config = {
    originals: new Map<string, string>(),
    getInt: (n: string) => (n === 'max.incremental.fetch.session.cache.slots' ? slots : undefined) as number,
  };
  const rm = new ReplicaManager({ nodeId: 1, logs: new DirectoryLogStore(dir), metadata: () => img, config });
  await rm.ensurePartition('t', T_ID, 0, 0);
  await rm.ensurePartition('t', T_ID, 1, 0);
  await rm.ensurePartition('u', U_ID, 0, 0, { 'cleanup.policy': 'compact' });
  // the data-plane handlers use only the ReplicaManager: no controller, no config
  const services: BrokerServices = {
    config: undefined as never,
    nodeId: 1,
    clusterId: 'cluster',
    endpoints: [],
    controller: undefined as never,
    replicas: rm,
    loggers: defaultBrokerLoggers(),
    groupCoordinator: null,
    txnCoordinator: null,
  };
  return {
    rm,
    services,
    close: async () => {
      await rm.shutdown();
      await removeDir(dir);
    },
  };
}

let correlation = 0;
function ctxFor(apiKey: number, v: number, clientId = 'test-client', connectionId = 'c1'): RequestContext {
  return {
    apiKey,
    apiVersion: v,
    correlationId: ++correlation,
    clientId,
    header: { requestApiKey: apiKey, requestApiVersion: v, correlationId: correlation, clientId },
    connectionId,
    listenerName: 'PLAINTEXT',
    isControllerListener: false,
    clientAddress: '127.0.0.1',
    requestSize: 0,
  };
}

/** Encodes the request at `v`, handles the decoded body, encodes and decodes the response. */
async function call<Res>(
  h: ApiHandler<BrokerServices>,
  e: Env,
  v: number,
  body: unknown,
  clientId?: string,
): Promise<Res | null> {
  const frame = Buffer.concat(encodeRequest(h.apiKey, v, 1, clientId ?? 'test-client', body)).subarray(4);
  const req = decodeRequest(frame).body;
  const res = await h.handle(ctxFor(h.apiKey, v, clientId), req, e.services);
  if (res === null) return null;
  // Fetch answers with record bytes still in the log files: read them as the connection would
  const out = (await materializeFrame(encodeResponseParts(h.apiKey, v, 1, res))).subarray(4);
  return decodeResponse(h.apiKey, v, out).body as Res;
}

const batch = (n: number, prefix = 'k', key: string | null | undefined = undefined): Buffer =>
  buildRecordBatchSync({
    records: Array.from({ length: n }, (_, i) => ({
      key: key === undefined ? `${prefix}${i}` : key,
      value: `${prefix}-v${i}`,
    })),
  });

const produceReq = (
  topic: string,
  partition: number,
  records: Buffer | null,
  acks = -1,
  transactionalId: string | null = null,
): Input<ProduceRequest> => ({
  transactionalId,
  acks,
  timeoutMs: 5000,
  topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
});

test('Produce v3-v11: offsets, log start offset, errors per version', async () => {
  const e = await env();
  try {
    let next = 0;
    for (let v = 3; v <= 11; v++) {
      const res = (await call<ProduceResponse>(produce, e, v, produceReq('t', 0, batch(2))))!;
      const p = res.responses[0]!.partitionResponses[0]!;
      assert.equal(p.errorCode, 0, `v${v}`);
      assert.equal(p.baseOffset, BigInt(next));
      assert.equal(p.logAppendTimeMs, -1n);
      if (v >= 5) assert.equal(p.logStartOffset, 0n);
      next += 2;
    }
    // unknown partition and magic-1 data
    const unknown = (await call<ProduceResponse>(produce, e, 9, produceReq('nope', 0, batch(1))))!;
    assert.equal(unknown.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const legacy = encodeLegacyEntry({ offset: 0, magic: 1, timestamp: Date.now(), key: 'k', value: 'v' });
    assert.equal(
      (await call<ProduceResponse>(produce, e, 3, produceReq('t', 0, legacy)))!.responses[0]!.partitionResponses[0]!
        .errorCode,
      ErrorCode.INVALID_RECORD,
    );
    assert.equal(
      (await call<ProduceResponse>(produce, e, 9, produceReq('t', 0, null)))!.responses[0]!.partitionResponses[0]!
        .errorCode,
      ErrorCode.INVALID_RECORD,
    );
    // zstd needs v7+
    const zstdFlag = batch(1);
    zstdFlag.writeInt16BE(L.CompressionType.Zstd, L.ATTRIBUTES);
    writeBatchCrc(zstdFlag, 0);
    assert.equal(
      (await call<ProduceResponse>(produce, e, 6, produceReq('t', 0, zstdFlag)))!.responses[0]!.partitionResponses[0]!
        .errorCode,
      ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
    );
    // invalid acks
    assert.equal(
      (await call<ProduceResponse>(produce, e, 9, produceReq('t', 0, batch(1), 5)))!.responses[0]!
        .partitionResponses[0]!.errorCode,
      ErrorCode.INVALID_REQUIRED_ACKS,
    );
    // transactional data without a transactional id
    const txn = buildRecordBatchSync({
      records: [{ key: 'k', value: 'v' }],
      transactional: true,
      producerId: 3,
      producerEpoch: 0,
      baseSequence: 0,
    });
    const denied = (await call<ProduceResponse>(produce, e, 9, produceReq('t', 0, txn)))!;
    assert.equal(
      denied.responses[0]!.partitionResponses[0]!.errorCode,
      ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    );
    // the log saw only the good appends
    assert.equal(e.rm.partition('t', 0)!.logEndOffset, next);
  } finally {
    await e.close();
  }
});

test('Produce: record errors (v8+), leader hints (v10+), acks=0', async () => {
  const e = await env();
  try {
    const noKey = batch(2, 'x', null);
    const v7 = (await call<ProduceResponse>(produce, e, 7, produceReq('u', 0, noKey)))!.responses[0]!
      .partitionResponses[0]!;
    assert.equal(v7.errorCode, ErrorCode.INVALID_RECORD);
    const v8 = (await call<ProduceResponse>(produce, e, 8, produceReq('u', 0, batch(2, 'x', null))))!.responses[0]!
      .partitionResponses[0]!;
    assert.equal(v8.errorCode, ErrorCode.INVALID_RECORD);
    assert.deepEqual(
      v8.recordErrors.map((r) => r.batchIndex),
      [0, 1],
    );
    assert.match(v8.errorMessage!, /record errors/);

    const remote = (await call<ProduceResponse>(produce, e, 11, produceReq('remote', 0, batch(1))))!;
    const rp = remote.responses[0]!.partitionResponses[0]!;
    assert.equal(rp.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.deepEqual({ id: rp.currentLeader.leaderId, epoch: rp.currentLeader.leaderEpoch }, { id: 2, epoch: 4 });
    assert.deepEqual(
      remote.nodeEndpoints.map((n) => [n.nodeId, n.host, n.port]),
      [[2, 'localhost', 9093]],
    );

    // acks=0: no response; a failure closes the connection instead
    assert.equal(await call(produce, e, 9, produceReq('t', 0, batch(3), 0)), null);
    assert.equal(e.rm.partition('t', 0)!.logEndOffset, 3);
    await assert.rejects(call(produce, e, 9, produceReq('nope', 0, batch(1), 0)), CloseConnectionError);
    assert.throws(
      () =>
        produce.errorResponse(
          ctxFor(0, 9),
          { transactionalId: null, acks: 0, timeoutMs: 0, topicData: [] },
          ErrorCode.UNKNOWN_SERVER_ERROR,
        ),
      CloseConnectionError,
    );
    assert.ok(
      produce.errorResponse(
        ctxFor(0, 9),
        { transactionalId: null, acks: 1, timeoutMs: 0, topicData: [] },
        ErrorCode.UNKNOWN_SERVER_ERROR,
      ),
    );
  } finally {
    await e.close();
  }
});

function fetchReq(
  v: number,
  parts: Array<{ topic: string; id: string; partition: number; offset: number; max?: number }>,
  o: Partial<Input<FetchRequest>> = {},
): Input<FetchRequest> {
  const topics: NonNullable<Input<FetchRequest>['topics']> = [];
  for (const p of parts) {
    let t = topics[topics.length - 1];
    if (!t || t.topic !== (v >= 13 ? '' : p.topic) || t.topicId !== (v >= 13 ? p.id : undefined)) {
      t = v >= 13 ? { topicId: p.id, partitions: [] } : { topic: p.topic, partitions: [] };
      topics.push(t);
    }
    t.partitions!.push({
      partition: p.partition,
      fetchOffset: BigInt(p.offset),
      partitionMaxBytes: p.max ?? 1 << 20,
      logStartOffset: -1n,
      currentLeaderEpoch: -1,
    });
  }
  return {
    replicaId: v <= 14 ? -1 : undefined,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 50 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: v >= 7 ? -1 : undefined,
    topics,
    ...o,
  };
}

const partitionsOf = (r: FetchResponse) =>
  r.responses.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, topicId: t.topicId, ...p })));

test('Fetch v4-v17: names before v13, ids from v13, records as stored, errors', async () => {
  const e = await env();
  try {
    await e.rm.appendRecords('t', 0, batch(3), { acks: 1, timeoutMs: 100 });
    await e.rm.appendRecords('t', 1, batch(1), { acks: 1, timeoutMs: 100 });
    for (const v of [4, 5, 7, 11, 12, 13, 15, 16, 17]) {
      const res = (await call<FetchResponse>(
        fetch,
        e,
        v,
        fetchReq(v, [
          { topic: 't', id: T_ID, partition: 0, offset: 0 },
          { topic: 't', id: T_ID, partition: 1, offset: 0 },
        ]),
      ))!;
      const ps = partitionsOf(res);
      assert.equal(ps.length, 2, `v${v}`);
      assert.equal(res.responses.length, 1);
      if (v >= 13) assert.equal(res.responses[0]!.topicId, T_ID);
      else assert.equal(res.responses[0]!.topic, 't');
      assert.equal(ps[0]!.highWatermark, 3n);
      assert.equal(ps[0]!.lastStableOffset, 3n);
      if (v >= 5) assert.equal(ps[0]!.logStartOffset, 0n);
      assert.equal(ps[0]!.abortedTransactions, null);
      const recs = ps[0]!.records as Buffer;
      const d = await decodeBatch(recs, 0);
      assert.deepEqual(
        d.records.map((r) => r.offset),
        [0, 1, 2],
      );
      assert.equal(ps[1]!.highWatermark, 1n);
    }
    // unknown names and ids, offsets out of range
    const byName = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [
        { topic: 'nope', id: '', partition: 0, offset: 0 },
        { topic: 't', id: '', partition: 0, offset: 99 },
      ]),
    ))!;
    assert.deepEqual(
      partitionsOf(byName).map((p) => [p.topic, p.errorCode, p.highWatermark]),
      [
        ['t', ErrorCode.OFFSET_OUT_OF_RANGE, -1n],
        ['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n],
      ],
    );
    const byId = (await call<FetchResponse>(
      fetch,
      e,
      13,
      fetchReq(13, [{ topic: '', id: UNKNOWN_ID, partition: 0, offset: 0 }]),
    ))!;
    assert.deepEqual(
      partitionsOf(byId).map((p) => [p.topicId, p.errorCode]),
      [[UNKNOWN_ID, ErrorCode.UNKNOWN_TOPIC_ID]],
    );
    // read_committed: an aborted-transactions list (empty) and LSO = HW for now
    const rc = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [{ topic: 't', id: '', partition: 0, offset: 0 }], { isolationLevel: 1 }),
    ))!;
    assert.deepEqual(partitionsOf(rc)[0]!.abortedTransactions, []);
    // not the leader: the current leader and its endpoint (v16+)
    const remote = (await call<FetchResponse>(
      fetch,
      e,
      17,
      fetchReq(17, [{ topic: '', id: REMOTE_ID, partition: 0, offset: 0 }]),
    ))!;
    const rp = partitionsOf(remote)[0]!;
    assert.equal(rp.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.equal(rp.currentLeader.leaderId, 2);
    assert.deepEqual(
      remote.nodeEndpoints.map((n) => n.port),
      [9093],
    );
  } finally {
    await e.close();
  }
});

test('Fetch: request max bytes and the partial batch at the partition limit', async () => {
  const e = await env();
  try {
    for (let i = 0; i < 3; i++) await e.rm.appendRecords('t', 0, batch(2, `b${i}`), { acks: 1, timeoutMs: 100 });
    const first = batch(2, 'b0').length;
    const res = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [{ topic: 't', id: '', partition: 0, offset: 0, max: first + 30 }]),
    ))!;
    const recs = partitionsOf(res)[0]!.records as Buffer;
    assert.equal(recs.length, first + 30);
    const it = iterateBatches(recs);
    assert.equal([...it].length, 1);
    assert.equal(it.partial?.available, 30);
    // a first batch above every limit still comes back whole
    const tiny = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [{ topic: 't', id: '', partition: 0, offset: 2, max: 1 }], { maxBytes: 1 }),
    ))!;
    const one = partitionsOf(tiny)[0]!.records as Buffer;
    assert.equal(readBatchHeader(one, 0).baseOffset, 2);
    assert.equal(one.length, first);
  } finally {
    await e.close();
  }
});

test('Fetch long poll through the handler: answered by an append before max_wait_ms', async () => {
  const e = await env();
  try {
    const t0 = Date.now();
    const pending = call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [{ topic: 't', id: '', partition: 0, offset: 0 }], { maxWaitMs: 5000, minBytes: 1 }),
    );
    // time is the point: the append comes 30 ms into the long poll, well before max_wait_ms
    setTimeout(() => {
      void e.rm.appendRecords('t', 0, batch(1), { acks: 1, timeoutMs: 100 });
    }, 30);
    const res = (await pending)!;
    assert.ok(Date.now() - t0 < 3000);
    assert.ok((partitionsOf(res)[0]!.records as Buffer).length > 0);
    const t1 = Date.now();
    const empty = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [{ topic: 't', id: '', partition: 0, offset: 1 }], { maxWaitMs: 80, minBytes: 1 }),
    ))!;
    assert.ok(Date.now() - t1 >= 70);
    assert.equal((partitionsOf(empty)[0]!.records as Buffer).length, 0);
  } finally {
    await e.close();
  }
});

test('Fetch sessions: full, incremental with only changed partitions, forgotten topics, errors', async () => {
  const e = await env();
  try {
    await e.rm.appendRecords('t', 0, batch(1), { acks: 1, timeoutMs: 100 });
    const both = [
      { topic: 't', id: T_ID, partition: 0, offset: 1 },
      { topic: 't', id: T_ID, partition: 1, offset: 0 },
    ];
    const full = (await call<FetchResponse>(fetch, e, 12, fetchReq(12, both, { sessionId: 0, sessionEpoch: 0 })))!;
    assert.equal(full.errorCode, 0);
    assert.ok(full.sessionId > 0);
    assert.equal(partitionsOf(full).length, 2);
    const sid = full.sessionId;
    assert.equal(e.rm.fetchSessions.size, 1);

    // nothing changed: an incremental fetch returns no partitions
    const inc1 = (await call<FetchResponse>(fetch, e, 12, fetchReq(12, [], { sessionId: sid, sessionEpoch: 1 })))!;
    assert.equal(inc1.errorCode, 0);
    assert.equal(inc1.sessionId, sid);
    assert.equal(partitionsOf(inc1).length, 0);

    // new data on t-1 only: only t-1 comes back (with the cached fetch offset)
    await e.rm.appendRecords('t', 1, batch(2), { acks: 1, timeoutMs: 100 });
    const inc2 = (await call<FetchResponse>(fetch, e, 12, fetchReq(12, [], { sessionId: sid, sessionEpoch: 2 })))!;
    assert.deepEqual(
      partitionsOf(inc2).map((p) => [p.partitionIndex, p.highWatermark]),
      [[1, 2n]],
    );
    assert.ok((partitionsOf(inc2)[0]!.records as Buffer).length > 0);

    // a replayed epoch and an unknown session
    const stale = (await call<FetchResponse>(fetch, e, 12, fetchReq(12, [], { sessionId: sid, sessionEpoch: 2 })))!;
    assert.equal(stale.errorCode, ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    assert.equal(stale.responses.length, 0);
    const lost = (await call<FetchResponse>(fetch, e, 12, fetchReq(12, [], { sessionId: sid + 1, sessionEpoch: 1 })))!;
    assert.equal(lost.errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    assert.equal(lost.sessionId, 0);

    // the client moves t-1's offset forward and forgets t-0: new data on t-0 is not sent
    await e.rm.appendRecords('t', 0, batch(1), { acks: 1, timeoutMs: 100 });
    const inc3 = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [{ topic: 't', id: '', partition: 1, offset: 2 }], {
        sessionId: sid,
        sessionEpoch: 3,
        forgottenTopicsData: [{ topic: 't', partitions: [0] }],
      }),
    ))!;
    assert.deepEqual(
      partitionsOf(inc3).map((p) => p.partitionIndex),
      [],
    );
    assert.equal(e.rm.fetchSessions.get(sid)!.size, 1);

    // a session made at v12 cannot continue at v13 (topic ids)
    const switched = (await call<FetchResponse>(fetch, e, 13, fetchReq(13, [], { sessionId: sid, sessionEpoch: 4 })))!;
    assert.equal(switched.errorCode, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);

    // forgetting the last partition ends the session; a FULL fetch with epoch -1 makes none
    const last = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, [], { sessionId: sid, sessionEpoch: 4, forgottenTopicsData: [{ topic: 't', partitions: [1] }] }),
    ))!;
    assert.equal(last.sessionId, 0);
    assert.equal(e.rm.fetchSessions.size, 0);
    const sessionless = (await call<FetchResponse>(
      fetch,
      e,
      12,
      fetchReq(12, both, { sessionId: 0, sessionEpoch: -1 }),
    ))!;
    assert.equal(sessionless.sessionId, 0);
    assert.equal(partitionsOf(sessionless).length, 2);
  } finally {
    await e.close();
  }
});

test('Fetch sessions with topic ids (v13+) and the session cache limit', async () => {
  const e = await env(1);
  try {
    const full = (await call<FetchResponse>(
      fetch,
      e,
      13,
      fetchReq(
        13,
        [
          { topic: '', id: T_ID, partition: 0, offset: 0 },
          { topic: '', id: UNKNOWN_ID, partition: 0, offset: 0 },
        ],
        { sessionId: 0, sessionEpoch: 0 },
      ),
    ))!;
    assert.ok(full.sessionId > 0);
    assert.deepEqual(
      partitionsOf(full).map((p) => [p.topicId, p.errorCode]),
      [
        [T_ID, 0],
        [UNKNOWN_ID, ErrorCode.UNKNOWN_TOPIC_ID],
      ],
    );
    // errors are always repeated; unchanged healthy partitions are not
    const inc = (await call<FetchResponse>(
      fetch,
      e,
      13,
      fetchReq(13, [], { sessionId: full.sessionId, sessionEpoch: 1 }),
    ))!;
    assert.deepEqual(
      partitionsOf(inc).map((p) => [p.topicId, p.errorCode]),
      [[UNKNOWN_ID, ErrorCode.UNKNOWN_TOPIC_ID]],
    );
    // one slot, taken by a fresh session: another consumer gets no session
    const other = (await call<FetchResponse>(
      fetch,
      e,
      13,
      fetchReq(13, [{ topic: '', id: T_ID, partition: 1, offset: 0 }], { sessionId: 0, sessionEpoch: 0 }),
    ))!;
    assert.equal(other.sessionId, 0);
    assert.equal(partitionsOf(other).length, 1);
  } finally {
    await e.close();
  }
});

test('ListOffsets v1-v10, OffsetForLeaderEpoch v2-v4, DeleteRecords v0-v2', async () => {
  const e = await env();
  try {
    const base = Date.now() - 60_000;
    await e.rm.appendRecords(
      't',
      0,
      buildRecordBatchSync({
        records: [
          { key: 'a', value: '1', timestamp: base },
          { key: 'b', value: '2', timestamp: base + 10 },
        ],
      }),
      { acks: 1, timeoutMs: 100 },
    );
    await e.rm.appendRecords(
      't',
      0,
      buildRecordBatchSync({ records: [{ key: 'c', value: '3', timestamp: base + 20_000 }] }),
      { acks: 1, timeoutMs: 100 },
    );
    const lo = async (v: number, timestamp: bigint, extra: object = {}) =>
      (await call<ListOffsetsResponse>(listOffsets, e, v, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp, currentLeaderEpoch: -1, ...extra }] }],
      }))!.topics[0]!.partitions[0]!;
    assert.deepEqual([(await lo(1, -2n)).offset, (await lo(1, -1n)).offset], [0n, 3n]);
    const byTime = await lo(4, BigInt(base + 5));
    assert.deepEqual([byTime.offset, byTime.timestamp, byTime.leaderEpoch], [1n, BigInt(base + 10), 0]);
    const max = await lo(7, -3n);
    assert.deepEqual([max.offset, max.timestamp], [2n, BigInt(base + 20_000)]);
    assert.equal((await lo(10, -4n)).offset, 0n);
    assert.equal((await lo(6, -3n)).errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.equal((await lo(9, -1n, { currentLeaderEpoch: 1 })).errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
    const dup = (await call<ListOffsetsResponse>(listOffsets, e, 5, {
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, timestamp: -1n },
            { partitionIndex: 0, timestamp: -2n },
          ],
        },
      ],
    }))!;
    assert.deepEqual(
      dup.topics[0]!.partitions.map((p) => p.errorCode),
      [ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST],
    );

    for (const v of [2, 3, 4]) {
      const r = (await call<OffsetForLeaderEpochResponse>(offsetForLeaderEpoch, e, v, {
        replicaId: -1,
        topics: [
          {
            topic: 't',
            partitions: [
              { partition: 0, currentLeaderEpoch: 0, leaderEpoch: 0 },
              { partition: 5, leaderEpoch: 0 },
            ],
          },
        ],
      }))!;
      const [ok, missing] = r.topics[0]!.partitions;
      assert.equal(ok!.errorCode, 0);
      assert.equal(ok!.endOffset, 3n);
      assert.equal(ok!.leaderEpoch, 0);
      assert.equal(missing!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }

    const dr = async (v: number, offset: bigint, topic = 't') =>
      (await call<DeleteRecordsResponse>(deleteRecords, e, v, {
        timeoutMs: 1000,
        topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset }] }],
      }))!.topics[0]!.partitions[0]!;
    assert.deepEqual(await dr(0, 1n), { partitionIndex: 0, lowWatermark: 1n, errorCode: 0 });
    assert.equal((await dr(1, 10n)).errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    assert.equal((await dr(2, 0n, 'nope')).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.deepEqual(await dr(2, -1n), { partitionIndex: 0, lowWatermark: 3n, errorCode: 0 });
  } finally {
    await e.close();
  }
});

test('the data handlers register within the codec ranges', () => {
  const r = registerDataHandlers(new HandlerRegistry());
  const apis = r.apis('broker');
  assert.deepEqual(
    apis.map((a) => [a.apiKey, a.minVersion, a.maxVersion]),
    [
      [ApiKey.Produce, 3, 13],
      [ApiKey.Fetch, 4, 18],
      [ApiKey.ListOffsets, 1, 11],
      [ApiKey.DeleteRecords, 0, 2],
      [ApiKey.OffsetForLeaderEpoch, 2, 4],
      [ApiKey.ShareFetch, 1, 2],
      [ApiKey.ShareAcknowledge, 1, 2],
    ],
  );
});
