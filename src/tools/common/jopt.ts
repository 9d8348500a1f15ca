// A jopt-simple (5.0.4, the version Kafka ships) work-alike for the Kafka tools that parse their
// flags with it (topics, consumer-groups, dump-log, configs, console tools, ...), plus Kafka's
// CommandLineUtils conventions around it.
//
// Each tool declares its flags once, as data (a JoptToolSpec): names, whether and how they take an
// argument, help text, defaults, Kafka-style "required" and "can't be used with" rules. The same
// table drives parsing, the help screen, and (later) generated man pages and shell completions.
//
// Parsing follows jopt-simple: long flags `--name value` / `--name=value` (also `-name` when that
// is a declared name), short-flag clusters `-abc`, `--` ends the flags, anything else is a
// non-option argument; required arguments take the next token whatever it looks like; optional
// arguments take it only when it does not look like a flag; no abbreviations unless the spec allows
// them. Messages are jopt's (`foo is not a recognized option`, `Option files requires an argument`,
// `Cannot parse argument 'x' of option max-bytes`) and Kafka's (`Missing required argument "[files]"`,
// `Option "[a]" can't be used with option "[b]"`). Usage errors and `--help` (or no arguments at
// all) print to stderr and exit 1, with the two-column `Option / Description` table; `--version`
// prints the version to stdout and exits 0.
//
// Use in a tool:
//
//   const SPEC: JoptToolSpec = {
//     name: 'topics', kafkaScript: 'kafka-topics.sh', description: 'This tool helps to create, delete, describe, or change a topic.',
//     options: [
//       { names: ['bootstrap-server'], description: 'REQUIRED: ...', arg: { name: 'server to connect to' }, required: true, complete: 'host:port' },
//       { names: ['list'], description: 'List all available topics.', invalidWith: ['create', 'delete'] },
//       { names: ['partitions'], description: '...', arg: { name: '# of partitions', type: 'Integer' } },
//     ],
//   };
//   export async function run(argv: string[], io: ToolIO): Promise<number> {
//     const parsed = parseOrUsage(SPEC, argv, io, VERSION);
//     if ('exitCode' in parsed) return parsed.exitCode;
//     const o = parsed.options;                       // o.has('list'), o.number('partitions'), o.nonOptions
//     if (o.has('create') && !o.has('topic')) return printUsage(SPEC, io, 'Missing required argument "[topic]"');
//     ...
//   }
//
// Rules that depend on several flags stay in the tool (printUsage for Kafka's wording); the spec
// carries the ones Kafka states per flag. `formatJoptHelp(SPEC)` is the help text.
import { renderRows } from './jopt-text.js';

export type JoptValueType = 'String' | 'Integer' | 'Long' | 'Double' | 'Boolean';
export type JoptValue = string | number | bigint | boolean;

export interface JoptArgSpec {
  /** jopt's describedAs: shown in help as `<Type: name>` (required) or `[Type: name]` (optional). */
  readonly name?: string;
  /** Java type of the value (ofType): conversion and the help's type indicator. Default String. */
  readonly type?: JoptValueType;
  /** withOptionalArg: the flag may appear without a value. */
  readonly optional?: boolean;
  /** defaultsTo: value(s) when the flag is absent (and shown as `(default: x)`). */
  readonly defaults?: readonly JoptValue[];
  /** withValuesSeparatedBy: one token holds several values. */
  readonly separator?: string;
}

export interface JoptOptionSpec {
  /** Names without dashes; one-character names are short flags (`-x`). The first is the key. */
  readonly names: readonly string[];
  readonly description?: string;
  /** Present when the flag takes an argument. */
  readonly arg?: JoptArgSpec;
  /** Kafka's CommandLineUtils.checkRequiredArgs: `Missing required argument "[name]"` when absent. */
  readonly required?: boolean;
  /** Kafka's CommandLineUtils.checkInvalidArgs: the flags this one can't be combined with. */
  readonly invalidWith?: readonly string[];
  /** Kept out of the help table. */
  readonly hidden?: boolean;
  /** A tkafka addition (not a flag of the Kafka tool): documentation may mark it as such. */
  readonly extension?: boolean;
  /** Shell-completion hint for the argument. */
  readonly complete?: 'file' | 'directory' | 'host:port' | readonly string[];
}

