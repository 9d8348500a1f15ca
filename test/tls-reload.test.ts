// Reloading an SSL listener's key store without a restart (Kafka's dynamic listener.name.<l>.ssl.*
// broker configs, SslFactory.reconfigure): a real tkafka node serving certificate A, altered with
// `tkafka configs` and with Kafka's own ConfigCommand to certificate B (same subject, same CA); new
// connections get B, an open connection keeps working; a different subject or SANs, a wrong
// password, the cluster default and an unprefixed key are refused with Kafka's messages and change
// nothing. Certificates are made at run time.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { ACCEPTOR_LINE, startBroker, boundPorts, type BrokerProcess } from './helpers/broker-process.js';
import { makeCerts, makeServerCert, STORE_PASSWORD, type CertFiles, type TestCerts } from './helpers/certs.js';
import { runTkafka } from './helpers/tool-run.js';
import { pickPort, startCluster, tkafkaLauncher } from './helpers/cluster.js';
import { runKafkaTool } from './interop/helpers/apache-kafka.js';
import { X509Certificate } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';

let certs: TestCerts;
let renewed: CertFiles;
let renewedAgain: CertFiles;
let otherSan: CertFiles;
let broker: BrokerProcess;
let sslPort = 0;
let mtlsPort = 0;
/** The certificate the listener serves after the in-place reload test. */
let lastServed = '';

const serialOf = (c: CertFiles): string => new X509Certificate(c.cert).serialNumber;

/** The certificate a new TLS connection to the SSL listener is served. */
function peerCertificate(): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    // the chain is verified; the host name is not (a certificate with another subject is served below)
    const s = connect(
      { host: '127.0.0.1', port: sslPort, ca: certs.ca.cert, checkServerIdentity: () => undefined },
      () => {
        const c = s.getPeerCertificate();
        s.end();
        resolve(c);
      },
    );
    s.on('error', reject);
  });
}

const alter = (config: string, entity: string[] = ['--entity-name', '1']) =>
  runTkafka('configs', [
    '--bootstrap-server',
    broker.bootstrap,
    '--entity-type',
    'brokers',
    ...entity,
    '--alter',
    '--add-config',
    config,
  ]);

before(async () => {
  certs = makeCerts();
  renewed = makeServerCert(certs, 'renewed');
  renewedAgain = makeServerCert(certs, 'renewed-again');
  otherSan = makeServerCert(certs, 'other-san', { san: 'DNS:localhost' });
  const names = ['PLAINTEXT', 'CONTROLLER', 'SSL', 'MTLS'];
  broker = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,MTLS:SSL',
      'listener.name.ssl.ssl.keystore.type': 'PKCS12',
      'listener.name.ssl.ssl.keystore.location': certs.server.keystoreP12Path,
      'listener.name.ssl.ssl.keystore.password': STORE_PASSWORD,
      // MTLS trusts only the other CA at first: the test client's certificate is refused. (A PEM key
      // store: Node's secure context also trusts the CA certificates of a PKCS12 key store.)
      'listener.name.mtls.ssl.keystore.type': 'PEM',
      'listener.name.mtls.ssl.keystore.location': certs.server.keystorePemPath,
      'listener.name.mtls.ssl.client.auth': 'required',
      'listener.name.mtls.ssl.truststore.type': 'PEM',
      'listener.name.mtls.ssl.truststore.location': certs.otherCa.certPath,
    },
  });
  const ports = boundPorts(broker.output(), names)!;
  sslPort = ports.get('SSL')!;
  mtlsPort = ports.get('MTLS')!;
});

/** An ApiVersions v0 round trip on `socket` (correlation id 7): the error code of the answer. */
function apiVersions(socket: TLSSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    socket.once('data', (answer: Buffer) => {
      assert.equal(answer.readInt32BE(4), 7);
      resolve(answer.readInt16BE(8));
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error('closed without an answer')));
    const req = Buffer.alloc(4 + 10);
    req.writeInt32BE(10, 0);
    req.writeInt16BE(18, 4); // ApiVersions
    req.writeInt16BE(0, 6);
    req.writeInt32BE(7, 8); // correlation id
    req.writeInt16BE(-1, 12); // null client id
    socket.write(req);
  });
}

/** Whether the MTLS listener serves the test client (certificate signed by the test CA). */
async function mtlsServes(): Promise<boolean> {
  const s = connect({
    host: '127.0.0.1',
    port: mtlsPort,
    ca: certs.ca.cert,
    cert: certs.client.cert,
    key: certs.client.key,
    checkServerIdentity: () => undefined,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      s.once('secureConnect', resolve);
      s.once('error', reject);
    });
    return (await apiVersions(s)) === 0;
  } catch {
    return false;
  } finally {
    s.destroy();
  }
}

