// Kafka's LineMessageReader: one record per input line, laid out as
// `[headers<headers.delimiter>][key<key.separator>]value` with headers `k1:v1,k2:v2`
// (headers.separator is a regular expression), null.marker for null keys/values/header values,
// ignore.error, and Kafka's configuration checks and error messages. tkafka adds key.encoding,
// value.encoding and headers.encoding (text, base64, hex) so binary records can be produced.
export type Encoding = 'text' | 'base64' | 'hex';

export class ReaderError extends Error {
  override name = 'ReaderError';
}

export interface ReaderConfig {
  topic: string;
  parseKey: boolean;
  keySeparator: string;
  parseHeaders: boolean;
  headersDelimiter: string;
  headersSeparator: RegExp;
  headersKeySeparator: string;
  ignoreError: boolean;
  nullMarker: string | null;
  keyEncoding: Encoding;
  valueEncoding: Encoding;
  headersEncoding: Encoding;
}

export interface ParsedRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
}

function encodingOf(v: string | undefined, prop: string): Encoding {
  if (v === undefined) return 'text';
  const x = v.trim().toLowerCase();
  if (x === 'text' || x === 'utf8' || x === 'utf-8') return 'text';
  if (x === 'base64' || x === 'hex') return x;
  throw new ReaderError(`Invalid value '${v}' for ${prop}: expected text, base64 or hex`);
}

/** Java regex → JavaScript (the common subset Kafka users put in headers.separator). */
function javaRegex(s: string): RegExp {
  try {
    return new RegExp(
      s.replace(/\\Q([\s\S]*?)(?:\\E|$)/g, (_m, q: string) => q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
      'g',
    );
  } catch (e) {
    throw new ReaderError(`Invalid headers.separator regular expression '${s}': ${(e as Error).message}`);
  }
}

/** LineMessageReader.configure. */
export function readerConfig(props: Map<string, string>): ReaderConfig {
  const bool = (k: string): boolean => (props.get(k) ?? '').trim().toLowerCase() === 'true';
  const keySeparator = props.get('key.separator') ?? '\t';
  const headersDelimiter = props.get('headers.delimiter') ?? '\t';
  const headersSeparator = props.get('headers.separator') ?? ',';
  const headersKeySeparator = props.get('headers.key.separator') ?? ':';
  const pattern = javaRegex(headersSeparator);
  if (headersDelimiter === headersSeparator)
    throw new ReaderError('headers.delimiter and headers.separator may not be equal');
  if (headersDelimiter === headersKeySeparator)
    throw new ReaderError('headers.delimiter and headers.key.separator may not be equal');
  if (headersSeparator === headersKeySeparator)
    throw new ReaderError('headers.separator and headers.key.separator may not be equal');
  const nullMarker = props.has('null.marker') ? props.get('null.marker')! : null;
  if (keySeparator === nullMarker) throw new ReaderError('null.marker and key.separator may not be equal');
  if (headersSeparator === nullMarker) throw new ReaderError('null.marker and headers.separator may not be equal');
  if (headersDelimiter === nullMarker) throw new ReaderError('null.marker and headers.delimiter may not be equal');
  if (headersKeySeparator === nullMarker)
    throw new ReaderError('null.marker and headers.key.separator may not be equal');
  return {
    topic: props.get('topic')!,
    parseKey: bool('parse.key'),
    keySeparator,
    parseHeaders: bool('parse.headers'),
    headersDelimiter,
    headersSeparator: pattern,
    headersKeySeparator,
    ignoreError: bool('ignore.error'),
    nullMarker,
    keyEncoding: encodingOf(props.get('key.encoding'), 'key.encoding'),
    valueEncoding: encodingOf(props.get('value.encoding'), 'value.encoding'),
    headersEncoding: encodingOf(props.get('headers.encoding'), 'headers.encoding'),
  };
}

function bytes(s: string, e: Encoding, what: string, lineNumber: number): Buffer {
  if (e === 'text') return Buffer.from(s, 'utf8');
  const ok =
    e === 'hex'
      ? /^([0-9a-fA-F]{2})*$/.test(s)
      : /^[A-Za-z0-9+/_-]*={0,2}$/.test(s) && s.replace(/=+$/, '').length % 4 !== 1;
  if (!ok) throw new ReaderError(`Invalid ${e} ${what} on line number ${lineNumber}: '${s}'`);
  return Buffer.from(s, e);
}

/** Java's Pattern.split: trailing empty strings removed; a leading empty string kept unless the match is zero-width at 0. */
function javaPatternSplit(s: string, re: RegExp): string[] {
  const out: string[] = [];
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (m[0].length === 0) {
      if (m.index >= s.length) break;
      re.lastIndex++;
      if (m.index === 0) continue;
    }
    out.push(s.slice(last, m.index));
    last = m.index + m[0].length;
  }
  out.push(s.slice(last));
  while (out.length > 1 && out[out.length - 1] === '') out.pop();
  if (out.length === 1 && out[0] === '' && s.length === 0) return [''];
  return out;
}

