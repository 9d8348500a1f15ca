// The ACL checks of the admin APIs on tkafka and on Apache Kafka 4.4.0, both with
// authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer and a SASL PLAIN
// listener with the same users: the same raw requests of the non-super users alice and bob
// (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, CreatePartitions, DeleteRecords,
// DeleteTopics, DescribeLogDirs, AlterReplicaLogDirs, ElectLeaders, Alter/ListPartitionReassignments,
// UpdateFeatures, Describe/AlterUserScramCredentials, DescribeQuorum, WriteTxnMarkers,
// UnregisterBroker) get the same error codes and messages on both (topic ids and
// authorizeClusterOperation's `Request Request(…) needs ALTER permission.` masked), before and after
// admin grants ACLs with Kafka's kafka-acls.sh; kafka-configs.sh and kafka-topics.sh --delete print
// the same for them.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka, type ToolResult } from './helpers/apache-kafka.js';
import { startBroker, boundPorts, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const JAAS = `${PLAIN_MODULE} required user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";`;
const AUTHZ = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  // ANONYMOUS: the nodes' own connections on the PLAINTEXT CONTROLLER listener
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
  dir = mkdtempSync(join(tmpdir(), 'tkafka-acl-admin-'));
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

async function tool(cls: string, bootstrap: string, user: string, args: string[]): Promise<ToolResult> {
  return kafka.runTool(cls, ['--bootstrap-server', bootstrap, '--command-config', configFile(user), ...args]);
}
const ACLS = 'org.apache.kafka.tools.AclCommand';
const CONFIGS = 'org.apache.kafka.tools.ConfigCommand';
const TOPICS = 'org.apache.kafka.tools.TopicCommand';

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

/** Masks what differs by nature: topic ids, authorizeClusterOperation's request dump; sorts nothing. */
function masked(value: unknown): unknown {
  if (typeof value === 'string') {
    const m = /^Request Request\(.*\) needs (\w+) permission\.$/s.exec(value);
    if (m) return `Request <request> needs ${m[1]} permission.`;
    return value;
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return value.map(masked);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k === '_unknownTaggedFields' || k === 'throttleTimeMs') continue;
      out[k] = k === 'topicId' ? (v === ZERO_UUID ? 'zero' : 'id') : masked(v);
    }
    return out;
  }
  return value;
}

const byJson = (a: unknown, b: unknown): number => JSON.stringify(a).localeCompare(JSON.stringify(b));