export interface JoptToolSpec {
  /** The tkafka subcommand, e.g. `dump-log`. */
  readonly name: string;
  /** The Kafka script it replaces, e.g. `kafka-dump-log.sh`. */
  readonly kafkaScript?: string;
  /** The line printed above the help table for `--help` or no arguments. */
  readonly description: string;
  readonly options: readonly JoptOptionSpec[];
  /** Add Kafka's CommandDefaultOptions `--help` and `--version` (default true). */
  readonly defaultOptions?: boolean;
  /** jopt's allowAbbreviations (unique prefixes of long flags). Default false, as in Kafka. */
  readonly abbreviations?: boolean;
  /** Non-option arguments the tool uses (jopt collects them anyway; this only documents them). */
  readonly positional?: { readonly name: string; readonly description: string };
}

export const HELP_OPTION: JoptOptionSpec = { names: ['help'], description: 'Print usage information.' };
export const VERSION_OPTION: JoptOptionSpec = { names: ['version'], description: 'Display Kafka version.' };
/** `--command-config` as kafka-topics.sh and kafka-client-metrics.sh describe it. */
export const COMMAND_CONFIG_OPTION: JoptOptionSpec = {
  names: ['command-config'],
  description: 'Property file containing configs to be passed to Admin Client.',
  arg: { name: 'command config property file' },
  complete: 'file',
};

/** A parse or usage failure: the message is printed above the help table (exit 1). */
export class JoptError extends Error {
  override name = 'JoptError';
}

/** The parsed command line (jopt's OptionSet). Options are looked up by any of their names. */
export class JoptOptions {
  constructor(
    private readonly byName: ReadonlyMap<string, JoptOptionSpec>,
    private readonly given: ReadonlyMap<JoptOptionSpec, JoptValue[]>,
    readonly nonOptions: readonly string[],
  ) {}

  private spec(name: string): JoptOptionSpec {
    const s = this.byName.get(name);
    if (!s) throw new Error(`option ${name} is not declared`);
    return s;
  }
  /** The flags given, by their first name, in the order first seen (jopt's OptionSet.specs()). */
  givenNames(): string[] {
    return [...this.given.keys()].map((s) => s.names[0]!);
  }
  /** True when the flag was given. */
  has(name: string): boolean {
    return this.given.has(this.spec(name));
  }
  /** The values given (or the defaults when absent, or present without a value). */
  valuesOf(name: string): JoptValue[] {
    const s = this.spec(name);
    const vs = this.given.get(s);
    return vs && vs.length > 0 ? [...vs] : [...(s.arg?.defaults ?? [])];
  }
  /** The single value (or default); throws jopt's MultipleArgumentsForOptionException text on several. */
  valueOf(name: string): JoptValue | undefined {
    const vs = this.valuesOf(name);
    if (vs.length > 1) throw new JoptError(`Found multiple arguments for option ${name}, but you asked for only one`);
    return vs[0];
  }
  string(name: string): string | undefined {
    const v = this.valueOf(name);
    return v === undefined ? undefined : String(v);
  }
  number(name: string): number | undefined {
    const v = this.valueOf(name);
    return v === undefined ? undefined : Number(v);
  }
}

/** The display name Kafka's messages use for an option: jopt's `options().toString()`. */
export function optionDisplay(spec: JoptOptionSpec): string {
  return `[${arranged(spec.names).join(', ')}]`;
}

/** jopt AbstractOptionSpec.arrangeOptions: short names first, then long names, each sorted. */
function arranged(names: readonly string[]): string[] {
  if (names.length === 1) return [...names];
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...names.filter((n) => n.length === 1).sort(cmp), ...names.filter((n) => n.length !== 1).sort(cmp)];
}

function allOptions(tool: JoptToolSpec): JoptOptionSpec[] {
  return tool.defaultOptions === false ? [...tool.options] : [...tool.options, HELP_OPTION, VERSION_OPTION];
}

const INT32 = /^[+-]?\d+$/;

