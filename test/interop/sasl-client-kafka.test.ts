// tkafka's tools through an Apache Kafka 4.4.0 SASL_PLAINTEXT listener, one mechanism at a time:
// PLAIN and SCRAM-SHA-256/512 (users made by `kafka-storage format --add-scram`), OAUTHBEARER
// with Kafka's unsecured token and with the client-credentials flow against a token server the
// test runs on 127.0.0.1. Every tool gets its SASL settings from a --command-config file. Then
// the failures: a wrong password (one line, non-zero exit, no retries), a mechanism the listener
// has not enabled (Kafka's enabled-mechanisms message), and KIP-368 re-authentication on a
// listener whose sessions last 3 s.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { runTkafka } from '../helpers/tool-run.js';
import { makeSigningKey, startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { KafkaClient } from '../../src/client/client.js';
import { clientConfigFromProperties } from '../../src/client/config.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';
const OAUTH_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';

let kafka: ApacheKafka;
let dir: string;
let tokenServer: OAuthServer;
let tokenUrl: string;
let tokenRequests: OAuthServer['tokenRequests'];

/** An unsigned JWT as Kafka's unsecured validator accepts it. */
function unsignedJwt(sub: string): string {
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Date.now() / 1000;
  return `${b64({ alg: 'none' })}.${b64({ sub, iat: now, exp: now + 3600 })}.`;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-sasl-client-'));
  tokenServer = await startOAuthServer({
    clientId: 'tkafka-app',
    clientSecret: 'app-secret',
    signingKey: makeSigningKey('unused'),
    issue: (clientId) => unsignedJwt(clientId),
  });
  tokenUrl = tokenServer.tokenUrl;
  tokenRequests = tokenServer.tokenRequests;
  kafka = await startApacheKafka({
    extraListeners: { SASL1: 'SASL_PLAINTEXT', SASL2: 'SASL_PLAINTEXT' },
    formatArgs: [
      '--add-scram',
      'SCRAM-SHA-256=[name=bob,password=bob-secret]',
      '--add-scram',
      'SCRAM-SHA-512=[name=bob,password=bob-secret]',
    ],
    overrides: {
      'listener.name.sasl1.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
      'listener.name.sasl1.plain.sasl.jaas.config': `${PLAIN_MODULE} required user_alice="alice-secret";`,
      'listener.name.sasl1.scram-sha-256.sasl.jaas.config': `${SCRAM_MODULE} required;`,
      'listener.name.sasl1.scram-sha-512.sasl.jaas.config': `${SCRAM_MODULE} required;`,
      'listener.name.sasl1.oauthbearer.sasl.jaas.config': `${OAUTH_MODULE} required;`,
      'listener.name.sasl2.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl2.plain.sasl.jaas.config': `${PLAIN_MODULE} required user_alice="alice-secret";`,
      'listener.name.sasl2.plain.connections.max.reauth.ms': '3000',
    },
  });
});

