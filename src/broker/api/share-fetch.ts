// ShareFetch (API 78), v1-2 (KIP-932): KafkaApis.handleShareFetchRequest. A share-group member
// fetches through a share session (epoch 0 opens it, -1 closes it, otherwise the session's epoch);
// acknowledgements ride along; records of the session's partitions are acquired for the member
// (AcquiredRecords with delivery counts), waiting up to maxWaitMs for minBytes. v2 adds
// ShareAcquireMode and IsRenewAck (RENEW acknowledgements only, nothing fetched). Membership is not
// checked (Kafka does not): the member id only has to be a valid one. Session errors are answered
// top-level after maxWaitMs (Kafka's idle share fetch timer), partition errors per partition.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  ShareFetchRequest,
  ShareFetchResponse,
  ShareFetchResponseNodeEndpoint,
  ShareFetchResponsePartitionData,
  ShareFetchResponseShareFetchableTopicResponse,
} from '../../protocol/generated/protocol/ShareFetch.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import { SHARE_VERSION_FEATURE } from '../metadata/features.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { sharePartitionManagerOf, type SharePartitionFetchResult } from '../share/share-partition-manager.js';
import { AcknowledgeType, type ShareAcknowledgementBatch } from '../share/share-partition.js';
import { ShareSessionError, tipKey, type ShareTopicIdPartition } from '../share/share-session.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { genericErrorResponse } from './error-responses.js';

export const SHARE_FETCH_MIN_VERSION = 1;
export const SHARE_FETCH_MAX_VERSION = 2;

/** KafkaApis.isMemberIdValid. */
export const isMemberIdValid = (memberId: string | null): memberId is string =>
  memberId !== null && memberId.length > 0 && memberId.length <= 36;

/** A request partition's acknowledgements, by tipKey. */
export type AckData = Map<string, { tip: ShareTopicIdPartition; batches: ShareAcknowledgementBatch[] }>;

/**
 * KafkaApis.validateAcknowledgementBatches: batches in order without overlap, first <= last, types
 * one per batch or one per offset, each a known type; RENEW (v2) only in an IsRenewAck request.
 * Returns the partitions that fail (INVALID_REQUEST).
 */
export function invalidAcknowledgements(acks: AckData, version: number, isRenewAck: boolean): Set<string> {
  const bad = new Set<string>();
  const maxType = version >= 2 ? AcknowledgeType.RENEW : AcknowledgeType.REJECT;
  for (const [k, a] of acks) {
    let prevLast = -1;
    for (const b of a.batches) {
      const types = b.acknowledgeTypes;
      if (
        b.firstOffset > b.lastOffset ||
        b.firstOffset <= prevLast ||
        types.length === 0 ||
        (types.length > 1 && b.lastOffset - b.firstOffset + 1 !== types.length) ||
        types.some((t) => t < 0 || t > maxType) ||
        (!isRenewAck && types.some((t) => t === AcknowledgeType.RENEW))
      ) {
        bad.add(k);
        break;
      }
      prevLast = b.lastOffset;
    }
  }
  return bad;
}

/** The topic partitions of a request by id, their names resolved (null: unknown topic id). */
export function resolve(rm: ReplicaManager, topicId: string, partition: number): ShareTopicIdPartition {
  return { topicId, topic: rm.topicNameById(topicId) ?? null, partition };
}

/** The per-partition error of a partition the request may not use (unknown id, not authorized), or NONE. */
export function partitionAccessError(
  services: BrokerServices,
  ctx: RequestContext,
  tip: ShareTopicIdPartition,
  readable: Map<string, boolean>,
): number {
  if (tip.topic === null) return ErrorCode.UNKNOWN_TOPIC_ID;
  let ok = readable.get(tip.topic);
  if (ok === undefined)
    readable.set(tip.topic, (ok = authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, tip.topic)));
  return ok ? ErrorCode.NONE : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
}