function convert(spec: JoptOptionSpec, raw: string, shownName: string): JoptValue {
  const type = spec.arg?.type ?? 'String';
  const fail = (): never => {
    throw new JoptError(`Cannot parse argument '${raw}' of option ${shownName}`);
  };
  switch (type) {
    case 'String':
      return raw;
    case 'Integer': {
      if (!INT32.test(raw)) fail();
      const n = Number(raw);
      if (n < -2147483648 || n > 2147483647) fail();
      return n;
    }
    case 'Long': {
      if (!INT32.test(raw)) fail();
      const n = BigInt(raw);
      if (n < -(2n ** 63n) || n >= 2n ** 63n) fail();
      return n;
    }
    case 'Double': {
      const t = raw.trim();
      if (!/^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/.test(t)) fail();
      return Number(t.replace(/[fFdD]$/, ''));
    }
    case 'Boolean':
      return raw.toLowerCase() === 'true';
  }
}

const canConvert = (spec: JoptOptionSpec, raw: string): boolean => {
  try {
    convert(spec, raw, '');
    return true;
  } catch {
    return false;
  }
};

const isLongToken = (a: string): boolean => a.startsWith('--') && a !== '--';
const isShortToken = (a: string): boolean => a.startsWith('-') && a !== '-' && !isLongToken(a);
const looksLikeOption = (a: string): boolean => isShortToken(a) || isLongToken(a);

/** Parses `argv` as jopt-simple would. Throws JoptError with jopt's message on bad input. */
export function parseJopt(tool: JoptToolSpec, argv: readonly string[]): JoptOptions {
  const specs = allOptions(tool);
  const byName = new Map<string, JoptOptionSpec>();
  for (const s of specs) for (const n of s.names) byName.set(n, s);
  const given = new Map<JoptOptionSpec, JoptValue[]>();
  const nonOptions: string[] = [];

  const lookup = (name: string): JoptOptionSpec | undefined => {
    const exact = byName.get(name);
    if (exact || !tool.abbreviations || name.length === 0) return exact;
    const hits = new Set([...byName.entries()].filter(([n]) => n.startsWith(name)).map(([, s]) => s));
    return hits.size === 1 ? [...hits][0] : undefined;
  };
  const mark = (spec: JoptOptionSpec): JoptValue[] => {
    let vs = given.get(spec);
    if (!vs) given.set(spec, (vs = []));
    return vs;
  };
  const addValues = (spec: JoptOptionSpec, raw: string, shown: string): void => {
    const vs = mark(spec);
    const parts = spec.arg?.separator ? raw.split(spec.arg.separator) : [raw];
    for (const p of parts) vs.push(convert(spec, p, shown));
  };

  let i = 0;
  const handle = (spec: JoptOptionSpec, shown: string, attached: string | null): void => {
    if (!spec.arg) {
      mark(spec);
      return;
    }
    if (attached !== null && attached !== '') return addValues(spec, attached, shown);
    if (!spec.arg.optional) {
      if (i >= argv.length) throw new JoptError(`Option ${shown} requires an argument`);
      addValues(spec, argv[i++]!, shown);
      return;
    }
    const next = argv[i];
    const numeric = spec.arg.type === 'Integer' || spec.arg.type === 'Long' || spec.arg.type === 'Double';
    if (
      next !== undefined &&
      ((!looksLikeOption(next) && canConvert(spec, next)) || (numeric && canConvert(spec, next)))
    ) {
      i++;
      addValues(spec, next, shown);
    } else mark(spec);
  };

  let noMoreOptions = false;
  while (i < argv.length) {
    const token = argv[i++]!;
    if (noMoreOptions) {
      nonOptions.push(token);
    } else if (token === '--') {
      noMoreOptions = true;
    } else if (isLongToken(token)) {
      const body = token.slice(2);
      const eq = body.indexOf('=');
      const name = eq >= 0 ? body.slice(0, eq) : body;
      const spec = lookup(name);
      if (!spec) throw new JoptError(`${name} is not a recognized option`);
      handle(spec, name, eq >= 0 ? body.slice(eq + 1) : null);
    } else if (isShortToken(token)) {
      const body = token.slice(1);
      const eq = body.indexOf('=');
      const name = eq >= 0 ? body.slice(0, eq) : body;
      const whole = lookup(name);
      if (whole) {
        handle(whole, name, eq >= 0 ? body.slice(eq + 1) : null);
        continue;
      }
      // A cluster of one-character flags; a flag taking an argument eats the rest of the token.
      const chars = [...body];
      for (let k = 0; k < chars.length; k++) {
        const spec = byName.get(chars[k]!);
        if (!spec) throw new JoptError(`${chars[k]} is not a recognized option`);
        if (spec.arg && k + 1 < chars.length) {
          handle(spec, chars[k]!, chars.slice(k + 1).join(''));
          break;
        }
        handle(spec, chars[k]!, null);
      }
    } else {
      nonOptions.push(token);
    }
  }
  return new JoptOptions(byName, given, nonOptions);
}

