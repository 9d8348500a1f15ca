// TLS listeners end to end: a real tkafka broker with SSL listeners (PEM files, a PKCS12 key store,
// inline PEM, and one with ssl.client.auth=required), driven by the tkafka CLI with
// security.protocol=SSL through --command-config. Certificates are made at run time (helpers/certs).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { boundPorts, startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { makeCerts, STORE_PASSWORD, type TestCerts } from './helpers/certs.js';
import { runTkafka } from './helpers/tool-run.js';
import { run as producerTool } from '../src/tools/console-producer/main.js';
import { run as consumerTool } from '../src/tools/console-consumer/main.js';
import { SslPrincipalMapper, rfc2253 } from '../src/broker/security/ssl-principal.js';
import { connect as tlsConnect } from 'node:tls';
import { SocketServer } from '../src/broker/network/socket-server.js';
import { listenerTls } from '../src/broker/network/tls-listener.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { createApiVersionsHandler } from '../src/broker/api/api-versions.js';
import { BrokerConnection } from '../src/client/connection.js';
import { clientTlsConfig, tlsStoresFromSettings } from '../src/client/tls-config.js';

const LISTENERS = ['PLAINTEXT', 'CONTROLLER', 'SSL', 'P12', 'INLINE', 'MTLS', 'REQ', 'EXPIRED', 'WRONGHOST'];

let certs: TestCerts;
let broker: BrokerProcess;
let ports: Map<string, number>;

const escapeValue = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/** A --command-config file with these settings (values escaped as in a Java properties file). */
function commandConfig(name: string, settings: Record<string, string>): string {
  const path = join(certs.dir, `${name}.properties`);
  writeFileSync(
    path,
    Object.entries(settings)
      .map(([k, v]) => `${k}=${escapeValue(v)}`)
      .join('\n') + '\n',
  );
  return path;
}

const at = (listener: string): string => `127.0.0.1:${ports.get(listener)!}`;

async function tool(
  run: (argv: string[], io: import('../src/tools/common/io.js').ToolIO) => Promise<number>,
  argv: string[],
  input = '',
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void): Writable =>
    new Writable({
      write(c, _e, cb) {
        add(String(c));
        cb();
      },
    });
  const code = await run(argv, {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: Readable.from([Buffer.from(input)]),
    env: {},
  });
  return { code, out, err };
}

before(async () => {
  certs = makeCerts();
  const p = (l: string): string => `${l}://127.0.0.1:0`;
  broker = await startBroker({
    overrides: {
      listeners: LISTENERS.map(p).join(','),
      'advertised.listeners': LISTENERS.filter((l) => l !== 'CONTROLLER')
        .map(p)
        .join(','),
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,P12:SSL,INLINE:SSL,MTLS:SSL,REQ:SSL,EXPIRED:SSL,WRONGHOST:SSL',
      'inter.broker.listener.name': 'PLAINTEXT',
      // SSL: a PEM key store file (the unprefixed settings)
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.server.keystorePemPath,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.ca.certPath,
      // P12: a PKCS12 key store
      'listener.name.p12.ssl.keystore.type': 'PKCS12',
      'listener.name.p12.ssl.keystore.location': certs.server.keystoreP12Path,
      'listener.name.p12.ssl.keystore.password': STORE_PASSWORD,
      // INLINE: the key and chain inline (and no key store file)
      'listener.name.inline.ssl.keystore.location': '',
      'listener.name.inline.ssl.keystore.key': certs.server.key,
      'listener.name.inline.ssl.keystore.certificate.chain': certs.server.chain,
      // MTLS: client certificates required, trusted through a keytool-made PKCS12 trust store
      'listener.name.mtls.ssl.client.auth': 'required',
      'listener.name.mtls.ssl.principal.mapping.rules': 'RULE:^CN=(.*?),OU=tests,O=(.*)$/$1@$2/U,DEFAULT',
      'listener.name.mtls.ssl.truststore.type': 'PKCS12',
      'listener.name.mtls.ssl.truststore.location': certs.ca.truststoreP12Path,
      'listener.name.mtls.ssl.truststore.password': STORE_PASSWORD,
      // REQ: a client certificate is asked for, not required
      'listener.name.req.ssl.client.auth': 'requested',
      // EXPIRED, WRONGHOST: certificates a client must refuse
      'listener.name.expired.ssl.keystore.location': certs.expired.keystorePemPath,
      'listener.name.wronghost.ssl.keystore.location': certs.wrongHost.keystorePemPath,
      'auto.create.topics.enable': false,
      'tkafka.request.log': true,
    },
  });
  const found = boundPorts(broker.output(), LISTENERS);
  assert.ok(found, 'an Acceptor line per listener');
  ports = found;
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
  certs?.cleanup();
});

