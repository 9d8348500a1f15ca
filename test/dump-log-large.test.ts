// dump-log streams: a 1 GiB segment (TKAFKA_LARGE_SEGMENT_MB to change) is dumped, shallow and
// deep, by a real `tkafka dump-log` process whose peak resident memory stays far below the file
// size, and whose output arrives through a pipe that is read slowly (back-pressure, not buffering).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRecordBatch, CompressionType } from '../src/protocol/records/index.js';
import { REPO_ROOT } from './helpers/spec-models.js';

const MB = Number(process.env.TKAFKA_LARGE_SEGMENT_MB ?? 1024);
let dir: string;
let records = 0;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-dump-log-large-'));
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
  const fd = openSync(join(dir, '00000000000000000000.log'), 'w');
  let written = 0;
  let i = 0;
  while (written < MB * 1024 * 1024) {
    const chunk: Buffer[] = [];
    let size = 0;
    while (size < 8 * 1024 * 1024) {
      const b = Buffer.from(templates[i++ % 3]!);
      b.writeBigInt64BE(BigInt(records), 0);
      records += 20;
      chunk.push(b);
      size += b.length;
    }
    writeSync(fd, Buffer.concat(chunk));
    written += size;
  }
  closeSync(fd);
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in a child, reading its stdout slowly; returns the output size, lines and peak RSS (KiB). */
function dump(
  args: string[],
): Promise<{ code: number; bytes: number; lines: number; maxRssKiB: number; stderr: string }> {
  const script = `
    const { main } = await import(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'cli.js'))});
    process.on('exit', () => process.stderr.write('MAXRSS ' + process.resourceUsage().maxRSS + '\\n'));
    await main(['node', 'tkafka', 'dump-log', ...${JSON.stringify(args)}]);`;
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let bytes = 0;
    let lines = 0;
    let stderr = '';
    let reads = 0;
    c.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
      // A slow reader now and then: the dump must wait for the pipe, not buffer the output.
      if (++reads % 200 === 0) {
        c.stdout.pause();
        setTimeout(() => c.stdout.resume(), 20); // time is the point: a reader that is slow for 20 ms
      }
    });
    c.stderr.on('data', (d: Buffer) => (stderr += d));
    // Bounded in time: a dump that stops making progress (seen once, idle with nothing left to write)
    // fails the test with what it had done instead of hanging the suite.
    let lastBytes = -1;
    const watchdog = setInterval(() => {
      if (bytes === lastBytes) {
        stderr += `no output for 60 s after ${bytes} bytes and ${lines} lines: killed\n`;
        c.kill('SIGKILL');
      }
      lastBytes = bytes;
    }, 60_000);
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
