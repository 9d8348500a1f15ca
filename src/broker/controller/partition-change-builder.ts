// Kafka 4.4's org.apache.kafka.controller.PartitionChangeBuilder (and PartitionReassignmentReplicas'
// completion rule): from a partition's registration and the targets a caller sets (ISR, replicas,
// adding/removing, leader recovery state, unclean-shutdown replicas), computes the one
// PartitionChangeRecord Kafka would write — or none when nothing changes. Leader election is
// PREFERRED (the first replica, else the current leader, else any other valid replica), ONLINE (the
// current leader if still valid, else the first valid replica) or UNCLEAN (ONLINE, then any
// acceptable replica: the ISR becomes that one replica and the leader is RECOVERING). With
// eligible.leader.replicas.version >= 1 (KIP-966) the builder keeps the ELR (ISR members that left
// while the ISR was below min.insync.replicas) and the last known leader, and elects from them.
// A PartitionChangeRecord bumps the partition epoch; a Leader field also bumps the leader epoch,
// which Kafka sets to the current leader to force a bump on a replica-set change (and, before
// 3.6-IV0, on an ISR shrink).

import { defaultPartitionChangeRecord, type PartitionChangeRecord } from '../../protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { MetadataVersion, mv } from '../metadata/features.js';
import type { PartitionImage } from '../metadata/image.js';

/** PartitionChangeRecord's Leader when the leader does not change. */
export const NO_LEADER_CHANGE = -2;
export const NO_LEADER = -1;

export const LeaderRecoveryState = { RECOVERED: 0, RECOVERING: 1 } as const;

export const Election = { PREFERRED: 'PREFERRED', ONLINE: 'ONLINE', UNCLEAN: 'UNCLEAN' } as const;
export type Election = (typeof Election)[keyof typeof Election];

/** MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink: below 3.6-IV0 an ISR shrink bumps the leader epoch. */
export function isLeaderEpochBumpRequiredOnIsrShrink(metadataVersion: number): boolean {
  return metadataVersion < MetadataVersion.IBP_3_6_IV0;
}

/** PartitionChangeBuilder.changeRecordIsNoOp. */
export function changeRecordIsNoOp(r: PartitionChangeRecord): boolean {
  return (
    r.isr === null &&
    r.eligibleLeaderReplicas === null &&
    r.lastKnownElr === null &&
    r.leader === NO_LEADER_CHANGE &&
    r.replicas === null &&
    r.removingReplicas === null &&
    r.addingReplicas === null &&
    r.leaderRecoveryState === -1 &&
    r.directories === null
  );
}

/** The PartitionChangeRecord at the version metadata.version gates (partitionChangeRecordVersion). */
export function partitionChangeMetadataRecord(r: PartitionChangeRecord, metadataVersion: number): MetadataRecord {
  return metadataRecord(RecordType.PartitionChange, mv.partitionChangeRecordVersion(metadataVersion), r);
}

const listEquals = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);
const containsAll = (a: readonly number[], b: readonly number[]): boolean => b.every((x) => a.includes(x));

/**
 * The iteration order of a java.util.HashSet<Integer> built from `initial` then grown by `added`
 * (Kafka's ELR lists come out of one): by bucket (hash ^ hash >>> 16, masked by the table size),
 * then insertion order. Brokers ids below the table size (16 at least) come out ascending.
 */
export function javaHashSetOrder(initial: readonly number[], added: readonly number[] = []): number[] {
  const order: number[] = [];
  for (const v of [...initial, ...added]) if (!order.includes(v)) order.push(v);
  const initialSize = new Set(initial).size;
  let cap = 16;
  while (cap < Math.floor(initialSize / 0.75) + 1) cap *= 2;
  while (order.length > cap * 0.75) cap *= 2;
  const bucket = (v: number): number => (v ^ (v >>> 16)) & (cap - 1);
  return order
    .map((v, i) => ({ v, i }))
    .sort((a, b) => bucket(a.v) - bucket(b.v) || a.i - b.i)
    .map((e) => e.v);
}

