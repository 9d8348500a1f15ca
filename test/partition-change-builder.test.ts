// Kafka's PartitionChangeBuilderTest (metadata/src/test/java/org/apache/kafka/controller), ported
// case by case for the PartitionChangeBuilder of src/broker/controller/partition-change-builder.ts:
// leader election (preferred / online / unclean), when the leader epoch is bumped, reassignment
// completion, unclean elections setting RECOVERING, and the ELR / last-known-leader rules of KIP-966.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  changeRecordIsNoOp,
  Election,
  javaHashSetOrder,
  LeaderRecoveryState,
  NO_LEADER,
  NO_LEADER_CHANGE,
  PartitionChangeBuilder,
} from '../src/broker/controller/partition-change-builder.js';
import { mergePartitionChange } from '../src/broker/metadata/delta.js';
import type { PartitionImage } from '../src/broker/metadata/image.js';
import { defaultPartitionChangeRecord, type PartitionChangeRecord } from '../src/protocol/generated/metadata/index.js';

const UNASSIGNED = 'AAAAAAAAAAAAAAAAAAAAAQ';
const MIGRATING = 'AAAAAAAAAAAAAAAAAAAAAA';
const FOO_ID = 'FbrrdcfiR-KC2CPSTHaJrg';
const BAR_ID = 'LKfUsCBnQKekvL9O5dY9nw';
const BAZ_ID = 'wQzt5gkSTwuQNXZF5gIw7A';
const DEFAULT_DIR = (id: number): string => `dir-of-broker-${id}`;

/** metadataVersionForPartitionChangeRecordVersion: 3.7-IV0, 3.7-IV2, 4.0-IV1. */
const MV_FOR_VERSION = [15, 17, 23] as const;
const VERSIONS = [0, 1, 2] as const;

function partition(
  p: Partial<PartitionImage> & Pick<PartitionImage, 'replicas' | 'isr' | 'leader'>,
  topicId = FOO_ID,
): PartitionImage {
  return {
    topicId,
    partitionId: 0,
    removingReplicas: [],
    addingReplicas: [],
    leaderRecoveryState: LeaderRecoveryState.RECOVERED,
    leaderEpoch: 100,
    partitionEpoch: 200,
    directories: p.replicas.map(() => MIGRATING),
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
    ...p,
  };
}

const FOO = partition({
  replicas: [2, 1, 3],
  directories: ['dpdvA5AZSWySmnPFTnu5Kw', 'V60B3cglScq3Xk8BX1NxAQ', UNASSIGNED],
  isr: [2, 1, 3],
  leader: 1,
});
const BAR = partition(
  {
    replicas: [1, 2, 3, 4],
    directories: [UNASSIGNED, 'X5FnAcIgTheWgTMzeO5WHw', 'GtrcdoSOTm2vFMGFeZq0eg', 'YcOqPw5ARmeKr1y9W3AkFw'],
    isr: [1, 2, 3],
    removingReplicas: [1],
    addingReplicas: [4],
    leader: 1,
  },
  BAR_ID,
);
const BAZ = partition(
  {
    replicas: [2, 1, 3],
    directories: ['ywnfFpTBTbOsFdZ6uAdOmw', 'Th0x70ecRbWvZNNV33jyRA', 'j216tuSoQsC9JFd1Z5ZP6w'],
    isr: [1, 3],
    leader: 3,
  },
  BAZ_ID,
);
const OFFLINE_WITHOUT_ELR = partition(
  {
    replicas: [2, 1, 3],
    directories: ['iYGgiDV5Sb2EtH6hbgYnCA', 'XI2t4qAUSkGlLZSKeEVf8g', 'eqRW24kIRlitzQFzmovE0Q'],
    isr: [3],
    leader: -1,
  },
  BAR_ID,
);
const OFFLINE_WITH_ELR = partition(
  {
    replicas: [2, 1, 3],
    directories: ['CQEqt7trRrmqyNxUT1CY0g', '59Mb9smoSsC0bGUP2FYV8A', 'LBTmsCVJREqJuIEtwqxRDg'],
    eligibleLeaderReplicas: [3],
    isr: [],
    lastKnownElr: [2],
    leader: -1,
  },
  BAR_ID,
);

