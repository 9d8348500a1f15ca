// Text layout of jopt-simple's BuiltinHelpFormatter (5.0.4, the version Kafka ships): the two-column
// "Option / Description" table, with each cell cut into pieces at the line-break opportunities of
// the JDK's `BreakIterator.getLineInstance()` (sun.text RuleBasedBreakIterator, LineBreakRules), so
// tkafka's help wraps exactly where Kafka's does: after spaces, after trailing punctuation such as
// `.` `,` `:` `)` (so `org.apache.kafka.` breaks after each dot), after dashes (`print-`/`data-log`),
// never inside numbers like `1.5` or `-1`.

const BREAK = /[\u0003\t\n\f\u2028\u2029]/u;
const NBSP = /[\u00a0\u2007\u2011\ufeff]/u;
const SPACE_OR_CC = /[\p{Zs}\p{Cc}]/u;
const DASH = /[\p{Pd}\u00ad]/u;
const PRE_WORD = /[\p{Sc}\p{Ps}\p{Pi}"']/u;
const POST_WORD =
  // eslint-disable-next-line no-misleading-character-class -- Java's table, combining marks (\u3099) included
  /[\p{Pe}\p{Pf}!"'%.,:;?\u00a2\u00b0\u066a\u2030-\u2034\u2103\u2105\u2109\u3001\u3002\u3005\u3041\u3043\u3045\u3047\u3049\u3063\u3083\u3085\u3087\u308e\u3099-\u309e\u30a1\u30a3\u30a5\u30a7\u30a9\u30c3\u30e3\u30e5\u30e7\u30ee\u30f5\u30f6\u30fc-\u30fe\uff01\uff0c\uff0e\uff1f]/u;
const KANJI = /[\u3400-\u4db5\u4e00-\u9fa5\uf900-\ufa6a\u3041-\u3094\u30a1-\u30fa]/u;
const DIGIT = /[\p{Nd}\p{No}]/u;
const DANDA = /[\u0964\u0965]/u;

const isBreak = (c: string): boolean => BREAK.test(c);
const isNbsp = (c: string): boolean => NBSP.test(c);
const isSpace = (c: string): boolean => SPACE_OR_CC.test(c) && !isNbsp(c) && !isBreak(c) && c !== '\r';
const isDash = (c: string): boolean => DASH.test(c) && !isNbsp(c);
const isPost = (c: string): boolean => POST_WORD.test(c);
const isPre = (c: string): boolean => PRE_WORD.test(c) && c !== '\u00a2';
const isKanji = (c: string): boolean => KANJI.test(c) && !isPost(c);
const isDigit = (c: string): boolean => DIGIT.test(c);
const isMidNum = (c: string): boolean => c === '.' || c === ',';
const isChar = (c: string): boolean =>
  !(
    isBreak(c) ||
    isSpace(c) ||
    isDash(c) ||
    isKanji(c) ||
    isNbsp(c) ||
    isPre(c) ||
    isPost(c) ||
    isMidNum(c) ||
    DANDA.test(c) ||
    c === '\r'
  );

/** Every end position of `$word` = $pre_word* $word_core $word_suffix starting at i. */
function wordEnds(s: string, i: number): Set<number> {
  const n = s.length;
  const out = new Set<number>();
  const preEnds = [i];
  for (let j = i; j < n && isPre(s[j]!); j++) preEnds.push(j + 1);
  for (const p of preEnds) {
    const cores = new Set<number>([p]);
    // [$pre_word$char]*
    for (let j = p; j < n && (isPre(s[j]!) || isChar(s[j]!)); j++) cores.add(j + 1);
    // $kanji
    if (p < n && isKanji(s[p]!)) cores.add(p + 1);
    // $number = [$pre_word$dash]* $digit+ ($mid_num $digit+)*
    let k = p;
    while (k < n && (isPre(s[k]!) || isDash(s[k]!))) k++;
    if (k < n && isDigit(s[k]!)) {
      for (;;) {
        while (k < n && isDigit(s[k]!)) cores.add(++k);
        if (k + 1 < n && isMidNum(s[k]!) && isDigit(s[k + 1]!)) k++;
        else break;
      }
    }
    for (const c of cores) {
      // ($dash+ | $post_word*) $space*
      const suffixes = [c];
      for (let j = c; j < n && isDash(s[j]!); j++) suffixes.push(j + 1);
      for (let j = c; j < n && isPost(s[j]!); j++) suffixes.push(j + 1);
      for (const e of suffixes) {
        out.add(e);
        for (let j = e; j < n && isSpace(s[j]!); j++) out.add(j + 1);
      }
    }
  }
  return out;
}

/** End of the line-break "word" starting at i: longest match of `$word($nbsp+$word)*\r?$break?`. */
function nextBoundary(s: string, i: number): number {
  const n = s.length;
  const all = new Set<number>(wordEnds(s, i));
  let frontier = [...all];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const e of frontier) {
      for (let j = e; j < n && isNbsp(s[j]!); j++) {
        for (const w of wordEnds(s, j + 1))
          if (!all.has(w)) {
            all.add(w);
            next.push(w);
          }
      }
    }
    frontier = next;
  }
  let best = i + 1;
  for (const e of all) {
    let x = e;
    if (x > best) best = x;
    if (x < n && s[x] === '\r') x++;
    if (x > best) best = x;
    if (x < n && isBreak(s[x]!) && x + 1 > best) best = x + 1;
  }
  return Math.min(best, n);
}

