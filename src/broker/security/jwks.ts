// The JSON Web Key Set a broker verifies OAUTHBEARER tokens with, as Kafka 4.4's
// VerificationKeyResolverFactory builds it from sasl.oauthbearer.jwks.endpoint.url:
// - http(s): RefreshingHttpsJwks: fetched once at start-up (a failure stops it), then refreshed every
//   sasl.oauthbearer.jwks.endpoint.refresh.ms with retries (retry.backoff.ms doubling up to
//   retry.backoff.max.ms); a token whose key is not in the set expedites one refresh for its kid
//   (at most once a minute per kid, 16 kids remembered) and fails meanwhile, as
//   RefreshingHttpsJwksVerificationKeyResolver does. A failed refresh keeps the keys it had.
// - file: JwksFileVerificationKeyResolver over CachedFile: the file is read again when its size or
//   modification time changes.
// Keys are selected as jose4j's VerificationJwkSelector does (kid, kty for the algorithm, use=sig,
// then alg and curve among several); validation itself is synchronous and never waits for a fetch.
import { createPublicKey, createSecretKey, type JsonWebKey as NodeJwk, type KeyObject } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import { fileURLToPath } from 'node:url';

export interface JwksSettings {
  /** sasl.oauthbearer.jwks.endpoint.url */
  readonly url: string;
  readonly refreshMs: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  /** TLS for an https endpoint (the ssl.* options of the JAAS login module); default: Node's trust. */
  readonly tls?: SecureContextOptions;
}

export interface Jwk {
  readonly kid?: string;
  readonly kty: string;
  readonly use?: string;
  readonly alg?: string;
  readonly crv?: string;
  /** key_ops */
  readonly keyOps?: readonly string[];
  readonly key: KeyObject;
}

const MISSING_KEY_ID_CACHE_MAX_ENTRIES = 16;
const MISSING_KEY_ID_CACHE_IN_FLIGHT_MS = 60_000;
const MISSING_KEY_ID_MAX_KEY_LENGTH = 1000;
const FETCH_TIMEOUT_MS = 10_000;

/** jose4j's JsonWebKeySet parsing: keys whose kty is unknown or that do not parse are skipped. */
export function parseJwks(text: string): Jwk[] {
  const root = JSON.parse(text) as unknown;
  if (root === null || typeof root !== 'object' || !Array.isArray((root as { keys?: unknown }).keys))
    throw new Error('The JSON Web Key Set has no "keys" array');
  const out: Jwk[] = [];
  for (const k of (root as { keys: unknown[] }).keys) {
    if (k === null || typeof k !== 'object') continue;
    const j = k as Record<string, unknown>;
    const str = (n: string): string | undefined => (typeof j[n] === 'string' ? (j[n] as string) : undefined);
    const kty = str('kty');
    if (kty === undefined) continue;
    let key: KeyObject;
    try {
      if (kty === 'oct') {
        const secret = str('k');
        if (secret === undefined) continue;
        key = createSecretKey(Buffer.from(secret, 'base64url'));
      } else if (kty === 'RSA' || kty === 'EC' || kty === 'OKP') {
        key = createPublicKey({ key: j as NodeJwk, format: 'jwk' });
      } else continue;
    } catch {
      continue;
    }
    const kid = str('kid');
    const use = str('use');
    const alg = str('alg');
    const crv = str('crv');
    const keyOps = Array.isArray(j['key_ops']) ? (j['key_ops'] as unknown[]).map(String) : undefined;
    out.push({
      kty,
      key,
      ...(kid !== undefined ? { kid } : {}),
      ...(use !== undefined ? { use } : {}),
      ...(alg !== undefined ? { alg } : {}),
      ...(crv !== undefined ? { crv } : {}),
      ...(keyOps !== undefined ? { keyOps } : {}),
    });
  }
  return out;
}

