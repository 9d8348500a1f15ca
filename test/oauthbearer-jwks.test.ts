// OAUTHBEARER with JWKS-validated tokens on a tkafka broker (Kafka's OAuthBearerValidatorCallbackHandler):
// a real tkafka with two SASL_PLAINTEXT listeners, one validating against a JWKS served by the
// test on 127.0.0.1 (http), the other against a file: JWKS; keys made by node:crypto at run time.
// The tkafka tools authenticate with the client-credentials flow against the test's token endpoint;
// raw SaslAuthenticate exchanges check each failure (bad signature, expired, wrong issuer, wrong
// audience, unknown kid: the {"status":"invalid_token"} challenge, then Kafka's failure), the
// principal and session lifetime of a valid token, and key rotation (a new kid is accepted once the
// broker's expedited refresh has fetched it). Start-up refusals name the key.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { ErrorCode } from '../src/protocol/errors.js';
import { startBroker, boundPorts, type BrokerProcess } from './helpers/broker-process.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { makeCerts, STORE_PASSWORD, type TestCerts } from './helpers/certs.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import {
  jwksListenerSettings,
  makeSigningKey,
  oauthBearerExchange,
  signJwt,
  startOAuthServer,
  type OAuthServer,
  type SigningKey,
} from './helpers/oauth-server.js';

const OAUTH_JAAS = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;';
const ISSUER = 'https://issuer.tkafka.test';
const AUDIENCE = 'tkafka-cluster';
const ALLOWED_URLS = 'org.apache.kafka.sasl.oauthbearer.allowed.urls';

const now = (): number => Math.floor(Date.now() / 1000);

const INVALID = '{"status":"invalid_token"}';

function assertInvalidToken(r: Awaited<ReturnType<typeof oauthBearerExchange>>, what: string): void {
  assert.equal(r.first.errorCode, 0, what);
  assert.equal(r.first.authBytes, INVALID, `${what}: the error challenge`);
  assert.deepEqual(r.second, { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, message: INVALID }, what);
}

