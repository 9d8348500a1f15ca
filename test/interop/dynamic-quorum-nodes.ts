// Apache Kafka 4.4.0 controller-only JVMs for the KIP-853 tests (test/interop/dynamic-quorum*.test.ts):
// one formatted --standalone (the first voter) or --no-initial-controllers (an observer that a
// voter change can add), with `controller.quorum.bootstrap.servers` pointing at a given controller
// (a Kafka one or a tkafka one).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { kafkaLibDir, runKafkaTool, type ToolResult } from './helpers/apache-kafka.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { unusedPort } from '../helpers/broker-process.js';
import { waitFor } from '../helpers/wait-for.js';

export interface ControllerNode {
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
 * One controller-only node: an Apache Kafka 4.4.0 JVM (`impl` 'kafka', the default) or a
 * `tkafka server start` process ('tkafka'), each formatted by its own storage tool. `leaderPort` null: formatted `--standalone` (the
 * first voter, whose own endpoint is the bootstrap server); else `--no-initial-controllers` with
 * the first controller as bootstrap server. The CONTROLLER port must be known before formatting
 * (--standalone writes it into the bootstrap checkpoint), so when the JVM cannot bind it the
 * whole node is made again on a fresh port (three attempts).
 */
export async function startController(
  root: string,
  clusterId: string,
  id: number,
  leaderPort: number | null,
  impl: 'kafka' | 'tkafka' = 'kafka',
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
    const formatArgs = [
      'format',
      '-t',
      clusterId,
      '-c',
      configFile,
      leaderPort === null ? '--standalone' : '--no-initial-controllers',
    ];
    const fmt =
      impl === 'kafka'
        ? await runKafkaTool('kafka.tools.StorageTool', formatArgs)
        : await execa('node', [join(REPO_ROOT, 'bin', 'tkafka'), 'storage', ...formatArgs], { reject: false });
    assert.equal(fmt.exitCode, 0, `format of controller ${id}: ${fmt.stdout}${fmt.stderr}`);
    const directoryId = /^directory\.id=(\S+)$/m.exec(readFileSync(join(dataDir, 'meta.properties'), 'utf8'))![1]!;
    writeFileSync(join(dir, 'log4j2.properties'), LOG4J(logDir));
    const { started, node } = await launch(impl, { id, port, dir, configFile, directoryId });
    if (started === 'started') return node;
    await node.stop();
    if (started === 'bind' && attempt < 3) continue;
    throw new Error(`${impl} controller ${id} did not start (${started}):\n${node.log().slice(-4000)}`);
  }
}

/**
 * Stops a tkafka controller and starts it again on its data with another CONTROLLER port (a
 * controller moved to a new address): the port is rewritten in its listeners.
 */
export async function restartOnPort(node: ControllerNode, port: number): Promise<ControllerNode> {
  await node.stop();
  const text = readFileSync(node.configFile, 'utf8').replace(
    /^listeners=CONTROLLER:\/\/127\.0\.0\.1:\d+$/m,
    `listeners=CONTROLLER://127.0.0.1:${port}`,
  );
  writeFileSync(node.configFile, text);
  const { started, node: again } = await launch('tkafka', { ...node, port });
  if (started !== 'started') {
    await again.stop();
    throw new Error(`tkafka controller ${node.id} did not start again (${started}):\n${again.log().slice(-4000)}`);
  }
  return again;
}

/** Spawns the node's process and waits until it started, could not bind, or exited. */
async function launch(
  impl: 'kafka' | 'tkafka',
  n: { id: number; port: number; dir: string; configFile: string; directoryId: string },
): Promise<{ started: string; node: ControllerNode }> {
  const { id, port, dir, configFile, directoryId } = n;
  const logDir = join(dir, 'logs');
  const out = openSync(join(logDir, 'console.log'), 'a');
  const child = spawn(
    impl === 'kafka' ? 'java' : process.execPath,
    impl === 'tkafka'
      ? [join(REPO_ROOT, 'bin', 'tkafka'), 'server', 'start', configFile]
      : [
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
  const logFiles = ['server.log', 'console.log'].map((f) => join(logDir, f));
  const from = new Map(logFiles.map((f) => [f, existsSync(f) ? readFileSync(f, 'utf8').length : 0]));
  const log = (): string =>
    logFiles
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
  /** What this process wrote (a restarted node appends to its predecessor's files). */
  const ownLog = (): string =>
    logFiles
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'utf8').slice(from.get(f) ?? 0))
      .join('\n');
  const stop = async (): Promise<void> => {
    if (exited === null) child.kill('SIGKILL');
    await gone;
  };
  const started = await waitFor(
    () => {
      const text = ownLog();
      if (/Socket server failed to bind to .*(EADDRINUSE|address already in use)/i.test(text)) return 'bind';
      if (/\] Kafka Server started/.test(text)) return 'started';
      return exited === null ? null : 'exited';
    },
    { what: `${impl} controller ${id} to start`, timeoutMs: 180_000, intervalMs: 200 },
  ).catch((e: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${e.message}\n${log().slice(-4000)}`);
  });
  return { started, node: { id, port, dir, configFile, directoryId, log, stop } };
}

/** `tkafka metadata-quorum …` as a user runs it (bin/tkafka, a process of its own). */
export async function tkafkaQuorum(args: string[]): Promise<ToolResult> {
  const r = await execa('node', [join(REPO_ROOT, 'bin', 'tkafka'), 'metadata-quorum', ...args], {
    reject: false,
    timeout: 120_000,
    stripFinalNewline: false,
  });
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode: r.exitCode ?? -1 };
}