/** PartitionReassignmentReplicas.maybeCompleteReassignment: the replicas and ISR once a reassignment is done. */
export function maybeCompleteReassignment(
  removing: readonly number[],
  adding: readonly number[],
  replicas: readonly number[],
  targetIsr: readonly number[],
): { replicas: number[]; isr: number[] } | null {
  if (removing.length === 0 && adding.length === 0) return null;
  let isr = targetIsr.slice();
  let newReplicas = replicas.slice();
  if (removing.length > 0) {
    isr = targetIsr.filter((r) => !removing.includes(r));
    if (isr.length === 0) return null;
    newReplicas = replicas.filter((r) => !removing.includes(r));
    if (newReplicas.length === 0) return null;
  }
  if (!containsAll(isr, adding)) return null;
  if (adding.length < removing.length && !containsAll(isr, newReplicas)) return null;
  return { replicas: newReplicas, isr };
}

interface ElectionResult {
  readonly node: number;
  readonly unclean: boolean;
}

export class PartitionChangeBuilder {
  private targetIsr: number[];
  private targetReplicas: number[];
  private targetRemoving: number[];
  private targetAdding: number[];
  private targetElr: number[];
  private targetLastKnownElr: number[];
  private uncleanShutdownReplicas: number[] | null = null;
  private election: Election = Election.ONLINE;
  private targetLeaderRecoveryState: number;
  private readonly targetDirectories = new Map<number, string>();
  private defaultDir: (brokerId: number) => string = () => {
    throw new Error('DefaultDirProvider is not set');
  };
  private useLastKnownLeaderInBalancedRecovery = true;

  constructor(
    private readonly partition: PartitionImage,
    private readonly isAcceptableLeader: (brokerId: number) => boolean,
    private readonly metadataVersion: number,
    private readonly minIsr: number,
    private readonly eligibleLeaderReplicasEnabled: boolean,
  ) {
    this.targetIsr = partition.isr.slice();
    this.targetReplicas = partition.replicas.slice();
    this.targetRemoving = partition.removingReplicas.slice();
    this.targetAdding = partition.addingReplicas.slice();
    this.targetElr = partition.eligibleLeaderReplicas.slice();
    this.targetLastKnownElr = partition.lastKnownElr.slice();
    this.targetLeaderRecoveryState = partition.leaderRecoveryState;
    partition.replicas.forEach((r, i) => {
      const d = partition.directories[i];
      if (d !== undefined) this.targetDirectories.set(r, d);
    });
  }

  setTargetIsr(isr: readonly number[]): this {
    this.targetIsr = isr.slice();
    return this;
  }

  setTargetReplicas(replicas: readonly number[]): this {
    this.targetReplicas = replicas.slice();
    return this;
  }

  setTargetRemoving(removing: readonly number[]): this {
    this.targetRemoving = removing.slice();
    return this;
  }

  setTargetAdding(adding: readonly number[]): this {
    this.targetAdding = adding.slice();
    return this;
  }

  setUncleanShutdownReplicas(replicas: readonly number[]): this {
    this.uncleanShutdownReplicas = replicas.slice();
    return this;
  }

  setElection(election: Election): this {
    this.election = election;
    return this;
  }

  setTargetLeaderRecoveryState(state: number): this {
    this.targetLeaderRecoveryState = state;
    return this;
  }

  setUseLastKnownLeaderInBalancedRecovery(use: boolean): this {
    this.useLastKnownLeaderInBalancedRecovery = use;
    return this;
  }

  setDirectory(brokerId: number, dir: string): this {
    this.targetDirectories.set(brokerId, dir);
    return this;
  }

  setDefaultDirProvider(provider: (brokerId: number) => string): this {
    this.defaultDir = provider;
    return this;
  }

  /** The ISR the builder is working towards (after build(): as adjusted by ELR / reassignment). */
  get currentTargetIsr(): readonly number[] {
    return this.targetIsr;
  }

  private isValidNewLeader(replica: number): boolean {
    return (
      (this.targetIsr.includes(replica) || (this.targetIsr.length === 0 && this.targetElr.includes(replica))) &&
      this.isAcceptableLeader(replica)
    );
  }