const KTY: Record<string, string> = { R: 'RSA', P: 'RSA', E: 'EC', H: 'oct' };
const EC_CURVE: Record<string, string> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/**
 * jose4j's VerificationJwkSelector.select as RefreshingHttpsJwksVerificationKeyResolver uses it: the
 * keys of the algorithm's type with the header's kid (required when the header has one), use "sig"
 * and key_ops "verify" when given; only while more than one remains, narrowed by alg, then by curve;
 * the first one left (no trial of each key).
 */
export function selectVerificationKey(keys: readonly Jwk[], alg: string, kid: string | undefined): Jwk | undefined {
  const kty = alg === 'EdDSA' ? 'OKP' : KTY[alg[0] ?? ''];
  let list = keys.filter(
    (k) =>
      k.kty === kty &&
      (kid === undefined || k.kid === kid) &&
      (k.use === undefined || k.use === 'sig') &&
      (k.keyOps === undefined || k.keyOps.includes('verify')),
  );
  if (list.length > 1) list = list.filter((k) => k.alg === undefined || k.alg === alg);
  if (list.length > 1 && kty === 'EC') list = list.filter((k) => k.crv === undefined || k.crv === EC_CURVE[alg]);
  if (list.length > 1 && kty === 'OKP')
    list = list.filter((k) => k.crv === undefined || k.crv === 'Ed25519' || k.crv === 'Ed448');
  return list[0];
}

