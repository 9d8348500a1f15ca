// Test certificates, made at run time with /usr/bin/openssl (and keytool for a Java-style PKCS12
// truststore) in a temp dir: nothing secret is ever committed. makeCerts() returns the files and
// their PEM text:
//   ca           the test CA (CN=tkafka-test-ca)
//   otherCa      a second, unrelated CA (trusting it instead of `ca` must fail the handshake)
//   server       CN=localhost, SAN IP:127.0.0.1 + DNS:localhost, signed by `ca`
//   wrongHost    CN=wrong.example, SAN DNS:wrong.example only (hostname verification must fail)
//   expired      like `server` but valid only in 2020
//   client       subject /O=tkafka/OU=tests/CN=tkafka-client, RFC 2253 "CN=tkafka-client,OU=tests,O=tkafka"
//                (for mutual TLS), signed by `ca`
//   unknownClient  a client certificate signed by `otherCa`
// Each leaf has `key.pem` (PKCS#8, unencrypted), `cert.pem`, `chain.pem` (cert + CA), `keystore.pem`
// (key + chain, Kafka's PEM keystore file) and `keystore.p12` (PKCS12 with key, cert and CA,
// password `password`). The CAs have `truststore.p12` made by keytool (password `password`).
// keyPasswordP12() writes (with the JDK's KeyStore) a PKCS12 key store whose key password differs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const STORE_PASSWORD = 'password';

export interface CertFiles {
  readonly dir: string;
  readonly keyPath: string;
  readonly certPath: string;
  readonly chainPath: string;
  /** Key then certificate chain in one file (ssl.keystore.type=PEM, ssl.keystore.location). */
  readonly keystorePemPath: string;
  /** PKCS12 (openssl) with key, certificate and CA; password STORE_PASSWORD. */
  readonly keystoreP12Path: string;
  readonly key: string;
  readonly cert: string;
  readonly chain: string;
}

export interface CaFiles {
  readonly dir: string;
  readonly certPath: string;
  readonly keyPath: string;
  /** keytool-made PKCS12 truststore (a trusted-certificate entry only); password STORE_PASSWORD. */
  readonly truststoreP12Path: string;
  readonly cert: string;
}

export interface TestCerts {
  readonly dir: string;
  readonly ca: CaFiles;
  readonly otherCa: CaFiles;
  readonly server: CertFiles;
  readonly wrongHost: CertFiles;
  readonly expired: CertFiles;
  readonly client: CertFiles;
  readonly unknownClient: CertFiles;
  cleanup(): void;
}

