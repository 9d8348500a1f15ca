// The SASL client without a broker: how Kafka client properties become a SASL config (GSSAPI
// refused, a missing sasl.jaas.config, a login module of another mechanism, tkafka's
// sasl.username/sasl.password shorthands), the bytes each mechanism sends (PLAIN, SCRAM against
// RFC 7677's vector with the server signature checked, OAUTHBEARER's GS2 initial response and
// Kafka's unsecured token), the SaslHandshake/SaslAuthenticate exchange's errors, and profiles
// that store SASL credentials (mode 0600, masked by `show`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { clientConfigFromProperties } from '../src/client/config.js';
import { ClientConfigError, SaslAuthenticationError, isRetriableError, ApiError } from '../src/client/errors.js';
import { MISSING_JAAS_MESSAGE, expandSaslShorthands, saslConfigFromProperties } from '../src/client/sasl-config.js';
import { plainInitialResponse } from '../src/client/sasl/plain.js';
import { ScramClient } from '../src/client/sasl/scram.js';
import {
  basicAuthorization,
  clientCredentialsBody,
  formatTokenErrorMessage,
  javaDouble,
  oauthBearerInitialResponse,
  unsecuredToken,
} from '../src/client/sasl/oauthbearer.js';
import { authenticate, reauthDelayMs, type SaslTransport } from '../src/client/sasl/exchange.js';
import { KafkaClient } from '../src/client/client.js';
import { run as profile } from '../src/tools/profile/main.js';

const PLAIN_JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";';
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="b0b";';
const OAUTH_JAAS =
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="carol" unsecuredLoginExtension_traceId="123";';

const props = (o: Record<string, string>): Map<string, string> => new Map(Object.entries(o));
const configError = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ClientConfigError, `expected ClientConfigError, got ${String(e)}`);
    return e.message;
  }
  assert.fail('no error');
};

