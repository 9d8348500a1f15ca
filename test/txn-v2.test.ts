// Transactions V2 (KIP-890 part 2) and the feature levels of Kafka 4.4 against a real tkafka
// process, at the protocol level (RawClient): a new cluster finalizes metadata.version 4.4-IV2 and
// transaction.version 2; a transactional Produce v12+ adds its partition to the transaction by
// itself while v10/v11 only verify (INVALID_TXN_STATE / TRANSACTION_ABORTABLE); EndTxn v5 bumps the
// epoch and answers the new one, recognises its own retry, aborts an empty transaction, fences a
// stale epoch; the markers carry the bumped epoch; an EndTxn v4 (V1 client) does not bump; the
// partitions of one Produce are added to the transaction together.
// UpdateFeatures moves transaction.version and group.version down and up as Kafka's controller
// does (upgrade types, validateOnly, unsupported features, metadata.version downgrades refused)
// and the levels survive a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { buildRecordBatch, iterateBatches, readBatchHeader } from '../src/protocol/records/batch.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';

const TXN_OVERRIDES = {
  'transaction.state.log.num.partitions': 1,
  'transaction.state.log.replication.factor': 1,
  'transaction.state.log.min.isr': 1,
};

async function finalized(c: RawClient): Promise<{ epoch: bigint; levels: Map<string, number> }> {
  const r = await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  const levels = new Map<string, number>(
    (r.finalizedFeatures as { name: string; maxVersionLevel: number }[]).map((f) => [f.name, f.maxVersionLevel]),
  );
  return { epoch: r.finalizedFeaturesEpoch as bigint, levels };
}

/** Waits until `probe` holds (at most `ms`), through the suite's one wait helper. */
async function until(what: string, probe: () => Promise<boolean>, ms = 15_000): Promise<void> {
  await waitFor(probe, { what, timeoutMs: ms });
}

async function createTopic(c: RawClient, name: string, partitions: number): Promise<string> {
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(r.topics[0].errorCode, 0);
  let topicId = '';
  await until(`${name} has leaders`, async () => {
    const m = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const t = m.topics[0];
    topicId = t.topicId;
    return t.errorCode === 0 && t.partitions.length === partitions && t.partitions.every((p) => p.leaderId >= 0);
  });
  return topicId;
}

interface Producer {
  id: bigint;
  epoch: number;
}

async function txnBatch(p: Producer, sequence: number, value: string): Promise<Buffer> {
  return buildRecordBatch({
    producerId: p.id,
    producerEpoch: p.epoch,
    baseSequence: sequence,
    transactional: true,
    records: [{ key: Buffer.from(value), value: Buffer.from(value), timestamp: Date.now() }],
  });
}

async function produce(
  c: RawClient,
  version: number,
  txnId: string,
  topic: { name: string; id: string },
  partition: number,
  records: Buffer,
): Promise<{ errorCode: number; topicName: string; topicId: string }> {
  const r = await c.request(ApiKey.Produce, version, {
    transactionalId: txnId,
    acks: -1,
    timeoutMs: 10_000,
    topicData: [
      {
        name: version >= 13 ? '' : topic.name,
        topicId: version >= 13 ? topic.id : 'AAAAAAAAAAAAAAAAAAAAAA',
        partitionData: [{ index: partition, records }],
      },
    ],
  });
  const t = r.responses[0];
  return { errorCode: t.partitionResponses[0].errorCode, topicName: t.name, topicId: t.topicId };
}

async function endTxn(
  c: RawClient,
  version: number,
  txnId: string,
  p: Producer,
  committed: boolean,
): Promise<{ errorCode: number; producerId: bigint; producerEpoch: number }> {
  return c.request(ApiKey.EndTxn, version, {
    transactionalId: txnId,
    producerId: p.id,
    producerEpoch: p.epoch,
    committed,
  });
}

async function describeTxn(
  c: RawClient,
  txnId: string,
): Promise<{ state: string; epoch: number; partitions: string[] }> {
  const r = await c.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [txnId] });
  const s = r.transactionStates[0];
  assert.equal(s.errorCode, 0);
  return {
    state: s.transactionState,
    epoch: s.producerEpoch,
    partitions: (s.topics as { topic: string; partitions: number[] }[]).flatMap((t) =>
      t.partitions.map((p) => `${t.topic}-${p}`),
    ),
  };
}