const openssl = (args: string[], cwd: string): void => {
  try {
    execFileSync('/usr/bin/openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer };
    throw new Error(`openssl ${args[0]} failed: ${err.stderr?.toString() ?? String(e)}`, { cause: e });
  }
};

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): CaFiles {
  const sub = join(dir, name);
  execFileSync('mkdir', ['-p', sub]);
  openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '3',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    sub,
  );
  writeFileSync(join(sub, 'index.txt'), '');
  writeFileSync(join(sub, 'serial'), '1000\n');
  writeFileSync(
    join(sub, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = CA_default',
      '[CA_default]',
      `database = ${join(sub, 'index.txt')}`,
      `serial = ${join(sub, 'serial')}`,
      `new_certs_dir = ${sub}`,
      'default_md = sha256',
      'policy = policy_any',
      'copy_extensions = copy',
      'unique_subject = no',
      '[policy_any]',
      'commonName = supplied',
      'organizationName = optional',
      'organizationalUnitName = optional',
      '',
    ].join('\n'),
  );
  const truststoreP12Path = join(sub, 'truststore.p12');
  execFileSync(
    'keytool',
    [
      '-importcert',
      '-noprompt',
      '-alias',
      'ca',
      '-file',
      join(sub, 'ca.pem'),
      '-keystore',
      truststoreP12Path,
      '-storetype',
      'PKCS12',
      '-storepass',
      STORE_PASSWORD,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const certPath = join(sub, 'ca.pem');
  return { dir: sub, certPath, keyPath: join(sub, 'ca.key'), truststoreP12Path, cert: readFileSync(certPath, 'utf8') };
}

function makeLeaf(
  dir: string,
  name: string,
  ca: CaFiles,
  subject: string,
  san: string | null,
  dates: { start: string; end: string } | null,
  clientAuth: boolean,
): CertFiles {
  const sub = join(dir, name);
  execFileSync('mkdir', ['-p', sub]);
  const ext = [
    '-addext',
    `extendedKeyUsage=${clientAuth ? 'clientAuth' : 'serverAuth,clientAuth'}`,
    ...(san ? ['-addext', `subjectAltName=${san}`] : []),
  ];
  openssl(['req', '-new', ...EC_KEY, '-keyout', 'key.pem', '-out', 'req.csr', '-subj', subject, ...ext], sub);
  openssl(
    [
      'ca',
      '-batch',
      '-preserveDN',
      '-notext',
      '-config',
      join(ca.dir, 'ca.cnf'),
      '-cert',
      ca.certPath,
      '-keyfile',
      ca.keyPath,
      '-in',
      'req.csr',
      '-out',
      'cert.pem',
      ...(dates ? ['-startdate', dates.start, '-enddate', dates.end] : ['-days', '3']),
    ],
    sub,
  );
  const key = readFileSync(join(sub, 'key.pem'), 'utf8');
  const cert = readFileSync(join(sub, 'cert.pem'), 'utf8');
  const chain = cert + ca.cert;
  writeFileSync(join(sub, 'chain.pem'), chain);
  writeFileSync(join(sub, 'keystore.pem'), key + chain);
  openssl(
    [
      'pkcs12',
      '-export',
      '-in',
      'cert.pem',
      '-inkey',
      'key.pem',
      '-certfile',
      ca.certPath,
      '-name',
      name,
      '-out',
      'keystore.p12',
      '-passout',
      `pass:${STORE_PASSWORD}`,
    ],
    sub,
  );
  return {
    dir: sub,
    keyPath: join(sub, 'key.pem'),
    certPath: join(sub, 'cert.pem'),
    chainPath: join(sub, 'chain.pem'),
    keystorePemPath: join(sub, 'keystore.pem'),
    keystoreP12Path: join(sub, 'keystore.p12'),
    key,
    cert,
    chain,
  };
}

/** Makes a fresh set of test certificates in a temp dir (about a second). */
export function makeCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-certs-'));
  const ca = makeCa(dir, 'tkafka-test-ca');
  const otherCa = makeCa(dir, 'tkafka-other-ca');
  const serverSan = 'IP:127.0.0.1,DNS:localhost';
  return {
    dir,
    ca,
    otherCa,
    server: makeLeaf(dir, 'server', ca, '/CN=localhost', serverSan, null, false),
    wrongHost: makeLeaf(dir, 'wrong-host', ca, '/CN=wrong.example', 'DNS:wrong.example', null, false),
    expired: makeLeaf(
      dir,
      'expired',
      ca,
      '/CN=localhost',
      serverSan,
      { start: '20200101000000Z', end: '20200102000000Z' },
      false,
    ),
    client: makeLeaf(dir, 'client', ca, '/O=tkafka/OU=tests/CN=tkafka-client', null, null, true),
    unknownClient: makeLeaf(dir, 'unknown-client', otherCa, '/CN=stranger', null, null, true),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * One more server certificate signed by `certs.ca` (a renewal, or a changed one for dynamic key
 * store updates): subject and SANs as given (default: those of `server`), files in `<dir>/<name>`.
 */
export function makeServerCert(
  certs: TestCerts,
  name: string,
  opts: { subject?: string; san?: string } = {},
): CertFiles {
  return makeLeaf(
    certs.dir,
    name,
    certs.ca,
    opts.subject ?? '/CN=localhost',
    opts.san ?? 'IP:127.0.0.1,DNS:localhost',
    null,
    false,
  );
}

// A JDK KeyStore copy of a PKCS12 store's key entry whose key password differs from the store
// password (keytool ignores -keypass for PKCS12 stores; the KeyStore API honours it, and Kafka
// reads such a store with ssl.key.password).
const KEY_PASS_JAVA = `
import java.io.*;
import java.security.*;
import java.security.cert.Certificate;
import java.util.Collections;
public class KeyPass {
  public static void main(String[] a) throws Exception {
    KeyStore src = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(a[0])) { src.load(in, a[1].toCharArray()); }
    for (String alias : Collections.list(src.aliases())) {
      if (!src.isKeyEntry(alias)) continue;
      Key key = src.getKey(alias, a[1].toCharArray());
      Certificate[] chain = src.getCertificateChain(alias);
      KeyStore dst = KeyStore.getInstance("PKCS12");
      dst.load(null, null);
      dst.setKeyEntry(a[4], key, a[3].toCharArray(), chain);
      try (OutputStream out = new FileOutputStream(a[2])) { dst.store(out, a[1].toCharArray()); }
      return;
    }
    throw new IllegalStateException("no key entry");
  }
}
`;

/**
 * A JDK-written PKCS12 key store `<dir>/<alias>.p12` with `leaf`'s key and chain: store password
 * STORE_PASSWORD, key password `keyPassword`, the key entry named `alias`.
 */
export function keyPasswordP12(certs: TestCerts, leaf: CertFiles, alias: string, keyPassword: string): string {
  const java = join(certs.dir, 'KeyPass.java');
  writeFileSync(java, KEY_PASS_JAVA);
  const out = join(certs.dir, `${alias}.p12`);
  try {
    execFileSync('java', [java, leaf.keystoreP12Path, STORE_PASSWORD, out, keyPassword, alias], {
      cwd: certs.dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (e) {
    const err = e as { stderr?: Buffer };
    throw new Error(`java KeyPass failed: ${err.stderr?.toString() ?? String(e)}`, { cause: e });
  }
  return out;
}
