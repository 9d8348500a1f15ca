import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseProperties } from '../src/config/properties.js';
import {
  formatMetaProperties,
  parseMetaProperties,
  randomUuid,
  randomDirectoryId,
  uuidFromString,
  readMetaProperties,
  writeMetaProperties,
} from '../src/storage/meta-properties.js';
import { formatStorage, javaHashMapOrder } from '../src/storage/formatter.js';
import { defaultBootstrap, ensureFormatted } from '../src/broker/storage/ensure-formatted.js';
import { ArgumentParser, formatWidth, wrapText } from '../src/tools/common/argparse.js';

const BIN = fileURLToPath(new URL('../../bin/tkafka', import.meta.url));
const UUID_RE = /^[A-Za-z0-9_-]{22}$/;

function tkafka(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, COLUMNS: '' } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tkafka-storage-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function serverProperties(dir: string, extra = ''): string {
  return [
    'process.roles=broker,controller',
    'node.id=1',
    'listeners=PLAINTEXT://:9092,CONTROLLER://:9093',
    'controller.listener.names=CONTROLLER',
    'controller.quorum.voters=1@localhost:9093',
    `log.dirs=${dir}/data1,${dir}/data2`,
    `metadata.log.dir=${dir}/meta`,
    extra,
  ].join('\n');
}

test('storage random-uuid prints a fresh 22-character base64 UUID', async () => {
  const a = await tkafka(['storage', 'random-uuid']);
  const b = await tkafka(['storage', 'random-uuid']);
  assert.equal(a.code, 0);
  assert.equal(a.stderr, '');
  assert.match(a.stdout, /^[A-Za-z0-9_-]{22}\n$/);
  assert.notEqual(a.stdout, b.stdout);
  assert.ok(!a.stdout.startsWith('-'));
});

