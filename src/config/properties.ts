// Java `.properties` text: a reader that follows java.util.Properties.load (comments, the three
// key/value separators, line continuations, escapes) and a writer that follows Properties.store
// (header comment, `#<date>` line, escaped keys and values, optional Java hash-table key order).
import { readFileSync, readlinkSync } from 'node:fs';

/** One `key=value` pair in file order (a key may repeat; the last one wins in a map). */
export type PropertyEntry = [key: string, value: string];

/** Thrown for text that Properties.load rejects (only a malformed `\uXXXX` escape). */
export class PropertiesSyntaxError extends Error {
  override name = 'PropertiesSyntaxError';
}

const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\f';

/** Split text into logical lines the way java.util.Properties.LineReader does. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    // Start of a natural line that begins a logical line: skip leading blanks.
    while (i < n && isBlank(text[i])) i++;
    if (i >= n) break;
    const first = text[i];
    if (first === '\n' || first === '\r') {
      i++; // blank line
      continue;
    }
    if (first === '#' || first === '!') {
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      continue; // comment lines never continue, even when they end with a backslash
    }
    let buf = '';
    for (;;) {
      let lineEnd = i;
      while (lineEnd < n && text[lineEnd] !== '\n' && text[lineEnd] !== '\r') lineEnd++;
      const chunk = text.slice(i, lineEnd);
      let backslashes = 0;
      for (let k = chunk.length - 1; k >= 0 && chunk[k] === '\\'; k--) backslashes++;
      // Consume the terminator (\r\n counts as one).
      i = lineEnd;
      if (i < n) {
        if (text[i] === '\r') {
          i++;
          if (i < n && text[i] === '\n') i++;
        } else {
          i++;
        }
      }
      if (backslashes % 2 === 1) {
        buf += chunk.slice(0, -1);
        if (i >= n) break; // a trailing backslash at end of input is dropped
        while (i < n && isBlank(text[i])) i++; // continuation lines lose their leading blanks
        continue;
      }
      buf += chunk;
      break;
    }
    out.push(buf);
  }
  return out;
}

/** Undo Properties escapes: \t \n \r \f, \uXXXX, and `\x` → `x` for anything else. */
export function unescapeProperties(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    i++;
    if (i >= s.length) break;
    const e = s[i];
    if (e === 'u') {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new PropertiesSyntaxError('Malformed \\uxxxx encoding.');
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else if (e === 't') out += '\t';
    else if (e === 'n') out += '\n';
    else if (e === 'r') out += '\r';
    else if (e === 'f') out += '\f';
    else out += e;
  }
  return out;
}

/** Parse `.properties` text into entries in file order. */
export function parsePropertiesEntries(text: string): PropertyEntry[] {
  const entries: PropertyEntry[] = [];
  for (const line of logicalLines(text)) {
    const limit = line.length;
    let keyLen = 0;
    let valueStart = limit;
    let hasSep = false;
    let precedingBackslash = false;
    while (keyLen < limit) {
      const c = line[keyLen];
      if ((c === '=' || c === ':') && !precedingBackslash) {
        valueStart = keyLen + 1;
        hasSep = true;
        break;
      } else if (isBlank(c) && !precedingBackslash) {
        valueStart = keyLen + 1;
        break;
      }
      precedingBackslash = c === '\\' ? !precedingBackslash : false;
      keyLen++;
    }
    while (valueStart < limit) {
      const c = line[valueStart];
      if (!isBlank(c)) {
        if (!hasSep && (c === '=' || c === ':')) hasSep = true;
        else break;
      }
      valueStart++;
    }
    entries.push([unescapeProperties(line.slice(0, keyLen)), unescapeProperties(line.slice(valueStart))]);
  }
  return entries;
}

/** Parse `.properties` text into a map (first-seen key order, last value wins). */
export function parseProperties(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [k, v] of parsePropertiesEntries(text)) map.set(k, v);
  return map;
}

/**
 * Read a properties file. Java's Properties.load(InputStream) decodes ISO-8859-1, which is what
 * Kafka's Utils.loadProps and PropertiesUtils.readPropertiesFile use; pass 'utf8' to differ.
 */
export function readPropertiesFile(path: string, encoding: 'latin1' | 'utf8' = 'latin1'): Map<string, string> {
  return parseProperties(readFileSync(path, encoding));
}

