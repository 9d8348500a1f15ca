// Shared pieces of the classic protocol: request shapes, timer keys, the GroupMetadata records of
// a classic group (GroupCoordinatorRecordHelpers) and how append errors reach clients.
import { ErrorCode } from '../../protocol/errors.js';
import { EMPTY_ASSIGNMENT, type ClassicGroup, type Protocol } from './classic-group.js';
import type { CoordinatorRecord } from './records.js';
import type { OpResult } from './shard-types.js';

export type Op<T> = OpResult<T>;
/** A parked response (wrapped: a promise returned from the shard's queue would be awaited there). */
export interface Parked<T> {
  wait: Promise<T>;
}
export const NONE = ErrorCode.NONE;

export interface JoinRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: Protocol[];
}

export interface SyncRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export const hbKey = (g: string, m: string): string => `classic-hb-${g}-${m}`;
export const joinKey = (g: string): string => `classic-join-${g}`;
export const syncKey = (g: string): string => `classic-sync-${g}`;

/** appendGroupMetadataErrorToResponseError. */
export function appendErrorToResponseError(e: number): number {
  switch (e) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return e;
  }
}

/** GroupMetadata record of a classic group (GroupCoordinatorRecordHelpers.newGroupMetadataRecord). */
export function groupMetadataRecord(g: ClassicGroup, assignment: ReadonlyMap<string, Buffer>): CoordinatorRecord {
  const members = [...g.members.values()].map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeout: m.rebalanceTimeoutMs,
    sessionTimeout: m.sessionTimeoutMs,
    subscription: m.metadata(g.protocolName!),
    assignment: assignment.get(m.memberId) ?? EMPTY_ASSIGNMENT,
  }));
  return {
    type: 'GroupMetadata',
    group: g.groupId,
    value: {
      protocolType: g.protocolType ?? '',
      generation: g.generationId,
      protocol: g.protocolName,
      leader: g.leaderId,
      currentStateTimestamp: BigInt(g.currentStateTimestamp ?? -1),
      members,
    },
  };
}

export function emptyGroupMetadataRecord(g: ClassicGroup): CoordinatorRecord {
  return {
    type: 'GroupMetadata',
    group: g.groupId,
    value: {
      protocolType: g.protocolType ?? '',
      generation: 0,
      protocol: null,
      leader: null,
      currentStateTimestamp: BigInt(g.currentStateTimestamp ?? -1),
      members: [],
    },
  };
}

export const classicResult = <T>(
  response: T,
  records: CoordinatorRecord[] = [],
  onAppended?: (e: number) => void,
): Op<T> => ({ records, response, replay: false, onAppended });
