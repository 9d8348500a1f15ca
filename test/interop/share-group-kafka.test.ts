// A raw ShareGroupHeartbeat / ShareGroupDescribe / ListGroups sequence on Apache Kafka 4.4.0 and on
// tkafka, side by side: the validation errors (KafkaApis' and the coordinator's, with their texts), the
// first join, epoch errors, an unknown member and group, a leave, and the group listed with the share
// type. Both brokers must give the same observations. Assignments are not compared: tkafka has no
// share coordinator on this branch, so its share-partitions are never initialized nor assigned,
// where Kafka assigns them once their state is initialized.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode as E } from '../../src/protocol/errors.js';

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
const seen: { kafka?: unknown[]; tkafka?: unknown[] } = {};

async function scenario(port: number, log: (m: string) => void): Promise<unknown[]> {
  const c = await RawClient.connect(port);
  const out: unknown[] = [];
  const note = (what: string, v: unknown) => {
    out.push([what, v]);
    log(`${what}: ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}`);
  };
  try {
    const ct = await c.request(ApiKey.CreateTopics, 7, {
      topics: [{ name: 'iq', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.equal(ct.topics[0]!.errorCode, E.NONE);
    const hb = (
      groupId: string,
      memberId: string,
      memberEpoch: number,
      topics: string[] | null,
      rackId: string | null = null,
    ) =>
      c.request(ApiKey.ShareGroupHeartbeat, 1, {
        groupId,
        memberId,
        memberEpoch,
        rackId,
        subscribedTopicNames: topics,
      });
    const err = (r: { errorCode: number; errorMessage: string | null }) => [r.errorCode, r.errorMessage];

    note('empty member id', err(await hb('ig', '', 0, ['iq'])));
    note('long member id', err(await hb('ig', 'x'.repeat(37), 0, ['iq'])));
    note('no topics on join', err(await hb('ig', 'm1', 0, null)));
    note('empty topics on join', err(await hb('ig', 'm1', 0, [])));
    note('epoch -2', err(await hb('ig', 'm1', -2, null)));
    note('empty rack', err(await hb('ig', 'm1', 0, ['iq'], '')));
    note('empty group', err(await hb('', 'm1', 0, ['iq'])));

    const describe = async (ids: string[]) =>
      (await c.request(ApiKey.ShareGroupDescribe, 1, { groupIds: ids, includeAuthorizedOperations: false })).groups;
    // the group's coordinator is loaded once describing the (missing) group answers GROUP_ID_NOT_FOUND; joining
    // earlier would race the creation of __consumer_offsets (a write cut short there may still be replayed)
    await waitFor(
      async () => {
        await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: ['ig'] });
        return (await describe(['ig']))[0]!.errorCode === E.GROUP_ID_NOT_FOUND;
      },
      { what: "the coordinator of group 'ig'", timeoutMs: 60_000 },
    );
    const join = await hb('ig', 'member-one', 0, ['iq']);
    // a new share group is at epoch 1 (ModernGroup), so the first join answers 2
    log(`first join epoch: ${join.memberEpoch}`);
    note('join', [join.errorCode, join.errorMessage, join.memberId, join.memberEpoch, join.heartbeatIntervalMs]);
    const ahead = await hb('ig', 'member-one', 99, null);
    note('epoch ahead', [ahead.errorCode, ahead.errorMessage]);
    note('unknown member', err(await hb('ig', 'member-two', 1, null)));
    note('unknown group', err(await hb('nope', 'member-one', 1, null)));

    const [d] = await describe(['ig']);
    note('describe', [
      d!.errorCode,
      d!.groupState,
      d!.assignorName,
      d!.members.map((m) => [m.memberId, m.rackId, m.clientId, m.subscribedTopicNames]),
    ]);
    note(
      'describe missing and empty',
      (await describe(['nope', ''])).map((g) => [g.groupId, g.errorCode, g.errorMessage]),
    );
    const listed = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['share'] });
    note(
      'list share groups',
      listed.groups.map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]),
    );
    const classic = await c.request(ApiKey.DescribeGroups, 6, { groups: ['ig'], includeAuthorizedOperations: false });
    note('describe as classic', [classic.groups[0]!.errorCode, classic.groups[0]!.errorMessage]);
    const leave = await hb('ig', 'member-one', -1, null);
    note('leave', [leave.errorCode, leave.errorMessage, leave.memberId, leave.memberEpoch]);
    const [after] = await describe(['ig']);
    note('after leave', [after!.errorCode, after!.groupState, after!.members.length]);
    note('leave again', err(await hb('ig', 'member-one', -1, null)));
  } finally {
    c.close();
  }
  return out;
}

before(async () => {
  [kafka, tkafka] = await Promise.all([startApacheKafka(), startBroker()]);
  seen.kafka = await scenario(kafka.port, (m) => console.log(`Kafka ${KAFKA_VERSION}: ${m}`));
  seen.tkafka = await scenario(tkafka.port, (m) => console.log(`tkafka: ${m}`));
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
});

test(`Apache Kafka ${KAFKA_VERSION} answers the share-group sequence as the tkafka tests expect`, () => {
  const k = new Map(seen.kafka as [string, unknown][]);
  assert.deepEqual(k.get('no topics on join'), [
    E.INVALID_REQUEST,
    'SubscribedTopicNames must be set in first request.',
  ]);
  assert.deepEqual((k.get('join') as unknown[]).slice(0, 3), [E.NONE, null, 'member-one']);
});

test('tkafka gives the same observations as Apache Kafka', () => {
  assert.deepEqual(seen.tkafka, seen.kafka);
});