const builder = (p: PartitionImage, accept: (r: number) => boolean, mv: number, minIsr: number, elr: boolean) =>
  new PartitionChangeBuilder(p, accept, mv, minIsr, elr).setDefaultDirProvider(DEFAULT_DIR);
const fooBuilder = (mv: number) => builder(FOO, (r) => r !== 3, mv, 2, mv >= 23);
const fooV = (v: number) => fooBuilder(MV_FOR_VERSION[v]!);
const barV = (v: number) => builder(BAR, (r) => r !== 3, MV_FOR_VERSION[v]!, 2, v >= 2);
const bazV = (v: number) => builder(BAZ, () => true, MV_FOR_VERSION[v]!, 2, v >= 2);
const offlineV = (v: number) =>
  v >= 2
    ? builder(OFFLINE_WITH_ELR, (r) => r === 1, MV_FOR_VERSION[v]!, 2, true)
    : builder(OFFLINE_WITHOUT_ELR, (r) => r === 1, MV_FOR_VERSION[v]!, 2, false);

function change(topicId: string, fields: Partial<PartitionChangeRecord>): PartitionChangeRecord {
  return { ...defaultPartitionChangeRecord(), topicId, partitionId: 0, ...fields };
}

/** The leader a build() elects (NO_LEADER_CHANGE when it keeps the current one). */
const electedLeader = (b: PartitionChangeBuilder): number => b.build()?.leader ?? NO_LEADER_CHANGE;

test('changeRecordIsNoOp: any set field is a change', () => {
  assert.equal(changeRecordIsNoOp(defaultPartitionChangeRecord()), true);
  assert.equal(changeRecordIsNoOp({ ...defaultPartitionChangeRecord(), isr: [1, 2] }), false);
  assert.equal(changeRecordIsNoOp({ ...defaultPartitionChangeRecord(), leader: -1 }), false);
  assert.equal(changeRecordIsNoOp({ ...defaultPartitionChangeRecord(), leaderRecoveryState: 1 }), false);
  assert.equal(changeRecordIsNoOp({ ...defaultPartitionChangeRecord(), eligibleLeaderReplicas: [] }), false);
  assert.equal(changeRecordIsNoOp({ ...defaultPartitionChangeRecord(), lastKnownElr: [] }), false);
  assert.equal(changeRecordIsNoOp({ ...defaultPartitionChangeRecord(), directories: [UNASSIGNED] }), false);
});

test('testElectLeader: preferred, online and unclean elections', () => {
  for (const v of VERSIONS) {
    assert.equal(electedLeader(fooV(v).setElection(Election.PREFERRED)), 2);
    assert.equal(electedLeader(fooV(v)), NO_LEADER_CHANGE); // keeps 1
    assert.equal(electedLeader(fooV(v).setElection(Election.UNCLEAN)), NO_LEADER_CHANGE);
    assert.equal(fooV(v).setTargetIsr([1, 3]).build()?.leader, NO_LEADER_CHANGE);
    assert.equal(electedLeader(fooV(v).setTargetIsr([3])), NO_LEADER);
    const unclean = fooV(v).setElection(Election.UNCLEAN).setTargetIsr([3]).build();
    assert.equal(unclean?.leader, 2);
    assert.deepEqual(unclean?.isr, [2]);
    assert.equal(
      electedLeader(fooV(v).setElection(Election.UNCLEAN).setTargetIsr([4]).setTargetReplicas([2, 1, 3, 4])),
      4,
    );
    assert.equal(bazV(v).setElection(Election.PREFERRED).build(), null); // 3 stays: 2 is not in the ISR
    assert.equal(bazV(v).build(), null);
    assert.equal(bazV(v).setElection(Election.UNCLEAN).build(), null);
  }
});

