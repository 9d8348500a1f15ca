// SCRAM credentials as Kafka manages them, on a real tkafka cluster: a combined node (the
// controller, formatted with `storage format --add-scram`) and a broker-only node.
// AlterUserScramCredentials goes to the controller (directly on its CONTROLLER listener, forwarded
// by the broker-only node) with ScramControlManager's per-user checks and messages;
// DescribeUserScramCredentials is served by each broker from its image; `tkafka configs
// --entity-type users` adds, describes and deletes credentials; the records in the metadata log
// (read with `dump-log --cluster-metadata-decoder`) verify the password with the SCRAM proof; and
// after a restart of every node the credentials are still there and every node's snapshot holds them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey, type ApiKeyWithMessages, type ApiRequest, type ApiResponse } from '../src/protocol/generated/apis.js';
import type { Input } from '../src/protocol/codec/types.js';
import { ErrorCode } from '../src/protocol/errors.js';
import {
  clientProof,
  saltedPassword,
  scramMechanism,
  verifyClientProof,
  type ScramCredential,
} from '../src/protocol/sasl/scram.js';

const SALT = Buffer.from('carol-salt').toString('base64');
const CAROL_SALTED = saltedPassword(scramMechanism('SCRAM-SHA-512')!, 'carol-secret', Buffer.from('carol-salt'), 4096);
const ADD_SCRAM = [
  '--add-scram',
  'SCRAM-SHA-256=[name=bob,password=bob-secret,iterations=8192]',
  '--add-scram',
  `SCRAM-SHA-512=[name=carol,salt="${SALT}",saltedpassword="${CAROL_SALTED.toString('base64')}"]`,
];

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    overrides: { 'metadata.log.max.record.bytes.between.snapshots': 1 },
    nodes: [
      { id: 1, roles: 'broker,controller', formatArgs: ADD_SCRAM },
      { id: 2, roles: 'broker' },
    ],
  });
});

after(async () => {
  await cluster?.cleanup();
});

async function request<K extends ApiKeyWithMessages>(
  port: number,
  apiKey: K,
  body: Input<ApiRequest<K>>,
): Promise<ApiResponse<K>> {
  const c = await RawClient.connect(port);
  try {
    return await c.request(apiKey, 0, body);
  } finally {
    c.close();
  }
}

type Described = { user: string; errorCode: number; errorMessage: string | null; creds: string };

async function describe(port: number, users: string[] | null): Promise<Described[]> {
  const r = await request(port, ApiKey.DescribeUserScramCredentials, {
    users: users === null ? null : users.map((name) => ({ name })),
  });
  assert.equal(r.errorCode, 0);
  return r.results.map((x) => ({
    user: x.user,
    errorCode: x.errorCode,
    errorMessage: x.errorMessage,
    creds: x.credentialInfos.map((c) => `${c.mechanism}:${c.iterations}`).join(','),
  }));
}

const ok = (user: string, creds: string): Described => ({ user, errorCode: 0, errorMessage: null, creds });

