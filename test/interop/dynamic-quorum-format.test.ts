// `storage format`'s KIP-853 flags (--standalone, --initial-controllers, --no-initial-controllers and
// their interplay with controller.quorum.voters and --feature kraft.version): tkafka's output, error
// messages and exit codes against Apache Kafka 4.4.0's StorageTool on the same configurations (each
// tool formats its own copy of the folders; the folder paths and generated directory ids are
// written as placeholders before comparing).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { randomClusterId, runKafkaTool } from './helpers/apache-kafka.js';
import { REPO_ROOT } from '../helpers/spec-models.js';

let root = '';
let n = 0;
const CLUSTER = randomClusterId();
const DIR_A = 'MvDxzVmcRsaTz33bUuRU6A';
const DIR_B = '07R5amHmR32VDA6jHkGbTA';

before(() => {
  root = mkdtempSync(join(tmpdir(), 'tkafka-dq-format-'));
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A config file of `roles` with a fresh data folder; `quorum` is the quorum line(s). */
function config(tool: string, roles: string, quorum: string): { file: string; dir: string } {
  const dir = join(root, `${tool}-${++n}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'server.properties');
  const listeners =
    roles === 'broker' ? 'PLAINTEXT://127.0.0.1:19092' : 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093';
  writeFileSync(
    file,
    [
      `process.roles=${roles}`,
      'node.id=1',
      `listeners=${roles === 'controller' ? 'CONTROLLER://127.0.0.1:19093' : listeners}`,
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      `log.dirs=${join(dir, 'data')}`,
      quorum,
      '',
    ].join('\n'),
  );
  return { file, dir };
}

interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Both tools on their own copy of the configuration; outcomes with paths and random ids replaced. */
async function both(roles: string, quorum: string, args: string[]): Promise<[Outcome, Outcome]> {
  const k = config('kafka', roles, quorum);
  const t = config('tkafka', roles, quorum);
  const kr = await runKafkaTool('kafka.tools.StorageTool', ['format', '-t', CLUSTER, '-c', k.file, ...args]);
  const tr = await execa(
    'node',
    [join(REPO_ROOT, 'bin', 'tkafka'), 'storage', 'format', '-t', CLUSTER, '-c', t.file, ...args],
    {
      reject: false,
      stripFinalNewline: false,
    },
  );
  // Not compared: Kafka's "Bootstrap metadata: …" line (it lists feature levels of features tkafka
  // does not implement, so tkafka does not print it) and the stack trace under an uncaught exception
  // (tkafka prints the exception line only).
  const clean = (s: string, dir: string): string =>
    s
      .replaceAll(dir, '<dir>')
      .split('\n')
      .filter((l) => !l.startsWith('Bootstrap metadata: ') && !l.startsWith('\tat '))
      .join('\n');
  return [
    { exitCode: kr.exitCode, stdout: clean(kr.stdout, k.dir), stderr: clean(kr.stderr, k.dir) },
    { exitCode: tr.exitCode ?? -1, stdout: clean(String(tr.stdout), t.dir), stderr: clean(String(tr.stderr), t.dir) },
  ];
}

const STATIC = 'controller.quorum.voters=1@127.0.0.1:19093';
const DYNAMIC = 'controller.quorum.bootstrap.servers=127.0.0.1:19093';

test('refusals: kraft.version against the quorum kind, a missing quorum flag, --standalone on a broker', async () => {
  const cases: [string, string, string[]][] = [
    ['broker,controller', STATIC, ['--feature', 'kraft.version=1']],
    ['broker,controller', DYNAMIC, ['--standalone', '--feature', 'kraft.version=0']],
    ['controller', DYNAMIC, []],
    ['broker', DYNAMIC, ['--standalone']],
    ['controller', DYNAMIC, ['--initial-controllers', '1@127.0.0.1:19093']],
  ];
  for (const [roles, quorum, args] of cases) {
    const [k, t] = await both(roles, quorum, args);
    assert.notEqual(k.exitCode, 0, `${roles} ${args.join(' ')}: Kafka accepted it`);
    assert.deepEqual(t, k, `${roles} ${quorum} ${args.join(' ')}`);
  }
});

test('formats: --standalone, --initial-controllers (this node in or out of the set), --no-initial-controllers', async () => {
  const cases: [string, string, string[]][] = [
    ['controller', DYNAMIC, ['--standalone']],
    ['controller', DYNAMIC, ['--initial-controllers', `1@127.0.0.1:19093:${DIR_A},2@127.0.0.1:19094:${DIR_B}`]],
    ['controller', DYNAMIC, ['--initial-controllers', `2@127.0.0.1:19094:${DIR_B}`]],
    ['controller', DYNAMIC, ['--no-initial-controllers']],
    ['broker', DYNAMIC, ['--no-initial-controllers']],
    ['broker,controller', STATIC, []],
  ];
  for (const [roles, quorum, args] of cases) {
    const [k, t] = await both(roles, quorum, args);
    assert.equal(k.exitCode, 0, `${roles} ${args.join(' ')}: ${k.stderr}`);
    assert.deepEqual(t, k, `${roles} ${quorum} ${args.join(' ')}`);
  }
});
