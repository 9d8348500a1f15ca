// Partition reassignment and leader election by request (AlterPartitionReassignments v1,
// ListPartitionReassignments v0, ElectLeaders v2) on a cluster of one controller-only node and three
// broker-only nodes: run on tkafka (test/reassignment-cluster.test.ts) and, the same requests with
// the same expected answers, on Apache Kafka 4.4.0 (test/interop/reassignment.test.ts). The requests
// go to broker listeners (forwarded to the controller) and, some, to the controller's listener.
//
// 1. `move` (RF 1 on broker 2, 100 records) is moved to [3, 4] in a request that also carries an
//    unknown partition, an unknown topic and an unregistered broker; it completes on its own, broker
//    2's replica is deleted, 3 and 4 hold the records byte for byte.
// 2. Broker 4 stops: `stuck` ([2, 3]) reassigned to [2, 3, 4] stays in progress (listed by both
//    listeners), a cancel reverts it, a second cancel is NO_REASSIGNMENT_IN_PROGRESS,
//    AllowReplicationFactorChange=false refuses the change of size; reassigned again, it completes
//    once broker 4 is back and caught up.
// 3. Elections: PREFERRED of `elect` ([4, 3]) while 4 is down is PREFERRED_LEADER_NOT_AVAILABLE, an
//    UNCLEAN one of the leaderless `solo` ([4]) ELIGIBLE_LEADERS_NOT_AVAILABLE, of a led partition
//    ELECTION_NOT_NEEDED; with 4 back in the ISR the PREFERRED election moves leadership to it; an
//    election of all partitions then finds nothing to do.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Cluster } from './cluster.js';
import { waitForUnfenced } from './cluster.js';
import {
  createReplicatedTopic,
  logRecords,
  partitionDir,
  produceAll,
  waitIdentical,
  waitPartition,
} from './replication.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { AlterPartitionReassignmentsResponse } from '../../src/protocol/generated/protocol/AlterPartitionReassignments.js';
import type { ListPartitionReassignmentsResponse } from '../../src/protocol/generated/protocol/ListPartitionReassignments.js';
import type { ElectLeadersResponse } from '../../src/protocol/generated/protocol/ElectLeaders.js';

export const BROKERS = [2, 3, 4];
export const COUNT = 100;

/** A killed or stopped broker is fenced within 6 s; no automatic preferred elections. */
export const REASSIGNMENT_CONTROLLER_OVERRIDES = {
  'broker.session.timeout.ms': 6000,
  'auto.leader.rebalance.enable': false,
};
export const REASSIGNMENT_BROKER_OVERRIDES = { 'broker.heartbeat.interval.ms': 500, 'replica.fetch.backoff.ms': 200 };

/** Controller 1, brokers 2-4. */
export const reassignmentNodes = () => [
  { id: 1, roles: 'controller' as const },
  ...BROKERS.map((id) => ({ id, roles: 'broker' as const })),
];

async function exchange<T>(port: number, fn: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

type Reassignment = { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] };

export async function alterReassignments(
  port: number,
  topics: Reassignment[],
  allowReplicationFactorChange = true,
): Promise<Omit<AlterPartitionReassignmentsResponse, 'throttleTimeMs'>> {
  const r = await exchange(port, (c) =>
    c.request(ApiKey.AlterPartitionReassignments, 1, { timeoutMs: 30_000, allowReplicationFactorChange, topics }),
  );
  const { throttleTimeMs: _, ...rest } = r;
  return rest;
}

export async function listReassignments(
  port: number,
  topics: { name: string; partitionIndexes: number[] }[] | null = null,
): Promise<Omit<ListPartitionReassignmentsResponse, 'throttleTimeMs'>> {
  const r = await exchange(port, (c) => c.request(ApiKey.ListPartitionReassignments, 0, { timeoutMs: 30_000, topics }));
  const { throttleTimeMs: _, ...rest } = r;
  return rest;
}

/** ElectLeaders v2; topics sorted by name (Kafka lists all partitions in its hash order). */
export async function electLeaders(
  port: number,
  electionType: number,
  topicPartitions: { topic: string; partitions: number[] }[] | null,
): Promise<Omit<ElectLeadersResponse, 'throttleTimeMs'>> {
  const r = await exchange(port, (c) =>
    c.request(ApiKey.ElectLeaders, 2, { electionType, topicPartitions, timeoutMs: 30_000 }),
  );
  const { throttleTimeMs: _, ...rest } = r;
  return {
    ...rest,
    replicaElectionResults: [...rest.replicaElectionResults].sort((a, b) => (a.topic < b.topic ? -1 : 1)),
  };
}

const NONE_LISTED = { errorCode: 0, errorMessage: null, topics: [] };
const ok = (partitionIndex: number) => ({ partitionIndex, errorCode: 0, errorMessage: null });

