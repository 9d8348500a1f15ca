// ACLs managed with Kafka 4.4.0's own kafka-acls.sh (org.apache.kafka.tools.AclCommand) through a
// SASL PLAIN listener, on a tkafka node and on an Apache Kafka 4.4.0 node, both with
// authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer and the same users:
// the same steps on both give the same output and exit code. A user who is not a super user is
// refused (CLUSTER_AUTHORIZATION_FAILED) until an ACL allows it DESCRIBE on the cluster; ACLs are
// added (literal, prefixed, --producer/--consumer, deny with a host), listed (all, one resource,
// --resource-pattern-type match, --principal), removed one by one and per resource. Kafka lists
// ACLs in the order of its HashMaps, so listings are compared as sets of resource blocks with
// their entries sorted. Then the AccessControlEntryRecords of both metadata logs, as
// `dump-log --cluster-metadata-decoder` and Kafka's DumpLogSegments print them, are the same but
// for the random ids.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka, type ToolResult } from './helpers/apache-kafka.js';
import { startBroker, boundPorts, type BrokerProcess } from '../helpers/broker-process.js';
import { runTkafka } from '../helpers/tool-run.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const JAAS = `${PLAIN_MODULE} required user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";`;
const AUTHZ = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  // ANONYMOUS: Kafka's own broker-to-controller connections on the PLAINTEXT CONTROLLER listener
  'super.users': 'User:admin;User:ANONYMOUS',
};

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
let dir: string;
let targets: [string, string][];