after(async () => {
  await kafka?.cleanup();
  await tokenServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sasl1 = (): string => `127.0.0.1:${kafka.listenerPorts['SASL1']}`;
const sasl2 = (): string => `127.0.0.1:${kafka.listenerPorts['SASL2']}`;

function configFile(name: string, props: Record<string, string>): string {
  const file = join(dir, `${name}.properties`);
  writeFileSync(
    file,
    Object.entries(props)
      .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\')}`)
      .join('\n') + '\n',
  );
  return file;
}

const MECHANISMS: Record<string, Record<string, string>> = {
  PLAIN: {
    'sasl.mechanism': 'PLAIN',
    'sasl.jaas.config': `${PLAIN_MODULE} required username="alice" password="alice-secret";`,
  },
  'SCRAM-SHA-256': {
    'sasl.mechanism': 'SCRAM-SHA-256',
    'sasl.jaas.config': `${SCRAM_MODULE} required username="bob" password="bob-secret";`,
  },
  'SCRAM-SHA-512': {
    'sasl.mechanism': 'SCRAM-SHA-512',
    'sasl.jaas.config': `${SCRAM_MODULE} required username="bob" password="bob-secret";`,
  },
  OAUTHBEARER: {
    'sasl.mechanism': 'OAUTHBEARER',
    'sasl.jaas.config': `${OAUTH_MODULE} required unsecuredLoginStringClaim_sub="carol" unsecuredLoginExtension_traceId="t1";`,
  },
  'OAUTHBEARER-client-credentials': {
    'sasl.mechanism': 'OAUTHBEARER',
    'sasl.login.callback.handler.class': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
    'sasl.oauthbearer.token.endpoint.url': '', // set in the test, once the token server listens
    'sasl.jaas.config': `${OAUTH_MODULE} required clientId="tkafka-app" clientSecret="app-secret" scope="kafka";`,
  },
};

for (const [mech, props] of Object.entries(MECHANISMS)) {
  test(`${mech}: topics, configs, console producer → consumer and consumer-groups through SASL_PLAINTEXT`, async () => {
    const p = { ...props };
    if ('sasl.oauthbearer.token.endpoint.url' in p) p['sasl.oauthbearer.token.endpoint.url'] = tokenUrl;
    const cfg = configFile(mech, { 'security.protocol': 'SASL_PLAINTEXT', ...p });
    const B = ['--bootstrap-server', sasl1(), '--command-config', cfg];
    const topic = `sasl-${mech.toLowerCase()}`;
    const group = `g-${mech.toLowerCase()}`;
    const ok = (r: { code: number; out: string; err: string }, what: string): string => {
      assert.equal(r.code, 0, `${what}: ${r.err}${r.out}`);
      return r.out;
    };
    ok(await runTkafka('topics', [...B, '--create', '--topic', topic, '--partitions', '2']), 'topics --create');
    assert.ok(
      ok(await runTkafka('topics', [...B, '--list']), 'topics --list')
        .split('\n')
        .includes(topic),
    );
    assert.match(
      ok(await runTkafka('topics', [...B, '--describe', '--topic', topic]), 'describe'),
      /PartitionCount: 2/,
    );
    assert.match(
      ok(
        await runTkafka('configs', [...B, '--describe', '--entity-type', 'topics', '--entity-name', topic]),
        'configs --describe',
      ),
      new RegExp(`Dynamic configs for topic ${topic} are:`),
    );
    ok(await runTkafka('console-producer', [...B, '--topic', topic], {}, 'one\ntwo\nthree\n'), 'console-producer');
    const consumed = ok(
      await runTkafka('console-consumer', [
        ...B,
        '--topic',
        topic,
        '--group',
        group,
        '--from-beginning',
        '--max-messages',
        '3',
        '--timeout-ms',
        '20000',
      ]),
      'console-consumer',
    );
    assert.deepEqual(consumed.trim().split('\n').sort(), ['one', 'three', 'two']);
    assert.ok(
      ok(await runTkafka('consumer-groups', [...B, '--list']), 'consumer-groups --list')
        .split('\n')
        .includes(group),
    );
    if (mech === 'OAUTHBEARER-client-credentials') {
      assert.ok(tokenRequests.length > 0, 'the token endpoint was asked');
      assert.equal(tokenRequests[0]!.body, 'grant_type=client_credentials&scope=kafka');
    }
  });
}

test('a wrong password (or an expired token): one line with the broker message, exit 1, fast (no retries)', async () => {
  for (const [mech, jaas, message] of [
    [
      'SCRAM-SHA-512',
      `${SCRAM_MODULE} required username="bob" password="wrong";`,
      'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    ],
    [
      'PLAIN',
      `${PLAIN_MODULE} required username="alice" password="wrong";`,
      'Authentication failed: Invalid username or password',
    ],
    [
      'OAUTHBEARER',
      `${OAUTH_MODULE} required unsecuredLoginStringClaim_sub="carol" unsecuredLoginLifetimeSeconds="-100";`,
      // OAuthBearerSaslServer's error challenge, which the broker fails the exchange with once answered
      '{"status":"invalid_token"}',
    ],
  ] as const) {
    const cfg = configFile(`bad-${mech}`, {
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': mech,
      'sasl.jaas.config': jaas,
    });
    const t0 = Date.now();
    const r = await runTkafka('topics', ['--bootstrap-server', sasl1(), '--command-config', cfg, '--list']);
    const ms = Date.now() - t0;
    // As Kafka's TopicCommand: "Error while executing topic command : <message>" (on stdout).
    const text = (r.out + r.err).trim();
    assert.notEqual(r.code, 0);
    assert.equal(text, `Error while executing topic command : ${message}`);
    assert.ok(ms < 10_000, `took ${ms} ms`);
  }
});

test('console producer and consumer with a wrong password fail at once with the broker message', async () => {
  const cfg = configFile('bad-console', {
    'security.protocol': 'SASL_PLAINTEXT',
    'sasl.mechanism': 'SCRAM-SHA-256',
    'sasl.jaas.config': `${SCRAM_MODULE} required username="bob" password="wrong";`,
  });
  const message =
    'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256';
  const B = ['--bootstrap-server', sasl1(), '--command-config', cfg, '--topic', 'sasl-plain'];
  for (const [tool, args, input] of [
    ['console-producer', B, 'x\n'],
    ['console-consumer', [...B, '--from-beginning', '--timeout-ms', '20000'], undefined],
  ] as const) {
    const t0 = Date.now();
    const r = await runTkafka(tool, [...args], {}, input);
    const ms = Date.now() - t0;
    assert.notEqual(r.code, 0, `${tool}: ${r.out}${r.err}`);
    assert.ok(r.err.includes(message), `${tool}: ${r.err}`);
    assert.ok(ms < 10_000, `${tool} took ${ms} ms`);
  }
});

test('a profile made with --security-protocol/--sasl-* reaches the SASL listener without --command-config', async () => {
  const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'cfg') };
  const created = await runTkafka(
    'profile',
    [
      'create',
      'secure',
      '--bootstrap-server',
      sasl1(),
      '--security-protocol',
      'SASL_PLAINTEXT',
      '--sasl-mechanism',
      'SCRAM-SHA-512',
      '--sasl-username',
      'bob',
      '--sasl-password',
      'bob-secret',
      '--use',
    ],
    env,
  );
  assert.equal(created.code, 0, created.err);
  const r = await runTkafka('topics', ['--list'], env);
  assert.equal(r.code, 0, r.err + r.out);
  assert.ok(r.out.split('\n').includes('sasl-plain'), r.out);
});

test("a token endpoint that refuses the client: Kafka's token-endpoint message, exit 1", async () => {
  const cfg = configFile('bad-secret', {
    'security.protocol': 'SASL_PLAINTEXT',
    ...MECHANISMS['OAUTHBEARER-client-credentials']!,
    'sasl.oauthbearer.token.endpoint.url': tokenUrl,
    'sasl.jaas.config': `${OAUTH_MODULE} required clientId="tkafka-app" clientSecret="wrong";`,
  });
  const r = await runTkafka('topics', ['--bootstrap-server', sasl1(), '--command-config', cfg, '--list']);
  assert.notEqual(r.code, 0);
  assert.equal(
    (r.out + r.err).trim(),
    'Error while executing topic command : The response code 401 and error response {"invalid_client" - "bad client credentials"} ' +
      'was encountered reading the token endpoint response; will not attempt further retries',
  );
});

test("a mechanism the listener has not enabled, or a PLAINTEXT listener: Kafka's handshake messages", async () => {
  const cfg = configFile('not-enabled', { 'security.protocol': 'SASL_PLAINTEXT', ...MECHANISMS['SCRAM-SHA-256']! });
  const r = await runTkafka('topics', ['--bootstrap-server', sasl2(), '--command-config', cfg, '--list']);
  assert.notEqual(r.code, 0);
  assert.equal(
    (r.out + r.err).trim(),
    "Error while executing topic command : Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server, enabled mechanisms are [PLAIN]",
  );
  // A PLAINTEXT listener answers the handshake with ILLEGAL_SASL_STATE.
  const plain = await runTkafka('topics', ['--bootstrap-server', kafka.bootstrap, '--command-config', cfg, '--list']);
  assert.notEqual(plain.code, 0);
  assert.equal(
    (plain.out + plain.err).trim(),
    'Error while executing topic command : Unexpected handshake request with client mechanism SCRAM-SHA-256, enabled mechanisms are []',
  );
});

test('KIP-368: the client re-authenticates before each 3 s session ends; requests in between all succeed', async () => {
  const config = clientConfigFromProperties(
    new Map(Object.entries({ 'security.protocol': 'SASL_PLAINTEXT', ...MECHANISMS['PLAIN']! })),
    { bootstrapServers: [sasl2()] },
  );
  const client = new KafkaClient(config);
  try {
    await client.metadata({ refresh: true });
    const conn = await client.connectionTo(sasl2());
    assert.equal(conn.authentications, 1);
    // Requests keep flowing (two at a time) while the session is renewed twice: none fails.
    const deadline = Date.now() + 20_000;
    let rounds = 0;
    while (conn.authentications < 3) {
      assert.ok(Date.now() < deadline && rounds < 20_000, `two re-authentications (${conn.authentications - 1} seen)`);
      await Promise.all([client.metadata({ refresh: true }), client.metadata({ refresh: true })]);
      rounds++;
    }
    assert.ok(rounds > 10, `${rounds} rounds of requests`);
    assert.equal(conn.connected, true);
    const md = await client.metadata({ refresh: true });
    assert.equal(md.brokers.size, 1);
    assert.equal(await client.connectionTo(sasl2()), conn);
    assert.equal(conn.connected, true);
  } finally {
    client.close();
  }
});
