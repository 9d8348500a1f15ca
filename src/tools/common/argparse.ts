// A small argparse4j (0.7.0, the version Kafka ships) work-alike for the Kafka tools that use it:
// sub-commands, long flags abbreviated to any unambiguous prefix, short-flag clusters, `--flag=value`,
// mutually exclusive groups, `@file` argument files, argparse4j's usage/help layout (justified
// wrapping at the terminal width minus 5, default 75) and error texts (`prog: error: msg`, exit 1).
import { readFileSync } from 'node:fs';
import { formatWidth, wrapText } from './argparse-text.js';
import {
  bodyOf,
  consumes,
  isFlagLike,
  formatError as renderError,
  formatHelp as renderHelp,
  formatUsage as renderUsage,
  type HelpParser,
} from './argparse-help.js';

export { formatWidth, wrapText };

export type Action =
  'store' | 'storeTrue' | 'storeFalse' | 'storeConst' | 'append' | 'appendConst' | 'count' | 'help' | 'version';
export type Namespace = Record<string, unknown>;

export interface ArgumentSpec {
  /** `['--config', '-c']` for an option (first flag shown in usage), `['name']` for a positional. */
  flags: string[];
  dest?: string;
  action?: Action;
  /** Positive count, '?', '*' or '+'. Default: exactly one value for store/append. */
  nargs?: number | '?' | '*' | '+';
  required?: boolean;
  help?: string;
  metavar?: string;
  choices?: readonly string[];
  /** Convert a value; throw an Error whose message is shown in "could not convert" errors. */
  type?: 'int' | 'long' | 'double' | ((value: string) => unknown);
  default?: unknown;
  const?: unknown;
  /** Hide from usage and help (Arguments.SUPPRESS). */
  suppress?: boolean;
}

/** A parse failure; `parser` is the (sub)parser whose usage is printed. */
export class ArgumentParserError extends Error {
  override name = 'ArgumentParserError';
  constructor(
    message: string,
    readonly parser: ArgumentParser,
    readonly kind: 'error' | 'help' | 'version' | 'unrecognized-flag' | 'unrecognized-command' = 'error',
    readonly subject = '',
  ) {
    super(message);
  }
}

interface Arg extends ArgumentSpec {
  dest: string;
  action: Action;
  min: number;
  max: number;
  group?: Group;
  positional: boolean;
}

interface Group {
  index: number;
  required: boolean;
  args: Arg[];
}

const NEG_NUM = /^-\d+$/;

interface ParseState {
  args: string[];
  index: number;
  lastFromFile: number;
  consumedSeparator: boolean;
  deferred?: ArgumentParserError;
}

export class ArgumentParser {
  readonly prog: string;
  readonly command?: string;
  private readonly main?: ArgumentParser;
  private readonly optargs: Arg[] = [];
  private readonly posargs: Arg[] = [];
  private readonly index = new Map<string, Arg>();
  private readonly groups: Group[] = [];
  private readonly subparsers = new Map<string, { parser: ArgumentParser; help: string }>();
  private subDest = '';
  private subHelp = '';
  private subTitle = '';
  private subMetavar = '';
  private readonly description: string;
  private readonly epilog: string;
  private readonly fromFilePrefix?: string;
  private readonly versionText: string;
  /** Width used for usage, help and error text. */
  width = 75;

  constructor(opts: {
    prog: string;
    description?: string;
    epilog?: string;
    addHelp?: boolean;
    fromFilePrefix?: string;
    version?: string;
    command?: string;
    main?: ArgumentParser;
  }) {
    this.prog = opts.prog;
    this.description = opts.description ?? '';
    this.epilog = opts.epilog ?? '';
    this.fromFilePrefix = opts.fromFilePrefix;
    this.versionText = opts.version ?? '';
    this.command = opts.command;
    this.main = opts.main;
    if (opts.addHelp ?? true)
      this.addArgument({
        flags: ['-h', '--help'],
        action: 'help',
        help: 'show this help message and exit',
        suppress: false,
      });
  }