  private canElectLastKnownLeader(): boolean {
    if (!this.eligibleLeaderReplicasEnabled || !this.useLastKnownLeaderInBalancedRecovery) return false;
    if (this.targetElr.length > 0 || this.targetIsr.length > 0) return false;
    const lastKnown = this.partition.lastKnownElr;
    return lastKnown.length === 1 && this.isAcceptableLeader(lastKnown[0]!);
  }

  private electPreferredLeader(): ElectionResult {
    const preferred = this.targetReplicas[0]!;
    if (this.isValidNewLeader(preferred)) return { node: preferred, unclean: false };
    if (this.isValidNewLeader(this.partition.leader)) return { node: this.partition.leader, unclean: false };
    const online = this.targetReplicas.slice(1).find((r) => this.isValidNewLeader(r));
    if (online !== undefined) return { node: online, unclean: false };
    if (this.canElectLastKnownLeader()) return { node: this.partition.lastKnownElr[0]!, unclean: true };
    return { node: NO_LEADER, unclean: false };
  }

  private electAnyLeader(): ElectionResult {
    if (this.isValidNewLeader(this.partition.leader)) return { node: this.partition.leader, unclean: false };
    const online = this.targetReplicas.find((r) => this.isValidNewLeader(r));
    if (online !== undefined) return { node: online, unclean: false };
    if (this.canElectLastKnownLeader()) return { node: this.partition.lastKnownElr[0]!, unclean: true };
    if (this.election === Election.UNCLEAN) {
      const unclean = this.targetReplicas.find((r) => this.isAcceptableLeader(r));
      if (unclean !== undefined) return { node: unclean, unclean: true };
    }
    return { node: NO_LEADER, unclean: false };
  }

  private electLeader(): ElectionResult {
    return this.election === Election.PREFERRED ? this.electPreferredLeader() : this.electAnyLeader();
  }

  private tryElection(record: PartitionChangeRecord): void {
    const result = this.electLeader();
    if (result.node === this.partition.leader) return;
    if (this.targetElr.includes(result.node)) {
      this.targetIsr = [result.node];
      this.targetElr = this.targetElr.filter((r) => r !== result.node);
    }
    record.leader = result.node;
    if (result.unclean) {
      record.isr = [result.node];
      if (this.partition.leaderRecoveryState !== LeaderRecoveryState.RECOVERING)
        record.leaderRecoveryState = LeaderRecoveryState.RECOVERING;
    }
  }

  private triggerLeaderEpochBumpForReplicaReassignmentIfNeeded(record: PartitionChangeRecord): void {
    if (record.leader !== NO_LEADER_CHANGE) return;
    if (!containsAll(this.targetReplicas, this.partition.replicas)) record.leader = this.partition.leader;
  }

  private triggerLeaderEpochBumpForIsrShrinkIfNeeded(record: PartitionChangeRecord): void {
    if (!isLeaderEpochBumpRequiredOnIsrShrink(this.metadataVersion)) return;
    if (record.leader !== NO_LEADER_CHANGE || record.isr === null) return;
    if (!containsAll(record.isr, this.partition.isr)) record.leader = this.partition.leader;
  }

  private completeReassignmentIfNeeded(): void {
    const done = maybeCompleteReassignment(this.targetRemoving, this.targetAdding, this.targetReplicas, this.targetIsr);
    if (!done) return;
    this.targetIsr = done.isr;
    this.targetReplicas = done.replicas;
    this.targetRemoving = [];
    this.targetAdding = [];
  }

  private maybePopulateTargetElr(): void {
    if (!this.eligibleLeaderReplicasEnabled) return;
    if (this.targetIsr.length >= this.minIsr) {
      this.targetElr = [];
      this.targetLastKnownElr = [];
      return;
    }
    const isr = new Set(this.targetIsr);
    const unclean = this.uncleanShutdownReplicas;
    const candidates = javaHashSetOrder(this.targetElr, this.partition.isr);
    this.targetElr = candidates.filter((r) => !isr.has(r) && (unclean === null || !unclean.includes(r)));
    const withLastKnown = javaHashSetOrder(candidates, this.targetLastKnownElr);
    this.targetLastKnownElr = withLastKnown.filter((r) => !isr.has(r) && !this.targetElr.includes(r));
  }

