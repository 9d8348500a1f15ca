// Partition reassignment and leader election on the controller, as Kafka 4.4's
// ReplicationControlManager does them: alterPartitionReassignments (changePartitionReassignment with
// PartitionReassignmentReplicas: the target replicas first, then the replicas being removed, in
// ascending order; cancelPartitionReassignment with PartitionReassignmentRevert: back to the original
// replicas, the ISR without the adding replicas, unclean only where the topic allows it),
// listPartitionReassignments and electLeaders (PREFERRED / UNCLEAN through the
// PartitionChangeBuilder, ELECTION_NOT_NEEDED where the leader already is the preferred replica /
// exists). Pure functions over a MetadataImage: records for the controller to append atomically,
// and the response. The reassignment completes later, when an AlterPartition (or any partition
// change) finds every adding replica in the ISR (PartitionChangeBuilder.completeReassignmentIfNeeded).
//
// Differences kept on purpose: listPartitionReassignments(null) and electLeaders(null) list topics
// by name (Kafka: the iteration order of its timeline hash maps); the partitions of a topic come in
// ascending order, as Kafka's maps of small integers give them. Kafka's check that a target broker
// has a log directory that is not cordoned (KIP-1066) has nothing to check: tkafka refuses
// cordoned.log.dirs.

import type {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  AlterPartitionReassignmentsResponseReassignablePartitionResponse,
} from '../../protocol/generated/protocol/AlterPartitionReassignments.js';
import type {
  ListPartitionReassignmentsRequestListPartitionReassignmentsTopics,
  ListPartitionReassignmentsResponse,
  ListPartitionReassignmentsResponseOngoingTopicReassignment,
} from '../../protocol/generated/protocol/ListPartitionReassignments.js';
import type {
  ElectLeadersRequest,
  ElectLeadersResponse,
  ElectLeadersResponseReplicaElectionResult,
} from '../../protocol/generated/protocol/ElectLeaders.js';
import { errorInfo } from '../../protocol/errors.js';
import type { MetadataRecord } from '../../protocol/metadata-records.js';
import type { PartitionImage } from '../metadata/image.js';
import { apiError, apiErrorFrom, ErrorCode, fail, NONE, type ApiError } from './errors.js';
import { partitionChangeBuilder, uncleanLeaderElectionEnabled, type ReplicationSettings } from './leader-and-isr.js';
import { Election } from './partition-change-builder.js';
import { MAX_RECORDS_PER_USER_OP, validateManualAssignment } from './topics.js';

/** ElectionType (org.apache.kafka.common.ElectionType). */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

/** PartitionReassignmentReplicas.isReassignmentInProgress. */
export function isReassignmentInProgress(p: Pick<PartitionImage, 'removingReplicas' | 'addingReplicas'>): boolean {
  return p.removingReplicas.length > 0 || p.addingReplicas.length > 0;
}

/** PartitionReassignmentReplicas(current, target): what to remove and add, and the merged replica list. */
export function reassignmentReplicas(
  current: readonly number[],
  target: readonly number[],
): { removing: number[]; adding: number[]; replicas: number[] } {
  const asc = (a: number, b: number): number => a - b;
  const removing = [...new Set(current.filter((r) => !target.includes(r)))].sort(asc);
  const adding = [...new Set(target.filter((r) => !current.includes(r)))].sort(asc);
  return { removing, adding, replicas: [...target, ...removing] };
}

/** PartitionReassignmentRevert: the replicas and ISR a cancelled reassignment goes back to. */
export function reassignmentRevert(p: PartitionImage): { replicas: number[]; isr: number[]; unclean: boolean } {
  const replicas = p.replicas.filter((r) => !p.addingReplicas.includes(r));
  const isr = p.isr.filter((r) => !p.addingReplicas.includes(r));
  if (isr.length > 0) return { replicas, isr, unclean: false };
  if (replicas.length === 0)
    fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'Invalid replica assignment: addingReplicas contains all replicas.');
  return { replicas, isr: [replicas[0]!], unclean: true };
}

/** ApiError.fromThrowable: no message when it is the error's default one, nor for UNKNOWN_SERVER_ERROR. */
function fromThrowable(e: unknown): ApiError {
  const err = apiErrorFrom(e);
  if (err.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR || err.errorMessage === errorInfo(err.errorCode).message)
    return { errorCode: err.errorCode, errorMessage: null };
  return err;
}

/** ReplicationControlManager.validatePartitionReplicationFactorUnchanged (AllowReplicationFactorChange=false). */
function validateReplicationFactorUnchanged(p: PartitionImage, target: readonly number[]): void {
  let current: number;
  if (isReassignmentInProgress(p)) {
    const set = new Set([...p.replicas, ...p.addingReplicas]);
    for (const r of p.removingReplicas) set.delete(r);
    current = set.size;
  } else current = p.replicas.length;
  if (current !== target.length)
    fail(ErrorCode.INVALID_REPLICATION_FACTOR, `The replication factor is changed from ${current} to ${target.length}`);
}

