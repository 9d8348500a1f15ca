// Java's number and date formatting as the perf tools print it: `%.Nf` / `%f` (java.util.Formatter:
// HALF_UP rounding of the double's shortest decimal form, so 1.005 → "1.01" where JavaScript's
// toFixed gives "1.00") and a java.text.SimpleDateFormat subset for --date-format.

/** The plain decimal digits of a non-negative finite double's shortest representation. */
function plainDecimal(x: number): { int: string; frac: string } {
  const s = x.toString();
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(s);
  if (!m) return { int: '0', frac: '' };
  let digits = m[1]! + (m[2] ?? '');
  let point = m[1]!.length + Number(m[3] ?? 0);
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits = digits.padEnd(point, '0');
  return { int: digits.slice(0, point).replace(/^0+(?=\d)/, ''), frac: digits.slice(point) };
}

/** `String.format("%.<n>f", x)` for a double. */
export function javaFixed(x: number, n: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  const neg = x < 0 || Object.is(x, -0);
  const { int, frac } = plainDecimal(Math.abs(x));
  let kept = int + frac.slice(0, n).padEnd(n, '0');
  if (frac.length > n && frac.charCodeAt(n) >= 53 /* '5' */) {
    const ds = kept.split('').map(Number);
    let i = ds.length - 1;
    for (; i >= 0; i--) {
      if (ds[i]! < 9) {
        ds[i]!++;
        break;
      }
      ds[i] = 0;
    }
    kept = (i < 0 ? '1' : '') + ds.join('');
  }
  const intPart = kept.slice(0, kept.length - n) || '0';
  const body = n > 0 ? `${intPart}.${kept.slice(kept.length - n)}` : intPart;
  return neg ? `-${body}` : body;
}

/** `%f`: six decimals. */
export const javaF = (x: number): string => javaFixed(x, 6);

const pad = (n: number, w: number): string => String(n).padStart(w, '0');
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Thrown for a pattern SimpleDateFormat rejects (`Illegal pattern character 'x'`). */
export class DatePatternError extends Error {
  override name = 'IllegalArgumentException';
}

/**
 * A java.text.SimpleDateFormat for the letters tools use (y M d H h k K m s S E a z Z X and
 * quoted text), in the local time zone.
 */
export function simpleDateFormat(pattern: string): (ms: number) => string {
  type Part = { lit: string } | { letter: string; count: number };
  const parts: Part[] = [];
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        parts.push({ lit: "'" });
        i += 2;
        continue;
      }
      if (end < 0) throw new DatePatternError('Unterminated quote');
      parts.push({ lit: pattern.slice(i + 1, end).replace(/''/g, "'") });
      i = end + 1;
    } else if (/[A-Za-z]/.test(c)) {
      if (!/[GyYMLwWDdFEuaHkKhmsSzZX]/.test(c)) throw new DatePatternError(`Illegal pattern character '${c}'`);
      let j = i;
      while (pattern[j] === c) j++;
      parts.push({ letter: c, count: j - i });
      i = j;
    } else {
      parts.push({ lit: c });
      i++;
    }
  }
  return (ms: number): string => {
    const d = new Date(ms);
    const off = -d.getTimezoneOffset();
    const sign = off >= 0 ? '+' : '-';
    const oh = Math.floor(Math.abs(off) / 60);
    const om = Math.abs(off) % 60;
    return parts
      .map((p) => {
        if ('lit' in p) return p.lit;
        const n = p.count;
        switch (p.letter) {
          case 'y':
          case 'Y':
          case 'u':
            return n === 2 ? pad(d.getFullYear() % 100, 2) : pad(d.getFullYear(), n);
          case 'M':
          case 'L':
            return n >= 4
              ? MONTHS[d.getMonth()]!
              : n === 3
                ? MONTHS[d.getMonth()]!.slice(0, 3)
                : pad(d.getMonth() + 1, n);
          case 'd':
            return pad(d.getDate(), n);
          case 'D': {
            const start = new Date(d.getFullYear(), 0, 1).getTime();
            return pad(Math.floor((ms - start) / 86_400_000) + 1, n);
          }
          case 'E':
            return n >= 4 ? DAYS[d.getDay()]! : DAYS[d.getDay()]!.slice(0, 3);
          case 'a':
            return d.getHours() < 12 ? 'AM' : 'PM';
          case 'H':
            return pad(d.getHours(), n);
          case 'k':
            return pad(d.getHours() === 0 ? 24 : d.getHours(), n);
          case 'K':
            return pad(d.getHours() % 12, n);
          case 'h':
            return pad(d.getHours() % 12 === 0 ? 12 : d.getHours() % 12, n);
          case 'm':
            return pad(d.getMinutes(), n);
          case 's':
            return pad(d.getSeconds(), n);
          case 'S':
            return pad(d.getMilliseconds(), n);
          case 'z':
            return `GMT${sign}${pad(oh, 2)}:${pad(om, 2)}`;
          case 'Z':
            return `${sign}${pad(oh, 2)}${pad(om, 2)}`;
          case 'X':
            return off === 0
              ? 'Z'
              : n === 1
                ? `${sign}${pad(oh, 2)}`
                : n === 2
                  ? `${sign}${pad(oh, 2)}${pad(om, 2)}`
                  : `${sign}${pad(oh, 2)}:${pad(om, 2)}`;
          default:
            return '';
        }
      })
      .join('');
  };
}
