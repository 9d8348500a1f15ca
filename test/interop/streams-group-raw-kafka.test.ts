// The same raw StreamsGroupHeartbeat / StreamsGroupDescribe sequence on Apache Kafka 4.4.0 and on
// tkafka (KIP-1071): validation texts, a join with the topology, the statuses while the broker
// creates the internal topics and the initial rebalance delay runs, the assignment once settled
// (epochs, tasks, endpoints), a second process joining (the revocation dance: nothing for the new
// member until the first one revokes; which tasks move is the sticky assignor's choice with fixed
// member and process ids), fencing and unknown-member errors, describe, leave. The observations must
// be equal.
//
//   npm run build && node --test dist/test/interop/streams-group-raw-kafka.test.js
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode as E } from '../../src/protocol/errors.js';

let kafka: ApacheKafka | null = null;
let tkafka: BrokerProcess | null = null;

after(async () => {
  await kafka?.cleanup();
  if (tkafka) {
    await tkafka.stop();
    tkafka.cleanup();
  }
});

const info = (name: string, configs: { key: string; value: string }[] = []) => ({
  name,
  partitions: 0,
  replicationFactor: 0,
  topicConfigs: configs,
});

const TOPOLOGY = {
  epoch: 0,
  subtopologies: [
    {
      subtopologyId: '0',
      sourceTopics: ['raw-in'],
      sourceTopicRegex: [],
      stateChangelogTopics: [],
      repartitionSinkTopics: ['raw-app-rp'],
      repartitionSourceTopics: [],
      copartitionGroups: [],
    },
    {
      subtopologyId: '1',
      sourceTopics: [],
      sourceTopicRegex: [],
      stateChangelogTopics: [info('raw-app-cl', [{ key: 'cleanup.policy', value: 'compact' }])],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [info('raw-app-rp')],
      copartitionGroups: [],
    },
  ],
};

type Req = Record<string, unknown> & { memberId: string; memberEpoch: number };

const tasks = (l: { subtopologyId: string; partitions: number[] }[] | null | undefined) =>
  l === null || l === undefined ? 'null' : l.map((t) => `${t.subtopologyId}:${t.partitions.join(',')}`).join(' ');