/** The current leader (and its endpoint) of a partition answered NOT_LEADER_OR_FOLLOWER (KIP-951). */
export function leaderOf(
  rm: ReplicaManager,
  ctx: RequestContext,
  tip: ShareTopicIdPartition,
  errorCode: number,
  endpoints: Map<number, Input<ShareFetchResponseNodeEndpoint>>,
): { leaderId: number; leaderEpoch: number } {
  if (
    tip.topic === null ||
    (errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER && errorCode !== ErrorCode.FENCED_LEADER_EPOCH)
  )
    return { leaderId: -1, leaderEpoch: -1 };
  const hint = rm.leaderHint(tip.topic, tip.partition, ctx.listenerName);
  if (!hint) return { leaderId: -1, leaderEpoch: -1 };
  if (hint.endpoint) endpoints.set(hint.endpoint.nodeId, { ...hint.endpoint });
  return { leaderId: hint.leaderId, leaderEpoch: hint.leaderEpoch };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function topError(errorCode: number, errorMessage: string | null, lockMs = 0): Input<ShareFetchResponse> {
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage,
    acquisitionLockTimeoutMs: lockMs,
    responses: [],
    nodeEndpoints: [],
  };
}

interface PartitionOut {
  tip: ShareTopicIdPartition;
  fetch?: SharePartitionFetchResult;
  fetchError?: number;
  ackError?: number;
}

