// Topic and partition creation/deletion (Kafka's ReplicationControlManager.createTopics /
// deleteTopics / createPartitions and the request handling in ControllerApis). Pure functions
// over a MetadataImage: they return the records to append atomically and per-topic results
// with Kafka's error codes and messages.

import {
  defaultPartitionRecord,
  defaultRemoveTopicRecord,
  defaultTopicRecord,
} from '../../protocol/generated/metadata/index.js';
import { ConfigResourceType, type MetadataImage } from '../metadata/image.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { mv } from '../metadata/features.js';
import { DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED } from '../metadata/delta.js';
import { incrementalAlterConfigResource, OpType, type ConfigContext } from './configs.js';
import { apiError, apiErrorFrom, ErrorCode, fail, KafkaError, NONE, type ApiError } from './errors.js';
import { defaultRandom, placeReplicas, type Random, type UsableBroker } from '../../client/admin/replica-placer.js';
import {
  CLUSTER_METADATA_TOPIC_NAME,
  hasCollisionChars,
  unifyCollisionChars,
  validateTopicName,
} from './topic-names.js';
import { randomUuid } from './uuid.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

/** QuorumController.MAX_RECORDS_PER_USER_OP. */
export const MAX_RECORDS_PER_USER_OP = 10000;
const TOO_LARGE = 'Unable to perform excessively large batch operation.';

export interface ReplicationContext extends ConfigContext {
  /** num.partitions */
  readonly defaultNumPartitions: number;
  /** default.replication.factor */
  readonly defaultReplicationFactor: number;
  readonly random?: Random;
  /**
   * ControllerRequestContext.applyPartitionChangeQuota (controller_mutation_rate, quota/): the error
   * (THROTTLING_QUOTA_EXCEEDED) when `partitions` more mutations are refused; absent: unbounded.
   */
  readonly applyPartitionChangeQuota?: (partitions: number) => ApiError | null;
}

export interface CreatableTopic {
  readonly name: string;
  /** -1 = num.partitions (must be -1 with explicit assignments). */
  readonly numPartitions: number;
  /** -1 = default.replication.factor (must be -1 with explicit assignments). */
  readonly replicationFactor: number;
  readonly assignments?: readonly { readonly partitionIndex: number; readonly brokerIds: readonly number[] }[];
  readonly configs?: readonly { readonly name: string; readonly value: string | null }[];
}

export interface CreateTopicResult extends ApiError {
  readonly name: string;
  /** ZERO_UUID on error. */
  readonly topicId: string;
  /** -1 on error. */
  readonly numPartitions: number;
  /** -1 on error. */
  readonly replicationFactor: number;
  /** The configs the topic was created with (explicit ones; defaults are the caller's to add). */
  readonly configs: readonly { readonly name: string; readonly value: string }[];
}

class TooManyRecords extends Error {}

function pushBounded(out: MetadataRecord[], ...recs: MetadataRecord[]): void {
  if (out.length + recs.length > MAX_RECORDS_PER_USER_OP) throw new TooManyRecords();
  out.push(...recs);
}

function usableBrokers(image: MetadataImage): UsableBroker[] {
  return [...image.brokers.values()]
    .filter((b) => !b.inControlledShutdown)
    .map((b) => ({ id: b.id, rack: b.rack, fenced: b.fenced }));
}

function isActive(image: MetadataImage, id: number): boolean {
  const b = image.brokers.get(id);
  return b !== undefined && !b.fenced && !b.inControlledShutdown;
}

/** ClusterControlManager.defaultDir (MV >= 3.7-IV2), else DirectoryId.MIGRATING. */
function defaultDir(image: MetadataImage, brokerId: number): string {
  if (!mv.isDirectoryAssignmentSupported(image.metadataVersion)) return DIRECTORY_MIGRATING;
  const b = image.brokers.get(brokerId);
  if (!b) return DIRECTORY_UNASSIGNED;
  if (b.directories.length === 0) return DIRECTORY_MIGRATING;
  if (b.directories.length === 1) return b.directories[0]!;
  return DIRECTORY_UNASSIGNED;
}

