// OAUTHBEARER client (RFC 7628 as Kafka's OAuthBearerSaslClient does it): the GS2 initial response
// `n,,\x01auth=Bearer <token>[\x01k=v...]\x01\x01`; a non-empty server challenge is an error
// report, answered with `\x01` (the server then fails the exchange). The token is either Kafka's
// unsecured JWT (OAuthBearerUnsecuredLoginCallbackHandler) or one from an OAuth token endpoint with
// the client-credentials grant (ClientCredentialsJwtRetriever / HttpJwtRetriever).
import type { OAuthTokenSource } from '../sasl-config.js';
import { SaslAuthenticationError } from '../errors.js';
import type { SaslMechanismClient } from './mechanism.js';

const SEP = '\u0001';

/** Kafka's OAuthBearerClientInitialResponse.toBytes(). */
export function oauthBearerInitialResponse(
  token: string,
  extensions: ReadonlyMap<string, string> = new Map(),
  authorizationId = '',
): Buffer {
  const authzid = authorizationId === '' ? '' : `a=${authorizationId}`;
  let ext = [...extensions].map(([k, v]) => `${k}=${v}`).join(SEP);
  if (ext !== '') ext = SEP + ext;
  return Buffer.from(`n,${authzid},${SEP}auth=Bearer ${token}${ext}${SEP}${SEP}`, 'utf8');
}

/** Java's Double.toString for the finite positive values a token's iat/exp take. */
export function javaDouble(x: number): string {
  if (x !== 0 && (Math.abs(x) >= 1e7 || Math.abs(x) < 1e-3)) {
    const [mant, exp] = x.toExponential().split('e') as [string, string];
    return `${mant.includes('.') ? mant : `${mant}.0`}E${Number(exp)}`;
  }
  const s = String(x);
  return s.includes('.') ? s : `${s}.0`;
}

const jsonEscape = (s: string): string => s.replace(/"/g, '\\"').replace(/\\/g, '\\\\');

/** Kafka's listJsonText: the first character is the delimiter of the list's elements. */
function listJson(value: string): string {
  if (value.length <= 1) return '[]';
  const d = value[0]!;
  const text = value.slice(1);
  const elements = text.split(d);
  // Java's String.split drops trailing empty strings.
  while (elements.length > 0 && elements[elements.length - 1] === '') elements.pop();
  let out = elements.map((e) => `"${jsonEscape(e)}"`).join(',');
  out = `[${out}`;
  if (text.startsWith(d) || text.endsWith(d) || text.includes(d + d)) out += ',""';
  return `${out}]`;
}

const RESERVED_CLAIMS = new Set(['iat', 'exp']);

export class OAuthConfigError extends Error {
  override name = 'ClientConfigError';
}

/** Kafka's OAuthBearerUnsecuredLoginCallbackHandler token: `base64url(header).base64url(claims).` */
export function unsecuredToken(options: ReadonlyMap<string, string>, nowMs: number = Date.now()): string {
  const claim = (name: string): string => {
    if (RESERVED_CLAIMS.has(name)) throw new OAuthConfigError(`Cannot explicitly set the '${name}' claim`);
    return name;
  };
  const lifetimeText = options.get('unsecuredLoginLifetimeSeconds') ?? '3600';
  const lifetime = Number(lifetimeText);
  if (!/^[+-]?\d+$/.test(lifetimeText.trim()) || !Number.isSafeInteger(lifetime))
    throw new OAuthConfigError(`For input string: "${lifetimeText}"`);
  let claims = `{"exp":${javaDouble(nowMs / 1000 + lifetime)},"iat":${javaDouble(nowMs / 1000)}`;
  for (const [key, value] of options) {
    if (key.startsWith('unsecuredLoginStringClaim_') && key.length > 26)
      claims += `,"${jsonEscape(claim(key.slice(26)))}":"${jsonEscape(value)}"`;
    else if (key.startsWith('unsecuredLoginNumberClaim_') && key.length > 26)
      claims += `,"${jsonEscape(claim(key.slice(26)))}":${javaDouble(Number(value))}`;
    else if (key.startsWith('unsecuredLoginListClaim_') && key.length > 24)
      claims += `,"${jsonEscape(claim(key.slice(24)))}":${listJson(value)}`;
  }
  claims += '}';
  const principalClaim = (options.get('unsecuredLoginPrincipalClaimName') ?? '').trim() || 'sub';
  const parsed = JSON.parse(claims) as Record<string, unknown>;
  const principal = parsed[principalClaim];
  if (typeof principal !== 'string' || principal.trim() === '')
    throw new OAuthConfigError(
      `No principal name in JWT claim: ${principalClaim} (set unsecuredLoginStringClaim_${principalClaim} in sasl.jaas.config)`,
    );
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');
  return `${b64('{"alg":"none"}')}.${b64(claims)}.`;
}

/** Kafka's HttpJwtRetriever.formatAuthorizationHeader. */
export function basicAuthorization(clientId: string, clientSecret: string, urlencode: boolean): string {
  const enc = (s: string): string => (urlencode ? encodeURIComponent(s).replace(/%20/g, '+') : s);
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** Kafka's HttpJwtRetriever.formatRequestBody. */
export function clientCredentialsBody(scope: string | null): string {
  let body = 'grant_type=client_credentials';
  if (scope !== null && scope.trim() !== '') body += `&scope=${encodeURIComponent(scope.trim()).replace(/%20/g, '+')}`;
  return body;
}

// HttpJwtRetriever.UNRETRYABLE_HTTP_CODES
const UNRETRYABLE_HTTP_CODES = new Set([
  400, 401, 402, 403, 404, 405, 406, 407, 409, 410, 411, 412, 413, 414, 415, 501, 505,
]);

/** Kafka's HttpJwtRetriever.formatErrorMessage (RFC 6749 §5.2 error bodies; Jackson's node texts). */
export function formatTokenErrorMessage(body: string): string {
  if (body.trim() === '') return '{}';
  const node = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v));
  try {
    const root = JSON.parse(body) as unknown;
    if (typeof root === 'object' && root !== null && !Array.isArray(root)) {
      const o = root as Record<string, unknown>;
      if ('error' in o) return `{${node(o['error'])} - ${node(o['error_description'])}}`;
      if ('errorCode' in o) return `{${node(o['errorCode'])} - ${node(o['errorSummary'])}}`;
    }
    return body;
  } catch {
    return `{${body}}`;
  }
}

