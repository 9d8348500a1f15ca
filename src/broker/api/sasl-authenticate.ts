// SaslAuthenticate (API 36), v0-2. On a SASL listener the connection's authenticator
// (security/authenticator.ts) answers it during authentication; one that reaches the handler
// (a PLAINTEXT listener, or after authentication) gets ILLEGAL_SASL_STATE with
// KafkaApis.handleSaslAuthenticateRequest's message.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  SaslAuthenticateRequest,
  SaslAuthenticateResponse,
} from '../../protocol/generated/protocol/SaslAuthenticate.js';
import type { ApiHandler, RegisteredHandler } from './types.js';
import type { HandlerRegistry, ListenerType } from './registry.js';
import { handler as saslHandshake } from './sasl-handshake.js';

export const handler: ApiHandler<unknown, SaslAuthenticateRequest, Input<SaslAuthenticateResponse>> = {
  apiKey: ApiKey.SaslAuthenticate,
  minVersion: 0,
  maxVersion: 2,
  listeners: ['broker', 'controller'],
  handle: () => ({
    errorCode: ErrorCode.ILLEGAL_SASL_STATE,
    errorMessage: 'SaslAuthenticate request received after successful authentication',
    authBytes: Buffer.alloc(0),
    sessionLifetimeMs: 0n,
  }),
  errorResponse: (_ctx, _req, errorCode) => ({
    errorCode,
    errorMessage: null,
    authBytes: Buffer.alloc(0),
    sessionLifetimeMs: 0n,
  }),
};

/** Registers SaslHandshake and SaslAuthenticate on the node's listener types (Kafka serves them on every listener). */
export function registerSaslHandlers(registry: HandlerRegistry, listeners: readonly ListenerType[]): HandlerRegistry {
  for (const h of [saslHandshake, handler] as RegisteredHandler[]) registry.register({ ...h, listeners });
  return registry;
}
