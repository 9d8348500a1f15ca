// The records of __consumer_offsets as Kafka writes them (GroupCoordinatorRecordHelpers,
// GroupCoordinatorRecordSerde): the key is an int16 version that is the record type, then the key
// schema; the value is an int16 version then the value schema, or null (a tombstone). Written
// versions follow Kafka 3.x/4.0: OffsetCommitKey v1, OffsetCommitValue v3 (v1 when the commit
// carries an expire timestamp), GroupMetadataKey v2, GroupMetadataValue v3, KIP-848 values v0
// (ConsumerGroupRegularExpressionKey/Value, type 16, included); share-group records (types 10-15) v0;
// streams-group records (types 17, 19-23) v0.
import { Reader } from '../../protocol/codec/reader.js';
import { Writer } from '../../protocol/codec/writer.js';
import { OFFSETS_TOPIC_RECORDS } from '../../protocol/generated/records.js';
import type { GroupMetadataValue } from '../../protocol/generated/group/GroupMetadata.js';
import type { OffsetCommitValue } from '../../protocol/generated/group/OffsetCommit.js';
import type { ConsumerGroupMemberMetadataValue } from '../../protocol/generated/group/ConsumerGroupMemberMetadata.js';
import type { ConsumerGroupPartitionMetadataValue } from '../../protocol/generated/group/ConsumerGroupPartitionMetadata.js';
import type {
  ConsumerGroupCurrentMemberAssignmentValue,
  ConsumerGroupCurrentMemberAssignmentValueTopicPartitions,
} from '../../protocol/generated/group/ConsumerGroupCurrentMemberAssignment.js';
import type { LegacyOffsetCommitValue } from '../../protocol/generated/group/LegacyOffsetCommit.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { ConsumerGroupTargetAssignmentMemberValue } from '../../protocol/generated/group/ConsumerGroupTargetAssignmentMember.js';
import type { ConsumerGroupRegularExpressionValue } from '../../protocol/generated/group/ConsumerGroupRegularExpression.js';
import type { ShareGroupMemberMetadataValue } from '../../protocol/generated/group/ShareGroupMemberMetadata.js';
import type { ShareGroupMetadataValue } from '../../protocol/generated/group/ShareGroupMetadata.js';
import type { ShareGroupTargetAssignmentMetadataValue } from '../../protocol/generated/group/ShareGroupTargetAssignmentMetadata.js';
import type { ShareGroupTargetAssignmentMemberValue } from '../../protocol/generated/group/ShareGroupTargetAssignmentMember.js';
import type { ShareGroupCurrentMemberAssignmentValue } from '../../protocol/generated/group/ShareGroupCurrentMemberAssignment.js';
import type { ShareGroupStatePartitionMetadataValue } from '../../protocol/generated/group/ShareGroupStatePartitionMetadata.js';
import type { StreamsGroupMetadataValue } from '../../protocol/generated/group/StreamsGroupMetadata.js';
import type { StreamsGroupTopologyValue } from '../../protocol/generated/group/StreamsGroupTopology.js';
import type { StreamsGroupMemberMetadataValue } from '../../protocol/generated/group/StreamsGroupMemberMetadata.js';
import type { StreamsGroupTargetAssignmentMetadataValue } from '../../protocol/generated/group/StreamsGroupTargetAssignmentMetadata.js';
import type { StreamsGroupTargetAssignmentMemberValue } from '../../protocol/generated/group/StreamsGroupTargetAssignmentMember.js';
import type { StreamsGroupCurrentMemberAssignmentValue } from '../../protocol/generated/group/StreamsGroupCurrentMemberAssignment.js';

export const RecordType = {
  OffsetCommit: 1,
  GroupMetadata: 2,
  ConsumerGroupMetadata: 3,
  ConsumerGroupPartitionMetadata: 4,
  ConsumerGroupMemberMetadata: 5,
  ConsumerGroupTargetAssignmentMetadata: 6,
  ConsumerGroupTargetAssignmentMember: 7,
  ConsumerGroupCurrentMemberAssignment: 8,
  ConsumerGroupRegularExpression: 16,
  // share groups (KIP-932, Kafka 4.4 CoordinatorRecordType)
  ShareGroupMemberMetadata: 10,
  ShareGroupMetadata: 11,
  ShareGroupTargetAssignmentMetadata: 12,
  ShareGroupTargetAssignmentMember: 13,
  ShareGroupCurrentMemberAssignment: 14,
  ShareGroupStatePartitionMetadata: 15,
  // streams groups (KIP-1071, Kafka 4.4 CoordinatorRecordType)
  StreamsGroupMetadata: 17,
  StreamsGroupMemberMetadata: 19,
  StreamsGroupTargetAssignmentMetadata: 20,
  StreamsGroupTargetAssignmentMember: 21,
  StreamsGroupCurrentMemberAssignment: 22,
  StreamsGroupTopology: 23,
} as const;

