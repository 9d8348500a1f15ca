// `tkafka acls` and Kafka 4.4.0's own AclCommand side by side, on Apache Kafka 4.4.0 with the
// StandardAuthorizer (super.users=User:ANONYMOUS, so the PLAINTEXT clients may manage ACLs). Each
// mutating command runs twice from the same starting ACLs — once with Kafka's tool, once with
// tkafka — and both the output (stdout, stderr, exit code) and the ACLs left on the broker must be
// the same. Read commands run on the same ACLs. A SASL PLAIN listener (users admin, a super user,
// and alice) shows the refusal and the grant end to end, through --command-config files.
//
// Normalised, and only this:
// - Kafka prints resources from a HashMap and entries from HashSets keyed by objects whose hash codes
//   include enum identity hashes, so their order changes from one JVM run to the next. Blocks (text
//   between blank lines) are compared as sets, and the lines inside a block as sets; the number of
//   ` \t` (first entry of an `Adding ACLs` block / a question) is kept. An `ACLs for principal`
//   line counts as a block of its own (the tests list one principal at a time).
// - `ResourceType X only supports operations [..]` and the help's operation list come from HashSets
//   too: their items are compared sorted.
// - Kafka prints the stack frames of a failure after its first two lines; the first two are compared.
// - Kafka 4.4 reads the (y/n) answer with System.console().readLine(), which is null unless stdin and
//   stdout are a terminal; its tool runs under script(1) for those cases (echo off, CRLF → LF).
// - A broker's authorization error names the request's connection (processor, connection id,
//   session hash), different for each client: that part is left out.
// - The help: tkafka's own rows (--output, --debug) and --bootstrap-server (tkafka adds its
//   environment / profile note) are left out.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { kafkaLibDir, startApacheKafka, TOOL_JVM_FLAGS, type ApacheKafka } from './helpers/apache-kafka.js';
import { runTkafka, type Run } from './helpers/tool-runs.js';
import { propertiesText } from '../helpers/cluster.js';
import { KafkaClient } from '../../src/client/client.js';
import {
  ANY_BINDING,
  bindingString,
  createAcls,
  deleteAcls,
  describeAcls,
  type AclBinding,
} from '../../src/client/admin/acls.js';

const ACL_COMMAND = 'org.apache.kafka.tools.AclCommand';
const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';

let kafka: ApacheKafka;
let client: KafkaClient;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-acls-tool-'));
  kafka = await startApacheKafka({
    extraListeners: { PLAIN: 'SASL_PLAINTEXT' },
    overrides: {
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': 'User:ANONYMOUS;User:admin',
      'listener.name.plain.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.plain.plain.sasl.jaas.config': `${PLAIN_MODULE} required user_admin="admin-secret" user_alice="alice-secret";`,
    },
  });
  client = new KafkaClient({ bootstrapServers: [kafka.bootstrap] });
});

