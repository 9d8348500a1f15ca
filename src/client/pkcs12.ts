// PKCS12 stores read with node:crypto, never with Node's createSecureContext({ pfx }): that one
// insists on a private key (so a certificates-only trust store cannot be read) and adds every CA
// certificate of a key store to the context's trust store, which Kafka (separate KeyManager and
// TrustManager) never does. Supported: the integrity MAC (PKCS#12 key derivation with
// SHA-1/256/384/512) checked against the store password; certificate bags and PKCS#8 shrouded key
// bags encrypted with PBES2 (PBKDF2 with HMAC-SHA1/256/384/512, AES-CBC or 3DES-CBC: OpenSSL 3 and
// keytool from JDK 12 on) or with the PKCS#12 PBE pbeWithSHAAnd3-KeyTripleDES-CBC (older tools).
// RC2 and RC4 (openssl -legacy, keytool before JDK 12) are in OpenSSL 3's legacy provider, which
// Node does not load: such stores are refused with a clear message.
import type * as Crypto from 'node:crypto';
import type { KeyObject, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';

// node:crypto, loaded when the first store is read: loading it costs 5-14 ms here, which a run
// without a PKCS12 store (every PLAINTEXT tool run imports this module) need not pay
let cryptoModule: typeof Crypto | undefined;
const crypto = (): typeof Crypto => (cryptoModule ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto);

interface Der {
  tag: number;
  /** The content octets. */
  value: Buffer;
  /** Total encoded length (header + content). */
  size: number;
  /** The whole encoding (header + content). */
  raw: Buffer;
}

function readDer(buf: Buffer, at = 0): Der {
  if (at + 2 > buf.length) throw new Error('truncated DER');
  const tag = buf[at]!;
  let len = buf[at + 1]!;
  let hl = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error('unsupported DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[at + 2 + i]!;
    hl += n;
  }
  if (at + hl + len > buf.length) throw new Error('truncated DER');
  return { tag, value: buf.subarray(at + hl, at + hl + len), size: hl + len, raw: buf.subarray(at, at + hl + len) };
}

function children(d: Der): Der[] {
  const out: Der[] = [];
  for (let at = 0; at < d.value.length;) {
    const c = readDer(d.value, at);
    out.push(c);
    at += c.size;
  }
  return out;
}

function oid(d: Der): string {
  if (d.tag !== 0x06) throw new Error('expected an OBJECT IDENTIFIER');
  const b = d.value;
  const parts = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (let i = 1; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if (!(b[i]! & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

function int(d: Der): number {
  let v = 0;
  for (const x of d.value) v = v * 256 + x;
  return v;
}

/** An OCTET STRING's bytes, primitive or (BER) constructed. */
function octets(d: Der): Buffer {
  if (d.tag & 0x20) return Buffer.concat(children(d).map(octets));
  return d.value;
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  keyBag: '1.2.840.113549.1.12.10.1.1',
  shroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  certBag: '1.2.840.113549.1.12.10.1.3',
  x509Certificate: '1.2.840.113549.1.9.22.1',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
};
const PRF: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
const DIGEST: Record<string, { name: string; v: number }> = {
  '1.3.14.3.2.26': { name: 'sha1', v: 64 },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256', v: 64 },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384', v: 128 },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512', v: 128 },
};

// PKCS#9 bag attributes: friendlyName (a BMPString) and localKeyId
const FRIENDLY_NAME = '1.2.840.113549.1.9.20';
const LOCAL_KEY_ID = '1.2.840.113549.1.9.21';

/**
 * RFC 7292 appendix B.2 key derivation: `id` 1 makes a cipher key, 2 an IV, 3 a MAC key; the
 * password is a NUL-terminated BMPString.
 */
function pkcs12Kdf(
  hash: string,
  v: number,
  password: string,
  salt: Buffer,
  iterations: number,
  n: number,
  id = 3,
): Buffer {
  const pw = password === '' ? Buffer.alloc(0) : Buffer.from(password + '\0', 'utf16le').swap16();
  const fill = (src: Buffer): Buffer => {
    const len = v * Math.ceil(src.length / v);
    const out = Buffer.alloc(len);
    for (let i = 0; i < len; i++) out[i] = src[i % src.length]!;
    return out;
  };
  const D = Buffer.alloc(v, id);
  const I = Buffer.concat([salt.length ? fill(salt) : Buffer.alloc(0), pw.length ? fill(pw) : Buffer.alloc(0)]);
  const parts: Buffer[] = [];
  let total = 0;
  while (total < n) {
    let A = crypto().createHash(hash).update(D).update(I).digest();
    for (let i = 1; i < iterations; i++) A = crypto().createHash(hash).update(A).digest();
    parts.push(A);
    total += A.length;
    const B = fill(A).subarray(0, v);
    for (let j = 0; j < I.length; j += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = I[j + k]! + B[k]! + carry;
        I[j + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(parts).subarray(0, n);
}

/**
 * The store itself cannot serve (a scheme Node's OpenSSL cannot decrypt, such as RC2 from OpenSSL 3's
 * legacy provider, which Node does not load; no private key entry): not a password's fault.
 */
export class Pkcs12StoreError extends Error {}

// PKCS#12 password-based encryption (RFC 7292 appendix C): SHA-1 with the appendix B derivation.
// prettier-ignore
const PKCS12_PBE: Record<string, { name: string; cipher: string; keyLength: number }> = {
  '1.2.840.113549.1.12.1.1': { name: 'pbeWithSHAAnd128BitRC4', cipher: 'rc4', keyLength: 16 },
  '1.2.840.113549.1.12.1.2': { name: 'pbeWithSHAAnd40BitRC4', cipher: 'rc4-40', keyLength: 5 },
  '1.2.840.113549.1.12.1.3': { name: 'pbeWithSHAAnd3-KeyTripleDES-CBC', cipher: 'des-ede3-cbc', keyLength: 24 },
  '1.2.840.113549.1.12.1.4': { name: 'pbeWithSHAAnd2-KeyTripleDES-CBC', cipher: 'des-ede-cbc', keyLength: 16 },
  '1.2.840.113549.1.12.1.5': { name: 'pbeWithSHAAnd128BitRC2-CBC', cipher: 'rc2-cbc', keyLength: 16 },
  '1.2.840.113549.1.12.1.6': { name: 'pbeWithSHAAnd40BitRC2-CBC', cipher: 'rc2-40-cbc', keyLength: 5 },
};

// PBES2 encryption schemes (RFC 8018): AES-CBC as OpenSSL 3 and keytool write, 3DES-CBC (openssl -keypbe des-ede3-cbc)
const PBES2_CIPHERS: Record<string, { name: string; keyLength: number }> = {
  '2.16.840.1.101.3.4.1.2': { name: 'aes-128-cbc', keyLength: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'aes-192-cbc', keyLength: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'aes-256-cbc', keyLength: 32 },
  '1.2.840.113549.3.7': { name: 'des-ede3-cbc', keyLength: 24 },
};

/**
 * Decrypts `encrypted` with the AlgorithmIdentifier `alg` (PBES2, or a PKCS#12 PBE scheme) and
 * `password`; a wrong password shows as a failed decryption (bad padding).
 */
function decryptPbe(alg: Der, encrypted: Buffer, password: string, what: string): Buffer {
  const [algOid, params] = children(alg);
  const algId = oid(algOid!);
  const legacy = PKCS12_PBE[algId];
  let cipher: string;
  let key: Buffer;
  let iv: Buffer;
  if (legacy) {
    if (!crypto().getCiphers().includes(legacy.cipher) || !cipherAvailable(legacy.cipher, legacy.keyLength)) {
      throw new Pkcs12StoreError(
        `its ${what} are encrypted with ${legacy.name}, which Node's OpenSSL cannot decrypt (a legacy cipher); re-create the store with PBES2/AES (openssl 3 pkcs12 -export without -legacy, or keytool from JDK 12+), or with -certpbe/-keypbe PBE-SHA1-3DES`,
      );
    }
    const [salt, iter] = children(params!);
    const iterations = iter ? int(iter) : 1;
    cipher = legacy.cipher;
    key = pkcs12Kdf('sha1', 64, password, salt!.value, iterations, legacy.keyLength, 1);
    iv = legacy.cipher.endsWith('-cbc')
      ? pkcs12Kdf('sha1', 64, password, salt!.value, iterations, 8, 2)
      : Buffer.alloc(0);
  } else if (algId === OID.pbes2) {
    const [kdf, scheme] = children(params!);
    const [kdfOid, kdfParams] = children(kdf!);
    if (oid(kdfOid!) !== OID.pbkdf2) throw new Pkcs12StoreError(`unsupported key derivation ${oid(kdfOid!)}`);
    const kp = children(kdfParams!);
    const salt = kp[0]!.value;
    const iterations = int(kp[1]!);
    let prf = 'sha1';
    for (const p of kp.slice(2)) if (p.tag === 0x30) prf = PRF[oid(children(p)[0]!)] ?? '';
    if (prf === '') throw new Pkcs12StoreError('unsupported PBKDF2 pseudo-random function');
    const [encOid, ivDer] = children(scheme!);
    const c = PBES2_CIPHERS[oid(encOid!)];
    if (!c) throw new Pkcs12StoreError(`its ${what} are encrypted with the unsupported cipher ${oid(encOid!)}`);
    cipher = c.name;
    key = crypto().pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, c.keyLength, prf);
    iv = ivDer!.value;
  } else {
    throw new Pkcs12StoreError(
      `its ${what} are encrypted with ${algId}, a scheme tkafka does not read; re-create the store with PBES2/AES (keytool from JDK 12+, or openssl 3)`,
    );
  }
  const d = crypto().createDecipheriv(cipher, key, iv.length ? iv : null);
  return Buffer.concat([d.update(encrypted), d.final()]);
}

function cipherAvailable(cipher: string, keyLength: number): boolean {
  try {
    crypto().createDecipheriv(cipher, Buffer.alloc(keyLength), cipher.endsWith('-cbc') ? Buffer.alloc(8) : null);
    return true;
  } catch {
    return false;
  }
}

/**
 * The certificates (PEM) of a PKCS12 store; throws when the password does not match the store's
 * MAC ("keystore password was incorrect", Java's words) or the store cannot be read.
 */
export function pkcs12Certificates(pfx: Buffer, password: string): string[] {
  return pkcs12CertificateEntries(pfx, password).map((e) => e.pem);
}

/** A certificate of a PKCS12 store with its bag's friendlyName (Java's alias) and whether a key goes with it. */
export interface Pkcs12Certificate {
  readonly pem: string;
  readonly alias: string | null;
  /** The bag has a localKeyId: the certificate of a private-key entry (not a CA of its chain). */
  readonly keyed: boolean;
}

interface SafeBag {
  readonly id: string;
  readonly value: Der;
  readonly alias: string | null;
  readonly localKeyId: Buffer | null;
}

/** The safe bags of a PKCS12 store, its MAC checked and its encrypted contents decrypted with `password`. */
function safeBags(pfx: Buffer, password: string): SafeBag[] {
  const top = children(readDer(pfx));
  if (top.length < 2 || int(top[0]!) !== 3) throw new Error('not a PKCS12 (version 3) store');
  const [ctOid, ctContent] = children(top[1]!);
  if (oid(ctOid!) !== OID.data) throw new Error('public-key integrity mode is not supported');
  const authSafe = octets(children(ctContent!)[0]!);
  if (top[2]) {
    const [mac, macSalt, iter] = children(top[2]);
    const [digestAlg, digest] = children(mac!);
    const d = DIGEST[oid(children(digestAlg!)[0]!)];
    if (!d) throw new Error('unsupported MAC digest');
    const expected = digest!.value;
    const key = pkcs12Kdf(d.name, d.v, password, macSalt!.value, iter ? int(iter) : 1, expected.length);
    const got = crypto().createHmac(d.name, key).update(authSafe).digest();
    if (got.length !== expected.length || !crypto().timingSafeEqual(got, expected)) {
      throw new Error('keystore password was incorrect');
    }
  }
  const bags: SafeBag[] = [];
  for (const ci of children(readDer(authSafe))) {
    const [type, content] = children(ci);
    let safeContents: Buffer;
    if (oid(type!) === OID.data) {
      safeContents = octets(children(content!)[0]!);
    } else if (oid(type!) === OID.encryptedData) {
      const [, eci] = children(children(content!)[0]!);
      const [, alg, enc] = children(eci!);
      if (!enc) continue;
      safeContents = decryptPbe(alg!, enc.tag & 0x20 ? octets(enc) : enc.value, password, 'certificates');
    } else {
      continue;
    }
    for (const bag of children(readDer(safeContents))) {
      const [bagId, bagValue, bagAttributes] = children(bag);
      let alias: string | null = null;
      let localKeyId: Buffer | null = null;
      for (const attr of bagAttributes ? children(bagAttributes) : []) {
        const [attrId, values] = children(attr);
        const id = oid(attrId!);
        if (id === FRIENDLY_NAME) alias = Buffer.from(children(values!)[0]!.value).swap16().toString('utf16le');
        else if (id === LOCAL_KEY_ID) localKeyId = children(values!)[0]!.value;
      }
      bags.push({ id: oid(bagId!), value: children(bagValue!)[0]!, alias, localKeyId });
    }
  }
  return bags;
}

function certificateOf(bag: SafeBag): X509Certificate | null {
  if (bag.id !== OID.certBag) return null;
  const [certId, certValue] = children(bag.value);
  if (oid(certId!) !== OID.x509Certificate) return null;
  return new (crypto().X509Certificate)(octets(children(certValue!)[0]!));
}

/** The certificates of a PKCS12 store, with their aliases (same checks as pkcs12Certificates). */
export function pkcs12CertificateEntries(pfx: Buffer, password: string): Pkcs12Certificate[] {
  const certs: Pkcs12Certificate[] = [];
  for (const bag of safeBags(pfx, password)) {
    const cert = certificateOf(bag);
    if (cert) certs.push({ pem: cert.toString(), alias: bag.alias, keyed: bag.localKeyId !== null });
  }
  return certs;
}

/** The store password opened the store but the key password did not open its private key. */
export class Pkcs12KeyPasswordError extends Error {}

/** The private-key entry of a PKCS12 key store: what a TLS context needs, never Node's `pfx`. */
export interface Pkcs12KeyEntry {
  readonly key: KeyObject;
  /** The entry's certificate first, then its chain (issuer after subject), PEM. */
  readonly chain: readonly string[];
  readonly alias: string | null;
  /** All certificates of the store (as pkcs12CertificateEntries). */
  readonly certificates: readonly Pkcs12Certificate[];
}

/**
 * The (first) private-key entry of a PKCS12 key store: the store is opened with `storePassword`
 * (MAC, certificate bags) and the key with `keyPassword` (Kafka: ssl.key.password, else the store
 * password). The entry's certificate is the one whose localKeyId matches the key's, else the one
 * whose public key is the key's; the chain follows issuers through the other certificates. Unlike
 * Node's pfx loading, no certificate of the store is trusted.
 */
export function pkcs12KeyEntry(pfx: Buffer, storePassword: string, keyPassword: string): Pkcs12KeyEntry {
  const bags = safeBags(pfx, storePassword);
  const keyBag = bags.find((b) => b.id === OID.keyBag || b.id === OID.shroudedKeyBag);
  if (!keyBag) throw new Pkcs12StoreError('the store has no private key entry');
  let pkcs8: Buffer;
  if (keyBag.id === OID.keyBag) {
    pkcs8 = keyBag.value.raw;
  } else {
    const [alg, enc] = children(keyBag.value);
    try {
      pkcs8 = decryptPbe(alg!, octets(enc!), keyPassword, 'private keys');
    } catch (e) {
      if (e instanceof Pkcs12StoreError) throw e;
      throw new Pkcs12KeyPasswordError('Get Key failed: the private key could not be decrypted with the key password');
    }
  }
  let key: KeyObject;
  try {
    key = crypto().createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  } catch {
    // a wrong password that happened to leave valid padding
    throw new Pkcs12KeyPasswordError('Get Key failed: the private key could not be decrypted with the key password');
  }
  const certs: { bag: SafeBag; cert: X509Certificate }[] = [];
  for (const bag of bags) {
    const cert = certificateOf(bag);
    if (cert) certs.push({ bag, cert });
  }
  const kid = keyBag.localKeyId;
  const spki = (k: KeyObject): Buffer => k.export({ format: 'der', type: 'spki' });
  const pub = spki(crypto().createPublicKey(key));
  const leaf =
    (kid && certs.find((c) => c.bag.localKeyId?.equals(kid))) ?? certs.find((c) => spki(c.cert.publicKey).equals(pub));
  if (!leaf) throw new Pkcs12StoreError('the store has no certificate for its private key');
  const chain = [leaf.cert];
  const rest = certs.filter((c) => c !== leaf).map((c) => c.cert);
  for (;;) {
    const last = chain[chain.length - 1]!;
    if (last.issuer === last.subject && last.checkIssued(last)) break;
    const i = rest.findIndex((c) => last.checkIssued(c));
    if (i < 0) break;
    chain.push(rest.splice(i, 1)[0]!);
  }
  return {
    key,
    chain: chain.map((c) => c.toString()),
    alias: leaf.bag.alias ?? keyBag.alias,
    certificates: certs.map(({ bag, cert }) => ({
      pem: cert.toString(),
      alias: bag.alias,
      keyed: bag.localKeyId !== null,
    })),
  };
}