/** Creates `move` [2], `stuck` [2, 3], `elect` [4, 3] and `solo` [4]; COUNT records in `move` and `stuck`. */
export async function prepareTopics(cluster: Cluster): Promise<void> {
  const port = cluster.node(2).port;
  for (const [name, assignment] of [
    ['move', [2]],
    ['stuck', [2, 3]],
    ['elect', [4, 3]],
    ['solo', [4]],
  ] as const) {
    assert.equal(
      await createReplicatedTopic(port, name, { replicationFactor: -1, assignment: [...assignment] }),
      ErrorCode.NONE,
    );
    await waitPartition(
      cluster,
      name,
      `led by ${assignment[0]}, ISR of ${assignment.length}`,
      (p) => p.leader === assignment[0] && p.isr.length === assignment.length,
      120_000,
    );
  }
  for (const topic of ['move', 'stuck']) {
    const values = Array.from({ length: COUNT }, (_, i) => `${topic}-${i}-${'x'.repeat(100)}`);
    assert.equal((await produceAll(cluster, topic, values, -1)).size, COUNT);
  }
}

/** Step 1: `move` from broker 2 to brokers 3 and 4, next to three refused partitions. A summary line. */
export async function moveTopic(cluster: Cluster): Promise<string> {
  const port = cluster.node(3).port;
  assert.deepEqual(await listReassignments(port), NONE_LISTED);
  const started = Date.now();
  const r = await alterReassignments(port, [
    {
      name: 'move',
      partitions: [
        { partitionIndex: 0, replicas: [3, 4] },
        { partitionIndex: 1, replicas: [3, 4] },
      ],
    },
    { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [3] }] },
    { name: 'stuck', partitions: [{ partitionIndex: 0, replicas: [3, 9] }] },
  ]);
  assert.deepEqual(r, {
    allowReplicationFactorChange: true,
    errorCode: 0,
    errorMessage: null,
    responses: [
      {
        name: 'move',
        partitions: [
          ok(0),
          {
            partitionIndex: 1,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: 'Unable to find partition move:1.',
          },
        ],
      },
      {
        name: 'nope',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: 'Unable to find a topic named nope.',
          },
        ],
      },
      {
        name: 'stuck',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            errorMessage: 'The manual partition assignment includes broker 9, but no such broker is registered.',
          },
        ],
      },
    ],
  });
  // the first replica of the target leads once the reassignment completes (2 leaves the ISR)
  const p = await waitPartition(
    cluster,
    'move',
    'replicas [3, 4], ISR [3, 4], led by 3',
    (x) => x.leader === 3 && x.replicas.join() === '3,4' && [...x.isr].sort().join() === '3,4',
  );
  const completedMs = Date.now() - started;
  await waitFor(async () => (await listReassignments(port)).topics.length === 0, {
    what: 'no reassignment listed',
    intervalMs: 200,
  });
  const bytes = await waitIdentical('move', [cluster.node(3), cluster.node(4)], COUNT);
  const records = logRecords(bytes);
  assert.equal(records.size, COUNT);
  for (let i = 0; i < COUNT; i++) assert.equal(records.get(i), `move-${i}-${'x'.repeat(100)}`, `offset ${i}`);
  await waitFor(() => !existsSync(partitionDir(cluster.node(2), 'move')), {
    what: "broker 2's replica of move-0 deleted",
    intervalMs: 200,
  });
  return `move-0: [2] → [3, 4] completed in ${completedMs} ms (leader epoch ${p.leaderEpoch}); ${COUNT} records on 3 and 4, broker 2's replica deleted`;
}

/** Step 2 while broker 4 is stopped: list, cancel, the RF check, a pending reassignment. */
export async function stuckWhileDown(cluster: Cluster): Promise<void> {
  const port = cluster.node(2).port;
  const controllerPort = cluster.node(1).controllerPort;
  await cluster.node(4).stop();
  await waitPartition(cluster, 'elect', 'led by 3 without broker 4', (x) => x.leader === 3 && !x.isr.includes(4));
  const toFour: Reassignment[] = [{ name: 'stuck', partitions: [{ partitionIndex: 0, replicas: [2, 3, 4] }] }];
  assert.deepEqual((await alterReassignments(port, toFour)).responses, [{ name: 'stuck', partitions: [ok(0)] }]);
  const listed = {
    ...NONE_LISTED,
    topics: [
      {
        name: 'stuck',
        partitions: [{ partitionIndex: 0, replicas: [2, 3, 4], addingReplicas: [4], removingReplicas: [] }],
      },
    ],
  };
  assert.deepEqual(await listReassignments(port), listed);
  assert.deepEqual(await listReassignments(controllerPort), listed, 'the controller listener');
  assert.deepEqual(await listReassignments(port, [{ name: 'stuck', partitionIndexes: [0, 1] }]), listed);
  assert.deepEqual(
    await listReassignments(port, [
      { name: 'move', partitionIndexes: [0] },
      { name: 'nope', partitionIndexes: [0] },
    ]),
    NONE_LISTED,
  );
  const cancel: Reassignment[] = [{ name: 'stuck', partitions: [{ partitionIndex: 0, replicas: null }] }];
  assert.deepEqual((await alterReassignments(port, cancel)).responses, [{ name: 'stuck', partitions: [ok(0)] }]);
  assert.deepEqual(await listReassignments(port), NONE_LISTED);
  await waitPartition(cluster, 'stuck', 'replicas [2, 3] again', (x) => x.replicas.join() === '2,3');
  assert.deepEqual((await alterReassignments(controllerPort, cancel)).responses, [
    {
      name: 'stuck',
      partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: null }],
    },
  ]);
  const rf = await alterReassignments(port, toFour, false);
  assert.deepEqual(rf, {
    allowReplicationFactorChange: false,
    errorCode: 0,
    errorMessage: null,
    responses: [
      {
        name: 'stuck',
        partitions: [
          {
            partitionIndex: 0,
            errorCode: ErrorCode.INVALID_REPLICATION_FACTOR,
            errorMessage: 'The replication factor is changed from 2 to 3',
          },
        ],
      },
    ],
  });
  assert.deepEqual((await alterReassignments(port, toFour)).responses, [{ name: 'stuck', partitions: [ok(0)] }]);
  assert.deepEqual(await listReassignments(port), listed);
}