/** Versions this coordinator writes (MetadataVersion.offsetCommitValueVersion / groupMetadataValueVersion). */
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRE = 1;
export const GROUP_METADATA_VALUE_VERSION = 3;

/** OffsetCommitValue; topicId (tagged, v4+) is absent from the versions this coordinator writes. */
export type OffsetCommitRecordValue = Omit<OffsetCommitValue, 'topicId'> & { topicId?: string };
type AssignedTopicPartitions = Omit<ConsumerGroupCurrentMemberAssignmentValueTopicPartitions, 'assignmentEpochs'> & {
  assignmentEpochs?: number[] | null;
};
/** ConsumerGroupCurrentMemberAssignmentValue; the tagged assignmentEpochs default to none. */
export type CurrentMemberAssignmentRecordValue = Omit<
  ConsumerGroupCurrentMemberAssignmentValue,
  'assignedPartitions' | 'partitionsPendingRevocation'
> & { assignedPartitions: AssignedTopicPartitions[]; partitionsPendingRevocation: AssignedTopicPartitions[] };

/** A decoded record of __consumer_offsets: value null is a tombstone. */
export type CoordinatorRecord =
  | { type: 'OffsetCommit'; group: string; topic: string; partition: number; value: OffsetCommitRecordValue | null }
  | { type: 'GroupMetadata'; group: string; value: GroupMetadataValue | null }
  | { type: 'ConsumerGroupMetadata'; group: string; value: { epoch: number } | null }
  | { type: 'ConsumerGroupPartitionMetadata'; group: string; value: ConsumerGroupPartitionMetadataValue | null }
  | {
      type: 'ConsumerGroupMemberMetadata';
      group: string;
      memberId: string;
      value: ConsumerGroupMemberMetadataValue | null;
    }
  | { type: 'ConsumerGroupTargetAssignmentMetadata'; group: string; value: { assignmentEpoch: number } | null }
  | {
      type: 'ConsumerGroupTargetAssignmentMember';
      group: string;
      memberId: string;
      value: ConsumerGroupTargetAssignmentMemberValue | null;
    }
  | {
      type: 'ConsumerGroupCurrentMemberAssignment';
      group: string;
      memberId: string;
      value: CurrentMemberAssignmentRecordValue | null;
    }
  | {
      type: 'ConsumerGroupRegularExpression';
      group: string;
      regularExpression: string;
      value: ConsumerGroupRegularExpressionValue | null;
    }
  | ShareGroupRecord
  | StreamsGroupRecord;

/** The records of a streams group (KIP-1071): value null is a tombstone. */
export type StreamsGroupRecord =
  | { type: 'StreamsGroupMetadata'; group: string; value: StreamsGroupMetadataValue | null }
  | { type: 'StreamsGroupTopology'; group: string; value: StreamsGroupTopologyValue | null }
  | {
      type: 'StreamsGroupMemberMetadata';
      group: string;
      memberId: string;
      value: StreamsGroupMemberMetadataValue | null;
    }
  | {
      type: 'StreamsGroupTargetAssignmentMetadata';
      group: string;
      value: StreamsGroupTargetAssignmentMetadataValue | null;
    }
  | {
      type: 'StreamsGroupTargetAssignmentMember';
      group: string;
      memberId: string;
      value: StreamsGroupTargetAssignmentMemberValue | null;
    }
  | {
      type: 'StreamsGroupCurrentMemberAssignment';
      group: string;
      memberId: string;
      value: StreamsGroupCurrentMemberAssignmentValue | null;
    };

export const isStreamsGroupRecord = (r: CoordinatorRecord): r is StreamsGroupRecord =>
  r.type.startsWith('StreamsGroup');