/** Waits until both brokers describe `users` as `expected` (a broker's image follows the commit). */
async function describedEverywhere(users: string[] | null, expected: Described[]): Promise<void> {
  for (const node of cluster.brokers) {
    let last: Described[] = [];
    await waitFor(
      async () => {
        last = await describe(node.port, users);
        return JSON.stringify(last) === JSON.stringify(expected);
      },
      { what: `node ${node.id} describes ${JSON.stringify(expected)}`, timeoutMs: 30_000, intervalMs: 100 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last answer ${JSON.stringify(last)}`);
    });
  }
}

const upsertion = (name: string, mechanism: number, iterations: number, password = 'pw') => {
  const m = mechanism === 2 ? scramMechanism('SCRAM-SHA-512')! : scramMechanism('SCRAM-SHA-256')!;
  const salt = Buffer.from(`${name}-salt`);
  return {
    name,
    mechanism,
    iterations,
    salt,
    saltedPassword: saltedPassword(m, password, salt, Math.max(iterations, 1)),
  };
};

test('storage format --add-scram: the bootstrap credentials are described by both brokers', async () => {
  // users come in the order of Kafka's HashMap of names (checked with a JVM)
  await describedEverywhere(null, [ok('carol', '2:4096'), ok('bob', '1:8192')]);
  await describedEverywhere(['bob', 'carol'], [ok('carol', '2:4096'), ok('bob', '1:8192')]);
});

test("AlterUserScramCredentials: ScramControlManager's per-user checks, on the controller and forwarded by a broker-only node", async () => {
  const controllerPort = cluster.node(1).controllerPort;
  const brokerOnlyPort = cluster.node(2).port;
  const TWICE = 'A user credential cannot be altered twice in the same request';
  for (const [port, where] of [
    [controllerPort, 'controller listener'],
    [cluster.node(1).port, 'combined node, broker listener'],
    [brokerOnlyPort, 'broker-only node'],
  ] as const) {
    const r = await request(port, ApiKey.AlterUserScramCredentials, {
      deletions: [
        { name: 'nobody', mechanism: 1 },
        { name: 'bob', mechanism: 1 },
        { name: 'bob', mechanism: 1 },
        { name: 'weird', mechanism: 3 },
      ],
      upsertions: [
        upsertion('', 1, 4096),
        upsertion('few', 1, 4095),
        upsertion('many', 2, 16385),
        upsertion('unknown', 0, 4096),
        upsertion('dup', 1, 4096),
        upsertion('dup', 2, 4096),
      ],
    });
    // all errors: in the order of Kafka's HashMap of user names (checked with a JVM)
    assert.deepEqual(
      r.results.map((x) => [x.user, x.errorCode, x.errorMessage]),
      [
        ['', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'],
        ['weird', ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
        ['bob', ErrorCode.DUPLICATE_RESOURCE, TWICE],
        ['few', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations'],
        ['nobody', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist'],
        ['many', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations'],
        ['dup', ErrorCode.DUPLICATE_RESOURCE, TWICE],
        ['unknown', ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'],
      ],
      where,
    );
  }
  // valid ones are written (all records of one request, the failed users' none)
  const r = await request(brokerOnlyPort, ApiKey.AlterUserScramCredentials, {
    deletions: [],
    upsertions: [upsertion('dave', 2, 16384), upsertion('few', 1, 100)],
  });
  assert.deepEqual(
    r.results.map((x) => [x.user, x.errorCode]),
    [
      ['dave', 0],
      ['few', ErrorCode.UNACCEPTABLE_CREDENTIAL],
    ],
  );
  await describedEverywhere(
    ['dave', 'few'],
    [
      ok('dave', '2:16384'),
      {
        user: 'few',
        errorCode: ErrorCode.RESOURCE_NOT_FOUND,
        errorMessage: 'Attempt to describe a user credential that does not exist: few',
        creds: '',
      },
    ],
  );
  const del = await request(controllerPort, ApiKey.AlterUserScramCredentials, {
    deletions: [{ name: 'dave', mechanism: 2 }],
    upsertions: [],
  });
  assert.deepEqual(
    del.results.map((x) => [x.user, x.errorCode, x.errorMessage]),
    [['dave', 0, null]],
  );
});

test('DescribeUserScramCredentials: a user named twice is DUPLICATE_RESOURCE, an unknown one RESOURCE_NOT_FOUND', async () => {
  await describedEverywhere(
    ['bob', 'zed', 'bob', 'dave'],
    [
      {
        user: 'dave',
        errorCode: ErrorCode.RESOURCE_NOT_FOUND,
        errorMessage: 'Attempt to describe a user credential that does not exist: dave',
        creds: '',
      },
      {
        user: 'bob',
        errorCode: ErrorCode.DUPLICATE_RESOURCE,
        errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request: bob',
        creds: '',
      },
      {
        user: 'zed',
        errorCode: ErrorCode.RESOURCE_NOT_FOUND,
        errorMessage: 'Attempt to describe a user credential that does not exist: zed',
        creds: '',
      },
    ],
  );
});

/** `tkafka configs --bootstrap-server <both brokers> ...`. */
const configs = (args: string[]) => runTkafka('configs', ['--bootstrap-server', cluster.bootstrap(), ...args]);
const ALICE = ['--entity-type', 'users', '--entity-name', 'alice'];

test('tkafka configs --entity-type users: add, describe, delete SCRAM credentials and their errors', async () => {
  // Kafka's admin client sends both mechanisms of alice in one request: the controller refuses it
  const both = await configs([
    '--alter',
    ...ALICE,
    '--add-config',
    'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=x]',
  ]);
  assert.equal(both.code, 1);
  assert.match(both.err, /DuplicateResourceException: A user credential cannot be altered twice in the same request\n/);
  for (const add of ['SCRAM-SHA-256=[iterations=8192,password=alice-secret]', 'SCRAM-SHA-512=[password=x]']) {
    const r = await configs(['--alter', ...ALICE, '--add-config', add]);
    assert.deepEqual(r, { code: 0, out: 'Completed updating config for user alice.\n', err: '' });
  }
  const line =
    "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096\n";
  await waitFor(async () => (await configs(['--describe', ...ALICE])).out === line, {
    what: 'alice described with both mechanisms',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  const all = await configs(['--describe', '--entity-type', 'users']);
  assert.equal(all.code, 0);
  assert.deepEqual(
    all.out
      .split('\n')
      .filter((l) => l !== '')
      .sort(),
    [
      line.trimEnd(),
      "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192",
      "SCRAM credential configs for user-principal 'carol' are SCRAM-SHA-512=iterations=4096",
    ],
  );

  const tooMany = await configs(['--alter', ...ALICE, '--add-config', 'SCRAM-SHA-256=[iterations=20000,password=p]']);
  assert.equal(tooMany.code, 1);
  assert.match(tooMany.err, /UnacceptableCredentialException: Too many iterations\n/);
  const tooFew = await configs(['--alter', ...ALICE, '--add-config', 'SCRAM-SHA-256=[iterations=1024,password=p]']);
  assert.equal(tooFew.code, 1);
  assert.match(tooFew.err, /Iterations 1024 is less than the minimum 4096 required for SCRAM-SHA-256\n/);

  const del = await configs(['--alter', ...ALICE, '--delete-config', 'SCRAM-SHA-512']);
  assert.deepEqual(del, { code: 0, out: 'Completed updating config for user alice.\n', err: '' });
  const again = await configs(['--alter', ...ALICE, '--delete-config', 'SCRAM-SHA-512']);
  assert.equal(again.code, 1);
  assert.match(again.err, /ResourceNotFoundException: Attempt to delete a user credential that does not exist\n/);
  await waitFor(
    async () =>
      (await configs(['--describe', ...ALICE])).out ===
      "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192\n",
    { what: 'alice described with SCRAM-SHA-256 only', timeoutMs: 30_000, intervalMs: 100 },
  );
});

interface DumpedCredential {
  name: string;
  mechanism: number;
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

/** The UserScramCredentialRecords of node 1's metadata log, as `dump-log --cluster-metadata-decoder` prints them. */
async function dumpedCredentials(): Promise<DumpedCredential[]> {
  const dir = cluster.node(1).metadataDir;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => join(dir, f));
  const r = await runTkafka('dump-log', ['--cluster-metadata-decoder', '--files', files.join(',')]);
  assert.equal(r.code, 0, r.err);
  const out: DumpedCredential[] = [];
  for (const m of r.out.matchAll(/payload: (\{"type":"USER_SCRAM_CREDENTIAL_RECORD".*\})$/gm)) {
    out.push((JSON.parse(m[1]!) as { data: DumpedCredential }).data);
  }
  return out;
}

/** A SCRAM exchange's final check: the client proof made from `password` verifies against the record. */
function verifies(rec: DumpedCredential, password: string): boolean {
  const m = rec.mechanism === 2 ? scramMechanism('SCRAM-SHA-512')! : scramMechanism('SCRAM-SHA-256')!;
  const cred: ScramCredential = {
    salt: Buffer.from(rec.salt, 'base64'),
    storedKey: Buffer.from(rec.storedKey, 'base64'),
    serverKey: Buffer.from(rec.serverKey, 'base64'),
    iterations: rec.iterations,
  };
  const auth = Buffer.from('n=user,r=abc,r=abcdef,s=c2FsdA==,i=4096,c=biws,r=abcdef');
  return verifyClientProof(
    m,
    cred,
    auth,
    clientProof(m, saltedPassword(m, password, cred.salt, cred.iterations), auth),
  );
}

test('the stored keys verify the password (records read with dump-log --cluster-metadata-decoder)', async () => {
  const recs = await dumpedCredentials();
  const find = (name: string, mechanism: number): DumpedCredential => {
    const r = recs.filter((x) => x.name === name && x.mechanism === mechanism).at(-1);
    assert.ok(r, `a UserScramCredentialRecord for ${name}/${mechanism} in ${JSON.stringify(recs.map((x) => x.name))}`);
    return r;
  };
  const bob = find('bob', 1);
  assert.equal(bob.iterations, 8192);
  assert.ok(verifies(bob, 'bob-secret'));
  assert.ok(!verifies(bob, 'bob-secreT'));
  assert.ok(verifies(find('carol', 2), 'carol-secret'));
  assert.ok(verifies(find('alice', 1), 'alice-secret'));
  assert.ok(!verifies(find('alice', 1), 'x'));
  assert.ok(verifies(find('alice', 2), 'x'));
});

test('the credentials survive a restart, and the snapshots hold them', async () => {
  const expected = [ok('carol', '2:4096'), ok('bob', '1:8192'), ok('alice', '1:8192')];
  for (const n of [...cluster.nodes].reverse()) await n.stop();
  for (const n of cluster.nodes) await n.start();
  await describedEverywhere(['alice', 'bob', 'carol'], expected);
  // every committed batch makes a snapshot here (metadata.log.max.record.bytes.between.snapshots=1)
  for (const node of cluster.nodes) {
    const dir = node.metadataDir;
    const latest = readdirSync(dir)
      .filter((f) => f.endsWith('.checkpoint'))
      .sort()
      .at(-1);
    assert.ok(latest, `node ${node.id} has a snapshot`);
    const r = await runTkafka('dump-log', ['--cluster-metadata-decoder', '--files', join(dir, latest)]);
    assert.equal(r.code, 0, r.err);
    const names = [
      ...r.out.matchAll(/"type":"USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":\{"name":"(\w+)","mechanism":(\d)/g),
    ]
      .map((m) => `${m[1]}:${m[2]}`)
      .sort();
    assert.deepEqual(names, ['alice:1', 'bob:1', 'carol:2'], `node ${node.id} snapshot ${latest}`);
  }
});

test('storage format --add-scram: ScramParser messages', async () => {
  const format = (scram: string) =>
    runTkafka('storage', [
      'format',
      '-t',
      cluster.clusterId,
      '-c',
      cluster.node(1).configFile,
      '--ignore-formatted',
      '--add-scram',
      scram,
    ]);
  const cases: [string, string][] = [
    ['SCRAM-SHA-256', "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-256'"],
    ['SCRAM-SHA-1=[name=a,password=b]', 'The add-scram mechanism SCRAM-SHA-1 is not supported.'],
    ['SCRAM-SHA-256=name=a]', 'Expected configuration string to start with ['],
    ['SCRAM-SHA-256=[name=a', 'Expected configuration string to end with ]'],
    ['SCRAM-SHA-256=[password=b]', "You must supply 'name' to add-scram"],
    ['SCRAM-SHA-256=[name=a]', "You must supply one of 'password' or 'saltedpassword' to add-scram"],
    ['SCRAM-SHA-256=[name=a,saltedpassword=YWJj]', "You must supply 'salt' with 'saltedpassword' to add-scram"],
    ['SCRAM-SHA-256=[name=a,salt=%%%,password=b]', 'Failed to decode given salt: %%%'],
    ['SCRAM-SHA-256=[name=a,iterations=x,password=b]', 'Failed to parse iterations count: x'],
    ['SCRAM-SHA-256=[name=a,password=b,zz=1,aa=2]', 'Unknown SCRAM configurations: aa, zz'],
    ['SCRAM-SHA-256=[name=a,password]', 'No equals sign found in SCRAM component: password'],
    [
      'SCRAM-SHA-256=[name=a,password=b,iterations=100]',
      "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256",
    ],
    [
      'SCRAM-SHA-512=[name=a,password=b,iterations=16385]',
      "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_512",
    ],
  ];
  for (const [arg, message] of cases) {
    const r = await format(arg);
    assert.deepEqual([r.code, r.err], [1, `${message}\n`], arg);
  }
});