/** The pieces BreakIterator.getLineInstance() cuts a line into (concatenated they give the line). */
export function lineBreakWords(line: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < line.length;) {
    const end = nextBoundary(line, i);
    out.push(line.slice(i, end));
    i = end;
  }
  return out;
}

const INDENT = '  ';

/** Java String.trim(): strips characters <= U+0020 at both ends. */
export function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

/** jopt-simple Columns.piecesOf: one cell cut into lines no wider than `width` (continuations indented). */
export function cellPieces(raw: string, width: number): string[] {
  const pieces: string[] = [];
  for (const line of javaTrim(raw).split('\n')) {
    let next = '';
    for (const word of lineBreakWords(line)) {
      if (next.length + word.length > width) {
        pieces.push(next.replace(/[ \t\n\x0B\f\r]+$/, ''));
        next = INDENT + word;
      } else next += word;
    }
    if (next.length > 0) pieces.push(next);
  }
  return pieces;
}

/** jopt-simple Rows: fit every row to the overall width, then render padded columns. */
export function renderRows(
  rows: readonly (readonly [string, string])[],
  overallWidth = 80,
  separatorWidth = 2,
): string {
  const widths = (rs: readonly (readonly [string, string])[]): [number, number] => {
    let wo = 0;
    let wd = 0;
    for (const [o, d] of rs) {
      wo = Math.max(wo, o.length);
      wd = Math.max(wd, d.length);
    }
    const optionWidth = Math.min(Math.floor((overallWidth - separatorWidth) / 2), wo);
    return [optionWidth, Math.min(overallWidth - optionWidth - separatorWidth, wd)];
  };
  const [ow, dw] = widths(rows);
  const fitted: [string, string][] = [];
  for (const [o, d] of rows) {
    const os = cellPieces(o, ow);
    const ds = cellPieces(d, dw);
    for (let i = 0; i < Math.max(os.length, ds.length); i++) fitted.push([os[i] ?? '', ds[i] ?? '']);
  }
  const [fo, fd] = widths(fitted);
  const pad = (s: string, w: number): string => s + ' '.repeat(Math.max(0, w - s.length));
  let out = '';
  for (const [o, d] of fitted) out += pad(o, fo) + ' '.repeat(separatorWidth) + pad(d, fd) + '\n';
  return out;
}
