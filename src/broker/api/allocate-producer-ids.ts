// AllocateProducerIds (API 67), v0, controller listener: the next block of 1000 producer ids for a
// broker, recorded as a ProducerIdsRecord in the metadata log (so no id is ever handed out twice)
// — ControllerApis.handleAllocateProducerIdsRequest. This node's own transaction coordinator asks
// the controller directly; other brokers (and tests) use the RPC.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  AllocateProducerIdsRequest,
  AllocateProducerIdsResponse,
} from '../../protocol/generated/protocol/AllocateProducerIds.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, requireCluster } from './authz-admin.js';

interface ControllerLike {
  allocateProducerIds(
    brokerId: number,
    brokerEpoch?: bigint,
  ): Promise<{ errorCode: number; producerIdStart: bigint; producerIdLen: number }>;
}

async function handle(
  _ctx: RequestContext,
  req: AllocateProducerIdsRequest,
  services: BrokerServices,
): Promise<Input<AllocateProducerIdsResponse>> {
  const r = await (services.controller as ControllerLike).allocateProducerIds(req.brokerId, req.brokerEpoch);
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    producerIdStart: r.producerIdStart,
    producerIdLen: r.producerIdLen,
  };
}

export const handler: ApiHandler<
  BrokerServices,
  AllocateProducerIdsRequest,
  Input<AllocateProducerIdsResponse>
> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.AllocateProducerIds,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
