// The text primitives of the generated JSON writers (src/protocol/generated/json.ts): Kafka's
// generated *JsonConverter classes build a Jackson JsonNode, and tools print its toString().

/** Replaces the JSON text of a field's (non-null) value; undefined keeps the default text. */
export type JsonHook = (field: string, value: unknown) => string | undefined;

/** Jackson's string escaping: `"` `\`, short escapes for \b \t \n \f \r, other controls as \u00XX (upper hex). */
export function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x08) out += '\\b';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0d) out += '\\r';
    else out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return out + '"';
}

/** Java's Double.toString. */
export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const a = Math.abs(d);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mant, exp] = d.toExponential().split('e') as [string, string];
  return `${mant.includes('.') ? mant : `${mant}.0`}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** bytes (and records) as Jackson's BinaryNode prints them: standard base64 in quotes. */
export function jsonBytes(b: Buffer | readonly Buffer[]): string {
  return `"${(Buffer.isBuffer(b) ? b : Buffer.concat(b)).toString('base64')}"`;
}

export function jsonArray<T>(a: readonly T[], element: (e: T) => string): string {
  let out = '[';
  for (let i = 0; i < a.length; i++) out += (i > 0 ? ',' : '') + element(a[i]!);
  return out + ']';
}