/** Every admin API as `who` sees it on one broker: error codes and messages, comparable data. */
async function scenario(bootstrap: string, who: string, topicId: (name: string) => Promise<string>) {
  const c = await saslClient(bootstrap, who);
  try {
    const out: Record<string, unknown> = {};
    const dc = await c.request(ApiKey.DescribeConfigs, 4, {
      resources: [
        { resourceType: 2, resourceName: 'adm-a', configurationKeys: ['retention.ms'] },
        { resourceType: 2, resourceName: 'adm-b', configurationKeys: ['retention.ms'] },
        { resourceType: 4, resourceName: '', configurationKeys: ['log.retention.ms'] },
        { resourceType: 32, resourceName: 'grp', configurationKeys: ['consumer.session.timeout.ms'] },
      ],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    out['DescribeConfigs'] = dc.results.map((r) => [
      r.resourceType,
      r.resourceName,
      r.errorCode,
      r.errorMessage,
      r.configs.map((e) => [e.name, e.value]),
    ]);
    const iac = await c.request(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: 2,
          resourceName: 'adm-a',
          configs: [{ name: 'retention.ms', configOperation: 0, value: '9000000' }],
        },
        {
          resourceType: 2,
          resourceName: 'adm-b',
          configs: [{ name: 'retention.ms', configOperation: 0, value: '9000000' }],
        },
        {
          resourceType: 4,
          resourceName: '',
          configs: [{ name: 'log.retention.ms', configOperation: 0, value: '9000000' }],
        },
        { resourceType: 8, resourceName: '99', configs: [{ name: 'root', configOperation: 0, value: 'INFO' }] },
        {
          resourceType: 32,
          resourceName: 'grp',
          configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '45001' }],
        },
      ],
      validateOnly: true,
    });
    out['IncrementalAlterConfigs'] = iac.responses
      .map((r) => [r.resourceType, r.resourceName, r.errorCode, r.errorMessage])
      .sort(byJson);
    const ac = await c.request(ApiKey.AlterConfigs, 2, {
      resources: [
        { resourceType: 2, resourceName: 'adm-a', configs: [{ name: 'retention.ms', value: '9000000' }] },
        { resourceType: 2, resourceName: 'adm-b', configs: [{ name: 'retention.ms', value: '9000000' }] },
      ],
      validateOnly: true,
    });
    out['AlterConfigs'] = ac.responses
      .map((r) => [r.resourceType, r.resourceName, r.errorCode, r.errorMessage])
      .sort(byJson);
    const cp = await c.request(ApiKey.CreatePartitions, 3, {
      topics: ['adm-a', 'adm-b', 'nope'].map((name) => ({ name, count: 3, assignments: null })),
      timeoutMs: 30_000,
      validateOnly: true,
    });
    out['CreatePartitions'] = cp.results.map((r) => [r.name, r.errorCode, r.errorMessage]).sort(byJson);
    const dr = await c.request(ApiKey.DeleteRecords, 2, {
      topics: ['adm-a', 'adm-b'].map((name) => ({ name, partitions: [{ partitionIndex: 0, offset: 0n }] })),
      timeoutMs: 30_000,
    });
    out['DeleteRecords'] = masked(dr.topics);
    const dt = await c.request(ApiKey.DeleteTopics, 6, {
      topics: [
        { name: 'adm-b', topicId: ZERO_UUID },
        { name: 'adm-c', topicId: ZERO_UUID },
        { name: 'nope', topicId: ZERO_UUID },
        { name: null, topicId: await topicId('adm-b') },
        { name: null, topicId: await topicId('adm-c') },
      ],
      timeoutMs: 30_000,
    });
    out['DeleteTopics'] = (masked(dt.responses) as unknown[]).sort(byJson);
    out['DescribeLogDirs'] = masked(await c.request(ApiKey.DescribeLogDirs, 4, { topics: [] }));
    out['AlterReplicaLogDirs'] = masked(
      await c.request(ApiKey.AlterReplicaLogDirs, 2, {
        dirs: [{ path: '/nowhere', topics: [{ name: 'adm-a', partitions: [0] }] }],
      }),
    );
    out['ElectLeaders'] = masked(
      await c.request(ApiKey.ElectLeaders, 2, {
        electionType: 0,
        topicPartitions: [{ topic: 'adm-a', partitions: [0] }],
        timeoutMs: 30_000,
      }),
    );
    out['AlterPartitionReassignments'] = masked(
      await c.request(ApiKey.AlterPartitionReassignments, 0, {
        timeoutMs: 30_000,
        topics: [{ name: 'adm-a', partitions: [{ partitionIndex: 0, replicas: null }] }],
      }),
    );
    out['ListPartitionReassignments'] = masked(
      await c.request(ApiKey.ListPartitionReassignments, 0, { timeoutMs: 30_000, topics: null }),
    );
    out['UpdateFeatures'] = masked(
      await c.request(ApiKey.UpdateFeatures, 1, {
        timeoutMs: 30_000,
        featureUpdates: [{ feature: 'group.version', maxVersionLevel: 1, upgradeType: 1 }],
        validateOnly: true,
      }),
    );
    out['DescribeUserScramCredentials'] = masked(
      await c.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: 'nobody' }] }),
    );
    out['AlterUserScramCredentials'] = masked(
      await c.request(ApiKey.AlterUserScramCredentials, 0, {
        deletions: [{ name: 'nobody', mechanism: 1 }],
        upsertions: [],
      }),
    );
    const dq = await c.request(ApiKey.DescribeQuorum, 2, {
      topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
    });
    out['DescribeQuorum'] = [dq.errorCode, dq.errorMessage];
    out['WriteTxnMarkers'] = masked(
      await c.request(ApiKey.WriteTxnMarkers, 1, {
        markers: [
          {
            producerId: 5n,
            producerEpoch: 0,
            transactionResult: false,
            topics: [{ name: 'adm-a', partitionIndexes: [0] }],
            coordinatorEpoch: 0,
          },
        ],
      }),
    );
    out['UnregisterBroker'] = masked(await c.request(ApiKey.UnregisterBroker, 0, { brokerId: 99 }));
    // DESCRIBE_CONFIGS on the cluster, before anything else (groups with dynamic configs: none here)
    out['ListConfigResources'] = masked(await c.request(ApiKey.ListConfigResources, 1, { resourceTypes: [32] }));
    // the ACL APIs (AclApis: authorizeClusterOperation, its message in every result)
    const acl = {
      resourceType: 2,
      resourceName: 'adm-a',
      resourcePatternType: 3,
      principal: 'User:x',
      host: '*',
      operation: 3,
      permissionType: 3,
    };
    out['CreateAcls'] = masked(await c.request(ApiKey.CreateAcls, 3, { creations: [acl] }));
    out['DeleteAcls'] = masked(
      await c.request(ApiKey.DeleteAcls, 3, {
        filters: [
          {
            resourceTypeFilter: 2,
            resourceNameFilter: 'adm-a',
            patternTypeFilter: 3,
            principalFilter: 'User:x',
            hostFilter: '*',
            operation: 3,
            permissionType: 3,
          },
        ],
      }),
    );
    const da = await c.request(ApiKey.DescribeAcls, 3, {
      resourceTypeFilter: 2,
      resourceNameFilter: 'zzz',
      patternTypeFilter: 3,
      principalFilter: null,
      hostFilter: null,
      operation: 1,
      permissionType: 1,
    });
    out['DescribeAcls'] = masked([da.errorCode, da.errorMessage]);
    return out;
  } finally {
    c.close();
  }
}

