// PKCS12 key stores against the reference: Apache Kafka 4.4.0 and tkafka run the same mutual-TLS
// listener, its key store a JDK-written PKCS12 with the server certificate and CA X (key password
// ≠ store password, ssl.key.password), its trust store CA Y. Both refuse a client signed by X and
// accept one signed by Y: the key store's CA is never trusted. Client side likewise: Kafka's Java
// tool and tkafka's, with a key store holding X but trusting Y only, refuse a broker signed by X.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { boundPorts, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { propertiesText } from '../helpers/cluster.js';
import { keyPasswordP12, makeCerts, STORE_PASSWORD, type TestCerts } from '../helpers/certs.js';
import { runTkafka } from '../helpers/tool-run.js';

const KEY_PASSWORD = 'key-secret';

let certs: TestCerts;
let kafka: ApacheKafka;
let broker: BrokerProcess;
const mtls: Record<string, string> = {};
const tls: Record<string, string> = {};

function properties(name: string, settings: Record<string, string>): string {
  const path = join(certs.dir, `${name}.properties`);
  writeFileSync(
    path,
    propertiesText({
      'security.protocol': 'SSL',
      'request.timeout.ms': '15000',
      'default.api.timeout.ms': '30000',
      ...settings,
    }),
  );
  return path;
}

before(async () => {
  certs = makeCerts();
  const serverStore = keyPasswordP12(certs, certs.server, 'server-keypass', KEY_PASSWORD);
  const ssl = {
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': serverStore,
    'ssl.keystore.password': STORE_PASSWORD,
    'ssl.key.password': KEY_PASSWORD,
    'listener.name.mtls.ssl.client.auth': 'required',
    'listener.name.mtls.ssl.truststore.type': 'PEM',
    'listener.name.mtls.ssl.truststore.location': certs.otherCa.certPath,
  };
  kafka = await startApacheKafka({ extraListeners: { MTLS: 'SSL', TLS: 'SSL' }, overrides: ssl });
  mtls['kafka'] = `127.0.0.1:${kafka.listenerPorts['MTLS']}`;
  tls['kafka'] = `127.0.0.1:${kafka.listenerPorts['TLS']}`;
  const names = ['PLAINTEXT', 'CONTROLLER', 'MTLS', 'TLS'];
  broker = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,MTLS://127.0.0.1:0,TLS://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,MTLS:SSL,TLS:SSL',
      ...ssl,
    },
  });
  const ports = boundPorts(broker.output(), names)!;
  mtls['tkafka'] = `127.0.0.1:${ports.get('MTLS')!}`;
  tls['tkafka'] = `127.0.0.1:${ports.get('TLS')!}`;
});

after(async () => {
  await kafka?.cleanup();
  await broker?.stop();
  broker?.cleanup();
  certs?.cleanup();
});

const trustX = (): Record<string, string> => ({
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': certs.ca.certPath,
});

test('an mTLS listener whose PKCS12 key store holds CA X but trusts CA Y: Kafka and tkafka refuse X, accept Y', async () => {
  const signedByX = properties('signed-by-x', {
    ...trustX(),
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.client.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
  });
  const signedByY = properties('signed-by-y', {
    ...trustX(),
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': keyPasswordP12(certs, certs.unknownClient, 'client-keypass', KEY_PASSWORD),
    'ssl.keystore.password': STORE_PASSWORD,
    'ssl.key.password': KEY_PASSWORD,
  });
  for (const server of ['kafka', 'tkafka']) {
    const list = (cfg: string) =>
      runTkafka('topics', ['--bootstrap-server', mtls[server]!, '--command-config', cfg, '--list']);
    const refused = await list(signedByX);
    assert.notEqual(refused.code, 0, `${server} must refuse a client signed by the key store's CA`);
    // TLS 1.3: the server checks the client's certificate after the client's handshake is done, so
    // the client sees the server's alert or, when its first request was unread, a reset
    assert.match(refused.out + refused.err, /SslAuthenticationException|connection reset/);
    const accepted = await list(signedByY);
    assert.equal(accepted.code, 0, `${server}: ${accepted.out}${accepted.err}`);
  }
});

test("a client whose PKCS12 key store holds CA X but trusts CA Y refuses a broker signed by X (Kafka's Java tool and tkafka)", async () => {
  const keystoreX = {
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.client.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
  };
  const trustsY = properties('client-trusts-y', {
    ...keystoreX,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certs.otherCa.certPath,
  });
  const trustsX = properties('client-trusts-x', { ...keystoreX, ...trustX() });
  for (const server of ['kafka', 'tkafka']) {
    const java = await runKafkaTool('org.apache.kafka.tools.TopicCommand', [
      '--bootstrap-server',
      tls[server]!,
      '--command-config',
      trustsY,
      '--list',
    ]);
    assert.notEqual(java.exitCode, 0, `Kafka's tool must refuse ${server}'s certificate`);
    assert.match(java.stdout + java.stderr, /SSL handshake failed/);
    const ours = await runTkafka('topics', ['--bootstrap-server', tls[server]!, '--command-config', trustsY, '--list']);
    assert.notEqual(ours.code, 0, `tkafka's tool must refuse ${server}'s certificate`);
    assert.match(ours.out + ours.err, /SslAuthenticationException: SSL handshake failed/);
    const trusted = await runTkafka('topics', [
      '--bootstrap-server',
      tls[server]!,
      '--command-config',
      trustsX,
      '--list',
    ]);
    assert.equal(trusted.code, 0, `${server}: ${trusted.out}${trusted.err}`);
  }
});
