// SASL/OAUTHBEARER on the broker with Kafka's default server callback handler,
// OAuthBearerUnsecuredValidatorCallbackHandler: the token is an unsecured JWS (alg "none", no
// signature) whose claims are checked (principal claim, exp, iat, scope) with the
// unsecuredValidator* options of the listener's OAuthBearerLoginModule. An invalid token is answered
// with a JSON error challenge ({"status":"invalid_token"}); the client's %x01 reply then fails the
// exchange with that JSON as the message (OAuthBearerSaslServer). The token's exp bounds the session
// (KIP-368 CREDENTIAL_LIFETIME_MS). With OAuthBearerValidatorCallbackHandler (config.ts) the token is
// a signed JWT checked by BrokerJwtValidator against a JWKS (jwt-validator.ts, jwks.ts) instead.
import type { JwksKeySource } from './jwks.js';
import { JwtValidatorError, validateJwt, type JwtValidatorSettings } from './jwt-validator.js';
import type { SaslServerMechanism, SaslStep } from './mechanism.js';

/** OAuthBearerValidatorCallbackHandler's validation: BrokerJwtValidator with the listener's JWKS. */
export interface JwksValidation {
  readonly settings: JwtValidatorSettings;
  readonly keys: JwksKeySource;
}

const SEPARATOR = '\u0001';
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const KVPAIRS = `(?:[A-Za-z]+=[\\x21-\\x7E \\t\\r\\n]+${SEPARATOR})*`;
const CLIENT_INITIAL_RESPONSE = new RegExp(
  `^n,(?:a=(?<authzid>${SASLNAME}))?,${SEPARATOR}(?<kvpairs>${KVPAIRS})${SEPARATOR}$`,
);
const AUTH = /^(?<scheme>\w+) +(?<token>[-_~+/.a-zA-Z0-9]+=*)$/;

interface ValidToken {
  readonly principal: string;
  /** exp, in ms since the epoch. */
  readonly lifetimeMs: number;
}

/** Thrown for an invalid token (OAuthBearerIllegalTokenException); `scope` for insufficient_scope. */
class IllegalToken extends Error {
  constructor(
    message: string,
    readonly scope: string | null = null,
  ) {
    super(message);
  }
}

export interface UnsecuredValidatorOptions {
  readonly principalClaimName: string;
  readonly scopeClaimName: string;
  readonly requiredScope: readonly string[];
  readonly allowableClockSkewMs: number;
}

