// Dynamic SSL key stores against the reference: the same `configs --alter` commands (tkafka's tool
// and Kafka's ConfigCommand) on Apache Kafka 4.4.0 and on tkafka, each starting with the same
// certificate: a renewal (same subject, same CA) is served to new connections by both; refused
// changes (other subject, fewer SANs, wrong password, PEM with a store password, the cluster default,
// an unprefixed key) give the same output on both; describe shows the same dynamic entries.
// Certificates are made at run time.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { boundPorts, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { makeCerts, makeServerCert, STORE_PASSWORD, type CertFiles, type TestCerts } from '../helpers/certs.js';
import { runTkafka } from '../helpers/tool-run.js';

let certs: TestCerts;
let renewed: CertFiles;
let renewedAgain: CertFiles;
let otherSan: CertFiles;
let kafka: ApacheKafka;
let broker: BrokerProcess;
const ssl = { kafka: 0, tkafka: 0 };
type Side = keyof typeof ssl;

const staticSsl = (): Record<string, string> => ({
  'ssl.keystore.type': 'PKCS12',
  'ssl.keystore.location': certs.server.keystoreP12Path,
  'ssl.keystore.password': STORE_PASSWORD,
});

before(async () => {
  certs = makeCerts();
  renewed = makeServerCert(certs, 'renewed');
  renewedAgain = makeServerCert(certs, 'renewed-again');
  otherSan = makeServerCert(certs, 'other-san', { san: 'DNS:localhost' });
  kafka = await startApacheKafka({ extraListeners: { SSL: 'SSL' }, overrides: staticSsl() });
  ssl.kafka = kafka.listenerPorts['SSL']!;
  const names = ['PLAINTEXT', 'CONTROLLER', 'SSL'];
  broker = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL',
      ...staticSsl(),
    },
  });
  ssl.tkafka = boundPorts(broker.output(), names)!.get('SSL')!;
});

after(async () => {
  await kafka?.cleanup();
  await broker?.stop();
  broker?.cleanup();
  certs?.cleanup();
});

const bootstrap = (side: Side): string => (side === 'kafka' ? kafka.bootstrap : broker.bootstrap);
const serialOf = (c: CertFiles): string => new X509Certificate(c.cert).serialNumber;

function servedSerial(side: Side): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: ssl[side], ca: certs.ca.cert, servername: 'localhost' }, () => {
      const serial = s.getPeerCertificate().serialNumber;
      s.end();
      resolve(serial);
    });
    s.on('error', reject);
  });
}

async function awaitServed(side: Side, serial: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = '';
  while (Date.now() < deadline) {
    last = await servedSerial(side);
    if (last === serial) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`${side} still serves ${last}, not ${serial}`);
}

const configs = (side: Side, args: string[]) =>
  runTkafka('configs', ['--bootstrap-server', bootstrap(side), '--entity-type', 'brokers', ...args]);

/**
 * Kafka's SAN set prints in an order salted per JVM (Set.copyOf): the lists inside `SAN=[…]` sorted,
 * the listener's ports and each side's own key store alias replaced, for comparison.
 */
function normalized(text: string): string {
  return text
    .replace(
      /SAN=\[(.*?)\]\}/g,
      (_m, inner: string) => `SAN=[${(inner.match(/\[[^\]]*\]/g) ?? []).sort().join(', ')}]}`,
    )
    .replace(/alias=rolled-t?kafka/g, 'alias=rolled-<side>')
    .replaceAll(bootstrap('kafka'), '<bootstrap>')
    .replaceAll(bootstrap('tkafka'), '<bootstrap>');
}

test('a renewed key store: both serve it to new connections after the same alter (tkafka configs, then ConfigCommand)', async () => {
  for (const side of ['kafka', 'tkafka'] as const) {
    assert.equal(await servedSerial(side), serialOf(certs.server));
    const r = await configs(side, [
      '--entity-name',
      '1',
      '--alter',
      '--add-config',
      `listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path}`,
    ]);
    assert.deepEqual([r.code, r.out, r.err], [0, 'Completed updating config for broker 1.\n', ''], side);
    await awaitServed(side, serialOf(renewed));
    const j = await runKafkaTool('org.apache.kafka.tools.ConfigCommand', [
      '--bootstrap-server',
      bootstrap(side),
      '--entity-type',
      'brokers',
      '--entity-name',
      '1',
      '--alter',
      '--add-config',
      `listener.name.ssl.ssl.keystore.location=${renewedAgain.keystoreP12Path},listener.name.ssl.ssl.keystore.password=${STORE_PASSWORD}`,
    ]);
    assert.equal(j.exitCode, 0, `${side}: ${j.stderr}`);
    assert.match(j.stdout, /Completed updating config for broker 1\./);
    await awaitServed(side, serialOf(renewedAgain));
  }
  const described = await Promise.all(
    (['kafka', 'tkafka'] as const).map((side) => configs(side, ['--entity-name', '1', '--describe'])),
  );
  assert.equal(described[0]!.code, 0, described[0]!.err);
  assert.match(described[0]!.out, /listener\.name\.ssl\.ssl\.keystore\.password=null sensitive=true/);
  assert.equal(described[1]!.out, described[0]!.out);
  assert.equal(described[1]!.code, described[0]!.code);
});