/** Step 3 (broker 4 still down, then back): elections; `stuck` completes. A summary line. */
export async function electionsAndReturn(cluster: Cluster): Promise<string> {
  const port = cluster.node(3).port;
  const controllerPort = cluster.node(1).controllerPort;
  const notAvailable = await electLeaders(port, 0, [
    { topic: 'elect', partitions: [0] },
    { topic: 'nope', partitions: [0] },
  ]);
  assert.deepEqual(notAvailable, {
    errorCode: 0,
    replicaElectionResults: [
      {
        topic: 'elect',
        partitionResult: [
          {
            partitionId: 0,
            errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
            errorMessage: 'The preferred leader was not available.',
          },
        ],
      },
      {
        topic: 'nope',
        partitionResult: [
          { partitionId: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'No such topic as nope' },
        ],
      },
    ],
  });
  await waitPartition(cluster, 'solo', 'leaderless', (x) => x.leader === -1);
  assert.deepEqual(
    await electLeaders(controllerPort, 1, [
      { topic: 'solo', partitions: [0, 5] },
      { topic: 'stuck', partitions: [0] },
    ]),
    {
      errorCode: 0,
      replicaElectionResults: [
        {
          topic: 'solo',
          partitionResult: [
            {
              partitionId: 0,
              errorCode: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
              errorMessage: 'Eligible topic partition leaders are not available.',
            },
            {
              partitionId: 5,
              errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              errorMessage: 'No such partition as solo-5',
            },
          ],
        },
        {
          topic: 'stuck',
          partitionResult: [
            {
              partitionId: 0,
              errorCode: ErrorCode.ELECTION_NOT_NEEDED,
              errorMessage: 'Leader election not needed for topic partition.',
            },
          ],
        },
      ],
    },
  );
  const back = Date.now();
  await cluster.node(4).start();
  await waitForUnfenced(cluster, { ids: BROKERS, timeoutMs: 120_000 });
  const stuck = await waitPartition(
    cluster,
    'stuck',
    'replicas [2, 3, 4] all in sync',
    (x) => x.replicas.join() === '2,3,4' && x.isr.length === 3,
    120_000,
  );
  const completedMs = Date.now() - back;
  await waitFor(async () => (await listReassignments(port)).topics.length === 0, {
    what: 'no reassignment listed',
    intervalMs: 200,
  });
  await waitIdentical(
    'stuck',
    BROKERS.map((id) => cluster.node(id)),
    COUNT,
  );
  await waitPartition(
    cluster,
    'elect',
    'broker 4 back in the ISR',
    (x) => x.isr.length === 2 && x.leader === 3,
    120_000,
  );
  await waitPartition(cluster, 'solo', 'led by 4 again', (x) => x.leader === 4, 120_000);
  assert.deepEqual(await electLeaders(port, 0, [{ topic: 'elect', partitions: [0] }]), {
    errorCode: 0,
    replicaElectionResults: [
      { topic: 'elect', partitionResult: [{ partitionId: 0, errorCode: 0, errorMessage: null }] },
    ],
  });
  const elected = await waitPartition(cluster, 'elect', 'led by its preferred replica 4', (x) => x.leader === 4);
  assert.deepEqual(await electLeaders(port, 0, null), {
    errorCode: 0,
    replicaElectionResults: ['elect', 'move', 'solo', 'stuck'].map((topic) => ({ topic, partitionResult: [] })),
  });
  return `stuck-0 completed ${completedMs} ms after broker 4 was started (leader ${stuck.leader}); elect-0 led by 4 at epoch ${elected.leaderEpoch}`;
}
