// DescribeCluster (API 60), v0-2. On broker listeners: the registered brokers on the request's
// listener (fenced ones only when v2's IncludeFencedBrokers asks, with IsFenced, KIP-1073), the
// cluster id, a controller id as KRaft brokers report it, and the cluster's authorized operations (from
// the ACLs with an authorizer: 0 without DESCRIBE on the cluster)
// (AuthHelper.computeDescribeClusterResponse, KafkaApis.handleDescribeCluster).
// On controller listeners (KIP-919, endpoint type CONTROLLER): the registered controllers on the
// listener and the active controller (ControllerApis.handleDescribeCluster).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeClusterRequest,
  DescribeClusterResponse,
} from '../../protocol/generated/protocol/DescribeCluster.js';
import { ErrorCode } from '../../protocol/errors.js';
import { mv } from '../metadata/features.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { clusterAuthorizedOperations } from './authz.js';
import { AUTHORIZED_OPERATIONS_OMITTED, brokerNodes, imageOf, randomAliveBrokerId } from './admin-support.js';

/** DescribeClusterRequest EndpointType ids. */
export const EndpointType = { UNKNOWN: 0, BROKER: 1, CONTROLLER: 2 } as const;
const ENDPOINT_TYPE_NAMES = ['UNKNOWN', 'BROKER', 'CONTROLLER'];

/** The controllers registered with an endpoint on `listener` (ControllerRegistrationsPublisher.describeClusterControllers). */
function controllerNodes(
  image: MetadataImage,
  listener: string,
): { id: number; host: string; port: number; rack: string | null; fenced: boolean }[] {
  const out = [];
  for (const c of image.controllers.values()) {
    const e = c.endpoints.find((x) => x.name === listener);
    if (e) out.push({ id: c.id, host: e.host, port: e.port, rack: null, fenced: false });
  }
  return out.sort((a, b) => a.id - b.id);
}

function handle(ctx: RequestContext, req: DescribeClusterRequest, services: BrokerServices): DescribeClusterResponse {
  const v = ctx.apiVersion;
  const onController = ctx.isControllerListener;
  const expected = onController ? EndpointType.CONTROLLER : EndpointType.BROKER;
  if (onController && !mv.isControllerRegistrationSupported(imageOf(services).metadataVersion)) {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      errorMessage: 'Direct-to-controller communication is not supported with the current MetadataVersion.',
      endpointType: EndpointType.BROKER,
      clusterId: '',
      controllerId: -1,
      brokers: [],
      clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    };
  }
  const requested = v >= 1 ? req.endpointType : EndpointType.BROKER;
  const base: DescribeClusterResponse = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    endpointType: v >= 1 ? expected : EndpointType.BROKER,
    clusterId: services.clusterId,
    controllerId: -1,
    brokers: [],
    clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
  if (requested !== EndpointType.BROKER && requested !== EndpointType.CONTROLLER) {
    return {
      ...base,
      clusterId: '',
      endpointType: EndpointType.BROKER,
      errorCode: v === 0 ? ErrorCode.INVALID_REQUEST : ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
      errorMessage: `Unsupported endpoint type ${requested}`,
    };
  }
  if (requested !== expected) {
    return {
      ...base,
      clusterId: '',
      endpointType: EndpointType.BROKER,
      errorCode: v === 0 ? ErrorCode.INVALID_REQUEST : ErrorCode.MISMATCHED_ENDPOINT_TYPE,
      errorMessage: `The request was sent to an endpoint of type ${ENDPOINT_TYPE_NAMES[expected]}, but we wanted an endpoint of type ${ENDPOINT_TYPE_NAMES[requested]}`,
    };
  }
  const image = imageOf(services);
  const brokers = onController
    ? controllerNodes(image, ctx.listenerName)
    : brokerNodes(image, ctx.listenerName).filter((b) => !b.fenced || (v >= 2 && req.includeFencedBrokers));
  const controllerId = onController ? image.controllerId : randomAliveBrokerId(image);
  return {
    ...base,
    // The controller id is only reported when it is one of the listed nodes.
    controllerId: brokers.some((b) => b.id === controllerId) ? controllerId : -1,
    brokers: brokers.map((b) => ({ brokerId: b.id, host: b.host, port: b.port, rack: b.rack, isFenced: b.fenced })),
    clusterAuthorizedOperations: req.includeClusterAuthorizedOperations
      ? clusterAuthorizedOperations(services, ctx)
      : AUTHORIZED_OPERATIONS_OMITTED,
  };
}

export const handler: ApiHandler<BrokerServices, DescribeClusterRequest, Input<DescribeClusterResponse>> = {
  apiKey: ApiKey.DescribeCluster,
  minVersion: 0,
  maxVersion: 2,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
};