test('storage format, then info, then format again', async () => {
  await withTemp(async (dir) => {
    const cfg = join(dir, 'server.properties');
    await writeFile(cfg, serverProperties(dir));
    const clusterId = 'MkU3OEVBNTcwNTJENDM2Qg';
    const f = await tkafka(['storage', 'format', '-c', cfg, '--cluster-id', clusterId]);
    assert.equal(f.code, 0, f.stderr);
    const lines = f.stdout.trim().split('\n').sort();
    assert.deepEqual(lines, [
      `Formatting data directory ${dir}/data1 with metadata.version 4.4-IV2.`,
      `Formatting data directory ${dir}/data2 with metadata.version 4.4-IV2.`,
      `Formatting metadata directory ${dir}/meta with metadata.version 4.4-IV2.`,
    ]);
    const ids = new Set<string>();
    for (const d of ['data1', 'data2', 'meta']) {
      const text = await readFile(join(dir, d, 'meta.properties'), 'utf8');
      const fileLines = text.split('\n');
      assert.equal(fileLines[0], '#');
      assert.match(fileLines[1], /^#(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \S+ \d{4}$/);
      assert.deepEqual(
        fileLines.slice(2).map((l) => l.split('=')[0]),
        ['node.id', 'directory.id', 'version', 'cluster.id', ''],
      );
      const props = parseProperties(text);
      assert.equal(props.get('cluster.id'), clusterId);
      assert.equal(props.get('node.id'), '1');
      assert.equal(props.get('version'), '1');
      assert.match(props.get('directory.id')!, UUID_RE);
      ids.add(props.get('directory.id')!);
    }
    assert.equal(ids.size, 3, 'every directory gets its own directory.id');

    const info = await tkafka(['storage', 'info', '-c', cfg]);
    assert.equal(info.code, 0, info.stderr);
    const metaDirId = parseProperties(await readFile(join(dir, 'data1', 'meta.properties'), 'utf8')).get(
      'directory.id',
    );
    assert.equal(
      info.stdout,
      [
        'Found log directories:',
        `  ${dir}/data1`,
        `  ${dir}/data2`,
        `  ${dir}/meta`,
        '',
        `Found metadata: {cluster.id=${clusterId}, directory.id=${metaDirId}, node.id=1, version=1}`,
        '',
        '',
      ].join('\n'),
    );

    const again = await tkafka(['storage', 'format', '-c', cfg, '-t', clusterId]);
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    // Kafka names the first formatted directory in Java HashMap order (which depends on the paths)
    const first = javaHashMapOrder([`${dir}/data1`, `${dir}/data2`, `${dir}/meta`], 3)[0];
    assert.equal(
      again.stderr,
      `Log directory ${first} is already formatted. Use --ignore-formatted to ignore this directory and format the others.\n`,
    );

    const ignored = await tkafka(['storage', 'format', '-c', cfg, '-t', clusterId, '--ignore']);
    assert.equal(ignored.code, 0);
    assert.equal(ignored.stdout, 'All of the log directories are already formatted.\n');

    const other = await tkafka(['storage', 'format', '-c', cfg, '-t', 'AAAAAAAAAAAAAAAAAAAAAB', '-g']);
    assert.equal(other.code, 1);
    assert.equal(
      other.stderr,
      `Exception in thread "main" java.lang.RuntimeException: Invalid cluster.id in: ${dir}/data1/meta.properties. Expected AAAAAAAAAAAAAAAAAAAAAB, but read ${clusterId}\n`,
    );

    await rm(join(dir, 'data2'), { recursive: true });
    await mkdir(join(dir, 'data2'));
    const partial = await tkafka(['storage', 'info', '-c', cfg]);
    assert.equal(partial.code, 1);
    assert.match(partial.stdout, new RegExp(`Found problem:\\n  ${dir}/data2 is not formatted\\.\\n\\n$`));
    const fill = await tkafka(['storage', 'format', '-c', cfg, '-t', clusterId, '-g']);
    assert.equal(fill.stdout, `Formatting data directory ${dir}/data2 with metadata.version 4.4-IV2.\n`);
  });
});

test('storage info reports missing directories and mismatched ids', async () => {
  await withTemp(async (dir) => {
    const cfg = join(dir, 'server.properties');
    await writeFile(cfg, serverProperties(dir));
    const none = await tkafka(['storage', 'info', '-c', cfg]);
    assert.equal(none.code, 1);
    assert.equal(
      none.stdout,
      [
        'Found problems:',
        `  ${dir}/data1 does not exist`,
        `  ${dir}/data2 does not exist`,
        `  ${dir}/meta does not exist`,
        '',
        '',
      ].join('\n'),
    );
    for (const [d, cluster] of [
      ['data1', 'AAAAAAAAAAAAAAAAAAAAAB'],
      ['data2', 'AAAAAAAAAAAAAAAAAAAAAC'],
      ['meta', 'AAAAAAAAAAAAAAAAAAAAAB'],
    ]) {
      await mkdir(join(dir, d));
      await writeMetaProperties(join(dir, d), { version: 1, clusterId: cluster, nodeId: 1 });
    }
    const mismatch = await tkafka(['storage', 'info', '-c', cfg]);
    assert.equal(mismatch.code, 1);
    assert.match(mismatch.stdout, /Found problem:\n {2}Mismatched cluster IDs between storage directories\.\n\n$/);
  });
});

test('storage format option and config errors', async () => {
  await withTemp(async (dir) => {
    const cfg = join(dir, 'server.properties');
    await writeFile(cfg, serverProperties(dir));
    const missing = await tkafka(['storage', 'format', '-c', cfg]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /^usage: kafka-storage format \[-h\] --config CONFIG --cluster-id CLUSTER_ID\n/);
    assert.match(missing.stderr, /\nkafka-storage: error: argument --cluster-id\/-t is required\n$/);

    const none = await tkafka(['storage']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /kafka-storage: error: too few arguments\n$/);

    const help = await tkafka(['storage', 'format', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: kafka-storage format/);
    assert.match(help.stdout, /\n {2}--cluster-id CLUSTER_ID, -t CLUSTER_ID\n {25}The cluster ID to use\.\n/);

    const old = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '--release-version', '3.0-IV0']);
    assert.deepEqual([old.code, old.stderr], [1, 'metadata.version 3.0-IV0 is too old to be supported.\n']);
    const unstable = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '-r', '4.5-IV0']);
    assert.deepEqual([unstable.code, unstable.stderr], [1, 'metadata.version 4.5-IV0 is not yet stable.\n']);
    // --feature: only features tkafka implements; metadata.version=X only without --release-version
    const streams = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '--feature', 'nope.version=1']);
    assert.deepEqual(
      [streams.code, streams.stderr],
      [
        1,
        'Unsupported feature: nope.version. Supported features are: eligible.leader.replicas.version, group.version, kraft.version, share.version, streams.version, transaction.version\n',
      ],
    );
    const ambiguous = await tkafka([
      'storage',
      'format',
      '-c',
      cfg,
      '-t',
      'x',
      '-r',
      '4.4',
      '-f',
      'metadata.version=25',
    ]);
    assert.deepEqual(
      [ambiguous.code, ambiguous.stderr],
      [1, 'Use --release-version instead of --feature metadata.version=X to avoid ambiguity.\n'],
    );
    const kraft = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '-f', 'kraft.version=1']);
    assert.deepEqual(
      [kraft.code, kraft.stderr],
      [
        1,
        'Cannot set kraft.version to 1 unless controller.quorum.voters is empty and one of the flags --standalone, --initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try using one of --standalone, --initial-controllers, or --no-initial-controllers and removing controller.quorum.voters.\n',
      ],
    );
    const tv3 = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '-f', 'transaction.version=3']);
    assert.deepEqual([tv3.code, tv3.stderr], [1, 'No feature:transaction.version with feature level 3\n']);
    const both = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '-s', '-N']);
    assert.equal(both.code, 1);
    assert.match(
      both.stderr,
      /kafka-storage: error: +argument +--no-initial-controllers\/-N: +not +allowed\s+with argument --standalone\/-s\n$/,
    );

    await writeFile(cfg, serverProperties(dir, 'num.partitions=0'));
    const bad = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x']);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      'Exception in thread "main" org.apache.kafka.common.config.ConfigException: Invalid value 0 for configuration num.partitions: Value must be at least 1\n',
    );

    await writeFile(
      cfg,
      serverProperties(dir).replace(
        'controller.quorum.voters=1@localhost:9093',
        'controller.quorum.bootstrap.servers=localhost:9093',
      ),
    );
    const noVoters = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x']);
    assert.deepEqual(
      [noVoters.code, noVoters.stderr],
      [
        1,
        'Because controller.quorum.voters is not set on this controller, you must specify one of the following: --standalone, --initial-controllers, or --no-initial-controllers.\n',
      ],
    );
    const standalone = await tkafka(['storage', 'format', '-c', cfg, '-t', 'x', '--standalone']);
    assert.equal(standalone.code, 0, standalone.stderr);
    assert.match(
      standalone.stdout,
      new RegExp(`Formatting dynamic metadata voter directory ${dir}/meta with metadata.version 4.4-IV2\\.`),
    );
  });
});