async function sequence(port: number): Promise<string[]> {
  const c = await RawClient.connect(port);
  const out: string[] = [];
  const hb = async (groupId: string, r: Req) =>
    waitFor(
      async () => {
        const a = await c.request(ApiKey.StreamsGroupHeartbeat, 1, {
          groupId,
          endpointInformationEpoch: 0,
          instanceId: null,
          rackId: null,
          rebalanceTimeoutMs: -1,
          topology: null,
          activeTasks: null,
          standbyTasks: null,
          warmupTasks: null,
          processId: null,
          userEndpoint: null,
          clientTags: null,
          taskOffsets: null,
          taskEndOffsets: null,
          shutdownApplication: false,
          ...r,
        });
        if (a.errorCode === E.NOT_COORDINATOR || a.errorCode === E.COORDINATOR_LOAD_IN_PROGRESS) {
          await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
          return null;
        }
        return a;
      },
      { what: 'a StreamsGroupHeartbeat answer', timeoutMs: 30_000 },
    );
  const show = (what: string, a: Awaited<ReturnType<typeof hb>>) =>
    out.push(
      `${what}: error=${a.errorCode} ${a.errorMessage ?? ''} epoch=${a.memberEpoch} active=[${tasks(a.activeTasks)}] standby=[${tasks(a.standbyTasks)}] status=${(a.status ?? []).map((s) => s.statusCode).join(',')}`,
    );
  const join = (memberId: string, processId: string, port2: number) =>
    hb('raw-app', {
      memberId,
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      topology: TOPOLOGY,
      processId,
      userEndpoint: { host: 'localhost', port: port2 },
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
  const describe = async (ids: string[]) =>
    (
      await c.request(ApiKey.StreamsGroupDescribe, 1, {
        groupIds: ids,
        includeAuthorizedOperations: false,
        includeTopologyDescription: false,
      })
    ).groups;
  const topicPartitions = async (name: string) => {
    const m = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    return m.topics[0]!.errorCode === E.NONE ? m.topics[0]!.partitions.length : -1;
  };
  try {
    // validation (GroupCoordinatorService / KafkaApis)
    for (const [what, r] of [
      ['no rebalance timeout', { memberId: 'x', memberEpoch: 0, topology: TOPOLOGY }],
      ['no task lists', { memberId: 'x', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: TOPOLOGY }],
      [
        'no topology',
        { memberId: 'x', memberEpoch: 0, rebalanceTimeoutMs: 1000, activeTasks: [], standbyTasks: [], warmupTasks: [] },
      ],
      ['topology later', { memberId: 'x', memberEpoch: 3, topology: TOPOLOGY }],
      ['bad epoch', { memberId: 'x', memberEpoch: -5 }],
      ['unknown group', { memberId: 'x', memberEpoch: 4 }],
      [
        'internal topic',
        {
          memberId: 'x',
          memberEpoch: 0,
          rebalanceTimeoutMs: 1000,
          topology: {
            epoch: 0,
            subtopologies: [{ ...TOPOLOGY.subtopologies[0]!, sourceTopics: ['__consumer_offsets'] }],
          },
        },
      ],
    ] as const) {
      const a = await hb(`raw-${what.replace(/ /g, '-')}`, r as unknown as Req);
      out.push(`${what}: ${a.errorCode} ${a.errorMessage ?? ''}`);
    }

    // a missing source topic: NotReady; with an endpoint Kafka 4.4 fails the heartbeat (no subtopologies)
    const missing = await hb('raw-nosrc', {
      memberId: 'm0',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      topology: TOPOLOGY,
      processId: 'p0',
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
    show('join without source', missing);
    out.push(`detail: ${missing.status?.map((s) => s.statusDetail).join(' | ')}`);
    const [notReady] = await describe(['raw-nosrc']);
    out.push(`describe: ${notReady!.groupState} epoch=${notReady!.groupEpoch}/${notReady!.assignmentEpoch}`);
    const withEndpoint = await hb('raw-nosrc-ep', {
      memberId: 'm0',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      topology: TOPOLOGY,
      processId: 'p0',
      userEndpoint: { host: 'localhost', port: 7000 },
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
    show('join without source, with endpoint', withEndpoint);
    out.push(`exists: ${(await describe(['raw-nosrc-ep']))[0]!.errorCode}`);

    const created = await c.request(ApiKey.CreateTopics, 7, {
      topics: [{ name: 'raw-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, E.NONE);
    await waitFor(async () => (await topicPartitions('raw-in')) === 2, { what: 'raw-in', timeoutMs: 15_000 });
    // the coordinator sees the source once raw-nosrc's heartbeats stop reporting it missing (before that,
    // a join with an endpoint would fail as above)
    let e0 = missing.memberEpoch;
    const found = await waitFor(
      async () => {
        const a = await hb('raw-nosrc', { memberId: 'm0', memberEpoch: e0 });
        e0 = a.memberEpoch;
        return (a.status ?? []).some((x) => x.statusCode === 1) ? null : a;
      },
      { what: 'the coordinator to see raw-in', timeoutMs: 15_000, intervalMs: 200 },
    );
    out.push(`nosrc sees the source: error=${found.errorCode}`);
    // the join asks for the internal topics, which the broker creates
    const internal = await join('m1', 'p1', 7001);
    show('m1 join', internal);
    out.push(
      `internal: status=${(internal.status ?? []).map((s) => `${s.statusCode}:${s.statusDetail.replace(/: .*/, '')}`).join(',')}`,
    );
    for (const t of ['raw-app-rp', 'raw-app-cl'])
      await waitFor(async () => (await topicPartitions(t)) === 2, { what: t, timeoutMs: 15_000 });
    // settles with every task once the topics exist and the initial delay is over
    let epoch = internal.memberEpoch;
    const settled = await waitFor(
      async () => {
        const a = await hb('raw-app', { memberId: 'm1', memberEpoch: epoch });
        epoch = a.memberEpoch;
        return (a.activeTasks ?? []).length === 2 ? a : null;
      },
      { what: 'm1 to get its tasks', timeoutMs: 30_000, intervalMs: 500 },
    );
    show('m1 settled', settled);
    out.push(
      `endpoints: ${(settled.partitionsByUserEndpoint ?? [])
        .map(
          (e) =>
            `${e.userEndpoint.port}:${e.activePartitions
              .map((p) => `${p.topic}/${p.partitions.join(',')}`)
              .sort()
              .join(' ')}`,
        )
        .join(' ')}`,
    );

    // a second process: it waits until m1 has revoked what moves to it (the assignment interval may
    // delay its first target: the answers are taken once no delay is reported)
    const j2 = await join('m2', 'p2', 7002);
    out.push(`m2 join: error=${j2.errorCode}`);
    let e2 = j2.memberEpoch;
    const m2wait = await waitFor(
      async () => {
        const a = await hb('raw-app', {
          memberId: 'm2',
          memberEpoch: e2,
          activeTasks: [],
          standbyTasks: [],
          warmupTasks: [],
        });
        e2 = a.memberEpoch;
        return (a.status ?? []).some((x) => x.statusCode === 5) ? null : a;
      },
      { what: 'the target with m2', timeoutMs: 15_000, intervalMs: 300 },
    );
    show('m2 waits', m2wait);
    const revoke = await hb('raw-app', {
      memberId: 'm1',
      memberEpoch: settled.memberEpoch,
      activeTasks: settled.activeTasks,
      standbyTasks: [],
      warmupTasks: [],
    });
    show('m1 revoke', revoke);
    const acked = await hb('raw-app', {
      memberId: 'm1',
      memberEpoch: revoke.memberEpoch,
      activeTasks: revoke.activeTasks ?? settled.activeTasks,
      standbyTasks: [],
      warmupTasks: [],
    });
    show('m1 acked', acked);
    const m2 = await hb('raw-app', {
      memberId: 'm2',
      memberEpoch: j2.memberEpoch,
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
    show('m2 tasks', m2);
    const [stable] = await describe(['raw-app', 'raw-none']);
    out.push(
      `describe: ${stable!.groupState} epoch=${stable!.groupEpoch}/${stable!.assignmentEpoch} assignor=${stable!.assignorName} ` +
        stable!.members
          .map(
            (m) =>
              `${m.memberId}@${m.memberEpoch}:${m.processId}:[${tasks(m.assignment.activeTasks)}]->[${tasks(m.targetAssignment.activeTasks)}]`,
          )
          .sort()
          .join(' '),
    );
    out.push(
      `topology: ${stable!.topology!.subtopologies!.map((s) => `${s.subtopologyId}<${s.sourceTopics.join(',')}|${s.repartitionSourceTopics.map((t) => `${t.name}/${t.partitions}`).join(',')}|${s.stateChangelogTopics.map((t) => `${t.name}/${t.partitions}/${t.topicConfigs.map((k) => `${k.key}=${k.value}`).join(';')}`).join(',')}>`).join(' ')}`,
    );
    const [none] = await describe(['raw-none']);
    out.push(`describe none: ${none!.errorCode} ${none!.errorMessage}`);

    // errors
    const ahead = await hb('raw-app', { memberId: 'm2', memberEpoch: m2.memberEpoch + 5 });
    out.push(`ahead: ${ahead.errorCode} ${ahead.errorMessage}`);
    const unknown = await hb('raw-app', { memberId: 'zz', memberEpoch: 2 });
    out.push(`unknown: ${unknown.errorCode} ${unknown.errorMessage}`);
    const stale = await hb('raw-app', {
      memberId: 'm2',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      topology: { ...TOPOLOGY, subtopologies: TOPOLOGY.subtopologies.slice(0, 1) },
      processId: 'p2',
      activeTasks: [],
      standbyTasks: [],
      warmupTasks: [],
    });
    out.push(`topology update: ${stale.errorCode} ${stale.errorMessage}`);
    const left = await hb('raw-app', { memberId: 'm2', memberEpoch: -1 });
    out.push(`leave: ${left.errorCode} epoch=${left.memberEpoch}`);
    const [afterLeave] = await describe(['raw-app']);
    out.push(`after leave: ${afterLeave!.groupState} members=${afterLeave!.members.map((m) => m.memberId).join(',')}`);
    const listed = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['streams'] });
    out.push(`list: ${listed.groups.map((g) => `${g.groupId}/${g.protocolType}/${g.groupType}`).join(' ')}`);
    return out;
  } catch (e) {
    throw new Error(`${(e as Error).message} after:\n${out.join('\n')}`, { cause: e });
  } finally {
    c.close();
  }
}

const runs = new Map<string, string[]>();

test('Apache Kafka 4.4.0', { timeout: 300_000 }, async () => {
  kafka = await startApacheKafka();
  runs.set('kafka', await sequence(kafka.port));
  console.log(runs.get('kafka')!.join('\n'));
  await kafka.cleanup();
  kafka = null;
});

test('tkafka', { timeout: 300_000 }, async () => {
  tkafka = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  runs.set('tkafka', await sequence(tkafka.port));
  console.log(runs.get('tkafka')!.join('\n'));
});

test('the same observations', () => {
  assert.deepEqual(runs.get('tkafka'), runs.get('kafka'));
});
