// SCRAM credentials through `configs --entity-type users`, compared with Apache Kafka 4.4.0: the
// same commands run by Kafka's ConfigCommand against a Kafka node and by `tkafka configs` against a
// tkafka node (both formatted with the same `--add-scram`), in the same order, print the same
// output and exit the same way, errors included. Commands that change nothing are also run by
// Kafka's ConfigCommand against the tkafka node and by `tkafka configs` against the Kafka node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startCluster, tkafkaLauncher, type Cluster } from '../helpers/cluster.js';
import { runTkafka } from '../helpers/tool-run.js';

const CONFIG_COMMAND = 'org.apache.kafka.tools.ConfigCommand';
const ADD_SCRAM = ['--add-scram', 'SCRAM-SHA-256=[name=bob,password=bob-secret,iterations=8192]'];

let kafka: ApacheKafka | null = null;
let cluster: Cluster | null = null;

before(async () => {
  kafka = await startApacheKafka({ formatArgs: ADD_SCRAM });
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    nodes: [{ id: 1, roles: 'broker,controller', formatArgs: ADD_SCRAM }],
  });
});

after(async () => {
  await cluster?.cleanup();
  await kafka?.cleanup();
});

interface Out {
  code: number;
  out: string;
  err: string[];
}

/** Kafka's stderr without log4j and stack-trace lines (tkafka prints neither), the server address masked. */
function errorLines(err: string): string[] {
  return err
    .split('\n')
    .filter((l) => l !== '' && !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more|^SLF4J/.test(l))
    .map((l) => l.replace(/--bootstrap-server 127\.0\.0\.1:\d+/, '--bootstrap-server <server>'));
}

/**
 * Kafka lists a user's mechanisms in the order of a HashMap keyed by enum constants, which varies
 * from one JVM run to the next: compare them sorted.
 */
function sortMechanisms(s: string): string {
  return s.replace(/ are (SCRAM-SHA-[^\n]*)/g, (_m, list: string) => ` are ${list.split(', ').sort().join(', ')}`);
}

async function kafkaTool(bootstrap: string, args: string[]): Promise<Out> {
  const r = await kafka!.runTool(CONFIG_COMMAND, ['--bootstrap-server', bootstrap, ...args]);
  return { code: r.exitCode, out: sortMechanisms(r.stdout), err: errorLines(r.stderr) };
}

async function tkafkaTool(args: string[], bootstrap = cluster!.bootstrap()): Promise<Out> {
  const r = await runTkafka('configs', ['--bootstrap-server', bootstrap, ...args]);
  return { code: r.code, out: sortMechanisms(r.out), err: errorLines(r.err) };
}

/** Runs `args` on both sides (and, when `readOnly`, each tool on the other's node too); all must agree. */
async function same(args: string[], opts: { readOnly?: boolean } = {}): Promise<Out> {
  const k = await kafkaTool(kafka!.bootstrap, args);
  const t = await tkafkaTool(args);
  const label = `configs ${args.join(' ')}`;
  assert.deepEqual(t, k, `${label}: tkafka vs Kafka`);
  if (opts.readOnly) {
    const kt = await kafkaTool(cluster!.bootstrap(), args);
    assert.deepEqual(kt, k, `${label}: Kafka's tool on tkafka vs on Kafka`);
    const tk = await tkafkaTool(args, kafka!.bootstrap);
    assert.deepEqual(tk, k, `${label}: tkafka's tool on Kafka vs Kafka's`);
  }
  return k;
}

const USERS = ['--entity-type', 'users'];
const alice = [...USERS, '--entity-name', 'alice'];