async function asAdmin(bootstrap: string, f: (c: RawClient) => Promise<void>): Promise<void> {
  const c = await saslClient(bootstrap, 'admin');
  try {
    await f(c);
  } finally {
    c.close();
  }
}

/** The topic's id on this broker (admin's Metadata). */
async function idOf(bootstrap: string, name: string): Promise<string> {
  let id = ZERO_UUID;
  await asAdmin(bootstrap, async (c) => {
    const r = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name, topicId: ZERO_UUID }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    id = String(r.topics[0]!.topicId);
  });
  return id;
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

async function bothSame(what: string, run: (bootstrap: string) => Promise<unknown>): Promise<unknown> {
  const [k, t] = [await run(targets[0]![1]), await run(targets[1]![1])];
  assert.deepEqual(t, k, `${what}: tkafka (actual) vs Kafka 4.4.0 (expected)\n${json(t)}\n${json(k)}`);
  return k;
}

test('the admin APIs answer alice and bob with the same codes as Kafka 4.4.0, before and after grants', async () => {
  for (const [, bootstrap] of targets) {
    await asAdmin(bootstrap, async (c) => {
      const r = await c.request(ApiKey.CreateTopics, 7, {
        topics: ['adm-a', 'adm-b', 'adm-c'].map((name) => ({
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
        [0, 0, 0],
      );
    });
  }
  await kafka.waitForTopic('adm-a');
  await kafka.waitForTopic('adm-c');

  // nobody but admin may do anything
  const denied = (await bothSame('bob, no ACLs', (b) => scenario(b, 'bob', (n) => idOf(b, n)))) as Record<
    string,
    unknown
  >;
  // the answers are denials indeed (not, say, UNKNOWN_SERVER_ERROR on both)
  assert.match(JSON.stringify(denied['DescribeConfigs']), /29.*29.*31.*30/);
  assert.match(JSON.stringify(denied['ListPartitionReassignments']), /"errorCode":31/);
  assert.match(JSON.stringify(denied['DescribeLogDirs']), /"errorCode":31/);
  assert.match(JSON.stringify(denied['ListConfigResources']), /"errorCode":31/);

  // alice: the topic adm-a, DESCRIBE on adm-c, the cluster's configs, the group's
  for (const [, bootstrap] of targets) {
    for (const args of [
      ['--operation', 'All', '--topic', 'adm-a'],
      ['--operation', 'Describe', '--topic', 'adm-c'],
      ['--operation', 'DescribeConfigs', '--operation', 'AlterConfigs', '--cluster'],
      ['--operation', 'DescribeConfigs', '--operation', 'AlterConfigs', '--group', 'grp'],
    ]) {
      const r = await tool(ACLS, bootstrap, 'admin', ['--add', '--allow-principal', 'User:alice', ...args]);
      assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    }
  }
  // (ACLs reach the authorizer through the metadata log)
  for (const [name, bootstrap] of targets)
    await waitFor(
      async () => {
        const out = (await scenario(bootstrap, 'alice', (n) => idOf(bootstrap, n))) as Record<string, unknown>;
        return JSON.stringify(out['DescribeConfigs']).includes('"grp",0');
      },
      { what: `${name} to apply the ACLs`, timeoutMs: 30_000, intervalMs: 200 },
    );
  const granted = (await bothSame('alice, some ACLs', (b) => scenario(b, 'alice', (n) => idOf(b, n)))) as Record<
    string,
    unknown
  >;
  assert.match(JSON.stringify(granted['DescribeConfigs']), /"adm-a",0/);
  assert.match(JSON.stringify(granted['ListConfigResources']), /"errorCode":0/);

  // the tools print the same
  for (const [what, cls, user, args] of [
    [
      'kafka-configs --describe, bob',
      CONFIGS,
      'bob',
      ['--describe', '--entity-type', 'topics', '--entity-name', 'adm-a'],
    ],
    [
      'kafka-configs --describe, alice',
      CONFIGS,
      'alice',
      ['--describe', '--entity-type', 'topics', '--entity-name', 'adm-b'],
    ],
    [
      'kafka-configs --alter, bob',
      CONFIGS,
      'bob',
      ['--alter', '--entity-type', 'topics', '--entity-name', 'adm-a', '--add-config', 'retention.ms=1000'],
    ],
    ['kafka-topics --delete, bob', TOPICS, 'bob', ['--delete', '--topic', 'adm-c']],
    ['kafka-topics --delete, alice (describable only)', TOPICS, 'alice', ['--delete', '--topic', 'adm-c']],
    ['kafka-topics --delete, alice', TOPICS, 'alice', ['--delete', '--topic', 'adm-a']],
  ] as const) {
    await bothSame(what, async (b) => {
      const r = await tool(cls, b, user, [...args]);
      // the error lines name the failure (stack traces differ by implementation)
      return {
        exitCode: r.exitCode,
        out: (r.stdout + r.stderr)
          .replaceAll(b, '<bootstrap>')
          .replace(/^\[[\d-]+ [\d:,]+\] /gm, '')
          .split('\n')
          .filter((l) => /rror|exception|Exception/.test(l))
          .slice(0, 2),
      };
    });
  }
});
