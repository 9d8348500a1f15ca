// OAUTHBEARER with JWKS-validated tokens, the same listener configuration on Apache Kafka 4.4.0 and on
// tkafka (OAuthBearerValidatorCallbackHandler, sasl.oauthbearer.jwks.endpoint.url served by the test
// on 127.0.0.1, expected issuer and audience, the URL allowed by
// -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls: a JVM flag for Kafka, KAFKA_OPTS for tkafka).
// Kafka's Java console producer and consumer (client-credentials login callback handler against the
// test's token endpoint) authenticate on both; the raw SaslAuthenticate answers to each invalid token
// (bad signature, expired, wrong issuer, wrong audience, unknown kid, …) are identical on both.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, boundPorts, type BrokerProcess } from '../helpers/broker-process.js';
import {
  jwksListenerSettings,
  makeSigningKey,
  oauthBearerExchange,
  signJwt,
  startOAuthServer,
  type OAuthServer,
  type SigningKey,
} from '../helpers/oauth-server.js';
import { makeCerts, STORE_PASSWORD, type TestCerts } from '../helpers/certs.js';

const ISSUER = 'https://issuer.tkafka.test';
const AUDIENCE = 'tkafka-cluster';
const ALLOWED_URLS = 'org.apache.kafka.sasl.oauthbearer.allowed.urls';

let dir: string;
let oauth: OAuthServer;
let rsa: SigningKey;
let kafka: ApacheKafka;
let tkafka: BrokerProcess;
let savedOpts: string | undefined;
/** The OAUTHBEARER JWKS listener of each broker: [name, port]. */
let targets: [string, number][];
/** The listener with an https JWKS, trusted through the JAAS module's ssl.truststore.* options. */
let tlsTargets: [string, number][];
let certs: TestCerts;
let httpsOAuth: OAuthServer;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-jwks-interop-'));
  rsa = makeSigningKey('rsa-1', 'RS256');
  oauth = await startOAuthServer({
    clientId: 'java-app',
    clientSecret: 'java-secret',
    signingKey: rsa,
    claims: { iss: ISSUER, aud: AUDIENCE },
  });
  certs = makeCerts();
  httpsOAuth = await startOAuthServer({
    clientId: 'x',
    clientSecret: 'y',
    signingKey: rsa,
    tls: { key: certs.server.key, cert: certs.server.chain },
  });
  const tlsListener = jwksListenerSettings('saslt', httpsOAuth.jwksUrl, ISSUER, AUDIENCE);
  tlsListener['listener.name.saslt.oauthbearer.sasl.jaas.config'] =
    `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker" ssl.truststore.type="PKCS12" ssl.truststore.location="${certs.ca.truststoreP12Path}" ssl.truststore.password="${STORE_PASSWORD}";`;
  const allowed = `-D${ALLOWED_URLS}=${oauth.jwksUrl},${httpsOAuth.jwksUrl}`;
  kafka = await startApacheKafka({
    extraListeners: { SASLJ: 'SASL_PLAINTEXT', SASLT: 'SASL_PLAINTEXT' },
    overrides: { ...jwksListenerSettings('saslj', oauth.jwksUrl, ISSUER, AUDIENCE), ...tlsListener },
    jvmArgs: [allowed],
  });
  savedOpts = process.env['KAFKA_OPTS'];
  process.env['KAFKA_OPTS'] = allowed;
  tkafka = await startBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASLJ://127.0.0.1:0,SASLT://127.0.0.1:0',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SASLJ://127.0.0.1:0,SASLT://127.0.0.1:0',
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASLJ:SASL_PLAINTEXT,SASLT:SASL_PLAINTEXT',
      ...jwksListenerSettings('saslj', oauth.jwksUrl, ISSUER, AUDIENCE),
      ...tlsListener,
    },
  });
  const ports = boundPorts(tkafka.output(), ['PLAINTEXT', 'CONTROLLER', 'SASLJ', 'SASLT'])!;
  targets = [
    ['Kafka 4.4.0', kafka.listenerPorts['SASLJ']!],
    ['tkafka', ports.get('SASLJ')!],
  ];
  tlsTargets = [
    ['Kafka 4.4.0', kafka.listenerPorts['SASLT']!],
    ['tkafka', ports.get('SASLT')!],
  ];
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
  await oauth?.close();
  await httpsOAuth?.close();
  certs?.cleanup();
  if (savedOpts === undefined) delete process.env['KAFKA_OPTS'];
  else process.env['KAFKA_OPTS'] = savedOpts;
  rmSync(dir, { recursive: true, force: true });
});

