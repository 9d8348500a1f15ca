// Kafka Streams 4.4.0 with the streams rebalance protocol (KIP-1071, group.protocol=streams) on
// Apache Kafka 4.4.0 and on tkafka: a word count (one repartition topic, one changelogged store) run
// by two instances of one application (test/helpers/java/StreamsWordCount.java). On each broker:
// every input line is counted (the output's latest counts equal the expected ones), the broker
// created the internal topics (Kafka Streams does not with this protocol), the group is Stable with
// both members, and StreamsGroupDescribe and Kafka's `kafka-streams-groups.sh` (StreamsGroupCommand
// from the 4.4.0 jars) describe it the same way once member ids, process ids, ports and which member
// got which task are set aside. Then the demo: exactly_once_v2, one of the two instances
// killed with -9 mid-run: the output still holds the exact counts (both brokers). The word count and
// the kill run are shared with the classic-protocol test (helpers/streams-wordcount.ts); the Kafka
// Streams jars are provisioned by test/clients/java/setup.sh.
//
//   npm run build && node --test dist/test/interop/streams-group-kafka.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { runKafkaTool, startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import {
  compileWordCount,
  createTopics,
  eosKillRun,
  expectedCounts,
  killWordCounts,
  readCounts,
  TOTAL,
  wordCount,
  wordCountInstance,
  LINES,
  type WordCountInstance,
} from './helpers/streams-wordcount.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode as E } from '../../src/protocol/errors.js';

const APP = 'wc';

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

interface Observed {
  counts: string[];
  internalTopics: string[];
  changelogPolicy: string | null;
  describe: unknown;
  epochs: string;
  tool: Record<string, string[]>;
}

/** Member ids, process ids, coordinator address and task numbers vary between runs: set them aside. */
function normalizeTool(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) =>
      l
        .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<process>')
        .replace(/(^|\s)[A-Za-z0-9_-]{22}(?=\s)/g, '$1<member>')
        .replace(/127\.0\.0\.1:\d+ \(\d+\)/, '<coordinator>')
        .replace(/:\[[\d, ]+\]/g, ':[N]')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .sort();
}