describe('a tkafka broker validating OAUTHBEARER tokens with a JWKS', () => {
  let dir: string;
  let oauth: OAuthServer;
  let rsa: SigningKey;
  let ec: SigningKey;
  let fileKey: SigningKey;
  let broker: BrokerProcess;
  let httpPort: number;
  let filePort: number;
  let savedOpts: string | undefined;
  let certs: TestCerts;
  let httpsOAuth: OAuthServer;
  let tlsKey: SigningKey;
  let httpsPort: number;

  const claims = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    sub: 'alice',
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now(),
    exp: now() + 600,
    ...extra,
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tkafka-jwks-'));
    rsa = makeSigningKey('rsa-1', 'RS256');
    ec = makeSigningKey('ec-1', 'ES256');
    fileKey = makeSigningKey('file-1', 'PS256');
    oauth = await startOAuthServer({
      clientId: 'tkafka-app',
      clientSecret: 'app-secret',
      signingKey: rsa,
      claims: { iss: ISSUER, aud: AUDIENCE, scope: 'kafka' },
    });
    oauth.jwksKeys = [rsa, ec];
    const jwksFile = join(dir, 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify({ keys: [fileKey.jwk] }));
    const fileUrl = pathToFileURL(jwksFile).toString();
    // an https JWKS, trusted through the ssl.truststore.* options of the listener's JAAS login module
    certs = makeCerts();
    tlsKey = makeSigningKey('tls-1', 'ES384');
    httpsOAuth = await startOAuthServer({
      clientId: 'x',
      clientSecret: 'y',
      signingKey: tlsKey,
      tls: { key: certs.server.key, cert: certs.server.chain },
    });
    const httpsListener = jwksListenerSettings('sasltls', httpsOAuth.jwksUrl, ISSUER, AUDIENCE);
    httpsListener['listener.name.sasltls.oauthbearer.sasl.jaas.config'] =
      `${OAUTH_JAAS.slice(0, -1)} unsecuredLoginStringClaim_sub="broker" ssl.truststore.type="PKCS12" ssl.truststore.location="${certs.ca.truststoreP12Path}" ssl.truststore.password="${STORE_PASSWORD}";`;
    savedOpts = process.env['KAFKA_OPTS'];
    process.env['KAFKA_OPTS'] = `-D${ALLOWED_URLS}=${oauth.jwksUrl},${fileUrl},${httpsOAuth.jwksUrl}`;
    broker = await startBroker({
      overrides: {
        listeners:
          'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASLFILE://127.0.0.1:0,SASLTLS://127.0.0.1:0',
        'advertised.listeners':
          'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASLFILE://127.0.0.1:0,SASLTLS://127.0.0.1:0',
        'listener.security.protocol.map':
          'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASLFILE:SASL_PLAINTEXT,SASLTLS:SASL_PLAINTEXT',
        ...jwksListenerSettings('sasl_plaintext', oauth.jwksUrl, ISSUER, AUDIENCE),
        ...jwksListenerSettings('saslfile', fileUrl, ISSUER, AUDIENCE),
        ...httpsListener,
      },
    });
    const ports = boundPorts(broker.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL_PLAINTEXT', 'SASLFILE', 'SASLTLS'])!;
    httpsPort = ports.get('SASLTLS')!;
    httpPort = ports.get('SASL_PLAINTEXT')!;
    filePort = ports.get('SASLFILE')!;
    assert.ok(httpPort > 0 && filePort > 0);
    assert.doesNotMatch(broker.output(), /were supplied but are not used yet/);
  });

  after(async () => {
    await broker?.stop();
    broker?.cleanup();
    await oauth?.close();
    await httpsOAuth?.close();
    certs?.cleanup();
    if (savedOpts === undefined) delete process.env['KAFKA_OPTS'];
    else process.env['KAFKA_OPTS'] = savedOpts;
    rmSync(dir, { recursive: true, force: true });
  });

  test('a valid RS256 or ES256 token authenticates; its exp bounds the session (KIP-368)', async () => {
    for (const key of [rsa, ec]) {
      const exp = now() + 600;
      const r = await oauthBearerExchange(httpPort, signJwt(key, claims({ exp })));
      assert.equal(r.first.errorCode, 0, `${key.alg}: ${r.first.message}`);
      assert.equal(r.first.authBytes, '', key.alg);
      assert.equal(r.second, undefined);
      assert.ok(r.first.lifetimeMs > 590_000n && r.first.lifetimeMs <= 600_000n, `${key.alg}: ${r.first.lifetimeMs}`);
    }
  });

  test('the file: JWKS listener accepts a PS256 token signed by its key and refuses the http JWKS key', async () => {
    const ok = await oauthBearerExchange(filePort, signJwt(fileKey, claims()));
    assert.equal(ok.first.errorCode, 0, ok.first.message);
    assert.equal(ok.first.authBytes, '');
    assertInvalidToken(await oauthBearerExchange(filePort, signJwt(rsa, claims())), 'a key of the other JWKS');
  });

  test('an https JWKS trusted with the ssl.truststore.* options of the JAAS login module', async () => {
    const ok = await oauthBearerExchange(httpsPort, signJwt(tlsKey, claims()));
    assert.equal(ok.first.errorCode, 0, ok.first.message);
    assert.equal(ok.first.authBytes, '');
    assertInvalidToken(await oauthBearerExchange(httpsPort, signJwt(rsa, claims())), 'a key of another JWKS');
    assert.ok(httpsOAuth.jwksRequests >= 1);
  });

  test('bad signature, expired, wrong issuer, wrong audience, unknown kid, alg none, no iat: invalid_token', async () => {
    const good = signJwt(rsa, claims());
    const [h, p] = good.split('.');
    const forged = `${h}.${p}.${signJwt(makeSigningKey('rsa-1'), claims()).split('.')[2]}`;
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    const cases: [string, string][] = [
      ['bad signature', forged],
      ['expired', signJwt(rsa, claims({ iat: now() - 3600, exp: now() - 60 }))],
      ['wrong issuer', signJwt(rsa, claims({ iss: 'https://other.example' }))],
      ['wrong audience', signJwt(rsa, claims({ aud: 'other-cluster' }))],
      ['no audience', signJwt(rsa, claims({ aud: undefined }))],
      ['unknown kid', signJwt(makeSigningKey('nobody'), claims())],
      ['alg none', none],
      ['no iat', signJwt(rsa, claims({ iat: undefined }))],
      ['not yet valid', signJwt(rsa, claims({ nbf: now() + 600 }))],
    ];
    for (const [what, jwt] of cases) assertInvalidToken(await oauthBearerExchange(httpPort, jwt), what);
    assert.match(broker.output(), /Unable to find a suitable verification key/);
  });

  test('key rotation: a token with a new kid is refused, expedites a JWKS refresh, then is accepted', async () => {
    const rotated = makeSigningKey('rsa-2', 'RS384');
    const before = oauth.jwksRequests;
    oauth.jwksKeys = [rotated];
    const jwt = signJwt(rotated, claims());
    assertInvalidToken(await oauthBearerExchange(httpPort, jwt), 'before the refresh');
    await waitFor(() => oauth.jwksRequests > before, { what: 'the expedited JWKS refresh', timeoutMs: 10_000 });
    await waitFor(async () => (await oauthBearerExchange(httpPort, jwt)).first.errorCode === 0 || undefined, {
      what: 'the rotated key to be accepted',
      timeoutMs: 10_000,
    });
    // the old key is gone with the refreshed JWKS
    assertInvalidToken(await oauthBearerExchange(httpPort, signJwt(rsa, claims())), 'a key no longer served');
    oauth.jwksKeys = [rsa, ec, rotated];
  });

  test('the tkafka tools authenticate with the client-credentials flow (principal from sub)', async () => {
    oauth.signingKey = ec;
    oauth.jwksKeys = [rsa, ec];
    // the broker holds the rotated JWKS: an ec-1 token expedites the refresh that brings it back
    const probe = signJwt(ec, claims());
    await waitFor(async () => (await oauthBearerExchange(httpPort, probe)).first.errorCode === 0 || undefined, {
      what: 'the ec-1 key to be served again',
      timeoutMs: 10_000,
    });
    const props = join(dir, 'client.properties');
    writeFileSync(
      props,
      [
        'security.protocol=SASL_PLAINTEXT',
        'sasl.mechanism=OAUTHBEARER',
        'sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
        `sasl.oauthbearer.token.endpoint.url=${oauth.tokenUrl}`,
        'sasl.oauthbearer.client.credentials.client.id=tkafka-app',
        'sasl.oauthbearer.client.credentials.client.secret=app-secret',
        `sasl.jaas.config=${OAUTH_JAAS}`,
        '',
      ].join('\n'),
    );
    const B = ['--bootstrap-server', `127.0.0.1:${httpPort}`, '--command-config', props];
    const r1 = await runTkafka('topics', [...B, '--create', '--topic', 'jwks-topic', '--partitions', '1']);
    assert.equal(r1.code, 0, r1.err + r1.out);
    const r2 = await runTkafka(
      'console-producer',
      ['--bootstrap-server', `127.0.0.1:${httpPort}`, '--command-config', props, '--topic', 'jwks-topic'],
      {},
      'a\nb\n',
    );
    assert.equal(r2.code, 0, r2.err + r2.out);
    const r3 = await runTkafka('console-consumer', [
      '--bootstrap-server',
      `127.0.0.1:${httpPort}`,
      '--command-config',
      props,
      '--topic',
      'jwks-topic',
      '--from-beginning',
      '--max-messages',
      '2',
      '--timeout-ms',
      '20000',
    ]);
    assert.equal(r3.code, 0, r3.err + r3.out);
    assert.deepEqual(r3.out.trim().split('\n'), ['a', 'b']);
    assert.ok(oauth.tokenRequests.length > 0, 'the token endpoint was asked');
    // a token from the endpoint with the wrong audience is refused with Kafka's message
    oauth.claims = { ...oauth.claims, aud: 'other-cluster' };
    try {
      const bad = await runTkafka('topics', [...B, '--list']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.err + bad.out, /\{"status":"invalid_token"\}/);
    } finally {
      oauth.claims = { ...oauth.claims, aud: AUDIENCE };
    }
  });
});