test('leader epoch: no bump on ISR shrink from 3.6-IV0, a bump before; none on expansion; one on a disjoint replica set', () => {
  for (const mv of [12, 17, 22]) {
    assert.deepEqual(fooBuilder(mv).setTargetIsr([2, 1]).build()?.leader, NO_LEADER_CHANGE);
  }
  for (const mv of [8, 11]) {
    assert.deepEqual(fooBuilder(mv).setTargetIsr([2, 1]).build(), change(FOO_ID, { isr: [2, 1], leader: 1 }));
  }
  for (const mv of [8, 11, 12, 17, 22]) {
    assert.equal(fooBuilder(mv).setTargetIsr([2, 1, 3, 4]).build()?.leader, NO_LEADER_CHANGE);
    assert.equal(fooBuilder(mv).setTargetReplicas([2, 1, 4]).build()?.leader, 1);
  }
  // KAFKA-16624: an empty target ISR is not written without ELR (the replica stays in the ISR, no
  // ISR-shrink bump): the election finds no leader in it, so only the leader changes
  for (const mv of [8, 11, 12, 17]) {
    const single = partition({ replicas: [2], directories: ['dpdvA5AZSWySmnPFTnu5Kw'], isr: [2], leader: 2 });
    const r = builder(single, () => true, mv, 2, false)
      .setTargetIsr([])
      .build();
    assert.deepEqual(r, change(FOO_ID, { leader: NO_LEADER }));
  }
});

test('testNoChange / testIsrChangeDoesntBumpLeaderEpoch / testIsrChangeAndLeaderChange', () => {
  for (const v of VERSIONS) {
    assert.equal(fooV(v).build(), null);
    assert.equal(fooV(v).setElection(Election.UNCLEAN).build(), null);
    assert.equal(barV(v).build(), null);
    assert.equal(barV(v).setElection(Election.UNCLEAN).build(), null);
    assert.equal(bazV(v).setElection(Election.PREFERRED).build(), null);
    assert.deepEqual(fooV(v).setTargetIsr([2, 1]).build(), change(FOO_ID, { isr: [2, 1] }));
    assert.deepEqual(fooV(v).setTargetIsr([2, 3]).build(), change(FOO_ID, { isr: [2, 3], leader: 2 }));
  }
});

test('reassignments: rearranging, completion by ISR enlargement, revert, removing and adding replicas', () => {
  const fooDirs = new Map(FOO.replicas.map((r, i) => [r, FOO.directories[i]!]));
  const barDirs = new Map(BAR.replicas.map((r, i) => [r, BAR.directories[i]!]));
  for (const v of VERSIONS) {
    const dirs = (m: Map<number, string>, ids: number[]) => (v >= 1 ? { directories: ids.map((i) => m.get(i)!) } : {});
    assert.deepEqual(
      fooV(v).setTargetReplicas([3, 2, 1]).build(),
      change(FOO_ID, { replicas: [3, 2, 1], ...dirs(fooDirs, [3, 2, 1]) }),
    );
    assert.deepEqual(
      barV(v).setTargetIsr([1, 2, 3, 4]).build(),
      change(BAR_ID, {
        replicas: [2, 3, 4],
        isr: [2, 3, 4],
        leader: 2,
        removingReplicas: [],
        addingReplicas: [],
        ...dirs(barDirs, [2, 3, 4]),
      }),
    );
    assert.deepEqual(
      barV(v).setTargetReplicas([1, 2, 3]).setTargetIsr([1, 2, 3]).setTargetRemoving([]).setTargetAdding([]).build(),
      change(BAR_ID, {
        replicas: [1, 2, 3],
        leader: 1,
        removingReplicas: [],
        addingReplicas: [],
        ...dirs(barDirs, [1, 2, 3]),
      }),
    );
    assert.deepEqual(
      fooV(v).setTargetReplicas([1, 2, 3]).setTargetRemoving([3]).build(),
      change(FOO_ID, { replicas: [1, 2], isr: [2, 1], leader: 1, ...dirs(fooDirs, [1, 2]) }),
    );
    assert.deepEqual(
      fooV(v).setTargetReplicas([1, 2, 3, 4]).setTargetAdding([4]).build(),
      change(FOO_ID, {
        replicas: [1, 2, 3, 4],
        addingReplicas: [4],
        ...(v >= 1 ? { directories: [fooDirs.get(1)!, fooDirs.get(2)!, fooDirs.get(3)!, DEFAULT_DIR(4)] } : {}),
      }),
    );
  }
});

