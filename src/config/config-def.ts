// The ConfigDef machinery shared by broker and topic configurations: types, parsing of string
// values (ConfigDef.parseType), validators (Range, ValidString, ValidList...), Java-style value
// rendering, and ConfigError carrying Kafka's ConfigException text.

export type ConfigType = 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'class' | 'password';

/** Parsed values: int/short/double → number, long → bigint (exact for Long.MAX_VALUE), list → string[]. */
export type ConfigValue = boolean | string | number | bigint | string[] | null;

/** Marks a key that has no default (ConfigDef.NO_DEFAULT_VALUE): it must be set. */
export const NO_DEFAULT: unique symbol = Symbol('NO_DEFAULT');

export interface Validator {
  /** Throw a ConfigError for an invalid parsed value. */
  check(name: string, value: ConfigValue, type: ConfigType): void;
  /** Kafka's "Valid Values" text, e.g. `[1,...]`, `[compact, delete]`. */
  readonly text: string;
}

export interface ConfigKey {
  name: string;
  type: ConfigType;
  default: ConfigValue | typeof NO_DEFAULT;
  validator?: Validator;
  importance: 'high' | 'medium' | 'low';
  /** Short documentation, used for man pages and DescribeConfigs documentation. */
  doc: string;
  /** ConfigDef.defineInternal: accepted, not documented. */
  internal?: boolean;
  /** Update mode of a broker config (DescribeConfigs readOnly = !dynamic). */
  dynamic?: 'per-broker' | 'cluster-wide';
  /** Accepted for compatibility with Kafka's files; tkafka does not act on it. */
  informational?: boolean;
}

/** Kafka's ConfigException (and, with `requirement failed: ` text, Scala's require). */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** The configuration key the message names, when there is one. */
  readonly key?: string;
  /** Java class of the exception Kafka throws for this failure. */
  readonly javaClass: string;
  constructor(message: string, key?: string, javaClass = 'org.apache.kafka.common.config.ConfigException') {
    super(message);
    this.key = key;
    this.javaClass = javaClass;
  }
}

/** `new ConfigException(name, value, message)`: "Invalid value V for configuration K: msg". */
export function invalidValue(name: string, value: string, message?: string): ConfigError {
  return new ConfigError(
    `Invalid value ${value} for configuration ${name}${message === undefined ? '' : ': ' + message}`,
    name,
  );
}

/** Scala `require(cond, msg)` as KafkaConfig uses it: IllegalArgumentException "requirement failed: msg". */
export function requirement(cond: boolean, message: string, key?: string): void {
  if (!cond) throw new ConfigError(`requirement failed: ${message}`, key, 'java.lang.IllegalArgumentException');
}

export const INT_MIN = -2147483648;
export const INT_MAX = 2147483647;
export const LONG_MIN = -9223372036854775808n;
export const LONG_MAX = 9223372036854775807n;