  addArgument(spec: ArgumentSpec, group?: Group): this {
    const positional = spec.flags.length === 1 && !spec.flags[0].startsWith('-');
    const action = spec.action ?? 'store';
    const long = spec.flags.find((f) => f.startsWith('--'));
    const dest = spec.dest ?? (positional ? spec.flags[0] : bodyOf(long ?? spec.flags[0])).replace(/-/g, '_');
    const n = spec.nargs;
    const [min, max] =
      n === undefined ? [-1, -1] : n === '?' ? [0, 1] : n === '*' ? [0, Infinity] : n === '+' ? [1, Infinity] : [n, n];
    let dflt = spec.default;
    if (dflt === undefined && action === 'storeTrue') dflt = false;
    if (dflt === undefined && action === 'storeFalse') dflt = true;
    const arg: Arg = { ...spec, dest, action, min, max, positional, default: dflt, group };
    if (positional) this.posargs.push(arg);
    else {
      for (const f of spec.flags) {
        if (this.index.has(f))
          throw new Error(`argument ${f}: conflicting option string(s): ${this.index.get(f)!.flags.join('/')}`);
        this.index.set(f, arg);
      }
      this.optargs.push(arg);
    }
    group?.args.push(arg);
    return this;
  }

  addMutuallyExclusiveGroup(opts: { required?: boolean } = {}): { addArgument(spec: ArgumentSpec): unknown } {
    const group: Group = { index: this.groups.length, required: opts.required ?? false, args: [] };
    this.groups.push(group);
    const self = { addArgument: (spec: ArgumentSpec) => (this.addArgument(spec, group), self) };
    return self;
  }

  /** Register sub-commands; `dest` receives the chosen command name. */
  addSubparsers(opts: { dest?: string; help?: string; title?: string; metavar?: string } = {}): {
    addParser(command: string, opts?: { help?: string; description?: string }): ArgumentParser;
  } {
    this.subDest = opts.dest ?? '';
    this.subHelp = opts.help ?? '';
    // argparse4j's title(...) / metavar(...): the commands in their own section, named in the usage.
    this.subTitle = opts.title ?? '';
    this.subMetavar = opts.metavar ?? '';
    return {
      addParser: (command, o = {}) => {
        const parser = new ArgumentParser({
          prog: this.prog,
          description: o.description,
          fromFilePrefix: this.fromFilePrefix,
          command,
          main: this,
        });
        this.subparsers.set(command, { parser, help: o.help ?? '' });
        return parser;
      },
    };
  }

  private textualName(a: Arg): string {
    return a.positional ? a.flags[0] : a.flags.join('/');
  }

  /** The view of this parser the usage/help layout (argparse-help.ts) reads. */
  private helpView(): HelpParser {
    return {
      prog: this.prog,
      command: this.command,
      main: this.main?.helpView(),
      optargs: this.optargs,
      posargs: this.posargs,
      groups: this.groups,
      subparsers: this.subparsers,
      subHelp: this.subHelp,
      description: this.description,
      epilog: this.epilog,
      width: this.width,
      subTitle: this.subTitle,
      subMetavar: this.subMetavar,
    };
  }

  formatUsage(): string {
    return renderUsage(this.helpView());
  }

  formatHelp(): string {
    return renderHelp(this.helpView());
  }

  /** The stderr text for a parse error: usage, `prog: error: msg`, and "Did you mean" hints. */
  formatError(err: ArgumentParserError): string {
    return renderError(this.helpView(), err);
  }

  /** Parse; throws ArgumentParserError (kind 'help'/'version' carry the text to print). */
  parseArgs(argv: readonly string[]): Namespace {
    const ns: Namespace = {};
    const state: ParseState = { args: [...argv], index: 0, lastFromFile: -1, consumedSeparator: false };
    this.parseInto(state, ns);
    if (state.deferred) throw state.deferred;
    return ns;
  }

