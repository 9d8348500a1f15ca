// Kafka 4.4's BrokerJwtValidator (the DefaultJwtValidator of OAuthBearerValidatorCallbackHandler
// when sasl.oauthbearer.jwks.endpoint.url is set): a signed JWS checked as its jose4j JwtConsumer is
// built — any algorithm but "none" (AlgorithmConstraints.DISALLOW_NONE) with a key from the JWKS
// (jwks.ts), exp and iat required, nbf/exp with sasl.oauthbearer.clock.skew.seconds, aud among
// sasl.oauthbearer.expected.audience and iss equal to sasl.oauthbearer.expected.issuer (each unless
// the matching sasl.oauthbearer.allow.unverified.* is true) — then ClaimValidationUtils on the scope
// claim (sasl.oauthbearer.scope.claim.name), exp, the principal claim
// (sasl.oauthbearer.sub.claim.name) and iat. Signatures are verified with node:crypto.
import { constants, createHmac, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { selectVerificationKey, type JwksKeySource, type JwksSettings } from './jwks.js';

export interface JwtValidatorSettings {
  readonly jwks: JwksSettings;
  /** sasl.oauthbearer.expected.audience (empty: not checked, allow.unverified.audience=true). */
  readonly expectedAudience: readonly string[];
  /** sasl.oauthbearer.expected.issuer (null: not checked, allow.unverified.issuer=true). */
  readonly expectedIssuer: string | null;
  readonly scopeClaimName: string;
  readonly subClaimName: string;
  readonly clockSkewSeconds: number;
}

/** JwtValidatorException: the token is not valid (the client gets {"status":"invalid_token"}). */
export class JwtValidatorError extends Error {}

export interface ValidatedJwt {
  readonly principal: string;
  readonly scope: ReadonlySet<string>;
  /** exp, in ms since the epoch. */
  readonly lifetimeMs: number;
  readonly startTimeMs: number | null;
}

const MALFORMED = 'Malformed JWT provided; expected three sections (header, payload, and signature)';

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
/** The algorithms jose4j verifies (JWS RFC 7518 §3 and EdDSA). */
const ALGORITHMS = new Set(
  ['HS', 'RS', 'PS', 'ES'].flatMap((p) => ['256', '384', '512'].map((b) => `${p}${b}`)).concat('EdDSA'),
);

function verifySignature(alg: string, key: KeyObject, input: Buffer, signature: Buffer): boolean {
  const hash = HASH[alg.slice(2)];
  try {
    if (alg === 'EdDSA') return verify(null, input, key, signature);
    if (alg.startsWith('HS')) {
      // jose4j: the HMAC key must be at least as long as the hash output
      if ((key.symmetricKeySize ?? 0) * 8 < Number(alg.slice(2))) return false;
      const mac = createHmac(hash!, key).update(input).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    }
    if (alg.startsWith('RS') || alg.startsWith('PS')) {
      // jose4j: an RSA key of 2048 bits or more
      if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return false;
      if (alg.startsWith('RS')) return verify(hash!, input, key, signature);
      return verify(
        hash!,
        input,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 },
        signature,
      );
    }
    return verify(hash!, input, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

function decodeJson(part: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch (e) {
    throw new JwtValidatorError(
      `Could not validate the access token: Unable to parse ${what}: ${(e as Error).message}`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new JwtValidatorError(`Could not validate the access token: Unable to parse ${what}`);
  return parsed as Record<string, unknown>;
}

const numericDate = (claims: Record<string, unknown>, name: string, problems: string[]): number | null => {
  const v = claims[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number') {
    problems.push(`The value of the '${name}' claim is not the expected type (${JSON.stringify(v)})`);
    return null;
  }
  return Math.trunc(v);
};

/** ClaimValidationUtils.validateString */
function validateString(name: string, value: unknown): string {
  if (value === undefined || value === null) throw new JwtValidatorError(`${name} value must be non-null`);
  const s = String(value);
  if (s === '') throw new JwtValidatorError(`${name} value must be non-empty`);
  if (s.trim() === '') throw new JwtValidatorError(`${name} value must not contain only whitespace`);
  return s.trim();
}

/**
 * BrokerJwtValidator.validate: throws a JwtValidatorError with Kafka's reason (logged by the broker;
 * the client sees only the invalid_token status). An unknown key expedites a JWKS refresh.
 */
export function validateJwt(
  token: string,
  settings: JwtValidatorSettings,
  keys: JwksKeySource,
  nowMs: number,
): ValidatedJwt {
  // SerializedJwt
  const trimmed = token.trim();
  if (trimmed === '') throw new JwtValidatorError(MALFORMED);
  const parts = trimmed.split('.');
  if (parts.length !== 3 || parts.some((p) => p.trim() === '')) throw new JwtValidatorError(MALFORMED);
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h, 'the JWS header');
  const alg = header['alg'];
  if (typeof alg !== 'string')
    throw new JwtValidatorError('Could not validate the access token: the JWS has no "alg" header');
  if (alg === 'none')
    throw new JwtValidatorError(
      "Could not validate the access token: 'none' is not a permitted algorithm (AlgorithmConstraints.DISALLOW_NONE)",
    );
  if (!ALGORITHMS.has(alg))
    throw new JwtValidatorError(`Could not validate the access token: ${alg} is an unknown, unsupported algorithm`);
  const kid = typeof header['kid'] === 'string' ? header['kid'] : undefined;
  const key = selectVerificationKey(keys.keys(), alg, kid);
  if (key === undefined) {
    keys.maybeExpediteRefresh(kid);
    throw new JwtValidatorError(
      `Could not validate the access token: Unable to find a suitable verification key for JWS w/ header ${Buffer.from(h, 'base64url').toString('utf8')} from JWKs obtained from ${keys.location}`,
    );
  }
  const input = Buffer.from(`${h}.${p}`, 'ascii');
  const signature = Buffer.from(s, 'base64url');
  if (!verifySignature(alg, key.key, input, signature))
    throw new JwtValidatorError(
      `Could not validate the access token: JWT rejected due to invalid signature. Additional details: [[9] Invalid JWS Signature: JsonWebSignature{"alg":"${alg}"${kid !== undefined ? `,"kid":"${kid}"` : ''}}->${trimmed}]`,
    );

  const claims = decodeJson(p, 'the JWT claims');
  const problems: string[] = [];
  // AudValidator
  if (settings.expectedAudience.length > 0) {
    const aud = claims['aud'];
    const auds = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.map(String) : null;
    if (auds === null) problems.push('No Audience (aud) claim present.');
    else if (!auds.some((a) => settings.expectedAudience.includes(a)))
      problems.push(
        `Audience (aud) claim [${auds.join(', ')}] doesn't contain an acceptable identifier. Expected ${settings.expectedAudience.length > 1 ? 'one of ' : ''}[${settings.expectedAudience.join(', ')}] as an aud value.`,
      );
  }
  // IssValidator
  if (settings.expectedIssuer !== null) {
    const iss = claims['iss'];
    if (iss === undefined || iss === null) problems.push('No Issuer (iss) claim present.');
    else if (iss !== settings.expectedIssuer)
      problems.push(
        `Issuer (iss) claim value (${String(iss)}) doesn't match expected value of ${settings.expectedIssuer}`,
      );
  }
  // NumericDateValidator: exp and iat required, seconds, clock skew
  const exp = numericDate(claims, 'exp', problems);
  const iat = numericDate(claims, 'iat', problems);
  const nbf = numericDate(claims, 'nbf', problems);
  const skew = settings.clockSkewSeconds;
  const skewMessage = skew > 0 ? ` (even when providing ${skew} seconds of leeway to account for clock skew).` : '.';
  const now = Math.floor(nowMs / 1000);
  if (exp === null && claims['exp'] === undefined) problems.push('No Expiration Time (exp) claim present.');
  if (iat === null && claims['iat'] === undefined) problems.push('No Issued At (iat) claim present.');
  if (exp !== null) {
    if (now - skew >= exp)
      problems.push(
        `The JWT is no longer valid - the evaluation time NumericDate{${now}} is on or after the Expiration Time (exp=NumericDate{${exp}}) claim value${skewMessage}`,
      );
    if (iat !== null && exp < iat)
      problems.push(
        `The Expiration Time (exp=NumericDate{${exp}}) claim value cannot be before the Issued At (iat=NumericDate{${iat}}) claim value.`,
      );
    if (nbf !== null && exp < nbf)
      problems.push(
        `The Expiration Time (exp=NumericDate{${exp}}) claim value cannot be before the Not Before (nbf=NumericDate{${nbf}}) claim value.`,
      );
  }
  if (nbf !== null && now + skew < nbf)
    problems.push(
      `The JWT is not yet valid as the evaluation time NumericDate{${now}} is before the Not Before (nbf=NumericDate{${nbf}}) claim time${skewMessage}`,
    );
  if (problems.length > 0)
    throw new JwtValidatorError(
      `Could not validate the access token: JWT (claims->${Buffer.from(p, 'base64url').toString('utf8')}) rejected due to invalid claims or other invalid content. Additional details: ${problems.map((m) => `[${m}]`).join('')}`,
    );

  // BrokerJwtValidator after the JwtConsumer: ClaimValidationUtils
  const rawScope = claims[settings.scopeClaimName];
  const scopes = typeof rawScope === 'string' ? [rawScope] : Array.isArray(rawScope) ? (rawScope as unknown[]) : [];
  const scope = new Set<string>();
  for (const sc of scopes) {
    const v = validateString(settings.scopeClaimName, sc);
    if (scope.has(v))
      throw new JwtValidatorError(
        `${settings.scopeClaimName} value must not contain duplicates - ${v} already present`,
      );
    scope.add(v);
  }
  const rawSub = claims[settings.subClaimName];
  if (rawSub !== undefined && rawSub !== null && typeof rawSub !== 'string')
    throw new JwtValidatorError(`Could not extract the '${settings.subClaimName}' claim from the access token`);
  if (exp! < 0) throw new JwtValidatorError(`exp value must be non-negative; value given was "${exp! * 1000}"`);
  const principal = validateString(settings.subClaimName, rawSub);
  if (iat! < 0) throw new JwtValidatorError(`iat value must be null or non-negative; value given was "${iat! * 1000}"`);
  return { principal, scope, lifetimeMs: exp! * 1000, startTimeMs: iat! * 1000 };
}