  private maybeUpdateRecordElr(record: PartitionChangeRecord): void {
    const isCleanLeaderElection = record.isr === null;
    if (!isCleanLeaderElection || !this.eligibleLeaderReplicasEnabled) {
      this.targetElr = [];
      this.targetLastKnownElr = [];
    }
    if (!listEquals(this.targetElr, this.partition.eligibleLeaderReplicas))
      record.eligibleLeaderReplicas = this.targetElr.slice();
    if (
      this.useLastKnownLeaderInBalancedRecovery &&
      this.partition.lastKnownElr.length === 1 &&
      (record.leader === NO_LEADER || (record.leader === NO_LEADER_CHANGE && this.partition.leader === NO_LEADER))
    ) {
      this.targetLastKnownElr = this.partition.lastKnownElr.slice();
    }
    if (!this.useLastKnownLeaderInBalancedRecovery) {
      if (!listEquals(this.targetLastKnownElr, this.partition.lastKnownElr))
        record.lastKnownElr = this.targetLastKnownElr.slice();
    }
  }

  private maybeUpdateLastKnownLeader(record: PartitionChangeRecord): void {
    if (!this.useLastKnownLeaderInBalancedRecovery || !this.eligibleLeaderReplicasEnabled) return;
    if (record.leader === NO_LEADER && this.partition.lastKnownElr.length === 0) {
      record.lastKnownElr = [this.partition.leader];
    } else if (record.leader >= 0 && this.partition.lastKnownElr.length > 0) {
      record.lastKnownElr = [];
    }
  }

  private setAssignmentChanges(record: PartitionChangeRecord): void {
    if (this.targetReplicas.length > 0) {
      if (mv.isDirectoryAssignmentSupported(this.metadataVersion)) {
        const dirs = this.targetReplicas.map((r) => this.targetDirectories.get(r) ?? this.defaultDir(r));
        if (!(
          dirs.length === this.partition.directories.length && dirs.every((d, i) => d === this.partition.directories[i])
        ))
          record.directories = dirs;
      }
      if (!listEquals(this.targetReplicas, this.partition.replicas)) record.replicas = this.targetReplicas.slice();
    }
    if (!listEquals(this.targetRemoving, this.partition.removingReplicas))
      record.removingReplicas = this.targetRemoving.slice();
    if (!listEquals(this.targetAdding, this.partition.addingReplicas))
      record.addingReplicas = this.targetAdding.slice();
  }

  /** The PartitionChangeRecord, or null when it would change nothing. */
  build(): PartitionChangeRecord | null {
    const record: PartitionChangeRecord = {
      ...defaultPartitionChangeRecord(),
      topicId: this.partition.topicId,
      partitionId: this.partition.partitionId,
    };
    this.completeReassignmentIfNeeded();
    this.maybePopulateTargetElr();
    this.tryElection(record);
    this.triggerLeaderEpochBumpForReplicaReassignmentIfNeeded(record);
    this.maybeUpdateRecordElr(record);
    if (
      record.isr === null &&
      (this.targetIsr.length > 0 || this.eligibleLeaderReplicasEnabled) &&
      !listEquals(this.targetIsr, this.partition.isr)
    ) {
      record.isr = this.targetIsr.slice();
    }
    this.triggerLeaderEpochBumpForIsrShrinkIfNeeded(record);
    this.maybeUpdateLastKnownLeader(record);
    this.setAssignmentChanges(record);
    if (this.targetLeaderRecoveryState !== this.partition.leaderRecoveryState)
      record.leaderRecoveryState = this.targetLeaderRecoveryState;
    return changeRecordIsNoOp(record) ? null : record;
  }

  /** build() as a metadata record at metadata.version's PartitionChangeRecord version. */
  buildRecord(): MetadataRecord | null {
    const r = this.build();
    return r === null ? null : partitionChangeMetadataRecord(r, this.metadataVersion);
  }
}