const trustPem = (): Record<string, string> => ({
  'security.protocol': 'SSL',
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': certs.ca.certPath,
});

test('topics --create and --list over SSL listeners: PEM key store, PKCS12 key store, inline PEM', async () => {
  const cfg = commandConfig('trust-pem', trustPem());
  const created = await runTkafka('topics', [
    '--bootstrap-server',
    at('SSL'),
    '--command-config',
    cfg,
    '--create',
    '--topic',
    'tls-a',
    '--partitions',
    '2',
  ]);
  assert.equal(created.code, 0, created.err);
  assert.match(created.out, /Created topic tls-a\./);
  // inline trust certificates against the PKCS12 listener and the inline-PEM listener
  const inline = commandConfig('trust-inline', {
    'security.protocol': 'SSL',
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.certificates': certs.ca.cert,
  });
  for (const l of ['P12', 'INLINE']) {
    const listed = await runTkafka('topics', ['--bootstrap-server', at(l), '--command-config', inline, '--list']);
    assert.equal(listed.code, 0, `${l}: ${listed.err}`);
    assert.match(listed.out, /^tls-a$/m, l);
  }
  // the metadata a client gets on an SSL listener names that listener's endpoints
  const described = await runTkafka('topics', [
    '--bootstrap-server',
    at('P12'),
    '--command-config',
    inline,
    '--describe',
    '--topic',
    'tls-a',
  ]);
  assert.equal(described.code, 0, described.err);
  assert.match(described.out, /PartitionCount: 2/);
});

test('console producer and consumer over SSL, and mutual TLS with PEM and PKCS12 client key stores', async () => {
  const cfg = commandConfig('trust-pem-2', trustPem());
  const made = await runTkafka('topics', [
    '--bootstrap-server',
    at('SSL'),
    '--command-config',
    cfg,
    '--create',
    '--topic',
    'tls-b',
  ]);
  assert.equal(made.code, 0, made.err);
  const produced = await tool(
    producerTool,
    ['--bootstrap-server', at('SSL'), '--command-config', cfg, '--topic', 'tls-b'],
    'one\ntwo\nthree\n',
  );
  assert.equal(produced.code, 0, produced.err);
  const mtlsPem = commandConfig('mtls-pem', {
    ...trustPem(),
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': certs.client.keystorePemPath,
  });
  const mtlsP12 = commandConfig('mtls-p12', {
    ...trustPem(),
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.client.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
  });
  for (const cfgFile of [mtlsPem, mtlsP12]) {
    const consumed = await tool(consumerTool, [
      '--bootstrap-server',
      at('MTLS'),
      '--command-config',
      cfgFile,
      '--topic',
      'tls-b',
      '--from-beginning',
      '--max-messages',
      '3',
      '--timeout-ms',
      '20000',
    ]);
    assert.equal(consumed.code, 0, consumed.err);
    assert.deepEqual(consumed.out.trim().split('\n'), ['one', 'two', 'three']);
  }
  // the principals: the client certificate's DN mapped by the MTLS listener's rules; ANONYMOUS on SSL
  const lines = broker.output().split('\n');
  const onMtls = lines.filter((l) => l.startsWith('[request]') && / listener=MTLS /.test(l));
  assert.ok(onMtls.length > 0, 'request-log lines for MTLS');
  assert.ok(
    onMtls.every((l) => l.endsWith(' principal=User:TKAFKA-CLIENT@TKAFKA')),
    onMtls.find((l) => !l.endsWith(' principal=User:TKAFKA-CLIENT@TKAFKA')),
  );
  const onSsl = lines.filter((l) => l.startsWith('[request]') && / listener=SSL /.test(l));
  assert.ok(onSsl.length > 0 && onSsl.every((l) => l.endsWith(' principal=User:ANONYMOUS')));
});

