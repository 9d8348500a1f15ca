// `tkafka dump-log` against Apache Kafka 4.4.0's DumpLogSegments: every golden case (segments,
// indexes, snapshots, transaction indexes, __consumer_offsets, __transaction_state, KRaft logs and
// snapshots, legacy magic 0/1, all codecs, index mismatches) must print the same stdout and stderr.
// Plus the tkafka-only behaviour: positional files, --output json, damaged files reported with
// their position (never an exception), progress on a terminal only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GOLDEN, dumpLog } from './dump-log-fixtures.js';

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-dump-log-'));
  for (const [name, b64] of Object.entries(GOLDEN.files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), Buffer.from(b64, 'base64'));
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('every golden case prints what Apache Kafka 4.4.0 DumpLogSegments printed', async () => {
  assert.ok(GOLDEN.cases.length >= 20);
  for (const c of GOLDEN.cases) {
    const r = await dumpLog(c.args, dir);
    const label = c.args.join(' ');
    assert.equal(r.stdout, c.stdout, `stdout of ${label}`);
    const expected = c.stderr.split('<DIR>').join(dir);
    if (c.args.some((a) => a.includes('mismatch-b'))) {
      // Reports for several files come in Scala HashMap order, which depends on the absolute paths
      // (so on this temp folder): compare the lines here; the order itself is tested below.
      assert.deepEqual(r.stderr.split('\n').sort(), expected.split('\n').sort(), `stderr of ${label}`);
    } else assert.equal(r.stderr, expected, `stderr of ${label}`);
    assert.equal(r.code, 0, label);
  }
});

test('files may also be given as arguments, alone or with --files', async () => {
  const byFlag = await dumpLog(
    ['--files', 'v2/00000000000000000000.log,legacy/00000000000000000000.log', '--print-data-log'],
    dir,
  );
  const byArgs = await dumpLog(
    ['v2/00000000000000000000.log', 'legacy/00000000000000000000.log', '--print-data-log'],
    dir,
  );
  const mixed = await dumpLog(
    ['--files', 'v2/00000000000000000000.log', 'legacy/00000000000000000000.log', '--print-data-log'],
    dir,
  );
  assert.equal(byArgs.stdout, byFlag.stdout);
  assert.equal(mixed.stdout, byFlag.stdout);
  const none = await dumpLog(['--print-data-log'], dir);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^Missing required argument "\[files\]"\nOption {2,}Description/);
});

test('--output json: one object per file, batch, record, entry; the same facts as the text', async () => {
  const files =
    'v2/00000000000000000000.log,txn-0/00000000000000000000.index,txn-0/00000000000000000000.timeindex,txn-0/00000000000000000000.txnindex,txn-0/00000000000000000012.snapshot';
  const text = await dumpLog(['--files', files, '--print-data-log'], dir);
  const json = await dumpLog(['--files', files, '--print-data-log', '--output', 'json'], dir);
  assert.equal(json.code, 0);
  const events = json.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const count = (t: string): number => events.filter((e) => e.type === t).length;
  const lines = text.stdout.split('\n');
  assert.equal(count('file'), 5);
  assert.equal(count('batch'), lines.filter((l) => l.startsWith('baseOffset: ')).length);
  assert.equal(count('record'), lines.filter((l) => l.startsWith('| offset: ')).length);
  assert.equal(count('index-entry'), lines.filter((l) => /^offset: \d+ position: /.test(l)).length);
  assert.equal(count('time-index-entry'), lines.filter((l) => l.startsWith('timestamp: ')).length);
  assert.equal(count('aborted-txn'), lines.filter((l) => l.startsWith('version: ')).length);
  assert.equal(count('producer'), lines.filter((l) => l.startsWith('producerId: ')).length);
  const rec = events.find((e) => e.type === 'record' && e.offset === 0)!;
  assert.deepEqual(rec.headers, [
    { key: 'h1', value: 'x' },
    { key: 'h2', value: null },
  ]);
  assert.equal(rec.key, 'k0');
  assert.equal(rec.payload, 'value-0-ü');
  const marker = events.find(
    (e) => e.type === 'record' && (e.control as { type?: string } | undefined)?.type === 'COMMIT',
  );
  assert.deepEqual(marker?.control, { type: 'COMMIT', coordinatorEpoch: 5 });
  // Decoders producing JSON are embedded as JSON, not as strings.
  const offsets = await dumpLog(
    ['--files', '__consumer_offsets-0/00000000000000000000.log', '--offsets-decoder', '--output', 'json'],
    dir,
  );
  const first = offsets.stdout
    .split('\n')
    .map((l) => (l ? JSON.parse(l) : null))
    .find((e) => e?.type === 'record');
  assert.equal(typeof first.key, 'object');
  assert.equal(typeof first.payload, 'object');
  assert.match(json.stdout, /"type":"non-consecutive-offsets"/);
});

