// One description of every tkafka command, read from the same definitions that produce `--help`:
// jopt-style tool specs (JoptToolSpec), argparse4j-style parsers (ArgumentParser), the small
// sub-command specs of tkafka-only tools (SubcommandSpec) and commander commands (`server start`).
// Man pages (man.ts) and shell completions (scripts.ts) are rendered from this model only.
import type { Command, Option as CommanderOption } from 'commander';
import { ArgumentParser } from '../common/argparse.js';
import { HELP_OPTION, VERSION_OPTION, formatJoptHelp, type JoptOptionSpec, type JoptToolSpec } from '../common/jopt.js';

/** What a shell should offer for an option's value (or a positional argument). */
export type CompletionKind = 'file' | 'directory' | 'host:port' | 'topic' | 'group' | 'none';

export interface OptionDoc {
  /** With dashes, in declaration order: `['--controller-id', '-i']`. */
  readonly flags: readonly string[];
  /** The value's name (jopt describedAs / argparse metavar); absent for switches. */
  readonly arg?: string;
  /** The value may be left out (jopt withOptionalArg). */
  readonly argOptional?: boolean;
  /** Several values per occurrence (argparse nargs '+' / '*'). */
  readonly multi?: boolean;
  /** May be given several times. */
  readonly repeatable?: boolean;
  readonly description: string;
  readonly required?: boolean;
  readonly defaults?: readonly string[];
  /** Fixed set of accepted values. */
  readonly choices?: readonly string[];
  readonly complete: CompletionKind;
  /** A tkafka addition, not a flag of the Kafka tool. */
  readonly extension?: boolean;
}

export interface PositionalDoc {
  readonly name: string;
  readonly description: string;
  readonly choices?: readonly string[];
  readonly complete: CompletionKind;
  readonly optional?: boolean;
  readonly multi?: boolean;
}

export type ParserStyle = 'jopt' | 'argparse' | 'commander' | 'tkafka';

export interface CommandDoc {
  /** The word typed: `topics`, `describe`. */
  readonly name: string;
  /** Words after `tkafka`: `['metadata-quorum', 'describe']`. */
  readonly path: readonly string[];
  readonly summary: string;
  readonly description: string;
  readonly epilog?: string;
  /** The Apache Kafka script this command replaces (`kafka-topics.sh`). */
  readonly kafka?: string;
  readonly style: ParserStyle;
  /** Synopsis lines, each starting with `tkafka`. */
  readonly usage: readonly string[];
  readonly positionals: readonly PositionalDoc[];
  readonly options: readonly OptionDoc[];
  readonly subcommands: readonly CommandDoc[];
  /** Exactly what `--help` prints (empty when the command has no help of its own). */
  readonly help: string;
}

/** The spec shape of tkafka-only tools with sub-commands (e.g. `tkafka profile`). */
export interface SubcommandSpec {
  readonly name: string;
  readonly description: string;
  readonly commands: readonly {
    readonly name: string;
    readonly args: string;
    readonly description: string;
    readonly options: readonly {
      readonly name: string;
      readonly arg?: string;
      readonly required?: boolean;
      readonly multiple?: boolean;
      readonly description: string;
    }[];
  }[];
}

/** Anything a registry entry's `spec()` may return. */
export type ToolSpec = JoptToolSpec | ArgumentParser | SubcommandSpec;

/** Where a value's completion comes from when the definition gives no hint: by the option's name. */
export function inferCompletion(flags: readonly string[], argName = ''): CompletionKind {
  const longs = flags.map((f) => f.replace(/^-+/, ''));
  if (longs.some((n) => n === 'topic')) return 'topic';
  if (longs.some((n) => n === 'group')) return 'group';
  if (longs.some((n) => n === 'bootstrap-server' || n === 'bootstrap-controller')) return 'host:port';
  if (
    longs.some(
      (n) => n === 'config' || n === 'command-config' || n === 'files' || n.endsWith('.config') || n.endsWith('-file'),
    )
  )
    return 'file';
  if (/\bfile\b/i.test(argName)) return 'file';
  if (longs.some((n) => n === 'dir' || n.endsWith('-dir') || n.endsWith('.dir'))) return 'directory';
  return 'none';
}

