// Envelope (API 58), v0, controller listener only: a request a broker forwarded for a client (KIP-590).
// As ControllerApis.handleEnvelopeRequest + EnvelopeUtils.handleEnvelopeRequest: the principal is read
// with the default principal serde (PRINCIPAL_DESERIALIZATION_FAILURE when it cannot be), the client
// address must be 4 or 16 bytes (INVALID_REQUEST), the embedded API must be forwardable
// (INVALID_REQUEST) and its header and body readable (UNSUPPORTED_VERSION); the embedded request is
// then handled on this listener as if the client had sent it (same registry, same services), and its
// response, header included, is the Envelope's ResponseData. A response that says NOT_CONTROLLER
// (NOT_LEADER_OR_FOLLOWER for DescribeQuorum) becomes an Envelope NOT_CONTROLLER with no data
// (RequestChannel.Request.buildResponseSend), so the forwarding broker looks for the new controller.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { EnvelopeRequest, EnvelopeResponse } from '../../protocol/generated/protocol/Envelope.js';
import type { Input } from '../../protocol/codec/types.js';
import { ErrorCode } from '../../protocol/errors.js';
import { decodeResponse, materializeFrame, peekRequestHeader } from '../../protocol/frame.js';
import { FORWARDABLE_APIS } from '../forwarding/forwarding-manager.js';
import { addressFromBytes, deserializePrincipal } from '../forwarding/principal.js';
import { Dispatcher, UNKNOWN_CLIENT_INFORMATION, type Logger } from './dispatcher.js';
import type { HandlerRegistry } from './registry.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, authorizeCluster } from './authz.js';
import type { BrokerServices } from '../services.js';

type Res = Input<EnvelopeResponse>;

function envelopeError(errorCode: number): Res {
  return { responseData: null, errorCode };
}

/** Whether any errorCode in the response body is `code` (AbstractResponse.errorCounts().containsKey). */
function hasErrorCode(value: unknown, code: number, depth = 0): boolean {
  if (depth > 8 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => hasErrorCode(v, code, depth + 1));
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === 'errorCode' && v === code) return true;
    if (typeof v === 'object' && !Buffer.isBuffer(v) && hasErrorCode(v, code, depth + 1)) return true;
  }
  return false;
}

/** The Envelope handler over `registry`: the embedded request is dispatched with the same services. */
export function createEnvelopeHandler<Services>(
  registry: HandlerRegistry,
  logger?: Logger,
): ApiHandler<Services, EnvelopeRequest, Res> {
  return {
    apiKey: ApiKey.Envelope,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['controller'],
    async handle(ctx: RequestContext, req: EnvelopeRequest, services: Services): Promise<Res> {
      // ControllerApis.handleEnvelopeRequest: the forwarding node's principal needs CLUSTER_ACTION
      // ("Principal … does not have required CLUSTER_ACTION for envelope"; the response has no message)
      if (!authorizeCluster(services as Pick<BrokerServices, 'authorizer'>, ctx, AclOperation.CLUSTER_ACTION))
        return envelopeError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      if (req.requestPrincipal === null) return envelopeError(ErrorCode.PRINCIPAL_DESERIALIZATION_FAILURE);
      let principal: string;
      try {
        const p = deserializePrincipal(req.requestPrincipal);
        principal = `${p.type}:${p.name}`;
      } catch {
        return envelopeError(ErrorCode.PRINCIPAL_DESERIALIZATION_FAILURE);
      }
      let clientAddress: string;
      try {
        clientAddress = addressFromBytes(req.clientHostAddress);
      } catch {
        return envelopeError(ErrorCode.INVALID_REQUEST);
      }
      let apiKey: number;
      try {
        apiKey = peekRequestHeader(req.requestData).apiKey;
      } catch {
        return envelopeError(ErrorCode.UNSUPPORTED_VERSION);
      }
      if (!FORWARDABLE_APIS.has(apiKey)) return envelopeError(ErrorCode.INVALID_REQUEST);
      const outcome = await new Dispatcher<Services>(registry, services, logger).dispatch(req.requestData, {
        connectionId: ctx.connectionId,
        listenerName: ctx.listenerName,
        isControllerListener: ctx.isControllerListener,
        clientAddress,
        clientInformation: UNKNOWN_CLIENT_INFORMATION,
        principal,
      });
      if (outcome.kind === 'close') return envelopeError(ErrorCode.UNSUPPORTED_VERSION);
      if (outcome.kind === 'noResponse') return envelopeError(ErrorCode.INVALID_REQUEST);
      const responseData = (await materializeFrame(outcome.frame)).subarray(4);
      const notController =
        apiKey === ApiKey.DescribeQuorum ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.NOT_CONTROLLER;
      const { body } = decodeResponse(apiKey, outcome.ctx.apiVersion, responseData);
      if (hasErrorCode(body, notController)) return envelopeError(ErrorCode.NOT_CONTROLLER);
      return { responseData, errorCode: ErrorCode.NONE };
    },
    errorResponse: (_ctx, _req, errorCode) => envelopeError(errorCode),
  };
}