test('storage version-mapping and feature-dependencies', async () => {
  const m = await tkafka(['storage', 'version-mapping']);
  assert.equal(
    m.stdout,
    'metadata.version=33 (4.4-IV2)\nkraft.version=1\ntransaction.version=2\ngroup.version=1\neligible.leader.replicas.version=1\nshare.version=2\nstreams.version=1\n',
  );
  // ELRV_1 bootstraps from 4.1-IV0
  const m40 = await tkafka(['storage', 'version-mapping', '-r', '4.0-IV3']);
  assert.match(m40.stdout, /\neligible\.leader\.replicas\.version=0\nshare\.version=0\nstreams\.version=0\n$/);
  const bad = await tkafka(['storage', 'version-mapping', '-r', 'nope']);
  assert.deepEqual(
    [bad.code, bad.stderr],
    [1, "Unknown release version 'nope'. Supported versions are: 3.3-IV0 to 4.4-IV2\n"],
  );
  const d = await tkafka([
    'storage',
    'feature-dependencies',
    '-f',
    'metadata.version=5',
    '--feature',
    'group.version=1',
  ]);
  assert.equal(d.stdout, 'metadata.version=5 (3.3-IV1) has no dependencies.\ngroup.version=1 has no dependencies.\n');
  const elr = await tkafka(['storage', 'feature-dependencies', '-f', 'eligible.leader.replicas.version=1']);
  assert.equal(elr.stdout, 'eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n');
});

