// CRC-32C (Castagnoli; v2 record batches, producer snapshots) and CRC-32 (IEEE; legacy magic 0/1
// messages). Both return the checksum as an unsigned 32-bit number.
//
// Implementations, in order of preference:
//   CRC-32C: @node-rs/crc32 (native, SSE4.2/ARMv8 CRC instructions) -> crc-32/crc32c.js (pure JS,
//            slice-by-16 tables).
//   CRC-32:  @node-rs/crc32 -> node:zlib crc32 (Node >= 20.15) -> crc-32 (pure JS).
// The native module is optional: if it fails to load (unsupported platform, missing optional
// dependency) the pure-JS fallback is used transparently. Setting TKAFKA_CRC=js forces the fallback.
//
// All functions take (buf, start, end) and compute over a subarray view: no bytes are copied.
// `initial` chains a computation: crc(b, 0, n) === crc(b, k, n, crc(b, 0, k)).

import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';

const require = createRequire(import.meta.url);

type CrcFn = (data: Uint8Array, initial?: number) => number;
interface SheetJsCrc {
  buf(data: Uint8Array, seed?: number): number;
}

let nativeCrc32c: CrcFn | null = null;
let nativeCrc32: CrcFn | null = null;
if (process.env.TKAFKA_CRC !== 'js') {
  try {
    const mod = require('@node-rs/crc32') as { crc32c: CrcFn; crc32: CrcFn };
    // Sanity-check the binding before trusting it.
    const probe = Buffer.from('123456789', 'latin1');
    if (mod.crc32c(probe) >>> 0 === 0xe3069283 && mod.crc32(probe) >>> 0 === 0xcbf43926) {
      nativeCrc32c = mod.crc32c;
      nativeCrc32 = mod.crc32;
    }
  } catch {
    // fall through to the JS implementation
  }
}

// crc-32 is CommonJS; the sub-path needs the explicit `.js` suffix under ESM resolution.
const jsCrc32cImpl = require('crc-32/crc32c.js') as SheetJsCrc;
const jsCrc32Impl = require('crc-32') as SheetJsCrc;

const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** Which CRC-32C implementation is in use. */
export const crcImplementation: 'native' | 'js' = nativeCrc32c !== null ? 'native' : 'js';

// Below this many bytes the JS table loop beats the N-API call overhead (measured crossover
// ~256 bytes on x64: 64 B native 148 ns vs JS 70 ns; 512 B native 209 ns vs JS 276 ns).
const NATIVE_THRESHOLD = 256;

function view(buf: Uint8Array, start: number, end: number): Uint8Array {
  return start === 0 && end === buf.length ? buf : buf.subarray(start, end);
}

/** Pure-JS CRC-32C over buf[start, end). Always available; exported for tests and benchmarks. */
export function crc32cJs(buf: Uint8Array, start = 0, end = buf.length, initial = 0): number {
  return jsCrc32cImpl.buf(view(buf, start, end), initial | 0) >>> 0;
}

/** Pure-JS CRC-32 (IEEE) over buf[start, end). */
export function crc32Js(buf: Uint8Array, start = 0, end = buf.length, initial = 0): number {
  return jsCrc32Impl.buf(view(buf, start, end), initial | 0) >>> 0;
}

/** CRC-32C (Castagnoli) of buf[start, end), as uint32. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length, initial = 0): number {
  if (nativeCrc32c !== null && end - start >= NATIVE_THRESHOLD) {
    return nativeCrc32c(view(buf, start, end), initial >>> 0) >>> 0;
  }
  return jsCrc32cImpl.buf(view(buf, start, end), initial | 0) >>> 0;
}

/** CRC-32 (IEEE 802.3 / zlib) of buf[start, end), as uint32. Used by legacy magic 0/1 messages. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length, initial = 0): number {
  if (end - start >= NATIVE_THRESHOLD) {
    if (nativeCrc32 !== null) return nativeCrc32(view(buf, start, end), initial >>> 0) >>> 0;
    if (zlibCrc32 !== undefined) return zlibCrc32(view(buf, start, end), initial >>> 0) >>> 0;
  }
  return jsCrc32Impl.buf(view(buf, start, end), initial | 0) >>> 0;
}
