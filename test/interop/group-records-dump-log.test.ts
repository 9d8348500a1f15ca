// `tkafka dump-log --offsets-decoder` on the share-group and streams-group records of Kafka 4.4
// (ShareGroup*, StreamsGroup* in __consumer_offsets) prints what Kafka's DumpLogSegments prints, for
// segments written by Apache Kafka 4.4.0 and by tkafka. On each broker a share group (a member joins,
// is assigned once its share-partitions are initialized, leaves) and a streams group (a member joins
// with a topology, is assigned its tasks after the initial rebalance delay, leaves) are driven with raw
// requests; the brokers are stopped, their __consumer_offsets segments copied, and both tools decode
// every copied file.
//
//   npm run build && node --test dist/test/interop/group-records-dump-log.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { WORDCOUNT_TOPOLOGY as TOPOLOGY } from '../helpers/streams-topology.js';
import { waitFor } from '../helpers/wait-for.js';
import { dumpLog } from '../dump-log-fixtures.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode as E } from '../../src/protocol/errors.js';

const OVERRIDES = { 'offsets.topic.num.partitions': 1 };
/** ShareGroup* (10-15) and StreamsGroup* (17, 19-23) record types of Kafka 4.4's __consumer_offsets. */
const GROUP_RECORD_TYPES = [10, 11, 12, 13, 14, 15, 17, 19, 20, 21, 22, 23];
const COORDINATOR_ERRORS: number[] = [E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_COORDINATOR];

let kafka: ApacheKafka | null = null;
let tkafka: BrokerProcess | null = null;

before(async () => {
  [kafka, tkafka] = await Promise.all([
    startApacheKafka({ overrides: OVERRIDES }),
    startBroker({ overrides: OVERRIDES }),
  ]);
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
});

/** Sends a group request until the group's coordinator answers (FindCoordinator creates __consumer_offsets). */
async function toCoordinator<T extends { errorCode: number }>(
  c: RawClient,
  groupId: string,
  send: () => Promise<T>,
): Promise<T> {
  return waitFor(
    async () => {
      const r = await send();
      if (!COORDINATOR_ERRORS.includes(r.errorCode)) return r;
      await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
      return null;
    },
    { what: `the coordinator of ${groupId}`, timeoutMs: 60_000 },
  );
}