/** Escape like Properties.saveConvert: keys escape every space, values only a leading one. */
export function escapeProperties(s: string, isKey: boolean, escapeUnicode = false): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    switch (c) {
      case ' ':
        out += i === 0 || isKey ? '\\ ' : ' ';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\f':
        out += '\\f';
        break;
      case '=':
      case ':':
      case '#':
      case '!':
      case '\\':
        out += '\\' + c;
        break;
      default:
        if ((code < 0x20 || code > 0x7e) && escapeUnicode) {
          out += '\\u' + code.toString(16).toUpperCase().padStart(4, '0');
        } else {
          out += c;
        }
    }
  }
  return out;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Universal', 'Etc/Universal', 'Zulu', 'Etc/Zulu']);
const two = (n: number): string => String(n).padStart(2, '0');

/**
 * The local zone's name when TZ or /etc/localtime names a UTC zone without Intl, else undefined:
 * Intl's first use maps ICU's data, 6 MiB of resident memory in a broker that needs it for this
 * comment line only (README, Memory).
 */
function localUtcZone(): string | undefined {
  const tz = process.env.TZ?.replace(/^:/, '');
  if (tz) return UTC_ZONES.has(tz) ? tz : undefined;
  try {
    const zone = readlinkSync('/etc/localtime').replace(/^.*zoneinfo\//, '');
    return UTC_ZONES.has(zone) ? zone : undefined;
  } catch {
    return undefined;
  }
}

/** java.util.Date.toString(): `EEE MMM dd HH:mm:ss zzz yyyy` in the local time zone. */
export function javaDateString(date: Date, timeZone?: string): string {
  const tz = timeZone ?? localUtcZone() ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
  if (UTC_ZONES.has(tz)) {
    const [d, h, m, s] = [date.getUTCDate(), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()];
    const day = `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${two(d)}`;
    return `${day} ${two(h)}:${two(m)}:${two(s)} UTC ${date.getUTCFullYear()}`;
  }
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    weekday: 'short',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    year: 'numeric',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(date);
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
  const zone = get('timeZoneName');
  const dow = DAYS.includes(get('weekday')) ? get('weekday') : DAYS[date.getDay()];
  const mon = MONTHS.includes(get('month')) ? get('month') : MONTHS[date.getMonth()];
  return `${dow} ${mon} ${get('day')} ${get('hour')}:${get('minute')}:${get('second')} ${zone} ${get('year')}`;
}

/** java.lang.String.hashCode. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The order in which a freshly constructed java.util.Properties (Java 9-17, backed by a
 * ConcurrentHashMap of 16 bins) iterates its keys: by bin, then insertion order within a bin.
 * Java 18+ sorts keys in Properties.store instead; Kafka 4 commonly runs on 17.
 */
export function javaPropertiesOrder(keys: string[]): string[] {
  let bins = 16;
  while (keys.length > bins - (bins >>> 2)) bins *= 2; // approximate growth for large maps
  const bin = (k: string): number => {
    const h = javaStringHash(k);
    return (h ^ (h >>> 16)) & 0x7fffffff & (bins - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bin(k) }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((e) => e.k);
}

export interface StoreOptions {
  /** Header comment; `''` writes a bare `#` line (what Kafka passes), undefined writes none. */
  comment?: string;
  /** Date for the `#<date>` line; null omits it. Default: now. */
  date?: Date | null;
  /** Key order: as given, sorted, or the Java 17 Properties hash order. Default 'java'. */
  order?: 'insertion' | 'sorted' | 'java';
  /** Escape characters outside 0x20..0x7e as \uXXXX (Properties.store(OutputStream) does). */
  escapeUnicode?: boolean;
  timeZone?: string;
}

/** Render entries as Properties.store would (lines end with `\n`). */
export function formatProperties(
  entries: Iterable<PropertyEntry> | Map<string, string>,
  opts: StoreOptions = {},
): string {
  const map = new Map<string, string>(entries instanceof Map ? entries : [...entries]);
  let keys = [...map.keys()];
  const order = opts.order ?? 'java';
  if (order === 'sorted') keys = keys.sort();
  else if (order === 'java') keys = javaPropertiesOrder(keys);
  let out = '';
  if (opts.comment !== undefined) {
    out += '#' + opts.comment.replace(/\r\n|\r|\n/g, '\n#') + '\n';
  }
  const date = opts.date === undefined ? new Date() : opts.date;
  if (date !== null) out += '#' + javaDateString(date, opts.timeZone) + '\n';
  for (const k of keys) {
    const esc = opts.escapeUnicode ?? false;
    out += `${escapeProperties(k, true, esc)}=${escapeProperties(map.get(k) ?? '', false, esc)}\n`;
  }
  return out;
}
