// Text layout of argparse4j 0.7.0 (TextHelper): terminal width, line-break segments, justified
// wrapping, two-column help rows, and the Levenshtein variant behind "Did you mean".

/** The width argparse4j formats text to: $COLUMNS (or the terminal width) minus 5, else 75. */
export function formatWidth(
  env: NodeJS.ProcessEnv = process.env,
  stream?: { isTTY?: boolean; columns?: number },
): number {
  const cols =
    env.COLUMNS !== undefined
      ? /^-?\d+$/.test(env.COLUMNS.trim())
        ? Number(env.COLUMNS.trim())
        : -1
      : stream?.isTTY && stream.columns
        ? stream.columns
        : -1;
  const w = cols - 5;
  return cols === -1 || w <= 0 ? 75 : w;
}

/** Split text at line-break opportunities (after blanks, newlines, and word-internal hyphens). */
function segments(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    cur += c;
    const next = s[i + 1];
    const breakAfter =
      c === '\n' ||
      ((c === ' ' || c === '\t') && next !== ' ' && next !== '\t' && next !== '\n') ||
      (c === '-' && /[A-Za-z0-9]/.test(s[i - 1] ?? '') && /[A-Za-z]/.test(next ?? ''));
    if (breakAfter) {
      out.push(cur);
      cur = '';
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** TextHelper.adjustSpace: trim, then widen blank runs so the line fills `width`. */
function adjustSpace(line: string, width: number, curWidth: number): string {
  const trimmed = line.replace(/^ +/, '').replace(/ +$/, '');
  curWidth -= line.length - trimmed.length;
  const blocks = trimmed.split(/( +)/);
  const numWs = blocks.filter((_b, i) => i % 2 === 1).length;
  if (numWs === 0) return trimmed;
  const need = width - curWidth;
  const each = Math.floor(need / numWs);
  const rem = need % numWs;
  const remStart = Math.floor((numWs - rem + 1) / 2);
  let b = 0;
  return blocks
    .map((blk, i) => {
      if (i % 2 === 0) return blk;
      const add = each + (remStart <= b && b < remStart + rem ? 1 : 0);
      b++;
      return ' '.repeat(Math.max(0, add)) + blk;
    })
    .join('');
}

/** TextHelper.wrap. */
export function wrapText(
  s: string,
  width: number,
  initialOffset: number,
  initialIndent: string,
  subsequentIndent: string,
): string {
  let res = initialIndent;
  let sb = '';
  let cur = initialOffset + initialIndent.length;
  for (const sub of segments(s)) {
    cur += sub.length;
    if (cur > width) {
      res += adjustSpace(sb, width, cur - sub.length) + '\n' + subsequentIndent;
      sb = '';
      cur = subsequentIndent.length + sub.length;
    }
    sb += sub;
    if (sub.endsWith('\n')) {
      res += sb + subsequentIndent;
      sb = '';
      cur = subsequentIndent.length;
    }
  }
  return res + sb;
}

/** TextHelper.printHelp: a two-column help row with the text at column 25. */
export function helpRow(title: string, help: string, width: number): string {
  let out = '  ' + title;
  if (help === '') return out + '\n';
  if (title.length <= 21) out += ' '.repeat(25 - title.length - 2);
  else out += '\n' + ' '.repeat(25);
  return out + wrapText(help, width, 25, '', ' '.repeat(25)) + '\n';
}

/** argparse4j's Levenshtein variant (costs from git's help.c). */
export function levenshtein(a: string, b: string, swap: number, sub: number, add: number, del: number): number {
  let prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : sub);
      if (i >= 2 && j >= 2 && a[i - 1] !== b[j - 1] && a[i - 2] === b[j - 1] && a[i - 1] === b[j - 2]) {
        cur[j] = Math.min(cur[j], prev2[j - 2] + swap);
      }
      cur[j] = Math.min(cur[j], prev[j] + del, cur[j - 1] + add);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[b.length];
}