test("Kafka's console producer and consumer authenticate with client credentials on both", async () => {
  const config = join(dir, 'client.properties');
  writeFileSync(
    config,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=OAUTHBEARER',
      'sasl.login.callback.handler.class=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
      `sasl.oauthbearer.token.endpoint.url=${oauth.tokenUrl}`,
      'sasl.oauthbearer.client.credentials.client.id=java-app',
      'sasl.oauthbearer.client.credentials.client.secret=java-secret',
      'sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
      '',
    ].join('\n'),
  );
  const jvmArgs = [`-D${ALLOWED_URLS}=${oauth.tokenUrl}`];
  for (const [name, port] of targets) {
    const bootstrap = `127.0.0.1:${port}`;
    const lines = Array.from({ length: 5 }, (_, i) => `jwks-${i}`);
    const produced = await runKafkaTool(
      'org.apache.kafka.tools.ConsoleProducer',
      ['--bootstrap-server', bootstrap, '--topic', 'jwks-oauth', '--command-config', config],
      { input: lines.join('\n') + '\n', jvmArgs },
    );
    assert.equal(produced.exitCode, 0, `${name}: ${produced.stderr}`);
    assert.doesNotMatch(produced.stderr, /ERROR/, name);
    const consumed = await runKafkaTool(
      'org.apache.kafka.tools.consumer.ConsoleConsumer',
      [
        '--bootstrap-server',
        bootstrap,
        '--topic',
        'jwks-oauth',
        '--from-beginning',
        '--max-messages',
        String(lines.length),
        '--timeout-ms',
        '60000',
        '--command-config',
        config,
      ],
      { jvmArgs },
    );
    assert.equal(consumed.exitCode, 0, `${name}: ${consumed.stderr}`);
    assert.deepEqual(consumed.stdout.trim().split('\n').sort(), [...lines].sort(), name);
  }
  assert.ok(oauth.tokenRequests.length > 0, 'the token endpoint was asked');
});

test('the raw SaslAuthenticate answers to a valid token and to each invalid one are the same on both', async () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    sub: 'alice',
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 600,
    ...extra,
  });
  const good = signJwt(rsa, claims());
  const [h, p] = good.split('.');
  const cases: [string, string][] = [
    ['valid', good],
    ['bad signature', `${h}.${p}.${signJwt(makeSigningKey('rsa-1'), claims()).split('.')[2]}`],
    ['expired', signJwt(rsa, claims({ iat: now - 3600, exp: now - 120 }))],
    ['wrong issuer', signJwt(rsa, claims({ iss: 'https://other.example' }))],
    ['wrong audience', signJwt(rsa, claims({ aud: 'other-cluster' }))],
    ['no audience', signJwt(rsa, claims({ aud: undefined }))],
    ['unknown kid', signJwt(makeSigningKey('nobody'), claims())],
    ['alg none', `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`],
    ['no iat', signJwt(rsa, claims({ iat: undefined }))],
    ['no exp', signJwt(rsa, claims({ exp: undefined }))],
    ['not yet valid', signJwt(rsa, claims({ nbf: now + 600 }))],
    ['no sub', signJwt(rsa, claims({ sub: undefined }))],
    ['malformed', `${h}.${p}`],
  ];
  const answers = new Map<string, string[]>();
  for (const [name, port] of targets) {
    const out: string[] = [];
    for (const [what, jwt] of cases) {
      const r = await oauthBearerExchange(port, jwt);
      const lifetime =
        r.first.errorCode === 0 && r.first.authBytes === ''
          ? r.first.lifetimeMs > 590_000n && r.first.lifetimeMs <= 600_000n
          : null;
      out.push(
        `${what}: ${r.first.errorCode} ${JSON.stringify(r.first.message)} challenge=${r.first.authBytes}` +
          (r.second ? ` then ${r.second.errorCode} ${JSON.stringify(r.second.message)}` : '') +
          (lifetime === null ? '' : ` lifetime within the token's: ${lifetime}`),
      );
    }
    answers.set(name, out);
  }
  const [kafkaAnswers, tkafkaAnswers] = [answers.get('Kafka 4.4.0')!, answers.get('tkafka')!];
  assert.deepEqual(tkafkaAnswers, kafkaAnswers);
  assert.match(kafkaAnswers[0]!, /^valid: 0 "" challenge= lifetime within the token's: true$/);
  assert.match(
    kafkaAnswers[1]!,
    /challenge=\{"status":"invalid_token"\} then 58 "\{\\"status\\":\\"invalid_token\\"\}"/,
  );
});

test("an https JWKS trusted through the JAAS module's ssl.truststore.* options (JaasOptionsUtils) on both", async () => {
  const now = Math.floor(Date.now() / 1000);
  const jwt = signJwt(rsa, { sub: 'alice', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 600 });
  for (const [name, port] of tlsTargets) {
    const r = await oauthBearerExchange(port, jwt);
    assert.equal(r.first.errorCode, 0, `${name}: ${r.first.message}`);
    assert.equal(r.first.authBytes, '', name);
  }
  assert.ok(httpsOAuth.jwksRequests >= 2, 'both brokers fetched the https JWKS');
});