  private flagFound(state: ParseState): boolean {
    while (
      this.fromFilePrefix &&
      state.args[state.index].startsWith(this.fromFilePrefix) &&
      state.args[state.index].length > 1
    ) {
      const file = state.args[state.index].slice(this.fromFilePrefix.length);
      let lines: string[];
      try {
        lines = readFileSync(file, 'utf8').split(/\r?\n/);
        if (lines[lines.length - 1] === '') lines.pop();
      } catch {
        throw new ArgumentParserError(`Could not read arguments from file '${file}'`, this);
      }
      const rest = state.args.slice(state.index + 1);
      state.lastFromFile =
        state.lastFromFile < state.index + 1 ? lines.length - 1 : state.lastFromFile - (state.index + 1) + lines.length;
      state.args = [...lines, ...rest];
      state.index = 0;
      if (state.args.length === 0) return false;
    }
    const term = state.args[state.index];
    if (state.consumedSeparator) return false;
    if (term === '--') return true;
    return isFlagLike(term) && !NEG_NUM.test(term);
  }

  private unrecognized(state: ParseState, text: string): string {
    return (
      `unrecognized arguments: '${text}'` +
      (state.index > state.lastFromFile
        ? ''
        : `\nChecking trailing white spaces or new lines in ${this.fromFilePrefix ?? '@'}file may help.`)
    );
  }

  private resolveFlag(flag: string): Arg | undefined {
    const exact = this.index.get(flag);
    if (exact) return exact;
    const cand = [...this.index.keys()].filter((k) => k.startsWith(flag));
    if (cand.length === 0) return undefined;
    const shortCluster = ((): boolean => {
      if (!/^-[^-]/.test(flag)) return false;
      for (let i = 1; i < flag.length; i++) {
        const a = this.index.get('-' + flag[i]);
        if (!a) return false;
        if (consumes(a)) return true;
      }
      return true;
    })();
    if (shortCluster) cand.push(flag.slice(0, 2));
    else if (cand.length === 1) return this.index.get(cand[0]);
    throw new ArgumentParserError(`ambiguous option: ${flag} could match ${cand.sort().join(', ')}`, this);
  }

  private checkMutex(a: Arg, used: Array<Arg | undefined>): void {
    if (!a.group) return;
    const prev = used[a.group.index];
    if (!prev) used[a.group.index] = a;
    else if (prev !== a)
      throw new ArgumentParserError(
        `argument ${this.textualName(a)}: not allowed with argument ${this.textualName(prev)}`,
        this,
      );
  }

  private convert(a: Arg, value: string): unknown {
    let v: unknown = value;
    if (a.type) {
      try {
        if (a.type === 'int' || a.type === 'long') {
          if (!/^[+-]?\d+$/.test(value)) throw new Error(`For input string: "${value}"`);
          v = a.type === 'long' ? BigInt(value) : Number(value);
          if (a.type === 'int' && Math.abs(v as number) > 2147483647) throw new Error(`For input string: "${value}"`);
        } else if (a.type === 'double') {
          if (!/^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[dDfF]?$/.test(value.trim())) {
            throw new Error(value.trim() === '' ? 'empty String' : `For input string: "${value}"`);
          }
          v = Number(value.trim().replace(/[dDfF]$/, ''));
        } else {
          v = a.type(value);
        }
      } catch (e) {
        const typeName =
          a.type === 'int' ? 'Integer' : a.type === 'long' ? 'Long' : a.type === 'double' ? 'Double' : 'value';
        throw new ArgumentParserError(
          `argument ${this.textualName(a)}: could not convert '${value}' to ${typeName} (${(e as Error).message})`,
          this,
        );
      }
    }
    if (a.choices && !a.choices.includes(String(v))) {
      throw new ArgumentParserError(
        `argument ${this.textualName(a)}: invalid choice: '${value}' (choose from {${a.choices.join(',')}})`,
        this,
      );
    }
    return v;
  }

