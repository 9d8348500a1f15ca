// PushTelemetry (API 72), v0, broker listener: a client instance's metrics (KIP-714), checked as
// ClientMetricsManager.validatePushRequest does — INVALID_REQUEST for a reserved instance id or after a
// terminating push, THROTTLING_QUOTA_EXCEEDED before the interval (not for a terminating push),
// UNKNOWN_SUBSCRIPTION_ID, UNSUPPORTED_COMPRESSION_TYPE, TELEMETRY_TOO_LARGE over telemetry.max.bytes —
// then exported to the client metrics store; a payload that does not decompress or decode as OTLP
// MetricsData is INVALID_RECORD. No ACL check, as Kafka 4.4.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { PushTelemetryRequest, PushTelemetryResponse } from '../../protocol/generated/protocol/PushTelemetry.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { clientTelemetryOf } from '../telemetry/service.js';
import { telemetryRequestInfo } from './get-telemetry-subscriptions.js';

async function handle(
  ctx: RequestContext,
  req: PushTelemetryRequest,
  services: BrokerServices,
): Promise<Input<PushTelemetryResponse>> {
  const telemetry = clientTelemetryOf(services);
  if (!telemetry) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST };
  const errorCode = await telemetry.manager.push(req, telemetryRequestInfo(ctx));
  return { throttleTimeMs: 0, errorCode };
}

export const handler: ApiHandler<BrokerServices, PushTelemetryRequest, Input<PushTelemetryResponse>> = {
  apiKey: ApiKey.PushTelemetry,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