/** The records of a share group (KIP-932): value null is a tombstone. */
export type ShareGroupRecord =
  | { type: 'ShareGroupMetadata'; group: string; value: ShareGroupMetadataValue | null }
  | { type: 'ShareGroupMemberMetadata'; group: string; memberId: string; value: ShareGroupMemberMetadataValue | null }
  | {
      type: 'ShareGroupTargetAssignmentMetadata';
      group: string;
      value: ShareGroupTargetAssignmentMetadataValue | null;
    }
  | {
      type: 'ShareGroupTargetAssignmentMember';
      group: string;
      memberId: string;
      value: ShareGroupTargetAssignmentMemberValue | null;
    }
  | {
      type: 'ShareGroupCurrentMemberAssignment';
      group: string;
      memberId: string;
      value: ShareGroupCurrentMemberAssignmentValue | null;
    }
  | { type: 'ShareGroupStatePartitionMetadata'; group: string; value: ShareGroupStatePartitionMetadataValue | null };

export const isShareGroupRecord = (r: CoordinatorRecord): r is ShareGroupRecord => r.type.startsWith('ShareGroup');

/** The value of the record variant `T` (what the value reader of its record type decodes). */
type RecordValue<T extends CoordinatorRecord['type']> = Extract<CoordinatorRecord, { type: T }>['value'];

/** Key and value bytes of a record (value null: tombstone). */
export interface EncodedRecord {
  key: Buffer;
  value: Buffer | null;
}

/** Key and value specs by record type (Kafka 4.4: CoordinatorRecordType ids). */
const SPECS = new Map(OFFSETS_TOPIC_RECORDS.map((s) => [s.key.type, s]));
const specFor = (type: number): (typeof OFFSETS_TOPIC_RECORDS)[number] => SPECS.get(type)!;

function encodeWith<M>(
  version: number,
  write: (w: Writer, v: number, m: M) => void,
  msg: M,
  schemaVersion = version,
): Buffer {
  const w = new Writer(64);
  w.int16(version);
  write(w, schemaVersion, msg);
  return w.toBuffer();
}

/** Encodes a record's key and value in Kafka's layout. */
export function encodeRecord(r: CoordinatorRecord): EncodedRecord {
  switch (r.type) {
    case 'OffsetCommit': {
      const spec = specFor(RecordType.OffsetCommit);
      const key = encodeWith(1, spec.key.write, { group: r.group, topic: r.topic, partition: r.partition });
      if (r.value === null) return { key, value: null };
      const v = r.value.expireTimestamp >= 0n ? OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRE : OFFSET_COMMIT_VALUE_VERSION;
      return { key, value: encodeWith(v, spec.value!.write, r.value) };
    }
    case 'GroupMetadata': {
      const spec = specFor(RecordType.GroupMetadata);
      const key = encodeWith(2, spec.key.write, { group: r.group });
      return {
        key,
        value: r.value === null ? null : encodeWith(GROUP_METADATA_VALUE_VERSION, spec.value!.write, r.value),
      };
    }
    default: {
      const type = RecordType[r.type];
      const spec = specFor(type);
      const keyMsg =
        'memberId' in r
          ? { groupId: r.group, memberId: r.memberId }
          : 'regularExpression' in r
            ? { groupId: r.group, regularExpression: r.regularExpression }
            : { groupId: r.group };
      const key = encodeWith(type, spec.key.write, keyMsg);
      return { key, value: r.value === null ? null : encodeWith(0, spec.value!.write, r.value) };
    }
  }
}

/**
 * Decodes a record's key and value (GroupCoordinatorRecordSerde.deserialize). Returns null for
 * record types this coordinator does not keep, throws on malformed bytes.
 */