function partitionRecord(
  image: MetadataImage,
  topicId: string,
  partitionId: number,
  replicas: readonly number[],
  isr: readonly number[],
): MetadataRecord {
  const level = image.metadataVersion;
  return metadataRecord(RecordType.Partition, mv.partitionRecordVersion(level), {
    ...defaultPartitionRecord(),
    partitionId,
    topicId,
    replicas: replicas.slice(),
    isr: isr.slice(),
    removingReplicas: [],
    addingReplicas: [],
    leader: isr[0]!,
    leaderRecoveryState: 0,
    leaderEpoch: 0,
    partitionEpoch: 0,
    directories: mv.isDirectoryAssignmentSupported(level) ? replicas.map((b) => defaultDir(image, b)) : [],
  });
}

/** ReplicationControlManager.validateManualPartitionAssignment (throws KafkaError(INVALID_REPLICA_ASSIGNMENT)). */
export function validateManualAssignment(
  image: MetadataImage,
  replicas: readonly number[],
  replicationFactor: number | null,
): void {
  if (replicas.length === 0)
    fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.');
  const sorted = [...replicas].sort((a, b) => a - b);
  let prev: number | null = null;
  for (const id of sorted) {
    if (!image.brokers.has(id)) {
      fail(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `The manual partition assignment includes broker ${id}, but no such broker is registered.`,
      );
    }
    if (id === prev)
      fail(
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `The manual partition assignment includes the broker ${prev} more than once.`,
      );
    prev = id;
  }
  if (replicationFactor !== null && sorted.length !== replicationFactor) {
    fail(
      ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not consistent with previous partitions, which have ${replicationFactor} replica(s).`,
    );
  }
}

function collisionIndex(image: MetadataImage): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const name of image.topicsByName.keys()) {
    if (!hasCollisionChars(name)) continue;
    const k = unifyCollisionChars(name);
    const list = m.get(k);
    if (list) list.push(name);
    else m.set(k, [name]);
  }
  return m;
}

/** Builds the partitions of one new topic: [partitionId, replicas, isr][], or an error. */
function planTopic(ctx: ReplicationContext, t: CreatableTopic): { parts: [number, number[], number[]][] } | ApiError {
  const image = ctx.image;
  const parts: [number, number[], number[]][] = [];
  if (t.assignments && t.assignments.length > 0) {
    if (t.replicationFactor !== -1)
      return apiError(
        ErrorCode.INVALID_REQUEST,
        'A manual partition assignment was specified, but replication factor was not set to -1.',
      );
    if (t.numPartitions !== -1)
      return apiError(
        ErrorCode.INVALID_REQUEST,
        'A manual partition assignment was specified, but numPartitions was not set to -1.',
      );
    const seen = new Set<number>();
    let rf: number | null = null;
    for (const a of t.assignments) {
      if (seen.has(a.partitionIndex)) {
        return apiError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `Found multiple manual partition assignments for partition ${a.partitionIndex}`,
        );
      }
      seen.add(a.partitionIndex);
      validateManualAssignment(image, a.brokerIds, rf);
      rf = a.brokerIds.length;
      const isr = a.brokerIds.filter((b) => isActive(image, b));
      if (isr.length === 0) {
        return apiError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `All brokers specified in the manual partition assignment for partition ${a.partitionIndex} are fenced or in controlled shutdown.`,
        );
      }
      parts.push([a.partitionIndex, a.brokerIds.slice(), isr]);
    }
    for (let i = 0; i < parts.length; i++) {
      if (!seen.has(i))
        return apiError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          'partitions should be a consecutive 0-based integer sequence',
        );
    }
    parts.sort((a, b) => a[0] - b[0]);
    return { parts };
  }
  if (t.replicationFactor < -1 || t.replicationFactor === 0) {
    return apiError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      'Replication factor must be larger than 0, or -1 to use the default value.',
    );
  }
  if (t.numPartitions < -1 || t.numPartitions === 0) {
    return apiError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
  }
  const numPartitions = t.numPartitions === -1 ? ctx.defaultNumPartitions : t.numPartitions;
  const rf = t.replicationFactor === -1 ? ctx.defaultReplicationFactor : t.replicationFactor;
  if (numPartitions > MAX_RECORDS_PER_USER_OP) throw new TooManyRecords();
  let placed: number[][];
  try {
    placed = placeReplicas(usableBrokers(image), numPartitions, rf, ctx.random ?? defaultRandom);
  } catch (e) {
    if (e instanceof KafkaError && e.code === ErrorCode.INVALID_REPLICATION_FACTOR) {
      return apiError(
        ErrorCode.INVALID_REPLICATION_FACTOR,
        `Unable to replicate the partition ${rf} time(s): ${e.message}`,
      );
    }
    throw e;
  }
  for (let p = 0; p < placed.length; p++) {
    const isr = placed[p]!.filter((b) => isActive(image, b));
    if (isr.length === 0) {
      return apiError(
        ErrorCode.INVALID_REPLICATION_FACTOR,
        `Unable to replicate the partition ${rf} time(s): All brokers are currently fenced or in controlled shutdown.`,
      );
    }
    parts.push([p, placed[p]!, isr]);
  }
  return { parts };
}

function failedResult(name: string, e: ApiError): CreateTopicResult {
  return {
    name,
    topicId: ZERO_UUID,
    errorCode: e.errorCode,
    errorMessage: e.errorMessage,
    numPartitions: -1,
    replicationFactor: -1,
    configs: [],
  };
}

/**
 * CreateTopics. Results: the valid request entries in order, then one INVALID_REQUEST entry per
 * duplicated name, then `__cluster_metadata` if requested (as ControllerApis does).
 * With validateOnly no records are returned (but the results are computed the same way).
 */
export function createTopics(
  ctx: ReplicationContext,
  topics: readonly CreatableTopic[],
): { records: MetadataRecord[]; results: CreateTopicResult[] } {
  const image = ctx.image;
  const counts = new Map<string, number>();
  for (const t of topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const effective = topics.filter((t) => counts.get(t.name) === 1 && t.name !== CLUSTER_METADATA_TOPIC_NAME);

  const errors = new Map<string, ApiError>();
  const collisions = collisionIndex(image);
  for (const t of effective) {
    try {
      validateTopicName(t.name);
    } catch (e) {
      errors.set(t.name, apiErrorFrom(e));
    }
    if (hasCollisionChars(t.name)) {
      const colliding = collisions.get(unifyCollisionChars(t.name));
      if (colliding)
        errors.set(
          t.name,
          apiError(
            ErrorCode.INVALID_TOPIC_EXCEPTION,
            `Topic '${t.name}' collides with existing topic: ${colliding[0]}`,
          ),
        );
    }
  }
  for (const t of effective) {
    if (image.topicsByName.has(t.name))
      errors.set(t.name, apiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`));
  }
  for (const t of effective) {
    if (errors.has(t.name)) continue;
    const nulls = (t.configs ?? []).filter((c) => c.value === null).map((c) => c.name);
    if (nulls.length > 0)
      errors.set(
        t.name,
        apiError(ErrorCode.INVALID_CONFIG, `Null value not supported for topic configs: ${nulls.join(',')}`),
      );
  }

  const records: MetadataRecord[] = [];
  const results: CreateTopicResult[] = [];
  try {
    for (const t of effective) {
      const err = errors.get(t.name);
      if (err) {
        results.push(failedResult(t.name, err));
        continue;
      }
      const configs = (t.configs ?? []).map((c) => ({ name: c.name, value: c.value as string }));
      let configRecords: MetadataRecord[] = [];
      if (configs.length > 0) {
        const res = incrementalAlterConfigResource(
          ctx,
          { type: ConfigResourceType.Topic, name: t.name },
          configs.map((c) => ({ ...c, configOperation: OpType.SET })),
          true,
        );
        if (res.error.errorCode !== ErrorCode.NONE) {
          results.push(failedResult(t.name, res.error));
          continue;
        }
        configRecords = res.records;
      }
      let plan: ReturnType<typeof planTopic>;
      try {
        plan = planTopic(ctx, t);
      } catch (e) {
        if (e instanceof TooManyRecords) throw e;
        plan = apiErrorFrom(e);
      }
      if (!('parts' in plan)) {
        results.push(failedResult(t.name, plan));
        continue;
      }
      const throttled = ctx.applyPartitionChangeQuota?.(plan.parts.length);
      if (throttled) {
        results.push(failedResult(t.name, throttled));
        continue;
      }
      const topicId = randomUuid();
      pushBounded(
        records,
        metadataRecord(RecordType.Topic, 0, { ...defaultTopicRecord(), name: t.name, topicId }),
        ...configRecords,
      );
      for (const [pid, replicas, isr] of plan.parts)
        pushBounded(records, partitionRecord(image, topicId, pid, replicas, isr));
      results.push({
        name: t.name,
        topicId,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        numPartitions: plan.parts.length,
        replicationFactor: plan.parts[0]![1].length,
        configs,
      });
    }
  } catch (e) {
    if (!(e instanceof TooManyRecords)) throw e;
    return {
      records: [],
      results: topics.map((t) => failedResult(t.name, apiError(ErrorCode.POLICY_VIOLATION, TOO_LARGE))),
    };
  }
  for (const [name, n] of counts) {
    if (n > 1) results.push(failedResult(name, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.')));
  }
  if (counts.get(CLUSTER_METADATA_TOPIC_NAME) === 1) {
    results.push(
      failedResult(
        CLUSTER_METADATA_TOPIC_NAME,
        apiError(ErrorCode.INVALID_REQUEST, `Creation of internal topic ${CLUSTER_METADATA_TOPIC_NAME} is prohibited.`),
      ),
    );
  }
  return { records, results };
}

export interface DeleteTopicsRequest {
  /** DeleteTopics v0-5 style: names. */
  readonly topicNames?: readonly string[];
  /** v6 style: each by name (topicId zero) or by id (name null). */
  readonly topics?: readonly { readonly name: string | null; readonly topicId: string }[];
}

export interface DeleteTopicResult extends ApiError {
  readonly name: string | null;
  readonly topicId: string;
}

/** DeleteTopics (ControllerApis.deleteTopics without authorization + ReplicationControlManager.deleteTopics). */
export function deleteTopics(
  image: MetadataImage,
  req: DeleteTopicsRequest,
  applyPartitionChangeQuota?: (partitions: number) => ApiError | null,
): { records: MetadataRecord[]; results: DeleteTopicResult[] } {
  const results: DeleteTopicResult[] = [];
  const respond = (name: string | null, topicId: string, e: ApiError) =>
    results.push({ name, topicId, errorCode: e.errorCode, errorMessage: e.errorMessage });
  const names: string[] = [];
  const dupNames = new Set<string>();
  const ids: string[] = [];
  const dupIds = new Set<string>();
  const addName = (n: string) => {
    if (dupNames.has(n)) return;
    if (names.includes(n)) {
      dupNames.add(n);
      names.splice(names.indexOf(n), 1);
    } else names.push(n);
  };
  for (const n of req.topicNames ?? []) addName(n);
  for (const t of req.topics ?? []) {
    if (t.name === null) {
      if (t.topicId === ZERO_UUID)
        respond(null, ZERO_UUID, apiError(ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'));
      else if (dupIds.has(t.topicId)) continue;
      else if (ids.includes(t.topicId)) {
        dupIds.add(t.topicId);
        ids.splice(ids.indexOf(t.topicId), 1);
      } else ids.push(t.topicId);
    } else if (t.topicId === ZERO_UUID) addName(t.name);
    else
      respond(
        t.name,
        t.topicId,
        apiError(ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'),
      );
  }
  for (const n of dupNames) respond(n, ZERO_UUID, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
  for (const id of dupIds) respond(null, id, apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic id.'));

  const toDelete = new Map<string, string>(); // id -> name
  for (const id of ids) {
    const t = image.topicsById.get(id);
    if (!t) respond(null, id, apiError(ErrorCode.UNKNOWN_TOPIC_ID));
    else toDelete.set(id, t.name);
  }
  for (const n of names) {
    const t = image.topicsByName.get(n);
    if (!t) respond(n, ZERO_UUID, apiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    else if (toDelete.has(t.id)) {
      toDelete.delete(t.id);
      respond(
        n,
        t.id,
        apiError(ErrorCode.INVALID_REQUEST, 'The provided topic name maps to an ID that was already supplied.'),
      );
    } else toDelete.set(t.id, n);
  }
  const records: MetadataRecord[] = [];
  for (const [id, name] of toDelete) {
    // ReplicationControlManager.deleteTopic: controller_mutation_rate per topic's partitions
    const throttled = applyPartitionChangeQuota?.(image.topicsById.get(id)!.partitions.size);
    if (throttled) {
      respond(name, id, throttled);
      continue;
    }
    records.push(metadataRecord(RecordType.RemoveTopic, 0, { ...defaultRemoveTopicRecord(), topicId: id }));
    respond(name, id, NONE);
  }
  if (records.length > MAX_RECORDS_PER_USER_OP) {
    return { records: [], results: results.map((r) => ({ ...r, ...apiError(ErrorCode.POLICY_VIOLATION, TOO_LARGE) })) };
  }
  return { records, results };
}

export interface CreatePartitionsTopic {
  readonly name: string;
  /** The new total number of partitions. */
  readonly count: number;
  /** Replicas of each new partition, or null for automatic placement. */
  readonly assignments: readonly { readonly brokerIds: readonly number[] }[] | null;
}

export interface CreatePartitionsResult extends ApiError {
  readonly name: string;
}

/** CreatePartitions (duplicates rejected as ControllerApis does). */
export function createPartitions(
  ctx: ReplicationContext,
  topics: readonly CreatePartitionsTopic[],
): { records: MetadataRecord[]; results: CreatePartitionsResult[] } {
  const image = ctx.image;
  const counts = new Map<string, number>();
  for (const t of topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const results: CreatePartitionsResult[] = [];
  for (const [name, n] of counts)
    if (n > 1) results.push({ name, ...apiError(ErrorCode.INVALID_REQUEST, 'Duplicate topic name.') });
  const records: MetadataRecord[] = [];
  try {
    for (const t of topics) {
      if (counts.get(t.name)! > 1) continue;
      const out: MetadataRecord[] = [];
      let err: ApiError = NONE;
      try {
        createPartitionsForTopic(ctx, image, t, out);
      } catch (e) {
        err = apiErrorFrom(e);
      }
      if (err.errorCode === ErrorCode.NONE) pushBounded(records, ...out);
      results.push({ name: t.name, ...err });
    }
  } catch (e) {
    if (!(e instanceof TooManyRecords)) throw e;
    return {
      records: [],
      results: topics.map((t) => ({ name: t.name, ...apiError(ErrorCode.POLICY_VIOLATION, TOO_LARGE) })),
    };
  }
  return { records, results };
}

function createPartitionsForTopic(
  ctx: ReplicationContext,
  image: MetadataImage,
  t: CreatePartitionsTopic,
  out: MetadataRecord[],
): void {
  const topic = image.topicsByName.get(t.name);
  if (!topic) fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const existing = topic.partitions.size;
  if (t.count === existing) fail(ErrorCode.INVALID_PARTITIONS, `Topic already has ${existing} partition(s).`);
  if (t.count < existing)
    fail(
      ErrorCode.INVALID_PARTITIONS,
      `The topic ${t.name} currently has ${existing} partition(s); ${t.count} would not be an increase.`,
    );
  const additional = t.count - existing;
  if (t.assignments !== null && t.assignments.length !== additional) {
    fail(
      ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      `Attempted to add ${additional} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`,
    );
  }
  const throttled = ctx.applyPartitionChangeQuota?.(additional);
  if (throttled) fail(throttled.errorCode, throttled.errorMessage ?? undefined);
  const first = topic.partitions.get(0) ?? topic.partitions.values().next().value;
  if (!first) fail(ErrorCode.UNKNOWN_SERVER_ERROR, `Invalid state: topic ${t.name} appears to have no partitions.`);
  const rf = first.replicas.length;
  let assignments: number[][];
  if (t.assignments !== null) {
    assignments = t.assignments.map((a, i) => {
      validateManualAssignment(image, a.brokerIds, rf);
      if (!a.brokerIds.some((b) => isActive(image, b))) {
        fail(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `All brokers specified in the manual partition assignment for partition ${existing + i} are fenced or in controlled shutdown.`,
        );
      }
      return a.brokerIds.slice();
    });
  } else {
    if (additional > MAX_RECORDS_PER_USER_OP) throw new TooManyRecords();
    assignments = placeReplicas(usableBrokers(image), additional, rf, ctx.random ?? defaultRandom);
  }
  assignments.forEach((replicas, i) => {
    const isr = replicas.filter((b) => isActive(image, b));
    if (isr.length === 0) {
      fail(
        ErrorCode.INVALID_REPLICATION_FACTOR,
        `Unable to replicate the partition ${rf} time(s): All brokers are currently fenced or in controlled shutdown.`,
      );
    }
    out.push(partitionRecord(image, topic.id, existing + i, replicas, isr));
  });
}
