// PKCS12 key stores read with node:crypto (never Node's `pfx`, which trusts every CA certificate of
// the key store). Stores are made at run time by openssl (default PBES2/AES, -certpbe/-keypbe
// variants, -legacy) and by the JDK (keytool, and a KeyStore with a key password different from the
// store password). End to end: a mutual-TLS listener whose key store holds CA X but whose trust store
// is CA Y refuses a client signed by X and accepts one signed by Y; a client likewise refuses a
// broker signed by its own key store's CA when its trust store does not name that CA.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPublicKey, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { boundPorts, startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { keyPasswordP12, makeCerts, STORE_PASSWORD, type TestCerts } from './helpers/certs.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { pkcs12KeyEntry } from '../src/client/pkcs12.js';
import { tlsStoresFromSettings } from '../src/client/tls-config.js';

const KEY_PASSWORD = 'key-secret';

let certs: TestCerts;

const run = (cmd: string, args: string[], cwd: string): void => {
  try {
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')} failed: ${(e as { stderr?: Buffer }).stderr?.toString() ?? String(e)}`, {
      cause: e,
    });
  }
};

/** openssl pkcs12 -export of the server's key, certificate and CA with extra options. */
function opensslStore(name: string, extra: string[]): string {
  const s = certs.server;
  const out = join(certs.dir, `${name}.p12`);
  run(
    '/usr/bin/openssl',
    [
      'pkcs12',
      '-export',
      '-in',
      s.certPath,
      '-inkey',
      s.keyPath,
      '-certfile',
      certs.ca.certPath,
      '-name',
      name,
      '-out',
      out,
      '-passout',
      `pass:${STORE_PASSWORD}`,
      ...extra,
    ],
    certs.dir,
  );
  return out;
}

/** keytool -genkeypair into a PKCS12 store (JDK options as -J flags); returns the store and its certificate. */
function keytoolStore(name: string, jflags: string[]): string {
  const out = join(certs.dir, `${name}.p12`);
  run(
    'keytool',
    [
      ...jflags.map((f) => `-J${f}`),
      '-genkeypair',
      '-alias',
      name,
      '-keyalg',
      'EC',
      '-groupname',
      'secp256r1',
      '-dname',
      `CN=${name}`,
      '-validity',
      '3',
      '-storetype',
      'PKCS12',
      '-keystore',
      out,
      '-storepass',
      STORE_PASSWORD,
    ],
    certs.dir,
  );
  return out;
}

const spki = (k: ReturnType<typeof createPublicKey>): Buffer => k.export({ format: 'der', type: 'spki' });

before(() => {
  certs = makeCerts();
});

after(() => certs?.cleanup());

test('openssl stores (default, -certpbe/-keypbe PBES2 and PKCS#12 3DES, plain certificates): key, leaf and chain are read', () => {
  const stores: Record<string, string> = {
    default: certs.server.keystoreP12Path,
    aes128: opensslStore('aes128', ['-certpbe', 'AES-128-CBC', '-keypbe', 'AES-192-CBC', '-macalg', 'sha512']),
    des3: opensslStore('des3', ['-certpbe', 'PBE-SHA1-3DES', '-keypbe', 'PBE-SHA1-3DES', '-macalg', 'sha1']),
    pbes2des3: opensslStore('pbes2des3', ['-certpbe', 'DES-EDE3-CBC', '-keypbe', 'DES-EDE3-CBC']),
    plaincerts: opensslStore('plaincerts', ['-certpbe', 'NONE']),
  };
  const leaf = new X509Certificate(certs.server.cert);
  const ca = new X509Certificate(certs.ca.cert);
  for (const [name, path] of Object.entries(stores)) {
    const e = pkcs12KeyEntry(readFileSync(path), STORE_PASSWORD, STORE_PASSWORD);
    assert.equal(e.chain.length, 2, name);
    assert.equal(new X509Certificate(e.chain[0]!).fingerprint256, leaf.fingerprint256, name);
    assert.equal(new X509Certificate(e.chain[1]!).fingerprint256, ca.fingerprint256, name);
    assert.ok(spki(createPublicKey(e.key)).equals(spki(leaf.publicKey)), `${name}: the key is the leaf's`);
    assert.equal(e.alias, name === 'default' ? 'server' : name);
    // a wrong store password: the MAC check, as for trust stores
    assert.throws(
      () => pkcs12KeyEntry(readFileSync(path), 'wrong', 'wrong'),
      /^Error: keystore password was incorrect$/,
    );
  }
});

