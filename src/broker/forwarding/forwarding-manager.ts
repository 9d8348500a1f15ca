// Forwarding of controller APIs from the broker listener to the active controller (KIP-590): Kafka's
// ForwardingManagerImpl + ForwardingManagerUtil.buildEnvelopeRequest. The request, header included,
// is written as the client sent it (RequestContext.buildRequestEnvelopePayload) into an Envelope with
// the client's serialised principal and address; the controller's answer is unwrapped and returned as
// the response to the client. An Envelope error other than UNSUPPORTED_VERSION becomes the request's
// error response with UNKNOWN_SERVER_ERROR; UNSUPPORTED_VERSION closes the client connection
// (KafkaApis.handleInvalidVersionsDuringForwarding); the retry deadline passing answers
// REQUEST_TIMED_OUT (TimeoutException). NOT_CONTROLLER envelopes are retried by the channel.
import { apiByKey } from '../../client/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import { decodeResponse, encodeRequest } from '../../protocol/frame.js';
import type { EnvelopeResponse } from '../../protocol/generated/protocol/Envelope.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import { CloseConnectionError, type RequestContext } from '../api/types.js';
import { ControllerChannelTimeoutError, type ControllerChannel } from './controller-channel.js';
import { addressBytes, ANONYMOUS, serializePrincipal, type KafkaPrincipal } from './principal.js';

/** ApiKeys whose `forwardable` flag is set in Kafka 4.4 (ApiKeys.java). */
export const FORWARDABLE_APIS: ReadonlySet<number> = new Set([
  ApiKey.CreateTopics,
  ApiKey.DeleteTopics,
  ApiKey.CreateAcls,
  ApiKey.DeleteAcls,
  ApiKey.AlterConfigs,
  ApiKey.CreatePartitions,
  ApiKey.CreateDelegationToken,
  ApiKey.RenewDelegationToken,
  ApiKey.ExpireDelegationToken,
  ApiKey.ElectLeaders,
  ApiKey.IncrementalAlterConfigs,
  ApiKey.AlterPartitionReassignments,
  ApiKey.ListPartitionReassignments,
  ApiKey.AlterClientQuotas,
  ApiKey.AlterUserScramCredentials,
  ApiKey.DescribeQuorum,
  ApiKey.UpdateFeatures,
  ApiKey.UnregisterBroker,
  ApiKey.UnregisterController,
  ApiKey.AllocateProducerIds,
  ApiKey.AddRaftVoter,
  ApiKey.RemoveRaftVoter,
]);

/** The request's principal (`Type:name`) as the Envelope carries it; User:ANONYMOUS when absent. */
function principalOf(ctx: RequestContext): KafkaPrincipal {
  const p = ctx.principal;
  const i = p === undefined ? -1 : p.indexOf(':');
  if (p === undefined || i < 0) return ANONYMOUS;
  return { type: p.slice(0, i), name: p.slice(i + 1), tokenAuthenticated: false };
}

const ENVELOPE = apiByKey(ApiKey.Envelope)!;

export interface ForwardingOptions {
  /** Retry deadline of one forwarded request (Kafka: the forwarding channel's `request.timeout.ms`). */
  readonly requestTimeoutMs: number;
  readonly logger?: { warn(message: string): void };
}

export class ForwardingManager {
  constructor(
    readonly channel: ControllerChannel,
    private readonly opts: ForwardingOptions,
  ) {}

  /**
   * Forwards `request` (what the dispatcher decoded under `ctx`) and resolves with the controller's
   * response body, or with `errorResponse(code)` when forwarding fails.
   */
  async forward(
    ctx: RequestContext,
    request: unknown,
    errorResponse: (errorCode: number) => unknown,
    principal: KafkaPrincipal = principalOf(ctx),
  ): Promise<unknown> {
    const framed = Buffer.concat(encodeRequest(ctx.apiKey, ctx.apiVersion, ctx.correlationId, ctx.clientId, request));
    let clientHostAddress: Buffer;
    try {
      clientHostAddress = addressBytes(ctx.clientAddress);
    } catch {
      clientHostAddress = Buffer.from([127, 0, 0, 1]);
    }
    let envelope: EnvelopeResponse;
    try {
      const res = await this.channel.send<EnvelopeResponse>(
        ENVELOPE,
        { requestData: framed.subarray(4), requestPrincipal: serializePrincipal(principal), clientHostAddress },
        {
          retryTimeoutMs: this.opts.requestTimeoutMs,
          isNotController: (b) => b.errorCode === ErrorCode.NOT_CONTROLLER,
        },
      );
      envelope = res.body;
    } catch (e) {
      if (e instanceof ControllerChannelTimeoutError) {
        this.opts.logger?.warn(`Forwarding of ${describe(ctx)} failed: ${e.message}`);
        return errorResponse(ErrorCode.REQUEST_TIMED_OUT);
      }
      throw e;
    }
    if (envelope.errorCode === ErrorCode.UNSUPPORTED_VERSION) {
      throw new CloseConnectionError(`The controller cannot handle ${describe(ctx)} (UNSUPPORTED_VERSION)`);
    }
    if (envelope.errorCode !== ErrorCode.NONE || !envelope.responseData) {
      this.opts.logger?.warn(`Forwarded request ${describe(ctx)} failed with envelope error ${envelope.errorCode}`);
      return errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
    try {
      return decodeResponse(ctx.apiKey, ctx.apiVersion, envelope.responseData).body;
    } catch (e) {
      this.opts.logger?.warn(`Failed to parse the forwarded response to ${describe(ctx)}: ${(e as Error).message}`);
      return errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
  }

  close(): void {
    this.channel.close();
  }
}

function describe(ctx: RequestContext): string {
  return `api key ${ctx.apiKey} v${ctx.apiVersion} (correlation id ${ctx.correlationId}, client ${ctx.clientId ?? ''})`;
}
