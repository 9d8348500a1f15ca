// Every tkafka tool that talks to a cluster, through Apache Kafka 4.4.0's secured listeners, with
// the credentials in a --command-config (or the tool's own config flag) file, side by side with
// Kafka's own tool class for the same command and the same file. One Kafka for the file with four
// extra listeners: SCRAM (SASL_SSL, SCRAM-SHA-512 only; the user made by `kafka-storage format
// --add-scram`), MTLS (SSL, ssl.client.auth=required), PLAIN (SASL_PLAINTEXT, PLAIN only) and
// EXPIRED (SSL with a server certificate valid only in 2020). Every tool runs through SASL_SSL +
// SCRAM-SHA-512, a smaller set through mTLS and PLAIN. Certificates are made at run time
// (test/helpers/certs.ts). Then the failures, each one line and a non-zero exit, fast: a wrong
// password, a mechanism the listener has not enabled, a CA that did not sign the broker's
// certificate, an expired broker certificate; Kafka's tool's line is recorded beside tkafka's.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { runTkafka, type Run } from './helpers/tool-runs.js';
import { makeCerts, STORE_PASSWORD, type TestCerts } from '../helpers/certs.js';
import { propertiesText } from '../helpers/cluster.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';

/** Kafka 4.4.0's tool class for each tkafka tool. */
const CLASSES: Record<string, string> = {
  topics: 'org.apache.kafka.tools.TopicCommand',
  configs: 'org.apache.kafka.tools.ConfigCommand',
  'get-offsets': 'org.apache.kafka.tools.GetOffsetShell',
  'delete-records': 'org.apache.kafka.tools.DeleteRecordsCommand',
  'log-dirs': 'org.apache.kafka.tools.LogDirsCommand',
  'broker-api-versions': 'org.apache.kafka.tools.BrokerApiVersionsCommand',
  cluster: 'org.apache.kafka.tools.ClusterTool',
  features: 'org.apache.kafka.tools.FeatureCommand',
  'consumer-groups': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  'console-producer': 'org.apache.kafka.tools.ConsoleProducer',
  'console-consumer': 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  transactions: 'org.apache.kafka.tools.TransactionsCommand',
  'reassign-partitions': 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand',
  'leader-election': 'org.apache.kafka.tools.LeaderElectionCommand',
  'metadata-quorum': 'org.apache.kafka.tools.MetadataQuorumCommand',
  'producer-perf-test': 'org.apache.kafka.tools.ProducerPerformance',
  'consumer-perf-test': 'org.apache.kafka.tools.ConsumerPerformance',
};

let kafka: ApacheKafka;
let dir: string;
let certs: TestCerts;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-tools-secured-'));
  certs = makeCerts();
  kafka = await startApacheKafka({
    extraListeners: { SCRAM: 'SASL_SSL', MTLS: 'SSL', PLAIN: 'SASL_PLAINTEXT', EXPIRED: 'SSL' },
    formatArgs: ['--add-scram', 'SCRAM-SHA-512=[name=bob,password=bob-secret]'],
    overrides: {
      'ssl.keystore.type': 'PKCS12',
      'ssl.keystore.location': certs.server.keystoreP12Path,
      'ssl.keystore.password': STORE_PASSWORD,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.ca.certPath,
      'listener.name.mtls.ssl.client.auth': 'required',
      'listener.name.expired.ssl.keystore.location': certs.expired.keystoreP12Path,
      'listener.name.scram.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
      'listener.name.scram.scram-sha-512.sasl.jaas.config': `${SCRAM_MODULE} required;`,
      'listener.name.plain.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.plain.plain.sasl.jaas.config': `${PLAIN_MODULE} required user_alice="alice-secret";`,
    },
  });
});

after(async () => {
  await kafka?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
  certs?.cleanup();
});

