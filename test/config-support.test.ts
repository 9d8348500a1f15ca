// "Never downgrade silently": every broker key is honoured, refused when set, ignored with one WARN
// line, or left to the TLS/SASL work (src/config/support.ts, docs/config-support.md).
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { BROKER_CONFIG_KEYS, ConfigError } from '../src/config/definitions.js';
import { TOPIC_CONFIGS } from '../src/config/topic-configs.js';
import { loadServerConfig, EMBEDDED_DEFAULT_CONFIG } from '../src/config/load.js';
import {
  HONOURED_KEYS,
  HONOURED_THROUGH_TOPIC,
  UNSUPPORTED_KEYS,
  checkConfigSupport,
  configSupportTable,
  keySupport,
} from '../src/config/support.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { startBroker } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Sources that name keys without acting on them: definitions, this classification, validation, topic synonyms. */
const NOT_EVIDENCE = [
  'src/config/definitions.ts',
  'src/config/support.ts',
  'src/config/validate.ts',
  'src/config/topic-configs.ts',
];
/** Tools that list or set keys by name; `tkafka storage format` (src/tools/storage/) does read the server config. */
const NOT_EVIDENCE_DIRS = ['src/tools/configs/', 'src/tools/completion/', 'src/tools/local/'];

function readers(): Map<string, string> {
  const texts = new Map<string, string>();
  for (const f of sourceFiles(join(REPO_ROOT, 'src'))) {
    const rel = relative(REPO_ROOT, f);
    if (NOT_EVIDENCE.includes(rel) || NOT_EVIDENCE_DIRS.some((d) => rel.startsWith(d))) continue;
    texts.set(rel, readFileSync(f, 'utf8'));
  }
  return texts;
}

const withDefaults = (extra: Record<string, string>): Map<string, string> =>
  new Map([...EMBEDDED_DEFAULT_CONFIG.map(([k, v]) => [k, v] as [string, string]), ...Object.entries(extra)]);

test('every broker key is classified exactly once', () => {
  const honoured = new Set(HONOURED_KEYS);
  assert.equal(honoured.size, HONOURED_KEYS.length, 'no key listed twice as honoured');
  const unclassified: string[] = [];
  for (const key of BROKER_CONFIG_KEYS) {
    if (keySupport(key.name) === undefined) unclassified.push(key.name);
    const places = [honoured.has(key.name), UNSUPPORTED_KEYS.has(key.name)].filter(Boolean).length;
    assert.ok(places <= 1, `${key.name} is both honoured and unsupported`);
  }
  assert.deepEqual(unclassified, []);
  const known = new Set(BROKER_CONFIG_KEYS.map((k) => k.name));
  for (const name of [...honoured, ...UNSUPPORTED_KEYS.keys()]) assert.ok(known.has(name), `${name} is a broker key`);
  for (const [name, s] of UNSUPPORTED_KEYS) assert.ok(s.reason.length > 10, `${name} has a reason`);
});

test('every honoured key is read by the broker, the controller or storage format', () => {
  const texts = readers();
  // keys read through a computed name (resolveTopicConfig: the level of the target codec)
  const computed = (needle: string): string =>
    /^compression\.(gzip|lz4|zstd)\.level$/.test(needle) ? '`compression.${compressionType}.level`' : `'${needle}'`;
  const readBy = (needle: string): string[] =>
    [...texts].filter(([, t]) => t.includes(computed(needle))).map(([f]) => f);
  const unread: string[] = [];
  for (const name of HONOURED_KEYS) {
    if (keySupport(name)?.status !== 'honoured') continue; // security keys belong to the TLS/SASL work
    const topic = HONOURED_THROUGH_TOPIC.get(name);
    if (topic !== undefined) {
      // the broker key is the default of a topic key (ServerTopicConfigSynonyms) that the log reads
      assert.equal(
        TOPIC_CONFIGS.get(topic)?.synonyms.some((s) => s.name === name),
        true,
        `${name} → ${topic}`,
      );
      if (readBy(topic).length === 0) unread.push(`${name} (through ${topic})`);
    } else if (readBy(name).length === 0) {
      unread.push(name);
    }
  }
  assert.deepEqual(unread, []);
});

test('docs/config-support.md carries the generated table', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'config-support.md'), 'utf8');
  assert.ok(
    doc.includes(configSupportTable()),
    'docs/config-support.md is stale: regenerate the table with `node scripts/config-support.mjs`',
  );
  assert.doesNotMatch(configSupportTable(), /UNCLASSIFIED/);
});

