// Issue 18's tenant scenario, end to end with real clients: a tkafka node and an Apache Kafka 4.4.0
// node, both with authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer and a
// SASL_PLAINTEXT listener with SCRAM-SHA-512 (users admin, alice and bob made with `tkafka configs
// --entity-type users --add-config SCRAM-SHA-512=[…]` through the PLAINTEXT listener, whose
// ANONYMOUS principal is a super user as Kafka's own broker-to-controller connections need), admin a
// super user. The same ACLs on both (`tkafka acls` on tkafka, kafka-acls.sh on Kafka, the same
// flags): alice may WRITE and DESCRIBE topics prefixed `orders-` and nothing else; bob may READ
// topic `orders-eu` and group `billing`. Then Kafka's Java client 4.4.0
// (acl-tenant/TenantClient.java) and confluent-kafka 2.15 (acl-tenant/tenant_client.py) each try the
// forbidden actions (alice produces to `payments`, consumes with a group, creates a topic,
// describes the configs of `orders-eu`, uses a transactional id; bob consumes with group `other`)
// and the allowed ones (alice produces to `orders-eu`, bob consumes it in group `billing`, bob's
// Metadata of all topics shows only `orders-eu`), one line per action. Kafka's lines must be the
// expected ones below (so a test with two wrong sides cannot pass) and tkafka's lines must equal
// Kafka's; a difference is reported per action.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { compileJava, requireJavaClient } from '../helpers/javac.js';
import { createUsers, startSecuredPair, tkafkaTool, type Node, type SecuredPair } from './acl-tenant/nodes.js';

const SOURCE_DIR = join(REPO_ROOT, 'test', 'interop', 'acl-tenant');
const JAVA_SOURCE = join(SOURCE_DIR, 'TenantClient.java');
const JAVA_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const JAVA_CLASSES = join(REPO_ROOT, '.cache', 'i18-tenant', 'classes');
const PYTHON = join(REPO_ROOT, '.cache', 'clients', 'venv', 'bin', 'python');
const PYTHON_SCRIPT = join(SOURCE_DIR, 'tenant_client.py');

/** What Kafka 4.4.0 answers each action, as each client reports it. */
const EXPECTED_JAVA = [
  'action=alice-produce-orders-eu outcome=ok',
  'action=alice-produce-payments outcome=TopicAuthorizationException',
  'action=alice-consume-group outcome=GroupAuthorizationException',
  'action=bob-consume-group-other outcome=GroupAuthorizationException',
  'action=alice-create-topic outcome=TopicAuthorizationException',
  'action=alice-describe-configs-orders-eu outcome=TopicAuthorizationException',
  'action=alice-transactional-id outcome=TransactionalIdAuthorizationException',
  'action=bob-metadata-all-topics outcome=ok topics=orders-eu',
  'action=bob-consume-billing outcome=ok records=3',
];
const EXPECTED_PYTHON = [
  'action=alice-produce-orders-eu outcome=ok',
  'action=alice-produce-payments outcome=TOPIC_AUTHORIZATION_FAILED',
  'action=alice-consume-group outcome=GROUP_AUTHORIZATION_FAILED',
  'action=bob-consume-group-other outcome=GROUP_AUTHORIZATION_FAILED',
  'action=alice-create-topic outcome=TOPIC_AUTHORIZATION_FAILED',
  'action=alice-describe-configs-orders-eu outcome=TOPIC_AUTHORIZATION_FAILED',
  'action=alice-transactional-id outcome=TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'action=bob-metadata-all-topics outcome=ok topics=orders-eu',
  'action=bob-consume-billing outcome=ok records=3',
];

let pair: SecuredPair;

/** The ACLs of the scenario, with `kafka-acls.sh`'s flags. */
const ACLS = [
  ['--allow-principal', 'User:alice', '--operation', 'Write', '--operation', 'Describe'],
  ['--topic', 'orders-', '--resource-pattern-type', 'prefixed'],
  ['--allow-principal', 'User:bob', '--operation', 'Read', '--topic', 'orders-eu'],
  ['--allow-principal', 'User:bob', '--operation', 'Read', '--group', 'billing'],
];

