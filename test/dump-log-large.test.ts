// dump-log streams: a 1 GiB segment (TKAFKA_LARGE_SEGMENT_MB to change) is dumped, shallow and
// deep, by a real `tkafka dump-log` process whose peak resident memory stays far below the file
// size, and whose output arrives through a pipe that is read slowly (back-pressure, not buffering).
// A deep dump's progress depends on its own thread and stdout only: with the libuv threadpool held
// by a blocked open(2) of a FIFO, a dump of gzip and lz4 batches still runs to the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRecordBatch, CompressionType } from '../src/protocol/records/index.js';
import { REPO_ROOT } from './helpers/spec-models.js';

const MB = Number(process.env.TKAFKA_LARGE_SEGMENT_MB ?? 1024);
let dir: string;
let records = 0;
/** Records of the small segment (8 MiB, same batches) that the threadpool case dumps. */
let smallRecords = 0;

/** Writes `mb` MiB of plain, gzip and lz4 batches of 20 records, in turn; returns the record count. */
async function writeSegment(path: string, mb: number): Promise<number> {
  const recs = Array.from({ length: 20 }, (_, i) => ({
    key: `key-${i}`,
    value: 'v'.repeat(700 + i),
    timestamp: 1729800000000 + i,
  }));
  const templates = [
    await buildRecordBatch({ records: recs }),
    await buildRecordBatch({ records: recs, compression: CompressionType.Gzip }),
    await buildRecordBatch({ records: recs, compression: CompressionType.Lz4 }),
  ];
  const fd = openSync(path, 'w');
  let count = 0;
  let written = 0;
  let i = 0;
  while (written < mb * 1024 * 1024) {
    const chunk: Buffer[] = [];
    let size = 0;
    while (size < 8 * 1024 * 1024) {
      const b = Buffer.from(templates[i++ % 3]!);
      b.writeBigInt64BE(BigInt(count), 0);
      count += 20;
      chunk.push(b);
      size += b.length;
    }
    writeSync(fd, Buffer.concat(chunk));
    written += size;
  }
  closeSync(fd);
  return count;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-dump-log-large-'));
  records = await writeSegment(join(dir, '00000000000000000000.log'), MB);
  mkdirSync(join(dir, 'small'));
  smallRecords = await writeSegment(join(dir, 'small', '00000000000000000000.log'), 8);
});

after(() => rmSync(dir, { recursive: true, force: true }));

interface DumpOptions {
  /** Working directory of the dump (default: the 1 GiB segment's). */
  cwd?: string;
  /**
   * A FIFO nobody writes to: the child opens it asynchronously before the dump, which holds the
   * only threadpool thread (UV_THREADPOOL_SIZE=1) in open(2) until the dump is over and the child
   * opens it for writing itself.
   */
  holdThreadpool?: string;
  /** Output silence after which the child is reported and killed (default 60 s). */
  stallMs?: number;
}