test('configs --entity-type users manages SCRAM credentials as Kafka 4.4 does', async () => {
  // the credential `storage format --add-scram` bootstrapped
  const all = await same(['--describe', ...USERS], { readOnly: true });
  assert.match(all.out, /SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192/);

  // two mechanisms of one user in one request: the controller's "altered twice" (as Kafka answers)
  await same([
    '--alter',
    ...alice,
    '--add-config',
    'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=x]',
  ]);
  await same(['--describe', ...alice], { readOnly: true });

  const ok1 = await same([
    '--alter',
    ...alice,
    '--add-config',
    'SCRAM-SHA-256=[iterations=8192,password=alice-secret]',
  ]);
  assert.equal(ok1.code, 0);
  await same(['--alter', ...alice, '--add-config', 'SCRAM-SHA-512=[password=x]']);
  const both = await same(['--describe', ...alice], { readOnly: true });
  assert.match(both.out, /'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096/);
  await same(['--describe', ...USERS], { readOnly: true });

  // errors: too many iterations (controller), too few (tool), empty password (admin client), a
  // malformed value, an unknown user, a deletion of what does not exist, add + delete in one request
  await same(['--alter', ...alice, '--add-config', 'SCRAM-SHA-256=[iterations=20000,password=p]'], { readOnly: true });
  await same(['--alter', ...alice, '--add-config', 'SCRAM-SHA-256=[iterations=1024,password=p]'], { readOnly: true });
  await same(['--alter', ...alice, '--add-config', 'SCRAM-SHA-256=[password=]'], { readOnly: true });
  await same(['--alter', ...alice, '--add-config', 'SCRAM-SHA-256=[pass=p]'], { readOnly: true });
  await same(['--describe', ...USERS, '--entity-name', 'nobody'], { readOnly: true });
  await same(['--alter', ...USERS, '--entity-name', 'nobody', '--delete-config', 'SCRAM-SHA-512'], { readOnly: true });
  await same(['--alter', ...alice, '--add-config', 'SCRAM-SHA-256=[password=y]', '--delete-config', 'SCRAM-SHA-512'], {
    readOnly: true,
  });

  const del = await same(['--alter', ...alice, '--delete-config', 'SCRAM-SHA-512']);
  assert.equal(del.code, 0);
  const after = await same(['--describe', ...alice], { readOnly: true });
  assert.match(after.out, /'alice' are SCRAM-SHA-256=iterations=8192\n/);
  await same(['--alter', ...alice, '--delete-config', 'SCRAM-SHA-512'], { readOnly: true });
  await same(['--alter', ...alice, '--delete-config', 'SCRAM-SHA-256']);
  await same(['--describe', ...alice], { readOnly: true });
});

test("storage format --add-scram: ScramParser's errors, as Kafka's StorageTool prints them", async () => {
  const bad = [
    'SCRAM-SHA-256',
    'SCRAM-SHA-1=[name=a,password=b]',
    'SCRAM-SHA-256=name=a]',
    'SCRAM-SHA-256=[name=a',
    'SCRAM-SHA-256=[password=b]',
    'SCRAM-SHA-256=[name=a]',
    'SCRAM-SHA-256=[name=a,saltedpassword=YWJj]',
    'SCRAM-SHA-256=[name=a,salt=%%%,password=b]',
    'SCRAM-SHA-256=[name=a,iterations=x,password=b]',
    'SCRAM-SHA-256=[name=a,password=b,zz=1,aa=2]',
    'SCRAM-SHA-256=[name=a,password]',
    'SCRAM-SHA-256=[name=a,password=b,iterations=100]',
    'SCRAM-SHA-512=[name=a,password=b,iterations=16385]',
  ];
  for (const arg of bad) {
    const common = ['format', '-t', kafka!.clusterId, '--ignore-formatted', '--add-scram', arg];
    const k = await kafka!.runTool('kafka.tools.StorageTool', [...common, '-c', kafka!.configFile]);
    const t = await runTkafka('storage', [...common, '-c', cluster!.node(1).configFile]);
    assert.deepEqual([t.code, errorLines(t.err)], [k.exitCode, errorLines(k.stderr)], arg);
    assert.equal(k.exitCode, 1, arg);
  }
});