const scram = (): string => `127.0.0.1:${kafka.listenerPorts['SCRAM']}`;
const plain = (): string => `127.0.0.1:${kafka.listenerPorts['PLAIN']}`;
const mtls = (): string => `127.0.0.1:${kafka.listenerPorts['MTLS']}`;
const expired = (): string => `127.0.0.1:${kafka.listenerPorts['EXPIRED']}`;

function file(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

function configFile(name: string, props: Record<string, string>): string {
  return file(`${name}.properties`, propertiesText(props));
}

/** The test CA as a PEM trust store (both Kafka's client and tkafka's read it). */
const trust = (): Record<string, string> => ({
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': certs.ca.certPath,
});
const scramProps = (): Record<string, string> => ({
  'security.protocol': 'SASL_SSL',
  ...trust(),
  'sasl.mechanism': 'SCRAM-SHA-512',
  'sasl.jaas.config': `${SCRAM_MODULE} required username="bob" password="bob-secret";`,
});
const PLAIN_PROPS = {
  'security.protocol': 'SASL_PLAINTEXT',
  'sasl.mechanism': 'PLAIN',
  'sasl.jaas.config': `${PLAIN_MODULE} required username="alice" password="alice-secret";`,
};

async function apache(tool: string, args: string[], input?: string): Promise<Run> {
  const r = await kafka.runTool(CLASSES[tool]!, args, input === undefined ? {} : { input });
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/** Kafka's stderr without log4j lines and stack-trace lines (tkafka prints neither). */
function errorLines(err: string): string[] {
  return err
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more|^\s*\(org\.apache/.test(l));
}

interface Compare {
  /** Compare stdout as a set of lines. */
  unordered?: boolean;
  /** Applied to both stdouts before comparing. */
  normalize?: (s: string) => string;
  /** Compare only the exit codes (output with timings, ids or rates). */
  codeOnly?: boolean;
}

/** Runs Kafka's tool and tkafka's with the same args; both must exit 0 with the same output. */
async function same(tool: string, args: string[], opts: Compare = {}, input?: string): Promise<Run> {
  const k = await apache(tool, args, input);
  const t = await runTkafka(tool, args, {}, input);
  const label = `${tool} ${args.join(' ')}`;
  assert.equal(k.code, 0, `${label}: Kafka's tool failed: ${k.err.slice(0, 800)}${k.out.slice(0, 400)}`);
  assert.equal(t.code, k.code, `${label}: exit code (tkafka: ${t.err}${t.out.slice(0, 400)})`);
  if (!opts.codeOnly) {
    const norm = opts.normalize ?? ((x: string) => x);
    const lines = (s: string): string[] => (opts.unordered ? norm(s).split('\n').sort() : norm(s).split('\n'));
    assert.deepEqual(lines(t.out), lines(k.out), `${label}: stdout`);
  }
  return t;
}

test('SASL_SSL + SCRAM-SHA-512: every tool through the secured listener, side by side with Kafka 4.4.0', async () => {
  const cfg = configFile('scram', scramProps());
  const B = ['--bootstrap-server', scram(), '--command-config', cfg];
  const topic = 'secured';

  // topics: twins created by each tool, then the same describe.
  const kc = await apache('topics', [...B, '--create', '--topic', `k-${topic}`, '--partitions', '2']);
  const tc = await runTkafka('topics', [...B, '--create', '--topic', topic, '--partitions', '2']);
  assert.equal(kc.code, 0, kc.err);
  assert.equal(tc.code, 0, tc.err);
  assert.equal(tc.out.replace(topic, `k-${topic}`), kc.out);
  await kafka.waitForTopic(topic, { partitions: 2 });
  await kafka.waitForTopic(`k-${topic}`, { partitions: 2 });
  await same('topics', [...B, '--list']);
  await same('topics', [...B, '--describe', '--topic', topic]);

  // configs
  await same('configs', [...B, '--describe', '--entity-type', 'topics', '--entity-name', topic]);
  await same('configs', [...B, '--describe', '--entity-type', 'brokers', '--entity-name', String(kafka.nodeId)]);

  // console producer (each tool writes 3 lines) → console consumer (both read the 6 back).
  const P = ['--bootstrap-server', scram(), '--command-config', cfg, '--topic', topic];
  assert.equal((await apache('console-producer', P, 'k1\nk2\nk3\n')).code, 0);
  const tp = await runTkafka('console-producer', P, {}, 't1\nt2\nt3\n');
  assert.equal(tp.code, 0, tp.err);
  const C = [...P, '--from-beginning', '--max-messages', '6', '--timeout-ms', '20000'];
  const rk = await apache('console-consumer', [...C, '--group', 'k-secured-g']);
  const rt = await runTkafka('console-consumer', [...C, '--group', 't-secured-g']);
  assert.equal(rk.code, 0, rk.err);
  assert.equal(rt.code, 0, rt.err);
  const sorted = (s: string): string[] => s.split('\n').sort();
  assert.deepEqual(sorted(rt.out), sorted(rk.out));
  assert.deepEqual(sorted(rt.out), ['', 'k1', 'k2', 'k3', 't1', 't2', 't3']);

  // consumer groups: the group the consumers committed for.
  await same('consumer-groups', [...B, '--list'], { unordered: true });
  await same('consumer-groups', [...B, '--describe', '--group', 'k-secured-g'], { unordered: true });

  // offsets and records
  await same('get-offsets', [...B, '--topic', topic]);
  const del = file('delete.json', JSON.stringify({ partitions: [{ topic, partition: 0, offset: 0 }] }));
  await same('delete-records', [...B, '--offset-json-file', del]);
  await same('log-dirs', [...B, '--describe', '--topic-list', topic]);

  // broker-api-versions: the node line (Kafka's client knows more APIs than tkafka's codec, see
  // tools-admin.test.ts; here the secured connection is what is shown).
  const bk = await apache('broker-api-versions', [...B]);
  const bt = await runTkafka('broker-api-versions', [...B]);
  assert.equal(bk.code, 0, bk.err);
  assert.equal(bt.code, 0, bt.err);
  assert.equal(bt.out.split('\n')[0], bk.out.split('\n')[0]);
  assert.match(bt.out, /\tProduce\(0\): /);

  // cluster, features, metadata-quorum
  await same('cluster', ['cluster-id', ...B]);
  await same('cluster', ['list-endpoints', ...B]);
  // Kafka 4.4's deprecated --config: a notice on stdout, then the same.
  await same('cluster', ['cluster-id', '--bootstrap-server', scram(), '--config', cfg]);
  const both = ['cluster-id', '--bootstrap-server', scram(), '--config', cfg, '--command-config', cfg];
  const [bothK, bothT] = [await apache('cluster', both), await runTkafka('cluster', both)];
  assert.equal(bothT.code, 1);
  assert.equal(bothK.code, 1);
  // Kafka: the ArgumentParserException's message, then its stack trace (filtered out).
  assert.deepEqual(errorLines(bothT.err), ['--config and --command-config cannot be specified together.']);
  assert.equal(errorLines(bothK.err)[0], errorLines(bothT.err)[0]);
  await same('features', [...B, 'describe'], { normalize: (x) => x.replace(/Epoch: \d+/g, 'Epoch: N') });
  // Offsets, lag and timestamps move: the field names must match.
  await same('metadata-quorum', [...B, 'describe', '--status'], {
    normalize: (x) =>
      x
        .split('\n')
        .map((l) => l.split(':')[0])
        .join('\n'),
  });

  // transactions, reassign-partitions, leader-election
  await same('transactions', [...B, 'list']);
  await same('reassign-partitions', [...B, '--list']);
  const plan = file(
    'reassign.json',
    JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas: [kafka.nodeId] }] }),
  );
  await same('reassign-partitions', [...B, '--verify', '--reassignment-json-file', plan]);
  await same('leader-election', [...B, '--election-type', 'preferred', '--all-topic-partitions'], {
    unordered: true,
  });

  // perf tests, small bounded counts, with their own config flags
  const pp = ['--topic', topic, '--num-records', '20', '--record-size', '10', '--throughput', '-1'];
  const pt = await same(
    'producer-perf-test',
    [...pp, '--producer-props', `bootstrap.servers=${scram()}`, '--producer.config', cfg],
    { codeOnly: true },
  );
  assert.match(pt.out, /^20 records sent, /m);
  const cp = ['--bootstrap-server', scram(), '--topic', topic, '--messages', '10', '--timeout', '20000'];
  const ct = await same('consumer-perf-test', [...cp, '--consumer.config', cfg], { codeOnly: true });
  assert.match(ct.out, /^start\.time, end\.time, data\.consumed\.in\.MB/m);
});