export function decodeRecord(key: Buffer, value: Buffer | null): CoordinatorRecord | null {
  const kr = new Reader(key);
  const type = kr.int16();
  const spec = SPECS.get(type);
  if (!spec) throw new Error(`unknown __consumer_offsets record key version ${type}`);
  const k = spec.key.read(kr, type);
  let v: unknown = null;
  if (value !== null) {
    const vr = new Reader(value);
    const version = vr.int16();
    if (!spec.value || version < spec.value.minVersion || version > spec.value.maxVersion) {
      throw new Error(`unknown ${spec.value?.name ?? 'value'} version ${version}`);
    }
    v = spec.value.read(vr, version);
  }
  switch (type) {
    case 0: {
      // LegacyOffsetCommitKey/Value, read as an OffsetCommit (GroupCoordinatorShard.convertLegacyOffsetCommitValue).
      const lv = v as LegacyOffsetCommitValue | null;
      const value: OffsetCommitRecordValue | null =
        lv === null
          ? null
          : {
              offset: lv.offset,
              leaderEpoch: -1,
              metadata: lv.metadata,
              commitTimestamp: lv.commitTimestamp,
              expireTimestamp: -1n,
              topicId: ZERO_UUID,
            };
      return { type: 'OffsetCommit', group: k.group, topic: k.topic, partition: k.partition, value };
    }
    case 1:
      return {
        type: 'OffsetCommit',
        group: k.group,
        topic: k.topic,
        partition: k.partition,
        value: v as RecordValue<'OffsetCommit'>,
      };
    case 2:
      return { type: 'GroupMetadata', group: k.group, value: v as RecordValue<'GroupMetadata'> };
    case 3:
      return { type: 'ConsumerGroupMetadata', group: k.groupId, value: v as RecordValue<'ConsumerGroupMetadata'> };
    case 4:
      return {
        type: 'ConsumerGroupPartitionMetadata',
        group: k.groupId,
        value: v as RecordValue<'ConsumerGroupPartitionMetadata'>,
      };
    case 5:
      return {
        type: 'ConsumerGroupMemberMetadata',
        group: k.groupId,
        memberId: k.memberId,
        value: v as RecordValue<'ConsumerGroupMemberMetadata'>,
      };
    case 6:
      return {
        type: 'ConsumerGroupTargetAssignmentMetadata',
        group: k.groupId,
        value: v as RecordValue<'ConsumerGroupTargetAssignmentMetadata'>,
      };
    case 7:
      return {
        type: 'ConsumerGroupTargetAssignmentMember',
        group: k.groupId,
        memberId: k.memberId,
        value: v as RecordValue<'ConsumerGroupTargetAssignmentMember'>,
      };
    case 8:
      return {
        type: 'ConsumerGroupCurrentMemberAssignment',
        group: k.groupId,
        memberId: k.memberId,
        value: v as RecordValue<'ConsumerGroupCurrentMemberAssignment'>,
      };
    case 16:
      return {
        type: 'ConsumerGroupRegularExpression',
        group: k.groupId,
        regularExpression: k.regularExpression,
        value: v as RecordValue<'ConsumerGroupRegularExpression'>,
      };
    case 10:
    case 13:
    case 14: {
      const t =
        type === 10
          ? 'ShareGroupMemberMetadata'
          : type === 13
            ? 'ShareGroupTargetAssignmentMember'
            : 'ShareGroupCurrentMemberAssignment';
      return { type: t, group: k.groupId, memberId: k.memberId, value: v } as CoordinatorRecord;
    }
    case 11:
      return { type: 'ShareGroupMetadata', group: k.groupId, value: v as RecordValue<'ShareGroupMetadata'> };
    case 12:
      return {
        type: 'ShareGroupTargetAssignmentMetadata',
        group: k.groupId,
        value: v as RecordValue<'ShareGroupTargetAssignmentMetadata'>,
      };
    case 15:
      return {
        type: 'ShareGroupStatePartitionMetadata',
        group: k.groupId,
        value: v as RecordValue<'ShareGroupStatePartitionMetadata'>,
      };
    case 17:
    case 20:
    case 23: {
      const t =
        type === 17
          ? 'StreamsGroupMetadata'
          : type === 20
            ? 'StreamsGroupTargetAssignmentMetadata'
            : 'StreamsGroupTopology';
      return { type: t, group: k.groupId, value: v } as CoordinatorRecord;
    }
    case 19:
    case 21:
    case 22: {
      const t =
        type === 19
          ? 'StreamsGroupMemberMetadata'
          : type === 21
            ? 'StreamsGroupTargetAssignmentMember'
            : 'StreamsGroupCurrentMemberAssignment';
      return { type: t, group: k.groupId, memberId: k.memberId, value: v } as CoordinatorRecord;
    }
    default:
      return null;
  }
}

/** The group a record belongs to. */
export const recordGroup = (r: CoordinatorRecord): string => r.group;
