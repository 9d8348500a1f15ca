// SaslHandshake (API 17), v0-1. On a SASL listener the connection's authenticator
// (security/authenticator.ts) answers it before authentication and for re-authentication; a
// SaslHandshake that reaches the handler (a PLAINTEXT listener, or an authenticated connection that
// may not re-authenticate) gets ILLEGAL_SASL_STATE, as KafkaApis.handleSaslHandshakeRequest answers.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Input } from '../../protocol/codec/types.js';
import type { SaslHandshakeRequest, SaslHandshakeResponse } from '../../protocol/generated/protocol/SaslHandshake.js';
import type { ApiHandler } from './types.js';

export const handler: ApiHandler<unknown, SaslHandshakeRequest, Input<SaslHandshakeResponse>> = {
  apiKey: ApiKey.SaslHandshake,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker', 'controller'],
  handle: () => ({ errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] }),
  errorResponse: (_ctx, _req, errorCode) => ({ errorCode, mechanisms: [] }),
};
