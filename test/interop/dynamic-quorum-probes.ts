// What the two KIP-853 scenarios (dynamic-quorum on Kafka controllers, dynamic-quorum-tkafka-voters on
// tkafka controllers) ask of a quorum through its first controller: DescribeQuorum in-process, waiting
// for a voter/observer split with everyone caught up, and Kafka 4.4's MetadataQuorumCommand beside
// `tkafka metadata-quorum` (describe --status / --replication, timestamps masked).
import assert from 'node:assert/strict';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { tkafkaQuorum } from './dynamic-quorum-nodes.js';
import { waitFor } from '../helpers/wait-for.js';
import { KafkaClient } from '../../src/client/client.js';
import { describeQuorum, type QuorumInfo } from '../../src/tools/metadata-quorum/quorum.js';

export const QUORUM_TOOL = 'org.apache.kafka.tools.MetadataQuorumCommand';

/** --status with what moves between two calls masked (the follower lag time comes from fetch times). */
const maskStatus = (s: string): string => s.replace(/^(MaxFollowerLagTimeMs:\s+)-?\d+$/m, '$1<ms>');

/** --replication as rows of trimmed cells, the two timestamp columns reduced to "set" or -1. */
const maskReplication = (s: string): string[][] =>
  s
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) =>
      l
        .split('\t')
        .map((c) => c.trim())
        .map((c, col) => (i > 0 && (col === 4 || col === 5) && c !== '-1' ? 'set' : c)),
    );

/** The message and the first line of the stack trace Kafka's tool prints for a failed call. */
export const firstLines = (stderr: string): string => `${stderr.split('\n').slice(0, 2).join('\n')}\n`;

const ids = (rs: readonly { replicaId: number }[]): number[] => rs.map((r) => r.replicaId).sort((a, b) => a - b);

export interface QuorumProbes {
  /** The quorum as DescribeQuorum reports it through the first controller (tkafka's client, in-process). */
  quorum(): Promise<QuorumInfo>;
  /** Until the voters and observers are these and every replica has reached the high watermark. */
  waitForQuorum(voters: number[], observers: number[]): Promise<void>;
  /** Both tools' --status and --replication on the same cluster, until they agree (a step may still settle). */
  compareDescribe(step: string): Promise<void>;
}

/** The probes of a quorum reached at `bootstrap()` (the first controller's CONTROLLER address). */
export function quorumProbes(bootstrap: () => string): QuorumProbes {
  const quorum = async (): Promise<QuorumInfo> => {
    const client = new KafkaClient({ bootstrapServers: [bootstrap()] });
    try {
      return await describeQuorum(client, 'controller');
    } finally {
      client.close();
    }
  };

  const waitForQuorum = async (voters: number[], observers: number[]): Promise<void> => {
    let last = 'no answer';
    await waitFor(
      async () => {
        const q = await quorum();
        last = JSON.stringify(q, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
        return (
          JSON.stringify([ids(q.voters), ids(q.observers)]) === JSON.stringify([voters, observers]) &&
          q.highWatermark >= 0n &&
          [...q.voters, ...q.observers].every((r) => r.logEndOffset === q.highWatermark)
        );
      },
      { what: `voters ${voters} and observers ${observers}, all caught up`, timeoutMs: 120_000, intervalMs: 200 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; the last DescribeQuorum: ${last}`);
    });
  };

  const compareDescribe = async (step: string): Promise<void> => {
    let last = '';
    await waitFor(
      async () => {
        const conn = ['--bootstrap-controller', bootstrap()];
        const [ks, ts, kr, tr] = [
          await runKafkaTool(QUORUM_TOOL, [...conn, 'describe', '--status']),
          await tkafkaQuorum([...conn, 'describe', '--status']),
          await runKafkaTool(QUORUM_TOOL, [...conn, 'describe', '--replication']),
          await tkafkaQuorum([...conn, 'describe', '--replication']),
        ];
        for (const r of [ks, ts, kr, tr]) assert.equal(r.exitCode, 0, `${step}: ${r.stdout}${r.stderr}`);
        const same =
          maskStatus(ks.stdout) === maskStatus(ts.stdout) &&
          JSON.stringify(maskReplication(kr.stdout)) === JSON.stringify(maskReplication(tr.stdout));
        last = `Kafka:\n${ks.stdout}${kr.stdout}tkafka:\n${ts.stdout}${tr.stdout}`;
        return same;
      },
      { what: `${step}: the same describe output from both tools`, timeoutMs: 120_000, intervalMs: 500 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${last}`);
    });
  };

  return { quorum, waitForQuorum, compareDescribe };
}