after(async () => {
  await broker?.stop();
  broker?.cleanup();
  certs?.cleanup();
});

/** Waits (bounded) until new connections are served the certificate with `serial`. */
async function awaitServed(serial: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = '';
  while (Date.now() < deadline) {
    last = (await peerCertificate()).serialNumber;
    if (last === serial) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the SSL listener still serves ${last}, not ${serial}`);
}

test('renewed key store: tkafka configs alters it for the broker id, new connections get it, an open one keeps working', async () => {
  assert.equal((await peerCertificate()).serialNumber, serialOf(certs.server));
  const open = connect({ host: '127.0.0.1', port: sslPort, ca: certs.ca.cert, servername: 'localhost' });
  await new Promise<void>((resolve, reject) => {
    open.once('secureConnect', resolve);
    open.once('error', reject);
  });
  const r = await alter(`listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path}`);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, 'Completed updating config for broker 1.\n');
  await awaitServed(serialOf(renewed));
  // the connection opened before the change still speaks Kafka: an ApiVersions v0 round trip
  assert.equal(await apiVersions(open), 0);
  assert.equal(open.getPeerCertificate().serialNumber, serialOf(certs.server));
  open.destroy();
});

test("Kafka's ConfigCommand alters the key store of a tkafka broker too", async () => {
  const r = await runKafkaTool('org.apache.kafka.tools.ConfigCommand', [
    '--bootstrap-server',
    broker.bootstrap,
    '--entity-type',
    'brokers',
    '--entity-name',
    '1',
    '--alter',
    '--add-config',
    `listener.name.ssl.ssl.keystore.location=${renewedAgain.keystoreP12Path}`,
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /Completed updating config for broker 1\./);
  await awaitServed(serialOf(renewedAgain));
});

const dynamicError = (cause: string): string =>
  `Invalid value org.apache.kafka.common.config.ConfigException: Validation of dynamic config update of SSLFactory failed: ${cause} for configuration Invalid dynamic configuration`;

test("refused changes: Kafka's messages, and the listener keeps its certificate", async () => {
  const current = serialOf(renewedAgain);
  const cases: [string, string[], string][] = [
    [
      `listener.name.ssl.ssl.keystore.location=${certs.wrongHost.keystoreP12Path}`,
      ['--entity-name', '1'],
      dynamicError(
        'org.apache.kafka.common.config.ConfigException: Keystore DistinguishedName does not match:  existing={alias=renewed-again, DN=CN=localhost}, new={alias=wrong-host, DN=CN=wrong.example}',
      ),
    ],
    [
      `listener.name.ssl.ssl.keystore.location=${otherSan.keystoreP12Path}`,
      ['--entity-name', '1'],
      dynamicError(
        'org.apache.kafka.common.config.ConfigException: Keystore SubjectAltNames do not match:  existing={alias=renewed-again, SAN=[[7, 127.0.0.1], [2, localhost]]}, new={alias=other-san, SAN=[[2, localhost]]}',
      ),
    ],
    [
      `listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path},listener.name.ssl.ssl.keystore.password=wrong`,
      ['--entity-name', '1'],
      dynamicError(
        `org.apache.kafka.common.KafkaException: Failed to load SSL keystore ${renewed.keystoreP12Path} of type PKCS12`,
      ),
    ],
    [
      `listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path}`,
      ['--entity-default'],
      'Cannot update these configs at default cluster level, broker id must be specified: [listener.name.ssl.ssl.keystore.location]',
    ],
    [
      `ssl.keystore.location=${renewed.keystoreP12Path}`,
      ['--entity-name', '1'],
      'These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.location]',
    ],
  ];
  for (const [config, entity, message] of cases) {
    const r = await alter(config, entity);
    assert.equal(r.code, 1, `${config}: ${r.out}`);
    assert.ok(r.err.includes(message), `${config}:\n${r.err}\nexpected: ${message}`);
    assert.ok(r.err.includes('InvalidRequestException'), r.err);
  }
  assert.equal((await peerCertificate()).serialNumber, current);
  const d = await runTkafka('configs', [
    '--bootstrap-server',
    broker.bootstrap,
    '--entity-type',
    'brokers',
    '--entity-name',
    '1',
    '--describe',
  ]);
  assert.equal(d.code, 0, d.err);
  assert.ok(!d.out.includes('wrong-host') && !d.out.includes('other-san'), d.out);
});

test('a key store file replaced in place is reloaded when its location is set again, as Kafka does', async () => {
  const rolling = join(certs.dir, 'rolling.p12');
  copyFileSync(renewed.keystoreP12Path, rolling);
  const set = `listener.name.ssl.ssl.keystore.location=${rolling}`;
  assert.equal((await alter(set)).code, 0);
  await awaitServed(serialOf(renewed));
  const rolled = makeServerCert(certs, 'rolled');
  copyFileSync(rolled.keystoreP12Path, rolling);
  const again = await alter(set);
  assert.equal(again.code, 0, again.err);
  await awaitServed(serialOf(rolled));
  // the same value is not validated before it is stored (Kafka: the config did not change); the
  // reload then refuses the other subject and the listener keeps its certificate
  copyFileSync(certs.wrongHost.keystoreP12Path, rolling);
  const failures = (): number => broker.output().split('Failed to update the SSL stores of listener SSL').length;
  const before = failures();
  assert.equal((await alter(set)).code, 0);
  const deadline = Date.now() + 15_000;
  while (failures() === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(failures() > before, broker.output());
  assert.match(
    broker.output(),
    /Keystore DistinguishedName does not match: {2}existing=\{alias=rolled, DN=CN=localhost\}, new=\{alias=wrong-host, DN=CN=wrong.example\}/,
  );
  assert.equal((await peerCertificate()).serialNumber, serialOf(rolled));
  copyFileSync(rolled.keystoreP12Path, rolling);
  lastServed = serialOf(rolled);
});

test('a trust store altered on the mutual-TLS listener: new connections are verified against it', async () => {
  assert.equal(await mtlsServes(), false);
  const r = await alter(`listener.name.mtls.ssl.truststore.location=${certs.ca.certPath}`);
  assert.equal(r.code, 0, r.err);
  const deadline = Date.now() + 15_000;
  while (!(await mtlsServes()) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  assert.equal(await mtlsServes(), true);
});

test('after a restart the node serves the key store stored dynamically, from its first connection', async () => {
  const before = broker.output().length;
  await broker.restart();
  const ports = [...broker.output().slice(before).matchAll(ACCEPTOR_LINE)].map((m) => Number(m[2]));
  assert.equal(ports.length, 4, broker.output().slice(before));
  sslPort = ports[2]!;
  mtlsPort = ports[3]!;
  assert.equal((await peerCertificate()).serialNumber, lastServed);
  assert.equal(await mtlsServes(), true);
});

test('ssl.allow.dn.changes=true at start-up lets the key store change its subject', async () => {
  const names = ['PLAINTEXT', 'CONTROLLER', 'SSL'];
  const other = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL',
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': certs.server.keystoreP12Path,
      'ssl.keystore.password': STORE_PASSWORD,
      'ssl.allow.dn.changes': 'true',
      'ssl.allow.san.changes': 'true',
    },
  });
  try {
    sslPort = boundPorts(other.output(), names)!.get('SSL')!;
    const r = await runTkafka('configs', [
      '--bootstrap-server',
      other.bootstrap,
      '--entity-type',
      'brokers',
      '--entity-name',
      '1',
      '--alter',
      '--add-config',
      `listener.name.ssl.ssl.keystore.location=${certs.wrongHost.keystoreP12Path}`,
    ]);
    assert.equal(r.code, 0, r.err);
    await awaitServed(serialOf(certs.wrongHost));
  } finally {
    await other.stop();
    other.cleanup();
  }
});

test('a broker-only node checks the change, forwards it to the controller and reloads when the record comes back', async () => {
  const sslOnBroker = await pickPort();
  const cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      {
        id: 2,
        roles: 'broker',
        overrides: {
          listeners: `PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:${sslOnBroker}`,
          'advertised.listeners': `PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:${sslOnBroker}`,
          'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL',
          'ssl.keystore.type': 'PKCS12',
          'ssl.keystore.location': certs.server.keystoreP12Path,
          'ssl.keystore.password': STORE_PASSWORD,
        },
      },
    ],
  });
  try {
    sslPort = sslOnBroker;
    assert.equal((await peerCertificate()).serialNumber, serialOf(certs.server));
    const alterOn = (config: string) =>
      runTkafka('configs', [
        '--bootstrap-server',
        cluster.bootstrap(),
        '--entity-type',
        'brokers',
        '--entity-name',
        '2',
        '--alter',
        '--add-config',
        config,
      ]);
    const refused = await alterOn(`listener.name.ssl.ssl.keystore.location=${certs.wrongHost.keystoreP12Path}`);
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /Keystore DistinguishedName does not match: {2}existing=\{alias=server, DN=CN=localhost\}/,
    );
    const r = await alterOn(`listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path}`);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'Completed updating config for broker 2.\n');
    await awaitServed(serialOf(renewed));
  } finally {
    await cluster.cleanup();
  }
});