async function handleShareFetch(
  ctx: RequestContext,
  req: ShareFetchRequest,
  services: BrokerServices,
): Promise<Input<ShareFetchResponse>> {
  // KafkaApis.isShareGroupProtocolEnabled: share.version finalized at 1 or more, else UNSUPPORTED_VERSION
  const manager = sharePartitionManagerOf(services);
  if (!manager || !shareGroupsEnabled(services)) return topError(ErrorCode.UNSUPPORTED_VERSION, null);
  const rm = services.replicas as ReplicaManager;
  const v = ctx.apiVersion;
  const groupId = req.groupId;
  if (groupId === null || groupId === '')
    return topError(ErrorCode.INVALID_REQUEST, 'Invalid group id in the request.');
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, groupId))
    return topError(ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
  const memberId = req.memberId;
  if (!isMemberIdValid(memberId)) return topError(ErrorCode.INVALID_REQUEST, 'Invalid member id in the request.');
  const isRenewAck = v >= 2 && req.isRenewAck;
  if (isRenewAck) {
    let msg = '';
    if (req.maxBytes !== 0) msg += 'maxBytes must be set to 0, ';
    if (req.minBytes !== 0) msg += 'minBytes must be set to 0, ';
    if (req.maxRecords !== 0) msg += 'maxRecords must be set to 0, ';
    if (req.maxWaitMs !== 0) msg += 'maxWaitMs must be set to 0, ';
    if (msg !== '') return topError(ErrorCode.INVALID_REQUEST, `${msg}if isRenewAck is true.`);
  }

  const requested: ShareTopicIdPartition[] = [];
  const acks: AckData = new Map();
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const tip = resolve(rm, t.topicId, p.partitionIndex);
      requested.push(tip);
      if (p.acknowledgementBatches.length > 0)
        acks.set(tipKey(tip), {
          tip,
          batches: p.acknowledgementBatches.map((b) => ({
            firstOffset: Number(b.firstOffset),
            lastOffset: Number(b.lastOffset),
            acknowledgeTypes: b.acknowledgeTypes,
          })),
        });
    }
  }
  const forgotten: ShareTopicIdPartition[] = [];
  for (const f of req.forgottenTopicsData)
    for (const partition of f.partitions) forgotten.push(resolve(rm, f.topicId, partition));

  let context;
  try {
    context = manager.sessions.newContext(
      groupId,
      memberId,
      req.shareSessionEpoch,
      requested,
      forgotten,
      acks.size > 0,
      ctx.connectionId,
    );
  } catch (e) {
    if (!(e instanceof ShareSessionError)) throw e;
    // KafkaApis: the error is answered when the idle share fetch timer (maxWaitMs) fires
    await sleep(Math.min(req.maxWaitMs, 30_000));
    return topError(e.errorCode, e.message);
  }

  const lockMs = manager.recordLockDurationMs(groupId);
  const outs = new Map<string, PartitionOut>();
  const readable = new Map<string, boolean>();
  const valid: ShareTopicIdPartition[] = [];
  for (const tip of context.partitions) {
    const err = partitionAccessError(services, ctx, tip, readable);
    if (err !== ErrorCode.NONE) outs.set(tipKey(tip), { tip, fetchError: err });
    else valid.push(tip);
  }

  // acknowledgements first (handleAcknowledgements), then the fetch
  if (acks.size > 0) {
    const bad = invalidAcknowledgements(acks, v, isRenewAck);
    const toAck: AckData = new Map();
    for (const [k, a] of acks) {
      const out = outs.get(k) ?? { tip: a.tip };
      outs.set(k, out);
      const access = partitionAccessError(services, ctx, a.tip, readable);
      if (access !== ErrorCode.NONE) out.ackError = access;
      else if (bad.has(k)) out.ackError = ErrorCode.INVALID_REQUEST;
      else toAck.set(k, a);
    }
    for (const [k, code] of await manager.acknowledge(groupId, memberId, toAck)) outs.get(k)!.ackError = code;
  }

  if (context.kind === 'final') {
    // the session ends: the member's other acquired records go back
    await manager.releaseSession(groupId, memberId);
  } else if (!isRenewAck && valid.length > 0) {
    const results = await manager.fetch({
      groupId,
      memberId,
      partitions: valid,
      maxWaitMs: req.maxWaitMs,
      minBytes: req.minBytes,
      maxBytes: Math.min(req.maxBytes, rm.fetchMaxBytes),
      maxRecords: req.maxRecords,
      batchSize: req.batchSize,
      acquireMode: v >= 2 ? req.shareAcquireMode : 0,
      connectionId: ctx.connectionId,
      isLive: () => manager.sessions.get(groupId, memberId) === context.session,
    });
    for (const tip of valid) {
      const k = tipKey(tip);
      const out = outs.get(k) ?? { tip };
      out.fetch = results.get(k);
      outs.set(k, out);
    }
  }

  // a full context answers every session partition; an incremental one those with something to say
  const endpoints = new Map<number, Input<ShareFetchResponseNodeEndpoint>>();
  const byTopic = new Map<string, Input<ShareFetchResponseShareFetchableTopicResponse>>();
  for (const out of outs.values()) {
    const fetchError = out.fetchError ?? out.fetch?.errorCode ?? ErrorCode.NONE;
    const hasData = (out.fetch?.acquiredRecords.length ?? 0) > 0;
    if (context.kind === 'incremental') {
      if (!hasData && fetchError === ErrorCode.NONE && out.ackError === undefined) continue;
      // ShareSessionContext.PartitionIterator: a partition that returned records moves to the end of
      // the session, so the next fetches start with the others
      const k = tipKey(out.tip);
      if (hasData && context.session?.partitions.has(k)) {
        context.session.partitions.delete(k);
        context.session.partitions.set(k, out.tip);
      }
    }
    const error = fetchError !== ErrorCode.NONE ? fetchError : (out.ackError ?? ErrorCode.NONE);
    const pd: Input<ShareFetchResponsePartitionData> = {
      partitionIndex: out.tip.partition,
      errorCode: fetchError,
      errorMessage: out.fetch?.errorMessage ?? null,
      acknowledgeErrorCode: out.ackError ?? ErrorCode.NONE,
      acknowledgeErrorMessage: null,
      currentLeader: leaderOf(rm, ctx, out.tip, error, endpoints),
      records: out.fetch?.records ?? Buffer.alloc(0),
      acquiredRecords: (out.fetch?.acquiredRecords ?? []).map((a) => ({
        firstOffset: BigInt(a.firstOffset),
        lastOffset: BigInt(a.lastOffset),
        deliveryCount: a.deliveryCount,
      })),
    };
    let topic = byTopic.get(out.tip.topicId);
    if (!topic) byTopic.set(out.tip.topicId, (topic = { topicId: out.tip.topicId, partitions: [] }));
    topic.partitions!.push(pd);
  }
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    acquisitionLockTimeoutMs: lockMs,
    responses: [...byTopic.values()],
    nodeEndpoints: [...endpoints.values()],
  };
}

export const handler: ApiHandler<BrokerServices, ShareFetchRequest, Input<ShareFetchResponse>> = {
  apiKey: ApiKey.ShareFetch,
  minVersion: SHARE_FETCH_MIN_VERSION,
  maxVersion: SHARE_FETCH_MAX_VERSION,
  listeners: ['broker'],
  handle: handleShareFetch,
  errorResponse: genericErrorResponse,
};

/** ShareVersion.supportsShareGroups of the finalized share.version (KafkaApis.isShareGroupProtocolEnabled). */
function shareGroupsEnabled(services: BrokerServices): boolean {
  return (metadataSourceOf(services).image.features.get(SHARE_VERSION_FEATURE) ?? 0) >= 1;
}