test('openssl -legacy (RC2-40 certificates): refused with a message naming the store and the scheme', () => {
  const path = opensslStore('legacy', ['-legacy']);
  assert.throws(
    () =>
      tlsStoresFromSettings(
        (k) =>
          ({
            'ssl.keystore.type': 'PKCS12',
            'ssl.keystore.location': path,
            'ssl.keystore.password': STORE_PASSWORD,
          })[k],
        (m, key) => new Error(`${key}|${m}`),
      ),
    (e: Error) => {
      assert.equal(
        e.message,
        `ssl.keystore.location|Invalid value for configuration ssl.keystore.location: the SSL key store or trust store could not be loaded: ${path}: its certificates are encrypted with pbeWithSHAAnd40BitRC2-CBC, which Node's OpenSSL cannot decrypt (a legacy cipher); re-create the store with PBES2/AES (openssl 3 pkcs12 -export without -legacy, or keytool from JDK 12+), or with -certpbe/-keypbe PBE-SHA1-3DES`,
      );
      return true;
    },
  );
});

test('keytool stores: JDK default and legacy 3DES key protection; a key password different from the store password', () => {
  const jdk = keytoolStore('jdk', []);
  const jdk3des = keytoolStore('jdk3des', [
    '-Dkeystore.pkcs12.keyProtectionAlgorithm=PBEWithSHA1AndDESede',
    '-Dkeystore.pkcs12.certProtectionAlgorithm=PBEWithSHA1AndDESede',
    '-Dkeystore.pkcs12.macAlgorithm=HmacPBESHA1',
  ]);
  for (const [name, path] of [
    ['jdk', jdk],
    ['jdk3des', jdk3des],
  ] as const) {
    const e = pkcs12KeyEntry(readFileSync(path), STORE_PASSWORD, STORE_PASSWORD);
    assert.equal(e.chain.length, 1);
    const cert = new X509Certificate(e.chain[0]!);
    assert.equal(cert.subject, `CN=${name}`);
    assert.ok(spki(createPublicKey(e.key)).equals(spki(cert.publicKey)));
    assert.equal(e.alias, name);
  }
  // ssl.key.password differs from ssl.keystore.password: read with it, refused without it (naming the key)
  const keyPass = keyPasswordP12(certs, certs.server, 'keypass', KEY_PASSWORD);
  const settings = (extra: Record<string, string>) => (k: string) =>
    ({
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': keyPass,
      'ssl.keystore.password': STORE_PASSWORD,
      ...extra,
    })[k];
  const fail = (m: string, key: string): Error => new Error(`${key}|${m}`);
  const { options } = tlsStoresFromSettings(settings({ 'ssl.key.password': KEY_PASSWORD }), fail);
  assert.equal(options.pfx, undefined, 'never pfx');
  assert.equal(options.cert, certs.server.cert.trim() + '\n' + certs.ca.cert.trim() + '\n');
  createSecureContext(options);
  for (const extra of [{}, { 'ssl.key.password': 'not-it' }] as Record<string, string>[]) {
    assert.throws(
      () => tlsStoresFromSettings(settings(extra), fail),
      (e: Error) => {
        assert.equal(
          e.message,
          `ssl.key.password|Invalid value for configuration ssl.key.password: the SSL key store or trust store could not be loaded: ${keyPass}: Get Key failed: the private key could not be decrypted with the key password`,
        );
        return true;
      },
    );
  }
  // a certificates-only store as a key store: the store is at fault, not a password
  assert.throws(
    () => tlsStoresFromSettings(settings({ 'ssl.keystore.location': certs.ca.truststoreP12Path }), fail),
    (e: Error) => {
      assert.equal(
        e.message,
        `ssl.keystore.location|Invalid value for configuration ssl.keystore.location: the SSL key store or trust store could not be loaded: ${certs.ca.truststoreP12Path}: the store has no private key entry`,
      );
      return true;
    },
  );
  assert.throws(
    () => tlsStoresFromSettings(settings({ 'ssl.keystore.password': 'wrong' }), fail),
    /^Error: ssl\.keystore\.password\|Invalid value for configuration ssl\.keystore\.password: the SSL key store or trust store could not be loaded: .*: keystore password was incorrect$/,
  );
});