/** The help table exactly as jopt-simple's BuiltinHelpFormatter prints it (80 columns). */
export function formatJoptHelp(tool: JoptToolSpec): string {
  const specs = allOptions(tool).filter((s) => !s.hidden);
  const key = (s: JoptOptionSpec): string => arranged(s.names)[0]!;
  specs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const rows: [string, string][] = [
    ['Option', 'Description'],
    ['------', '-----------'],
  ];
  for (const s of specs) {
    let left = arranged(s.names)
      .map((n) => (n.length > 1 ? '--' : '-') + n)
      .join(', ');
    if (s.arg) {
      const type = s.arg.type ?? 'String';
      const inner = s.arg.name ? `${type}: ${s.arg.name}` : type;
      left += s.arg.optional ? ` [${inner}]` : ` <${inner}>`;
    }
    let right = s.description ?? '';
    const defaults = s.arg?.defaults ?? [];
    if (defaults.length > 0) {
      const shown = defaults.length === 1 ? String(defaults[0]) : `[${defaults.map(String).join(', ')}]`;
      right = `${right} (default: ${shown})`.trim();
    }
    rows.push([left, right]);
  }
  return renderRows(rows);
}

export interface JoptIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Kafka's CommandLineUtils.printUsageAndExit: the message, then the help table, on stderr; exit 1. */
export function printUsage(tool: JoptToolSpec, io: JoptIO, message: string): number {
  io.stderr.write(`${message}\n${formatJoptHelp(tool)}`);
  return 1;
}

/**
 * Parses like a Kafka jopt tool's options class: jopt errors, then `--help` / no arguments
 * (description + help, exit 1), `--version` (stdout, exit 0), then the declared required and
 * can't-be-used-with rules. Returns the options, or the exit code after printing.
 */
export function parseOrUsage(
  tool: JoptToolSpec,
  argv: readonly string[],
  io: JoptIO,
  version: string,
): { options: JoptOptions } | { exitCode: number } {
  let options: JoptOptions;
  try {
    options = parseJopt(tool, argv);
  } catch (e) {
    if (e instanceof JoptError) return { exitCode: printUsage(tool, io, e.message) };
    throw e;
  }
  const defaults = tool.defaultOptions !== false;
  if (defaults && (argv.length === 0 || options.has('help')))
    return { exitCode: printUsage(tool, io, tool.description) };
  if (defaults && options.has('version')) {
    io.stdout.write(`${version}\n`);
    return { exitCode: 0 };
  }
  const problem = checkDeclaredRules(tool, options);
  if (problem !== null) return { exitCode: printUsage(tool, io, problem) };
  return { options };
}

/** The first violated `required` / `invalidWith` rule, as Kafka words it, or null. */
export function checkDeclaredRules(tool: JoptToolSpec, options: JoptOptions): string | null {
  for (const s of tool.options) {
    if (s.required && !options.has(s.names[0]!)) return `Missing required argument "${optionDisplay(s)}"`;
  }
  const byName = new Map<string, JoptOptionSpec>();
  for (const s of allOptions(tool)) for (const n of s.names) byName.set(n, s);
  for (const s of tool.options) {
    if (!s.invalidWith || !options.has(s.names[0]!)) continue;
    for (const other of s.invalidWith) {
      const o = byName.get(other);
      if (o && options.has(other))
        return `Option "${optionDisplay(s)}" can't be used with option "${optionDisplay(o)}"`;
    }
  }
  return null;
}
