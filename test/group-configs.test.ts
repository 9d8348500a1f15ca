// Group-level dynamic configs against a real `tkafka server start` process: `tkafka configs --entity-type
// groups` alters consumer.heartbeat.interval.ms / consumer.session.timeout.ms (IncrementalAlterConfigs on a
// GROUP resource), the controller validates them against the broker's group.consumer.* bounds with Kafka's
// messages (share.* validated too), DescribeConfigs shows them (share.* with their group.share.* synonyms), the coordinator applies them to the
// group's heartbeats, and they survive a restart (ConfigRecords of the metadata log).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode as E } from '../src/protocol/errors.js';
import { run as configs } from '../src/tools/configs/main.js';

let broker: BrokerProcess;

async function tkafka(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(c, _e, cb) {
        add(String(c));
        cb();
      },
    });
  const code = await configs(['--bootstrap-server', broker.bootstrap, ...argv], {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    env: {},
  });
  return { code, out, err };
}

before(async () => {
  broker = await startBroker({
    overrides: {
      'group.consumer.min.heartbeat.interval.ms': 1000,
      'group.consumer.heartbeat.interval.ms': 2000,
      'group.consumer.max.heartbeat.interval.ms': 50000,
    },
  });
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

interface Described {
  value: string;
  source: number;
  synonyms?: { name: string; value: string; source: number }[];
}

async function describeGroupConfigs(
  c: RawClient,
  group: string,
  withSynonyms = false,
): Promise<Map<string, Described>> {
  const r = await c.request(ApiKey.DescribeConfigs, 4, {
    resources: [{ resourceType: 32, resourceName: group, configurationKeys: null }],
    includeSynonyms: true,
    includeDocumentation: false,
  });
  assert.equal(r.results[0].errorCode, E.NONE, r.results[0].errorMessage ?? '');
  return new Map(
    r.results[0].configs.map((e) => {
      const d: Described = { value: e.value ?? '', source: e.configSource };
      if (withSynonyms) d.synonyms = e.synonyms.map((x) => ({ name: x.name, value: x.value ?? '', source: x.source }));
      return [e.name, d];
    }),
  );
}

const RETRIABLE: readonly number[] = [E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_COORDINATOR];

/** The heartbeat interval a new member of `group` is given (FindCoordinator creates __consumer_offsets first). */
async function heartbeatInterval(c: RawClient, group: string): Promise<number> {
  await waitFor(
    async () => {
      const f = await c.request(ApiKey.FindCoordinator, 3, { key: group, keyType: 0 });
      assert.ok(RETRIABLE.includes(f.errorCode) || f.errorCode === E.NONE, `FindCoordinator: error ${f.errorCode}`);
      return f.errorCode === E.NONE;
    },
    { what: `the coordinator of ${group}` },
  );
  return waitFor(
    async () => {
      const r = await c.request(ApiKey.ConsumerGroupHeartbeat, 0, {
        groupId: group,
        memberId: '',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 5000,
        subscribedTopicNames: [],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      });
      if (r.errorCode === E.NONE) return r.heartbeatIntervalMs;
      assert.ok(RETRIABLE.includes(r.errorCode), `ConsumerGroupHeartbeat: error ${r.errorCode}`);
      return null;
    },
    { what: `a ConsumerGroupHeartbeat answer from the coordinator of ${group}` },
  );
}

test('consumer.* group configs: set, described as GROUP_CONFIG, applied to the heartbeat interval, kept across a restart', async () => {
  let c = await RawClient.connect(broker.port);
  try {
    assert.equal(await heartbeatInterval(c, 'cfg-a'), 2000, 'the broker default before any group config');
    const set = await tkafka([
      '--alter',
      '--entity-type',
      'groups',
      '--entity-name',
      'cfg-a',
      '--add-config',
      'consumer.heartbeat.interval.ms=3000,consumer.session.timeout.ms=50000',
    ]);
    assert.deepEqual(set, { code: 0, out: 'Completed updating config for group cfg-a.\n', err: '' });
    // as Kafka 4.4 describes them (its answer with the same broker settings): GROUP_CONFIG (8), then the
    // broker key's synonyms, static (4) and default (5); consumer.*, share.* and streams.* keys
    // (test/interop/share-consumer.test.ts and streams-group-configs-kafka.test.ts compare them with Kafka's)
    const d = await describeGroupConfigs(c, 'cfg-a', true);
    assert.deepEqual([...d.keys()].sort(), [
      'consumer.assignment.interval.ms',
      'consumer.heartbeat.interval.ms',
      'consumer.session.timeout.ms',
      'share.assignment.interval.ms',
      'share.auto.offset.reset',
      'share.delivery.count.limit',
      'share.heartbeat.interval.ms',
      'share.isolation.level',
      'share.partition.max.record.locks',
      'share.record.lock.duration.ms',
      'share.renew.acknowledge.enable',
      'share.session.timeout.ms',
      'streams.assignment.interval.ms',
      'streams.assignor.name',
      'streams.heartbeat.interval.ms',
      'streams.initial.rebalance.delay.ms',
      'streams.num.standby.replicas',
      'streams.rack.aware.assignment.tags',
      'streams.session.timeout.ms',
    ]);
    assert.deepEqual(d.get('consumer.heartbeat.interval.ms'), {
      value: '3000',
      source: 8,
      synonyms: [
        { name: 'consumer.heartbeat.interval.ms', value: '3000', source: 8 },
        { name: 'group.consumer.heartbeat.interval.ms', value: '2000', source: 4 },
        { name: 'group.consumer.heartbeat.interval.ms', value: '5000', source: 5 },
      ],
    });
    assert.deepEqual(d.get('consumer.assignment.interval.ms'), {
      value: '1000',
      source: 5,
      synonyms: [{ name: 'group.consumer.assignment.interval.ms', value: '1000', source: 5 }],
    });
    assert.deepEqual((await describeGroupConfigs(c, 'cfg-a')).get('consumer.session.timeout.ms'), {
      value: '50000',
      source: 8,
    });
    const other = await describeGroupConfigs(c, 'cfg-b');
    assert.deepEqual(other.get('consumer.heartbeat.interval.ms'), { value: '2000', source: 4 });
    assert.equal(await heartbeatInterval(c, 'cfg-a'), 3000, 'the group config applies to its heartbeats');
    assert.equal(await heartbeatInterval(c, 'cfg-b'), 2000, 'and only to that group');

    c.close();
    await broker.restart();
    c = await RawClient.connect(broker.port);
    assert.deepEqual((await describeGroupConfigs(c, 'cfg-a')).get('consumer.heartbeat.interval.ms'), {
      value: '3000',
      source: 8,
    });
    const deleted = await tkafka([
      '--alter',
      '--entity-type',
      'groups',
      '--entity-name',
      'cfg-a',
      '--delete-config',
      'consumer.heartbeat.interval.ms',
    ]);
    assert.equal(deleted.code, 0, deleted.err);
    assert.deepEqual((await describeGroupConfigs(c, 'cfg-a')).get('consumer.heartbeat.interval.ms'), {
      value: '2000',
      source: 4,
    });
  } finally {
    c.close();
  }
});

test("invalid group configs are refused with Kafka's messages (INVALID_CONFIG)", async () => {
  const c = await RawClient.connect(broker.port);
  try {
    const alter = async (name: string, value: string) => {
      const r = await c.request(ApiKey.IncrementalAlterConfigs, 1, {
        resources: [{ resourceType: 32, resourceName: 'cfg-bad', configs: [{ name, configOperation: 0, value }] }],
        validateOnly: false,
      });
      return { errorCode: r.responses[0].errorCode, errorMessage: r.responses[0].errorMessage };
    };
    assert.deepEqual(await alter('consumer.heartbeat.interval.ms', '500'), {
      errorCode: E.INVALID_CONFIG,
      errorMessage: 'consumer.heartbeat.interval.ms must be in the range 1000 to 50000 inclusive.',
    });
    assert.deepEqual(await alter('consumer.session.timeout.ms', 'soon'), {
      errorCode: E.INVALID_CONFIG,
      errorMessage: 'Invalid value soon for configuration consumer.session.timeout.ms: Not a number of type INT',
    });
    // share.* keys (share groups, KIP-932) are validated against the group.share.* bounds
    assert.deepEqual(await alter('share.session.timeout.ms', '30000'), {
      errorCode: E.INVALID_CONFIG,
      errorMessage: 'share.session.timeout.ms must be in the range 45000 to 60000 inclusive.',
    });
    assert.deepEqual(await alter('no.such.config', '1'), {
      errorCode: E.INVALID_CONFIG,
      errorMessage: 'Unknown group config name: no.such.config',
    });
    // the session timeout (the broker's 45000 here) must stay above the heartbeat interval
    assert.deepEqual(await alter('consumer.heartbeat.interval.ms', '46000'), {
      errorCode: E.INVALID_CONFIG,
      errorMessage: 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms',
    });
    const d = await describeGroupConfigs(c, 'cfg-bad');
    assert.ok(
      [...d.values()].every((e) => e.source !== 8),
      'nothing was written',
    );
  } finally {
    c.close();
  }
});