test('a refused key set to a non-default value is a ConfigError naming it; its default is accepted', () => {
  const refused = (extra: Record<string, string>): ConfigError => {
    const loaded = loadServerConfig({ properties: withDefaults(extra) });
    try {
      checkConfigSupport(loaded.config);
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e;
    }
    assert.fail(`no error for ${JSON.stringify(extra)}`);
  };
  const e = refused({ 'log.cleaner.io.max.bytes.per.second': '1000' });
  assert.equal(e.key, 'log.cleaner.io.max.bytes.per.second');
  assert.equal(
    e.message,
    'log.cleaner.io.max.bytes.per.second=1000 is set but tkafka does not enforce it yet (the log cleaner is not throttled: its disk I/O would exceed the limit); remove the setting (see docs/config-support.md)',
  );
  // max.decompressed.message.bytes is honoured by produce validation (issue 20)
  assert.equal(keySupport('max.decompressed.message.bytes')?.status, 'honoured');
  // the connection limits and the queued-request bound are honoured (issue 18)
  for (const k of ['max.connections', 'max.connections.per.ip', 'queued.max.request.bytes', 'queued.max.requests'])
    assert.equal(keySupport(k)?.status, 'honoured', k);
  // Kafka's defaults, written out, are not settings tkafka ignores
  const loaded = loadServerConfig({
    properties: withDefaults({
      'max.decompressed.message.bytes': '2147483639',
      'queued.max.request.bytes': '-1',
      'socket.send.buffer.bytes': '102400',
      'log.cleaner.io.buffer.load.factor': '0.90',
      'num.io.threads': ' 8',
    }),
  });
  assert.deepEqual(checkConfigSupport(loaded.config), []);
  // security keys are left to the TLS/SASL work
  assert.equal(keySupport('sasl.mechanism.controller.protocol')?.status, 'security');
  assert.equal(keySupport('ssl.keystore.location')?.status, 'security');
  assert.equal(keySupport('listener.name.internal.ssl.keystore.location')?.status, 'security');
});

