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
import { controllerOf } from './admin-support.js';
import { controllerMutationQuotaFor } from '../quota/managers.js';
import { STRICT_SINCE_VERSION } from '../quota/controller-mutation-quota.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

/** DeleteTopicsRequest.topics(): v0-5 names as entries with a zero id. */
function requestedTopics(req: DeleteTopicsRequest, v: number): { name: string | null; topicId: string }[] {
  return v >= 6
    ? req.topics.map((t) => ({ name: t.name, topicId: t.topicId }))
    : req.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
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
  // controller_mutation_rate (quota/): strict from v5
  const quota = controllerMutationQuotaFor(services, ctx, STRICT_SINCE_VERSION.DeleteTopics);
  const results = await controllerOf(services).deleteTopics(
    v >= 6 ? { topics: requestedTopics(req, v) } : { topicNames: req.topicNames },
    { applyPartitionChangeQuota: quota.apply },
  );
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
