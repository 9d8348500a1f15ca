// BrokerJwtValidator's checks (src/broker/security/jwt-validator.ts), the JWKS key sources
// (jwks.ts) and the listener settings OAuthBearerValidatorCallbackHandler reads (config.ts), with
// keys made by node:crypto at run time. Ported from Kafka's AccessTokenValidatorTest,
// ValidatorAccessTokenValidatorTest, ClaimValidationUtilsTest, RefreshingHttpsJwksTest and
// ConfigurationUtilsTest (allowed URLs), for the 4.4 behaviour read from the 4.4.0 jars.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateJwt, JwtValidatorError, type JwtValidatorSettings } from '../src/broker/security/jwt-validator.js';
import { FileJwks, RefreshingHttpJwks, parseJwks, type Jwk, type JwksKeySource } from '../src/broker/security/jwks.js';
import { jvmSystemProperty, jwksValidatorSettings } from '../src/broker/security/config.js';
import { ConfigError } from '../src/config/config-def.js';
import { makeSigningKey, signJwt, startOAuthServer, type SigningKey } from './helpers/oauth-server.js';
import { waitFor } from './helpers/wait-for.js';
import { makeCerts } from './helpers/certs.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'kafka';

const settings = (o: Partial<JwtValidatorSettings> = {}): JwtValidatorSettings => ({
  jwks: { url: 'http://127.0.0.1:1/jwks', refreshMs: 3_600_000, retryBackoffMs: 100, retryBackoffMaxMs: 10_000 },
  expectedAudience: [AUDIENCE],
  expectedIssuer: ISSUER,
  scopeClaimName: 'scope',
  subClaimName: 'sub',
  clockSkewSeconds: 30,
  ...o,
});

/** A key source holding fixed keys; records the kids a refresh was asked for. */
function staticKeys(jwks: Record<string, unknown>[]): JwksKeySource & { expedited: (string | undefined)[] } {
  const keys = parseJwks(JSON.stringify({ keys: jwks }));
  const expedited: (string | undefined)[] = [];
  return {
    location: 'test',
    expedited,
    init: () => Promise.resolve(),
    keys: (): readonly Jwk[] => keys,
    maybeExpediteRefresh: (kid) => {
      expedited.push(kid);
      return true;
    },
    close: () => {},
  };
}

const NOW_MS = 1_700_000_000_000;
const NOW = NOW_MS / 1000;
const claims = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  sub: 'alice',
  iss: ISSUER,
  aud: AUDIENCE,
  iat: NOW - 10,
  exp: NOW + 600,
  scope: 'kafka-scope',
  ...extra,
});

function rejects(fn: () => unknown, message: RegExp | string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof JwtValidatorError, String(e));
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

