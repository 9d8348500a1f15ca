// The dump-log progress display: with standard output redirected and standard error a terminal
// (script(1)), a long dump draws an ink progress view on standard error and erases it at the end;
// the dump itself is byte for byte what a plain run prints. NO_COLOR / --no-tty: no view at all.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { KafkaClient } from '../src/client/client.js';
import { Producer } from '../src/client/producer.js';

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let broker: BrokerProcess;
let out: string;
let segment: string;

before(async () => {
  broker = await startBroker();
  const client = new KafkaClient({ bootstrapServers: [broker.bootstrap] });
  const producer = new Producer(client, { lingerMs: 20, batchSize: 65536 });
  const value = Buffer.alloc(200, 'x');
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < 20000; i++)
    sends.push(producer.send({ topic: 'dumped', partition: 0, key: Buffer.from(`k${i}`), value }));
  await Promise.all(sends);
  await producer.close();
  client.close();
  await broker.stop();
  segment = join(broker.dataDir, 'logs', 'dumped-0', '00000000000000000000.log');
  out = mkdtempSync(join(tmpdir(), 'tkafka-dump-progress-'));
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
  rmSync(out, { recursive: true, force: true });
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  TKAFKA_PROGRESS_AFTER_MS: '0',
  ...extra,
});

/** Dumps under a pseudo-terminal, stdout through a slow reader into a file; returns the terminal's bytes and the dump. */
async function dumpUnderPty(name: string, extra: NodeJS.ProcessEnv = {}): Promise<{ terminal: string; dump: string }> {
  const file = join(out, name);
  const cmd = `stty cols 120 rows 30; node bin/tkafka dump-log --files '${segment}' --print-data-log | (sleep 2; cat > '${file}')`;
  const r = await execa('script', ['-qfec', cmd, '/dev/null'], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 60_000,
    extendEnv: false,
    env: env(extra),
  });
  assert.equal(r.exitCode, 0, r.stdout);
  return { terminal: r.stdout, dump: readFileSync(file, 'utf8') };
}

test(
  'a long dump-log run shows progress on the terminal; the dump is unchanged',
  { skip: !has('script') },
  async () => {
    const plain = await execa('node', ['bin/tkafka', 'dump-log', '--files', segment, '--print-data-log'], {
      cwd: REPO_ROOT,
      reject: false,
      timeout: 60_000,
      maxBuffer: 1 << 28,
    });
    assert.equal(plain.exitCode, 0, plain.stderr);
    assert.equal(plain.stderr, '');
    const { terminal, dump } = await dumpUnderPty('live.txt');
    assert.equal(dump, plain.stdout + '\n', 'stdout is the same with the progress display');
    const screen = terminal.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    assert.match(
      screen,
      new RegExp(`Dumping ${segment.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s+\\S*\\s*\\d+%`),
      JSON.stringify(screen.slice(0, 2000)),
    );
    assert.match(screen, /[\d.]+ (KiB|MiB) \/ [\d.]+ MiB/);
    assert.match(terminal, /\x1b\[2K/, 'the view is erased at the end');
  },
);

test('NO_COLOR and --no-tty: no progress display', { skip: !has('script') }, async () => {
  for (const extra of [{ NO_COLOR: '1' }, { TKAFKA_NO_TTY: '1' }]) {
    const { terminal, dump } = await dumpUnderPty('plain.txt', extra);
    assert.equal(terminal.replace(/\r/g, ''), '', JSON.stringify(terminal.slice(0, 500)));
    assert.ok(dump.startsWith(`Dumping ${segment}\n`));
  }
});