/** A smaller set, side by side: topics, configs, console producer → consumer, groups, offsets. */
async function smallSet(name: string, bootstrap: string, cfg: string): Promise<void> {
  const B = ['--bootstrap-server', bootstrap, '--command-config', cfg];
  const topic = `secured-${name}`;
  const tc = await runTkafka('topics', [...B, '--create', '--topic', topic, '--partitions', '1']);
  assert.equal(tc.code, 0, tc.err);
  await kafka.waitForTopic(topic, { partitions: 1 });
  await same('topics', [...B, '--describe', '--topic', topic]);
  await same('configs', [...B, '--describe', '--entity-type', 'topics', '--entity-name', topic]);
  const P = ['--bootstrap-server', bootstrap, '--command-config', cfg, '--topic', topic];
  const tp = await runTkafka('console-producer', P, {}, 'a\nb\n');
  assert.equal(tp.code, 0, tp.err);
  const consumed = await same(
    'console-consumer',
    [...P, '--from-beginning', '--max-messages', '2', '--timeout-ms', '20000'],
    { unordered: true },
  );
  assert.deepEqual(consumed.out.split('\n').sort(), ['', 'a', 'b']);
  await same('consumer-groups', [...B, '--list'], { unordered: true });
  await same('get-offsets', [...B, '--topic', topic]);
}