test('the CA certificates of a PKCS12 key store are not trusted: an mTLS listener and a client trust their trust store only', async () => {
  const listeners = ['PLAINTEXT', 'CONTROLLER', 'MTLS', 'TLS'];
  const p = (l: string): string => `${l}://127.0.0.1:0`;
  // a client of otherCa (Y) whose key password differs from its store password
  const strangerStore = keyPasswordP12(certs, certs.unknownClient, 'stranger', KEY_PASSWORD);
  let broker: BrokerProcess | undefined;
  try {
    broker = await startBroker({
      overrides: {
        listeners: listeners.map(p).join(','),
        'advertised.listeners': listeners
          .filter((l) => l !== 'CONTROLLER')
          .map(p)
          .join(','),
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,MTLS:SSL,TLS:SSL',
        'inter.broker.listener.name': 'PLAINTEXT',
        // the key store carries CA X (certs.ca) next to the server certificate; the trust store is CA Y
        'ssl.keystore.type': 'PKCS12',
        'ssl.keystore.location': certs.server.keystoreP12Path,
        'ssl.keystore.password': STORE_PASSWORD,
        'listener.name.mtls.ssl.client.auth': 'required',
        'listener.name.mtls.ssl.truststore.type': 'PKCS12',
        'listener.name.mtls.ssl.truststore.location': certs.otherCa.truststoreP12Path,
        'listener.name.mtls.ssl.truststore.password': STORE_PASSWORD,
      },
    });
    const ports = boundPorts(broker.output(), listeners);
    assert.ok(ports, 'an Acceptor line per listener');
    const at = (l: string): string => `127.0.0.1:${ports.get(l)!}`;
    const config = (name: string, settings: Record<string, string>): string => {
      const path = join(certs.dir, `${name}.properties`);
      writeFileSync(
        path,
        Object.entries({ 'security.protocol': 'SSL', ...settings })
          .map(([k, v]) => `${k}=${v}`)
          .join('\n') + '\n',
      );
      return path;
    };
    const list = (listener: string, cfg: string) =>
      runTkafka('topics', ['--bootstrap-server', at(listener), '--command-config', cfg, '--list']);
    const trustX = { 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': certs.ca.certPath };

    // server side: a client signed by X is refused, one signed by Y (PKCS12, its own key password) accepted
    // (bounds the client's retries, should a refused handshake not end the run at once)
    const fast = { 'default.api.timeout.ms': '10000' };
    const signedByX = config('signed-by-x', {
      ...fast,
      ...trustX,
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': certs.client.keystoreP12Path,
      'ssl.keystore.password': STORE_PASSWORD,
    });
    const failedLine = /Failed authentication with \/\S* \(SSL handshake failed: /g;
    const failedBefore = broker.output().match(failedLine)?.length ?? 0;
    const refused = await list('MTLS', signedByX);
    assert.notEqual(refused.code, 0, 'a client certificate signed by the key store CA only must be refused');
    // TLS 1.3: the server checks the client's certificate after the client's handshake is done, so
    // the client sees the server's alert or, when its first request was unread, a reset
    assert.match(refused.out + refused.err, /SslAuthenticationException|connection reset/);
    await waitFor(() => (broker!.output().match(failedLine)?.length ?? 0) > failedBefore, {
      what: 'the broker logs the refused client certificate',
    });
    const signedByY = config('signed-by-y', {
      ...trustX,
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': strangerStore,
      'ssl.keystore.password': STORE_PASSWORD,
      'ssl.key.password': KEY_PASSWORD,
    });
    const accepted = await list('MTLS', signedByY);
    assert.equal(accepted.code, 0, accepted.out + accepted.err);

    // client side: its key store holds X (certs.client's store); trusting Y only, it refuses a broker signed by X
    const clientKeystore = {
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': certs.client.keystoreP12Path,
      'ssl.keystore.password': STORE_PASSWORD,
    };
    const trustsY = config('client-trusts-y', {
      ...fast,
      ...clientKeystore,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.otherCa.certPath,
    });
    const untrusted = await list('TLS', trustsY);
    assert.notEqual(untrusted.code, 0, 'the broker is signed by the key store CA only: the client must refuse it');
    assert.match(untrusted.out + untrusted.err, /SslAuthenticationException: SSL handshake failed/);
    const trusted = await list('TLS', config('client-trusts-x', { ...clientKeystore, ...trustX }));
    assert.equal(trusted.code, 0, trusted.out + trusted.err);
  } finally {
    await broker?.stop();
    broker?.cleanup();
  }
});