test('security keys outside the table: an authorizer other than StandardAuthorizer, a principal builder class, JCA providers and SSL engine factories are refused; Java-only TLS tuning and super.users without an authorizer warned about', () => {
  const check = (extra: Record<string, string>): string[] =>
    checkConfigSupport(loadServerConfig({ properties: withDefaults(extra) }).config);
  const refusedKey = (extra: Record<string, string>): string | undefined => {
    try {
      check(extra);
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.key;
    }
    return undefined;
  };
  // Kafka's StandardAuthorizer is the only authorizer: any other class stops start-up naming the key
  assert.equal(
    refusedKey({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' }),
    'authorizer.class.name',
  );
  assert.throws(
    () => check({ 'authorizer.class.name': 'com.example.MyAuthorizer' }),
    /^ConfigError: authorizer\.class\.name=com\.example\.MyAuthorizer is set but tkafka has no such authorizer: the only one is org\.apache\.kafka\.metadata\.authorizer\.StandardAuthorizer/,
  );
  assert.deepEqual(
    check({
      'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      'super.users': 'User:admin;User:ops',
      'allow.everyone.if.no.acl.found': 'false',
    }),
    [],
  );
  assert.equal(refusedKey({ 'super.users': 'admin' }), 'super.users');
  assert.equal(refusedKey({ 'principal.builder.class': 'com.example.Builder' }), 'principal.builder.class');
  assert.equal(
    refusedKey({ 'listener.name.ssl.ssl.engine.factory.class': 'com.example.Factory' }),
    'listener.name.ssl.ssl.engine.factory.class',
  );
  assert.equal(refusedKey({ 'ssl.provider': 'SunJSSE' }), 'ssl.provider');
  assert.equal(refusedKey({ 'security.providers': 'com.example.Provider' }), 'security.providers');
  // Kafka's defaults written out are accepted silently
  assert.deepEqual(
    check({
      'authorizer.class.name': '',
      'principal.builder.class': 'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder',
      'ssl.keymanager.algorithm': 'SunX509',
      'listener.name.ssl.ssl.trustmanager.algorithm': 'PKIX',
    }),
    [],
  );
  const warned = check({ 'ssl.keymanager.algorithm': 'PKIX', 'super.users': 'User:admin' });
  assert.equal(warned.length, 2);
  assert.match(warned[0]!, /^ssl\.keymanager\.algorithm=PKIX is not supported by tkafka and is ignored/);
  assert.match(warned[1]!, /^super\.users=User:admin is ignored: no authorizer\.class\.name is set/);
  // and the loader does not call the ssl keys a listener reads unused
  const loaded = loadServerConfig({
    properties: withDefaults({
      'ssl.keystore.location': '/x.p12',
      'listener.name.ssl.ssl.truststore.location': '/ca.pem',
      'super.users': 'User:admin',
    }),
  });
  assert.deepEqual(loaded.unknownKeys, []);
});

/** `tkafka server start` with one more override, on a fresh directory: its exit code and stderr. */
async function serverStartWith(override: string): Promise<{ exitCode: number | undefined; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-support-'));
  try {
    const r = await execa(
      'node',
      ['bin/tkafka', 'server', 'start', '--override', `log.dirs=${dir}`, '--override', override],
      { cwd: REPO_ROOT, reject: false, timeout: 30_000 },
    );
    return { exitCode: r.exitCode, stderr: String(r.stderr) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a refused key stops `tkafka server start` with the message and a non-zero exit', async () => {
  const r = await serverStartWith('log.cleaner.io.max.bytes.per.second=1000');
  assert.equal(r.exitCode, 1, r.stderr);
  assert.match(
    r.stderr,
    /ERROR Exiting Kafka due to fatal exception: log\.cleaner\.io\.max\.bytes\.per\.second=1000 is set but tkafka does not enforce it yet \(.*\); remove the setting \(see docs\/config-support\.md\)$/,
  );
  assert.doesNotMatch(r.stderr, /Kafka Server started|Awaiting socket connections/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
});

test('`tkafka server start` refuses an authorizer other than StandardAuthorizer, naming the key', async () => {
  const r = await serverStartWith('authorizer.class.name=kafka.security.authorizer.AclAuthorizer');
  assert.equal(r.exitCode, 1, r.stderr);
  assert.match(
    r.stderr,
    /authorizer\.class\.name=kafka\.security\.authorizer\.AclAuthorizer is set but tkafka has no such authorizer: the only one is org\.apache\.kafka\.metadata\.authorizer\.StandardAuthorizer/,
  );
});

test('an ignored key gives exactly one WARN line and the broker starts; default values give none', async () => {
  const b = await startBroker({
    overrides: {
      'num.io.threads': '4',
      'socket.send.buffer.bytes': '102400',
      'max.connections': '2147483647',
      'background.threads': '10',
    },
  });
  try {
    const lines = b.output().split('\n');
    const io = lines.filter((l) => l.includes('num.io.threads'));
    assert.equal(io.length, 1, b.output());
    assert.match(
      io[0]!,
      /^\[[^\]]+\] WARN num\.io\.threads=4 is not supported by tkafka and is ignored: one event loop handles every request \(see docs\/config-support\.md\)$/,
    );
    for (const quiet of ['socket.send.buffer.bytes', 'max.connections', 'background.threads']) {
      assert.deepEqual(
        lines.filter((l) => l.includes(quiet)),
        [],
        `${quiet} at its default value is not mentioned`,
      );
    }
    assert.equal(b.port > 0, true);
  } finally {
    await b.stop();
    b.cleanup();
  }
});

test('log.initial.task.delay.ms and the checkpoint intervals drive the log manager', async () => {
  // Kafka's defaults (30 s initial delay, 5 s/60 s intervals) would write no checkpoint file before shutdown
  // within the wait below; these settings write all three at once and again every 100 ms.
  const b = await startBroker({
    overrides: {
      'log.initial.task.delay.ms': '0',
      'replica.high.watermark.checkpoint.interval.ms': '100',
      'log.flush.offset.checkpoint.interval.ms': '100',
      'log.flush.start.offset.checkpoint.interval.ms': '100',
    },
  });
  try {
    const logs = join(b.dataDir, 'logs');
    const files = ['replication-offset-checkpoint', 'recovery-point-offset-checkpoint', 'log-start-offset-checkpoint'];
    await waitFor(() => files.every((f) => existsSync(join(logs, f))), {
      what: `${files.join(', ')} written by the running broker`,
      timeoutMs: 10_000,
    });
    assert.deepEqual(
      b
        .output()
        .split('\n')
        .filter((l) => /checkpoint\.interval|initial\.task/.test(l)),
      [],
      'honoured keys are not warned about',
    );
  } finally {
    await b.stop();
    b.cleanup();
  }
});