/** A share group: join, heartbeat until assigned (its state initialized), leave. */
async function shareGroup(c: RawClient): Promise<void> {
  const hb = (memberEpoch: number, subscribedTopicNames: string[] | null) =>
    toCoordinator(c, 'sg', () =>
      c.request(ApiKey.ShareGroupHeartbeat, 1, {
        groupId: 'sg',
        memberId: 'share-member-1',
        memberEpoch,
        rackId: null,
        subscribedTopicNames,
      }),
    );
  const joined = await hb(0, ['dq']);
  assert.equal(joined.errorCode, E.NONE, joined.errorMessage ?? '');
  let epoch = joined.memberEpoch;
  await waitFor(
    async () => {
      const r = await hb(epoch, null);
      assert.equal(r.errorCode, E.NONE, r.errorMessage ?? '');
      epoch = r.memberEpoch;
      return (r.assignment?.topicPartitions.length ?? 0) > 0;
    },
    { what: 'the share member to be assigned dq', timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.equal((await hb(-1, null)).errorCode, E.NONE);
}

/** A streams group: join with the topology, heartbeat until tasks are assigned, leave. */
async function streamsGroup(c: RawClient): Promise<void> {
  const hb = (h: Record<string, unknown>) =>
    toCoordinator(c, 'wc', () =>
      c.request(ApiKey.StreamsGroupHeartbeat, 1, {
        groupId: 'wc',
        memberId: 'streams-member-1',
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
        ...h,
      }),
    );
  const joined = await hb({
    memberEpoch: 0,
    rebalanceTimeoutMs: 30_000,
    topology: TOPOLOGY,
    processId: 'process-1',
    activeTasks: [],
    standbyTasks: [],
    warmupTasks: [],
  });
  assert.equal(joined.errorCode, E.NONE, joined.errorMessage ?? '');
  let epoch = joined.memberEpoch;
  // the first assignment comes after the initial rebalance delay (3 s)
  await waitFor(
    async () => {
      const r = await hb({ memberEpoch: epoch });
      assert.equal(r.errorCode, E.NONE, r.errorMessage ?? '');
      epoch = r.memberEpoch;
      return (r.activeTasks?.length ?? 0) > 0;
    },
    { what: 'the streams member to be assigned its tasks', timeoutMs: 30_000, intervalMs: 300 },
  );
  assert.equal((await hb({ memberEpoch: -1 })).errorCode, E.NONE);
}

async function scenario(port: number): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    const created = await c.request(ApiKey.CreateTopics, 7, {
      topics: ['words-in', 'dq'].map((name) => ({
        name,
        numPartitions: 2,
        replicationFactor: 1,
        assignments: [],
        configs: [],
      })),
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.deepEqual(
      created.topics.map((t) => t.errorCode),
      [E.NONE, E.NONE],
    );
    await shareGroup(c);
    await streamsGroup(c);
  } finally {
    c.close();
  }
}

/** The non-empty __consumer_offsets segments under `dataDir`, copied to `into/<name>/` (paths relative to `into`). */
function copySegments(dataDir: string, into: string, name: string): string[] {
  const files: string[] = [];
  for (const dir of readdirSync(dataDir).filter((d) => d.startsWith('__consumer_offsets-'))) {
    for (const f of readdirSync(join(dataDir, dir)).filter((x) => x.endsWith('.log'))) {
      if (statSync(join(dataDir, dir, f)).size === 0) continue;
      cpSync(join(dataDir, dir, f), join(into, name, dir, f), { recursive: true });
      files.push(join(name, dir, f));
    }
  }
  return files.sort();
}

test('share and streams group records: tkafka dump-log --offsets-decoder prints what DumpLogSegments prints', async () => {
  await Promise.all([scenario(kafka!.port), scenario(tkafka!.port)]);
  // stopped, so every record is on disk and nothing is appended while the files are copied
  await Promise.all([kafka!.stop(), tkafka!.stop()]);
  const root = mkdtempSync(join(tmpdir(), 'tkafka-group-dump-'));
  try {
    const files = [
      ...copySegments(kafka!.dataDir, root, 'kafka'),
      ...copySegments(join(tkafka!.dataDir, 'logs'), root, 'tkafka'),
    ];
    for (const flags of [['--offsets-decoder'], ['--offsets-decoder', '--skip-record-metadata']]) {
      const args = ['--files', files.join(','), ...flags];
      const k = await kafka!.runTool('org.apache.kafka.tools.DumpLogSegments', args, { cwd: root });
      const t = await dumpLog(args, root);
      assert.equal(k.exitCode, 0, `Kafka failed on ${args.join(' ')}: ${k.stderr}`);
      // both brokers wrote every kind of share-group and streams-group record, so a decoder that
      // skipped or misread them cannot pass
      for (const broker of ['kafka', 'tkafka']) {
        const types = new Set(
          k.stdout
            .split(/^Dumping /m)
            .filter((part) => part.startsWith(`${broker}/`))
            .flatMap((part) => [...part.matchAll(/key: \{"type":"(\d+)"/g)].map((m) => Number(m[1]))),
        );
        assert.deepEqual(
          GROUP_RECORD_TYPES.filter((type) => !types.has(type)),
          [],
          `record types missing from ${broker}'s segments`,
        );
      }
      assert.equal(t.stdout, k.stdout, `stdout of ${args.join(' ')}`);
      assert.equal(t.stderr, k.stderr, `stderr of ${args.join(' ')}`);
      assert.equal(t.code, 0);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