/** GET `url` (http or https), the body as text; rejects on a non-2xx status or a timeout. */
function httpGet(url: URL, tls: SecureContextOptions | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const options = { method: 'GET', timeout: FETCH_TIMEOUT_MS, headers: { accept: 'application/json' } };
    const req =
      url.protocol === 'https:' ? httpsRequest(url, { ...options, ...(tls ?? {}) }) : httpRequest(url, options);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299)
          reject(new Error(`Non 200 status code (${status}) returned from ${url.toString()}`));
        else resolve(body);
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Read timed out fetching ${url.toString()}`)));
    req.on('error', reject);
    req.end();
  });
}

export interface JwksKeySource {
  readonly location: string;
  /** The first load; throws when the set cannot be read (start-up fails, as in Kafka). */
  init(): Promise<void>;
  keys(): readonly Jwk[];
  /** No key matched `kid`: maybe refresh in the background; true when a refresh was started. */
  maybeExpediteRefresh(kid: string | undefined): boolean;
  close(): void;
}

/** RefreshingHttpsJwks */
export class RefreshingHttpJwks implements JwksKeySource {
  private current: readonly Jwk[] = [];
  private timer: NodeJS.Timeout | null = null;
  private refreshing = false;
  private closed = false;
  private readonly missingKeyIds = new Map<string, number>();
  readonly location: string;

  constructor(
    private readonly settings: JwksSettings,
    private readonly log: (level: 'DEBUG' | 'WARN', m: string) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {
    this.location = settings.url;
  }

  private initialized: Promise<void> | null = null;

  init(): Promise<void> {
    this.initialized ??= this.load();
    return this.initialized;
  }

  private async load(): Promise<void> {
    try {
      this.current = parseJwks(await httpGet(new URL(this.settings.url), this.settings.tls));
    } catch (e) {
      throw new Error(`Could not refresh JWKS from ${this.location}: ${(e as Error).message}`, { cause: e });
    }
    this.timer = setInterval(() => void this.refresh(), this.settings.refreshMs);
    this.timer.unref();
  }

  keys(): readonly Jwk[] {
    return this.current;
  }

  /**
   * One refresh with Kafka's Retry: attempts until retry.backoff.max.ms has passed, waiting
   * retry.backoff.ms doubling between them; the keys are replaced only when one succeeds.
   */
  async refresh(): Promise<void> {
    if (this.refreshing || this.closed) return;
    this.refreshing = true;
    try {
      const endMs = Date.now() + this.settings.retryBackoffMaxMs;
      for (let attempt = 1; ; attempt++) {
        try {
          const keys = parseJwks(await httpGet(new URL(this.settings.url), this.settings.tls));
          this.current = keys;
          for (const k of keys) if (k.kid !== undefined) this.missingKeyIds.delete(k.kid);
          this.log('DEBUG', `OAuth JWKS refresh of ${this.location} complete`);
          return;
        } catch (e) {
          const waitMs = Math.min(this.settings.retryBackoffMs * 2 ** (attempt - 1), endMs - Date.now());
          if (this.closed || waitMs <= 0) {
            this.log(
              'WARN',
              `OAuth JWKS refresh of ${this.location} encountered an error; not updating local JWKS cache: ${(e as Error).message}`,
            );
            return;
          }
          await new Promise<void>((r) => setTimeout(r, waitMs));
        }
      }
    } finally {
      this.refreshing = false;
    }
  }

  maybeExpediteRefresh(kid: string | undefined): boolean {
    if (kid === undefined) return false;
    if (kid.length > MISSING_KEY_ID_MAX_KEY_LENGTH) {
      this.log('WARN', `Key ID ${kid.slice(0, MISSING_KEY_ID_MAX_KEY_LENGTH)} (trimmed) was too long to cache`);
      return false;
    }
    const now = this.clock();
    const next = this.missingKeyIds.get(kid);
    if (next !== undefined && next > now) return false;
    this.missingKeyIds.delete(kid);
    this.missingKeyIds.set(kid, now + MISSING_KEY_ID_CACHE_IN_FLIGHT_MS);
    while (this.missingKeyIds.size > MISSING_KEY_ID_CACHE_MAX_ENTRIES)
      this.missingKeyIds.delete(this.missingKeyIds.keys().next().value!);
    setImmediate(() => void this.refresh());
    return true;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** JwksFileVerificationKeyResolver: the file is read again when its size or mtime changes. */
export class FileJwks implements JwksKeySource {
  private current: readonly Jwk[] = [];
  private stamp = '';
  readonly location: string;
  private readonly path: string;

  constructor(url: string) {
    this.location = url;
    this.path = fileURLToPath(url);
  }

  /** ConfigurationUtils.validateFileUrl's checks, then the first read. */
  init(): Promise<void> {
    try {
      this.check();
      this.load();
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  private check(): void {
    const option = 'sasl.oauthbearer.jwks.endpoint.url';
    if (!existsSync(this.path))
      throw new Error(`The OAuth configuration option ${option} contains a file (${this.path}) that doesn't exist`);
    try {
      accessSync(this.path, constants.R_OK);
    } catch {
      throw new Error(
        `The OAuth configuration option ${option} contains a file (${this.path}) that doesn't have read permission`,
      );
    }
    if (statSync(this.path).isDirectory())
      throw new Error(`The OAuth configuration option ${option} references a directory (${this.path}), not a file`);
  }

  private load(): void {
    const st = statSync(this.path);
    const stamp = `${st.size}:${st.mtimeMs}`;
    if (stamp === this.stamp) return;
    this.current = parseJwks(readFileSync(this.path, 'utf8'));
    this.stamp = stamp;
  }

  keys(): readonly Jwk[] {
    try {
      this.load();
    } catch {
      // CachedFile keeps its last snapshot when the file cannot be read
    }
    return this.current;
  }

  maybeExpediteRefresh(): boolean {
    return false;
  }

  close(): void {}
}

// VerificationKeyResolverFactory's cache: one key source per endpoint and settings, shared by the
// listeners (and by the several reads of the configuration at start-up).
const SOURCES = new Map<string, JwksKeySource>();

export function jwksKeySource(
  settings: JwksSettings,
  log?: (level: 'DEBUG' | 'WARN', m: string) => void,
): JwksKeySource {
  const key = JSON.stringify(settings);
  let source = SOURCES.get(key);
  if (!source) {
    source = settings.url.toLowerCase().startsWith('file:')
      ? new FileJwks(settings.url)
      : new RefreshingHttpJwks(settings, log);
    SOURCES.set(key, source);
  }
  return source;
}

/** Closes and forgets every key source (a stopping node, tests). */
export function closeJwksKeySources(): void {
  for (const s of SOURCES.values()) s.close();
  SOURCES.clear();
}
