// AlterPartition on the controller (Kafka 4.4's ReplicationControlManager.alterPartition and
// validateAlterPartitionData): a partition leader proposes a new ISR (and leader recovery state);
// the controller checks the broker epoch (STALE_BROKER_EPOCH for the whole request), then per
// partition: UNKNOWN_TOPIC_ID / UNKNOWN_TOPIC_OR_PARTITION, NOT_CONTROLLER for epochs from the
// future (this controller is behind), FENCED_LEADER_EPOCH for a stale leader epoch,
// INVALID_REQUEST from a broker that is not the leader, INVALID_UPDATE_VERSION for a stale
// partition epoch, INVALID_REQUEST for an ISR that is not a subset of the replicas (duplicates,
// negative ids) or leaves out the leader, or that has several members while RECOVERING, or that
// takes RECOVERED back to RECOVERING, INELIGIBLE_REPLICA for a member that is not registered, is
// fenced, in controlled shutdown, or (v3+) at another broker epoch. A valid proposal goes through
// the PartitionChangeBuilder (completing a reassignment, maintaining the ELR, electing uncleanly
// where the topic allows it); NEW_LEADER_ELECTED when that moved leadership away from the sender,
// otherwise the partition as it will be once the record is applied.

import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
} from '../../protocol/generated/protocol/AlterPartition.js';
import type { AlterPartitionResponsePartitionData } from '../../protocol/generated/protocol/AlterPartition.js';
import { ZERO_UUID } from '../../protocol/codec/types.js';
import { mergePartitionChange } from '../metadata/delta.js';
import type { MetadataImage, PartitionImage } from '../metadata/image.js';
import type { MetadataRecord } from '../../protocol/metadata-records.js';
import { checkBrokerEpoch } from './cluster.js';
import { ErrorCode } from './errors.js';
import { partitionChangeBuilder, uncleanLeaderElectionEnabled, type TopicConfigDefaults } from './leader-and-isr.js';
import { Election, LeaderRecoveryState, partitionChangeMetadataRecord } from './partition-change-builder.js';

export interface BrokerState {
  readonly brokerId: number;
  /** -1 when the request (v2) carries none. */
  readonly brokerEpoch: bigint;
}

/** Replicas.validateIsr: a duplicate-free subset of the replicas with no negative id (an empty ISR passes). */
export function validateIsr(replicas: readonly number[], isr: readonly number[]): boolean {
  if (isr.length === 0) return true;
  if (replicas.length === 0) return false;
  if (isr.some((r) => r < 0)) return false;
  if (new Set(isr).size !== isr.length) return false;
  return isr.every((r) => replicas.includes(r));
}

/** ReplicationControlManager.ineligibleReplicasForIsr: the members that cannot join the ISR, with the reason. */
export function ineligibleReplicasForIsr(image: MetadataImage, states: readonly BrokerState[]): string[] {
  const out: string[] = [];
  for (const s of states) {
    const reg = image.brokers.get(s.brokerId);
    if (!reg) out.push(`${s.brokerId} (not registered)`);
    else if (reg.inControlledShutdown) out.push(`${s.brokerId} (shutting down)`);
    else if (reg.fenced) out.push(`${s.brokerId} (fenced)`);
    else if (s.brokerEpoch !== -1n && reg.epoch !== s.brokerEpoch)
      out.push(`${s.brokerId} (broker epoch mismatch: requested=${s.brokerEpoch} VS expected=${reg.epoch})`);
  }
  return out;
}

export interface PartitionProposal {
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly leaderRecoveryState: number;
  readonly newIsr: readonly BrokerState[];
}

