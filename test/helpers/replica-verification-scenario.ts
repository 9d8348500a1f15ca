// The cluster and data behind the replica-verification tests: 1 controller + 3 brokers (tkafka or
// Apache Kafka 4.4.0), a topic `rv` with 3 partitions at RF 3 (each led by a different broker), and
// a known number of records per partition written with acks=all: rv-0 ends at offset 6 (3 batches),
// rv-1 at 4 (2 batches), rv-2 at 2 (1 batch). In Java's HashMap order the partitions are rv-2, rv-1,
// rv-0, so when every lag is 0 the tool names rv-2 at offset 2.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeBatchCrc } from '../../src/protocol/records/batch.js';
import { startCluster, waitForUnfenced, type Cluster, type NodeLauncher } from './cluster.js';
import { createReplicatedTopic, partitionDir, partitionInfo, produceRawAppended } from './replication.js';
import { waitFor } from './wait-for.js';

export const RV_TOPIC = 'rv';
export const RV_BROKERS = [2, 3, 4];
/** Partition i's replicas; the first leads. */
const ASSIGNMENTS = [
  [2, 3, 4],
  [3, 4, 2],
  [4, 2, 3],
];
/** Batches of 2 records per partition. */
const BATCHES = [3, 2, 1];
export const RV_END_OFFSETS = BATCHES.map((b) => b * 2);
/** The line (after the date) once every replica holds everything. */
export const RV_CAUGHT_UP = `max lag is 0 for partition ${RV_TOPIC}-2 at offset 2 among 3 partitions`;

export function startRvCluster(launcher: NodeLauncher): Promise<Cluster> {
  return startCluster({
    launcher,
    nodes: [{ id: 1, roles: 'controller' }, ...RV_BROKERS.map((id) => ({ id, roles: 'broker' as const }))],
    overrides: { 'auto.leader.rebalance.enable': false },
    startTimeoutMs: 300_000,
  });
}

/** Creates `rv` and writes its records once the brokers are unfenced. */
export async function prepareRvTopic(cluster: Cluster): Promise<void> {
  await waitForUnfenced(cluster);
  const port = cluster.brokers[0]!.port;
  assert.equal(
    await createReplicatedTopic(port, RV_TOPIC, { replicationFactor: 3, assignments: ASSIGNMENTS }),
    0,
    'create rv',
  );
  for (let p = 0; p < ASSIGNMENTS.length; p++) {
    await waitFor(
      async () => {
        const i = await partitionInfo(port, RV_TOPIC, p);
        return i !== null && i.leader === ASSIGNMENTS[p]![0] && i.isr.length === 3;
      },
      { what: `${RV_TOPIC}-${p} led by ${ASSIGNMENTS[p]![0]} with a full ISR`, timeoutMs: 60_000, intervalMs: 200 },
    );
  }
  for (let p = 0; p < ASSIGNMENTS.length; p++) {
    const leaderPort = cluster.node(ASSIGNMENTS[p]![0]!).port;
    for (let b = 0; b < BATCHES[p]!; b++)
      await produceRawAppended(leaderPort, RV_TOPIC, [`p${p}-b${b}-r0`, `p${p}-b${b}-r1`], { acks: -1, partition: p });
  }
}

/** The tool's stdout lines with the leading date masked. */
export function maskDates(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}: /, '<date>: '));
}

/**
 * Makes broker 4's copy of rv-0 differ from the others with the same offsets: with the broker stopped,
 * one record value of the first batch (offsets 0-1) is changed in its segment and the batch's CRC
 * written again (a valid batch with other data), then the broker is started and waited back into the
 * ISR. The tools then report an unmatched checksum at offset 1 between replica 2 and replica 4.
 */
export async function divergeFollowerCopy(cluster: Cluster): Promise<void> {
  const node = cluster.node(4);
  await node.stop();
  const file = join(partitionDir(node, RV_TOPIC, 0), '00000000000000000000.log');
  const bytes = readFileSync(file);
  const at = bytes.indexOf('p0-b0-r1');
  assert.ok(at > 0 && at < bytes.readInt32BE(8) + 12, 'the first batch holds p0-b0-r1');
  bytes.write('p0-b0-x1', at);
  writeBatchCrc(bytes, 0);
  writeFileSync(file, bytes);
  await node.start();
  await waitForUnfenced(cluster);
  await waitFor(
    async () => {
      const i = await partitionInfo(cluster.brokers[0]!.port, RV_TOPIC, 0);
      return i !== null && i.isr.includes(4);
    },
    { what: `broker 4 back in the ISR of ${RV_TOPIC}-0`, timeoutMs: 60_000, intervalMs: 200 },
  );
}

/** The line (after the date) for the copy divergeFollowerCopy made, with the two checksums. */
export const RV_UNMATCHED =
  /^partition rv-0 has unmatched checksum at offset 1; replica 2's checksum \d+; replica 4's checksum \d+$/;
