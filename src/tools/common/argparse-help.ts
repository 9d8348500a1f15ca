// argparse4j's (0.7.0) usage, help and error layout for argparse.ts: usage lines wrapped at the
// width, two-column help rows, `prog: error: msg` and the "Did you mean" hints. Works on a plain
// view of a parser (HelpParser) that ArgumentParser builds for each call.
import { helpRow, levenshtein, wrapText } from './argparse-text.js';

/** The parts of an argument the help layout reads (ArgumentParser's Arg fits it). */
export interface HelpArg {
  flags: readonly string[];
  dest: string;
  action: string;
  min: number;
  max: number;
  positional: boolean;
  metavar?: string;
  choices?: readonly string[];
  required?: boolean;
  suppress?: boolean;
  help?: string;
  /** The mutually exclusive group, if any (only its presence matters here). */
  group?: unknown;
}

export interface HelpGroup {
  required: boolean;
  args: readonly HelpArg[];
}

/** What the layout needs of an ArgumentParser (and of its main parser, for sub-commands). */
export interface HelpParser {
  prog: string;
  command?: string;
  main?: HelpParser;
  optargs: readonly HelpArg[];
  posargs: readonly HelpArg[];
  groups: readonly HelpGroup[];
  subparsers: ReadonlyMap<string, { help: string }>;
  subHelp: string;
  /** Set when the commands have their own titled section (argparse4j title), with this metavar. */
  subTitle?: string;
  subMetavar?: string;
  description: string;
  epilog: string;
  width: number;
}

export const isFlagLike = (s: string): boolean => /^-+./.test(s) && !/^-+$/.test(s);
export const bodyOf = (flag: string): string => flag.replace(/^-+/, '');
export const consumes = (a: { action: string }): boolean => ['store', 'append'].includes(a.action);

function metavar(a: HelpArg): string {
  if (!consumes(a)) return '';
  const mv = a.metavar ?? (a.choices ? `{${a.choices.join(',')}}` : a.positional ? a.dest : a.dest.toUpperCase());
  if (a.min === 0 && a.max === 1) return `[${mv}]`;
  if (a.min === 0 && a.max === Infinity) return `[${mv} [${mv} ...]]`;
  if (a.min === 1 && a.max === Infinity) return `${mv} [${mv} ...]`;
  if (a.min > 0) return Array(a.min).fill(mv).join(' ');
  return mv;
}

function shortSyntax(a: HelpArg, brackets: boolean): string {
  if (a.positional) return metavar(a);
  const mv = metavar(a);
  const s = a.flags[0] + (mv ? ' ' + mv : '');
  return brackets && !a.required ? `[${s}]` : s;
}

function usageTokens(p: HelpParser): string[] {
  const tokens: string[] = [];
  const upper = (q: HelpParser | undefined): void => {
    if (!q) return;
    upper(q.main);
    if (q.command) tokens.push(q.command);
    for (const a of q.optargs) if (!a.suppress && a.required && !a.group) tokens.push(shortSyntax(a, true));
    for (const a of q.posargs) if (!a.suppress) tokens.push(shortSyntax(a, true));
  };
  upper(p.main);
  if (p.command) tokens.push(p.command);
  for (const a of p.optargs) if (!a.suppress && !a.group) tokens.push(shortSyntax(a, true));
  for (const g of p.groups) {
    const args = g.args.filter((a) => !a.suppress);
    if (args.length > 1) {
      tokens.push((g.required ? '(' : '[') + shortSyntax(args[0], false));
      for (const a of args.slice(1, -1)) tokens.push('|', shortSyntax(a, false));
      tokens.push('|', shortSyntax(args[args.length - 1], false) + (g.required ? ')' : ']'));
    } else if (args.length === 1) {
      tokens.push(shortSyntax(args[0], !g.required));
    }
  }
  for (const a of p.posargs) if (!a.suppress) tokens.push(shortSyntax(a, true));
  if (p.subparsers.size) tokens.push(p.subMetavar || `{${[...p.subparsers.keys()].join(',')}}`, '...');
  return tokens;
}