test('refused changes: the same output from Kafka and tkafka, and both keep serving their certificate', async () => {
  const cases: string[][] = [
    [
      '--entity-name',
      '1',
      '--add-config',
      `listener.name.ssl.ssl.keystore.location=${certs.wrongHost.keystoreP12Path}`,
    ],
    ['--entity-name', '1', '--add-config', `listener.name.ssl.ssl.keystore.location=${otherSan.keystoreP12Path}`],
    [
      '--entity-name',
      '1',
      '--add-config',
      `listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path},listener.name.ssl.ssl.keystore.password=wrong`,
    ],
    ['--entity-name', '1', '--add-config', 'listener.name.ssl.ssl.keystore.location=/nonexistent/keystore.p12'],
    [
      '--entity-name',
      '1',
      '--add-config',
      `listener.name.ssl.ssl.keystore.type=PEM,listener.name.ssl.ssl.keystore.location=${renewed.keystorePemPath}`,
    ],
    ['--entity-default', '--add-config', `listener.name.ssl.ssl.keystore.location=${renewed.keystoreP12Path}`],
    ['--entity-name', '1', '--add-config', `ssl.keystore.location=${renewed.keystoreP12Path}`],
    ['--entity-name', '1', '--add-config', 'listener.name.ssl.ssl.allow.dn.changes=maybe'],
    [
      '--entity-name',
      '1',
      '--add-config',
      `listener.name.ssl.ssl.truststore.type=PEM,listener.name.ssl.ssl.truststore.location=${certs.ca.certPath}`,
    ],
  ];
  for (const c of cases) {
    const args = [...c.slice(0, -2), '--alter', ...c.slice(-2)];
    const k = await configs('kafka', args);
    const t = await configs('tkafka', args);
    assert.equal(k.code, 1, `Kafka accepted ${c.join(' ')}`);
    assert.match(k.err, /InvalidRequestException/);
    assert.deepEqual([t.code, t.out, normalized(t.err)], [k.code, k.out, normalized(k.err)], c.join(' '));
  }
  for (const side of ['kafka', 'tkafka'] as const) assert.equal(await servedSerial(side), serialOf(renewedAgain));
});

test('a key store replaced in place: both reload it when the same location is set again', async () => {
  for (const side of ['kafka', 'tkafka'] as const) {
    const rolling = join(certs.dir, `rolling-${side}.p12`);
    copyFileSync(renewed.keystoreP12Path, rolling);
    const set = ['--entity-name', '1', '--alter', '--add-config', `listener.name.ssl.ssl.keystore.location=${rolling}`];
    assert.equal((await configs(side, set)).code, 0, side);
    await awaitServed(side, serialOf(renewed));
    const rolled = makeServerCert(certs, `rolled-${side}`);
    copyFileSync(rolled.keystoreP12Path, rolling);
    const again = await configs(side, set);
    assert.deepEqual([again.code, again.out], [0, 'Completed updating config for broker 1.\n'], side);
    await awaitServed(side, serialOf(rolled));
  }
});

test('ssl.allow.dn.changes=true altered with the new key store: both still refuse another subject (read at start-up only)', async () => {
  const args = [
    '--entity-name',
    '1',
    '--alter',
    '--add-config',
    `listener.name.ssl.ssl.allow.dn.changes=true,listener.name.ssl.ssl.allow.san.changes=true,listener.name.ssl.ssl.keystore.location=${certs.wrongHost.keystoreP12Path}`,
  ];
  const k = await configs('kafka', args);
  const t = await configs('tkafka', args);
  assert.equal(k.code, 1, k.out);
  assert.match(k.err, /Keystore DistinguishedName does not match/);
  assert.deepEqual([t.code, t.out, normalized(t.err)], [k.code, k.out, normalized(k.err)]);
});
