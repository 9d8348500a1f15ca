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
// for the random ids. Last, the checks Produce, Fetch, Metadata and CreateTopics make (WRITE, READ,
// DESCRIBE and CREATE on topics, CREATE on the cluster, WRITE on a transactional id,
// DESCRIBE_CONFIGS for a new topic's configs, the authorized-operations bit fields of Metadata and
// DescribeCluster) answer the same
// error codes on both, for raw requests of SASL PLAIN users alice and bob.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka, type ToolResult } from './helpers/apache-kafka.js';
import { startBroker, boundPorts, type BrokerProcess } from '../helpers/broker-process.js';
import { runTkafka } from '../helpers/tool-run.js';
import { RawClient } from '../helpers/raw-client.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { buildRecordBatchSync } from '../../src/protocol/records/batch-build.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { ErrorCode } from '../../src/protocol/errors.js';

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

/** A raw connection authenticated with SASL PLAIN as `user`. */
async function saslClient(bootstrap: string, user: string): Promise<RawClient> {
  const c = await RawClient.connect(Number(bootstrap.split(':')[1]));
  const h = await c.request(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' });
  assert.equal(h.errorCode, 0);
  const a = await c.request(ApiKey.SaslAuthenticate, 2, {
    authBytes: Buffer.from(`\u0000${user}\u0000${user}-secret`),
  });
  assert.equal(a.errorCode, 0, a.errorMessage ?? '');
  return c;
}

const records = (transactional = false): Buffer =>
  buildRecordBatchSync({
    records: [{ key: 'k', value: 'v' }],
    ...(transactional ? { transactional: true, producerId: 7, producerEpoch: 0, baseSequence: 0 } : {}),
  });

/** What alice and bob get from each API on one broker, as comparable data. */
async function scenario(bootstrap: string): Promise<Record<string, unknown>> {
  const alice = await saslClient(bootstrap, 'alice');
  const bob = await saslClient(bootstrap, 'bob');
  try {
    const out: Record<string, unknown> = {};
    const produce = async (transactionalId: string | null, txn: boolean) => {
      const r = await alice.request(ApiKey.Produce, 9, {
        transactionalId,
        acks: -1,
        timeoutMs: 10_000,
        topicData: ['orders-1', 'secret'].map((name) => ({
          name,
          partitionData: [{ index: 0, records: records(txn) }],
        })),
      });
      // (Kafka's error response lists the topics in the order of a HashMap)
      return r.responses
        .map((t) => [t.name, t.partitionResponses.map((p) => p.errorCode)] as const)
        .sort((a, b) => a[0].localeCompare(b[0]));
    };
    out['alice produce'] = await produce(null, false);
    out['alice transactional produce'] = await produce('other-tx', true);
    const fetch = await bob.request(ApiKey.Fetch, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: ['orders-1', 'secret'].map((topic) => ({
        topic,
        partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 }],
      })),
      forgottenTopicsData: [],
      rackId: '',
    });
    out['bob fetch'] = fetch.responses.map((t) => [t.topic, t.partitions.map((p) => p.errorCode)]);
    const metadata = async (
      c: RawClient,
      version: number,
      names: string[] | null,
      auto: boolean,
      ops = false,
    ): Promise<unknown> => {
      const r = await c.request(ApiKey.Metadata, version, {
        topics: names === null ? null : names.map((name) => ({ topicId: ZERO_UUID, name })),
        allowAutoTopicCreation: auto,
        includeClusterAuthorizedOperations: ops,
        includeTopicAuthorizedOperations: ops,
      });
      return {
        topics: r.topics
          .map((t) => [t.name, t.errorCode, t.topicId === ZERO_UUID, ops ? t.topicAuthorizedOperations : null])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        cluster: ops ? r.clusterAuthorizedOperations : null,
      };
    };
    out['bob metadata, all topics'] = await metadata(bob, 12, null, false);
    out['bob metadata, named'] = await metadata(bob, 12, ['orders-1', 'secret', 'nope'], false);
    out['bob metadata, auto-creation'] = await metadata(bob, 12, ['bob-new', 'bob-other'], true);
    out['alice metadata, auto-creation'] = await metadata(alice, 12, ['orders-auto'], true);
    out['bob metadata v10, operations'] = await metadata(bob, 10, ['orders-1'], false, true);
    out['alice metadata v10, operations'] = await metadata(alice, 10, ['orders-1'], false, true);
    for (const [who, c] of [
      ['bob', bob],
      ['alice', alice],
    ] as const) {
      const r = await c.request(ApiKey.DescribeCluster, 1, {
        includeClusterAuthorizedOperations: true,
        endpointType: 1,
      });
      out[`${who} describe cluster`] = [r.errorCode, r.clusterAuthorizedOperations];
    }
    const create = async (c: RawClient, name: string) => {
      const r = await c.request(ApiKey.CreateTopics, 7, {
        topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      return r.topics.map((t) => ({
        name: t.name,
        errorCode: t.errorCode,
        errorMessage: t.errorMessage,
        topicConfigErrorCode: t.topicConfigErrorCode,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        configs: t.configs?.length ?? -1,
      }));
    };
    out['bob create topic'] = await create(bob, 'bob-topic');
    out['alice create topic'] = await create(alice, 'orders-2');
    return out;
  } finally {
    alice.close();
    bob.close();
  }
}