/** ReplicationControlManager.changePartitionReassignment. */
function changePartitionReassignment(
  s: ReplicationSettings,
  topicName: string,
  p: PartitionImage,
  target: readonly number[],
  allowRFChange: boolean,
): MetadataRecord | null {
  validateManualAssignment(s.image, target, null);
  if (!allowRFChange) validateReplicationFactorUnchanged(p, target);
  const topic = s.image.topicsByName.get(topicName)!;
  const r = reassignmentReplicas(p.replicas, target);
  const builder = partitionChangeBuilder(s, topic, p);
  if (!(r.replicas.length === p.replicas.length && r.replicas.every((x, i) => x === p.replicas[i])))
    builder.setTargetReplicas(r.replicas);
  if (r.removing.length > 0) builder.setTargetRemoving(r.removing);
  if (r.adding.length > 0) builder.setTargetAdding(r.adding);
  return builder.buildRecord();
}

/** ReplicationControlManager.cancelPartitionReassignment. */
function cancelPartitionReassignment(
  s: ReplicationSettings,
  topicName: string,
  p: PartitionImage,
): MetadataRecord | null {
  if (!isReassignmentInProgress(p)) fail(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
  const revert = reassignmentRevert(p);
  const unclean = uncleanLeaderElectionEnabled(s, topicName);
  if (revert.unclean && !unclean) {
    fail(
      ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      `Unable to revert partition assignment for ${topicName}:${p.partitionId} because it would require an unclean leader election.`,
    );
  }
  const topic = s.image.topicsByName.get(topicName)!;
  const builder = partitionChangeBuilder(s, topic, p);
  if (unclean) builder.setElection(Election.UNCLEAN);
  return builder
    .setTargetIsr(revert.isr)
    .setTargetReplicas(revert.replicas)
    .setTargetRemoving([])
    .setTargetAdding([])
    .buildRecord();
}

/** ReplicationControlManager.alterPartitionReassignment: the record (if any) of one partition, or a thrown error. */
function alterPartitionReassignment(
  s: ReplicationSettings,
  topicName: string,
  partitionIndex: number,
  replicas: readonly number[] | null,
  allowRFChange: boolean,
): MetadataRecord | null {
  const topic = s.image.topicsByName.get(topicName);
  if (!topic) fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${topicName}.`);
  const p = topic.partitions.get(partitionIndex);
  if (!p) fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${topicName}:${partitionIndex}.`);
  return replicas === null
    ? cancelPartitionReassignment(s, topicName, p)
    : changePartitionReassignment(s, topicName, p, replicas, allowRFChange);
}

/**
 * ReplicationControlManager.alterPartitionReassignments: per partition a new reassignment, a change
 * of one in progress, or (null replicas) its cancellation; each judged on the image as it was before
 * the request. The records are appended atomically. `log` gets Kafka's INFO lines.
 */
export function alterPartitionReassignments(
  s: ReplicationSettings,
  req: Pick<AlterPartitionReassignmentsRequest, 'topics' | 'allowReplicationFactorChange'>,
  log?: (message: string) => void,
): { records: MetadataRecord[]; response: AlterPartitionReassignmentsResponse } {
  const records: MetadataRecord[] = [];
  const response: AlterPartitionReassignmentsResponse = {
    throttleTimeMs: 0,
    allowReplicationFactorChange: req.allowReplicationFactorChange,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    responses: [],
  };
  let successful = 0;
  let total = 0;
  for (const t of req.topics) {
    const partitions: AlterPartitionReassignmentsResponseReassignablePartitionResponse[] = [];
    for (const part of t.partitions) {
      let error: ApiError = NONE;
      try {
        const record = alterPartitionReassignment(
          s,
          t.name,
          part.partitionIndex,
          part.replicas,
          req.allowReplicationFactorChange,
        );
        if (record) {
          // BoundedList.newArrayBacked(MAX_RECORDS_PER_USER_OP): the overflowing partition fails
          if (records.length >= MAX_RECORDS_PER_USER_OP)
            fail(
              ErrorCode.UNKNOWN_SERVER_ERROR,
              'Cannot add another element to the list because it would exceed the maximum length of 10000',
            );
          records.push(record);
        }
        successful++;
      } catch (e) {
        error = fromThrowable(e);
        log?.(
          `Unable to alter partition reassignment for ${t.name}:${part.partitionIndex} because of an ${errorInfo(error.errorCode).name} error: ${apiErrorFrom(e).errorMessage ?? ''}`,
        );
      }
      total++;
      partitions.push({
        partitionIndex: part.partitionIndex,
        errorCode: error.errorCode,
        errorMessage: error.errorMessage,
      });
    }
    response.responses.push({ name: t.name, partitions });
  }
  log?.(`Successfully altered ${successful} out of ${total} partition reassignment(s).`);
  return { records, response };
}