test('ssl.client.auth=requested: without a certificate User:ANONYMOUS, with one its DN, an untrusted one is refused', async () => {
  const plain = commandConfig('req-plain', trustPem());
  const withCert = commandConfig('req-cert', {
    ...trustPem(),
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': certs.client.keystorePemPath,
    'client.id': 'req-with-cert',
  });
  const untrusted = commandConfig('req-untrusted', {
    ...trustPem(),
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': certs.unknownClient.keystorePemPath,
    'default.api.timeout.ms': '10000',
  });
  for (const cfg of [plain, withCert]) {
    const r = await runTkafka('topics', ['--bootstrap-server', at('REQ'), '--command-config', cfg, '--list']);
    assert.equal(r.code, 0, r.out + r.err);
  }
  const lines = broker.output().split('\n');
  const onReq = lines.filter((l) => l.startsWith('[request]') && / listener=REQ /.test(l));
  assert.ok(
    onReq.some((l) => l.endsWith(' principal=User:ANONYMOUS')),
    'an anonymous connection',
  );
  assert.ok(
    onReq.some(
      (l) => l.includes('client=req-with-cert') && l.endsWith(' principal=User:CN=tkafka-client,OU=tests,O=tkafka'),
    ),
    'the certificate DN as principal',
  );
  const r = await runTkafka('topics', ['--bootstrap-server', at('REQ'), '--command-config', untrusted, '--list']);
  assert.notEqual(r.code, 0);
  assert.match(r.out + r.err, /SslAuthenticationException: SSL handshake failed: the broker /);
});

test('TLS failures give one clear line and a non-zero exit', async () => {
  const cases: { name: string; listener: string; settings: Record<string, string>; line: RegExp }[] = [
    {
      name: 'untrusted CA',
      listener: 'SSL',
      settings: { ...trustPem(), 'ssl.truststore.location': certs.otherCa.certPath },
      line: /SslAuthenticationException: SSL handshake failed: self-signed certificate in certificate chain/,
    },
    {
      name: 'expired certificate',
      listener: 'EXPIRED',
      settings: trustPem(),
      line: /SslAuthenticationException: SSL handshake failed: certificate has expired/,
    },
    {
      name: 'host name mismatch',
      listener: 'WRONGHOST',
      settings: trustPem(),
      line: /SslAuthenticationException: SSL handshake failed: Hostname\/IP does not match certificate's altnames: IP: 127\.0\.0\.1 is not in the cert's list/,
    },
    {
      name: 'missing client certificate',
      listener: 'MTLS',
      settings: trustPem(),
      line: /SslAuthenticationException: SSL handshake failed: the broker requires a client certificate/,
    },
    {
      name: 'client certificate from an unknown CA',
      listener: 'MTLS',
      settings: {
        ...trustPem(),
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': certs.unknownClient.keystorePemPath,
      },
      line: /SslAuthenticationException: SSL handshake failed: the broker (did not accept the client certificate|closed the connection right after the TLS handshake \(does it trust the client certificate\?\))/,
    },
    {
      name: 'plaintext listener',
      listener: 'PLAINTEXT',
      settings: trustPem(),
      line: /SslAuthenticationException: SSL handshake failed: the connection was closed during the handshake/,
    },
  ];
  for (const c of cases) {
    const cfg = commandConfig(`fail-${c.listener}-${c.name.replace(/\W/g, '')}`, {
      ...c.settings,
      'default.api.timeout.ms': '10000',
    });
    const r = await runTkafka('topics', ['--bootstrap-server', at(c.listener), '--command-config', cfg, '--list']);
    // kafka-topics prints "Error while executing topic command : <exception>" on stdout
    const text = (r.out + r.err).trim();
    assert.notEqual(r.code, 0, c.name);
    assert.match(text, c.line, c.name);
    assert.equal(text.split('\n').length, 1, `${c.name}: one line, got ${text}`);
  }
  // without host-name verification the WRONGHOST listener is accepted
  const noVerify = commandConfig('no-verify', { ...trustPem(), 'ssl.endpoint.identification.algorithm': '' });
  const r = await runTkafka('topics', ['--bootstrap-server', at('WRONGHOST'), '--command-config', noVerify, '--list']);
  assert.equal(r.code, 0, r.out + r.err);
});

test('a PKCS12 trust store made by keytool; a wrong trust store password is one line naming the key', async () => {
  const p12 = commandConfig('trust-p12', {
    'security.protocol': 'SSL',
    'ssl.truststore.type': 'PKCS12',
    'ssl.truststore.location': certs.ca.truststoreP12Path,
    'ssl.truststore.password': STORE_PASSWORD,
  });
  const listed = await runTkafka('topics', ['--bootstrap-server', at('SSL'), '--command-config', p12, '--list']);
  assert.equal(listed.code, 0, listed.out + listed.err);
  const wrong = commandConfig('trust-p12-wrong', {
    'security.protocol': 'SSL',
    'ssl.truststore.type': 'PKCS12',
    'ssl.truststore.location': certs.ca.truststoreP12Path,
    'ssl.truststore.password': 'not-the-password',
  });
  const r = await runTkafka('topics', ['--bootstrap-server', at('SSL'), '--command-config', wrong, '--list']);
  assert.notEqual(r.code, 0);
  assert.equal(
    (r.out + r.err).trim(),
    `Failed to load SSL truststore ${certs.ca.truststoreP12Path} of type PKCS12: keystore password was incorrect`,
  );
});