test('Produce, Fetch, Metadata and CreateTopics check ACLs as Kafka 4.4.0 does', async () => {
  for (const args of [
    [
      '--add',
      '--allow-principal',
      'User:alice',
      '--producer',
      '--topic',
      'orders-',
      '--resource-pattern-type',
      'prefixed',
    ],
    ['--add', '--allow-principal', 'User:bob', '--operation', 'Read', '--topic', 'orders-1'],
    ['--add', '--allow-principal', 'User:bob', '--operation', 'Describe', '--topic', 'bob-new'],
  ])
    await same('admin', args);
  for (const [, bootstrap] of targets) {
    const admin = await saslClient(bootstrap, 'admin');
    try {
      const r = await admin.request(ApiKey.CreateTopics, 7, {
        topics: ['orders-1', 'secret'].map((name) => ({
          name,
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: [],
        })),
        timeoutMs: 30_000,
        validateOnly: false,
      });
      assert.deepEqual(
        r.topics.map((t) => t.errorCode),
        [0, 0],
      );
    } finally {
      admin.close();
    }
  }
  await kafka.waitForTopic('orders-1');
  await kafka.waitForTopic('secret');

  const onKafka = await scenario(targets[0]![1]);
  const onTkafka = await scenario(targets[1]![1]);
  assert.deepEqual(onTkafka, onKafka);
  // and what Kafka answered is what the ACLs say
  const T = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  assert.deepEqual(onKafka['alice produce'], [
    ['orders-1', [0]],
    ['secret', [T]],
  ]);
  assert.deepEqual(onKafka['alice transactional produce'], [
    ['orders-1', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]],
    ['secret', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]],
  ]);
  assert.deepEqual(onKafka['bob fetch'], [
    ['orders-1', [0]],
    ['secret', [T]],
  ]);
  assert.deepEqual(onKafka['bob metadata, all topics'], { topics: [['orders-1', 0, false, null]], cluster: null });
  assert.deepEqual(onKafka['bob metadata, auto-creation'], {
    topics: [
      ['bob-new', T, true, null],
      ['bob-other', T, true, null],
    ],
    cluster: null,
  });
  assert.deepEqual(onKafka['bob metadata v10, operations'], {
    topics: [['orders-1', 0, false, (1 << 3) | (1 << 8)]],
    cluster: 1 << 8,
  });
  assert.deepEqual(onKafka['bob describe cluster'], [0, 1 << 8]);
  assert.deepEqual(onKafka['alice describe cluster'], [0, 0]);
  assert.deepEqual(onKafka['bob create topic'], [
    {
      name: 'bob-topic',
      errorCode: T,
      errorMessage: 'Authorization failed.',
      topicConfigErrorCode: 0,
      numPartitions: -1,
      replicationFactor: -1,
      configs: 0,
    },
  ]);
  assert.deepEqual(onKafka['alice create topic'], [
    {
      name: 'orders-2',
      errorCode: 0,
      errorMessage: null,
      topicConfigErrorCode: T,
      numPartitions: -1,
      replicationFactor: -1,
      configs: 0,
    },
  ]);
});