/**
 * ReplicationControlManager.listPartitionReassignments: the partitions with a reassignment in
 * progress, of every topic (null) or of the named topics and partitions (unknown ones are left out).
 */
export function listPartitionReassignments(
  s: Pick<ReplicationSettings, 'image'>,
  topics: readonly ListPartitionReassignmentsRequestListPartitionReassignmentsTopics[] | null,
): ListPartitionReassignmentsResponse {
  const response: ListPartitionReassignmentsResponse = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topics: [],
  };
  const wanted: [string, readonly number[]][] =
    topics === null
      ? [...s.image.topicsByName.values()]
          .filter((t) => [...t.partitions.values()].some(isReassignmentInProgress))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((t) => [t.name, [...t.partitions.keys()].sort((a, b) => a - b)])
      : topics.map((t) => [t.name, t.partitionIndexes]);
  for (const [name, partitionIds] of wanted) {
    const topic = s.image.topicsByName.get(name);
    if (!topic) continue;
    const ongoing: ListPartitionReassignmentsResponseOngoingTopicReassignment = { name, partitions: [] };
    for (const id of partitionIds) {
      const p = topic.partitions.get(id);
      if (!p || !isReassignmentInProgress(p)) continue;
      ongoing.partitions.push({
        partitionIndex: id,
        replicas: p.replicas.slice(),
        addingReplicas: p.addingReplicas.slice(),
        removingReplicas: p.removingReplicas.slice(),
      });
    }
    if (ongoing.partitions.length > 0) response.topics.push(ongoing);
  }
  return response;
}

/**
 * ReplicationControlManager.electLeader: ELECTION_NOT_NEEDED when a PREFERRED election finds the
 * preferred replica leading or an UNCLEAN one finds any leader; otherwise the builder's election,
 * PREFERRED_LEADER_NOT_AVAILABLE / ELIGIBLE_LEADERS_NOT_AVAILABLE when it changes nothing.
 */
export function electLeader(
  s: ReplicationSettings,
  topicName: string,
  partitionId: number,
  electionType: number,
  records: MetadataRecord[],
): ApiError {
  const topic = s.image.topicsByName.get(topicName);
  if (!topic) return apiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such topic as ${topicName}`);
  const p = topic.partitions.get(partitionId);
  if (!p) return apiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such partition as ${topicName}-${partitionId}`);
  const preferred = p.replicas.length === 0 ? -1 : p.replicas[0]!;
  if (electionType === ElectionType.PREFERRED && p.leader === preferred) return apiError(ErrorCode.ELECTION_NOT_NEEDED);
  if (electionType === ElectionType.UNCLEAN && p.leader !== -1) return apiError(ErrorCode.ELECTION_NOT_NEEDED);
  const record = partitionChangeBuilder(s, topic, p)
    .setElection(electionType === ElectionType.UNCLEAN ? Election.UNCLEAN : Election.PREFERRED)
    .buildRecord();
  if (record) {
    records.push(record);
    return NONE;
  }
  return apiError(
    electionType === ElectionType.PREFERRED
      ? ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE
      : ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
  );
}

/**
 * ReplicationControlManager.electLeaders: for the named partitions every result; for all partitions
 * (null) every topic, with the partitions whose election was needed. Throws
 * KafkaError(INVALID_REQUEST) for an unknown election type (the whole request fails).
 */
export function electLeaders(
  s: ReplicationSettings,
  req: Pick<ElectLeadersRequest, 'electionType' | 'topicPartitions'>,
): { records: MetadataRecord[]; response: ElectLeadersResponse } {
  if (req.electionType !== ElectionType.PREFERRED && req.electionType !== ElectionType.UNCLEAN)
    fail(ErrorCode.INVALID_REQUEST, `Unknown election type ${req.electionType}`);
  const records: MetadataRecord[] = [];
  const results: ElectLeadersResponseReplicaElectionResult[] = [];
  if (req.topicPartitions === null) {
    const topics = [...s.image.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const topic of topics) {
      const partitionResult: ElectLeadersResponseReplicaElectionResult['partitionResult'] = [];
      results.push({ topic: topic.name, partitionResult });
      for (const partitionId of [...topic.partitions.keys()].sort((a, b) => a - b)) {
        const e = electLeader(s, topic.name, partitionId, req.electionType, records);
        if (e.errorCode !== ErrorCode.ELECTION_NOT_NEEDED)
          partitionResult.push({ partitionId, errorCode: e.errorCode, errorMessage: e.errorMessage });
      }
    }
  } else {
    for (const t of req.topicPartitions) {
      const partitionResult: ElectLeadersResponseReplicaElectionResult['partitionResult'] = [];
      results.push({ topic: t.topic, partitionResult });
      for (const partitionId of t.partitions) {
        const e = electLeader(s, t.topic, partitionId, req.electionType, records);
        partitionResult.push({ partitionId, errorCode: e.errorCode, errorMessage: e.errorMessage });
      }
    }
  }
  return { records, response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: results } };
}