test('a JKS trust store is refused naming the key', async () => {
  const cfg = commandConfig('jks', {
    'security.protocol': 'SSL',
    'ssl.truststore.location': certs.ca.truststoreP12Path,
    'ssl.truststore.password': STORE_PASSWORD,
  });
  const r = await runTkafka('topics', ['--bootstrap-server', at('SSL'), '--command-config', cfg, '--list']);
  assert.notEqual(r.code, 0);
  assert.match(r.out + r.err, /Invalid value JKS for configuration ssl\.truststore\.type: .*PKCS12 or PEM/);
});

test('a plain TCP client on an SSL port gets no Kafka answer', async () => {
  // an ApiVersions v0 request in clear text: the TLS server reads it as a bad handshake and closes
  const req = Buffer.alloc(4 + 2 + 2 + 4 + 2);
  req.writeInt32BE(10, 0);
  req.writeInt16BE(18, 4);
  req.writeInt16BE(0, 6);
  req.writeInt32BE(7, 8);
  req.writeInt16BE(-1, 12);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = connect({ host: '127.0.0.1', port: ports.get('SSL')! }, () => s.write(req));
    s.on('data', (d: Buffer) => chunks.push(d));
    s.on('close', () => resolve(Buffer.concat(chunks)));
    s.on('error', reject);
    s.setTimeout(15_000, () => {
      s.destroy();
      reject(new Error('the SSL listener kept a clear-text connection open'));
    });
  });
  // whatever came back (a TLS alert at most) is not a Kafka response to correlation id 7
  assert.ok(received.length < 8 || received.readInt32BE(4) !== 7, 'no Kafka response');
  assert.ok(received.length === 0 || received[0] === 0x15, `a TLS alert or nothing, got ${received.toString('hex')}`);
});

test('start-up refusals name the key: JKS key store, no key store, wrong key store password, an SSL inter-broker listener whose trust store is JKS', async () => {
  const base = {
    listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SSL://127.0.0.1:0',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL',
  };
  const cases: { overrides: Record<string, string>; line: RegExp }[] = [
    {
      overrides: { 'ssl.keystore.location': certs.server.keystoreP12Path, 'ssl.keystore.password': STORE_PASSWORD },
      line: /Invalid value JKS for configuration ssl\.keystore\.type: tkafka cannot read JKS key stores; use PKCS12 or PEM/,
    },
    { overrides: {}, line: /The SSL listener SSL has no key store: .*listener\.name\.ssl\.ssl\.keystore\.location/ },
    {
      overrides: {
        'ssl.keystore.type': 'PKCS12',
        'ssl.keystore.location': certs.server.keystoreP12Path,
        'ssl.keystore.password': 'wrong',
      },
      line: /Invalid value for configuration ssl\.keystore\.password: the SSL key store or trust store could not be loaded: /,
    },
    {
      overrides: {
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': certs.server.keystorePemPath,
        'inter.broker.listener.name': 'SSL',
        'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
        // only the node's own (client) side of the inter-broker listener reads it: ssl.client.auth is none
        'listener.name.ssl.ssl.truststore.location': certs.ca.truststoreP12Path,
      },
      line: /Invalid value JKS for configuration ssl\.truststore\.type: tkafka cannot read JKS trust stores/,
    },
  ];
  for (const c of cases) {
    const failed = await startBroker({ overrides: { ...base, ...c.overrides } }).then(
      async (b) => {
        await b.stop();
        b.cleanup();
        return null;
      },
      (e: Error) => e.message,
    );
    assert.ok(failed !== null, `start-up must fail for ${JSON.stringify(c.overrides)}`);
    assert.match(failed, c.line);
  }
});

test('the principal: RFC 2253 subject through ssl.principal.mapping.rules', () => {
  const dn = rfc2253('O=tkafka\nOU=tests\nCN=tkafka-client');
  assert.equal(dn, 'CN=tkafka-client,OU=tests,O=tkafka');
  assert.equal(new SslPrincipalMapper('DEFAULT').getName(dn), dn);
  const m = new SslPrincipalMapper('RULE:^CN=(.*?),OU=(.*?),O=(.*?)$/$1@$3/U, DEFAULT');
  assert.equal(m.getName(dn), 'TKAFKA-CLIENT@TKAFKA');
  assert.equal(m.getName('CN=other'), 'CN=other');
  assert.throws(() => new SslPrincipalMapper('RULE:^CN=(.*?)$/$1/L/extra,'), /Invalid rule/);
});

