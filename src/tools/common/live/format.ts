// Small number formatting shared by the live views (no dependencies, cheap to import).

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function humanBytes(n: number): string {
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${Math.round(v)} B` : `${v.toFixed(1)} ${UNITS[i]}`;
}

/** 1234567 → "1,234,567". */
export function grouped(n: number | bigint): string {
  const s = String(n);
  const neg = s.startsWith('-');
  const digits = neg ? s.slice(1) : s;
  return (neg ? '-' : '') + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Seconds as "1h02m", "3m05s", "12s". */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** A rate with one decimal and a sign when asked ("+12.5/s"). */
export function rate(v: number | null, signed = false): string {
  if (v === null || !Number.isFinite(v)) return '-';
  const t = v.toFixed(1);
  return `${signed && v > 0 ? '+' : ''}${t === '-0.0' ? '0.0' : t}/s`;
}

/** A text bar of `width` cells for a fraction in [0, 1]. */
export function bar(fraction: number, width: number): string {
  const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.floor(f * width);
  const partials = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
  const rest = f * width - full;
  const part = full < width ? (partials[Math.floor(rest * 8)] ?? '') : '';
  return '█'.repeat(full) + part + ' '.repeat(Math.max(0, width - full - (part ? 1 : 0)));
}

/** A sparkline of values (min..max scaled to 8 levels). */
export function sparkline(values: readonly number[]): string {
  if (!values.length) return '';
  const ticks = '▁▂▃▄▅▆▇█';
  const min = Math.min(...values);
  const max = Math.max(...values);
  return values
    .map((v) => (max === min ? ticks[0] : ticks[Math.min(7, Math.floor(((v - min) / (max - min)) * 7.999))]))
    .join('');
}
