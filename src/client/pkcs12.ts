// The certificates of a PKCS12 trust store (what `keytool -importcert -storetype PKCS12` and
// `openssl pkcs12 -export -nokeys` write): Node's createSecureContext({ pfx }) insists on a private
// key, so a certificates-only store is read here with node:crypto. Supported: certificate bags in
// plain or PBES2-encrypted (PBKDF2 with HMAC-SHA1/256/384/512, AES-CBC) contents, the integrity MAC
// (PKCS#12 key derivation with SHA-1/256/384/512) checked against the password. Legacy PBE schemes
// (RC2, 3DES: older keytool and openssl -legacy) are refused with a clear message.
import { createDecipheriv, createHash, createHmac, pbkdf2Sync, timingSafeEqual, X509Certificate } from 'node:crypto';

interface Der {
  tag: number;
  /** The content octets. */
  value: Buffer;
  /** Total encoded length (header + content). */
  size: number;
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
  return { tag, value: buf.subarray(at + hl, at + hl + len), size: hl + len };
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
const AES: Record<string, string> = {
  '2.16.840.1.101.3.4.1.2': 'aes-128-cbc',
  '2.16.840.1.101.3.4.1.22': 'aes-192-cbc',
  '2.16.840.1.101.3.4.1.42': 'aes-256-cbc',
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

/** RFC 7292 appendix B.2 key derivation (id 3: MAC key), password as a NUL-terminated BMPString. */
function pkcs12Kdf(hash: string, v: number, password: string, salt: Buffer, iterations: number, n: number): Buffer {
  const pw = password === '' ? Buffer.alloc(0) : Buffer.from(password + '\0', 'utf16le').swap16();
  const fill = (src: Buffer): Buffer => {
    const len = v * Math.ceil(src.length / v);
    const out = Buffer.alloc(len);
    for (let i = 0; i < len; i++) out[i] = src[i % src.length]!;
    return out;
  };
  const D = Buffer.alloc(v, 3);
  const I = Buffer.concat([salt.length ? fill(salt) : Buffer.alloc(0), pw.length ? fill(pw) : Buffer.alloc(0)]);
  const parts: Buffer[] = [];
  let total = 0;
  while (total < n) {
    let A = createHash(hash).update(D).update(I).digest();
    for (let i = 1; i < iterations; i++) A = createHash(hash).update(A).digest();
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

function decryptPbes2(alg: Der, encrypted: Buffer, password: string): Buffer {
  const [algOid, params] = children(alg);
  if (oid(algOid!) !== OID.pbes2) {
    throw new Error(
      `its contents are encrypted with ${oid(algOid!)}, a legacy scheme tkafka does not read; re-create the store with PBES2/AES (keytool from JDK 17+, or openssl 3 without -legacy)`,
    );
  }
  const [kdf, scheme] = children(params!);
  const [kdfOid, kdfParams] = children(kdf!);
  if (oid(kdfOid!) !== OID.pbkdf2) throw new Error(`unsupported key derivation ${oid(kdfOid!)}`);
  const kp = children(kdfParams!);
  const salt = kp[0]!.value;
  const iterations = int(kp[1]!);
  let prf = 'sha1';
  for (const p of kp.slice(2)) if (p.tag === 0x30) prf = PRF[oid(children(p)[0]!)] ?? '';
  if (prf === '') throw new Error('unsupported PBKDF2 pseudo-random function');
  const [encOid, iv] = children(scheme!);
  const cipher = AES[oid(encOid!)];
  if (!cipher) throw new Error(`unsupported cipher ${oid(encOid!)}`);
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, Number(/\d+/.exec(cipher)![0]) / 8, prf);
  const d = createDecipheriv(cipher, key, iv!.value);
  return Buffer.concat([d.update(encrypted), d.final()]);
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

/** The certificates of a PKCS12 store, with their aliases (same checks as pkcs12Certificates). */
export function pkcs12CertificateEntries(pfx: Buffer, password: string): Pkcs12Certificate[] {
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
    const got = createHmac(d.name, key).update(authSafe).digest();
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new Error('keystore password was incorrect');
    }
  }
  const certs: Pkcs12Certificate[] = [];
  for (const ci of children(readDer(authSafe))) {
    const [type, content] = children(ci);
    let safeContents: Buffer;
    if (oid(type!) === OID.data) {
      safeContents = octets(children(content!)[0]!);
    } else if (oid(type!) === OID.encryptedData) {
      const [, eci] = children(children(content!)[0]!);
      const [, alg, enc] = children(eci!);
      if (!enc) continue;
      safeContents = decryptPbes2(alg!, enc.tag & 0x20 ? octets(enc) : enc.value, password);
    } else {
      continue;
    }
    for (const bag of children(readDer(safeContents))) {
      const [bagId, bagValue, bagAttributes] = children(bag);
      if (oid(bagId!) !== OID.certBag) continue;
      const [certId, certValue] = children(children(bagValue!)[0]!);
      if (oid(certId!) !== OID.x509Certificate) continue;
      const der = octets(children(certValue!)[0]!);
      let alias: string | null = null;
      let keyed = false;
      for (const attr of bagAttributes ? children(bagAttributes) : []) {
        const [attrId, values] = children(attr);
        const id = oid(attrId!);
        if (id === FRIENDLY_NAME) alias = Buffer.from(children(values!)[0]!.value).swap16().toString('utf16le');
        else if (id === LOCAL_KEY_ID) keyed = true;
      }
      certs.push({ pem: new X509Certificate(der).toString(), alias, keyed });
    }
  }
  return certs;
}