test("reloading an SSL listener's key store: new connections get the new certificate, a bad store is refused", async () => {
  const registry = new HandlerRegistry();
  registry.register(createApiVersionsHandler(registry));
  const settings = new Map([
    ['listener.name.ssl.ssl.keystore.type', 'PEM'],
    ['listener.name.ssl.ssl.keystore.location', certs.server.keystorePemPath],
  ]);
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const server = new SocketServer({
    listeners: [{ name: 'SSL', host: '127.0.0.1', port: 0, tls: listenerTls(settings, 'SSL') }],
    registry,
    logger: quiet,
  });
  await server.start();
  try {
    const port = server.port('SSL');
    const peerSubject = (): Promise<string> =>
      new Promise((resolve, reject) => {
        const s = tlsConnect(
          { host: '127.0.0.1', port, ca: certs.ca.cert, checkServerIdentity: () => undefined },
          () => {
            resolve(s.getPeerX509Certificate()!.subject);
            s.destroy();
          },
        );
        s.on('error', reject);
      });
    assert.equal(await peerSubject(), 'CN=localhost');
    // the tkafka client speaks Kafka over it
    const conn = new BrokerConnection({
      host: '127.0.0.1',
      port,
      clientId: 'reload',
      requestTimeoutMs: 10_000,
      connectTimeoutMs: 10_000,
      tls: clientTlsConfig(
        new Map([
          ['ssl.truststore.type', 'PEM'],
          ['ssl.truststore.location', certs.ca.certPath],
        ]),
        'SSL',
      ),
    });
    await conn.open();
    assert.ok(conn.brokerVersions.has(18));
    conn.close();
    server.reloadListenerTls(
      'SSL',
      new Map([...settings, ['listener.name.ssl.ssl.keystore.location', certs.wrongHost.keystorePemPath]]),
    );
    assert.equal(await peerSubject(), 'CN=wrong.example');
    assert.throws(
      () =>
        server.reloadListenerTls(
          'SSL',
          new Map([...settings, ['listener.name.ssl.ssl.keystore.location', join(certs.dir, 'missing.pem')]]),
        ),
      /Failed to load SSL keystore .*missing\.pem of type PEM/,
    );
    assert.equal(await peerSubject(), 'CN=wrong.example', 'a failed reload keeps the stores');
  } finally {
    await server.close();
  }
});

test('ssl.enabled.protocols and ssl.cipher.suites: Java names to Node options, unknown ones refused naming the key', () => {
  const err = (message: string, key: string): Error => new Error(`${key}: ${message}`);
  const read = (m: Record<string, string>) => tlsStoresFromSettings((k) => m[k], err).options;
  assert.deepEqual(
    { min: read({}).minVersion, max: read({}).maxVersion, ciphers: read({}).ciphers },
    { min: 'TLSv1.2', max: 'TLSv1.3', ciphers: undefined },
  );
  const o = read({
    'ssl.enabled.protocols': 'TLSv1.2',
    'ssl.cipher.suites': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384',
  });
  assert.deepEqual(
    [o.minVersion, o.maxVersion, o.ciphers],
    ['TLSv1.2', 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256:TLS_AES_256_GCM_SHA384'],
  );
  assert.throws(
    () => read({ 'ssl.cipher.suites': 'SSL_RSA_WITH_RC4_128_MD5' }),
    /^Error: ssl\.cipher\.suites: Invalid value SSL_RSA_WITH_RC4_128_MD5/,
  );
  assert.throws(
    () => read({ 'ssl.enabled.protocols': 'TLSv1.4' }),
    /^Error: ssl\.enabled\.protocols: .*unknown protocol TLSv1\.4/,
  );
  assert.throws(() => read({ 'ssl.enabled.protocols': 'TLSv1.1,TLSv1.3' }), /contiguous range/);
  assert.throws(() => read({ 'ssl.protocol': 'SSLv3' }), /^Error: ssl\.protocol: Invalid value SSLv3/);
  assert.throws(
    () => read({ 'ssl.keystore.key': certs.client.key, 'ssl.keystore.certificate.chain': certs.client.cert }),
    /^Error: ssl\.keystore\.type: SSL private key can be specified only for PEM, but key store type is JKS\./,
  );
});
