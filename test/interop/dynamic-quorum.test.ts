// KIP-853 dynamic quorums driven by `tkafka metadata-quorum` on an Apache Kafka 4.4.0 controller quorum:
// controller 1 formatted with `--standalone`, controllers 2 and 3 with `--no-initial-controllers`
// (observers of the metadata log); tkafka's add-controller makes 2 and 3 voters, remove-controller
// takes 3 out again (and --unregister unregisters it). After each step `tkafka metadata-quorum describe
// --status` and `--replication` must print what Kafka's MetadataQuorumCommand prints on the same
// cluster (timestamps masked: the two tools ask at different instants), and the refusals (a duplicate
// voter, an unknown voter) must be reported as Kafka's tool reports them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { kafkaLibDir, randomClusterId, runKafkaTool, type ToolResult } from './helpers/apache-kafka.js';
import { unusedPort } from '../helpers/broker-process.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { waitFor } from '../helpers/wait-for.js';
import { KafkaClient } from '../../src/client/client.js';
import { describeQuorum, type QuorumInfo } from '../../src/tools/metadata-quorum/quorum.js';

const QUORUM_TOOL = 'org.apache.kafka.tools.MetadataQuorumCommand';

interface ControllerNode {
  id: number;
  port: number;
  dir: string;
  configFile: string;
  /** meta.properties' directory.id of the metadata log dir. */
  directoryId: string;
  log(): string;
  stop(): Promise<void>;
}

const LOG4J = (logDir: string): string => `status = error
name = controller
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${join(logDir, 'server.log')}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
`;

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/**
 * One Apache Kafka 4.4.0 controller-only JVM. `leaderPort` null: formatted `--standalone` (the
 * first voter, whose own endpoint is the bootstrap server); else `--no-initial-controllers` with
 * the first controller as bootstrap server. The CONTROLLER port must be known before formatting
 * (--standalone writes it into the bootstrap checkpoint), so when the JVM cannot bind it the
 * whole node is made again on a fresh port (three attempts).
 */
async function startController(
  root: string,
  clusterId: string,
  id: number,
  leaderPort: number | null,
): Promise<ControllerNode> {
  for (let attempt = 1; ; attempt++) {
    const port = await unusedPort();
    const dir = join(root, `node-${id}-${attempt}`);
    const logDir = join(dir, 'logs');
    const dataDir = join(dir, 'data');
    mkdirSync(logDir, { recursive: true });
    const configFile = join(dir, 'controller.properties');
    writeFileSync(
      configFile,
      [
        'process.roles=controller',
        `node.id=${id}`,
        `listeners=CONTROLLER://127.0.0.1:${port}`,
        'controller.listener.names=CONTROLLER',
        'listener.security.protocol.map=CONTROLLER:PLAINTEXT',
        `controller.quorum.bootstrap.servers=127.0.0.1:${leaderPort ?? port}`,
        `log.dirs=${dataDir}`,
        // no NoOpRecords: the log end offset stands still between two describes
        'metadata.max.idle.interval.ms=0',
        '',
      ].join('\n'),
    );
    const fmt = await runKafkaTool('kafka.tools.StorageTool', [
      'format',
      '-t',
      clusterId,
      '-c',
      configFile,
      leaderPort === null ? '--standalone' : '--no-initial-controllers',
    ]);
    assert.equal(fmt.exitCode, 0, `format of controller ${id}: ${fmt.stdout}${fmt.stderr}`);
    const directoryId = /^directory\.id=(\S+)$/m.exec(readFileSync(join(dataDir, 'meta.properties'), 'utf8'))![1]!;
    writeFileSync(join(dir, 'log4j2.properties'), LOG4J(logDir));
    const out = openSync(join(logDir, 'console.log'), 'a');
    const child = spawn(
      'java',
      [
        '-Xmx256m',
        '-Xms256m',
        '-XX:+UseG1GC',
        '-Xshare:auto',
        '-Djava.awt.headless=true',
        `-Dlog4j2.configurationFile=${join(dir, 'log4j2.properties')}`,
        `-Dkafka.logs.dir=${logDir}`,
        '-cp',
        `${kafkaLibDir()}/*`,
        'kafka.Kafka',
        configFile,
      ],
      { cwd: dir, stdio: ['ignore', out, out] },
    );
    closeSync(out);
    live.add(child);
    let exited: string | null = null;
    const gone = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        exited = `exit ${code ?? signal}`;
        live.delete(child);
        resolve();
      }),
    );
    const log = (): string =>
      ['server.log', 'console.log']
        .map((f) => join(logDir, f))
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
    const started = await waitFor(
      () => {
        const text = log();
        if (/Socket server failed to bind to .*Address already in use/.test(text)) return 'bind';
        if (/\] Kafka Server started/.test(text)) return 'started';
        return exited === null ? null : 'exited';
      },
      { what: `Kafka controller ${id} to start`, timeoutMs: 180_000, intervalMs: 200 },
    ).catch((e: Error) => {
      child.kill('SIGKILL');
      throw new Error(`${e.message}\n${log().slice(-4000)}`);
    });
    const stop = async (): Promise<void> => {
      if (exited === null) child.kill('SIGKILL');
      await gone;
    };
    if (started === 'started') return { id, port, dir, configFile, directoryId, log, stop };
    await stop();
    if (started === 'bind' && attempt < 3) continue;
    throw new Error(`Kafka controller ${id} did not start (${started}):\n${log().slice(-4000)}`);
  }
}

