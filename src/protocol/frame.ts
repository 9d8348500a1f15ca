// Framing: size-prefixed requests and responses with their headers, for both the broker
// (decode requests, encode responses) and the client (encode requests, decode responses).
import { Reader } from './codec/reader.js';
import { Writer } from './codec/writer.js';
import { DecodeError, UnsupportedVersionError } from './codec/errors.js';
import type { FramePart, Input } from './codec/types.js';
import { API_SPECS, ApiKey, type ApiSpec } from './generated/apis.js';
import { readRequestHeader, writeRequestHeader, type RequestHeader } from './generated/protocol/RequestHeader.js';
import { readResponseHeader, writeResponseHeader } from './generated/protocol/ResponseHeader.js';

export { API_SPECS, ApiKey, type ApiSpec };

const BY_KEY: (ApiSpec | undefined)[] = [];
for (const s of API_SPECS) BY_KEY[s.key] = s;

export function apiSpec(key: number): ApiSpec | undefined {
  return key >= 0 ? BY_KEY[key] : undefined;
}

export function isFlexible(spec: ApiSpec, version: number): boolean {
  return spec.firstFlexible >= 0 && version >= spec.firstFlexible;
}

/** Request header version for an API version (ControlledShutdown v0 is the one v0 user). */
export function requestHeaderVersion(apiKey: number, version: number): number {
  const spec = apiSpec(apiKey);
  if (apiKey === ApiKey.ControlledShutdown && version === 0) return 0;
  return spec && isFlexible(spec, version) ? 2 : 1;
}

/** Response header version; ApiVersions responses always use v0 (KIP-511). */
export function responseHeaderVersion(apiKey: number, version: number): number {
  if (apiKey === ApiKey.ApiVersions) return 0;
  const spec = apiSpec(apiKey);
  return spec && isFlexible(spec, version) ? 1 : 0;
}

export interface DecodedRequest {
  header: RequestHeader;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** The API's generated request type (`...Request`); narrow it by apiKey. */
  body: unknown;
}

/**
 * Reads only the fixed part of a request header (api key, version, correlation id), which every
 * header version shares, so a server can answer even a request it cannot decode.
 */
export function peekRequestHeader(frame: Buffer): { apiKey: number; apiVersion: number; correlationId: number } {
  if (frame.length < 8) throw new DecodeError(`request of ${frame.length} bytes is shorter than a header`);
  return { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4) };
}

/**
 * Decodes a request frame (without its size prefix). Unknown keys/versions throw UnsupportedVersionError;
 * trailing bytes after the body are ignored (see docs/protocol-differences.md).
 */
export function decodeRequest(frame: Buffer): DecodedRequest {
  const { apiKey, apiVersion } = peekRequestHeader(frame);
  const spec = apiSpec(apiKey);
  if (!spec) throw new UnsupportedVersionError(`unknown API key ${apiKey}`);
  if (apiVersion < spec.minVersion || apiVersion > spec.maxVersion) {
    throw new UnsupportedVersionError(`${spec.name} version ${apiVersion} is not supported`);
  }
  const r = new Reader(frame);
  const header = readRequestHeader(r, requestHeaderVersion(apiKey, apiVersion));
  // Bytes left after the body are ignored, as Kafka does: AbstractRequest.parseRequest reads the
  // body with the generated *Data.read and never checks buffer.remaining() (librdkafka 2.15 sends
  // a few extra bytes after Metadata v12 when it asks for all topics).
  const body = spec.readRequest(r, apiVersion);
  return { header, apiKey, apiVersion, correlationId: header.correlationId, body };
}

/** Encodes a request with its size prefix; the result is a list of buffers (record data by reference). */
export function encodeRequest(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  clientId: string | null,
  body: unknown,
): Buffer[] {
  const spec = apiSpec(apiKey);
  if (!spec) throw new UnsupportedVersionError(`unknown API key ${apiKey}`);
  if (apiVersion < spec.minVersion || apiVersion > spec.maxVersion) {
    throw new UnsupportedVersionError(`${spec.name} version ${apiVersion} is not supported`);
  }
  const w = new Writer(512);
  w.int32(0);
  writeRequestHeader(w, requestHeaderVersion(apiKey, apiVersion), {
    requestApiKey: apiKey,
    requestApiVersion: apiVersion,
    correlationId,
    clientId,
  });
  spec.writeRequest(w, apiVersion, body);
  return finishFrame(w, w.toBuffers());
}

/** Encodes a response with its size prefix, as a list of buffers (its records all in memory). */
export function encodeResponse(apiKey: number, apiVersion: number, correlationId: number, body: unknown): Buffer[] {
  const w = responseWriter(apiKey, apiVersion, correlationId, body);
  return finishFrame(w, w.toBuffers());
}

/**
 * Encodes a response with its size prefix, as buffers and the record bytes still to be read
 * (DeferredBytes), in order: the broker's connection writes it, reading those as it goes.
 */
export function encodeResponseParts(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  body: unknown,
): FramePart[] {
  const w = responseWriter(apiKey, apiVersion, correlationId, body);
  return finishFrame(w, w.toParts());
}

function responseWriter(apiKey: number, apiVersion: number, correlationId: number, body: unknown): Writer {
  const spec = apiSpec(apiKey);
  if (!spec) throw new UnsupportedVersionError(`unknown API key ${apiKey}`);
  const w = new Writer(256);
  w.int32(0);
  writeResponseHeader(w, responseHeaderVersion(apiKey, apiVersion), { correlationId });
  spec.writeResponse(w, apiVersion, body);
  return w;
}

/** A frame's parts as one buffer, deferred bytes read (tests, tools; the broker streams them instead). */
export async function materializeFrame(parts: readonly FramePart[]): Promise<Buffer> {
  const out: Buffer[] = [];
  for (const p of parts) {
    if (Buffer.isBuffer(p)) {
      out.push(p);
      continue;
    }
    const b = Buffer.allocUnsafe(p.length);
    const got = await p.readInto(b, 0, p.length, 0);
    if (got < p.length) throw new Error(`deferred bytes ended after ${got} of ${p.length}`);
    out.push(b);
  }
  return Buffer.concat(out);
}

/** Decodes a response frame (without its size prefix) for a request sent at `apiVersion`. */
export function decodeResponse(
  apiKey: number,
  apiVersion: number,
  frame: Buffer,
): { correlationId: number; body: unknown } {
  const spec = apiSpec(apiKey);
  if (!spec) throw new UnsupportedVersionError(`unknown API key ${apiKey}`);
  const r = new Reader(frame);
  const header = readResponseHeader(r, responseHeaderVersion(apiKey, apiVersion));
  const body = spec.readResponse(r, apiVersion);
  return { correlationId: header.correlationId, body };
}

function finishFrame<P extends FramePart>(w: Writer, parts: P[]): P[] {
  // the size prefix was the first thing written: the first part is always a buffer
  (parts[0] as Buffer).writeInt32BE(w.length - 4, 0);
  return parts;
}

export type { Input };