  private run(a: Arg, ns: Namespace, value?: unknown): void {
    switch (a.action) {
      case 'help':
        throw new ArgumentParserError(this.formatHelp(), this, 'help');
      case 'version':
        throw new ArgumentParserError(this.versionText + '\n', this, 'version');
      case 'storeTrue':
        ns[a.dest] = true;
        break;
      case 'storeFalse':
        ns[a.dest] = false;
        break;
      case 'storeConst':
        ns[a.dest] = a.const;
        break;
      case 'count':
        ns[a.dest] = ((ns[a.dest] as number | undefined) ?? 0) + 1;
        break;
      case 'appendConst':
      case 'append': {
        const v = a.action === 'append' ? value : a.const;
        const list = Array.isArray(ns[a.dest]) ? (ns[a.dest] as unknown[]) : [];
        list.push(v);
        ns[a.dest] = list;
        break;
      }
      default:
        ns[a.dest] = value;
    }
  }

  private valueAvailable(state: ParseState): boolean {
    return state.index < state.args.length && !this.flagFound(state) && state.index < state.args.length;
  }

  private processOption(state: ParseState, ns: Namespace, a: Arg, embedded: string | undefined): void {
    if (!consumes(a)) {
      if (embedded !== undefined)
        throw new ArgumentParserError(`argument ${this.textualName(a)}: ignore implicit argument '${embedded}'`, this);
      this.run(a, ns);
      return;
    }
    if (a.min === -1 || (a.min === 0 && a.max === 1)) {
      let val = embedded;
      if (val === undefined && this.valueAvailable(state)) val = state.args[state.index++];
      if (val === undefined) {
        if (a.min === -1) throw new ArgumentParserError(`argument ${this.textualName(a)}: expected one argument`, this);
        this.run(a, ns, a.const);
      } else {
        this.run(a, ns, this.convert(a, val));
      }
      return;
    }
    const list: unknown[] = [];
    if (embedded !== undefined) list.push(this.convert(a, embedded));
    else {
      for (let i = 0; i < a.max && this.valueAvailable(state); i++)
        list.push(this.convert(a, state.args[state.index++]));
    }
    if (list.length < a.min)
      throw new ArgumentParserError(`argument ${this.textualName(a)}: expected ${a.min} argument(s)`, this);
    ns[a.dest] = a.action === 'append' ? [...((ns[a.dest] as unknown[]) ?? []), list] : list;
  }

  private parseInto(state: ParseState, ns: Namespace): void {
    for (const a of [...this.posargs, ...this.optargs])
      if (a.action !== 'help' && a.action !== 'version') ns[a.dest] = a.default ?? null;
    const used = new Set<Arg>();
    const groupUsed: Array<Arg | undefined> = [];
    const positionals: string[] = [];
    const variadicLast = this.posargs.length > 0 && this.posargs[this.posargs.length - 1].max > 1;
    while (state.index < state.args.length) {
      const isFlag = this.flagFound(state);
      if (state.index >= state.args.length) break;
      if (isFlag && state.args[state.index] !== '--') {
        const term = state.args[state.index];
        const eq = term.indexOf('=');
        const flag = eq < 0 ? term : term.slice(0, eq);
        let embedded = eq < 0 ? undefined : term.slice(eq + 1);
        let arg = this.resolveFlag(flag);
        if (!arg) {
          embedded = undefined;
          let found = false;
          if (/^-[^-]/.test(term)) {
            found = true;
            for (let i = 1; i < term.length; i++) {
              const a = this.index.get('-' + term[i]);
              if (!a) {
                found = false;
                break;
              }
              if (consumes(a)) {
                arg = a;
                if (term.length > i + 1) embedded = term.slice(i + 1);
                break;
              }
              this.checkMutex(a, groupUsed);
              this.run(a, ns);
              used.add(a);
            }
          }
          if (!found) throw new ArgumentParserError(this.unrecognized(state, term), this, 'unrecognized-flag', term);
        }
        state.index++;
        if (arg) {
          this.checkMutex(arg, groupUsed);
          this.processOption(state, ns, arg, embedded);
          used.add(arg);
        }
      } else if (state.args[state.index] === '--' && !state.consumedSeparator) {
        state.consumedSeparator = true;
        state.index++;
      } else if (positionals.length < this.posargs.length || (variadicLast && !this.subparsers.size)) {
        positionals.push(state.args[state.index++]);
      } else if (!state.consumedSeparator && this.subparsers.size) {
        this.finishPositionals(positionals, ns);
        this.checkRequired(state, used, groupUsed);
        const cmd = state.args[state.index];
        let entry = this.subparsers.get(cmd);
        if (!entry && cmd !== '') {
          const cand = [...this.subparsers.keys()].filter((k) => k.startsWith(cmd));
          if (cand.length > 1)
            throw new ArgumentParserError(`ambiguous command: ${cmd} could match ${cand.sort().join(', ')}`, this);
          if (cand.length === 1) entry = this.subparsers.get(cand[0]);
        }
        if (!entry) {
          throw new ArgumentParserError(
            `invalid choice: '${cmd}' (choose from ${[...this.subparsers.keys()].map((k) => `'${k}'`).join(', ')})`,
            this,
            'unrecognized-command',
            cmd,
          );
        }
        state.index++;
        entry.parser.width = this.width;
        entry.parser.parseInto(state, ns);
        if (this.subDest) ns[this.subDest] = entry.parser.command;
        return;
      } else {
        throw new ArgumentParserError(this.unrecognized(state, state.args.slice(state.index).join(' ')), this);
      }
    }
    if (this.subparsers.size) throw new ArgumentParserError('too few arguments', this);
    this.finishPositionals(positionals, ns);
    this.checkRequired(state, used, groupUsed);
  }

