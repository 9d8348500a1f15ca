// Rendering of a tool's view model: Kafka's text lines (the default, written by each tool), JSON
// (`--output json`: a stable, documented shape, one document per run) and tables
// (`--output table`: cli-table3, loaded only when used; colours and box styling only on a TTY).
import type { ToolIO } from './io.js';

export type OutputFormat = 'text' | 'json' | 'table';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['text', 'json', 'table'];

/** Help text for `--output`, shared by every read command. */
export const OUTPUT_HELP =
  'Output format: text (the default: the same lines as the Kafka tool), json (one JSON document, stable field names) or table.';

export class OutputFormatError extends Error {
  override name = 'OutputFormatError';
}

export function parseOutputFormat(value: string | undefined | null): OutputFormat {
  if (value === undefined || value === null || value === '') return 'text';
  const v = value.trim().toLowerCase();
  if ((OUTPUT_FORMATS as readonly string[]).includes(v)) return v as OutputFormat;
  throw new OutputFormatError(`Invalid value '${value}' for --output: expected one of ${OUTPUT_FORMATS.join(', ')}`);
}

/** JSON.stringify that writes bigints as numbers when exact, else as strings. */
export function toJson(value: unknown, indent = 2): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (typeof v === 'bigint')
        return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
      if (v instanceof Map) return Object.fromEntries(v);
      if (v instanceof Set) return [...v];
      return v;
    },
    indent,
  );
}

export function writeJson(io: ToolIO, value: unknown): void {
  io.stdout.write(toJson(value) + '\n');
}

export function writeLines(io: ToolIO, lines: readonly string[]): void {
  if (lines.length > 0) io.stdout.write(lines.join('\n') + '\n');
}

function isTTY(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

export type Cell = string | number | bigint | boolean | null | undefined;

export interface TableSection {
  /** Optional caption printed above the table. */
  title?: string;
  head: string[];
  rows: Cell[][];
}

const PLAIN_CHARS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};

/**
 * Writes one or more tables. On a terminal: cli-table3's boxed style with coloured headers. Not on
 * a terminal (pipes, files, tests): no colours and no box, just aligned columns.
 */
export async function writeTables(io: ToolIO, sections: readonly TableSection[]): Promise<void> {
  const { default: Table } = await import('cli-table3');
  const tty = isTTY(io.stdout);
  const out: string[] = [];
  for (const s of sections) {
    if (s.title !== undefined) out.push(s.title);
    const table = new Table({
      head: s.head,
      style: tty ? { head: ['cyan'], border: [] } : { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
      ...(tty ? {} : { chars: PLAIN_CHARS }),
    });
    for (const r of s.rows)
      table.push(r.map((c) => (c === null || c === undefined ? '' : typeof c === 'bigint' ? c.toString() : c)));
    const text = table.toString();
    out.push(
      tty
        ? text
        : text
            .split('\n')
            .map((l) => l.replace(/\s+$/, ''))
            .join('\n'),
    );
  }
  if (out.length > 0) io.stdout.write(out.join('\n') + '\n');
}

export function writeTable(io: ToolIO, head: string[], rows: Cell[][]): Promise<void> {
  return writeTables(io, [{ head, rows }]);
}