/** java.lang.Double.toString for finite and special values. */
export function javaDoubleToString(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : s + '.0';
  }
  const [mant, exp] = d.toExponential().split('e');
  return `${mant.includes('.') ? mant : mant + '.0'}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** How Java's `String.valueOf(value)` renders a parsed config value (used in error messages). */
export function javaValueString(value: ConfigValue, type?: ConfigType): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  if (typeof value === 'number' && type === 'double') return javaDoubleToString(value);
  return String(value);
}

/** ConfigDef.convertToString: the string a parsed value is reported as (lists comma-joined). */
export function convertToString(value: ConfigValue, type: ConfigType): string | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.join(',');
  if (type === 'double' && typeof value === 'number') return javaDoubleToString(value);
  return String(value);
}

const TYPE_NAME: Record<ConfigType, string> = {
  boolean: 'BOOLEAN',
  string: 'STRING',
  int: 'INT',
  short: 'SHORT',
  long: 'LONG',
  double: 'DOUBLE',
  list: 'LIST',
  class: 'CLASS',
  password: 'PASSWORD',
};

function parseInteger(s: string, min: bigint, max: bigint): bigint | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const v = BigInt(s);
  return v < min || v > max ? null : v;
}

/** ConfigDef.parseType for a string value. Throws ConfigError with Kafka's wording. */
export function parseType(name: string, raw: string, type: ConfigType): ConfigValue {
  const t = raw.trim();
  const notNumber = (): ConfigError => invalidValue(name, raw, `Not a number of type ${TYPE_NAME[type]}`);
  switch (type) {
    case 'boolean':
      if (t.toLowerCase() === 'true') return true;
      if (t.toLowerCase() === 'false') return false;
      throw invalidValue(name, raw, 'Expected value to be either true or false');
    case 'password':
    case 'string':
      return t;
    case 'int': {
      const v = parseInteger(t, BigInt(INT_MIN), BigInt(INT_MAX));
      if (v === null) throw notNumber();
      return Number(v);
    }
    case 'short': {
      const v = parseInteger(t, -32768n, 32767n);
      if (v === null) throw notNumber();
      return Number(v);
    }
    case 'long': {
      const v = parseInteger(t, LONG_MIN, LONG_MAX);
      if (v === null) throw notNumber();
      return v;
    }
    case 'double': {
      const m = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?$/.exec(t);
      if (!m) throw notNumber();
      return Number(t.replace(/[fFdD]$/, ''));
    }
    case 'list':
      return t === '' ? [] : t.split(/\s*,\s*/);
    case 'class':
      if (t === '' || !/^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u.test(t)) {
        throw invalidValue(name, raw, `Class ${raw} could not be found.`);
      }
      return t;
  }
}

/** ConfigDef.parseValue: parse a present value or take the default, then validate. */
export function parseConfigValue(key: ConfigKey, raw: string | undefined): ConfigValue {
  let value: ConfigValue;
  if (raw !== undefined) {
    value = parseType(key.name, raw, key.type);
  } else if (key.default === NO_DEFAULT) {
    throw new ConfigError(`Missing required configuration "${key.name}" which has no default value.`, key.name);
  } else {
    value = key.default;
  }
  key.validator?.check(key.name, value, key.type);
  return value;
}

const numberText = (n: number | bigint): string => String(n);

/** ConfigDef.Range.atLeast / between. */
export function range(min: number | bigint | null, max: number | bigint | null = null): Validator {
  const text =
    min === null && max === null
      ? '[...]'
      : min === null
        ? `[...,${numberText(max!)}]`
        : max === null
          ? `[${numberText(min)},...]`
          : `[${numberText(min)},...,${numberText(max)}]`;
  return {
    text,
    check(name, value, type) {
      if (value === null) throw invalidValue(name, 'null', 'Value must be non-null');
      const n = Number(value as number | bigint);
      const shown = javaValueString(value, type);
      if (min !== null && n < Number(min)) throw invalidValue(name, shown, `Value must be at least ${numberText(min)}`);
      if (max !== null && n > Number(max))
        throw invalidValue(name, shown, `Value must be no more than ${numberText(max)}`);
    },
  };
}
export const atLeast = (min: number | bigint): Validator => range(min, null);
export const between = (min: number | bigint, max: number | bigint): Validator => range(min, max);

/** ConfigDef.ValidString.in (case-sensitive). */
export function validString(...allowed: string[]): Validator {
  return {
    text: `[${allowed.join(', ')}]`,
    check(name, value) {
      if (!allowed.includes(value as string)) {
        throw invalidValue(name, String(value), `String must be one of: ${allowed.join(', ')}`);
      }
    },
  };
}

/** ConfigDef.ValidList.in: every element must be one of the allowed strings. */
export function validList(...allowed: string[]): Validator {
  const inner = validString(...allowed);
  return {
    text: inner.text,
    check(name, value, type) {
      for (const s of (value as string[] | null) ?? []) inner.check(name, s, type);
    },
  };
}

/**
 * ConfigDef.ValidList.anyNonDuplicateValues(isEmptyAllowed, isNullAllowed) (Kafka 4.4): any values, no
 * duplicates, no empty element; an empty list only when allowed. Its "Valid Values" text is empty.
 */
export function anyNonDuplicateValues(isEmptyAllowed: boolean, isNullAllowed: boolean): Validator {
  return {
    text: '',
    check(name, value) {
      if (value === null) {
        if (isNullAllowed) return;
        throw new ConfigError(`Configuration '${name}' values must not be null.`, name);
      }
      const list = value as string[];
      if (!isEmptyAllowed && list.length === 0)
        throw new ConfigError(
          `Configuration '${name}' must not be empty. Valid values include: any non-empty value`,
          name,
        );
      if (new Set(list).size !== list.length)
        throw new ConfigError(`Configuration '${name}' values must not be duplicated.`, name);
      if (list.some((v) => v === '')) throw new ConfigError(`Configuration '${name}' values must not be empty.`, name);
    },
  };
}

/** A validator from a function; `text` is its "Valid Values" description. */
export function lambda(text: string, check: (name: string, value: ConfigValue) => void): Validator {
  return { text, check: (name, value) => check(name, value) };
}

/** CompressionType.GZIP.levelValidator(): 1..9 or -1. */
export const gzipLevel = lambda('[1,...,9] or -1', (name, value) => {
  const level = value as number;
  if (level > 9 || (level < 1 && level !== -1)) {
    throw invalidValue(name, String(level), 'Value must be between 1 and 9 or equal to -1');
  }
});

/** Build a name → key map, rejecting duplicate definitions. */
export function indexKeys(keys: readonly ConfigKey[]): ReadonlyMap<string, ConfigKey> {
  const map = new Map<string, ConfigKey>();
  for (const k of keys) {
    if (map.has(k.name)) throw new Error(`Configuration ${k.name} is defined twice.`);
    map.set(k.name, k);
  }
  return map;
}