describe('BrokerJwtValidator', () => {
  const rsa = makeSigningKey('rsa', 'RS256');
  const keys: Record<string, SigningKey> = {
    RS256: rsa,
    RS512: makeSigningKey('rs512', 'RS512'),
    PS384: makeSigningKey('ps384', 'PS384'),
    ES256: makeSigningKey('es256', 'ES256'),
    ES384: makeSigningKey('es384', 'ES384'),
    ES512: makeSigningKey('es512', 'ES512'),
    EdDSA: makeSigningKey('ed', 'EdDSA'),
  };
  const source = staticKeys(Object.values(keys).map((k) => k.jwk));

  test('every algorithm family verifies: principal, start time, lifetime and scope (testRsa/EcdsaEncryptionAlgorithm)', () => {
    for (const [alg, key] of Object.entries(keys)) {
      const t = validateJwt(signJwt(key, claims()), settings(), source, NOW_MS);
      assert.equal(t.principal, 'alice', alg);
      assert.equal(t.startTimeMs, (NOW - 10) * 1000, alg);
      assert.equal(t.lifetimeMs, (NOW + 600) * 1000, alg);
      assert.deepEqual([...t.scope], ['kafka-scope'], alg);
    }
  });

  test('HS256 with an oct key of 256 bits verifies; a shorter key does not', () => {
    const secret = randomBytes(32);
    const short = randomBytes(16);
    const hs = (k: Buffer, kid: string): string => {
      const input = `${Buffer.from(JSON.stringify({ alg: 'HS256', kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
      return `${input}.${createHmac('sha256', k).update(input).digest('base64url')}`;
    };
    const src = staticKeys([
      { kty: 'oct', kid: 'hs', k: secret.toString('base64url') },
      { kty: 'oct', kid: 'short', k: short.toString('base64url') },
    ]);
    assert.equal(validateJwt(hs(secret, 'hs'), settings(), src, NOW_MS).principal, 'alice');
    rejects(() => validateJwt(hs(short, 'short'), settings(), src, NOW_MS), /invalid signature/);
  });

  test('an RSA key under 2048 bits is refused (jose4j)', () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const weak: SigningKey = {
      kid: 'weak',
      alg: 'RS256',
      privateKey: pair.privateKey,
      jwk: { ...pair.publicKey.export({ format: 'jwk' }), kid: 'weak' },
    };
    rejects(
      () => validateJwt(signJwt(weak, claims()), settings(), staticKeys([weak.jwk]), NOW_MS),
      /invalid signature/,
    );
  });

  test('malformed serializations (AccessTokenValidatorTest)', () => {
    const m = 'Malformed JWT provided; expected three sections (header, payload, and signature)';
    const [h, p, s] = signJwt(rsa, claims()).split('.') as [string, string, string];
    for (const bad of ['', '    ', '..', `.${p}.${s}`, `${h}..${s}`, `${h}.${p}.`, `${h}.${p}`, `${h}.${p}.${s}.x`])
      rejects(() => validateJwt(bad, settings(), source, NOW_MS), m);
  });

  test("alg none and unknown algorithms are refused; the signature must match the key's", () => {
    const [, p] = signJwt(rsa, claims()).split('.');
    const header = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    rejects(() => validateJwt(`${header({ alg: 'none' })}.${p}.c2ln`, settings(), source, NOW_MS), /'none'/);
    rejects(
      () => validateJwt(`${header({ alg: 'fake' })}.${p}.c2ln`, settings(), source, NOW_MS),
      /fake is an unknown, unsupported algorithm/,
    );
    const other = makeSigningKey('rsa', 'RS256');
    rejects(() => validateJwt(signJwt(other, claims()), settings(), source, NOW_MS), /invalid signature/);
  });

  test('an unknown kid fails and asks the key source for a refresh of that kid', () => {
    const stranger = makeSigningKey('stranger', 'RS256');
    rejects(
      () => validateJwt(signJwt(stranger, claims()), settings(), source, NOW_MS),
      /Unable to find a suitable verification key for JWS w\/ header \{"alg":"RS256","typ":"JWT","kid":"stranger"\}/,
    );
    assert.deepEqual(source.expedited.slice(-1), ['stranger']);
  });

  test('key selection as jose4j VerificationJwkSelector: kid required, use sig, alg and curve only among several', () => {
    const es = keys['ES256']!;
    const es2 = makeSigningKey('es256', 'ES256');
    const jwt = signJwt(es, claims());
    // a single key of the type is used whatever its alg (jose4j narrows by alg only among several)
    assert.ok(validateJwt(jwt, settings(), staticKeys([{ ...es.jwk, alg: 'ES384' }]), NOW_MS));
    // among several with the kid, the one whose alg matches
    assert.ok(validateJwt(jwt, settings(), staticKeys([{ ...es2.jwk, alg: 'ES384' }, es.jwk]), NOW_MS));
    // the first one left is used, with no trial of the others
    rejects(() => validateJwt(jwt, settings(), staticKeys([es2.jwk, es.jwk]), NOW_MS), /invalid signature/);
    const noKid = Object.fromEntries(Object.entries(es.jwk).filter(([k]) => k !== 'kid'));
    rejects(() => validateJwt(jwt, settings(), staticKeys([noKid]), NOW_MS), /Unable to find a suitable/);
    assert.ok(validateJwt(signJwt(es, claims(), { kid: undefined }), settings(), staticKeys([noKid]), NOW_MS));
    rejects(() => validateJwt(jwt, settings(), staticKeys([{ ...es.jwk, use: 'enc' }]), NOW_MS), /Unable to find/);
    rejects(() => validateJwt(jwt, settings(), staticKeys([{ ...es.jwk, key_ops: ['sign'] }]), NOW_MS), /Unable to/);
    assert.ok(validateJwt(jwt, settings(), staticKeys([{ ...es.jwk, key_ops: ['verify'] }]), NOW_MS));
  });

  test('exp and iat are required; exp and nbf are checked with the clock skew', () => {
    const v = (c: Record<string, unknown>, skew = 30): unknown =>
      validateJwt(signJwt(rsa, claims(c)), settings({ clockSkewSeconds: skew }), source, NOW_MS);
    rejects(() => v({ exp: undefined }), /No Expiration Time \(exp\) claim present\./);
    rejects(() => v({ iat: undefined }), /No Issued At \(iat\) claim present\./);
    assert.ok(v({ iat: NOW - 100, exp: NOW - 29 }), 'expired within the skew');
    rejects(
      () => v({ iat: NOW - 100, exp: NOW - 30 }),
      /The JWT is no longer valid - the evaluation time NumericDate\{1700000000\} is on or after the Expiration Time \(exp=NumericDate\{1699999970\}\) claim value \(even when providing 30 seconds of leeway to account for clock skew\)\./,
    );
    rejects(() => v({ iat: NOW - 100, exp: NOW }, 0), /on or after the Expiration Time .* claim value\.\]/);
    assert.ok(v({ nbf: NOW + 30 }), 'not before, within the skew');
    rejects(() => v({ nbf: NOW + 31 }), /The JWT is not yet valid as the evaluation time/);
    rejects(() => v({ iat: NOW + 700 }), /claim value cannot be before the Issued At/);
    assert.ok(v({ iat: NOW + 60 }), 'an iat in the future is not checked (jose4j default)');
    rejects(() => v({ exp: 'soon' }), /The value of the 'exp' claim is not the expected type/);
    assert.equal((v({ exp: NOW + 600.9 }) as { lifetimeMs: number }).lifetimeMs, (NOW + 600) * 1000, 'exp truncated');
  });

  test('iss and aud, when expected; not checked when allowed unverified', () => {
    const v = (c: Record<string, unknown>, s: Partial<JwtValidatorSettings> = {}): unknown =>
      validateJwt(signJwt(rsa, claims(c)), settings(s), source, NOW_MS);
    rejects(
      () => v({ iss: 'https://evil' }),
      /Issuer \(iss\) claim value \(https:\/\/evil\) doesn't match expected value of https:\/\/issuer\.test/,
    );
    rejects(() => v({ iss: undefined }), /No Issuer \(iss\) claim present\./);
    rejects(
      () => v({ aud: 'other' }),
      /Audience \(aud\) claim \[other\] doesn't contain an acceptable identifier\. Expected \[kafka\] as an aud value\./,
    );
    rejects(() => v({ aud: undefined }), /No Audience \(aud\) claim present\./);
    assert.ok(v({ aud: ['x', AUDIENCE] }));
    assert.ok(v({ aud: 'x' }, { expectedAudience: ['y', 'x'] }));
    assert.ok(v({ aud: undefined, iss: undefined }, { expectedAudience: [], expectedIssuer: null }));
  });

  test('the principal claim (sasl.oauthbearer.sub.claim.name) and the scope claim (ClaimValidationUtils)', () => {
    const v = (
      c: Record<string, unknown>,
      s: Partial<JwtValidatorSettings> = {},
    ): { principal: string; scope: ReadonlySet<string> } =>
      validateJwt(signJwt(rsa, claims(c)), settings(s), source, NOW_MS);
    // testMissingSubShouldBeValid
    assert.equal(v({ sub: undefined, client_id: 'otherSub' }, { subClaimName: 'client_id' }).principal, 'otherSub');
    rejects(() => v({ sub: undefined }), 'sub value must be non-null');
    rejects(() => v({ sub: '' }), 'sub value must be non-empty');
    rejects(() => v({ sub: '   ' }), 'sub value must not contain only whitespace');
    rejects(() => v({ sub: 42 }), "Could not extract the 'sub' claim from the access token");
    assert.equal(v({ sub: '  bob  ' }).principal, 'bob');
    assert.deepEqual([...v({ scope: 'a b' }).scope], ['a b'], 'a string scope is one value');
    assert.deepEqual([...v({ scope: ['a', 'b'] }).scope], ['a', 'b']);
    assert.deepEqual([...v({ scope: 7 }).scope], []);
    assert.deepEqual([...v({ roles: ['r'] }, { scopeClaimName: 'roles' }).scope], ['r']);
    rejects(() => v({ scope: ['a', 'a'] }), 'scope value must not contain duplicates - a already present');
    rejects(() => v({ scope: ['a', ' '] }), 'scope value must not contain only whitespace');
  });
});

describe('JWKS key sources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-jwks-unit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('parseJwks skips keys of unknown types and keys that do not parse', () => {
    const k = makeSigningKey('a', 'ES256');
    const keys = parseJwks(JSON.stringify({ keys: [{ kty: 'XYZ' }, { kty: 'RSA', n: '!' }, k.jwk, 7] }));
    assert.deepEqual(
      keys.map((x) => x.kid),
      ['a'],
    );
    assert.throws(() => parseJwks('{"nokeys":[]}'), /no "keys" array/);
  });

  test('a file: JWKS is read again when the file changes (CachedFile lastModifiedPolicy)', async () => {
    const file = join(dir, 'jwks.json');
    const a = makeSigningKey('a');
    const b = makeSigningKey('b');
    writeFileSync(file, JSON.stringify({ keys: [a.jwk] }));
    const src = new FileJwks(pathToFileURL(file).toString());
    await src.init();
    assert.deepEqual(
      src.keys().map((k) => k.kid),
      ['a'],
    );
    writeFileSync(file, JSON.stringify({ keys: [a.jwk, b.jwk] }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    assert.deepEqual(
      src.keys().map((k) => k.kid),
      ['a', 'b'],
    );
    assert.equal(src.maybeExpediteRefresh(), false);
    await assert.rejects(
      new FileJwks(pathToFileURL(join(dir, 'missing.json')).toString()).init(),
      /The OAuth configuration option sasl\.oauthbearer\.jwks\.endpoint\.url contains a file \(.*missing\.json\) that doesn't exist/,
    );
    await assert.rejects(new FileJwks(pathToFileURL(dir).toString()).init(), /references a directory/);
  });

  test('an http JWKS: loaded by init, a missing kid refreshes at most once a minute (RefreshingHttpsJwksTest)', async () => {
    const a = makeSigningKey('a');
    const server = await startOAuthServer({ clientId: 'c', clientSecret: 's', signingKey: a });
    let clock = 1_000_000;
    const src = new RefreshingHttpJwks(
      { url: server.jwksUrl, refreshMs: 3_600_000, retryBackoffMs: 10, retryBackoffMaxMs: 100 },
      () => {},
      () => clock,
    );
    try {
      await src.init();
      await src.init(); // idempotent: one load
      assert.equal(server.jwksRequests, 1);
      assert.deepEqual(
        src.keys().map((k) => k.kid),
        ['a'],
      );
      const b = makeSigningKey('b');
      server.jwksKeys = [a, b];
      assert.equal(src.maybeExpediteRefresh('b'), true);
      await waitFor(() => src.keys().some((k) => k.kid === 'b'), { what: 'the expedited refresh' });
      assert.equal(server.jwksRequests, 2);
      // a kid still missing after its refresh is not refreshed again within 60 s
      assert.equal(src.maybeExpediteRefresh('c'), true);
      await waitFor(() => server.jwksRequests === 3, { what: 'the refresh for c' });
      assert.equal(src.maybeExpediteRefresh('c'), false);
      clock += 60_000;
      assert.equal(src.maybeExpediteRefresh('c'), true);
      assert.equal(src.maybeExpediteRefresh('x'.repeat(1001)), false, 'a key id too long to cache');
      assert.equal(src.maybeExpediteRefresh(undefined), false);
      await waitFor(() => server.jwksRequests === 4, { what: 'the refresh for c a minute later' });
    } finally {
      src.close();
      await server.close();
    }
  });

  test("an https JWKS: verified with Node's trust by default, with the given TLS options otherwise", async () => {
    const certs = makeCerts();
    const a = makeSigningKey('a');
    const server = await startOAuthServer({
      clientId: 'c',
      clientSecret: 's',
      signingKey: a,
      tls: { key: certs.server.key, cert: certs.server.chain },
    });
    try {
      const untrusted = new RefreshingHttpJwks({
        url: server.jwksUrl,
        refreshMs: 1000,
        retryBackoffMs: 1,
        retryBackoffMaxMs: 4,
      });
      await assert.rejects(untrusted.init(), /Could not refresh JWKS from https:.*certificate/);
      untrusted.close();
      const trusted = new RefreshingHttpJwks({
        url: server.jwksUrl,
        refreshMs: 1000,
        retryBackoffMs: 1,
        retryBackoffMaxMs: 4,
        tls: { ca: certs.ca.cert },
      });
      await trusted.init();
      trusted.close();
      assert.deepEqual(
        trusted.keys().map((k) => k.kid),
        ['a'],
      );
    } finally {
      await server.close();
      certs.cleanup();
    }
  });

  test('the JWKS is fetched again every sasl.oauthbearer.jwks.endpoint.refresh.ms', async () => {
    const a = makeSigningKey('a');
    const b = makeSigningKey('b');
    const server = await startOAuthServer({ clientId: 'c', clientSecret: 's', signingKey: a });
    const src = new RefreshingHttpJwks({
      url: server.jwksUrl,
      refreshMs: 50,
      retryBackoffMs: 10,
      retryBackoffMaxMs: 100,
    });
    // the interval timer is unref'd (it never holds a broker open): this test's wait keeps the loop alive
    try {
      await src.init();
      server.jwksKeys = [b];
      await waitFor(() => src.keys().some((k) => k.kid === 'b'), { what: 'the periodic refresh', timeoutMs: 5000 });
      assert.deepEqual(
        src.keys().map((k) => k.kid),
        ['b'],
      );
    } finally {
      src.close();
      await server.close();
    }
  });

  test('a failed refresh keeps the keys; a JWKS that cannot be read fails init', async () => {
    const a = makeSigningKey('a');
    const server = await startOAuthServer({ clientId: 'c', clientSecret: 's', signingKey: a });
    const src = new RefreshingHttpJwks({
      url: server.jwksUrl,
      refreshMs: 3_600_000,
      retryBackoffMs: 1,
      retryBackoffMaxMs: 4,
    });
    try {
      await src.init();
      await server.close();
      await src.refresh();
      assert.deepEqual(
        src.keys().map((k) => k.kid),
        ['a'],
      );
    } finally {
      src.close();
    }
    const dead = new RefreshingHttpJwks({
      url: server.jwksUrl,
      refreshMs: 1000,
      retryBackoffMs: 1,
      retryBackoffMaxMs: 4,
    });
    await assert.rejects(dead.init(), /Could not refresh JWKS from http:\/\/127\.0\.0\.1:\d+\/jwks/);
    dead.close();
  });
});

describe("the listener's JWKS settings (OAuthBearerValidatorCallbackHandler.configure)", () => {
  const P = 'listener.name.sasl.';
  const url = 'https://idp.example/jwks';
  const env = { KAFKA_OPTS: `-Xmx1g -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=${url},file:///x -Dother=1` };
  const base = {
    [`${P}oauthbearer.sasl.oauthbearer.jwks.endpoint.url`]: url,
    'sasl.oauthbearer.expected.audience': 'a, b',
    [`${P}sasl.oauthbearer.expected.issuer`]: 'iss-listener',
    'sasl.oauthbearer.expected.issuer': 'iss-broker',
    [`${P}oauthbearer.sasl.oauthbearer.clock.skew.seconds`]: '5',
  };
  const read = (o: Record<string, string>, e: NodeJS.ProcessEnv = env): JwtValidatorSettings =>
    jwksValidatorSettings(new Map(Object.entries(o)), P, () => {}, e);
  const refused = (o: Record<string, string>, message: RegExp, e: NodeJS.ProcessEnv = env): void =>
    assert.throws(
      () => read(o, e),
      (err: unknown) => err instanceof ConfigError && message.test(err.message),
    );

  test('listener.name.<l>.oauthbearer.<key>, then listener.name.<l>.<key>, then <key>; Kafka defaults', () => {
    const s = read(base);
    assert.equal(s.jwks.url, url);
    assert.deepEqual(s.expectedAudience, ['a', 'b']);
    assert.equal(s.expectedIssuer, 'iss-listener');
    assert.equal(s.clockSkewSeconds, 5);
    assert.equal(s.scopeClaimName, 'scope');
    assert.equal(s.subClaimName, 'sub');
    assert.deepEqual(s.jwks, { url, refreshMs: 3_600_000, retryBackoffMs: 100, retryBackoffMaxMs: 10_000 });
  });

  test('the URL must be in org.apache.kafka.sasl.oauthbearer.allowed.urls (read from KAFKA_OPTS)', () => {
    assert.equal(jvmSystemProperty('other', env), '1');
    assert.equal(jvmSystemProperty('missing', env), undefined);
    refused(
      base,
      /Invalid value https:\/\/idp\.example\/jwks for configuration sasl\.oauthbearer\.jwks\.endpoint\.url: The URL cannot be accessed due to restrictions/,
      {},
    );
    refused(
      { ...base, [`${P}oauthbearer.sasl.oauthbearer.jwks.endpoint.url`]: 'ftp://x/jwks' },
      /contains an invalid protocol \(ftp\); only "http", "https", and "file" protocol are supported/,
    );
    refused(
      { ...base, [`${P}oauthbearer.sasl.oauthbearer.jwks.endpoint.url`]: 'not a url' },
      /contains a URL \(not a url\) that is malformed/,
    );
  });

  test("Kafka 4.4's configure-time refusals", () => {
    const without = (k: string): Record<string, string> =>
      Object.fromEntries(Object.entries(base).filter(([x]) => x !== k));
    refused(
      without(`${P}oauthbearer.sasl.oauthbearer.jwks.endpoint.url`),
      /requires "sasl\.oauthbearer\.jwks\.endpoint\.url" to be configured/,
    );
    refused(
      without('sasl.oauthbearer.expected.audience'),
      /requires "sasl\.oauthbearer\.expected\.audience" to be configured/,
    );
    const noIss = Object.fromEntries(Object.entries(base).filter(([x]) => !x.endsWith('expected.issuer')));
    refused(noIss, /requires "sasl\.oauthbearer\.expected\.issuer" to be configured/);
    const warnings: string[] = [];
    const s = jwksValidatorSettings(
      new Map(Object.entries({ ...noIss, 'sasl.oauthbearer.allow.unverified.issuer': 'true' })),
      P,
      (m) => warnings.push(m),
      env,
    );
    assert.equal(s.expectedIssuer, null);
    assert.match(warnings.join('\n'), /will accept a JWT bearing any \(or no\) "iss" \(issuer\) claim/);
    refused(
      { ...base, 'sasl.oauthbearer.jwt.validator.class': 'com.example.V' },
      /does not load JWT validator classes/,
    );
    // the https JWKS is fetched with the JAAS module's ssl.* options (JaasOptionsUtils), JKS unreadable
    assert.throws(
      () =>
        jwksValidatorSettings(
          new Map(Object.entries(base)),
          P,
          () => {},
          env,
          new Map([['ssl.truststore.location', '/x.jks']]),
        ),
      (e: unknown) =>
        e instanceof ConfigError &&
        e.key === `${P}oauthbearer.sasl.jaas.config` &&
        /option ssl\.truststore\.type\): Invalid value JKS/.test(e.message),
    );
    assert.equal(
      read({ ...base, 'ssl.truststore.location': '/x.jks' }).jwks.tls,
      undefined,
      "the listener's ssl.* are not used",
    );
    refused(
      { ...base, 'sasl.oauthbearer.jwks.endpoint.refresh.ms': 'often' },
      /Invalid value often for configuration sasl\.oauthbearer\.jwks\.endpoint\.refresh\.ms/,
    );
  });
});