test('meta.properties parse, format and UUID helpers', () => {
  const meta = {
    version: 1 as const,
    clusterId: 'MkU3OEVBNTcwNTJENDM2Qg',
    nodeId: 1,
    directoryId: 'J8aAPcfLQt2bqs1JT_rMgQ',
  };
  const text = formatMetaProperties(meta, new Date(Date.UTC(2024, 9, 25, 10, 0, 0)));
  assert.match(
    text,
    /^#\n#Fri Oct 25 \d\d:00:00 \S+ 2024\nnode\.id=1\ndirectory\.id=J8aAPcfLQt2bqs1JT_rMgQ\nversion=1\ncluster\.id=MkU3OEVBNTcwNTJENDM2Qg\n$/,
  );
  assert.deepEqual(parseMetaProperties(parseProperties(text)), meta);
  assert.throws(
    () =>
      parseMetaProperties(
        new Map([
          ['version', '1'],
          ['node.id', '1'],
        ]),
      ),
    /^Error: cluster\.id was not found\.$/,
  );
  assert.throws(() => parseMetaProperties(new Map([['version', '1']])), /Failed to find node\.id/);
  assert.throws(() => parseMetaProperties(new Map([['version', '2']])), /Unknown meta\.properties version number 2/);
  assert.throws(() => parseMetaProperties(new Map([['version', 'x']])), /Invalid meta\.properties version string 'x'/);
  assert.deepEqual(parseMetaProperties(new Map([['broker.id', '3']])), { version: 0, nodeId: 3 });
  for (let i = 0; i < 200; i++) {
    const id = randomUuid();
    assert.match(id, UUID_RE);
    assert.ok(!id.startsWith('-'));
    assert.equal(uuidFromString(id)[6] >> 4, 4, 'version-4 UUID like java.util.UUID.randomUUID');
    assert.match(randomDirectoryId(), UUID_RE);
  }
  assert.throws(() => uuidFromString('abc'), /decoded as 2 bytes/);
  assert.throws(() => uuidFromString('a'.repeat(30)), /is too long to be decoded as a base64 UUID/);
  assert.deepEqual(javaHashMapOrder(['a', 'b', 'c']), ['a', 'b', 'c']);
});

