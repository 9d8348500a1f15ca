// A test OAuth provider on 127.0.0.1: a client-credentials token endpoint (POST /token, HTTP Basic
// client id and secret, RFC 6749 error bodies) issuing JWTs signed with keys made at run time by
// node:crypto, and the JWKS of those keys (GET /jwks), which a test can change (key rotation).
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import assert from 'node:assert/strict';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { RawClient } from './raw-client.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: KeyObject;
  /** The public JWK (kid, alg, use=sig). */
  readonly jwk: Record<string, unknown>;
}

/** A key pair for `alg` (RS256/384/512, PS256/384/512, ES256/384/512, EdDSA). */
export function makeSigningKey(kid: string, alg = 'RS256'): SigningKey {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg.startsWith('ES')
        ? generateKeyPairSync('ec', { namedCurve: { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg]! })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
  return { kid, alg, privateKey: pair.privateKey, jwk };
}

const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

/** A compact JWS of `claims` signed with `key` (header alg, typ JWT and kid, unless overridden). */
export function signJwt(
  key: SigningKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const input = `${b64({ alg: key.alg, typ: 'JWT', kid: key.kid, ...header })}.${b64(claims)}`;
  const hash = key.alg === 'EdDSA' ? null : `sha${key.alg.slice(2)}`;
  const opts = key.alg.startsWith('ES')
    ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' as const }
    : key.alg.startsWith('PS')
      ? { key: key.privateKey, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: Number(key.alg.slice(2)) / 8 }
      : key.privateKey;
  return `${input}.${sign(hash, Buffer.from(input), opts).toString('base64url')}`;
}

export interface OAuthServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly tokenUrl: string;
  readonly jwksUrl: string;
  /** The keys the JWKS serves (replace to rotate). */
  jwksKeys: SigningKey[];
  /** The key tokens are signed with. */
  signingKey: SigningKey;
  /** Claims of the issued tokens besides iat/exp (sub defaults to the client id). */
  claims: Record<string, unknown>;
  readonly tokenRequests: { authorization: string | undefined; body: string }[];
  jwksRequests: number;
  close(): Promise<void>;
}

export async function startOAuthServer(opts: {
  clientId: string;
  clientSecret: string;
  signingKey: SigningKey;
  claims?: Record<string, unknown>;
  lifetimeSeconds?: number;
  /** Serve https with this key and certificate (PEM) instead of http. */
  tls?: { key: string; cert: string };
  /** The access token to issue instead of a JWT signed with signingKey (e.g. an unsecured one). */
  issue?: (clientId: string) => string;
}): Promise<OAuthServer> {
  const state = {
    jwksKeys: [opts.signingKey],
    signingKey: opts.signingKey,
    claims: opts.claims ?? {},
    tokenRequests: [] as { authorization: string | undefined; body: string }[],
    jwksRequests: 0,
  };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'GET' && req.url === '/jwks') {
        state.jwksRequests++;
        res.end(JSON.stringify({ keys: state.jwksKeys.map((k) => k.jwk) }));
        return;
      }
      state.tokenRequests.push({ authorization: req.headers.authorization, body });
      const expected = `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`;
      if (req.method !== 'POST' || req.url !== '/token' || req.headers.authorization !== expected) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: 'invalid_client', error_description: 'bad client credentials' }));
        return;
      }
      const now = Math.floor(Date.now() / 1000);
      const lifetime = opts.lifetimeSeconds ?? 3600;
      const token =
        opts.issue?.(opts.clientId) ??
        signJwt(state.signingKey, { sub: opts.clientId, iat: now, exp: now + lifetime, ...state.claims });
      res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: lifetime }));
    });
  };
  const server: Server = opts.tls ? createHttpsServer(opts.tls, handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return Object.assign(state, {
    url,
    tokenUrl: `${url}/token`,
    jwksUrl: `${url}/jwks`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

/** One OAUTHBEARER exchange over SaslHandshake v1 / SaslAuthenticate v2 on a new connection. */
export async function oauthBearerExchange(
  port: number,
  jwt: string,
): Promise<{
  first: { errorCode: number; message: string; authBytes: string; lifetimeMs: bigint };
  second?: { errorCode: number; message: string };
}> {
  const c = await RawClient.connect(port);
  try {
    const h = await c.request(ApiKey.SaslHandshake, 1, { mechanism: 'OAUTHBEARER' });
    assert.equal(h.errorCode, 0);
    const r = await c.request(ApiKey.SaslAuthenticate, 2, {
      authBytes: Buffer.from(`n,,\u0001auth=Bearer ${jwt}\u0001\u0001`),
    });
    const first = {
      errorCode: r.errorCode,
      message: r.errorMessage ?? '',
      authBytes: r.authBytes.toString('utf8'),
      lifetimeMs: r.sessionLifetimeMs,
    };
    if (r.errorCode !== 0 || first.authBytes === '') return { first };
    const r2 = await c.request(ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.from([1]) });
    return { first, second: { errorCode: r2.errorCode, message: r2.errorMessage ?? '' } };
  } finally {
    c.close();
  }
}

/**
 * A broker listener's settings for OAUTHBEARER validated with the JWKS at `url`
 * (OAuthBearerValidatorCallbackHandler), under listener.name.<listener>.oauthbearer.
 */
export function jwksListenerSettings(
  listener: string,
  url: string,
  issuer: string,
  audience: string,
): Record<string, string> {
  const p = `listener.name.${listener}.`;
  return {
    [`${p}sasl.enabled.mechanisms`]: 'OAUTHBEARER',
    [`${p}oauthbearer.sasl.jaas.config`]:
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
    [`${p}oauthbearer.sasl.server.callback.handler.class`]:
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler',
    [`${p}oauthbearer.sasl.oauthbearer.jwks.endpoint.url`]: url,
    [`${p}oauthbearer.sasl.oauthbearer.expected.issuer`]: issuer,
    [`${p}oauthbearer.sasl.oauthbearer.expected.audience`]: audience,
  };
}
