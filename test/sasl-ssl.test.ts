// SASL_SSL end to end on one tkafka broker: the TLS listener of the TLS part and the SASL
// authenticator of the SASL part on the same connection. A SCRAM-SHA-512 user is made with
// `tkafka configs --alter --entity-type users` (AlterUserScramCredentials on the PLAINTEXT listener),
// then tkafka's tools create a topic, produce and consume through SASL_SSL with the credentials in a
// --command-config file; a wrong password, an untrusted CA and a mechanism the listener does not
// enable each fail with one line and a non-zero exit; shell completion of live names works through a
// SASL_SSL profile. Certificates are made by the test.
//
//   npm run build && node --test dist/test/sasl-ssl.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { boundPorts, startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { propertiesText } from './helpers/cluster.js';
import { makeCerts, type TestCerts } from './helpers/certs.js';
import { runTkafka } from './helpers/tool-run.js';
import { run as complete } from '../src/tools/completion/complete.js';

const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
const PLAIN_JAAS =
  'org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret" user_bob="bob-secret";';

let certs: TestCerts;
let broker: BrokerProcess;
let plaintext: string;
let secured: string;

before(async () => {
  certs = makeCerts();
  const names = ['PLAINTEXT', 'CONTROLLER', 'SECURE'];
  broker = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SECURE://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SECURE:SASL_SSL',
      'listener.name.secure.sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN',
      'listener.name.secure.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
      'listener.name.secure.plain.sasl.jaas.config': PLAIN_JAAS,
      'listener.name.secure.ssl.keystore.type': 'PEM',
      'listener.name.secure.ssl.keystore.location': certs.server.keystorePemPath,
    },
  });
  const ports = boundPorts(broker.output(), names)!;
  plaintext = `127.0.0.1:${ports.get('PLAINTEXT')!}`;
  secured = `127.0.0.1:${ports.get('SECURE')!}`;
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
  certs?.cleanup();
});

function clientConfig(name: string, props: Record<string, string>): string {
  const file = join(certs.dir, `${name}.properties`);
  writeFileSync(file, propertiesText(props));
  return file;
}

const scram = (password: string, ca = certs.ca.certPath): Record<string, string> => ({
  'security.protocol': 'SASL_SSL',
  'sasl.mechanism': 'SCRAM-SHA-512',
  'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${password}";`,
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': ca,
});

test('SCRAM-SHA-512 and PLAIN over SASL_SSL: a user made with configs, then topics and the console tools', async () => {
  const made = await runTkafka('configs', [
    '--bootstrap-server',
    plaintext,
    '--alter',
    '--entity-type',
    'users',
    '--entity-name',
    'alice',
    '--add-config',
    'SCRAM-SHA-512=[iterations=4096,password=alice-secret]',
  ]);
  assert.equal(made.code, 0, made.out + made.err);
  const good = clientConfig('alice', scram('alice-secret'));
  const created = await runTkafka('topics', [
    '--bootstrap-server',
    secured,
    '--command-config',
    good,
    '--create',
    '--topic',
    'over-sasl-ssl',
  ]);
  assert.equal(created.code, 0, created.out + created.err);
  const listed = await runTkafka('topics', ['--bootstrap-server', secured, '--command-config', good, '--list']);
  assert.match(listed.out, /^over-sasl-ssl$/m);
  const produced = await runTkafka(
    'console-producer',
    ['--bootstrap-server', secured, '--command-config', good, '--topic', 'over-sasl-ssl'],
    {},
    'one\ntwo\nthree\n',
  );
  assert.equal(produced.code, 0, produced.out + produced.err);
  const plain = clientConfig('bob', {
    'security.protocol': 'SASL_SSL',
    'sasl.mechanism': 'PLAIN',
    'sasl.jaas.config':
      'org.apache.kafka.common.security.plain.PlainLoginModule required username="bob" password="bob-secret";',
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certs.ca.certPath,
  });
  const consumed = await runTkafka('console-consumer', [
    '--bootstrap-server',
    secured,
    '--command-config',
    plain,
    '--topic',
    'over-sasl-ssl',
    '--from-beginning',
    '--max-messages',
    '3',
    '--timeout-ms',
    '20000',
  ]);
  assert.equal(consumed.code, 0, consumed.err);
  assert.equal(consumed.out, 'one\ntwo\nthree\n');
});

/** What a failed run printed (TopicCommand prints its error on stdout, as Kafka's does), as lines. */
const lines = (r: { out: string; err: string }): string[] => (r.out + r.err).trim().split('\n');

test('SASL_SSL failures: wrong password, untrusted CA, mechanism not enabled — one line, non-zero exit', async () => {
  const list = (props: Record<string, string>, name: string): ReturnType<typeof runTkafka> =>
    runTkafka('topics', ['--bootstrap-server', secured, '--command-config', clientConfig(name, props), '--list']);
  const wrong = await list(scram('not-the-password'), 'wrong');
  assert.equal(wrong.code, 1);
  assert.equal(lines(wrong).length, 1, lines(wrong).join('|'));
  assert.match(
    lines(wrong)[0]!,
    /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512/,
  );
  const untrusted = await list(scram('alice-secret', certs.otherCa.certPath), 'other-ca');
  assert.equal(untrusted.code, 1);
  assert.equal(lines(untrusted).length, 1, lines(untrusted).join('|'));
  assert.match(lines(untrusted)[0]!, /SSL handshake failed/);
  const sha256 = await list({ ...scram('alice-secret'), 'sasl.mechanism': 'SCRAM-SHA-256' }, 'sha256');
  assert.equal(sha256.code, 1);
  assert.match(
    lines(sha256)[0]!,
    /Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server, enabled mechanisms are \[SCRAM-SHA-512, PLAIN\]/,
  );
  // the TLS half alone (no SASL) gets nothing but the handshake answers: the tool cannot list
  const tlsOnly = await list(
    { 'security.protocol': 'SSL', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': certs.ca.certPath },
    'tls-only',
  );
  assert.equal(tlsOnly.code, 1, tlsOnly.out);
  assert.equal(lines(tlsOnly).length, 1, lines(tlsOnly).join('|'));
});

test('shell completion of live topic names through a SASL_SSL profile', async () => {
  const env = { HOME: certs.dir, XDG_CONFIG_HOME: join(certs.dir, 'cfg'), TKAFKA_COMPLETE_TIMEOUT_MS: '5000' };
  const created = await runTkafka(
    'profile',
    [
      'create',
      'secured',
      '--bootstrap-server',
      secured,
      '--security-protocol',
      'SASL_SSL',
      '--sasl-mechanism',
      'SCRAM-SHA-512',
      '--sasl-username',
      'alice',
      '--sasl-password',
      'alice-secret',
      '--property',
      'ssl.truststore.type=PEM',
      '--property',
      `ssl.truststore.location=${certs.ca.certPath}`,
      '--use',
    ],
    env,
  );
  assert.equal(created.code, 0, created.err);
  const shown = await runTkafka('profile', ['show', 'secured'], env);
  assert.doesNotMatch(shown.out, /alice-secret/);
  let out = '';
  const stdout = new Writable({
    write(c, _e, cb) {
      out += String(c);
      cb();
    },
  });
  const code = await complete(['topics', '--prefix', 'over-'], { stdout, stderr: stdout, stdin: process.stdin, env });
  assert.equal(code, 0);
  assert.equal(out, 'over-sasl-ssl\n');
});
