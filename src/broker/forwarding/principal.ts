// The client principal and address carried in an Envelope (KIP-590): DefaultKafkaPrincipalBuilder's
// KafkaPrincipalSerde writes DefaultPrincipalData with an int16 version prefix
// (MessageUtil.toVersionPrefixedBytes); the address is InetAddress.getAddress() (4 or 16 bytes).
import { isIP } from 'node:net';
import { Reader } from '../../protocol/codec/reader.js';
import { Writer } from '../../protocol/codec/writer.js';
import {
  readDefaultPrincipalData,
  writeDefaultPrincipalData,
  type DefaultPrincipalData,
} from '../../protocol/generated/protocol/DefaultPrincipalData.js';

export interface KafkaPrincipal {
  readonly type: string;
  readonly name: string;
  readonly tokenAuthenticated: boolean;
}

/** KafkaPrincipal.ANONYMOUS: what a PLAINTEXT connection authenticates as. */
export const ANONYMOUS: KafkaPrincipal = { type: 'User', name: 'ANONYMOUS', tokenAuthenticated: false };

const PRINCIPAL_DATA_VERSION = 0;

export function serializePrincipal(p: KafkaPrincipal): Buffer {
  const w = new Writer(64);
  w.int16(PRINCIPAL_DATA_VERSION);
  writeDefaultPrincipalData(w, PRINCIPAL_DATA_VERSION, p);
  return w.toBuffer();
}

/** DefaultKafkaPrincipalBuilder.deserialize; throws on bytes it cannot read. */
export function deserializePrincipal(bytes: Buffer): KafkaPrincipal {
  const r = new Reader(bytes);
  const version = r.int16();
  if (version !== PRINCIPAL_DATA_VERSION) throw new Error(`unsupported DefaultPrincipalData version ${version}`);
  const d: DefaultPrincipalData = readDefaultPrincipalData(r, version);
  return { type: d.type, name: d.name, tokenAuthenticated: d.tokenAuthenticated };
}

/** The bytes of an IP address as InetAddress.getAddress() gives them (an IPv4-mapped IPv6 address as IPv4). */
export function addressBytes(address: string): Buffer {
  const a = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  if (isIP(a) === 4) return Buffer.from(a.split('.').map(Number));
  if (isIP(a) === 6) {
    const [head, tail] = a.includes('::') ? a.split('::') : [a, ''];
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
    const out = Buffer.alloc(16);
    groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
    return out;
  }
  throw new Error(`not an IP address: ${address}`);
}

/** InetAddress.getByAddress: 4 or 16 bytes, as text; throws on any other length. */
export function addressFromBytes(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length === 16) {
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    return groups.join(':');
  }
  throw new Error(`addr is of illegal length ${bytes.length}`);
}