/** One line → one record (LineMessageReader.readRecords). */
export function parseLine(c: ReaderConfig, line: string, lineNumber: number): ParsedRecord {
  const part = (enabled: boolean, start: number, demarcation: string, name: string): string | null => {
    if (!enabled) return null;
    const i = line.indexOf(demarcation, start);
    if (i === -1) {
      if (c.ignoreError) return null;
      throw new ReaderError(`No ${name} found on line number ${lineNumber}: '${line}'`);
    }
    return line.slice(start, i);
  };
  const headers = part(c.parseHeaders, 0, c.headersDelimiter, 'headers delimiter');
  const headerOffset = headers === null ? 0 : headers.length + c.headersDelimiter.length;
  const key = part(c.parseKey, headerOffset, c.keySeparator, 'key separator');
  const keyOffset = key === null ? 0 : key.length + c.keySeparator.length;
  const value = line.slice(headerOffset + keyOffset);
  const record: ParsedRecord = {
    key: key !== null && key !== c.nullMarker ? bytes(key, c.keyEncoding, 'key', lineNumber) : null,
    value: value !== c.nullMarker ? bytes(value, c.valueEncoding, 'value', lineNumber) : null,
    headers: [],
  };
  if (headers !== null && headers !== c.nullMarker) {
    for (const pair of javaPatternSplit(headers, c.headersSeparator)) {
      const i = pair.indexOf(c.headersKeySeparator);
      if (i === -1) {
        if (c.ignoreError) {
          record.headers.push({ key: pair, value: null });
          continue;
        }
        throw new ReaderError(`No header key separator found in pair '${pair}' on line number ${lineNumber}`);
      }
      const hk = pair.slice(0, i);
      if (hk === c.nullMarker)
        throw new ReaderError(
          `Header keys should not be equal to the null marker '${c.nullMarker}' as they can't be null`,
        );
      const hv = pair.slice(i + c.headersKeySeparator.length);
      record.headers.push({
        key: hk,
        value: hv === c.nullMarker ? null : bytes(hv, c.headersEncoding, 'header value', lineNumber),
      });
    }
  }
  return record;
}

/** Lines of a stream as Java's BufferedReader.readLine splits them (`\n`, `\r` or `\r\n`), decoded as UTF-8. */
export async function* readLines(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let buf = '';
  let pendingCR = false;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    if (pendingCR && buf.startsWith('\n')) start = 1;
    pendingCR = false;
    for (let i = start; i < buf.length; i++) {
      const ch = buf[i];
      if (ch !== '\n' && ch !== '\r') continue;
      yield buf.slice(start, i);
      if (ch === '\r') {
        if (i + 1 < buf.length) {
          if (buf[i + 1] === '\n') i++;
        } else pendingCR = true;
      }
      start = i + 1;
    }
    buf = buf.slice(start);
  }
  buf += decoder.decode();
  if (buf.length > 0) yield buf;
}