after(async () => {
  client?.close();
  await kafka?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const bs = (): string[] => ['--bootstrap-server', kafka.bootstrap];

async function runKafka(args: string[]): Promise<Run> {
  const r = await kafka.runTool(ACL_COMMAND, args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/**
 * Kafka's tool with a terminal (script(1), echo off) for System.console(): each answer is typed when
 * a `(y/n)` question has been printed, as a user does.
 */
async function runKafkaOnTerminal(args: string[], answers: string[]): Promise<Run> {
  await kafka.runTool(ACL_COMMAND, ['--version']); // writes the tools log4j2 file beside lib/
  const lib = kafkaLibDir();
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const java = [
    'java',
    ...TOOL_JVM_FLAGS,
    `-Dlog4j2.configurationFile=${join(dirname(lib), 'tools-log4j2.properties')}`,
    '-cp',
    `${lib}/*`,
    ACL_COMMAND,
    ...args,
  ]
    .map(quote)
    .join(' ');
  const child = execa('script', ['-qec', `stty -echo; exec ${java}`, '/dev/null'], {
    reject: false,
    timeout: 120_000,
    stripFinalNewline: false,
  });
  let seen = '';
  let answered = 0;
  child.stdout!.on('data', (chunk: Buffer) => {
    seen += String(chunk);
    const asked = seen.split('(y/n)').length - 1;
    while (answered < asked && answered < answers.length) child.stdin!.write(answers[answered++] + '\n');
  });
  const r = await child;
  return { code: r.exitCode ?? -1, out: String(r.stdout).replace(/\r\n/g, '\n'), err: String(r.stderr) };
}

/** No TKAFKA_BOOTSTRAP_SERVER, no profile (a HOME without one). */
const TK_ENV = { HOME: '/nonexistent/tkafka-acls-home' };
const tk = (args: string[], input?: string): Promise<Run> => runTkafka('acls', args, TK_ENV, input ?? '');

/** The order-free form of a tool's stdout (see the header). */
function canonical(text: string): string[] {
  return text
    .replace(/^(ACLs for principal `[^`]*`)\n/gm, '$1\n\n')
    .split('\n\n')
    .map((chunk) => {
      const lines = chunk
        .split('\n')
        .map((l) =>
          l.replace(
            /only supports operations \[(.*)\]$/,
            (_m, items: string) => `only supports operations [${items.split(', ').sort().join(', ')}]`,
          ),
        );
      const spaced = lines.filter((l) => l.startsWith(' \t')).length;
      return (
        `${spaced}|` +
        lines
          .map((l) => l.replace(/^ \t/, '\t'))
          .sort()
          .join('\n')
      );
    })
    .sort();
}

/** The ACLs on the broker, as sorted AclBinding strings. */
async function snapshot(): Promise<string[]> {
  return (await describeAcls(client, ANY_BINDING)).map(bindingString).sort();
}

/**
 * Polls the broker's ACLs (every 100 ms, at most 15 s) until `done` holds: the broker applies ACL
 * changes from the metadata log a little after the controller has answered.
 */
async function waitForAcls(done: (acls: string[]) => boolean, what: string): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const acls = await snapshot();
    if (done(acls)) return acls;
    if (Date.now() > deadline) assert.fail(`${what}: ACLs on the broker: ${JSON.stringify(acls)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every ACL deleted (and gone from the broker), then `initial` created (and there). */
async function reset(initial: AclBinding[]): Promise<void> {
  await deleteAcls(client, [ANY_BINDING]);
  await waitForAcls((a) => a.length === 0, 'reset: deleted');
  await createAcls(client, initial);
  const want = JSON.stringify(initial.map(bindingString).sort());
  await waitForAcls((a) => JSON.stringify(a) === want, 'reset: created');
}

function assertSameRun(kafkaRun: Run, tkafkaRun: Run, what: string): void {
  assert.equal(
    tkafkaRun.code,
    kafkaRun.code,
    `${what}: exit code\nkafka: ${kafkaRun.out}${kafkaRun.err}\ntkafka: ${tkafkaRun.out}${tkafkaRun.err}`,
  );
  assert.deepEqual(
    canonical(tkafkaRun.out),
    canonical(kafkaRun.out),
    `${what}: stdout\nkafka:\n${kafkaRun.out}\ntkafka:\n${tkafkaRun.out}`,
  );
  assert.equal(tkafkaRun.err, kafkaRun.err, `${what}: stderr`);
}

/** Runs a mutating command with each tool from the same ACLs; same output and same ACLs after. */
async function sideBySide(
  args: string[],
  opts: { initial?: AclBinding[]; answers?: string[]; expect: number },
): Promise<{ kafka: Run; tkafka: Run; after: string[] }> {
  const initial = opts.initial ?? [];
  const what = args.join(' ');
  await reset(initial);
  const k = opts.answers === undefined ? await runKafka(args) : await runKafkaOnTerminal(args, opts.answers);
  const afterKafka = await waitForAcls((a) => a.length === opts.expect, `${what} (Kafka's tool)`);
  await reset(initial);
  const t = await tk(args, opts.answers?.map((a) => a + '\n').join(''));
  const afterTkafka = await waitForAcls((a) => a.length === opts.expect, `${what} (tkafka)`);
  assertSameRun(k, t, args.join(' '));
  assert.deepEqual(afterTkafka, afterKafka, `${args.join(' ')}: ACLs after`);
  return { kafka: k, tkafka: t, after: afterKafka };
}

const topic = (name: string, patternType: 'LITERAL' | 'PREFIXED' = 'LITERAL') =>
  ({ resourceType: 'TOPIC', name, patternType }) as const;
const allow = (principal: string, operation: AclBinding['entry']['operation'], host = '*') =>
  ({ principal, host, operation, permissionType: 'ALLOW' }) as const;

test('add literal ACLs: two principals, two operations, a topic and a group', async () => {
  const r = await sideBySide(
    [
      ...bs(),
      '--add',
      '--allow-principal',
      'User:alice',
      '--allow-principal',
      'User:bob',
      '--operation',
      'Read',
      '--operation',
      'Describe',
      '--topic',
      'orders',
      '--group',
      'g1',
    ],
    { expect: 8 },
  );
  assert.match(
    r.tkafka.out,
    /^Adding ACLs for resource `ResourcePattern\(resourceType=TOPIC, name=orders, patternType=LITERAL\)`: \n \t\(principal=User:alice/,
  );
});

test('add prefixed ACLs with deny principals and hosts', async () => {
  await sideBySide(
    [
      ...bs(),
      '--add',
      '--allow-principal',
      'User:alice',
      '--deny-principal',
      'User:mallory',
      '--deny-host',
      '10.0.0.1',
      '--deny-host',
      '10.0.0.2',
      '--operation',
      'WRITE',
      '--topic',
      'orders-',
      '--resource-pattern-type',
      'prefixed',
    ],
    { expect: 3 },
  );
});

test('add ACLs of which some exist: "Acl … already exists." for those, Adding for the rest', async () => {
  const initial: AclBinding[] = [{ pattern: topic('orders'), entry: allow('User:alice', 'READ') }];
  const r = await sideBySide(
    [
      ...bs(),
      '--add',
      '--allow-principal',
      'User:alice',
      '--operation',
      'Read',
      '--operation',
      'Write',
      '--topic',
      'orders',
    ],
    { initial, expect: 2 },
  );
  assert.match(
    r.tkafka.out,
    /^Acl \(pattern=ResourcePattern\(resourceType=TOPIC, name=orders, patternType=LITERAL\), entry=\(principal=User:alice, host=\*, operation=READ, permissionType=ALLOW\)\) already exists\.\n/,
  );
  // Every ACL there already: only the "exists" lines.
  await sideBySide([...bs(), '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'orders'], {
    initial,
    expect: 1,
  });
});

test('--producer (with --idempotent and a transactional id) and --consumer conveniences', async () => {
  await sideBySide(
    [
      ...bs(),
      '--add',
      '--producer',
      '--idempotent',
      '--allow-principal',
      'User:p',
      '--topic',
      't1',
      '--transactional-id',
      'tx-',
      '--resource-pattern-type',
      'PREFIXED',
    ],
    { expect: 6 },
  ); // t1-: WRITE, DESCRIBE, CREATE; tx-: WRITE, DESCRIBE; cluster: IDEMPOTENT_WRITE
  await sideBySide([...bs(), '--add', '--consumer', '--allow-principal', 'User:c', '--topic', 't1', '--group', 'g1'], {
    expect: 3,
  });
  await sideBySide(
    [
      ...bs(),
      '--add',
      '--producer',
      '--consumer',
      '--allow-principal',
      'User:pc',
      '--allow-host',
      '192.168.0.1',
      '--topic',
      't1',
      '--group',
      'g1',
    ],
    { expect: 5 },
  ); // t1: WRITE, DESCRIBE, CREATE, READ; g1: READ
});

test('list all, by resource (literal, prefixed, any, match), by principal, on the controller', async () => {
  const listed: AclBinding[] = [
    { pattern: topic('orders'), entry: allow('User:alice', 'READ') },
    { pattern: topic('orders'), entry: allow('User:bob', 'WRITE', '10.0.0.1') },
    { pattern: topic('ord', 'PREFIXED'), entry: allow('User:alice', 'DESCRIBE') },
    { pattern: topic('*'), entry: allow('User:carol', 'READ') },
    { pattern: { resourceType: 'GROUP', name: 'g1', patternType: 'LITERAL' }, entry: allow('User:bob', 'READ') },
    {
      pattern: { resourceType: 'CLUSTER', name: 'kafka-cluster', patternType: 'LITERAL' },
      entry: allow('User:alice', 'ALTER'),
    },
  ];
  await reset(listed);
  const cases: string[][] = [
    ['--list'],
    ['--list', '--topic', 'orders'],
    ['--list', '--topic', 'ord', '--resource-pattern-type', 'PREFIXED'],
    ['--list', '--topic', 'orders', '--resource-pattern-type', 'any'],
    ['--list', '--topic', 'orders', '--resource-pattern-type', 'match'],
    ['--list', '--principal', 'User:alice'],
    ['--list', '--cluster', '--group', 'g1'],
    ['--list', '--topic', 'nothing-here'],
  ];
  for (const c of cases) {
    const k = await runKafka([...bs(), ...c]);
    const t = await tk([...bs(), ...c]);
    assertSameRun(k, t, c.join(' '));
  }
  const onController = ['--bootstrap-controller', kafka.controllerBootstrap, '--list', '--topic', 'orders'];
  const k = await runKafka(onController);
  const t = await tk(onController);
  assertSameRun(k, t, onController.join(' '));
  assert.match(t.out, /principal=User:bob, host=10\.0\.0\.1, operation=WRITE/);
});

test('remove with --force: given entries, every ACL of a resource, a match filter', async () => {
  const initial: AclBinding[] = [
    { pattern: topic('orders'), entry: allow('User:alice', 'READ') },
    { pattern: topic('orders'), entry: allow('User:alice', 'WRITE') },
    { pattern: topic('orders'), entry: allow('User:bob', 'READ') },
    { pattern: topic('ord', 'PREFIXED'), entry: allow('User:bob', 'READ') },
    { pattern: { resourceType: 'GROUP', name: 'g1', patternType: 'LITERAL' }, entry: allow('User:bob', 'READ') },
  ];
  const a = await sideBySide(
    [...bs(), '--remove', '--force', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'orders'],
    { initial, expect: 4 },
  );
  assert.equal(a.tkafka.out, '');
  await sideBySide([...bs(), '--remove', '--force', '--topic', 'orders', '--group', 'g1'], { initial, expect: 1 });
  // MATCH: the literal and prefixed topic ACLs that match "orders"; the group's stays.
  await sideBySide([...bs(), '--remove', '--force', '--topic', 'orders', '--resource-pattern-type', 'match'], {
    initial,
    expect: 1,
  });
});

test('remove without --force: the question, answered y and n', async () => {
  const initial: AclBinding[] = [
    { pattern: topic('orders'), entry: allow('User:alice', 'READ') },
    { pattern: topic('orders'), entry: allow('User:bob', 'READ') },
  ];
  const given = [...bs(), '--remove', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'orders'];
  const yes = await sideBySide(given, { initial, answers: ['y'], expect: 1 });
  assert.match(
    yes.tkafka.out,
    /^Are you sure you want to remove ACLs: \n \t\(principal=User:alice, host=\*, operation=READ, permissionType=ALLOW\)\n from resource filter `ResourcePattern\(resourceType=TOPIC, name=orders, patternType=LITERAL\)`\? \(y\/n\)\n$/,
  );
  await sideBySide(given, { initial, answers: ['n'], expect: 2 });
  const all = [...bs(), '--remove', '--topic', 'orders'];
  await sideBySide(all, { initial, answers: ['Y'], expect: 0 });
  await sideBySide(all, { initial, answers: ['no'], expect: 2 });
  // Two resources: a question for each (Kafka asks them in HashMap order, so both answered y).
  await sideBySide([...bs(), '--remove', '--topic', 'orders', '--group', 'g1'], {
    initial: [
      ...initial,
      { pattern: { resourceType: 'GROUP', name: 'g1', patternType: 'LITERAL' }, entry: allow('User:bob', 'READ') },
    ],
    answers: ['y', 'y'],
    expect: 0,
  });
});

test('usage errors and failures before the first request', async () => {
  const usage: string[][] = [
    [...bs(), '--bootstrap-controller', kafka.controllerBootstrap, '--list'],
    ['--list'],
    [...bs(), '--add', '--list'],
    [...bs()],
    [...bs(), '--list', '--producer'],
    [...bs(), '--add', '--producer', '--operation', 'Read', '--topic', 't'],
    [...bs(), '--add', '--principal', 'User:a'],
    [...bs(), '--add', '--producer'],
    [...bs(), '--add', '--idempotent'],
    [...bs(), '--add', '--consumer', '--topic', 't'],
    [...bs(), '--add', '--allow-principal', 'User:a'],
    [...bs(), '--add', '--topic', 't'],
    [...bs(), '--add', '--topic', 't', '--allow-principal', 'User:a', '--resource-pattern-type', 'match'],
    [...bs(), '--add', '--topic', 't', '--allow-principal', 'User:a', '--operation', 'IdempotentWrite'],
    [...bs(), '--add', '--operation'],
    [...bs(), '--list', '--no-such-flag'],
  ];
  for (const args of usage) {
    const k = await runKafka(args);
    const t = await tk(args);
    const what = args.join(' ');
    assert.equal(t.code, k.code, what);
    assert.equal(k.code, 1, what);
    assert.equal(t.out, k.out, what);
    assert.deepEqual(canonical(t.err.split('\n')[0]!), canonical(k.err.split('\n')[0]!), what);
    assert.match(t.err.split('\n')[1]!, /^Option\s+Description/, what);
    assert.match(k.err.split('\n')[1]!, /^Option\s+Description/, what);
  }
  const failures: string[][] = [
    [...bs(), '--add', '--topic', 't', '--allow-principal', 'alice'],
    [...bs(), '--list', '--topic', 't', '--resource-pattern-type', 'unknown'],
    [...bs(), '--remove', '--force', '--topic', 't', '--resource-pattern-type', 'foo'],
    [...bs(), '--add', '--topic', 't', '--allow-principal', 'User:a', '--operation', 'Any'],
  ];
  for (const args of failures) {
    const k = await runKafka(args);
    const t = await tk(args);
    const what = args.join(' ');
    assert.equal(t.code, k.code, what);
    assert.equal(k.code, 1, what);
    assert.equal(t.out, k.out.split('\n').slice(0, 2).join('\n') + '\n', what);
    assert.equal(t.err, k.err, what);
  }
});

/** The help's rows (an option and its description lines), the operation names sorted. */
function helpRows(text: string): string[] {
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('--') || rows.length === 0) rows.push(line);
    else rows[rows.length - 1] += '\n' + line;
  }
  return rows
    .filter((r) => !/^--(output|debug|bootstrap-server) /.test(r))
    .map((r) => {
      const lines = r.split('\n');
      const ops = lines.filter((l) => /^\s+\t\w+\s*$/.test(l)).sort();
      return [...lines.filter((l) => !/^\s+\t\w+\s*$/.test(l)), ...ops].join('\n');
    });
}

test('--help: Kafka 4.4 help text (tkafka rows aside)', async () => {
  const k = await runKafka(['--help']);
  const t = await tk(['--help']);
  assert.equal(t.code, k.code);
  assert.equal(t.out, k.out);
  assert.deepEqual(helpRows(t.err), helpRows(k.err));
});

test('--output json (and table): the bindings listed, added and removed', async () => {
  await reset([{ pattern: topic('orders'), entry: allow('User:alice', 'READ') }]);
  const added = await tk([
    ...bs(),
    '--add',
    '--allow-principal',
    'User:bob',
    '--operation',
    'Write',
    '--topic',
    'orders',
    '--output',
    'json',
  ]);
  assert.equal(added.code, 0, added.err);
  assert.deepEqual(JSON.parse(added.out), [
    {
      resourceType: 'TOPIC',
      name: 'orders',
      patternType: 'LITERAL',
      principal: 'User:bob',
      host: '*',
      operation: 'WRITE',
      permissionType: 'ALLOW',
    },
  ]);
  const listed = await tk([...bs(), '--list', '--topic', 'orders', '--output', 'json']);
  assert.deepEqual(
    (JSON.parse(listed.out) as { principal: string; operation: string }[]).map((b) => `${b.principal}/${b.operation}`),
    ['User:alice/READ', 'User:bob/WRITE'],
  );
  const table = await tk([...bs(), '--list', '--topic', 'orders', '--output', 'table']);
  assert.equal(table.code, 0, table.err);
  assert.match(table.out, /RESOURCE TYPE.*NAME.*PATTERN TYPE.*PRINCIPAL.*HOST.*OPERATION.*PERMISSION/);
  assert.match(table.out, /TOPIC.*orders.*LITERAL.*User:bob.*\*.*WRITE.*ALLOW/);
  const removed = await tk([...bs(), '--remove', '--topic', 'orders', '--output', 'json'], 'y\n');
  assert.equal(removed.code, 0, removed.err);
  assert.equal(JSON.parse(removed.out).length, 2);
  assert.match(removed.err, /^Are you sure you want to delete all ACLs for resource filter/);
  assert.deepEqual(await snapshot(), []);
});

/** A --command-config file for the SASL PLAIN listener as `user`. */
function plainConfig(user: string): string {
  const file = join(dir, `${user}.properties`);
  writeFileSync(
    file,
    propertiesText({
      'security.protocol': 'SASL_PLAINTEXT',
      'sasl.mechanism': 'PLAIN',
      'sasl.jaas.config': `${PLAIN_MODULE} required username="${user}" password="${user}-secret";`,
    }),
  );
  return file;
}

test('SASL PLAIN with --command-config: a user without rights is refused; the ACL an admin adds lets it in', async () => {
  await reset([]);
  const plain = `127.0.0.1:${kafka.listenerPorts['PLAIN']}`;
  const asAlice = ['--bootstrap-server', plain, '--command-config', plainConfig('alice')];
  const asAdmin = ['--bootstrap-server', plain, '--command-config', plainConfig('admin')];
  // alice may not describe the cluster's ACLs: Kafka's Admin fails with the broker's error, whose
  // text names the request's connection (processor, connection id, session hash): left out.
  const k = await runKafka([...asAlice, '--list']);
  const t = await tk([...asAlice, '--list']);
  assert.equal(k.code, 1);
  assert.equal(t.code, 1);
  const connectionFree = (text: string): string =>
    text.replace(/Request Request\(.*?\) needs/g, 'Request Request(…) needs');
  assert.equal(
    connectionFree(t.out),
    connectionFree(k.out.split('\n').slice(0, 2).join('\n') + '\n'),
    `kafka:\n${k.out.split('\n').slice(0, 3).join('\n')}`,
  );
  assert.match(
    t.out,
    /^Error while executing ACL command: org\.apache\.kafka\.common\.errors\.ClusterAuthorizationException: /,
  );
  // admin (a super user) grants alice DESCRIBE on the cluster, through tkafka.
  const added = await tk([
    ...asAdmin,
    '--add',
    '--allow-principal',
    'User:alice',
    '--operation',
    'Describe',
    '--cluster',
  ]);
  assert.equal(added.code, 0, added.out + added.err);
  await waitForAcls((a) => a.length === 1, 'the ACL for alice');
  const k2 = await runKafka([...asAlice, '--list']);
  const t2 = await tk([...asAlice, '--list']);
  assertSameRun(k2, t2, 'alice --list');
  assert.equal(
    t2.out,
    'Current ACLs for resource `ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)`:\n' +
      '\t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)\n\n',
  );
});

test('--bootstrap-controller: add and remove through the controller', async () => {
  const controller = ['--bootstrap-controller', kafka.controllerBootstrap];
  await sideBySide(
    [...controller, '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--group', 'g-'],
    {
      expect: 1,
    },
  );
  await sideBySide([...controller, '--remove', '--force', '--group', 'g1', '--resource-pattern-type', 'match'], {
    initial: [
      { pattern: { resourceType: 'GROUP', name: 'g', patternType: 'PREFIXED' }, entry: allow('User:bob', 'READ') },
    ],
    expect: 0,
  });
});