test('SASL_PLAINTEXT + PLAIN: topics, configs, console producer → consumer, groups, offsets', async () => {
  await smallSet('plain', plain(), configFile('plain', PLAIN_PROPS));
});

test('SSL with client certificates (mTLS, PKCS12 key store): the same set', async () => {
  const cfg = configFile('mtls', {
    'security.protocol': 'SSL',
    ...trust(),
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.client.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
  });
  await smallSet('mtls', mtls(), cfg);
});

/**
 * Both tools with a bad config file: each must fail; tkafka with one line, fast. Returns Kafka's
 * error lines and tkafka's, for the record.
 */
async function failBoth(
  tool: string,
  args: string[],
  input?: string,
  kafkaExit: 'non-zero' | 0 = 'non-zero',
): Promise<{ kafka: string[]; tkafka: string[]; ms: number }> {
  const k = await apache(tool, args, input);
  const t0 = Date.now();
  const t = await runTkafka(tool, args, {}, input);
  const ms = Date.now() - t0;
  const label = `${tool} ${args.join(' ')}`;
  if (kafkaExit === 0) assert.equal(k.code, 0, `${label}: Kafka's tool exit code`);
  else assert.notEqual(k.code, 0, `${label}: Kafka's tool exit code`);
  assert.notEqual(t.code, 0, `${label}: tkafka exit code`);
  // (The console consumer's closing count, as Kafka's, is not an error line.)
  const lines = (t.out + t.err)
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^Processed a total of \d+ messages$/.test(l));
  assert.equal(lines.length, 1, `${label}: one line, got:\n${t.out}${t.err}`);
  assert.ok(ms < 10_000, `${label}: took ${ms} ms`);
  return { kafka: errorLines(k.out + k.err), tkafka: lines, ms };
}

