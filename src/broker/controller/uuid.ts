// Kafka's Uuid.randomUuid(): a random (v4) UUID in Kafka's text form (URL-safe base64 of the 16
// bytes, no padding), never one of the reserved ids and never starting with '-'.

import { randomUUID } from 'node:crypto';
import { ZERO_UUID } from '../../protocol/uuid.js';

export const ONE_UUID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const RESERVED = new Set([ZERO_UUID, ONE_UUID]);

export function uuidBytesToString(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64url');
}

export function randomUuid(): string {
  for (;;) {
    const s = Buffer.from(randomUUID().replace(/-/g, ''), 'hex').toString('base64url');
    if (!RESERVED.has(s) && !s.startsWith('-')) return s;
  }
}