/** validateAlterPartitionData: NONE or the error code for one partition. */
export function validateAlterPartitionData(
  image: MetadataImage,
  brokerId: number,
  p: PartitionImage | undefined,
  d: PartitionProposal,
): number {
  if (!p) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  if (d.leaderEpoch > p.leaderEpoch) return ErrorCode.NOT_CONTROLLER;
  if (d.partitionEpoch > p.partitionEpoch) return ErrorCode.NOT_CONTROLLER;
  if (d.leaderEpoch < p.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (brokerId !== p.leader) return ErrorCode.INVALID_REQUEST;
  if (d.partitionEpoch < p.partitionEpoch) return ErrorCode.INVALID_UPDATE_VERSION;
  const newIsr = d.newIsr.map((s) => s.brokerId);
  if (!validateIsr(p.replicas, newIsr)) return ErrorCode.INVALID_REQUEST;
  if (!newIsr.includes(p.leader)) return ErrorCode.INVALID_REQUEST;
  if (d.leaderRecoveryState === LeaderRecoveryState.RECOVERING && newIsr.length > 1) return ErrorCode.INVALID_REQUEST;
  if (
    p.leaderRecoveryState === LeaderRecoveryState.RECOVERED &&
    d.leaderRecoveryState === LeaderRecoveryState.RECOVERING
  )
    return ErrorCode.INVALID_REQUEST;
  if (ineligibleReplicasForIsr(image, d.newIsr).length > 0) return ErrorCode.INELIGIBLE_REPLICA;
  return ErrorCode.NONE;
}

const failed = (partitionIndex: number, errorCode: number): AlterPartitionResponsePartitionData => ({
  partitionIndex,
  errorCode,
  leaderId: 0,
  leaderEpoch: 0,
  isr: [],
  leaderRecoveryState: 0,
  partitionEpoch: 0,
});

/**
 * ReplicationControlManager.alterPartition. Throws KafkaError(STALE_BROKER_EPOCH) for an unknown
 * broker or another broker epoch (the whole response's error). `apiVersion` < 3 reads NewIsr
 * (members without broker epochs), 3+ NewIsrWithEpochs.
 */
export function alterPartition(
  image: MetadataImage,
  req: AlterPartitionRequest,
  apiVersion: number,
  defaults?: TopicConfigDefaults,
  log?: (message: string) => void,
): { records: MetadataRecord[]; response: AlterPartitionResponse } {
  checkBrokerEpoch(image, req.brokerId, req.brokerEpoch);
  const records: MetadataRecord[] = [];
  const response: AlterPartitionResponse = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics: [] };
  const settings = { image, defaults };
  for (const t of req.topics) {
    const partitions: AlterPartitionResponsePartitionData[] = [];
    response.topics.push({ topicId: t.topicId, partitions });
    const topic = t.topicId !== ZERO_UUID ? image.topicsById.get(t.topicId) : undefined;
    if (!topic) {
      for (const d of t.partitions) partitions.push(failed(d.partitionIndex, ErrorCode.UNKNOWN_TOPIC_ID));
      log?.(`Rejecting AlterPartition request for unknown topic ID ${t.topicId}.`);
      continue;
    }
    for (const d of t.partitions) {
      const newIsr: BrokerState[] =
        apiVersion < 3
          ? d.newIsr.map((brokerId) => ({ brokerId, brokerEpoch: -1n }))
          : d.newIsrWithEpochs.map((s) => ({ brokerId: s.brokerId, brokerEpoch: s.brokerEpoch }));
      let p = topic.partitions.get(d.partitionIndex);
      const error = validateAlterPartitionData(image, req.brokerId, p, { ...d, newIsr });
      if (error !== ErrorCode.NONE || !p) {
        partitions.push(failed(d.partitionIndex, error));
        continue;
      }
      const builder = partitionChangeBuilder(settings, topic, p);
      if (uncleanLeaderElectionEnabled(settings, topic.name)) builder.setElection(Election.UNCLEAN);
      const change = builder
        .setTargetIsr(newIsr.map((s) => s.brokerId))
        .setTargetLeaderRecoveryState(d.leaderRecoveryState)
        .build();
      if (change) {
        records.push(partitionChangeMetadataRecord(change, image.metadataVersion));
        p = mergePartitionChange(p, change);
        if (change.leader !== req.brokerId && change.leader !== -2) {
          log?.(
            `AlterPartition request from node ${req.brokerId} for ${topic.name}-${d.partitionIndex} completed the ongoing partition reassignment and triggered a leadership change. Returning NEW_LEADER_ELECTED.`,
          );
          partitions.push(failed(d.partitionIndex, ErrorCode.NEW_LEADER_ELECTED));
          continue;
        }
      }
      partitions.push({
        partitionIndex: d.partitionIndex,
        errorCode: ErrorCode.NONE,
        leaderId: p.leader,
        leaderEpoch: p.leaderEpoch,
        isr: p.isr.slice(),
        leaderRecoveryState: p.leaderRecoveryState,
        partitionEpoch: p.partitionEpoch,
      });
    }
  }
  return { records, response };
}