export function formatUsage(p: HelpParser): string {
  const usageprog = 'usage: ' + p.prog;
  let out = usageprog;
  let offset: number;
  let first: string;
  let subsequent: string;
  if (usageprog.length > 30) {
    out += '\n';
    offset = 6;
    first = subsequent = ' '.repeat(6);
  } else {
    offset = usageprog.length;
    first = '';
    subsequent = ' '.repeat(offset);
  }
  out += first;
  let cur = offset + first.length;
  let isFirst = true;
  for (const syntax of usageTokens(p)) {
    if (!isFirst && cur + syntax.length + 1 > p.width) {
      out += '\n' + subsequent + ' ' + syntax;
      cur = subsequent.length + 1 + syntax.length;
    } else {
      out += ' ' + syntax;
      cur += 1 + syntax.length;
      isFirst = false;
    }
  }
  return out + '\n';
}

export function formatHelp(p: HelpParser): string {
  let out = formatUsage(p);
  if (p.description) out += '\n' + wrapText(p.description, p.width, 0, '', '') + '\n';
  const titled = p.subparsers.size > 0 && !!p.subTitle;
  if (p.posargs.length || (p.subparsers.size && !titled)) {
    out += '\npositional arguments:\n';
    for (const a of p.posargs) if (!a.suppress) out += helpRow(metavar(a), a.help ?? '', p.width);
    if (p.subparsers.size && !titled) {
      out += helpRow(`{${[...p.subparsers.keys()].join(',')}}`, p.subHelp, p.width);
      for (const [cmd, { help }] of p.subparsers) if (help) out += helpRow('  ' + cmd, help, p.width);
    }
  }
  if (p.optargs.length) {
    out += '\noptional arguments:\n';
    for (const a of p.optargs) {
      if (a.suppress) continue;
      const mv = metavar(a);
      out += helpRow(a.flags.map((f) => f + (mv ? ' ' + mv : '')).join(', '), a.help ?? '', p.width);
    }
  }
  if (titled) {
    out +=
      `\n${p.subTitle}:\n` + helpRow(p.subMetavar || `{${[...p.subparsers.keys()].join(',')}}`, p.subHelp, p.width);
    for (const [cmd, { help }] of p.subparsers) if (help) out += helpRow('  ' + cmd, help, p.width);
  }
  if (p.epilog) out += '\n' + wrapText(p.epilog, p.width, 0, '', '') + '\n';
  return out;
}

/** The stderr text for a parse error: usage, `prog: error: msg`, and "Did you mean" hints. */
export function formatError(p: HelpParser, err: { message: string; kind: string; subject: string }): string {
  let out = formatUsage(p) + wrapText(`${p.prog}: error: ${err.message}\n`, p.width, 0, '', '');
  let subjects: Array<[string, string]> = [];
  let body = err.subject;
  if (err.kind === 'unrecognized-flag' && isFlagLike(err.subject) && bodyOf(err.subject).length >= 2) {
    body = bodyOf(err.subject);
    subjects = p.optargs.flatMap((a) =>
      a.flags.filter((f) => bodyOf(f).length > 1).map((f): [string, string] => [f, bodyOf(f)]),
    );
  } else if (err.kind === 'unrecognized-command') {
    subjects = [...p.subparsers.keys()].map((c): [string, string] => [c, c]);
  }
  if (subjects.length) {
    const cands = subjects
      .map(([subject, b]) => ({ subject, sim: b.startsWith(body) ? 0 : levenshtein(body, b, 0, 2, 1, 4) }))
      .sort((x, y) => x.sim - y.sim || (x.subject < y.subject ? -1 : x.subject > y.subject ? 1 : 0));
    const threshold = cands[0].sim;
    if (threshold < 7) {
      out += '\nDid you mean:\n';
      for (const c of cands) {
        if (c.sim > threshold) break;
        out += `\t${c.subject}\n`;
      }
    }
  }
  return out;
}