test('security.protocol=SASL_PLAINTEXT without sasl.mechanism is GSSAPI, which is refused naming sasl.mechanism', () => {
  const msg = configError(() =>
    clientConfigFromProperties(props({ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.jaas.config': PLAIN_JAAS })),
  );
  assert.match(msg, /^sasl\.mechanism=GSSAPI .*not supported by the tkafka client/);
  assert.match(
    configError(() =>
      saslConfigFromProperties(props({ 'sasl.mechanism': 'DIGEST-MD5', 'sasl.jaas.config': PLAIN_JAAS })),
    ),
    /^sasl\.mechanism=DIGEST-MD5 is not supported by the tkafka client \(supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER\)$/,
  );
});

test("a missing sasl.jaas.config fails with JaasContext's message", () => {
  assert.equal(
    configError(() =>
      clientConfigFromProperties(props({ 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'PLAIN' })),
    ),
    "Could not find a 'KafkaClient' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set",
  );
  assert.equal(MISSING_JAAS_MESSAGE.endsWith('is not set'), true);
});

test('a login module of another mechanism, a bad JAAS text and a missing password are clear errors', () => {
  assert.equal(
    configError(() => saslConfigFromProperties(props({ 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': OAUTH_JAAS }))),
    'sasl.mechanism=PLAIN needs org.apache.kafka.common.security.plain.PlainLoginModule in sasl.jaas.config, not org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule',
  );
  assert.equal(
    configError(() =>
      saslConfigFromProperties(props({ 'sasl.mechanism': 'OAUTHBEARER', 'sasl.jaas.config': SCRAM_JAAS })),
    ),
    'sasl.mechanism=OAUTHBEARER needs org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule in sasl.jaas.config, not org.apache.kafka.common.security.scram.ScramLoginModule',
  );
  assert.equal(
    configError(() =>
      saslConfigFromProperties(
        props({
          'sasl.mechanism': 'SCRAM-SHA-256',
          'sasl.jaas.config': 'com.sun.security.auth.module.Krb5LoginModule required;',
        }),
      ),
    ),
    'sasl.mechanism=SCRAM-SHA-256 needs org.apache.kafka.common.security.scram.ScramLoginModule in sasl.jaas.config, not com.sun.security.auth.module.Krb5LoginModule',
  );
  assert.equal(
    configError(() =>
      saslConfigFromProperties(props({ 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': PLAIN_JAAS.replace(';', '') })),
    ),
    'Invalid sasl.jaas.config: JAAS config entry not terminated by semi-colon',
  );
  assert.match(
    configError(() =>
      saslConfigFromProperties(
        props({
          'sasl.mechanism': 'PLAIN',
          'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required username="a";',
        }),
      ),
    ),
    /^sasl\.jaas\.config for sasl\.mechanism=PLAIN must set both username and password/,
  );
});

test('PLAIN, SCRAM (with tokenauth) and OAUTHBEARER configs are read from the login module', () => {
  const c = clientConfigFromProperties(
    props({ 'security.protocol': 'sasl_plaintext', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': PLAIN_JAAS }),
    { bootstrapServers: ['127.0.0.1:9092'] },
  );
  assert.deepEqual(c.sasl, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' });
  assert.deepEqual(
    saslConfigFromProperties(
      props({ 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.jaas.config': SCRAM_JAAS.replace(';', ' tokenauth="true";') }),
    ),
    { mechanism: 'SCRAM-SHA-512', username: 'bob', password: 'b0b', tokenAuth: true },
  );
  const o = saslConfigFromProperties(props({ 'sasl.mechanism': 'OAUTHBEARER', 'sasl.jaas.config': OAUTH_JAAS }));
  assert.equal(o.mechanism, 'OAUTHBEARER');
  if (o.mechanism !== 'OAUTHBEARER') return;
  assert.equal(o.token.kind, 'unsecured');
  assert.deepEqual([...o.extensions], [['traceId', '123']]);
  const cc = saslConfigFromProperties(
    props({
      'sasl.mechanism': 'OAUTHBEARER',
      'sasl.oauthbearer.token.endpoint.url': 'http://127.0.0.1:1/token',
      'sasl.jaas.config':
        'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="app" clientSecret="s3" scope="kafka" extension_tenant="t1";',
    }),
  );
  assert.ok(cc.mechanism === 'OAUTHBEARER' && cc.token.kind === 'client_credentials');
  if (cc.mechanism !== 'OAUTHBEARER' || cc.token.kind !== 'client_credentials') return;
  assert.equal(cc.token.clientId, 'app');
  assert.equal(cc.token.scope, 'kafka');
  assert.deepEqual([...cc.extensions], [['tenant', 't1']]);
  assert.equal(
    configError(() =>
      saslConfigFromProperties(
        props({
          'sasl.mechanism': 'OAUTHBEARER',
          'sasl.oauthbearer.token.endpoint.url': 'http://127.0.0.1:1/token',
          'sasl.jaas.config':
            'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="app";',
        }),
      ),
    ),
    'The OAuth configuration option clientSecret must be non-null',
  );
  const fromProps = saslConfigFromProperties(
    props({
      'sasl.mechanism': 'OAUTHBEARER',
      'sasl.oauthbearer.token.endpoint.url': 'http://127.0.0.1:1/token',
      'sasl.oauthbearer.client.credentials.client.id': 'prop-id',
      'sasl.oauthbearer.client.credentials.client.secret': 'prop-secret',
      'sasl.oauthbearer.scope': 'prop-scope',
      'sasl.jaas.config': `${OAUTH_JAAS.split(' ')[0]} required clientId="jaas-id" clientSecret="jaas" scope="jaas";`,
    }),
  );
  assert.ok(fromProps.mechanism === 'OAUTHBEARER' && fromProps.token.kind === 'client_credentials');
  if (fromProps.mechanism === 'OAUTHBEARER' && fromProps.token.kind === 'client_credentials')
    assert.deepEqual(
      [fromProps.token.clientId, fromProps.token.clientSecret, fromProps.token.scope],
      ['prop-id', 'prop-secret', 'prop-scope'],
    );
  assert.match(
    configError(() =>
      saslConfigFromProperties(
        props({
          'sasl.mechanism': 'OAUTHBEARER',
          'sasl.oauthbearer.token.endpoint.url': 'http://127.0.0.1:1/token',
          'sasl.oauthbearer.jwt.retriever.class': 'org.apache.kafka.common.security.oauthbearer.FileJwtRetriever',
          'sasl.jaas.config': `${OAUTH_JAAS.split(' ')[0]} required clientId="a" clientSecret="b";`,
        }),
      ),
    ),
    /^sasl\.oauthbearer\.jwt\.retriever\.class=org\.apache\.kafka\.common\.security\.oauthbearer\.FileJwtRetriever is not supported/,
  );
});

test('SASL_SSL is TLS plus SASL; SSL is TLS alone; PLAINTEXT ignores sasl.* settings', () => {
  const both = clientConfigFromProperties(
    props({ 'security.protocol': 'sasl_ssl', 'sasl.mechanism': 'PLAIN', 'sasl.jaas.config': PLAIN_JAAS }),
  );
  assert.ok(both.tls);
  assert.equal(both.sasl?.mechanism, 'PLAIN');
  assert.match(
    configError(() => clientConfigFromProperties(props({ 'security.protocol': 'SASL_SSL' }))),
    /GSSAPI/,
  );
  const ssl = clientConfigFromProperties(props({ 'security.protocol': 'SSL', 'sasl.mechanism': 'PLAIN' }));
  assert.ok(ssl.tls);
  assert.equal(ssl.sasl, undefined);
  const plain = clientConfigFromProperties(props({ 'sasl.username': 'x', 'sasl.mechanism': 'GSSAPI' }));
  assert.equal(plain.sasl, undefined);
  assert.equal(plain.tls, undefined);
});

test('sasl.username / sasl.password shorthands become the mechanism login module', () => {
  const scram = expandSaslShorthands(
    props({ 'sasl.mechanism': 'SCRAM-SHA-256', 'sasl.username': 'u"1', 'sasl.password': 'p\\w' }),
  );
  assert.equal(
    scram.get('sasl.jaas.config'),
    'org.apache.kafka.common.security.scram.ScramLoginModule required username="u\\"1" password="p\\\\w";',
  );
  assert.equal(scram.has('sasl.username'), false);
  assert.deepEqual(saslConfigFromProperties(scram), {
    mechanism: 'SCRAM-SHA-256',
    username: 'u"1',
    password: 'p\\w',
    tokenAuth: false,
  });
  const c = clientConfigFromProperties(
    props({
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'PLAIN',
      'sasl.username': 'a',
      'sasl.password': 'b',
    }),
  );
  assert.deepEqual(c.sasl, { mechanism: 'PLAIN', username: 'a', password: 'b' });
  assert.match(
    configError(() =>
      expandSaslShorthands(props({ 'sasl.mechanism': 'OAUTHBEARER', 'sasl.username': 'a', 'sasl.password': 'b' })),
    ),
    /need sasl\.mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512/,
  );
  assert.match(
    configError(() => expandSaslShorthands(props({ 'sasl.mechanism': 'PLAIN', 'sasl.username': 'a' }))),
    /must be given together/,
  );
  assert.match(
    configError(() =>
      expandSaslShorthands(
        props({
          'sasl.mechanism': 'PLAIN',
          'sasl.username': 'a',
          'sasl.password': 'b',
          'sasl.jaas.config': PLAIN_JAAS,
        }),
      ),
    ),
    /not both/,
  );
});

test('PLAIN sends NUL user NUL password', () => {
  assert.deepEqual(plainInitialResponse('alice', 'pw'), Buffer.from([0, 0x61, 0x6c, 0x69, 0x63, 0x65, 0, 0x70, 0x77]));
});

test("SCRAM-SHA-256 client: RFC 7677's exchange byte for byte, and a wrong server signature fails", async () => {
  const nonce = 'rOprNGfwEbeRWgbNEkqO';
  const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
  const c = new ScramClient('SCRAM-SHA-256', 'user', 'pencil', false, nonce);
  assert.equal((await c.initialResponse()).toString(), 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
  assert.equal(
    c.evaluateChallenge(Buffer.from(serverFirst))!.toString(),
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  );
  assert.equal(c.evaluateChallenge(Buffer.from('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')), null);

  const bad = new ScramClient('SCRAM-SHA-256', 'user', 'pencil', false, nonce);
  await bad.initialResponse();
  bad.evaluateChallenge(Buffer.from(serverFirst));
  assert.throws(
    () => bad.evaluateChallenge(Buffer.from('v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')),
    (e: unknown) =>
      e instanceof SaslAuthenticationError && e.message === 'Invalid server signature in server final message',
  );
  const tok = new ScramClient('SCRAM-SHA-512', 'a=b,c', 'x', true, 'n0nce');
  assert.equal((await tok.initialResponse()).toString(), 'n,,n=a=3Db=2Cc,r=n0nce,tokenauth=true');
  assert.throws(
    () => tok.evaluateChallenge(Buffer.from('r=other,s=QSXCR+Q6sek8bf92,i=4096')),
    /Invalid server nonce: does not start with client nonce/,
  );
  const weak = new ScramClient('SCRAM-SHA-512', 'a', 'x', false, 'n0nce');
  await weak.initialResponse();
  assert.throws(
    () => weak.evaluateChallenge(Buffer.from('r=n0nceS,s=QSXCR+Q6sek8bf92,i=1000')),
    /Requested iterations 1000 is less than the minimum 4096 for SCRAM-SHA-512/,
  );
});

test("OAUTHBEARER initial response: Kafka's GS2 header, auth=Bearer, extensions, two separators", () => {
  assert.equal(oauthBearerInitialResponse('tok.en.').toString('latin1'), 'n,,\x01auth=Bearer tok.en.\x01\x01');
  assert.equal(
    oauthBearerInitialResponse(
      't',
      new Map([
        ['traceId', '123'],
        ['x', 'y'],
      ]),
    ).toString('latin1'),
    'n,,\x01auth=Bearer t\x01traceId=123\x01x=y\x01\x01',
  );
});

test("Kafka's unsecured token: alg none, exp = iat + lifetime, the claims, an empty signature", () => {
  const now = 1_765_000_000_123;
  const token = unsecuredToken(
    new Map([
      ['unsecuredLoginStringClaim_sub', 'carol'],
      ['unsecuredLoginLifetimeSeconds', '60'],
      ['unsecuredLoginListClaim_scope', '|a|b'],
      ['unsecuredLoginExtension_traceId', '1'],
    ]),
    now,
  );
  const [h, c, sig] = token.split('.');
  assert.equal(sig, '');
  assert.equal(Buffer.from(h!, 'base64url').toString(), '{"alg":"none"}');
  assert.equal(
    Buffer.from(c!, 'base64url').toString(),
    '{"exp":1.765000060123E9,"iat":1.765000000123E9,"sub":"carol","scope":["a","b"]}',
  );
  assert.equal(javaDouble(3.5), '3.5');
  assert.equal(javaDouble(1e9), '1.0E9');
  assert.throws(
    () => unsecuredToken(new Map([['unsecuredLoginStringClaim_exp', '1']])),
    /Cannot explicitly set the 'exp' claim/,
  );
  assert.throws(
    () => unsecuredToken(new Map([['unsecuredLoginLifetimeSeconds', '5']])),
    /No principal name in JWT claim: sub/,
  );
});

test("client-credentials request: Kafka's Basic header and form body", () => {
  assert.equal(basicAuthorization('app', 's3cr:t', false), `Basic ${Buffer.from('app:s3cr:t').toString('base64')}`);
  assert.equal(basicAuthorization('a b', 'c&d', true), `Basic ${Buffer.from('a+b:c%26d').toString('base64')}`);
  assert.equal(formatTokenErrorMessage(''), '{}');
  assert.equal(formatTokenErrorMessage('{"error":"invalid_client"}'), '{"invalid_client" - }');
  assert.equal(formatTokenErrorMessage('{"errorCode":"E1","errorSummary":"no"}'), '{"E1" - "no"}');
  assert.equal(formatTokenErrorMessage('{"other":1}'), '{"other":1}');
  assert.equal(formatTokenErrorMessage('oops'), '{oops}');
  assert.equal(clientCredentialsBody(null), 'grant_type=client_credentials');
  assert.equal(clientCredentialsBody(' kafka read '), 'grant_type=client_credentials&scope=kafka+read');
});

/** A scripted broker side of the exchange: each call answers with the next body. */
function scripted(bodies: unknown[], version = 2): SaslTransport & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    send<T>(_api: unknown, body: unknown) {
      sent.push(body);
      const next = bodies.shift();
      if (next === undefined) throw new Error('unexpected request');
      return Promise.resolve({ version, body: next as T });
    },
  } as SaslTransport & { sent: unknown[] };
}

test("the exchange: the enabled-mechanisms message, the broker's failure message (fatal), the session lifetime", async () => {
  await assert.rejects(
    authenticate(scripted([{ errorCode: 33, mechanisms: ['PLAIN', 'SCRAM-SHA-512'] }]), {
      mechanism: 'SCRAM-SHA-256',
      username: 'u',
      password: 'p',
      tokenAuth: false,
    }),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === 33 &&
      e.message ===
        "Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server, enabled mechanisms are [PLAIN, SCRAM-SHA-512]",
  );
  const msg = 'Authentication failed: Invalid username or password';
  const t = scripted([
    { errorCode: 0, mechanisms: ['PLAIN'] },
    { errorCode: 58, errorMessage: msg, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n },
  ]);
  let err: unknown;
  await authenticate(t, { mechanism: 'PLAIN', username: 'u', password: 'p' }).catch((e: unknown) => (err = e));
  assert.ok(err instanceof SaslAuthenticationError);
  assert.equal((err as Error).message, msg);
  assert.equal((err as ApiError).javaClass, 'org.apache.kafka.common.errors.SaslAuthenticationException');
  assert.equal(isRetriableError(err), false);
  assert.deepEqual(t.sent, [{ mechanism: 'PLAIN' }, { authBytes: plainInitialResponse('u', 'p') }]);
  const ok = scripted([
    { errorCode: 0, mechanisms: ['PLAIN'] },
    { errorCode: 0, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 10_000n },
  ]);
  assert.equal(await authenticate(ok, { mechanism: 'PLAIN', username: 'u', password: 'p' }), 10_000);
  assert.equal(
    reauthDelayMs(10_000, () => 0),
    8500,
  );
  assert.equal(
    reauthDelayMs(10_000, () => 0.999999),
    9499,
  );
  assert.equal(
    reauthDelayMs(90 * 86_400_000, () => 0.5),
    0x7fffffff,
  );
});

test('the shared client does not retry an authentication failure', async () => {
  const client = new KafkaClient({ bootstrapServers: ['127.0.0.1:1'], apiTimeoutMs: 60_000 });
  let attempts = 0;
  const started = Date.now();
  await assert.rejects(
    client.call('op', () => {
      attempts++;
      return Promise.reject(new SaslAuthenticationError('bad password'));
    }),
    /bad password/,
  );
  assert.equal(attempts, 1);
  assert.ok(Date.now() - started < 1000);
  client.close();
});

function sink(): { w: Writable; text: () => string } {
  let s = '';
  return {
    w: new Writable({
      write(c, _e, cb) {
        s += String(c);
        cb();
      },
    }),
    text: () => s,
  };
}

test('profile create --security-protocol/--sasl-*: stored 0600, validated, never shown', async () => {
  const home = mkdtempSync(join(tmpdir(), 'tkafka-sasl-profile-'));
  try {
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'cfg') };
    const run = async (argv: string[]): Promise<{ code: number; out: string; err: string }> => {
      const out = sink();
      const err = sink();
      const code = await profile(argv, { stdout: out.w, stderr: err.w, stdin: process.stdin, env });
      return { code, out: out.text(), err: err.text() };
    };
    const created = await run([
      'create',
      'secure',
      '--bootstrap-server',
      '127.0.0.1:9093',
      '--security-protocol',
      'SASL_PLAINTEXT',
      '--sasl-mechanism',
      'SCRAM-SHA-512',
      '--sasl-username',
      'alice',
      '--sasl-password',
      'Sup3r-Secret',
    ]);
    assert.equal(created.code, 0, created.err);
    assert.doesNotMatch(created.out + created.err, /Sup3r-Secret/);
    const file = join(home, 'cfg', 'tkafka', 'config.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, 'utf8'), /"sasl.password": "Sup3r-Secret"/);
    const shown = await run(['show', 'secure']);
    assert.equal(shown.code, 0);
    assert.match(shown.out, /^sasl\.password=\[hidden\]$/m);
    assert.match(shown.out, /^sasl\.username=alice$/m);
    assert.doesNotMatch(shown.out, /Sup3r-Secret/);
    const json = await run(['show', 'secure', '--output', 'json']);
    assert.doesNotMatch(json.out, /Sup3r-Secret/);
    const gssapi = await run([
      'create',
      'k',
      '--bootstrap-server',
      '127.0.0.1:9093',
      '--security-protocol',
      'SASL_PLAINTEXT',
    ]);
    assert.equal(gssapi.code, 1);
    assert.match(gssapi.err, /^sasl\.mechanism=GSSAPI /);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