// ---- jopt ------------------------------------------------------------------------------------

function joptOption(o: JoptOptionSpec): OptionDoc {
  const arranged = [...o.names].sort(
    (a, b) => (a.length === 1 ? -1 : 0) - (b.length === 1 ? -1 : 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const flags = arranged.map((n) => (n.length === 1 ? '-' : '--') + n).sort((a, b) => b.length - a.length);
  const hint = o.complete;
  let complete: CompletionKind;
  let choices: readonly string[] | undefined;
  if (Array.isArray(hint)) {
    choices = hint as readonly string[];
    complete = 'none';
  } else if (hint === 'file' || hint === 'directory' || hint === 'host:port') complete = hint;
  else complete = o.arg ? inferCompletion(flags, o.arg.name) : 'none';
  const typeName = o.arg?.type && o.arg.type !== 'String' ? o.arg.type : '';
  const argName = o.arg
    ? o.arg.name
      ? typeName
        ? `${typeName}: ${o.arg.name}`
        : o.arg.name
      : typeName || 'String'
    : undefined;
  return {
    flags,
    ...(argName !== undefined ? { arg: argName } : {}),
    ...(o.arg?.optional ? { argOptional: true } : {}),
    description: o.description ?? '',
    ...(o.required ? { required: true } : {}),
    ...(o.arg?.defaults && o.arg.defaults.length > 0 ? { defaults: o.arg.defaults.map(String) } : {}),
    ...(choices ? { choices } : {}),
    complete,
    ...(o.extension ? { extension: true } : {}),
  };
}

/** A jopt tool: options sorted as jopt's help table sorts them, `--help` and `--version` included. */
export function fromJopt(spec: JoptToolSpec, base: { name?: string; summary: string; kafka?: string }): CommandDoc {
  const name = base.name ?? spec.name;
  const all = spec.defaultOptions === false ? [...spec.options] : [...spec.options, HELP_OPTION, VERSION_OPTION];
  const visible = all.filter((o) => !o.hidden);
  const key = (o: JoptOptionSpec): string => [...o.names].sort()[0]!;
  visible.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const options = visible.map(joptOption);
  const required = options.filter((o) => o.required).map((o) => `${o.flags[0]} ${o.arg ? `<${o.arg}>` : ''}`.trim());
  const usage = [
    `tkafka ${name} ${[...required, '[OPTION]...'].join(' ')}${spec.positional ? ` [${spec.positional.name.toUpperCase()}]...` : ''}`,
  ];
  return {
    name,
    path: [name],
    summary: base.summary,
    description: spec.description,
    ...((base.kafka ?? spec.kafkaScript) ? { kafka: base.kafka ?? spec.kafkaScript } : {}),
    style: 'jopt',
    usage,
    positionals: spec.positional
      ? [
          {
            name: spec.positional.name,
            description: spec.positional.description,
            complete: 'file',
            optional: true,
            multi: true,
          },
        ]
      : [],
    options,
    subcommands: [],
    help: `${spec.description}\n${formatJoptHelp(spec)}`,
  };
}

// ---- argparse --------------------------------------------------------------------------------

/** The fields of ArgumentParser's arguments the model reads (they are declared private there). */
interface ArgInternals {
  flags: string[];
  dest: string;
  action: string;
  min: number;
  max: number;
  required?: boolean;
  help?: string;
  metavar?: string;
  choices?: readonly string[];
  default?: unknown;
  suppress?: boolean;
  positional: boolean;
  type?: unknown;
}
interface ParserInternals {
  prog: string;
  command?: string;
  description: string;
  epilog: string;
  optargs: ArgInternals[];
  posargs: ArgInternals[];
  subparsers: Map<string, { parser: ArgumentParser; help: string }>;
}
const internals = (p: ArgumentParser): ParserInternals => p as unknown as ParserInternals;
const consumes = (a: ArgInternals): boolean => a.action === 'store' || a.action === 'append';

function argMetavar(a: ArgInternals): string {
  return a.metavar ?? (a.choices ? `{${a.choices.join(',')}}` : a.positional ? a.dest : a.dest.toUpperCase());
}

function argparseOption(a: ArgInternals): OptionDoc {
  const takes = consumes(a);
  const flags = [...a.flags];
  let complete: CompletionKind = takes ? inferCompletion(flags, a.metavar ?? '') : 'none';
  if (a.choices) complete = 'none';
  const dflt = a.default;
  const showDefault = takes && dflt !== undefined && dflt !== null && !(Array.isArray(dflt) && dflt.length === 0);
  return {
    flags,
    ...(takes ? { arg: argMetavar(a) } : {}),
    ...(takes && a.min === 0 && a.max === 1 ? { argOptional: true } : {}),
    ...(takes && a.max > 1 ? { multi: true } : {}),
    ...(a.action === 'append' || a.action === 'appendConst' || a.action === 'count' ? { repeatable: true } : {}),
    description: a.help ?? '',
    ...(a.required ? { required: true } : {}),
    ...(showDefault ? { defaults: [String(dflt)] } : {}),
    ...(a.choices ? { choices: a.choices } : {}),
    complete,
    ...(/^tkafka[:.]/.test(a.help ?? '') ? { extension: true } : {}),
  };
}

function usageOf(p: ArgumentParser, prog: string, words: readonly string[]): string {
  const saved = p.width;
  p.width = 100_000;
  try {
    const line = p
      .formatUsage()
      .replace(/^usage:\s*/, '')
      .replace(/\s+/g, ' ')
      .trim();
    const own = internals(p).prog;
    const rest = line.startsWith(own) ? line.slice(own.length) : ` ${line}`;
    return `${prog}${rest}`.replace(/\s+/g, ' ').trim() || words.join(' ');
  } finally {
    p.width = saved;
  }
}

/** An argparse4j-style tool and its sub-commands. */
export function fromArgparse(
  parser: ArgumentParser,
  base: { name: string; summary: string; kafka?: string; path?: readonly string[] },
): CommandDoc {
  const path = base.path ?? [base.name];
  const i = internals(parser);
  const prog = `tkafka ${path[0]}`;
  const subcommands: CommandDoc[] = [];
  for (const [name, { parser: sub, help }] of i.subparsers) {
    const si = internals(sub);
    subcommands.push({
      name,
      path: [...path, name],
      summary: help,
      description: si.description || help,
      style: 'argparse',
      usage: [usageOf(sub, prog, [...path, name])],
      positionals: si.posargs.filter((a) => !a.suppress).map(argparsePositional),
      options: si.optargs.filter((a) => !a.suppress).map(argparseOption),
      subcommands: [],
      help: withWidth(sub, () => sub.formatHelp()),
    });
  }
  return {
    name: base.name,
    path,
    summary: base.summary,
    description: i.description || base.summary,
    ...(i.epilog ? { epilog: i.epilog } : {}),
    ...(base.kafka ? { kafka: base.kafka } : {}),
    style: 'argparse',
    usage: [usageOf(parser, prog, path)],
    positionals: i.posargs.filter((a) => !a.suppress).map(argparsePositional),
    options: i.optargs.filter((a) => !a.suppress).map(argparseOption),
    subcommands,
    help: withWidth(parser, () => parser.formatHelp()),
  };
}

function argparsePositional(a: ArgInternals): PositionalDoc {
  return {
    name: argMetavar(a),
    description: a.help ?? '',
    ...(a.choices ? { choices: a.choices } : {}),
    complete: a.choices ? 'none' : inferCompletion([a.dest], a.metavar ?? a.dest),
    ...(a.min === 0 ? { optional: true } : {}),
    ...(a.max > 1 ? { multi: true } : {}),
  };
}

function withWidth<T>(p: ArgumentParser, f: () => T): T {
  const saved = p.width;
  p.width = 75;
  try {
    return f();
  } finally {
    p.width = saved;
  }
}

// ---- tkafka sub-command specs ------------------------------------------------------------------

export function fromSubcommandSpec(
  spec: SubcommandSpec,
  base: { summary: string; kafka?: string },
  help: string,
): CommandDoc {
  const path = [spec.name];
  const subcommands: CommandDoc[] = spec.commands.map((c) => {
    const options: OptionDoc[] = c.options.map((o) => ({
      flags: [`--${o.name}`],
      ...(o.arg ? { arg: o.arg } : {}),
      ...(o.multiple ? { repeatable: true } : {}),
      description: o.description,
      ...(o.required ? { required: true } : {}),
      ...(o.name === 'output' ? { choices: ['text', 'json', 'table'] } : {}),
      complete: o.arg && o.name !== 'output' ? inferCompletion([`--${o.name}`], o.arg) : 'none',
    }));
    const args = c.args.trim();
    return {
      name: c.name,
      path: [...path, c.name],
      summary: c.description,
      description: c.description,
      style: 'tkafka' as const,
      usage: [`tkafka ${spec.name} ${c.name}${args ? ` ${args}` : ''}${options.length ? ' [OPTION]...' : ''}`],
      positionals: args
        ? [
            {
              name: args.replace(/[[\]]/g, ''),
              description: '',
              complete: 'none' as const,
              ...(args.startsWith('[') ? { optional: true } : {}),
            },
          ]
        : [],
      options,
      subcommands: [],
      help: '',
    };
  });
  return {
    name: spec.name,
    path,
    summary: base.summary,
    description: spec.description,
    ...(base.kafka ? { kafka: base.kafka } : {}),
    style: 'tkafka',
    usage: [`tkafka ${spec.name} <command> [OPTION]...`],
    positionals: [],
    options: [],
    subcommands,
    help,
  };
}

// ---- commander ---------------------------------------------------------------------------------

function commanderOption(o: CommanderOption): OptionDoc {
  const flags = [o.long, o.short].filter((f): f is string => !!f);
  const m = /[<[]([^>\]]+)[>\]]/.exec(o.flags);
  const arg = m ? m[1]!.replace(/\.\.\.$/, '') : undefined;
  return {
    flags,
    ...(arg ? { arg } : {}),
    ...(o.optional ? { argOptional: true } : {}),
    ...(o.variadic ? { repeatable: true } : {}),
    description: o.description,
    ...(o.mandatory ? { required: true } : {}),
    ...(o.argChoices ? { choices: o.argChoices } : {}),
    complete: arg ? inferCompletion(flags, arg) : 'none',
  };
}

const HELP_DOC: OptionDoc = { flags: ['--help', '-h'], description: 'display help for command', complete: 'none' };

/** A commander command (e.g. `server`) and its sub-commands. */
export function fromCommander(cmd: Command, path: readonly string[], extra: { kafka?: string } = {}): CommandDoc {
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const args = cmd.registeredArguments.map(
    (a) =>
      ({
        name: a.name(),
        description: a.description,
        complete: inferCompletion([a.name()], a.name()),
        ...(a.required ? {} : { optional: true }),
        ...(a.variadic ? { multi: true } : {}),
      }) satisfies PositionalDoc,
  );
  const argText = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`)).join(' ');
  const options = [...cmd.options.filter((o) => !o.hidden).map(commanderOption), HELP_DOC];
  return {
    name: cmd.name(),
    path,
    summary: cmd.description(),
    description: cmd.description(),
    ...(extra.kafka ? { kafka: extra.kafka } : {}),
    style: 'commander',
    usage: [
      `tkafka ${path.join(' ')}${subs.length ? ' <command>' : ''}${options.length > 1 ? ' [OPTION]...' : ''}${argText ? ` ${argText}` : ''}`,
    ],
    positionals: args,
    options,
    subcommands: subs.map((c) => fromCommander(c, [...path, c.name()])),
    help: cmd.helpInformation(),
  };
}

/** Every option of a command and its sub-commands (for checks). */
export function allOptions(doc: CommandDoc): OptionDoc[] {
  return [...doc.options, ...doc.subcommands.flatMap(allOptions)];
}