test('ensureFormatted: first start formats, later starts verify', async () => {
  await withTemp(async (dir) => {
    const config = {
      nodeId: 1,
      logDirs: [join(dir, 'a'), join(dir, 'b')],
      metadataLogDir: join(dir, 'a'),
      controllerListenerNames: ['CONTROLLER'],
    };
    const hooked: string[] = [];
    const first = await ensureFormatted(config, {
      writeBootstrapCheckpoint: async (d, info) => {
        hooked.push(`${d}:${info.featureRecords.map((r) => `${r.name}=${r.level}`).join(',')}`);
      },
    });
    assert.equal(first.formatted, true);
    assert.match(first.clusterId, UUID_RE);
    assert.equal(first.directoryIds.size, 2);
    assert.deepEqual(hooked.sort(), [
      `${join(dir, 'a')}:metadata.version=33,eligible.leader.replicas.version=1,group.version=1,share.version=2,streams.version=1,transaction.version=2`,
      `${join(dir, 'b')}:metadata.version=33,eligible.leader.replicas.version=1,group.version=1,share.version=2,streams.version=1,transaction.version=2`,
    ]);
    const second = await ensureFormatted(config);
    assert.equal(second.formatted, false);
    assert.equal(second.clusterId, first.clusterId);
    assert.deepEqual([...second.directoryIds], [...first.directoryIds]);

    await assert.rejects(ensureFormatted({ ...config, nodeId: 2 }), {
      message: `Stored node id 1 doesn't match previous node id 2 in ${join(dir, 'a', 'meta.properties')}. If you moved your data, make sure your configured node id matches. If you intend to create a new node, you should remove all data in your data directories.`,
    });
    await assert.rejects(ensureFormatted({ ...config, logDirs: [...config.logDirs, join(dir, 'c')] }), {
      message: `No \`meta.properties\` found in ${join(dir, 'c')} (have you run \`kafka-storage.sh\` to format the directory?)`,
    });
    // A directory id missing from an existing file is added.
    await writeMetaProperties(join(dir, 'b'), { version: 1, clusterId: first.clusterId, nodeId: 1 });
    const third = await ensureFormatted(config);
    assert.match(third.directoryIds.get(join(dir, 'b'))!, UUID_RE);
    assert.ok((await readMetaProperties(join(dir, 'b')))!.directoryId);
    await mkdir(join(dir, 'b', '__cluster_metadata-0'));
    await assert.rejects(ensureFormatted(config), /Found unexpected metadata location in data directory/);
    assert.ok(existsSync(join(dir, 'a', 'meta.properties')));
  });
});

test('formatStorage writes the voter directory id for a dynamic quorum', async () => {
  await withTemp(async (dir) => {
    const config = {
      nodeId: 1,
      logDirs: [join(dir, 'm')],
      metadataLogDir: join(dir, 'm'),
      controllerListenerNames: ['CONTROLLER'],
    };
    const seen: number[] = [];
    const res = await formatStorage({
      config,
      clusterId: 'c',
      bootstrap: defaultBootstrap,
      initialControllers: [{ nodeId: 1, host: 'h', port: 9093, directoryId: 'J8aAPcfLQt2bqs1JT_rMgQ' }],
      writeDynamicQuorumSnapshot: async (_d, info) => {
        seen.push(info.kraftVersion);
      },
    });
    assert.deepEqual(
      res.formatted.map((f) => [f.type, f.directoryId]),
      [['dynamic metadata voter directory', 'J8aAPcfLQt2bqs1JT_rMgQ']],
    );
    assert.deepEqual(seen, [1]);
    assert.equal(res.bootstrap.featureLevels.get('kraft.version'), 1);
  });
});

test('argparse: prefixes, clusters, =values, justified wrapping', () => {
  const p = new ArgumentParser({ prog: 'demo' });
  p.addArgument({ flags: ['--bootstrap-server', '-b'], required: true });
  p.addArgument({ flags: ['--verbose', '-v'], action: 'storeTrue' });
  p.addArgument({ flags: ['--count', '-n'], type: 'int', default: 1 });
  assert.deepEqual(p.parseArgs(['--boot=x:1', '-vn3']), { bootstrap_server: 'x:1', verbose: true, count: 3 });
  assert.throws(
    () => p.parseArgs(['-b', 'h', '--count', 'z']),
    /argument --count\/-n: could not convert 'z' to Integer \(For input string: "z"\)/,
  );
  assert.throws(() => p.parseArgs([]), /argument --bootstrap-server\/-b is required/);
  assert.throws(() => p.parseArgs(['-b']), /argument --bootstrap-server\/-b: expected one argument/);
  assert.equal(formatWidth({ COLUMNS: '100' }), 95);
  assert.equal(formatWidth({}), 75);
  assert.equal(wrapText('aaa bbb ccc ddd', 10, 0, '', ''), 'aaa    bbb\nccc ddd');
});