test('testUncleanLeaderElection: ISR of the new leader alone, RECOVERING; ELR and last known leader cleared', () => {
  for (const v of VERSIONS) {
    assert.deepEqual(
      fooV(v).setElection(Election.UNCLEAN).setTargetIsr([3]).build(),
      change(FOO_ID, { isr: [2], leader: 2, leaderRecoveryState: LeaderRecoveryState.RECOVERING }),
    );
    const expected = change(BAR_ID, {
      isr: [1],
      leader: 1,
      leaderRecoveryState: LeaderRecoveryState.RECOVERING,
      ...(v >= 2 ? { eligibleLeaderReplicas: [], lastKnownElr: [] } : {}),
    });
    assert.deepEqual(offlineV(v).setElection(Election.UNCLEAN).build(), expected);
    assert.deepEqual(offlineV(v).setElection(Election.UNCLEAN).setTargetIsr([2]).build(), expected);
  }
});

test('a RECOVERING leader stays RECOVERING when leadership changes; the leader sets RECOVERED through the target', () => {
  const recovering = { ...FOO, leaderRecoveryState: LeaderRecoveryState.RECOVERING, isr: [1] };
  const b = builder(recovering, (r) => r !== 1, 23, 2, false)
    .setElection(Election.UNCLEAN)
    .setTargetIsr([]);
  // ISR [] cannot be written without ELR: the unclean election elects 2 alone and keeps RECOVERING
  assert.deepEqual(b.build(), change(FOO_ID, { leader: 2, isr: [2] }));
  const recovered = builder(recovering, () => true, 23, 2, false)
    .setTargetIsr([1])
    .setTargetLeaderRecoveryState(LeaderRecoveryState.RECOVERED)
    .build();
  assert.deepEqual(recovered, change(FOO_ID, { leaderRecoveryState: LeaderRecoveryState.RECOVERED }));
});

const FOUR = (p: Partial<PartitionImage>): PartitionImage =>
  partition({ replicas: [1, 2, 3, 4], isr: [1, 2, 3, 4], leader: 1, ...p });

test('ELR: an ISR shrinking below min ISR moves the members that left into the ELR', () => {
  for (const v of VERSIONS) {
    const p = FOUR({});
    const b = builder(p, (r) => r !== 3, MV_FOR_VERSION[v]!, 3, v >= 2)
      .setElection(Election.PREFERRED)
      .setUseLastKnownLeaderInBalancedRecovery(false)
      .setTargetIsr([1, 2]);
    const r = b.build()!;
    assert.deepEqual(r, change(FOO_ID, { isr: [1, 2], ...(v >= 2 ? { eligibleLeaderReplicas: [3, 4] } : {}) }));
    const merged = mergePartitionChange(p, r);
    assert.deepEqual(merged.eligibleLeaderReplicas, v >= 2 ? [3, 4] : []);
    assert.deepEqual(merged.lastKnownElr, []);
  }
});

test('ELR: an ISR back at min ISR clears ELR and last known ELR', () => {
  for (const v of VERSIONS) {
    const p = FOUR({ isr: [1, 2], eligibleLeaderReplicas: [3], lastKnownElr: [4] });
    const r = builder(p, (x) => x !== 3, MV_FOR_VERSION[v]!, 3, v >= 2)
      .setElection(Election.PREFERRED)
      .setUseLastKnownLeaderInBalancedRecovery(false)
      .setTargetIsr([1, 2, 3])
      .build();
    assert.deepEqual(r, change(FOO_ID, { isr: [1, 2, 3], eligibleLeaderReplicas: [], lastKnownElr: [] }));
  }
});

test('ELR: a new ISR member not in the ELR leaves ELR and last known ELR as they are', () => {
  for (const v of VERSIONS) {
    const p = FOUR({ isr: [1], eligibleLeaderReplicas: [3], lastKnownElr: [2] });
    const r = builder(p, (x) => x !== 3, MV_FOR_VERSION[v]!, 3, v >= 2)
      .setElection(Election.PREFERRED)
      .setUseLastKnownLeaderInBalancedRecovery(false)
      .setTargetIsr([1, 4])
      .build()!;
    assert.deepEqual(
      r,
      change(FOO_ID, { isr: [1, 4], ...(v < 2 ? { eligibleLeaderReplicas: [], lastKnownElr: [] } : {}) }),
    );
    const merged = mergePartitionChange(p, r);
    assert.deepEqual(merged.eligibleLeaderReplicas, v >= 2 ? [3] : []);
    assert.deepEqual(merged.lastKnownElr, v >= 2 ? [2] : []);
  }
});

