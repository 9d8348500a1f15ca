// TLS against the reference: tkafka's tools talk to Apache Kafka 4.4.0's SSL listeners (a PKCS12 key
// store made by openssl; ssl.client.auth=required on one listener), and Kafka's own Java console
// producer and consumer talk to a tkafka SSL listener. Certificates are made at run time.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { boundPorts, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { propertiesText } from '../helpers/cluster.js';
import { makeCerts, STORE_PASSWORD, type TestCerts } from '../helpers/certs.js';
import { runTkafka } from '../helpers/tool-run.js';
import { run as consumerTool } from '../../src/tools/console-consumer/main.js';

let certs: TestCerts;
let kafka: ApacheKafka;
let broker: BrokerProcess;
let kafkaSsl = '';
let kafkaMtls = '';
let tkafkaSsl = '';

function properties(name: string, settings: Record<string, string>): string {
  const path = join(certs.dir, `${name}.properties`);
  writeFileSync(path, propertiesText(settings));
  return path;
}

const trustPem = (): Record<string, string> => ({
  'security.protocol': 'SSL',
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': certs.ca.certPath,
});

before(async () => {
  certs = makeCerts();
  kafka = await startApacheKafka({
    extraListeners: { SSL: 'SSL', MTLS: 'SSL' },
    overrides: {
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': certs.server.keystoreP12Path,
      'ssl.keystore.password': STORE_PASSWORD,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.ca.certPath,
      'listener.name.mtls.ssl.client.auth': 'required',
    },
  });
  kafkaSsl = `127.0.0.1:${kafka.listenerPorts['SSL']}`;
  kafkaMtls = `127.0.0.1:${kafka.listenerPorts['MTLS']}`;

  const names = ['PLAINTEXT', 'CONTROLLER', 'SSL'];
  broker = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL',
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': certs.server.keystoreP12Path,
      'ssl.keystore.password': STORE_PASSWORD,
    },
  });
  tkafkaSsl = `127.0.0.1:${boundPorts(broker.output(), names)!.get('SSL')!}`;
});

after(async () => {
  await kafka?.cleanup();
  await broker?.stop();
  broker?.cleanup();
  certs?.cleanup();
});

test('tkafka tools on Apache Kafka SSL listeners: PEM and PKCS12 trust stores, mutual TLS with PEM and PKCS12 key stores', async () => {
  const cfg = properties('kafka-trust', trustPem());
  const made = await runTkafka('topics', [
    '--bootstrap-server',
    kafkaSsl,
    '--command-config',
    cfg,
    '--create',
    '--topic',
    'ssl-on-kafka',
    '--partitions',
    '2',
  ]);
  assert.equal(made.code, 0, made.out + made.err);
  await kafka.waitForTopic('ssl-on-kafka', { partitions: 2 });
  const mtlsP12 = properties('kafka-mtls-p12', {
    ...trustPem(),
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.client.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
  });
  const mtlsPem = properties('kafka-mtls-pem', {
    ...trustPem(),
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': certs.client.keystorePemPath,
  });
  const mtlsTrustP12 = properties('kafka-mtls-trust-p12', {
    'security.protocol': 'SSL',
    'ssl.truststore.type': 'PKCS12',
    'ssl.truststore.location': certs.ca.truststoreP12Path,
    'ssl.truststore.password': STORE_PASSWORD,
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.client.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
  });
  for (const c of [mtlsP12, mtlsPem, mtlsTrustP12]) {
    const listed = await runTkafka('topics', ['--bootstrap-server', kafkaMtls, '--command-config', c, '--list']);
    assert.equal(listed.code, 0, listed.out + listed.err);
    assert.match(listed.out, /^ssl-on-kafka$/m);
  }
  // Kafka's broker asks for the client certificate: without one, one clear line
  const noCert = properties('kafka-no-cert', { ...trustPem(), 'default.api.timeout.ms': '10000' });
  const refused = await runTkafka('topics', ['--bootstrap-server', kafkaMtls, '--command-config', noCert, '--list']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.out + refused.err, /SslAuthenticationException: SSL handshake failed: /);
  assert.equal((refused.out + refused.err).trim().split('\n').length, 1, refused.out + refused.err);

  // records produced by Kafka's Java producer over SSL are read by tkafka's consumer over mTLS
  const produced = await runKafkaTool(
    'org.apache.kafka.tools.ConsoleProducer',
    ['--bootstrap-server', kafkaSsl, '--topic', 'ssl-on-kafka', '--command-config', cfg],
    { input: 'a\nb\nc\n' },
  );
  assert.equal(produced.exitCode, 0, produced.stderr);
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void): Writable =>
    new Writable({
      write(chunk, _e, cb) {
        add(String(chunk));
        cb();
      },
    });
  const code = await consumerTool(
    [
      '--bootstrap-server',
      kafkaMtls,
      '--command-config',
      mtlsPem,
      '--topic',
      'ssl-on-kafka',
      '--from-beginning',
      '--max-messages',
      '3',
      '--timeout-ms',
      '30000',
    ],
    { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), stdin: Readable.from([]), env: {} },
  );
  assert.equal(code, 0, err);
  assert.deepEqual(out.trim().split('\n').sort(), ['a', 'b', 'c']);
});

test("Kafka's Java console producer and consumer on a tkafka SSL listener", async () => {
  const cfg = properties('tkafka-trust', trustPem());
  const made = await runTkafka('topics', [
    '--bootstrap-server',
    tkafkaSsl,
    '--command-config',
    cfg,
    '--create',
    '--topic',
    'java-over-ssl',
  ]);
  assert.equal(made.code, 0, made.out + made.err);
  const produced = await runKafkaTool(
    'org.apache.kafka.tools.ConsoleProducer',
    ['--bootstrap-server', tkafkaSsl, '--topic', 'java-over-ssl', '--command-config', cfg],
    { input: 'one\ntwo\nthree\n' },
  );
  assert.equal(produced.exitCode, 0, produced.stderr);
  const consumed = await runKafkaTool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
    '--bootstrap-server',
    tkafkaSsl,
    '--topic',
    'java-over-ssl',
    '--command-config',
    cfg,
    '--from-beginning',
    '--max-messages',
    '3',
    '--timeout-ms',
    '60000',
  ]);
  assert.equal(consumed.exitCode, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trim().split('\n'), ['one', 'two', 'three']);
});
