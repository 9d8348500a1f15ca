// `sasl.jaas.config` values, parsed as Kafka's JaasConfig does with java.io.StreamTokenizer:
//   <loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*;
// Words are letters, digits, '.', '-', '_' and '$'; values are words or quoted strings ('…' or "…"
// with Java's escapes); // and /* */ comments are skipped. A value that starts with a digit is a
// number token to StreamTokenizer and so "not specified" — quote it, as Kafka requires.

export type ControlFlag = 'required' | 'requisite' | 'sufficient' | 'optional';

export interface JaasLoginModule {
  readonly loginModule: string;
  readonly controlFlag: ControlFlag;
  readonly options: ReadonlyMap<string, string>;
}

/** Kafka's IllegalArgumentException messages. */
export class JaasConfigError extends Error {
  override name = 'IllegalArgumentException';
}

type Token = { kind: 'word' | 'quoted'; value: string } | { kind: 'number' } | { kind: 'char'; value: string };

const isWordStart = (c: string): boolean => /[A-Za-z\-_$]/.test(c) || c.charCodeAt(0) >= 160;
const isWordPart = (c: string): boolean => isWordStart(c) || /[0-9.]/.test(c);

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\x0b' };

function* tokens(input: string): Generator<Token> {
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c.charCodeAt(0) <= 32) {
      i++;
    } else if (input.startsWith('//', i)) {
      while (i < input.length && input[i] !== '\n' && input[i] !== '\r') i++;
    } else if (input.startsWith('/*', i)) {
      const end = input.indexOf('*/', i + 2);
      i = end < 0 ? input.length : end + 2;
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < input.length && input[i] !== c && input[i] !== '\n' && input[i] !== '\r') {
        if (input[i] === '\\' && i + 1 < input.length) {
          const e = input[i + 1]!;
          const octal = /^[0-7]{1,3}/.exec(input.slice(i + 1, i + 4))?.[0];
          if (octal) {
            const n = octal.length === 3 && octal[0]! > '3' ? octal.slice(0, 2) : octal;
            value += String.fromCharCode(parseInt(n, 8));
            i += 1 + n.length;
          } else {
            value += ESCAPES[e] ?? e;
            i += 2;
          }
        } else value += input[i++];
      }
      i++;
      yield { kind: 'quoted', value };
    } else if (/[0-9.]/.test(c)) {
      while (i < input.length && /[0-9.]/.test(input[i]!)) i++;
      yield { kind: 'number' };
    } else if (isWordStart(c)) {
      const start = i;
      while (i < input.length && isWordPart(input[i]!)) i++;
      yield { kind: 'word', value: input.slice(start, i) };
    } else {
      i++;
      yield { kind: 'char', value: c };
    }
  }
}

const sval = (t: Token | undefined): string | null =>
  t && (t.kind === 'word' || t.kind === 'quoted') ? t.value : null;

const FLAGS: readonly ControlFlag[] = ['required', 'requisite', 'sufficient', 'optional'];

/** Every login module of a `sasl.jaas.config` value, as Kafka's JaasConfig parses it. */
export function parseJaasConfig(input: string): JaasLoginModule[] {
  const it = tokens(input);
  const next = (): Token | undefined => {
    const r = it.next();
    return r.done ? undefined : r.value;
  };
  const modules: JaasLoginModule[] = [];
  for (let t = next(); t !== undefined; t = next()) {
    const loginModule = sval(t) ?? 'null';
    const flagToken = next();
    if (flagToken === undefined) throw new JaasConfigError('Login module control flag not specified in JAAS config');
    const flag = sval(flagToken);
    if (flag === null) throw new JaasConfigError('Login module control flag is not available in the JAAS config');
    const controlFlag = FLAGS.find((f) => f === flag.toLowerCase());
    if (!controlFlag) throw new JaasConfigError(`Invalid login module control flag '${flag}' in JAAS config`);
    const options = new Map<string, string>();
    let o = next();
    for (; o !== undefined && !(o.kind === 'char' && o.value === ';'); o = next()) {
      const key = sval(o);
      const eq = next();
      const value = eq?.kind === 'char' && eq.value === '=' ? sval(next()) : null;
      if (value === null) throw new JaasConfigError(`Value not specified for key '${key}' in JAAS config`);
      options.set(key!, value);
    }
    if (o === undefined) throw new JaasConfigError('JAAS config entry not terminated by semi-colon');
    modules.push({ loginModule, controlFlag, options });
  }
  if (modules.length === 0) throw new JaasConfigError('Login module not specified in JAAS config');
  return modules;
}

/**
 * The one login module a `sasl.jaas.config` property may hold (Kafka's JaasContext).
 */
export function parseSingleLoginModule(input: string): JaasLoginModule {
  const modules = parseJaasConfig(input);
  if (modules.length !== 1)
    throw new JaasConfigError(`JAAS config property contains ${modules.length} login modules, should be 1 module`);
  return modules[0]!;
}

export const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
export const SCRAM_LOGIN_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';
export const OAUTHBEARER_LOGIN_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';
