// SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka implements them: the key derivation
// of ScramFormatter and the four messages of ScramMessages (with Kafka's extensions, e.g.
// tokenauth=true). Both sides use this module: the client's SaslAuthenticate exchange, the broker's
// authenticator, and the tools and controller that turn a password into a UserScramCredentialRecord.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface ScramMechanism {
  readonly name: ScramMechanismName;
  /** Node's digest name. */
  readonly hash: 'sha256' | 'sha512';
  /** The digest length in bytes (the salted password's length). */
  readonly keyLength: number;
  /** Kafka's ScramMechanism.minIterations. */
  readonly minIterations: number;
  /** The mechanism's type in AlterUserScramCredentials / UserScramCredentialRecord. */
  readonly type: 1 | 2;
}

export const SCRAM_MECHANISMS: readonly ScramMechanism[] = [
  { name: 'SCRAM-SHA-256', hash: 'sha256', keyLength: 32, minIterations: 4096, type: 1 },
  { name: 'SCRAM-SHA-512', hash: 'sha512', keyLength: 64, minIterations: 4096, type: 2 },
];

/** Kafka's ScramMechanism.forMechanismName; undefined for anything else. */
export function scramMechanism(name: string): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

export function scramMechanismByType(type: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type);
}

/** What a server stores for one user and mechanism (Kafka's ScramCredential). */
export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

const hmac = (m: ScramMechanism, key: Buffer, data: Buffer | string): Buffer =>
  createHmac(m.hash, key).update(data).digest();

const hash = (m: ScramMechanism, data: Buffer): Buffer => createHash(m.hash).update(data).digest();

function xor(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new Error('Argument arrays must be of the same length');
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** Hi(password, salt, i) of RFC 5802, which is PBKDF2 with the mechanism's HMAC. */
export function saltedPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash);
}

export const clientKey = (m: ScramMechanism, salted: Buffer): Buffer => hmac(m, salted, 'Client Key');
export const serverKey = (m: ScramMechanism, salted: Buffer): Buffer => hmac(m, salted, 'Server Key');
export const storedKey = (m: ScramMechanism, ck: Buffer): Buffer => hash(m, ck);

/** The credential a server keeps, from a salted password (what AlterUserScramCredentials carries). */
export function credentialFromSaltedPassword(
  m: ScramMechanism,
  salt: Buffer,
  salted: Buffer,
  iterations: number,
): ScramCredential {
  return { salt, storedKey: storedKey(m, clientKey(m, salted)), serverKey: serverKey(m, salted), iterations };
}

/** A new credential for a password, with a random salt (Kafka's ScramFormatter.generateCredential). */
export function generateCredential(
  m: ScramMechanism,
  password: string,
  iterations: number,
  salt: Buffer = randomBytes(m.keyLength),
): ScramCredential {
  return credentialFromSaltedPassword(m, salt, saltedPassword(m, password, salt, iterations), iterations);
}

/** A nonce as Kafka's ScramFormatter.secureRandomString: 130 random bits in base 36. */
export function secureNonce(): string {
  return BigInt(`0x${randomBytes(17).toString('hex')}`)
    .toString(36)
    .slice(0, 26);
}

/** saslname escaping of RFC 5802 section 5.1. */
export const saslName = (username: string): string => username.replace(/=/g, '=3D').replace(/,/g, '=2C');
export const username = (name: string): string => name.replace(/=2C/g, ',').replace(/=3D/g, '=');