/** `tkafka metadata-quorum …` as a user runs it (bin/tkafka, a process of its own). */
async function tkafkaQuorum(args: string[]): Promise<ToolResult> {
  const r = await execa('node', [join(REPO_ROOT, 'bin', 'tkafka'), 'metadata-quorum', ...args], {
    reject: false,
    timeout: 120_000,
    stripFinalNewline: false,
  });
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode: r.exitCode ?? -1 };
}

let root = '';
let clusterId = '';
const nodes: ControllerNode[] = [];
const bootstrap = (): string => `127.0.0.1:${nodes[0]!.port}`;

/** The quorum as DescribeQuorum reports it through the first controller (tkafka's client, in-process). */
async function quorum(): Promise<QuorumInfo> {
  const client = new KafkaClient({ bootstrapServers: [bootstrap()] });
  try {
    return await describeQuorum(client, 'controller');
  } finally {
    client.close();
  }
}

const ids = (rs: readonly { replicaId: number }[]): number[] => rs.map((r) => r.replicaId).sort((a, b) => a - b);

async function waitForQuorum(voters: number[], observers: number[]): Promise<void> {
  await waitFor(
    async () => {
      const q = await quorum();
      return (
        JSON.stringify([ids(q.voters), ids(q.observers)]) === JSON.stringify([voters, observers]) &&
        q.highWatermark >= 0n &&
        [...q.voters, ...q.observers].every((r) => r.logEndOffset === q.highWatermark)
      );
    },
    { what: `voters ${voters} and observers ${observers}, all caught up`, timeoutMs: 120_000, intervalMs: 200 },
  );
}

/** --status with what moves between two calls masked (the follower lag time comes from fetch times). */
const maskStatus = (s: string): string => s.replace(/^(MaxFollowerLagTimeMs:\s+)-?\d+$/m, '$1<ms>');

/** --replication as rows of trimmed cells, the two timestamp columns reduced to "set" or -1. */
const maskReplication = (s: string): string[][] =>
  s
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) =>
      l
        .split('\t')
        .map((c) => c.trim())
        .map((c, col) => (i > 0 && (col === 4 || col === 5) && c !== '-1' ? 'set' : c)),
    );

/** The message and the first line of the stack trace Kafka's tool prints for a failed call. */
const firstLines = (stderr: string): string => `${stderr.split('\n').slice(0, 2).join('\n')}\n`;