function segment(name: string, bytes: Buffer): string {
  const d = mkdtempSync(join(dir, 'case-'));
  writeFileSync(join(d, name), bytes);
  return d;
}

const V2 = (): Buffer => Buffer.from(GOLDEN.files['v2/00000000000000000000.log']!, 'base64');

test('a torn tail, a bad CRC, a batch running past the end: reported as Kafka does, exit 0', async () => {
  const full = V2();
  let d = segment('00000000000000000000.log', full.subarray(0, full.length - 30));
  let r = await dumpLog(['--files', '00000000000000000000.log'], d);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /\nFound 42 invalid bytes at the end of 00000000000000000000\.log\n$/);

  const bad = Buffer.from(full);
  bad[61 + 3]! ^= 0x40;
  d = segment('00000000000000000000.log', bad);
  r = await dumpLog(['--files', '00000000000000000000.log', '--print-data-log'], d);
  assert.equal(r.code, 0);
  assert.match(
    r.stdout,
    /position: 0 CreateTime: \d+ size: 115 magic: 2 compresscodec: none crc: \d+ isvalid: false\n/,
  );

  const past = Buffer.from(full);
  past.writeInt32BE(100000, 245 + 8);
  d = segment('00000000000000000000.log', past);
  r = await dumpLog(['--files', '00000000000000000000.log'], d);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Found 691 invalid bytes at the end of 00000000000000000000\.log\n$/);
});

test("a zero-filled tail and a corrupt batch: the position and Kafka's reason, then the next file; exit 1", async () => {
  const d = segment('00000000000000000000.log', Buffer.concat([V2(), Buffer.alloc(4096)]));
  const gz = Buffer.from(V2());
  gz[115 + 100]! ^= 0xff; // inside the gzip batch's compressed records
  writeFileSync(join(d, '00000000000000000100.log'), gz);
  const r = await dumpLog(['--files', '00000000000000000000.log,00000000000000000100.log', '--print-data-log'], d);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^Error in 00000000000000000000\.log at position 936: org\.apache\.kafka\.common\.errors\.CorruptRecordException: Found record size 0 smaller than minimum record overhead \(14\) in file 00000000000000000000\.log\. The rest of the file \(4096 bytes\) is zero-filled/m,
  );
  assert.match(r.stderr, /^Error in 00000000000000000100\.log at position 115: gzip batch could not be decompressed/m);
  // the second file was still dumped after the gzip batch
  assert.match(r.stdout, /Dumping 00000000000000000100\.log[\s\S]*compresscodec: zstd/);
});

test('an index pointing past the log and a corrupt index are reported per entry, not thrown', async () => {
  const d = mkdtempSync(join(dir, 'idx-'));
  copyFileSync(join(dir, 'lz4-0/00000000000000000000.log'), join(d, '00000000000000000000.log'));
  const idx = readFileSync(join(dir, 'lz4-0/00000000000000000000.index'));
  const bad = Buffer.from(idx);
  bad.writeInt32BE(1_000_000, 8 + 4); // second entry's position
  writeFileSync(join(d, '00000000000000000000.index'), Buffer.concat([bad, Buffer.alloc(5)]));
  let r = await dumpLog(['--files', '00000000000000000000.index'], d);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^Error in 00000000000000000000\.index at position 8: index entry \(offset: \d+ position: 1000000\) points past the end of .*00000000000000000000\.log \(6667 bytes\)$/m,
  );
  assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('offset: ')).length, idx.length / 8);
  r = await dumpLog(['--files', '00000000000000000000.index', '--index-sanity-check'], d);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /CorruptIndexException: Index file .*00000000000000000000\.index is corrupt, found 117 bytes which is neither positive nor a multiple of 8/,
  );
});

test('missing, unnamed and unknown files', async () => {
  const d = mkdtempSync(join(dir, 'misc-'));
  writeFileSync(join(d, 'leader-epoch-checkpoint'), '0\n0\n');
  writeFileSync(join(d, 'foo.log'), V2());
  const r = await dumpLog(
    ['--files', '00000000000000000099.log,leader-epoch-checkpoint,foo.log,00000000000000000000.txnindex,x.snapshot'],
    d,
  );
  assert.equal(r.code, 1);
  assert.equal(
    r.stdout,
    'Dumping 00000000000000000099.log\nLog starting offset: 99\nDumping leader-epoch-checkpoint\nDumping foo.log\nDumping 00000000000000000000.txnindex\nDumping x.snapshot\n',
  );
  assert.match(
    r.stderr,
    /^Error in 00000000000000000099\.log: java\.io\.FileNotFoundException: 00000000000000000099\.log \(No such file or directory\)$/m,
  );
  assert.match(r.stderr, /^Ignoring unknown file leader-epoch-checkpoint$/m);
  assert.match(r.stderr, /^Error in foo\.log: java\.lang\.NumberFormatException: For input string: "foo"$/m);
  assert.match(r.stderr, /^Error in x\.snapshot: java\.io\.FileNotFoundException/m);
});