/** Runs the CLI in a child, reading its stdout slowly; returns the output size, lines and peak RSS (KiB). */
function dump(
  args: string[],
  o: DumpOptions = {},
): Promise<{ code: number; bytes: number; lines: number; maxRssKiB: number; stderr: string }> {
  const cli = join(REPO_ROOT, 'dist', 'src', 'cli.js');
  const fifo = o.holdThreadpool === undefined ? null : JSON.stringify(o.holdThreadpool);
  // On SIGUSR2 (sent by the stall watchdog below) the child says whether the dump had returned and
  // what its event loop waits for.
  const script = `
    import { open, openSync, closeSync } from 'node:fs';
    let dumped = false;
    process.on('SIGUSR2', () => process.stderr.write('WAITING ' + JSON.stringify({
      dumped,
      resources: process.getActiveResourcesInfo(),
      stdoutBuffered: process.stdout.writableLength,
      stdoutNeedDrain: process.stdout.writableNeedDrain,
    }) + '\\n'));
    const { main } = await import(${JSON.stringify(cli)});
    // Loaded before the threadpool is held: the tool's lazy import must not need it.
    await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'tools', 'dump-log', 'main.js'))});
    const fifo = ${fifo};
    if (fifo) open(fifo, 'r', (e, fd) => e || closeSync(fd));
    process.on('exit', () => process.stderr.write('MAXRSS ' + process.resourceUsage().maxRSS + '\\n'));
    await main(['node', 'tkafka', 'dump-log', ...${JSON.stringify(args)}]);
    dumped = true;
    if (fifo) closeSync(openSync(fifo, 'w'));`;
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: o.cwd ?? dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: o.holdThreadpool === undefined ? process.env : { ...process.env, UV_THREADPOOL_SIZE: '1' },
    });
    let bytes = 0;
    let lines = 0;
    let stderr = '';
    let reads = 0;
    let lastOutput = Date.now();
    c.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      lastOutput = Date.now();
      for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
      // A slow reader now and then: the dump must wait for the pipe, not buffer the output.
      if (++reads % 200 === 0) {
        c.stdout.pause();
        setTimeout(() => c.stdout.resume(), 20); // time is the point: a reader that is slow for 20 ms
      }
    });
    c.stderr.on('data', (d: Buffer) => (stderr += d));
    // Bounded in time: a dump that stops making progress (seen once, idle with nothing left to write)
    // fails the test with what it had done and what it was waiting for, instead of hanging the suite.
    const stallMs = o.stallMs ?? 60_000;
    let killAt = 0;
    const watchdog = setInterval(() => {
      const now = Date.now();
      if (killAt === 0 && now - lastOutput > stallMs) {
        stderr += `no output for ${stallMs / 1000} s after ${bytes} bytes and ${lines} lines: killed\n`;
        c.kill('SIGUSR2');
        killAt = now + 2000; // the WAITING line, if the child's loop is alive to write it
      }
      if (killAt !== 0 && (now >= killAt || stderr.includes('WAITING '))) c.kill('SIGKILL');
    }, 250);
    c.on('close', (code) => {
      clearInterval(watchdog);
      const m = /MAXRSS (\d+)/.exec(stderr);
      resolve({
        code: code ?? -1,
        bytes,
        lines,
        maxRssKiB: m ? Number(m[1]) : -1,
        stderr: stderr.replace(/MAXRSS \d+\n/, ''),
      });
    });
  });
}

test(`a ${MB} MiB segment: shallow dump with flat memory`, async (t) => {
  const r = await dump(['--files', '00000000000000000000.log']);
  t.diagnostic(`peak RSS ${Math.round(r.maxRssKiB / 1024)} MiB, ${r.lines} lines`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(r.lines, 2 + records / 20);
  assert.ok(r.maxRssKiB > 0 && r.maxRssKiB < 200 * 1024, `peak RSS ${r.maxRssKiB} KiB`);
});

test(`a ${MB} MiB segment: deep iteration with data, read slowly through a pipe, flat memory`, async (t) => {
  const r = await dump(['--files', '00000000000000000000.log', '--print-data-log']);
  t.diagnostic(
    `peak RSS ${Math.round(r.maxRssKiB / 1024)} MiB, ${r.lines} lines, ${Math.round(r.bytes / 1048576)} MiB of output`,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.lines, 2 + records / 20 + records);
  assert.ok(r.bytes > MB * 1024 * 1024, 'the whole file went through stdout');
  assert.ok(r.maxRssKiB > 0 && r.maxRssKiB < 250 * 1024, `peak RSS ${r.maxRssKiB} KiB`);
});

test('deep iteration of gzip and lz4 batches does not wait on the libuv threadpool', async (t) => {
  // The one hang seen (a deep dump idle in epoll, nothing left to write) looks like a decode that
  // never came back from the threadpool: on the code before, this test ends that way (no output,
  // the loop waiting on the threadpool alone). gzip/lz4/snappy are now decoded on the dump's thread.
  const small = join(dir, 'small');
  const fifo = join(small, 'threadpool-holder');
  execFileSync('mkfifo', [fifo]);
  const r = await dump(['--files', '00000000000000000000.log', '--print-data-log'], {
    cwd: small,
    holdThreadpool: fifo,
    stallMs: 30_000,
  });
  t.diagnostic(`${r.lines} lines, ${Math.round(r.bytes / 1048576)} MiB of output`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(r.lines, 2 + smallRecords / 20 + smallRecords);
});
