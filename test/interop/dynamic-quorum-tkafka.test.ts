// KIP-853 on a tkafka leader, as far as tkafka's quorum goes today: a tkafka controller formatted
// --standalone (single voter of a dynamic quorum, kraft.version 1) leads; an Apache Kafka 4.4.0 controller formatted with
// --no-initial-controllers follows it as an observer (A2's leader-side Fetch). Both tools describe
// the quorum alike, and `add-controller` of the Kafka controller passes every check of
// raft/voter-changes.ts — the ApiVersions probe of the new voter (Kafka's kraft.version range), the
// caught-up observer — up to the VotersRecord append, which today's raft client refuses
// (UNSUPPORTED_VERSION with tkafka's message) instead of becoming a two-voter quorum. Kafka's own
// tool gets the same answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomClusterId, runKafkaTool } from './helpers/apache-kafka.js';
import { startController, tkafkaQuorum, type ControllerNode } from './dynamic-quorum-nodes.js';
import { waitFor } from '../helpers/wait-for.js';
import { KafkaClient } from '../../src/client/client.js';
import { describeQuorum, type QuorumInfo } from '../../src/tools/metadata-quorum/quorum.js';

const QUORUM_TOOL = 'org.apache.kafka.tools.MetadataQuorumCommand';

let root = '';
let leader: ControllerNode | null = null;
let observer: ControllerNode | null = null;
const bootstrap = (): string => `127.0.0.1:${leader!.port}`;

async function withClient<T>(fn: (c: KafkaClient) => Promise<T>): Promise<T> {
  const client = new KafkaClient({ bootstrapServers: [bootstrap()] });
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

const quorum = (): Promise<QuorumInfo> => withClient((c) => describeQuorum(c, 'controller'));

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'tkafka-dq-tkafka-'));
  const clusterId = randomClusterId();
  leader = await startController(root, clusterId, 1, null, 'tkafka');
  observer = await startController(root, clusterId, 2, leader.port);
  await waitFor(
    async () => {
      const q = await quorum();
      const o = q.observers.find((r) => r.replicaId === 2);
      return o !== undefined && o.replicaDirectoryId === observer!.directoryId && o.logEndOffset === q.highWatermark;
    },
    {
      what: 'the Kafka controller to be a caught-up observer of the tkafka leader',
      timeoutMs: 180_000,
      intervalMs: 200,
    },
  );
});

after(async () => {
  await observer?.stop();
  await leader?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a Kafka controller observing a tkafka leader: both tools describe the quorum alike', async () => {
  const conn = ['--bootstrap-controller', bootstrap()];
  const mask = (s: string): string =>
    s.replace(/^(MaxFollowerLagTimeMs:\s+)-?\d+$/m, '$1<ms>').replace(/\t\d{13} *\t/g, '\t<ts>\t');
  let last = '';
  await waitFor(
    async () => {
      const k = await runKafkaTool(QUORUM_TOOL, [...conn, 'describe', '--status']);
      const t = await tkafkaQuorum([...conn, 'describe', '--status']);
      const kr = await runKafkaTool(QUORUM_TOOL, [...conn, 'describe', '--replication']);
      const tr = await tkafkaQuorum([...conn, 'describe', '--replication']);
      last = `Kafka:\n${k.stdout}${k.stderr}${kr.stdout}tkafka:\n${t.stdout}${t.stderr}${tr.stdout}`;
      const rows = (s: string): string[][] =>
        s
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t').map((c) => (/^\d{13}$/.test(c.trim()) ? '<ts>' : c.trim())));
      return (
        k.exitCode === 0 &&
        mask(k.stdout) === mask(t.stdout) &&
        JSON.stringify(rows(kr.stdout)) === JSON.stringify(rows(tr.stdout))
      );
    },
    { what: 'the same describe output from both tools', timeoutMs: 120_000, intervalMs: 500 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${last}`);
  });
});

test('add-controller of the caught-up Kafka observer: probed, caught up, then refused by the raft client', async () => {
  const args = ['--bootstrap-controller', bootstrap(), '--command-config', observer!.configFile, 'add-controller'];
  const t = await tkafkaQuorum(args);
  const k = await runKafkaTool(QUORUM_TOOL, args);
  const expected =
    'org.apache.kafka.common.errors.UnsupportedVersionException: tkafka cannot change the voter set of this quorum yet: its raft client does not write voter changes';
  assert.deepEqual(
    [t.exitCode, t.stdout, t.stderr],
    [1, '', `${expected}\njava.util.concurrent.ExecutionException: ${expected}\n`],
  );
  assert.equal(k.exitCode, 1);
  assert.deepEqual(k.stderr.split('\n').slice(0, 2), t.stderr.split('\n').slice(0, 2));
  // nothing changed
  const q = await quorum();
  assert.deepEqual([q.voters.map((v) => v.replicaId), q.observers.map((o) => o.replicaId)], [[1], [2]]);
});
