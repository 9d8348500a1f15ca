// Kafka Streams 4.4.0 with the classic protocol (group.protocol=classic, Kafka Streams' default: a
// consumer group over JoinGroup/SyncGroup with the StreamsPartitionAssignor) on Apache Kafka 4.4.0
// and on tkafka: the demo, a word count (test/helpers/java/StreamsWordCount.java) with
// exactly_once_v2 run by two instances, one killed with -9 mid-run. On each broker: Kafka Streams
// created the internal topics itself (CreateTopics), the group is a Stable consumer group of the
// "stream" protocol with both members working, then with the survivor alone once the killed
// member's session (10 s) expires, and the output (read_committed) holds the exact counts of all
// the input. Both brokers give the same.
//
//   npm run build && node --test dist/test/interop/streams-classic-kafka.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import type { RawClient } from '../helpers/raw-client.js';
import { runTkafka } from '../helpers/tool-run.js';
import { waitFor } from '../helpers/wait-for.js';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { compileWordCount, eosKillRun, expectedCounts, killWordCounts, LINES } from './helpers/streams-wordcount.js';
import { decodeAssignment } from '../../src/client/admin/groups.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode as E } from '../../src/protocol/errors.js';

const APP = 'wc-classic';

let kafka: ApacheKafka | null = null;
let tkafka: BrokerProcess | null = null;

before(compileWordCount);

after(async () => {
  killWordCounts();
  await kafka?.cleanup();
  if (tkafka) {
    await tkafka.stop();
    tkafka.cleanup();
  }
});

interface GroupView {
  protocolType: string;
  protocol: string;
  state: string;
  clientIds: string[];
  /** partitions assigned to each member, in clientId order */
  assigned: number[];
}

async function describeGroup(c: RawClient): Promise<GroupView | null> {
  const r = await c.request(ApiKey.DescribeGroups, 5, { groups: [APP], includeAuthorizedOperations: false });
  const g = r.groups[0]!;
  if (g.errorCode !== E.NONE) return null;
  const members = [...g.members].sort((a, b) => (a.clientId < b.clientId ? -1 : 1));
  const assigned: number[] = [];
  for (const m of members) assigned.push((await decodeAssignment(m.memberAssignment)).length);
  return {
    protocolType: g.protocolType,
    protocol: g.protocolData,
    state: g.groupState,
    clientIds: members.map((m) => m.clientId),
    assigned,
  };
}

interface Observed {
  counts: string[];
  internalTopics: string[];
  policies: Record<string, string | null>;
  both: GroupView;
  alone: GroupView;
  /** `tkafka consumer-groups --describe` (--members, --state) with both instances working */
  tool: Record<string, string[]>;
}

/** Member ids, the coordinator's port and who got how many partitions vary between runs: set them aside. */
function normalizeTool(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) =>
      l
        .replace(/-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '-<uuid>')
        .replace(/127\.0\.0\.1:\d+\s+\(\d+\)/, '<coordinator>')
        .replace(/(-consumer\s+)\d+\s*$/, '$1N')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .sort();
}