test("a corrupt producer snapshot prints Kafka's reason and goes on (exit 0)", async () => {
  const d = mkdtempSync(join(dir, 'snap-'));
  const snap = Buffer.from(GOLDEN.files['txn-0/00000000000000000012.snapshot']!, 'base64');
  const bad = Buffer.from(snap);
  bad[20]! ^= 1;
  writeFileSync(join(d, '00000000000000000012.snapshot'), bad);
  const v3 = Buffer.from(snap);
  v3.writeInt16BE(3, 0);
  writeFileSync(join(d, '00000000000000000013.snapshot'), v3);
  const r = await dumpLog(['--files', '00000000000000000012.snapshot,00000000000000000013.snapshot'], d);
  assert.equal(r.code, 0);
  assert.match(r.stderr, /^Snapshot is corrupt \(CRC is no longer valid\)\. Stored crc: \d+\. Computed crc: \d+$/m);
  assert.match(r.stderr, /^Snapshot failed schema validation: Snapshot contained an unknown file version 3$/m);
});

test('progress shows on a terminal and stays quiet when piped', async () => {
  const d = mkdtempSync(join(dir, 'progress-'));
  const one = V2();
  const parts: Buffer[] = [];
  for (let i = 0; i < 2000; i++) {
    const b = Buffer.from(one);
    // rewrite each batch's base offset so offsets stay consecutive
    for (let p = 0, off = i * 24; p < b.length; p += b.readInt32BE(p + 8) + 12)
      b.writeBigInt64BE(BigInt(off + Number(one.readBigInt64BE(p))), p);
    parts.push(b);
  }
  writeFileSync(join(d, '00000000000000000000.log'), Buffer.concat(parts));
  const env = { TKAFKA_PROGRESS_AFTER_MS: '0', TKAFKA_PROGRESS_EVERY_MS: '0' };
  const tty = await dumpLog(['--files', '00000000000000000000.log', '--deep-iteration'], d, { tty: true, env });
  assert.match(
    tty.stderr,
    /\r\x1b\[KDumping 00000000000000000000\.log: \d+% \([\d.]+ (KiB|MiB|B) of [\d.]+ (KiB|MiB)\)/,
  );
  assert.ok(
    tty.stderr.endsWith('\r\x1b[K') ||
      !tty.stderr.includes('%') ||
      /\r\x1b\[K(Non-consecutive[\s\S]*)?$/.test(tty.stderr),
  );
  const piped = await dumpLog(['--files', '00000000000000000000.log', '--deep-iteration'], d, { env });
  assert.equal(piped.stderr.includes('\r'), false);
  assert.equal(piped.stdout, tty.stdout);
});

test("reports for many files come in the order of Kafka's Scala mutable.HashMap (14 files, table growth)", async () => {
  const { Reports } = await import('../src/tools/dump-log/reports.js');
  const { Output } = await import('../src/tools/dump-log/output.js');
  const names = [
    'alpha',
    'beta',
    'gamma',
    'delta',
    'epsilon',
    'zeta',
    'eta',
    'theta',
    'iota',
    'kappa',
    'lambda',
    'mu',
    'nu',
    'xi',
  ];
  // Orders printed by Kafka 4.0.0 for these absolute paths (index mismatches: 7 per file; non-consecutive: 1 per file).
  const kafkaIndexOrder = [
    'lambda',
    'eta',
    'iota',
    'mu',
    'beta',
    'xi',
    'kappa',
    'epsilon',
    'delta',
    'nu',
    'gamma',
    'alpha',
    'theta',
    'zeta',
  ];
  const kafkaLogOrder = [
    'zeta',
    'nu',
    'beta',
    'eta',
    'delta',
    'gamma',
    'lambda',
    'theta',
    'epsilon',
    'alpha',
    'mu',
    'iota',
    'kappa',
    'xi',
  ];
  const reports = new Reports();
  for (const n of names)
    for (let i = 0; i < 7; i++)
      reports.indexMismatch(`/tmp/dl/ord/${n}/00000000000000000000.index`, BigInt(i), BigInt(i + 1));
  for (const n of names) reports.nonConsecutiveOffsets(`/tmp/dl/ord/${n}/v/00000000000000000000.log`, 17n, 23n);
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d: Buffer) => (text += d));
  const out = new Output({ stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: {} }, false);
  reports.print(out);
  await out.close();
  const order = (re: RegExp): string[] => [...text.matchAll(re)].map((m) => m[1]!);
  assert.deepEqual(order(/^Mismatches in :\/tmp\/dl\/ord\/(\w+)\//gm), kafkaIndexOrder);
  assert.deepEqual(order(/^Non-consecutive offsets in \/tmp\/dl\/ord\/(\w+)\//gm), kafkaLogOrder);
});