/** Both tools' --status and --replication on the same cluster, until they agree (a step may still settle). */
async function compareDescribe(step: string): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      const conn = ['--bootstrap-controller', bootstrap()];
      const [ks, ts, kr, tr] = [
        await runKafkaTool(QUORUM_TOOL, [...conn, 'describe', '--status']),
        await tkafkaQuorum([...conn, 'describe', '--status']),
        await runKafkaTool(QUORUM_TOOL, [...conn, 'describe', '--replication']),
        await tkafkaQuorum([...conn, 'describe', '--replication']),
      ];
      for (const r of [ks, ts, kr, tr]) assert.equal(r.exitCode, 0, `${step}: ${r.stdout}${r.stderr}`);
      const same =
        maskStatus(ks.stdout) === maskStatus(ts.stdout) &&
        JSON.stringify(maskReplication(kr.stdout)) === JSON.stringify(maskReplication(tr.stdout));
      last = `Kafka:\n${ks.stdout}${kr.stdout}tkafka:\n${ts.stdout}${tr.stdout}`;
      return same;
    },
    { what: `${step}: the same describe output from both tools`, timeoutMs: 120_000, intervalMs: 500 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${last}`);
  });
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'tkafka-dynamic-quorum-'));
  clusterId = randomClusterId();
  nodes.push(await startController(root, clusterId, 1, null));
  // the two observers start together (a JVM start costs seconds)
  nodes.push(...(await Promise.all([2, 3].map((id) => startController(root, clusterId, id, nodes[0]!.port)))));
  await waitForQuorum([1], [2, 3]);
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a --standalone Kafka controller with two --no-initial-controllers observers: both tools describe it alike', async () => {
  const q = await quorum();
  assert.equal(q.leaderId, 1);
  assert.deepEqual(
    q.voters.map((v) => v.replicaDirectoryId),
    [nodes[0]!.directoryId],
  );
  await compareDescribe('before any change');
});

test('tkafka add-controller makes the observers voters, as Kafka prints it', async () => {
  for (const node of nodes.slice(1)) {
    const dry = await runKafkaTool(QUORUM_TOOL, [
      '--bootstrap-controller',
      bootstrap(),
      '--command-config',
      node.configFile,
      'add-controller',
      '--dry-run',
    ]);
    assert.equal(dry.exitCode, 0, dry.stderr);
    const tkafkaDry = await tkafkaQuorum([
      '--bootstrap-controller',
      bootstrap(),
      '--command-config',
      node.configFile,
      'add-controller',
      '--dry-run',
    ]);
    assert.deepEqual([tkafkaDry.exitCode, tkafkaDry.stdout], [0, dry.stdout]);

    const r = await tkafkaQuorum([
      '--bootstrap-controller',
      bootstrap(),
      '--command-config',
      node.configFile,
      'add-controller',
    ]);
    assert.deepEqual([r.exitCode, r.stderr], [0, '']);
    assert.equal(r.stdout, dry.stdout.replace(/^DRY RUN of adding/, 'Added'));
    assert.equal(
      r.stdout,
      `Added controller ${node.id} with directory id ${node.directoryId} and endpoints: CONTROLLER://127.0.0.1:${node.port}\n`,
    );
    const voters = nodes.filter((n) => n.id <= node.id).map((n) => n.id);
    await waitForQuorum(
      voters,
      nodes.filter((n) => n.id > node.id).map((n) => n.id),
    );
    await compareDescribe(`after adding controller ${node.id}`);
  }
});

test('adding a voter twice is refused as Kafka refuses it (DUPLICATE_VOTER), by both tools alike', async () => {
  const args = ['--bootstrap-controller', bootstrap(), '--command-config', nodes[1]!.configFile, 'add-controller'];
  const k = await runKafkaTool(QUORUM_TOOL, args);
  const t = await tkafkaQuorum(args);
  assert.equal(k.exitCode, 1, k.stdout + k.stderr);
  assert.match(k.stderr, /DuplicateVoterException/);
  // Kafka prints the exception's message, then its stack trace; tkafka the message and the trace's first line
  assert.deepEqual([t.exitCode, t.stdout, t.stderr], [1, '', firstLines(k.stderr)]);
});

test('tkafka remove-controller --unregister takes a voter out and unregisters it, as Kafka prints it', async () => {
  const third = nodes[2]!;
  const args = [
    '--bootstrap-controller',
    bootstrap(),
    'remove-controller',
    '--controller-id',
    String(third.id),
    '--controller-directory-id',
    third.directoryId,
  ];
  const dry = await runKafkaTool(QUORUM_TOOL, [...args, '--unregister', '--dry-run']);
  assert.equal(dry.exitCode, 0, dry.stderr);
  const tkafkaDry = await tkafkaQuorum([...args, '--unregister', '--dry-run']);
  assert.deepEqual([tkafkaDry.exitCode, tkafkaDry.stdout], [0, dry.stdout]);

  const r = await tkafkaQuorum([...args, '--unregister']);
  assert.deepEqual([r.exitCode, r.stderr], [0, '']);
  assert.equal(
    r.stdout,
    dry.stdout.replace(/DRY RUN of removing /, 'Removed ').replace(/DRY RUN of unregistering /, 'Unregistered '),
  );
  await waitForQuorum([1, 2], [3]);
  await compareDescribe('after removing controller 3');

  // a second removal: VOTER_NOT_FOUND, reported alike
  const k = await runKafkaTool(QUORUM_TOOL, args);
  const t = await tkafkaQuorum(args);
  assert.equal(k.exitCode, 1, k.stdout + k.stderr);
  assert.match(k.stderr, /VoterNotFoundException/);
  assert.deepEqual([t.exitCode, t.stdout, t.stderr], [1, '', firstLines(k.stderr)]);
});
