// KIP-853 on a tkafka leader, as far as tkafka's quorum goes today: a tkafka controller formatted
// --standalone (single voter of a dynamic quorum, kraft.version 1) leads; an Apache Kafka 4.4.0 controller formatted with
// --no-initial-controllers follows it as an observer (A2's leader-side Fetch). Both tools describe
// the quorum alike, and `add-controller` of the Kafka controller passes every check of
// raft/voter-changes.ts — the ApiVersions probe of the new voter (Kafka's kraft.version range), the
// caught-up observer — then the VotersRecord is appended and committed by the new majority: the
// Kafka controller becomes the second voter of the tkafka-led quorum. A second add is refused
// (DUPLICATE_VOTER) alike by both tools.
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

test('add-controller of the caught-up Kafka observer: probed, caught up, written, and the Kafka controller votes', async () => {
  const args = ['--bootstrap-controller', bootstrap(), '--command-config', observer!.configFile, 'add-controller'];
  const t = await tkafkaQuorum(args);
  assert.deepEqual(
    [t.exitCode, t.stdout, t.stderr],
    [
      0,
      `Added controller 2 with directory id ${observer!.directoryId} and endpoints: CONTROLLER://127.0.0.1:${observer!.port}\n`,
      '',
    ],
  );
  // the new majority (both) committed the VotersRecord: the Kafka controller is a caught-up voter
  await waitFor(
    async () => {
      const q = await quorum();
      return (
        JSON.stringify([q.voters.map((v) => v.replicaId).sort(), q.observers.map((o) => o.replicaId)]) ===
          JSON.stringify([[1, 2], []]) && q.voters.every((v) => v.logEndOffset === q.highWatermark)
      );
    },
    { what: 'voters 1 and 2, both caught up', timeoutMs: 60_000, intervalMs: 200 },
  );
  // a second add is refused alike by both tools (DUPLICATE_VOTER)
  const again = await tkafkaQuorum(args);
  const k = await runKafkaTool(QUORUM_TOOL, args);
  assert.equal(k.exitCode, 1);
  assert.match(k.stderr, /DuplicateVoterException/);
  assert.deepEqual([again.exitCode, again.stderr.split('\n').slice(0, 2)], [1, k.stderr.split('\n').slice(0, 2)]);
});
