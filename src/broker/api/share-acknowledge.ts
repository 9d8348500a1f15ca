// ShareAcknowledge (API 79), v1-2 (KIP-932): KafkaApis.handleShareAcknowledgeRequest. Acknowledges
// records acquired through the member's share session (epoch 0 is invalid here, -1 acknowledges and
// closes the session, releasing the member's other acquired records). Per-partition errors:
// UNKNOWN_TOPIC_ID, TOPIC_AUTHORIZATION_FAILED, INVALID_REQUEST (malformed batches),
// INVALID_RECORD_STATE (not acquired by this member), the persister's. v2 answers the lock duration.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
  ShareAcknowledgeResponseShareAcknowledgeTopicResponse,
} from '../../protocol/generated/protocol/ShareAcknowledge.js';
import type { ShareFetchResponseNodeEndpoint } from '../../protocol/generated/protocol/ShareFetch.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import { SHARE_VERSION_FEATURE } from '../metadata/features.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { sharePartitionManagerOf } from '../share/share-partition-manager.js';
import { FINAL_EPOCH, ShareSessionError, tipKey, type ShareTopicIdPartition } from '../share/share-session.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { genericErrorResponse } from './error-responses.js';
import {
  invalidAcknowledgements,
  isMemberIdValid,
  leaderOf,
  partitionAccessError,
  resolve,
  type AckData,
} from './share-fetch.js';

export const SHARE_ACKNOWLEDGE_MIN_VERSION = 1;
export const SHARE_ACKNOWLEDGE_MAX_VERSION = 2;

function topError(errorCode: number, errorMessage: string | null): Input<ShareAcknowledgeResponse> {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] };
}

async function handleShareAcknowledge(
  ctx: RequestContext,
  req: ShareAcknowledgeRequest,
  services: BrokerServices,
): Promise<Input<ShareAcknowledgeResponse>> {
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
  try {
    manager.sessions.acknowledgeSessionUpdate(groupId, memberId, req.shareSessionEpoch);
  } catch (e) {
    if (!(e instanceof ShareSessionError)) throw e;
    return topError(e.errorCode, e.message);
  }
  const isRenewAck = v >= 2 && req.isRenewAck;
  const acks: AckData = new Map();
  const all: ShareTopicIdPartition[] = [];
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const tip = resolve(rm, t.topicId, p.partitionIndex);
      all.push(tip);
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
  const errors = new Map<string, number>();
  const readable = new Map<string, boolean>();
  const bad = invalidAcknowledgements(acks, v, isRenewAck);
  const toAck: AckData = new Map();
  for (const [k, a] of acks) {
    const access = partitionAccessError(services, ctx, a.tip, readable);
    if (access !== ErrorCode.NONE) errors.set(k, access);
    else if (bad.has(k)) errors.set(k, ErrorCode.INVALID_REQUEST);
    else toAck.set(k, a);
  }
  for (const [k, code] of await manager.acknowledge(groupId, memberId, toAck)) errors.set(k, code);
  if (req.shareSessionEpoch === FINAL_EPOCH) await manager.releaseSession(groupId, memberId);

  const endpoints = new Map<number, Input<ShareFetchResponseNodeEndpoint>>();
  const byTopic = new Map<string, Input<ShareAcknowledgeResponseShareAcknowledgeTopicResponse>>();
  for (const tip of all) {
    const code = errors.get(tipKey(tip)) ?? ErrorCode.NONE;
    let topic = byTopic.get(tip.topicId);
    if (!topic) byTopic.set(tip.topicId, (topic = { topicId: tip.topicId, partitions: [] }));
    topic.partitions!.push({
      partitionIndex: tip.partition,
      errorCode: code,
      errorMessage: null,
      currentLeader: leaderOf(rm, ctx, tip, code, endpoints),
    });
  }
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    acquisitionLockTimeoutMs: manager.recordLockDurationMs(groupId),
    responses: [...byTopic.values()],
    nodeEndpoints: [...endpoints.values()],
  };
}

export const handler: ApiHandler<BrokerServices, ShareAcknowledgeRequest, Input<ShareAcknowledgeResponse>> = {
  apiKey: ApiKey.ShareAcknowledge,
  minVersion: SHARE_ACKNOWLEDGE_MIN_VERSION,
  maxVersion: SHARE_ACKNOWLEDGE_MAX_VERSION,
  listeners: ['broker'],
  handle: handleShareAcknowledge,
  errorResponse: genericErrorResponse,
};

/** ShareVersion.supportsShareGroups of the finalized share.version (KafkaApis.isShareGroupProtocolEnabled). */
function shareGroupsEnabled(services: BrokerServices): boolean {
  return (metadataSourceOf(services).image.features.get(SHARE_VERSION_FEATURE) ?? 0) >= 1;
}
