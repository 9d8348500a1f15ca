// The streams.* group configs (KIP-1071, Kafka 4.4's GroupConfig) on a real Apache Kafka 4.4.0 and on
// tkafka, both started with the same group.streams.* broker settings: DescribeConfigs of a GROUP
// resource without and with overrides (IncrementalAlterConfigs), with synonyms and documentation, must
// answer the same streams.* entries (names, order, values, sources, synonyms, types, documentation;
// GroupConfig's internal keys only when the group sets them);
// an override outside the broker's bounds is refused with the same error on both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { ApiKey } from '../../src/protocol/frame.js';

/** The same broker settings on both: some group.streams.* away from Kafka's defaults. */
const BROKER_SETTINGS = {
  'group.streams.session.timeout.ms': 50000,
  'group.streams.num.standby.replicas': 1,
  'group.streams.max.standby.replicas': 3,
  'group.streams.initial.rebalance.delay.ms': 0,
};

interface Node {
  name: string;
  client: RawClient;
}

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
const nodes: Node[] = [];

before(async () => {
  [kafka, tkafka] = await Promise.all([
    startApacheKafka({ overrides: BROKER_SETTINGS }),
    startBroker({ overrides: BROKER_SETTINGS }),
  ]);
  nodes.push(
    { name: `Kafka ${KAFKA_VERSION}`, client: await RawClient.connect(kafka.port) },
    { name: 'tkafka', client: await RawClient.connect(tkafka.port) },
  );
});

after(async () => {
  for (const n of nodes) n.client.close();
  await tkafka?.stop();
  tkafka?.cleanup();
  await kafka?.cleanup();
});

/** DescribeConfigs v4 of a group with synonyms and documentation: the streams.* entries, in order. */
async function streamsConfigs(n: Node, group: string): Promise<unknown[]> {
  const r = await n.client.request(ApiKey.DescribeConfigs, 4, {
    resources: [{ resourceType: 32, resourceName: group, configurationKeys: null }],
    includeSynonyms: true,
    includeDocumentation: true,
  });
  assert.equal(r.results.length, 1);
  assert.equal(r.results[0].errorCode, 0, `${n.name}: ${r.results[0].errorMessage ?? ''}`);
  return r.results[0].configs.filter((e) => e.name.startsWith('streams.'));
}

async function alter(n: Node, group: string, configs: [string, string][]): Promise<unknown> {
  const r = await n.client.request(ApiKey.IncrementalAlterConfigs, 1, {
    resources: [
      {
        resourceType: 32,
        resourceName: group,
        configs: configs.map(([name, value]) => ({ name, configOperation: 0, value })),
      },
    ],
    validateOnly: false,
  });
  return r.responses;
}

test('streams.* group configs: same DescribeConfigs', async () => {
  // no override: every streams.* key with the broker's group.streams.* value (or GroupConfig's default)
  const [k0, t0] = await Promise.all(nodes.map((n) => streamsConfigs(n, 'sg-plain')));
  // the 7 non-internal streams.* keys (streams.acceptable.recovery.lag &c. are listed only when set)
  assert.equal(k0.length, 7, `Kafka lists the streams.* keys`);
  assert.deepEqual(t0, k0, 'no override: tkafka differs from Kafka');

  // overrides: GROUP_CONFIG first, then the broker synonyms
  const overrides: [string, string][] = [
    ['streams.num.standby.replicas', '2'],
    ['streams.heartbeat.interval.ms', '6000'],
    ['streams.acceptable.recovery.lag', '500'],
    ['streams.rack.aware.assignment.tags', 'zone,rack'],
    ['streams.assignor.name', 'sticky'],
  ];
  const [ka, ta] = await Promise.all(nodes.map((n) => alter(n, 'sg-set', overrides)));
  assert.deepEqual(ta, ka, 'IncrementalAlterConfigs: tkafka differs from Kafka');
  // the group's configs reach Kafka's brokers asynchronously
  const answers = await Promise.all(
    nodes.map((n) =>
      waitFor(
        async () => {
          const c = await streamsConfigs(n, 'sg-set');
          const set = c.filter((e) => (e as { configSource: number }).configSource === 8);
          // streams.acceptable.recovery.lag is internal (defineInternal): described only when set
          return set.length === overrides.length ? c : undefined;
        },
        { what: `${n.name}: the overrides of sg-set described`, timeoutMs: 30_000 },
      ),
    ),
  );
  assert.deepEqual(answers[1], answers[0], 'overrides: tkafka differs from Kafka');

  // beyond the broker's group.streams.max.standby.replicas: refused alike
  const [kb, tb] = await Promise.all(nodes.map((n) => alter(n, 'sg-bad', [['streams.num.standby.replicas', '4']])));
  console.log(`${nodes[0].name}: ${JSON.stringify(kb)}`);
  assert.equal((kb as { errorCode: number }[])[0].errorCode, 40, 'Kafka refuses it (INVALID_CONFIG)');
  assert.deepEqual(tb, kb, 'an override above the bound: tkafka differs from Kafka');
});

test('group.streams.* broker configs: same DescribeConfigs', async () => {
  const [k, t] = await Promise.all(
    nodes.map(async (n) => {
      const md = await n.client.request(ApiKey.Metadata, 12, {
        topics: [],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const r = await n.client.request(ApiKey.DescribeConfigs, 4, {
        resources: [{ resourceType: 4, resourceName: String(md.brokers[0].nodeId), configurationKeys: null }],
        includeSynonyms: true,
        includeDocumentation: true,
      });
      assert.equal(r.results[0].errorCode, 0, `${n.name}: ${r.results[0].errorMessage ?? ''}`);
      return r.results[0].configs
        .filter((e) => e.name.startsWith('group.streams.'))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }),
  );
  console.log(`${nodes[0].name}: ${k.map((e) => `${e.name}=${e.value}`).join(' ')}`);
  assert.ok(k.length >= 15, `Kafka lists the group.streams.* keys (${k.length})`);
  assert.deepEqual(t, k, 'tkafka differs from Kafka');

  // group.streams.assignment.interval.ms is dynamic (cluster default): a group's describe shows it
  const set = await Promise.all(
    nodes.map((n) =>
      n.client.request(ApiKey.IncrementalAlterConfigs, 1, {
        resources: [
          {
            resourceType: 4,
            resourceName: '',
            configs: [{ name: 'group.streams.assignment.interval.ms', configOperation: 0, value: '2000' }],
          },
        ],
        validateOnly: false,
      }),
    ),
  );
  assert.deepEqual(set[1].responses, set[0].responses, 'IncrementalAlterConfigs: tkafka differs from Kafka');
  assert.equal(set[0].responses[0].errorCode, 0, 'Kafka accepts it');
  const described = await Promise.all(
    nodes.map((n) =>
      waitFor(
        async () => {
          const c = await streamsConfigs(n, 'sg-plain');
          const e = c.find((x) => (x as { name: string }).name === 'streams.assignment.interval.ms');
          return (e as { value: string } | undefined)?.value === '2000' ? c : undefined;
        },
        { what: `${n.name}: the dynamic group.streams.assignment.interval.ms in a group's configs`, timeoutMs: 30_000 },
      ),
    ),
  );
  assert.deepEqual(described[1], described[0], 'with the dynamic default: tkafka differs from Kafka');
});