test('a wrong SCRAM-SHA-512 password: one line with the broker message, non-zero exit, as Kafka', async () => {
  const cfg = configFile('wrong-password', {
    ...scramProps(),
    'sasl.jaas.config': `${SCRAM_MODULE} required username="bob" password="wrong";`,
  });
  const message =
    'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512';
  const B = ['--bootstrap-server', scram(), '--command-config', cfg];
  const topics = await failBoth('topics', [...B, '--list']);
  assert.deepEqual(topics.tkafka, [`Error while executing topic command : ${message}`]);
  // Kafka's TopicCommand prints the same line (then the stack trace, filtered out above).
  assert.equal(topics.kafka[0], topics.tkafka[0]);
  // Kafka's ConsumerGroupCommand --list prints "Error: Executing consumer group command failed due
  // to …ExecutionException… Failed to find brokers to send ListGroups" with the
  // SaslAuthenticationException in its chain, and exits 0; tkafka says it on one line, exit 1.
  const k = await apache('consumer-groups', [...B, '--list']);
  assert.ok(
    errorLines(k.out + k.err).some((l) => l.includes(message)),
    k.err,
  );
  const t0 = Date.now();
  const t = await runTkafka('consumer-groups', [...B, '--list']);
  assert.ok(Date.now() - t0 < 10_000);
  assert.equal(t.code, 1);
  assert.equal(t.out, '');
  assert.equal(t.err, `Error: Executing consumer group command failed due to ${message}\n`);
  // The console tools and the perf tests, which take their own config flags.
  const P = ['--bootstrap-server', scram(), '--command-config', cfg, '--topic', 'secured'];
  // Kafka's ConsoleProducer and ConsoleConsumer log the failure (log4j ERROR) and exit 0; tkafka: one
  // line, exit 1.
  const produce = await failBoth('console-producer', P, 'x\n', 0);
  assert.ok(produce.tkafka[0]!.includes(message), produce.tkafka[0]);
  const consume = await failBoth('console-consumer', [...P, '--from-beginning', '--timeout-ms', '20000'], undefined, 0);
  assert.ok(consume.tkafka[0]!.includes(message), consume.tkafka[0]);
});

test("a mechanism the listener has not enabled: Kafka's enabled-mechanisms message, one line", async () => {
  const cfg = configFile('not-enabled', {
    ...scramProps(),
    'sasl.mechanism': 'SCRAM-SHA-256',
  });
  const r = await failBoth('topics', ['--bootstrap-server', scram(), '--command-config', cfg, '--list']);
  const line =
    "Error while executing topic command : Client SASL mechanism 'SCRAM-SHA-256' not enabled in the server, enabled mechanisms are [SCRAM-SHA-512]";
  assert.deepEqual(r.tkafka, [line]);
  assert.equal(r.kafka[0], line);
});

test('a CA that did not sign the broker certificate, and an expired broker certificate: one line, non-zero', async (t) => {
  const wrongCa = configFile('wrong-ca', {
    ...scramProps(),
    'ssl.truststore.location': certs.otherCa.certPath,
  });
  const ca = await failBoth('topics', ['--bootstrap-server', scram(), '--command-config', wrongCa, '--list']);
  assert.match(ca.tkafka[0]!, /SSL handshake failed/);
  t.diagnostic(`wrong CA — kafka: ${ca.kafka[0]} | tkafka: ${ca.tkafka[0]}`);
  const old = configFile('expired', { 'security.protocol': 'SSL', ...trust() });
  const ex = await failBoth('topics', ['--bootstrap-server', expired(), '--command-config', old, '--list']);
  assert.match(ex.tkafka[0]!, /SSL handshake failed: certificate has expired/);
  t.diagnostic(`expired certificate — kafka: ${ex.kafka[0]} | tkafka: ${ex.tkafka[0]}`);
  // The console consumer, which builds its consumer from its own config flag.
  const cc = await failBoth(
    'console-consumer',
    ['--bootstrap-server', scram(), '--command-config', wrongCa, '--topic', 'secured', '--timeout-ms', '20000'],
    undefined,
    0,
  );
  assert.match(cc.tkafka[0]!, /SSL handshake failed/);
});
