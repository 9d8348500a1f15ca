// The two time formats of --reset-offsets: Kafka's Utils.getDateTime (`yyyy-MM-dd'T'HH:mm:ss.SSS`
// with an optional zone, UTC when absent, parsed strictly like a non-lenient SimpleDateFormat) and
// java.time.Duration.parse (ISO-8601 `PnDTnHnMn.nS`). Failures carry Kafka's messages.
import { CommandError } from './format.js';

const UNPARSEABLE = (s: string): CommandError => new CommandError(`java.text.ParseException: Unparseable date: "${s}"`);

/** Milliseconds since the epoch for Kafka's --to-datetime value. */
export function parseDateTime(value: string): bigint {
  const parts = value.split('T');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 2) {
    throw new CommandError(
      "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format",
    );
  }
  const second = parts[1]!;
  const ts = second.includes('+') || second.includes('-') || second.includes('Z') ? value : `${value}Z`;
  // SimpleDateFormat parses a prefix: trailing text after the zone is ignored.
  const m = /^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d+)(Z|[+-]\d{2}(?::?\d{2})?)/.exec(ts);
  if (!m) throw UNPARSEABLE(ts);
  const [year, month, day, hour, minute, sec, millis] = m.slice(1, 8).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zone = m[8]!;
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysIn || hour > 23 || minute > 59 || sec > 59 || millis > 999)
    throw UNPARSEABLE(ts);
  let offsetMin = 0;
  if (zone !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    const h = Number(z[2]);
    const mm = Number(z[3] ?? '0');
    if (h > 23 || mm > 59) throw UNPARSEABLE(ts);
    offsetMin = (z[1] === '-' ? -1 : 1) * (h * 60 + mm);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, sec, millis);
  if (year < 100) {
    // Date.UTC maps years 0-99 to 1900-1999.
    const d = new Date(utc);
    d.setUTCFullYear(year);
    return BigInt(d.getTime() - offsetMin * 60_000);
  }
  return BigInt(utc - offsetMin * 60_000);
}

/** java.time.Duration.parse, in milliseconds (nanoseconds truncated). */
export function parseDuration(value: string): bigint {
  const m = /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i.exec(
    value,
  );
  if (
    !m ||
    (m[2] === undefined && m[3] === undefined) ||
    (m[3] !== undefined && m[4] === undefined && m[5] === undefined && m[6] === undefined) ||
    m[3]?.toUpperCase() === 'T'
  ) {
    throw new CommandError('Text cannot be parsed to a Duration');
  }
  const n = (s: string | undefined): bigint => (s === undefined ? 0n : BigInt(s));
  const secNeg = (m[6] ?? '').startsWith('-');
  const frac = m[7] ? BigInt(m[7].padEnd(9, '0')) / 1_000_000n : 0n;
  let ms = n(m[2]) * 86_400_000n + n(m[4]) * 3_600_000n + n(m[5]) * 60_000n + n(m[6]) * 1000n + (secNeg ? -frac : frac);
  if (m[1] === '-') ms = -ms;
  return ms;
}