/** POSTs the client-credentials grant and returns `access_token` (one line errors, as Kafka's retriever). */
export async function fetchClientCredentialsToken(
  src: Extract<OAuthTokenSource, { kind: 'client_credentials' }>,
): Promise<string> {
  const body = clientCredentialsBody(src.scope);
  let resp: Response;
  try {
    resp = await fetch(src.endpoint, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        Authorization: basicAuthorization(src.clientId, src.clientSecret, src.urlencodeHeader),
        'Cache-Control': 'no-cache',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body,
      signal: AbortSignal.timeout(src.connectTimeoutMs + src.readTimeoutMs),
    });
  } catch (e) {
    throw new SaslAuthenticationError(
      `Could not retrieve an access token from ${src.endpoint}: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}`,
    );
  }
  const text = await resp.text();
  const snippet = text.length > 100 ? `${text.slice(0, 100)}...` : text;
  if (resp.status !== 200 && resp.status !== 201) {
    const detail = formatTokenErrorMessage(text);
    throw new SaslAuthenticationError(
      UNRETRYABLE_HTTP_CODES.has(resp.status)
        ? `The response code ${resp.status} and error response ${detail} was encountered reading the token endpoint response; will not attempt further retries`
        : `The unexpected response code ${resp.status} and error message ${detail} was encountered reading the token endpoint response`,
    );
  }
  let token: unknown;
  try {
    token = (JSON.parse(text) as Record<string, unknown>)['access_token'];
  } catch {
    token = undefined;
  }
  if (typeof token !== 'string' || token.trim() === '')
    throw new SaslAuthenticationError(
      `The token endpoint response did not contain an access_token value. Response: (${snippet})`,
    );
  return token.trim();
}

export class OAuthBearerClient implements SaslMechanismClient {
  readonly mechanism = 'OAUTHBEARER';
  private errorSent = false;

  constructor(
    private readonly source: OAuthTokenSource,
    private readonly extensions: ReadonlyMap<string, string>,
  ) {}

  async initialResponse(): Promise<Buffer> {
    const token =
      this.source.kind === 'unsecured'
        ? unsecuredToken(this.source.options)
        : await fetchClientCredentialsToken(this.source);
    return oauthBearerInitialResponse(token, this.extensions);
  }

  evaluateChallenge(challenge: Buffer): Buffer | null {
    if (challenge.length === 0) return null;
    if (this.errorSent) throw new SaslAuthenticationError('Unexpected OAUTHBEARER challenge after an error');
    // The server's error details (RFC 7628 §3.2.2): acknowledge so it can fail the exchange.
    this.errorSent = true;
    return Buffer.from(SEP, 'utf8');
  }
}