  private finishPositionals(values: string[], ns: Namespace): void {
    const needed = this.posargs.reduce((n, a) => n + (a.min === -1 ? 1 : a.min), 0);
    if (values.length < needed) throw new ArgumentParserError('too few arguments', this);
    this.posargs.forEach((a, i) => {
      if (a.max > 1 && i === this.posargs.length - 1) {
        const rest = values.slice(i);
        if (rest.length) ns[a.dest] = rest.map((v) => this.convert(a, v));
      } else if (i < values.length) {
        ns[a.dest] = this.convert(a, values[i]);
      }
    });
  }

  private checkRequired(state: ParseState, used: Set<Arg>, groupUsed: Array<Arg | undefined>): void {
    if (state.deferred) return;
    for (const a of this.optargs) {
      if (a.required && !used.has(a))
        state.deferred = new ArgumentParserError(`argument ${this.textualName(a)} is required`, this);
    }
    if (state.deferred) return;
    for (const g of this.groups) {
      if (g.required && !groupUsed[g.index]) {
        const names = g.args
          .filter((a) => !a.suppress)
          .map((a) => this.textualName(a) + ' ')
          .join('');
        state.deferred = new ArgumentParserError(`one of the arguments ${names}is required`, this);
      }
    }
  }
}

/**
 * Parse argv the way a Kafka argparse4j tool does: help/version text to stdout (exit `helpExitCode`),
 * errors as usage + `prog: error: msg` to stderr (exit 1). Returns the namespace or an exit code.
 */
export function parseOrExit(
  parser: ArgumentParser,
  argv: readonly string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env?: NodeJS.ProcessEnv },
  helpExitCode = 0,
): { ns: Namespace } | { exitCode: number } {
  parser.width = formatWidth(io.env ?? process.env, io.stdout as unknown as { isTTY?: boolean; columns?: number });
  try {
    return { ns: parser.parseArgs(argv) };
  } catch (e) {
    if (!(e instanceof ArgumentParserError)) throw e;
    if (e.kind === 'help' || e.kind === 'version') {
      io.stdout.write(e.message);
      return { exitCode: e.kind === 'help' ? helpExitCode : 0 };
    }
    e.parser.width = parser.width;
    io.stderr.write(e.parser.formatError(e));
    return { exitCode: 1 };
  }
}
