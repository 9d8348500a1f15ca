// GetTelemetrySubscriptions (API 71), v0, broker listener: KIP-714's subscription of a client instance
// (KafkaApis.handleGetTelemetrySubscriptionsRequest → ClientMetricsManager): a zero client instance id
// gets a new one; the answer carries the subscription id, the requested metric prefixes, the push
// interval, the accepted compression types, telemetry.max.bytes and delta temporality;
// THROTTLING_QUOTA_EXCEEDED before the interval. No ACL check, as Kafka 4.4. Registered only when
// client telemetry is on (api/register-telemetry.ts).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  GetTelemetrySubscriptionsRequest,
  GetTelemetrySubscriptionsResponse,
} from '../../protocol/generated/protocol/GetTelemetrySubscriptions.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { clientTelemetryOf } from '../telemetry/service.js';
import { clientPortOf, type TelemetryRequestInfo } from '../telemetry/client-metrics-manager.js';

/** What ClientMetricsInstanceMetadata reads from Kafka's RequestContext. */
export function telemetryRequestInfo(ctx: RequestContext): TelemetryRequestInfo {
  const info = ctx.clientInformation;
  return {
    connectionId: ctx.connectionId,
    clientId: ctx.clientId,
    softwareName: info?.softwareName,
    softwareVersion: info?.softwareVersion,
    clientAddress: ctx.clientAddress.replace(/^::ffff:/, ''),
    clientPort: clientPortOf(ctx.connectionId),
  };
}

function handle(
  ctx: RequestContext,
  req: GetTelemetrySubscriptionsRequest,
  services: BrokerServices,
): Input<GetTelemetrySubscriptionsResponse> {
  const telemetry = clientTelemetryOf(services);
  if (!telemetry)
    return genericErrorResponse(ctx, req, ErrorCode.INVALID_REQUEST) as Input<GetTelemetrySubscriptionsResponse>;
  const r = telemetry.manager.getSubscriptions(req.clientInstanceId, telemetryRequestInfo(ctx));
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    clientInstanceId: r.clientInstanceId,
    subscriptionId: r.subscriptionId,
    acceptedCompressionTypes: [...r.acceptedCompressionTypes],
    pushIntervalMs: r.pushIntervalMs,
    telemetryMaxBytes: r.telemetryMaxBytes,
    deltaTemporality: r.deltaTemporality,
    requestedMetrics: [...r.requestedMetrics],
  };
}

export const handler: ApiHandler<
  BrokerServices,
  GetTelemetrySubscriptionsRequest,
  Input<GetTelemetrySubscriptionsResponse>
> = {
  apiKey: ApiKey.GetTelemetrySubscriptions,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