/** The unsecuredValidator* options of an OAuthBearerLoginModule (blank: Kafka's defaults). */
export function unsecuredValidatorOptions(options: ReadonlyMap<string, string>): UnsecuredValidatorOptions {
  const opt = (k: string): string | undefined => {
    const v = options.get(k)?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const skew = opt('unsecuredValidatorAllowableClockSkewMs');
  const allowableClockSkewMs = skew === undefined ? 0 : Number(skew);
  if (!Number.isInteger(allowableClockSkewMs))
    throw new Error(`For input string: "${skew ?? ''}" (unsecuredValidatorAllowableClockSkewMs)`);
  if (allowableClockSkewMs < 0) throw new Error(`Allowable clock skew millis must not be negative: ${skew ?? ''}`);
  return {
    principalClaimName: opt('unsecuredValidatorPrincipalClaimName') ?? 'sub',
    scopeClaimName: opt('unsecuredValidatorScopeClaimName') ?? 'scope',
    requiredScope: (opt('unsecuredValidatorRequiredScope') ?? '').split(' ').filter((s) => s !== ''),
    allowableClockSkewMs,
  };
}

function decodePart(part: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, 'base64').toString('utf8'));
  } catch {
    throw new IllegalToken('malformed JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new IllegalToken('malformed JSON');
  return parsed as Record<string, unknown>;
}

/** OAuthBearerUnsecuredJws plus the checks of OAuthBearerUnsecuredValidatorCallbackHandler. */
export function validateUnsecuredJws(token: string, o: UnsecuredValidatorOptions, nowMs: number): ValidToken {
  if (token.includes('..')) throw new IllegalToken("Malformed compact serialization contains '..'");
  const splits = token.split('.');
  if (splits.length !== 3)
    throw new IllegalToken('Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values');
  const header = decodePart(splits[0]!);
  const claims = decodePart(splits[1]!);
  if (header['alg'] !== 'none') throw new IllegalToken("Unsecured JWS must have 'none' for an algorithm");
  if (splits[2] !== '') throw new IllegalToken('Unsecured JWS must not contain a digital signature');
  const exp = claims['exp'];
  if (exp === undefined || exp === null) throw new IllegalToken('No expiration time in JWT');
  if (typeof exp !== 'number') throw new IllegalToken(`The 'exp' claim was not of type Number`);
  const principal = claims[o.principalClaimName];
  if (typeof principal !== 'string' || principal.trim() === '')
    throw new IllegalToken(`No principal name in JWT claim: ${o.principalClaimName}`);
  const iat = claims['iat'];
  if (iat !== undefined && iat !== null && typeof iat !== 'number')
    throw new IllegalToken(`The 'iat' claim was not of type Number`);
  const expMs = Math.round(exp * 1000);
  const skew = o.allowableClockSkewMs;
  if (typeof iat === 'number' && Math.round(iat * 1000) > nowMs + skew)
    throw new IllegalToken('The Issued At value was after the indicated time plus allowable clock skew');
  if (nowMs - skew >= expMs)
    throw new IllegalToken('The indicated time minus allowable clock skew was on or after the Expiration Time value');
  if (typeof iat === 'number' && Math.round(iat * 1000) >= expMs)
    throw new IllegalToken('The Issued At value must be strictly before the Expiration Time value');
  const rawScope = claims[o.scopeClaimName];
  const scope = new Set(
    typeof rawScope === 'string'
      ? rawScope.split(' ').filter((s) => s !== '')
      : Array.isArray(rawScope)
        ? rawScope.map(String)
        : [],
  );
  for (const required of o.requiredScope)
    if (!scope.has(required))
      throw new IllegalToken(
        `The provided scope was missing a required scope value: ${required}`,
        o.requiredScope.join(' '),
      );
  return { principal, lifetimeMs: expMs };
}

export class OAuthBearerServer implements SaslServerMechanism {
  readonly name = 'OAUTHBEARER';
  private errorMessage: string | null = null;
  /** Why the last token was refused (JwtValidatorException's message), for the broker's log. */
  validationError: string | null = null;
  /** The validated token's exp (ms since the epoch), once complete. */
  credentialExpiresAtMs: number | null = null;

  constructor(
    private readonly options: UnsecuredValidatorOptions | JwksValidation,
    private readonly invalidCredentials: string,
    private readonly wallClock: () => number = Date.now,
  ) {}

  evaluate(response: Buffer): SaslStep {
    if (response.length === 1 && response[0] === 0x01 && this.errorMessage !== null)
      return { kind: 'failed', message: this.errorMessage, cause: this.validationError ?? this.errorMessage };
    this.errorMessage = null;
    this.validationError = null;
    const saslException = (cause: string): SaslStep => ({ kind: 'failed', message: this.invalidCredentials, cause });
    const m = CLIENT_INITIAL_RESPONSE.exec(response.toString('utf8'));
    if (!m?.groups) return saslException('Invalid OAUTHBEARER client first message');
    const props = new Map<string, string>();
    for (const kv of m.groups['kvpairs']!.split(SEPARATOR)) {
      if (kv === '') continue;
      const i = kv.indexOf('=');
      props.set(kv.slice(0, i), kv.slice(i + 1));
    }
    const auth = props.get('auth');
    if (auth === undefined) return saslException("Invalid OAUTHBEARER client first message: 'auth' not specified");
    const a = AUTH.exec(auth);
    if (!a?.groups) return saslException("Invalid OAUTHBEARER client first message: invalid 'auth' format");
    if (a.groups['scheme']!.toLowerCase() !== 'bearer')
      return saslException('Invalid scheme in OAUTHBEARER client first message');
    let token: ValidToken;
    try {
      token =
        'keys' in this.options
          ? validateJwt(a.groups['token']!, this.options.settings, this.options.keys, this.wallClock())
          : validateUnsecuredJws(a.groups['token']!, this.options, this.wallClock());
    } catch (e) {
      if (e instanceof JwtValidatorError) {
        this.validationError = e.message;
        this.errorMessage = '{"status":"invalid_token"}';
        return { kind: 'challenge', token: Buffer.from(this.errorMessage, 'utf8') };
      }
      if (!(e instanceof IllegalToken)) throw e;
      const status = e.scope !== null ? 'insufficient_scope' : 'invalid_token';
      this.errorMessage = `{"status":"${status}"${e.scope !== null ? `, "scope":"${e.scope}"` : ''}}`;
      return { kind: 'challenge', token: Buffer.from(this.errorMessage, 'utf8') };
    }
    const authzid = m.groups['authzid'] ?? '';
    if (authzid !== '' && authzid !== token.principal) {
      const message = `Authentication failed: Client requested an authorization id (${authzid}) that is different from the token's principal name (${token.principal})`;
      return { kind: 'failed', message, cause: message };
    }
    this.credentialExpiresAtMs = token.lifetimeMs;
    return { kind: 'complete', token: Buffer.alloc(0), authorizationId: token.principal };
  }
}