// ScramMessages' regular expressions (Java's [\x01-\x7F&&[^=,]] written out).
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+';
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+';
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const BASE64 = '(?:[a-zA-Z0-9/+]{4})*(?:[a-zA-Z0-9/+]{3}=|[a-zA-Z0-9/+]{2}==)?';
const RESERVED = `(?:m=${VALUE},)?`;
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`;

export class ScramFormatError extends Error {
  override name = 'SaslException';
}

function parseExtensions(s: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const kv of s.split(',')) {
    if (kv === '') continue;
    const i = kv.indexOf('=');
    out.set(kv.slice(0, i), kv.slice(i + 1));
  }
  return out;
}

export interface ClientFirstMessage {
  /** The authorization id of the gs2 header ('' when absent). */
  readonly authorizationId: string;
  /** The escaped saslname. */
  readonly saslName: string;
  readonly nonce: string;
  readonly extensions: ReadonlyMap<string, string>;
}

const CLIENT_FIRST = new RegExp(
  `^n,(?:a=(?<authzid>${SASLNAME}))?,${RESERVED}n=(?<saslname>${SASLNAME}),r=(?<nonce>${PRINTABLE})(?<ext>${EXTENSIONS})$`,
);

export function parseClientFirst(message: string): ClientFirstMessage {
  const m = CLIENT_FIRST.exec(message);
  if (!m?.groups) throw new ScramFormatError(`Invalid SCRAM client first message format: ${message}`);
  return {
    authorizationId: m.groups['authzid'] ?? '',
    saslName: m.groups['saslname']!,
    nonce: m.groups['nonce']!,
    extensions: parseExtensions(m.groups['ext']!),
  };
}

export const gs2Header = (authorizationId: string): string => `n,${authorizationId},`;

export function clientFirstBare(msg: Pick<ClientFirstMessage, 'saslName' | 'nonce' | 'extensions'>): string {
  const ext = [...msg.extensions].map(([k, v]) => `${k}=${v}`).join(',');
  return ext === '' ? `n=${msg.saslName},r=${msg.nonce}` : `n=${msg.saslName},r=${msg.nonce},${ext}`;
}

export const formatClientFirst = (msg: ClientFirstMessage): string =>
  gs2Header(msg.authorizationId) + clientFirstBare(msg);

export interface ServerFirstMessage {
  /** The client nonce followed by the server's. */
  readonly nonce: string;
  readonly salt: Buffer;
  readonly iterations: number;
}

const SERVER_FIRST = new RegExp(
  `^${RESERVED}r=(?<nonce>${PRINTABLE}),s=(?<salt>${BASE64}),i=(?<iterations>[0-9]+)${EXTENSIONS}$`,
);

export function parseServerFirst(message: string): ServerFirstMessage {
  const m = SERVER_FIRST.exec(message);
  if (!m?.groups) throw new ScramFormatError(`Invalid SCRAM server first message format: ${message}`);
  const iterations = Number(m.groups['iterations']);
  if (!Number.isSafeInteger(iterations) || iterations > 2147483647)
    throw new ScramFormatError('Invalid SCRAM server first message format: invalid iterations');
  if (iterations <= 0)
    throw new ScramFormatError(`Invalid SCRAM server first message format: invalid iterations ${iterations}`);
  return { nonce: m.groups['nonce']!, salt: Buffer.from(m.groups['salt']!, 'base64'), iterations };
}

export const formatServerFirst = (msg: ServerFirstMessage): string =>
  `r=${msg.nonce},s=${msg.salt.toString('base64')},i=${msg.iterations}`;

export interface ClientFinalMessage {
  readonly channelBinding: Buffer;
  readonly nonce: string;
  readonly proof: Buffer;
}

const CLIENT_FINAL = new RegExp(
  `^c=(?<channel>${BASE64}),r=(?<nonce>${PRINTABLE})${EXTENSIONS},p=(?<proof>${BASE64})$`,
);

export function parseClientFinal(message: string): ClientFinalMessage {
  const m = CLIENT_FINAL.exec(message);
  if (!m?.groups) throw new ScramFormatError(`Invalid SCRAM client final message format: ${message}`);
  return {
    channelBinding: Buffer.from(m.groups['channel']!, 'base64'),
    nonce: m.groups['nonce']!,
    proof: Buffer.from(m.groups['proof']!, 'base64'),
  };
}

/** The client-final message without its proof (part of the auth message). */
export const clientFinalWithoutProof = (channelBinding: Buffer, nonce: string): string =>
  `c=${channelBinding.toString('base64')},r=${nonce}`;

export const formatClientFinal = (msg: ClientFinalMessage): string =>
  `${clientFinalWithoutProof(msg.channelBinding, msg.nonce)},p=${msg.proof.toString('base64')}`;

export type ServerFinalMessage = { readonly error: string } | { readonly serverSignature: Buffer };

const SERVER_FINAL = new RegExp(`^(?:e=(?<error>${VALUE})|v=(?<signature>${BASE64}))${EXTENSIONS}$`);

export function parseServerFinal(message: string): ServerFinalMessage {
  const m = SERVER_FINAL.exec(message);
  if (!m?.groups) throw new ScramFormatError(`Invalid SCRAM server final message format: ${message}`);
  const error = m.groups['error'];
  return error !== undefined ? { error } : { serverSignature: Buffer.from(m.groups['signature']!, 'base64') };
}

export const formatServerFinal = (msg: ServerFinalMessage): string =>
  'error' in msg ? `e=${msg.error}` : `v=${msg.serverSignature.toString('base64')}`;

/** client-first-bare "," server-first "," client-final-without-proof (RFC 5802's AuthMessage). */
export function authMessage(clientFirst: ClientFirstMessage, serverFirst: string, clientFinalNoProof: string): Buffer {
  return Buffer.from(`${clientFirstBare(clientFirst)},${serverFirst},${clientFinalNoProof}`, 'utf8');
}

/** ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage). */
export function clientProof(m: ScramMechanism, salted: Buffer, auth: Buffer): Buffer {
  const ck = clientKey(m, salted);
  return xor(ck, hmac(m, storedKey(m, ck), auth));
}

/** ServerSignature = HMAC(ServerKey, AuthMessage). */
export const serverSignature = (m: ScramMechanism, sk: Buffer, auth: Buffer): Buffer => hmac(m, sk, auth);

/** The server's check: H(ClientProof XOR HMAC(StoredKey, AuthMessage)) equals StoredKey. */
export function verifyClientProof(m: ScramMechanism, cred: ScramCredential, auth: Buffer, proof: Buffer): boolean {
  if (proof.length !== m.keyLength) return false;
  const computed = hash(m, xor(proof, hmac(m, cred.storedKey, auth)));
  return computed.length === cred.storedKey.length && timingSafeEqual(computed, cred.storedKey);
}