async function scenario(bootstrap: string, port: number): Promise<Observed> {
  const c = await RawClient.connect(port);
  const instances: WordCountInstance[] = [];
  try {
    await createTopics(c, { 'words-in': 2, 'counts-out': 1 });
    assert.match(await wordCount(['produce', bootstrap, 'words-in', String(LINES)]), new RegExp(`produced ${LINES}`));
    const topics: [string, string] = ['words-in', 'counts-out'];
    instances.push(
      wordCountInstance(bootstrap, 'a', { app: APP, topics }),
      wordCountInstance(bootstrap, 'b', { app: APP, topics }),
    );
    const counts = await readCounts(bootstrap, 'counts-out', TOTAL, 150_000);
    // both instances run, and the group settles with both members reconciled
    await waitFor(() => instances.every((i) => i.states().at(-1) === 'RUNNING'), {
      what: 'both instances to be RUNNING',
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    const described = await waitFor(
      async () => {
        const r = await c.request(ApiKey.StreamsGroupDescribe, 1, {
          groupIds: [APP],
          includeAuthorizedOperations: false,
          includeTopologyDescription: false,
        });
        const g = r.groups[0]!;
        return g.errorCode === E.NONE && g.groupState === 'Stable' && g.members.length === 2 ? g : null;
      },
      { what: `${APP} to be Stable with two members`, timeoutMs: 90_000, intervalMs: 500 },
    );
    const metadata = await c.request(ApiKey.Metadata, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const internalTopics = metadata.topics
      .filter((t) => (t.name ?? '').startsWith(`${APP}-`))
      .map((t) => `${t.name}:${t.partitions.length}`)
      .sort();
    const cfg = await c.request(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: 2, resourceName: `${APP}-counts-changelog`, configurationKeys: ['cleanup.policy'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const tool: Record<string, string[]> = {};
    for (const [name, args] of [
      ['offsets', ['--describe']],
      ['members', ['--describe', '--members']],
      ['state', ['--describe', '--state']],
    ] as const) {
      const r = await runKafkaTool('org.apache.kafka.tools.streams.StreamsGroupCommand', [
        '--bootstrap-server',
        bootstrap,
        ...args,
        '--group',
        APP,
      ]);
      assert.equal(r.exitCode, 0, r.stderr);
      tool[name] = normalizeTool(r.stdout);
    }
    const g = described;
    return {
      counts,
      internalTopics,
      changelogPolicy: cfg.results[0]!.configs[0]?.value ?? null,
      epochs: `group ${g.groupEpoch}, assignment ${g.assignmentEpoch}, members ${g.members.map((m) => m.memberEpoch).join('/')}`,
      describe: {
        groupState: g.groupState,
        assignorName: g.assignorName,
        topology: g.topology,
        members: g.members
          .map((m) => ({
            clientId: m.clientId,
            clientHost: m.clientHost,
            topologyEpoch: m.topologyEpoch,
            userEndpoint: m.userEndpoint,
            instanceId: m.instanceId,
            rackId: m.rackId,
            clientTags: m.clientTags,
            isClassic: m.isClassic,
            activeTasks: m.assignment.activeTasks.map((t) => [t.subtopologyId, t.partitions.length]),
            standbyTasks: m.assignment.standbyTasks.length,
            targetActive: m.targetAssignment.activeTasks.map((t) => [t.subtopologyId, t.partitions.length]),
          }))
          .sort((a, b) => (a.clientId < b.clientId ? -1 : 1)),
      },
      tool,
    };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${instances.map((i) => i.log()).join('\n----\n')}`, { cause: e });
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
    c.close();
  }
}

/** The demo (exactly_once_v2, one of two instances killed) with group.protocol=streams. */
async function eosScenario(bootstrap: string, port: number): Promise<string[]> {
  const app = 'wc-eos';
  return eosKillRun(bootstrap, port, {
    app,
    topics: ['eos-in', 'eos-out'],
    async bothWorking(c: RawClient) {
      await waitFor(
        async () => {
          const r = await c.request(ApiKey.StreamsGroupDescribe, 1, {
            groupIds: [app],
            includeAuthorizedOperations: false,
            includeTopologyDescription: false,
          });
          const g = r.groups[0]!;
          return (
            g.groupState === 'Stable' &&
            g.members.length === 2 &&
            g.members.every((m) => m.assignment.activeTasks.length > 0)
          );
        },
        { what: `${app} to be Stable with both instances working`, timeoutMs: 90_000, intervalMs: 500 },
      );
    },
  });
}

const observed = new Map<string, Observed>();
const eosCounts = new Map<string, string[]>();

test('Kafka Streams 4.4.0 on Apache Kafka 4.4.0', { timeout: 600_000 }, async () => {
  kafka = await startApacheKafka();
  const o = await scenario(kafka.bootstrap, kafka.port);
  console.log(`Apache Kafka 4.4.0: ${o.epochs}`);
  assert.deepEqual(o.counts, expectedCounts());
  observed.set('kafka', o);
  const eos = await eosScenario(kafka.bootstrap, kafka.port);
  console.log(`Apache Kafka 4.4.0, exactly_once_v2 with an instance killed: ${eos.join(' ')}`);
  assert.deepEqual(eos, expectedCounts(2 * LINES));
  eosCounts.set('kafka', eos);
  await kafka.cleanup();
  kafka = null;
});

test('Kafka Streams 4.4.0 on tkafka', { timeout: 600_000 }, async () => {
  tkafka = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  const o = await scenario(tkafka.bootstrap, tkafka.port);
  console.log(`tkafka: ${o.epochs}`);
  assert.deepEqual(o.counts, expectedCounts());
  assert.deepEqual(o.internalTopics, [`${APP}-counts-changelog:2`, `${APP}-words-repartition:2`]);
  assert.equal(o.changelogPolicy, 'compact');
  observed.set('tkafka', o);
  const eos = await eosScenario(tkafka.bootstrap, tkafka.port);
  console.log(`tkafka, exactly_once_v2 with an instance killed: ${eos.join(' ')}`);
  assert.deepEqual(eos, expectedCounts(2 * LINES));
  eosCounts.set('tkafka', eos);
});

test('same output, internal topics and descriptions on both', () => {
  const k = observed.get('kafka');
  const t = observed.get('tkafka');
  assert.ok(k && t, 'both runs completed');
  assert.deepEqual(t.counts, k.counts);
  assert.deepEqual(t.internalTopics, k.internalTopics);
  assert.equal(t.changelogPolicy, k.changelogPolicy);
  assert.deepEqual(t.describe, k.describe);
  assert.deepEqual(t.tool, k.tool);
  assert.deepEqual(eosCounts.get('tkafka'), eosCounts.get('kafka'));
});
