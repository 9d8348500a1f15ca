// CreatePartitions (API 37), v0-3: handed to the KRaft controller (ControllerApis.createPartitions +
// ReplicationControlManager.createPartitions): INVALID_PARTITIONS "Topic already has 3 partition(s)."
// or "The topic t currently has 3 partition(s); 2 would not be an increase.", assignment errors,
// duplicates; validate-only changes nothing.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  CreatePartitionsRequest,
  CreatePartitionsResponse,
} from '../../protocol/generated/protocol/CreatePartitions.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, filterAuthorized, ResourceType } from './authz-admin.js';
import { controllerMutationQuotaFor } from '../quota/managers.js';
import { STRICT_SINCE_VERSION } from '../quota/controller-mutation-quota.js';

async function handle(
  ctx: RequestContext,
  req: CreatePartitionsRequest,
  services: BrokerServices,
): Promise<CreatePartitionsResponse> {
  // ControllerApis.createPartitions: ALTER on the topic, else 29 without a message (duplicated names
  // are left to the controller, which answers them first)
  const counts = new Map<string, number>();
  for (const t of req.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const allowed = filterAuthorized(services, ctx, AclOperation.ALTER, ResourceType.TOPIC, counts.keys());
  const denied = req.topics.filter((t) => counts.get(t.name) === 1 && !allowed.has(t.name));
  // controller_mutation_rate (quota/): strict from v3
  const quota = controllerMutationQuotaFor(services, ctx, STRICT_SINCE_VERSION.CreatePartitions);
  const results = await controllerOf(services).createPartitions(
    req.topics
      .filter((t) => !denied.includes(t))
      .map((t) => ({
        name: t.name,
        count: t.count,
        assignments: t.assignments === null ? null : t.assignments.map((a) => ({ brokerIds: a.brokerIds })),
      })),
    { validateOnly: req.validateOnly, applyPartitionChangeQuota: quota.apply },
  );
  return {
    throttleTimeMs: quota.finish(),
    results: [
      ...denied.map((t) => ({ name: t.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null })),
      ...results.map((r) => ({ name: r.name, errorCode: r.errorCode, errorMessage: r.errorMessage })),
    ],
  };
}

export const handler: ApiHandler<BrokerServices, CreatePartitionsRequest, Input<CreatePartitionsResponse>> = {
  apiKey: ApiKey.CreatePartitions,
  minVersion: 0,
  maxVersion: 3,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
};