describe('start-up refusals of the JWKS settings', () => {
  async function start(overrides: Record<string, string>, kafkaOpts = ''): Promise<{ code: number; out: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'tkafka-jwks-start-'));
    try {
      const base: Record<string, string> = {
        'process.roles': 'broker,controller',
        'node.id': '1',
        'controller.quorum.voters': '1@127.0.0.1:0',
        listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
        'controller.listener.names': 'CONTROLLER',
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
        'log.dirs': join(dir, 'logs'),
      };
      const args = ['bin/tkafka', 'server', 'start'];
      for (const [k, v] of Object.entries({ ...base, ...overrides })) args.push('--override', `${k}=${v}`);
      const r = await execa('node', args, {
        cwd: REPO_ROOT,
        all: true,
        reject: false,
        timeout: 60_000,
        env: { KAFKA_OPTS: kafkaOpts },
      });
      return { code: r.exitCode ?? -1, out: r.all ?? '' };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const url = 'http://127.0.0.1:1/jwks';

  test('a JWKS URL missing from org.apache.kafka.sasl.oauthbearer.allowed.urls', async () => {
    const r = await start(jwksListenerSettings('sasl_plaintext', url, ISSUER, AUDIENCE));
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /Invalid value http:\/\/127\.0\.0\.1:1\/jwks for configuration sasl\.oauthbearer\.jwks\.endpoint\.url: The URL cannot be accessed due to restrictions\. Update the system property 'org\.apache\.kafka\.sasl\.oauthbearer\.allowed\.urls' to allow the URL to be accessed\./,
    );
  });

  test('no expected audience (and allow.unverified.audience not set)', async () => {
    const o = jwksListenerSettings('sasl_plaintext', url, ISSUER, AUDIENCE);
    delete o['listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.audience'];
    const r = await start(o, `-D${ALLOWED_URLS}=${url}`);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /The OAuth validator for the broker requires "sasl\.oauthbearer\.expected\.audience" to be configured/,
    );
  });

  test("JAAS options the broker's own login cannot build a token from (Kafka's start-up LoginException)", async () => {
    const o = jwksListenerSettings('sasl_plaintext', url, ISSUER, AUDIENCE);
    o['listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config'] =
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required ssl.truststore.type="PEM";';
    const r = await start(o, `-D${ALLOWED_URLS}=${url}`);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /Invalid value for listener\.name\.sasl_plaintext\.oauthbearer\.sasl\.jaas\.config: the listener's OAuthBearerLoginModule cannot log in \(An internal error occurred while retrieving token from callback handler\): No principal name in JWT claim: sub/,
    );
  });

  test('a JWKS that cannot be fetched', async () => {
    const r = await start(jwksListenerSettings('sasl_plaintext', url, ISSUER, AUDIENCE), `-D${ALLOWED_URLS}=${url}`);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /the JWKS of sasl\.oauthbearer\.jwks\.endpoint\.url \(http:\/\/127\.0\.0\.1:1\/jwks\) could not be read/,
    );
    assert.doesNotMatch(r.out, /Kafka Server started/);
  });
});