function configFile(user: string): string {
  const file = join(dir, `${user}.properties`);
  writeFileSync(
    file,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=PLAIN',
      `sasl.jaas.config=${PLAIN_MODULE} required username="${user}" password="${user}-secret";`,
      '',
    ].join('\n'),
  );
  return file;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-acls-'));
  kafka = await startApacheKafka({
    extraListeners: { SASL: 'SASL_PLAINTEXT' },
    overrides: {
      ...AUTHZ,
      'listener.name.sasl.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl.plain.sasl.jaas.config': JAAS,
    },
  });
  tkafka = await startBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASL://127.0.0.1:0',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SASL://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT',
      'listener.name.sasl.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl.plain.sasl.jaas.config': JAAS,
      ...AUTHZ,
    },
  });
  const ports = boundPorts(tkafka.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL'])!;
  targets = [
    ['Kafka 4.4.0', `127.0.0.1:${kafka.listenerPorts['SASL']}`],
    ['tkafka', `127.0.0.1:${ports.get('SASL')}`],
  ];
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function acls(bootstrap: string, user: string, args: string[]): Promise<ToolResult> {
  return kafka.runTool('org.apache.kafka.tools.AclCommand', [
    '--bootstrap-server',
    bootstrap,
    '--command-config',
    configFile(user),
    ...args,
  ]);
}

/** A listing as a sorted list of resource blocks, each with its entry lines sorted. */
function listing(out: string): string[] {
  return out
    .split(/\n(?=Current ACLs for resource|ACLs for principal)/)
    .map((block) => {
      const [head, ...rest] = block.split('\n');
      return [head, ...rest.filter((l) => l.trim() !== '').sort()].join('\n');
    })
    .filter((b) => b.trim() !== '')
    .sort();
}

/** The same command on both brokers: the same exit code and (normalised) output. */
async function same(
  user: string,
  args: string[],
  normalise: (r: ToolResult) => unknown = (r) => r.stdout,
): Promise<ToolResult> {
  const results: ToolResult[] = [];
  for (const [, bootstrap] of targets) results.push(await acls(bootstrap, user, args));
  const [k, t] = results as [ToolResult, ToolResult];
  const what = `${user}: kafka-acls ${args.join(' ')}`;
  assert.equal(
    t.exitCode,
    k.exitCode,
    `${what}: exit codes; tkafka:\n${t.stdout}${t.stderr}\nKafka:\n${k.stdout}${k.stderr}`,
  );
  assert.deepEqual(normalise(t), normalise(k), `${what}: output`);
  return k;
}

/** The first line of a failed run: `Error while executing ACL command: <exception class>: …`. */
const errorClass = (r: ToolResult): string =>
  /^Error while executing ACL command: ([\w.]+)/.exec(r.stdout)?.[1] ?? r.stdout;

test('kafka-acls.sh manages ACLs on tkafka as on Apache Kafka 4.4.0 (StandardAuthorizer, SASL PLAIN)', async () => {
  // bob is no super user and no ACL allows him anything: listing is refused
  const refused = await same('bob', ['--list'], errorClass);
  assert.equal(refused.exitCode, 1);
  assert.equal(errorClass(refused), 'org.apache.kafka.common.errors.ClusterAuthorizationException');
  // nor may he add ACLs
  const refusedAdd = await same(
    'bob',
    ['--add', '--allow-principal', 'User:bob', '--operation', 'All', '--cluster'],
    errorClass,
  );
  assert.equal(errorClass(refusedAdd), 'org.apache.kafka.common.errors.ClusterAuthorizationException');

  // the admin (super user) lists nothing, then adds
  assert.deepEqual(listing((await same('admin', ['--list'])).stdout), []);
  const added = await same('admin', ['--add', '--allow-principal', 'User:bob', '--operation', 'Describe', '--cluster']);
  assert.match(
    added.stdout,
    /Adding ACLs for resource `ResourcePattern\(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL\)`/,
  );
  await same('admin', [
    '--add',
    '--allow-principal',
    'User:alice',
    '--producer',
    '--topic',
    'orders-',
    '--resource-pattern-type',
    'prefixed',
  ]);
  await same('admin', [
    '--add',
    '--allow-principal',
    'User:bob',
    '--consumer',
    '--topic',
    'orders-eu',
    '--group',
    'billing',
  ]);
  await same('admin', [
    '--add',
    '--deny-principal',
    'User:bob',
    '--deny-host',
    '10.0.0.1',
    '--operation',
    'Read',
    '--topic',
    '*',
  ]);
  await same('admin', [
    '--add',
    '--allow-principal',
    'User:alice',
    '--operation',
    'Write',
    '--transactional-id',
    'tx-',
  ]);

  // bob may now describe ACLs (DESCRIBE on the cluster)
  const all = await same('bob', ['--list'], (r) => listing(r.stdout));
  const blocks = listing(all.stdout);
  assert.equal(blocks.length, 6, all.stdout);
  assert.ok(
    blocks.some((b) =>
      /name=orders-, patternType=PREFIXED[^]*operation=CREATE[^]*operation=DESCRIBE[^]*operation=WRITE/.test(b),
    ),
    blocks.join('\n---\n'),
  );
  await same('admin', ['--list', '--topic', 'orders-eu'], (r) => listing(r.stdout));
  await same('admin', ['--list', '--topic', 'orders-eu', '--resource-pattern-type', 'match'], (r) => listing(r.stdout));
  await same('admin', ['--list', '--topic', 'orders-', '--resource-pattern-type', 'prefixed'], (r) =>
    listing(r.stdout),
  );
  await same('admin', ['--list', '--principal', 'User:bob'], (r) => listing(r.stdout));
  await same('admin', ['--list', '--group', 'billing'], (r) => listing(r.stdout));

  // removal of one entry, then of every ACL of a resource
  await same('admin', [
    '--remove',
    '--force',
    '--allow-principal',
    'User:alice',
    '--operation',
    'Create',
    '--topic',
    'orders-',
    '--resource-pattern-type',
    'prefixed',
  ]);
  const afterOne = await same('admin', ['--list', '--topic', 'orders-', '--resource-pattern-type', 'prefixed'], (r) =>
    listing(r.stdout),
  );
  assert.doesNotMatch(afterOne.stdout, /operation=CREATE/);
  assert.match(afterOne.stdout, /operation=WRITE/);
  await same('admin', ['--remove', '--force', '--topic', '*']);
  await same('admin', ['--remove', '--force', '--topic', 'orders-', '--resource-pattern-type', 'prefixed']);
  const rest = await same('admin', ['--list'], (r) => listing(r.stdout));
  assert.equal(listing(rest.stdout).length, 4, rest.stdout);
});

/** The AccessControlEntry/RemoveAccessControlEntry payloads of a DumpLogSegments output, ids masked. */
function aclRecords(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l.includes('ACCESS_CONTROL_ENTRY_RECORD'))
    .map((l) => l.slice(l.indexOf('payload: ')).replace(/"id":"[^"]+"/, '"id":"<id>"'))
    .sort();
}

test('the ACL records print the same in dump-log --cluster-metadata-decoder as in Kafka 4.4.0 DumpLogSegments', async () => {
  const file = (root: string): string => join(root, '__cluster_metadata-0', '00000000000000000000.log');
  const k = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', [
    '--files',
    file(kafka.dataDir),
    '--cluster-metadata-decoder',
  ]);
  assert.equal(k.exitCode, 0, k.stderr);
  const t = await runTkafka('dump-log', ['--files', file(join(tkafka.dataDir, 'logs')), '--cluster-metadata-decoder']);
  assert.equal(t.code, 0, t.err);
  const kRecords = aclRecords(k.stdout);
  assert.ok(kRecords.length >= 10, k.stdout);
  assert.deepEqual(aclRecords(t.out), kRecords);
});
