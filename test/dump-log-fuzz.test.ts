// Fuzzing `tkafka dump-log` with mutated segment, index, time index, snapshot and transaction index
// files (seeded, reproducible: TKAFKA_FUZZ_SEED, TKAFKA_FUZZ_CASES). Every case must end with exit
// status 0 or 1, print only clean reports on stderr (Kafka's own report lines or tkafka's
// `Error in <file> at position <n>: <reason>`; never a JS exception or stack), valid JSON lines in
// --output json mode, and finish within a bounded time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from '../src/tools/dump-log/main.js';
import { GOLDEN } from './dump-log-fixtures.js';

const SEED = Number(process.env.TKAFKA_FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.TKAFKA_FUZZ_CASES ?? 10_000);
const PER_CASE_MS = 2_000;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-dump-log-fuzz-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string): Buffer => Buffer.from(GOLDEN.files[name]!, 'base64');

interface Base {
  /** File name inside the case folder. */
  name: string;
  bytes: Buffer;
  /** Sibling files written unmutated (the `.log` an index needs, ...). */
  siblings?: Record<string, Buffer>;
  flags: string[][];
}

const LOG_FLAGS = [
  [],
  ['--deep-iteration'],
  ['--print-data-log'],
  ['--print-data-log', '--skip-record-metadata'],
  ['--output', 'json', '--print-data-log'],
  ['--max-bytes', '700'],
];
const BASES: Base[] = [
  { name: '00000000000000000000.log', bytes: file('v2/00000000000000000000.log'), flags: LOG_FLAGS },
  { name: '00000000000000000000.log', bytes: file('legacy/00000000000000000000.log'), flags: LOG_FLAGS },
  { name: '00000000000000000000.log', bytes: file('lz4-0/00000000000000000000.log'), flags: LOG_FLAGS },
  { name: '00000000000000000000.log', bytes: file('txn-0/00000000000000000000.log'), flags: LOG_FLAGS },
  {
    name: '00000000000000000000.log',
    bytes: file('__consumer_offsets-0/00000000000000000000.log'),
    flags: [['--offsets-decoder'], ['--offsets-decoder', '--output', 'json']],
  },
  {
    name: '00000000000000000000.log',
    bytes: file('__transaction_state-0/00000000000000000000.log'),
    flags: [['--transaction-log-decoder']],
  },
  {
    name: '00000000000000000000.log',
    bytes: file('meta-1/00000000000000000000.log'),
    flags: [['--cluster-metadata-decoder']],
  },
  {
    name: '00000000000000000015-0000000001.checkpoint',
    bytes: file('__cluster_metadata-0/00000000000000000015-0000000001.checkpoint'),
    flags: [['--cluster-metadata-decoder'], ['--deep-iteration']],
  },
  {
    name: '00000000000000000000.index',
    bytes: file('lz4-0/00000000000000000000.index'),
    siblings: { '00000000000000000000.log': file('lz4-0/00000000000000000000.log') },
    flags: [[], ['--verify-index-only'], ['--index-sanity-check'], ['--output', 'json'], ['--max-message-size', '100']],
  },
  {
    name: '00000000000000000000.timeindex',
    bytes: file('mm1/00000000000000000000.timeindex'),
    siblings: {
      '00000000000000000000.log': file('lz4-0/00000000000000000000.log'),
      '00000000000000000000.index': file('lz4-0/00000000000000000000.index'),
    },
    flags: [[], ['--verify-index-only'], ['--index-sanity-check'], ['--output', 'json']],
  },
  {
    name: '00000000000000000012.snapshot',
    bytes: file('txn-0/00000000000000000012.snapshot'),
    flags: [[], ['--output', 'json']],
  },
  {
    name: '00000000000000000000.txnindex',
    bytes: file('txn-0/00000000000000000000.txnindex'),
    flags: [[], ['--output', 'json']],
  },
];

// A log whose batches are intact is also fuzzed under its index (mutating the log, not the index).
const INDEX_OVER_MUTATED_LOG: Base = {
  name: '00000000000000000000.log',
  bytes: file('lz4-0/00000000000000000000.log'),
  siblings: {
    '00000000000000000000.index': file('lz4-0/00000000000000000000.index'),
    '00000000000000000000.timeindex': file('lz4-0/00000000000000000000.timeindex'),
  },
  flags: [['--files', '00000000000000000000.index,00000000000000000000.timeindex', '--print-data-log']],
};

let state = SEED >>> 0 || 1;
const rnd = (n: number): number => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) % n;
};