test('ELR: a replica that shut down uncleanly leaves the ELR for the last known ELR', () => {
  for (const v of VERSIONS) {
    const p = FOUR({ isr: [1], eligibleLeaderReplicas: [2, 3] });
    const r = builder(p, (x) => x !== 3, MV_FOR_VERSION[v]!, 3, v >= 2)
      .setElection(Election.PREFERRED)
      .setUseLastKnownLeaderInBalancedRecovery(false)
      .setUncleanShutdownReplicas([3])
      .build();
    assert.deepEqual(
      r,
      change(FOO_ID, v >= 2 ? { eligibleLeaderReplicas: [2], lastKnownElr: [3] } : { eligibleLeaderReplicas: [] }),
    );
  }
});

test('ELR: an ELR member is elected when the ISR is empty', () => {
  for (const lastKnownLeaderEnabled of [true, false]) {
    const p = FOUR({ isr: [1], eligibleLeaderReplicas: [3], lastKnownElr: lastKnownLeaderEnabled ? [] : [2] });
    const b = builder(p, (x) => x !== 1, 23, 3, true)
      .setElection(Election.PREFERRED)
      .setUseLastKnownLeaderInBalancedRecovery(lastKnownLeaderEnabled)
      .setTargetIsr([]);
    const r = b.build()!;
    assert.deepEqual(r, change(FOO_ID, { isr: [3], eligibleLeaderReplicas: [1], leader: 3 }));
    const merged = mergePartitionChange(p, r);
    assert.deepEqual(merged.eligibleLeaderReplicas, [1]);
    assert.deepEqual(merged.lastKnownElr, lastKnownLeaderEnabled ? [] : [2]);
    assert.deepEqual(merged.isr, [3]);
  }
});

test('ELR: the ISR can shrink to nothing; the last known leader is remembered and then kept', () => {
  for (const lastKnownLeaderEnabled of [true, false]) {
    const p = FOUR({});
    const r = builder(p, () => false, 23, 3, true)
      .setElection(Election.PREFERRED)
      .setUseLastKnownLeaderInBalancedRecovery(lastKnownLeaderEnabled)
      .setTargetIsr([])
      .build()!;
    assert.deepEqual(
      r,
      change(FOO_ID, {
        isr: [],
        leader: -1,
        eligibleLeaderReplicas: [1, 2, 3, 4],
        ...(lastKnownLeaderEnabled ? { lastKnownElr: [1] } : {}),
      }),
    );
    const merged = mergePartitionChange(p, r);
    assert.deepEqual(merged.eligibleLeaderReplicas, [1, 2, 3, 4]);
    assert.deepEqual(merged.lastKnownElr, lastKnownLeaderEnabled ? [1] : []);
    assert.deepEqual(merged.isr, []);
    if (lastKnownLeaderEnabled) {
      const next = builder(merged, () => false, 23, 3, true)
        .setElection(Election.PREFERRED)
        .setUncleanShutdownReplicas([2])
        .build()!;
      assert.equal(next.lastKnownElr, null);
    }
  }
});

test('ELR: the last known leader is elected (RECOVERING) when ISR and ELR are empty; not while the ELR is not', () => {
  const p = FOUR({ isr: [], lastKnownElr: [1], leader: -1 });
  const r = builder(p, () => true, 23, 3, true)
    .setElection(Election.PREFERRED)
    .setTargetIsr([])
    .build();
  assert.deepEqual(
    r,
    change(FOO_ID, { isr: [1], leader: 1, leaderRecoveryState: LeaderRecoveryState.RECOVERING, lastKnownElr: [] }),
  );
  const blocked = FOUR({ isr: [], eligibleLeaderReplicas: [3], lastKnownElr: [1], leader: -1 });
  assert.equal(
    builder(blocked, (x) => x !== 3, 23, 3, true)
      .setElection(Election.PREFERRED)
      .setTargetIsr([])
      .build(),
    null,
  );
});

test('javaHashSetOrder: ascending for small ids, by bucket beyond the table size', () => {
  assert.deepEqual(javaHashSetOrder([4, 3], [1, 2]), [1, 2, 3, 4]);
  assert.deepEqual(javaHashSetOrder([17, 1]), [17, 1]); // both in bucket 1: insertion order
  assert.deepEqual(javaHashSetOrder([20, 3]), [3, 20]); // 20 lands in bucket 4
});