async function classicRun(bootstrap: string, port: number): Promise<Observed> {
  const seen: Partial<Observed> = {};
  seen.counts = await eosKillRun(bootstrap, port, {
    app: APP,
    topics: ['classic-in', 'classic-out'],
    classic: true,
    async bothWorking(c) {
      seen.both = await waitFor(
        async () => {
          const g = await describeGroup(c);
          return g?.state === 'Stable' && g.assigned.length === 2 && g.assigned.every((n) => n > 0) ? g : null;
        },
        { what: `${APP} to be Stable with both instances working`, timeoutMs: 90_000, intervalMs: 500 },
      );
      seen.tool = {};
      for (const [name, args] of [
        ['members', ['--members']],
        ['state', ['--state']],
      ] as const) {
        const r = await runTkafka('consumer-groups', [
          '--bootstrap-server',
          bootstrap,
          '--describe',
          '--group',
          APP,
          ...args,
        ]);
        assert.equal(r.code, 0, r.err);
        seen.tool[name] = normalizeTool(r.out);
      }
      // Kafka Streams created its internal topics (the StreamsPartitionAssignor's CreateTopics)
      const metadata = await c.request(ApiKey.Metadata, 12, {
        topics: null,
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      seen.internalTopics = metadata.topics
        .filter((t) => (t.name ?? '').startsWith(`${APP}-`))
        .map((t) => `${t.name}:${t.partitions.length}`)
        .sort();
      const names = [`${APP}-counts-changelog`, `${APP}-words-repartition`];
      const cfg = await c.request(ApiKey.DescribeConfigs, 4, {
        resources: names.map((resourceName) => ({
          resourceType: 2,
          resourceName,
          configurationKeys: ['cleanup.policy'],
        })),
        includeSynonyms: false,
        includeDocumentation: false,
      });
      seen.policies = Object.fromEntries(
        cfg.results.map((r) => [
          r.resourceName,
          r.errorCode === E.NONE ? (r.configs[0]?.value ?? null) : `error ${r.errorCode}`,
        ]),
      );
    },
    async survivorAlone(c) {
      // the killed member leaves when its session (10 s) expires; the survivor rejoins and takes all tasks
      seen.alone = await waitFor(
        async () => {
          const g = await describeGroup(c);
          return g?.state === 'Stable' && g.assigned.length === 1 && g.assigned[0]! > 0 ? g : null;
        },
        { what: `${APP} to be Stable with the survivor alone`, timeoutMs: 90_000, intervalMs: 500 },
      );
    },
  });
  return seen as Observed;
}

/** What both brokers must show. */
function check(o: Observed): void {
  assert.deepEqual(o.internalTopics, [`${APP}-counts-changelog:2`, `${APP}-words-repartition:2`]);
  assert.deepEqual(o.policies, { [`${APP}-counts-changelog`]: 'compact', [`${APP}-words-repartition`]: 'delete' });
  const group = { protocolType: 'consumer', protocol: 'stream', state: 'Stable' };
  assert.deepEqual(
    { ...o.both, assigned: o.both.assigned.reduce((a, b) => a + b, 0) },
    {
      ...group,
      clientIds: ['wordcount-a-StreamThread-1-consumer', 'wordcount-b-StreamThread-1-consumer'],
      assigned: 4,
    },
  );
  assert.deepEqual(o.tool.state.at(-1), `${APP} <coordinator> stream Stable 2`);
  assert.deepEqual(
    o.tool.members.slice(1),
    ['a', 'b'].map(
      (t) => `${APP} wordcount-${t}-StreamThread-1-consumer-<uuid> /127.0.0.1 wordcount-${t}-StreamThread-1-consumer N`,
    ),
  );
  assert.deepEqual(o.alone, { ...group, clientIds: ['wordcount-a-StreamThread-1-consumer'], assigned: [4] });
  assert.deepEqual(o.counts, expectedCounts(2 * LINES));
}

const observed = new Map<string, Observed>();

test('classic protocol on Apache Kafka 4.4.0', { timeout: 420_000 }, async () => {
  kafka = await startApacheKafka();
  const o = await classicRun(kafka.bootstrap, kafka.port);
  console.log(`Apache Kafka 4.4.0, classic, exactly_once_v2 with an instance killed: ${o.counts.join(' ')}`);
  console.log(`Apache Kafka 4.4.0, classic: ${JSON.stringify({ ...o, counts: undefined })}`);
  check(o);
  observed.set('kafka', o);
  await kafka.cleanup();
  kafka = null;
});

test('classic protocol on tkafka', { timeout: 420_000 }, async () => {
  tkafka = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  const o = await classicRun(tkafka.bootstrap, tkafka.port);
  console.log(`tkafka, classic, exactly_once_v2 with an instance killed: ${o.counts.join(' ')}`);
  console.log(`tkafka, classic: ${JSON.stringify({ ...o, counts: undefined })}`);
  check(o);
  observed.set('tkafka', o);
});

test('same counts, topics and group on both', () => {
  const k = observed.get('kafka');
  const t = observed.get('tkafka');
  assert.ok(k && t, 'both runs completed');
  // which member got how many tasks is the assignor's choice of the moment: the total is compared
  const shape = (o: Observed) => ({ ...o, both: { ...o.both, assigned: o.both.assigned.reduce((x, y) => x + y, 0) } });
  assert.deepEqual(shape(t), shape(k));
});