/** (isControl, producerEpoch) of every batch of a partition, read uncommitted from offset 0. */
async function batchesOf(c: RawClient, topic: string, partition: number): Promise<[boolean, number][]> {
  const r = await c.request(ApiKey.Fetch, 12, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        partitions: [
          {
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: 0n,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 1 << 20,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
  const buf = r.responses[0].partitions[0].records as Buffer;
  const out: [boolean, number][] = [];
  for (const e of iterateBatches(buf)) {
    const h = readBatchHeader(buf, e.position);
    out.push([h.isControl, h.producerEpoch]);
  }
  return out;
}

async function withBroker(fn: (b: BrokerProcess, c: RawClient) => Promise<void>): Promise<void> {
  const b = await startBroker({ overrides: TXN_OVERRIDES });
  let c: RawClient | undefined;
  try {
    c = await RawClient.connect(b.port);
    await fn(b, c);
  } finally {
    c?.close();
    await b.stop();
    b.cleanup();
  }
}

test('a new cluster finalizes metadata.version 4.4-IV2, transaction.version 2 and eligible.leader.replicas.version 1', async () => {
  await withBroker(async (_b, c) => {
    const f = await finalized(c);
    assert.equal(f.levels.get('metadata.version'), 33);
    assert.equal(f.levels.get('transaction.version'), 2);
    assert.equal(f.levels.get('group.version'), 1);
    assert.equal(f.levels.get('eligible.leader.replicas.version'), 1);
    // share.version 2 as Kafka 4.4 (ShareVersion.SV_2 bootstraps at 4.4-IV0); streams.version 1
    // (StreamsVersion.SV_1 bootstraps at 4.2-IV1)
    assert.equal(f.levels.get('share.version'), 2);
    assert.equal(f.levels.get('streams.version'), 1);
    const r = await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    const supported = new Map(
      (r.supportedFeatures as { name: string; minVersion: number; maxVersion: number }[]).map((s) => [
        s.name,
        [s.minVersion, s.maxVersion],
      ]),
    );
    assert.deepEqual(supported.get('metadata.version'), [7, 33]);
    assert.deepEqual(supported.get('transaction.version'), [0, 2]);
    assert.deepEqual(supported.get('eligible.leader.replicas.version'), [0, 1]);
    assert.deepEqual(supported.get('share.version'), [0, 2]);
    assert.deepEqual(supported.get('streams.version'), [0, 1]);
    const versions = new Map(
      (r.apiKeys as { apiKey: number; maxVersion: number }[]).map((k) => [k.apiKey, k.maxVersion]),
    );
    assert.equal(versions.get(ApiKey.Produce), 13);
    assert.equal(versions.get(ApiKey.EndTxn), 5);
    assert.equal(versions.get(ApiKey.InitProducerId), 5);
    assert.equal(versions.get(ApiKey.TxnOffsetCommit), 6);
    assert.equal(versions.get(ApiKey.UpdateFeatures), 2);
  });
});

test('transactions V2: implicit add by Produce v12+, an epoch bump per EndTxn v5, markers at the bumped epoch', async () => {
  await withBroker(async (_b, c) => {
    const name = 'tv2';
    const topic = { name, id: await createTopic(c, name, 3) };
    const txnId = 'tv2-txn';
    // the first FindCoordinator creates __transaction_state; the coordinator is ready once it loaded
    await until('the transaction coordinator', async () => {
      const r = await c.request(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: [txnId] });
      return r.coordinators[0].errorCode === 0;
    });
    const init = await c.request(ApiKey.InitProducerId, 5, {
      transactionalId: txnId,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    assert.equal(init.errorCode, 0);
    const p: Producer = { id: init.producerId, epoch: init.producerEpoch };
    assert.equal(p.epoch, 0);

    // no AddPartitionsToTxn: Produce v12 adds the partition; v13 names the topic by id
    assert.equal((await produce(c, 12, txnId, topic, 0, await txnBatch(p, 0, 'a'))).errorCode, ErrorCode.NONE);
    assert.deepEqual((await describeTxn(c, txnId)).partitions, ['tv2-0']);
    // older versions only verify: v11 learns TRANSACTION_ABORTABLE, v10 INVALID_TXN_STATE
    const v11 = await produce(c, 11, txnId, topic, 1, await txnBatch(p, 0, 'x'));
    assert.equal(v11.errorCode, ErrorCode.TRANSACTION_ABORTABLE);
    const v10 = await produce(c, 10, txnId, topic, 1, await txnBatch(p, 0, 'x'));
    assert.equal(v10.errorCode, ErrorCode.INVALID_TXN_STATE);
    const v13 = await produce(c, 13, txnId, topic, 1, await txnBatch(p, 0, 'b'));
    assert.deepEqual([v13.errorCode, v13.topicId], [ErrorCode.NONE, topic.id]);
    const unknownId = await produce(c, 13, txnId, { name, id: 'AAAAAAAAAAAAAAAAAAAAAQ' }, 1, await txnBatch(p, 1, 'c'));
    assert.equal(unknownId.errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
    const ongoing = await describeTxn(c, txnId);
    assert.deepEqual([ongoing.state, ongoing.partitions.sort()], ['Ongoing', ['tv2-0', 'tv2-1']]);

    // EndTxn v5: the epoch moves to 1 and the answer says so
    const commit = await endTxn(c, 5, txnId, p, true);
    assert.deepEqual([commit.errorCode, commit.producerId, commit.producerEpoch], [ErrorCode.NONE, p.id, 1]);
    await until('CompleteCommit', async () => (await describeTxn(c, txnId)).state === 'CompleteCommit');
    // a retry of that EndTxn (the client did not see the answer) is recognised by the old epoch
    const retry = await endTxn(c, 5, txnId, p, true);
    assert.deepEqual([retry.errorCode, retry.producerId, retry.producerEpoch], [ErrorCode.NONE, p.id, 1]);
    // the markers were written with the bumped epoch
    for (const partition of [0, 1]) {
      assert.deepEqual(await batchesOf(c, name, partition), [
        [false, 0],
        [true, 1],
      ]);
    }

    // epoch 1: an abort of a transaction with no partition is allowed (and bumps); epoch 0 is fenced
    const p1: Producer = { id: p.id, epoch: 1 };
    const emptyAbort = await endTxn(c, 5, txnId, p1, false);
    assert.deepEqual([emptyAbort.errorCode, emptyAbort.producerEpoch], [ErrorCode.NONE, 2]);
    await until('CompleteAbort', async () => (await describeTxn(c, txnId)).state === 'CompleteAbort');
    const stale = await endTxn(c, 5, txnId, p, false);
    assert.equal(stale.errorCode, ErrorCode.PRODUCER_FENCED);
    const commitWithout = await endTxn(c, 5, txnId, { id: p.id, epoch: 2 }, true);
    assert.equal(commitWithout.errorCode, ErrorCode.INVALID_TXN_STATE);

    // a V1 EndTxn (v4) on the same cluster does not bump the epoch
    const p2: Producer = { id: p.id, epoch: 2 };
    assert.equal((await produce(c, 12, txnId, topic, 2, await txnBatch(p2, 0, 'd'))).errorCode, ErrorCode.NONE);
    const v1 = await endTxn(c, 4, txnId, p2, true);
    assert.equal(v1.errorCode, ErrorCode.NONE);
    await until('CompleteCommit', async () => (await describeTxn(c, txnId)).state === 'CompleteCommit');
    assert.equal((await describeTxn(c, txnId)).epoch, 2);
    assert.deepEqual(await batchesOf(c, name, 2), [
      [false, 2],
      [true, 2],
    ]);

    // one Produce for two partitions new to the transaction: both added in one go, as Kafka's
    // AddPartitionsToTxnManager adds them (not one of them CONCURRENT_TRANSACTIONS → NOT_ENOUGH_REPLICAS)
    const both = await c.request(ApiKey.Produce, 12, {
      transactionalId: txnId,
      acks: -1,
      timeoutMs: 10_000,
      topicData: [
        {
          name,
          topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
          partitionData: [
            { index: 0, records: await txnBatch(p2, 0, 'e') },
            { index: 1, records: await txnBatch(p2, 0, 'f') },
          ],
        },
      ],
    });
    const codes = (both.responses[0].partitionResponses as { errorCode: number }[]).map((r) => r.errorCode);
    assert.deepEqual(codes, [ErrorCode.NONE, ErrorCode.NONE]);
    assert.deepEqual((await describeTxn(c, txnId)).partitions.sort(), ['tv2-0', 'tv2-1']);
  });
});

test('UpdateFeatures: downgrade and upgrade transaction.version and group.version as Kafka 4.4', async () => {
  await withBroker(async (b, c) => {
    const update = async (
      version: number,
      updates: { feature: string; maxVersionLevel: number; upgradeType?: number; allowDowngrade?: boolean }[],
      validateOnly = false,
    ) => c.request(ApiKey.UpdateFeatures, version, { timeoutMs: 10_000, featureUpdates: updates, validateOnly });
    const before = await finalized(c);
    assert.equal(before.levels.get('transaction.version'), 2);

    // UPGRADE may not lower a level; nothing is written
    const wrongType = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 1 }]);
    assert.equal(wrongType.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
    assert.equal(
      wrongType.errorMessage,
      "The update failed for all features since the following feature had an error: Invalid update version 1 for feature transaction.version. Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
    );
    // validateOnly: accepted, not applied
    const dry = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 2 }], true);
    assert.deepEqual([dry.errorCode, dry.results], [ErrorCode.NONE, []]);
    assert.equal((await finalized(c)).levels.get('transaction.version'), 2);
    // SAFE_DOWNGRADE to 1: finalized at once, at a later epoch
    const down = await update(1, [{ feature: 'transaction.version', maxVersionLevel: 1, upgradeType: 2 }]);
    assert.deepEqual(
      [down.errorCode, down.results.map((r: { feature: string; errorCode: number }) => [r.feature, r.errorCode])],
      [ErrorCode.NONE, [['transaction.version', 0]]],
    );
    const after = await finalized(c);
    assert.equal(after.levels.get('transaction.version'), 1);
    assert.ok(after.epoch > before.epoch, `epoch ${after.epoch} after ${before.epoch}`);

    // unsupported features and levels, metadata.version downgrades across a format change
    const streams = await update(2, [{ feature: 'nope.version', maxVersionLevel: 1, upgradeType: 1 }]);
    assert.match(
      streams.errorMessage ?? '',
      /Invalid update version 1 for feature nope\.version\. Local controller 1 does not support this feature\.$/,
    );
    const tv3 = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 3, upgradeType: 1 }]);
    assert.match(tv3.errorMessage ?? '', /Local controller 1 only supports versions 0-2$/);
    const mv = await update(2, [{ feature: 'metadata.version', maxVersionLevel: 25, upgradeType: 2 }]);
    assert.match(
      mv.errorMessage ?? '',
      /Unsupported metadata\.version downgrade from 4\.4-IV2 to 4\.0-IV3\. Refusing to perform the requested downgrade because it might delete metadata information\.$/,
    );
    const raise = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 2, upgradeType: 2 }]);
    assert.match(raise.errorMessage ?? '', /Can't downgrade to a newer version\.$/);
    // all or nothing: one bad update fails the others
    const mixed = await update(2, [
      { feature: 'transaction.version', maxVersionLevel: 2, upgradeType: 1 },
      { feature: 'nope.version', maxVersionLevel: 1, upgradeType: 1 },
    ]);
    assert.equal(mixed.errorCode, ErrorCode.INVALID_UPDATE_VERSION);
    assert.equal((await finalized(c)).levels.get('transaction.version'), 1);

    // v0 (AllowDowngrade) disables group.version; v2 upgrades transaction.version back
    const disable = await update(0, [{ feature: 'group.version', maxVersionLevel: 0, allowDowngrade: true }]);
    assert.equal(disable.errorCode, ErrorCode.NONE);
    const up = await update(2, [{ feature: 'transaction.version', maxVersionLevel: 2, upgradeType: 1 }]);
    assert.equal(up.errorCode, ErrorCode.NONE);
    const now = await finalized(c);
    assert.deepEqual([now.levels.get('transaction.version'), now.levels.has('group.version')], [2, false]);

    // the FeatureLevelRecords are in the metadata log: a restart keeps the levels
    c.close();
    await b.restart();
    const c2 = await RawClient.connect(b.port);
    try {
      const restarted = await finalized(c2);
      assert.deepEqual(
        [
          restarted.levels.get('metadata.version'),
          restarted.levels.get('transaction.version'),
          restarted.levels.has('group.version'),
        ],
        [33, 2, false],
      );
    } finally {
      c2.close();
    }
  });
});
