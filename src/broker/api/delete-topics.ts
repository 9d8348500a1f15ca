// DeleteTopics (API 20): by name (v0-5, and v6 entries with a zero id) or by topic id (v6), handed
// to the KRaft controller (ControllerApis.deleteTopics + ReplicationControlManager.deleteTopics):
// UNKNOWN_TOPIC_OR_PARTITION / UNKNOWN_TOPIC_ID for absent topics, INVALID_REQUEST for duplicates
// and name+id entries. As in Kafka's KRaft mode, internal topics are not refused.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { DeleteTopicsRequest, DeleteTopicsResponse } from '../../protocol/generated/protocol/DeleteTopics.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf, imageOf } from './admin-support.js';
import { AclOperation, authorize, authorizeCluster, authorizerOf, ResourceType } from './authz.js';
import { TOPIC_AUTHORIZATION_FAILED_MESSAGE } from './authz-admin.js';
import { controllerMutationQuotaFor } from '../quota/managers.js';
import { STRICT_SINCE_VERSION } from '../quota/controller-mutation-quota.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

/** DeleteTopicsRequest.topics(): v0-5 names as entries with a zero id. */
function requestedTopics(req: DeleteTopicsRequest, v: number): { name: string | null; topicId: string }[] {
  return v >= 6
    ? req.topics.map((t) => ({ name: t.name, topicId: t.topicId }))
    : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
}

interface Deletion {
  name: string | null;
  topicId: string;
}

/**
 * ControllerApis.deleteTopics' authorization: DELETE on the cluster, else DESCRIBE and DELETE on each
 * topic. A name the principal may not describe is 29 whether the topic exists or not; a topic given
 * by id that it may not delete is 29, without its name unless it may describe it. Duplicates, absent
 * ids and name+id entries are left to the controller, which answers them as before.
 */
function authorizeDeletions(
  ctx: RequestContext,
  services: BrokerServices,
  topics: Deletion[],
): { kept: Deletion[]; denied: (Deletion & { errorCode: number; errorMessage: string })[] } {
  if (!authorizerOf(services) || authorizeCluster(services, ctx, AclOperation.DELETE))
    return { kept: topics, denied: [] };
  const image = imageOf(services);
  const count = new Map<string, number>();
  const key = (t: Deletion): string => (t.topicId !== ZERO_UUID ? `id:${t.topicId}` : `name:${t.name ?? ''}`);
  for (const t of topics) count.set(key(t), (count.get(key(t)) ?? 0) + 1);
  const may = (op: number, name: string): boolean => authorize(services, ctx, op, ResourceType.TOPIC, name);
  const kept: Deletion[] = [];
  const denied: (Deletion & { errorCode: number; errorMessage: string })[] = [];
  const deny = (name: string | null, topicId: string): void => {
    denied.push({
      name,
      topicId,
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      errorMessage: TOPIC_AUTHORIZATION_FAILED_MESSAGE,
    });
  };
  for (const t of topics) {
    if (count.get(key(t))! > 1) {
      kept.push(t);
    } else if (t.topicId !== ZERO_UUID) {
      const topic = t.name === null || t.name === '' ? image.topicById(t.topicId) : undefined;
      if (!topic || may(AclOperation.DELETE, topic.name)) kept.push(t);
      else deny(may(AclOperation.DESCRIBE, topic.name) ? topic.name : null, t.topicId);
    } else {
      const name = t.name ?? '';
      if (!may(AclOperation.DESCRIBE, name)) deny(name, ZERO_UUID);
      else if (image.topic(name) && !may(AclOperation.DELETE, name)) deny(name, ZERO_UUID);
      else kept.push(t);
    }
  }
  return { kept, denied };
}

async function handle(
  ctx: RequestContext,
  req: DeleteTopicsRequest,
  services: BrokerServices,
): Promise<DeleteTopicsResponse> {
  const v = ctx.apiVersion;
  if (!services.config.getBoolean('delete.topic.enable')) {
    // The controller throws before looking at topics; the request's error response names them all.
    const [code, message] =
      v < 3 ? [ErrorCode.INVALID_REQUEST, 'Topic deletion is disabled.'] : [ErrorCode.TOPIC_DELETION_DISABLED, null];
    return {
      throttleTimeMs: 0,
      responses: requestedTopics(req, v).map((t) => ({
        name: t.name,
        topicId: t.topicId,
        errorCode: code,
        errorMessage: v >= 5 ? message : null,
      })),
    };
  }
  const { kept, denied } = authorizeDeletions(ctx, services, requestedTopics(req, v));
  // controller_mutation_rate (quota/): strict from v5
  const quota = controllerMutationQuotaFor(services, ctx, STRICT_SINCE_VERSION.DeleteTopics);
  const results = [
    ...denied,
    ...(kept.length === 0 && denied.length > 0
      ? []
      : await controllerOf(services).deleteTopics(
          v >= 6 ? { topics: kept } : { topicNames: kept.map((t) => t.name ?? '') },
          { applyPartitionChangeQuota: quota.apply },
        )),
  ];
  return {
    throttleTimeMs: quota.finish(),
    responses: results.map((r) => ({
      name: r.name,
      topicId: v >= 6 ? r.topicId : ZERO_UUID,
      errorCode: r.errorCode,
      errorMessage: v >= 5 ? r.errorMessage : null,
    })),
  };
}

export const handler: ApiHandler<BrokerServices, DeleteTopicsRequest, Input<DeleteTopicsResponse>> = {
  apiKey: ApiKey.DeleteTopics,
  minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 6,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
};