async function setUp(node: Node, acls: (args: string[]) => Promise<void>): Promise<void> {
  // the users, through the PLAINTEXT listener (ANONYMOUS is a super user)
  await createUsers(node, ['admin', 'alice', 'bob']);
  // admin, authenticated with SCRAM-SHA-512, makes the topics and the ACLs
  const config = pair.clientConfig('admin');
  for (const topic of ['orders-eu', 'payments'])
    await tkafkaTool('topics', [
      '--bootstrap-server',
      node.sasl,
      '--command-config',
      config,
      '--create',
      '--topic',
      topic,
      '--partitions',
      '1',
      '--replication-factor',
      '1',
    ]);
  const common = ['--bootstrap-server', node.sasl, '--command-config', config, '--add'];
  await acls([...common, ...ACLS[0]!, ...ACLS[1]!]);
  await acls([...common, ...ACLS[2]!]);
  await acls([...common, ...ACLS[3]!]);
}

before(async () => {
  pair = await startSecuredPair();
  await setUp(pair.kafkaNode, async (args) => {
    const r = await pair.kafka.runTool('org.apache.kafka.tools.AclCommand', args);
    if (r.exitCode !== 0) throw new Error(`kafka-acls.sh ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  });
  await setUp(pair.tkafkaNode, async (args) => {
    await tkafkaTool('acls', args);
  });
  await ensureJavaCompiled();
  if (!existsSync(PYTHON))
    throw new Error(`confluent-kafka's venv is missing (${PYTHON}): run bash test/clients/python/setup.sh`);
});

after(async () => {
  await pair?.cleanup();
});

/** Compiles TenantClient.java against kafka-clients 4.4.0 when its class is missing or older. */
async function ensureJavaCompiled(): Promise<void> {
  requireJavaClient(JAVA_LIB);
  await compileJava(JAVA_SOURCE, JAVA_CLASSES, `${JAVA_LIB}/*`);
}

/** The action lines a client printed against `node`; its stderr in the error when it did not finish. */
async function run(client: 'java' | 'python', node: Node): Promise<string[]> {
  const tag = `${client}-${node.name === 'tkafka' ? 't' : 'k'}`;
  const r =
    client === 'java'
      ? await execa(
          'nice',
          [
            '-n',
            '19',
            'java',
            '-XX:+UseSerialGC',
            '-XX:TieredStopAtLevel=1',
            '-Xmx256m',
            '-cp',
            `${JAVA_CLASSES}:${JAVA_LIB}/*`,
            'TenantClient',
            node.sasl,
            tag,
          ],
          { reject: false, timeout: 300_000 },
        )
      : await execa('nice', ['-n', '19', PYTHON, PYTHON_SCRIPT, node.sasl, tag], { reject: false, timeout: 300_000 });
  const lines = String(r.stdout)
    .split('\n')
    .filter((l) => l.startsWith('action='));
  if (r.exitCode !== 0 || lines.length !== EXPECTED_JAVA.length)
    throw new Error(
      `${client} client against ${node.name} exited ${r.exitCode} after ${lines.length} actions:\n${String(r.stdout)}\n${String(r.stderr).slice(-6000)}`,
    );
  return lines;
}

/** Runs are memoised: Kafka's lines are checked in one test and compared with tkafka's in the next. */
const runs = new Map<string, Promise<string[]>>();
function lines(client: 'java' | 'python', node: () => Node): Promise<string[]> {
  const key = `${client}@${node().name}`;
  if (!runs.has(key)) runs.set(key, run(client, node()));
  return runs.get(key)!;
}

/** Each action whose tkafka line differs from Kafka's, as `tkafka: … / Kafka: …`. */
function differences(t: string[], k: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(t.length, k.length); i++)
    if (t[i] !== k[i]) out.push(`tkafka: ${t[i] ?? '(none)'}\n   Kafka: ${k[i] ?? '(none)'}`);
  return out;
}

for (const [client, expected, label] of [
  ['java', EXPECTED_JAVA, "Kafka's Java client 4.4.0"],
  ['python', EXPECTED_PYTHON, 'confluent-kafka 2.15'],
] as const) {
  test(`tenant scenario on Apache Kafka 4.4.0 with ${label}: the authorization errors Kafka gives`, async () => {
    assert.deepEqual(await lines(client, () => pair.kafkaNode), expected);
  });

  test(`tenant scenario on tkafka with ${label}: the same outcome as Kafka for every action`, async () => {
    const k = await lines(client, () => pair.kafkaNode);
    const t = await lines(client, () => pair.tkafkaNode);
    const diff = differences(t, k);
    assert.deepEqual(diff, [], `${diff.length} action(s) differ from Kafka 4.4.0:\n ${diff.join('\n ')}`);
  });
}