function mutate(b: Buffer): Buffer {
  const out = Buffer.from(b);
  const kind = rnd(9);
  const pos = out.length === 0 ? 0 : rnd(out.length);
  switch (kind) {
    case 0: // bit flips
      for (let i = rnd(4) + 1; i > 0 && out.length; i--) out[rnd(out.length)]! ^= 1 << rnd(8);
      return out;
    case 1: // random bytes
      for (let i = rnd(8) + 1; i > 0 && out.length; i--) out[rnd(out.length)] = rnd(256);
      return out;
    case 2: // truncate
      return out.subarray(0, pos);
    case 3: // zero-filled (preallocated) tail
      return Buffer.concat([out.subarray(0, pos), Buffer.alloc(rnd(5000))]);
    case 4: // an int32 overwritten with an extreme value (lengths, counts, positions)
      if (out.length >= 4)
        out.writeInt32BE(
          [0, -1, 1, 13, 14, 60, 61, 0x7fffffff, -0x80000000, rnd(1 << 20)][rnd(10)]!,
          Math.min(pos, out.length - 4),
        );
      return out;
    case 5: // a chunk duplicated
      return Buffer.concat([out.subarray(0, pos), out.subarray(rnd(out.length + 1)), out.subarray(pos)]);
    case 6: // a chunk removed
      return Buffer.concat([out.subarray(0, pos), out.subarray(Math.min(out.length, pos + rnd(64) + 1))]);
    case 7: // random garbage appended
      return Buffer.concat([out, Buffer.from(Array.from({ length: rnd(200) }, () => rnd(256)))]);
    default: // an int64 overwritten (offsets, timestamps, producer ids)
      if (out.length >= 8)
        out.writeBigInt64BE(
          [0n, -1n, 2n ** 62n, -(2n ** 63n), BigInt(rnd(1 << 30))][rnd(5)]!,
          Math.min(pos, out.length - 8),
        );
      return out;
  }
}

const CLEAN_STDERR = [
  /^Error in .+?( at position \d+)?: \S/,
  /^Mismatches in :/,
  /^ {2}Index offset: -?\d+, log offset: -?\d+$/,
  /^Found timestamp mismatch in :/,
  /^ {2}Index timestamp: -?\d+, log timestamp: -?\d+$/,
  /^Found out of order timestamp in :/,
  /^ {2}Index timestamp: -?\d+, Previously indexed timestamp: -?\d+$/,
  /^The following indexed offsets are not found in :.+$/,
  /^Indexed offset: -?\d+, found log offset: -?\d+$/,
  /^Non-consecutive offsets in /,
  /^ {2}-?\d+ is followed by -?\d+$/,
  /^Snapshot (failed schema validation|is corrupt)/,
];
const BAD = /\b(TypeError|RangeError|ReferenceError|undefined|NaN|\[object Object\])\b|^\s+at /m;

async function runCase(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d));
  stderr.on('data', (d: Buffer) => (err += d));
  const prev = process.cwd();
  process.chdir(cwd);
  try {
    const code = await run(args, { stdout, stderr, stdin: new PassThrough(), env: {} });
    return { code, out, err };
  } finally {
    process.chdir(prev);
  }
}

test(`${CASES} mutated segment/index/snapshot files: clean reports only, bounded time (seed ${SEED})`, async () => {
  let slowest = 0;
  const codes = [0, 0];
  for (let i = 0; i < CASES; i++) {
    const base = i % 13 === 12 ? INDEX_OVER_MUTATED_LOG : BASES[rnd(BASES.length)]!;
    const cwd = join(dir, `c${i % 64}`);
    rmSync(cwd, { recursive: true, force: true });
    mkdirSync(cwd);
    for (const [n, b] of Object.entries(base.siblings ?? {})) writeFileSync(join(cwd, n), b);
    let bytes = mutate(base.bytes);
    if (rnd(4) === 0) bytes = mutate(bytes);
    writeFileSync(join(cwd, base.name), bytes);
    const flags = base.flags[rnd(base.flags.length)]!;
    const args = flags[0] === '--files' ? flags : ['--files', base.name, ...flags];
    const t0 = Date.now();
    let r: { code: number; out: string; err: string };
    try {
      r = await runCase(cwd, args);
    } catch (e) {
      writeFileSync(join(dir, `failing-case-${i}`), bytes);
      throw new Error(
        `case ${i} (seed ${SEED}, ${base.name} ${args.join(' ')}): exception escaped: ${(e as Error).stack}`,
        { cause: e },
      );
    }
    const ms = Date.now() - t0;
    slowest = Math.max(slowest, ms);
    const where = `case ${i} (seed ${SEED}, ${base.name} ${args.join(' ')})`;
    assert.ok(ms < PER_CASE_MS, `${where} took ${ms} ms`);
    assert.ok(r.code === 0 || r.code === 1, `${where}: exit ${r.code}`);
    codes[r.code]!++;
    assert.doesNotMatch(r.err, BAD, `${where}: ${r.err}`);
    assert.doesNotMatch(r.out, /\b(TypeError|RangeError)\b/, where);
    for (const line of r.err.split('\n').filter(Boolean)) {
      assert.ok(
        CLEAN_STDERR.some((re) => re.test(line)),
        `${where}: unexpected stderr line ${JSON.stringify(line)}`,
      );
    }
    if (args.includes('json')) for (const line of r.out.split('\n').filter(Boolean)) JSON.parse(line);
  }
  // Both clean dumps and reported damage happen (the mutations are not all harmless or all fatal).
  assert.ok(codes[0]! > CASES / 10 && codes[1]! > CASES / 20, `exit codes ${codes}`);
  console.log(`# ${CASES} cases, exit 0: ${codes[0]}, exit 1: ${codes[1]}, slowest ${slowest} ms`);
});
