// Kafka's SaslClientAuthenticator on one connection, after ApiVersions: SaslHandshake (v1) naming
// the mechanism, then SaslAuthenticate round trips carrying the mechanism's tokens. An error code
// fails the connection with the broker's message; the session lifetime (KIP-368) is returned so the
// connection can re-authenticate before it runs out.
import type { SaslAuthenticateResponse } from '../../protocol/generated/protocol/SaslAuthenticate.js';
import type { SaslHandshakeResponse } from '../../protocol/generated/protocol/SaslHandshake.js';
import { apiByKey, type ClientApi } from '../apis.js';
import { ApiError, ClientConfigError, SaslAuthenticationError } from '../errors.js';
import type { SaslConfig } from '../sasl-config.js';
import type { SaslMechanismClient } from './mechanism.js';
import { OAuthBearerClient, OAuthConfigError } from './oauthbearer.js';
import { PlainClient } from './plain.js';
import { ScramClient } from './scram.js';

export const SASL_HANDSHAKE = apiByKey(17)!;
export const SASL_AUTHENTICATE = apiByKey(36)!;

/** What the exchange needs of a connection (BrokerConnection.send). */
export interface SaslTransport {
  send<T>(api: ClientApi, body: unknown, opts?: { maxVersion?: number }): Promise<{ version: number; body: T }>;
}

export function mechanismClient(config: SaslConfig): SaslMechanismClient {
  switch (config.mechanism) {
    case 'PLAIN':
      return new PlainClient(config.username, config.password);
    case 'SCRAM-SHA-256':
    case 'SCRAM-SHA-512':
      return new ScramClient(config.mechanism, config.username, config.password, config.tokenAuth);
    case 'OAUTHBEARER':
      return new OAuthBearerClient(config.token, config.extensions);
  }
}

/** Java's List.toString. */
const javaList = (xs: readonly string[]): string => `[${xs.join(', ')}]`;

/**
 * Authenticates the connection. Returns the session lifetime in ms the broker gave (0: none).
 */
export async function authenticate(conn: SaslTransport, config: SaslConfig): Promise<number> {
  const mech = mechanismClient(config);
  const hs = await conn.send<SaslHandshakeResponse>(SASL_HANDSHAKE, { mechanism: config.mechanism }, { maxVersion: 1 });
  const h = hs.body;
  if (h.errorCode === 33)
    throw new ApiError(
      33,
      `Client SASL mechanism '${config.mechanism}' not enabled in the server, enabled mechanisms are ${javaList(h.mechanisms)}`,
    );
  if (h.errorCode === 34)
    throw new ApiError(
      34,
      `Unexpected handshake request with client mechanism ${config.mechanism}, enabled mechanisms are ${javaList(h.mechanisms)}`,
    );
  if (h.errorCode !== 0)
    throw new ApiError(
      34,
      `Unknown error code ${h.errorCode}, client mechanism is ${config.mechanism}, enabled mechanisms are ${javaList(h.mechanisms)}`,
    );
  if (hs.version < 1)
    throw new ApiError(
      35,
      'The broker does not support SaslHandshake v1 (SaslAuthenticate requests), which tkafka needs',
    );
  let token: Buffer;
  try {
    token = await mech.initialResponse();
  } catch (e) {
    if (e instanceof OAuthConfigError) throw new ClientConfigError(`Invalid sasl.jaas.config: ${e.message}`);
    throw e;
  }
  let lifetimeMs = 0;
  for (let round = 0; round < 16; round++) {
    const r = await conn.send<SaslAuthenticateResponse>(SASL_AUTHENTICATE, { authBytes: token });
    const b = r.body;
    if (b.errorCode !== 0) {
      if (b.errorCode === 58) throw new SaslAuthenticationError(b.errorMessage ?? null);
      throw new ApiError(b.errorCode, b.errorMessage);
    }
    if (r.version >= 1 && b.sessionLifetimeMs > 0n) lifetimeMs = Number(b.sessionLifetimeMs);
    const next = mech.evaluateChallenge(b.authBytes);
    if (next === null) return lifetimeMs;
    token = next;
  }
  throw new ApiError(34, `The ${config.mechanism} exchange did not complete in 16 round trips`);
}

/**
 * Kafka's re-authentication point: a random 85–95% of the session lifetime (capped at the longest
 * delay a Node timer takes, ~24.8 days; a longer one would fire at once).
 */
export function reauthDelayMs(lifetimeMs: number, random: () => number = Math.random): number {
  return Math.min(Math.floor(lifetimeMs * (0.85 + 0.1 * random())), 0x7fffffff);
}
