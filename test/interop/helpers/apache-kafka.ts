// A real Apache Kafka (4.4.x by default, from Maven Central via scripts/kafka-jars.sh) for the interop suite:
// starts a single combined broker+controller KRaft node on loopback with its files in a temp
// folder, and runs Kafka's own tool classes (TopicCommand, DumpLogSegments, ...) from the same
// jars, with the JVM flags and log4j2 set-up of Kafka's `bin/kafka-run-class.sh`.
//
// No silent pass: if the jars cannot be resolved (no java, no mvn, Maven Central unreachable)
// every function here throws with the resolver's message.
import { execa } from 'execa';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { unusedPort } from '../../helpers/broker-process.js';
import { RawClient } from '../../helpers/raw-client.js';
import { REPO_ROOT } from '../../helpers/spec-models.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ApiKey } from '../../../src/protocol/frame.js';
import { ZERO_UUID } from '../../../src/protocol/uuid.js';

/** The Kafka version the suite runs (scripts/kafka-jars.sh's default; env TKAFKA_KAFKA_VERSION). */
export const KAFKA_VERSION = process.env.TKAFKA_KAFKA_VERSION ?? '4.4.0';

let libDir: string | null = null;

/**
 * Resolves Kafka's jars (once per process; the script reuses a complete cache in milliseconds)
 * and returns the lib folder. Throws with the script's output when it fails.
 */
export function kafkaLibDir(): string {
  if (libDir) return libDir;
  const r = spawnSync('bash', [join(REPO_ROOT, 'scripts', 'kafka-jars.sh')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, TKAFKA_KAFKA_VERSION: KAFKA_VERSION },
    timeout: 20 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = (r.stdout ?? '').trim().split('\n');
  const dir = out[out.length - 1] ?? '';
  if (r.error || r.status !== 0 || !dir || !existsSync(join(dir, `kafka_2.13-${KAFKA_VERSION}.jar`))) {
    throw new Error(
      `cannot get Apache Kafka ${KAFKA_VERSION}'s jars (scripts/kafka-jars.sh exited ${r.status ?? r.signal}` +
        `${r.error ? `: ${r.error.message}` : ''}):\n${r.stderr ?? ''}${r.stdout ?? ''}`,
    );
  }
  libDir = dir;
  return dir;
}

/** Kafka's config/tools-log4j2.yaml, as a log4j2 properties file: WARN and above to stderr. */
const TOOLS_LOG4J2 = `status = error
name = tools
appender.stderr.type = Console
appender.stderr.name = STDERR
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stderr.ref = STDERR
`;

/** The tools log4j2 file, kept in the jar cache folder beside lib/. */
function toolsLog4j(): string {
  const file = join(dirname(kafkaLibDir()), 'tools-log4j2.properties');
  if (!existsSync(file) || readFileSync(file, 'utf8') !== TOOLS_LOG4J2) writeFileSync(file, TOOLS_LOG4J2);
  return file;
}

/** Fast-start JVM flags for short-lived tool runs (C1 only, serial GC, CDS when available). */
export const TOOL_JVM_FLAGS = [
  '-Xmx256m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xshare:auto',
  '-Djava.awt.headless=true',
];

export interface ToolResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface ToolOptions {
  /** Written to the tool's stdin (then closed). Without it stdin is empty (closed). */
  input?: string | Buffer;
  /** Kill the JVM after this long (default 120 s); the result then has exitCode -1. */
  timeoutMs?: number;
  /** Extra JVM flags (e.g. -D system properties), placed before the main class. */
  jvmArgs?: string[];
  /** Working directory of the JVM (default: a temp folder's parent, tmpdir()). */
  cwd?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

/**
 * Runs one of Kafka's tool main classes from the cached jars, with Kafka's tools log4j2 set-up
 * (WARN and above to stderr). Never throws for a non-zero exit: check `exitCode`.
 */
export async function runKafkaTool(mainClass: string, args: string[], opts: ToolOptions = {}): Promise<ToolResult> {
  const lib = kafkaLibDir();
  const jvm = [
    ...TOOL_JVM_FLAGS,
    `-Dlog4j2.configurationFile=${toolsLog4j()}`,
    ...(opts.jvmArgs ?? []),
    '-cp',
    `${lib}/*`,
    mainClass,
    ...args,
  ];
  const r = await execa('java', jvm, {
    cwd: opts.cwd ?? tmpdir(),
    env: opts.env,
    input: opts.input ?? '',
    reject: false,
    timeout: opts.timeoutMs ?? 120_000,
    stripFinalNewline: false,
    maxBuffer: 256 * 1024 * 1024,
  });
  const exitCode = r.timedOut ? -1 : typeof r.exitCode === 'number' ? r.exitCode : -1;
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode };
}

export interface ApacheKafkaOptions {
  /** server.properties entries added to / replacing the defaults below. */
  overrides?: Record<string, string | number | boolean>;
  /**
   * 'static' (default): `controller.quorum.voters=1@127.0.0.1:<controllerPort>`, storage formatted
   * without a quorum flag, as tkafka's own test broker is configured.
   * 'dynamic': `controller.quorum.bootstrap.servers` and `format --standalone` (KIP-853), as
   * Kafka 4.x's own config/server.properties and quickstart do.
   */
  quorum?: 'static' | 'dynamic';
  /** Cluster id to format with (default: a random one). */
  clusterId?: string;
  /** Extra `kafka-storage format` arguments, e.g. ['--release-version', '3.9']. */
  formatArgs?: string[];
  /** Broker heap (default 512m). */
  heap?: string;
  /** Extra broker JVM flags (e.g. -D system properties, as KAFKA_OPTS passes them), before the main class. */
  jvmArgs?: string[];
  /** Folders or jars appended to the broker's classpath (a plugin, as CLASSPATH adds it to kafka-run-class.sh's). */
  classpath?: string[];
  /** How long to wait for the broker to answer Metadata (default 120 s). */
  startTimeoutMs?: number;
  /**
   * More listeners beside PLAINTEXT and CONTROLLER: name → security protocol (e.g.
   * `{ SASL1: 'SASL_PLAINTEXT' }`), each on a port picked before the start (see `listenerPorts`).
   * Their own settings (`listener.name.sasl1.…`) go in `overrides`.
   */
  extraListeners?: Record<string, string>;
}

export interface ApacheKafka {
  /** `127.0.0.1:<port>`, the PLAINTEXT listener. */
  bootstrap: string;
  /** `127.0.0.1:<controllerPort>`, the CONTROLLER listener (for --bootstrap-controller). */
  controllerBootstrap: string;
  port: number;
  controllerPort: number;
  /** The ports of `extraListeners`, by name. */
  listenerPorts: Record<string, number>;
  nodeId: number;
  clusterId: string;
  /** The temp folder holding everything below (removed by cleanup()). */
  rootDir: string;
  /** log.dirs (the single data folder: topic partitions and __cluster_metadata-0). */
  dataDir: string;
  /** Where the broker's log4j files go: server.log (everything at INFO) and console.log (stdout+stderr). */
  logDir: string;
  /** The server.properties the broker runs with. */
  configFile: string;
  /** Milliseconds from launching the JVM to the first answered Metadata request (last start). */
  startMs: number;
  /** pid of the running JVM (undefined while stopped). */
  pid(): number | undefined;
  /** The text of server.log and console.log so far (for failure messages). */
  logs(): string;
  /** SIGTERM (controlled shutdown), SIGKILL after 30 s; resolves when the JVM is gone. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL, resolves when the JVM is gone. Idempotent. */
  kill(): Promise<void>;
  /** Starts the JVM again on the same ports and files (after stop or kill). */
  restart(): Promise<void>;
  /** stop() (if running), then removes rootDir. */
  cleanup(): Promise<void>;
  /** runKafkaTool with this broker's lib: any Kafka tool main class. */
  runTool(mainClass: string, args: string[], opts?: ToolOptions): Promise<ToolResult>;
  /**
   * Polls Metadata (every 100 ms, default 30 s) until the broker's metadata cache has `topic` with
   * a leader for every partition (and `partitions` of them, when given); throws on time-out.
   * Use after creating a topic with a tool, before producing or describing.
   */
  waitForTopic(topic: string, opts?: { partitions?: number; timeoutMs?: number }): Promise<void>;
}

/**
 * Every broker JVM started here, SIGKILLed when this process exits or is ended by SIGINT, SIGTERM
 * or SIGHUP (the signal is then re-raised, so the process still ends as it would have).
 */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function killAllLive(): void {
  for (const p of live) {
    try {
      p.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}
function track(c: ChildProcess): void {
  live.add(c);
  c.once('exit', () => live.delete(c));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', killAllLive);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAllLive();
      process.removeListener(sig, onSignal);
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

/** A random Kafka cluster id: 16 random bytes, URL-safe base64 without padding (Uuid.toString). */
export function randomClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function broker_log4j(logDir: string): string {
  return `status = error
name = broker
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = ${join(logDir, 'server.log')}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.requestlogger.name = kafka.request.logger
logger.requestlogger.level = WARN
`;
}

function propertiesText(props: Record<string, string>): string {
  return (
    Object.entries(props)
      .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\')}`)
      .join('\n') + '\n'
  );
}

/**
 * One bounded attempt: does the broker on `port` answer Metadata naming `nodeId` and a controller
 * (false on any error or after `ms`)?
 */
export async function metadataAnswers(port: number, nodeId: number, ms: number): Promise<boolean> {
  let client: RawClient | null = null;
  // a bound on one attempt (a request can hang on a JVM that is still starting), not a wait
  const timer = new Promise<false>((r) => setTimeout(() => r(false), ms).unref());
  try {
    const attempt = (async () => {
      client = await RawClient.connect(port);
      const md = await client.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
      return (
        Array.isArray(md.brokers) &&
        md.brokers.some((b: { nodeId: number }) => b.nodeId === nodeId) &&
        md.controllerId >= 0
      );
    })().catch(() => false);
    return await Promise.race([attempt, timer]);
  } finally {
    (client as RawClient | null)?.close();
  }
}

/** Kafka's ListenerInfo.withEphemeralPortsCorrected line: "PLAINTEXT: resolved ephemeral port to 40123". */
const RESOLVED_PORT = /\bPLAINTEXT: resolved ephemeral port to (\d+)/;
/** Kafka's Acceptor when a port is taken: "Socket server failed to bind to 127.0.0.1:9093: Address already in use." */
const BIND_FAILED = /Socket server failed to bind to [^ ]*: Address already in use/;

/**
 * Formats storage and starts a single-node Apache Kafka (process.roles=broker,controller,
 * node.id=1) on loopback; resolves once a Metadata request lists the broker.
 * Keep one per test file (a JVM start costs seconds) and stop it in an `after()` hook.
 *
 * Ports: the PLAINTEXT listener binds port 0 and its port is read from Kafka's log (its
 * "PLAINTEXT: resolved ephemeral port to N" line). The CONTROLLER port must be known before the
 * start (the static voter, or the voter that `format --standalone` writes), so it is picked and,
 * if Kafka fails to bind it because something took it meanwhile, picked again (three attempts).
 */
export async function startApacheKafka(opts: ApacheKafkaOptions = {}): Promise<ApacheKafka> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startApacheKafkaOnce(opts);
    } catch (e) {
      if (!(e instanceof BindFailed) || attempt === 3) throw e;
    }
  }
}

class BindFailed extends Error {}

async function startApacheKafkaOnce(opts: ApacheKafkaOptions): Promise<ApacheKafka> {
  const lib = kafkaLibDir();
  let port = 0;
  const controllerPort = await unusedPort();
  const listenerPorts: Record<string, number> = {};
  for (const name of Object.keys(opts.extraListeners ?? {})) listenerPorts[name] = await unusedPort();
  const extra = Object.entries(listenerPorts)
    .map(([n, p]) => `,${n}://127.0.0.1:${p}`)
    .join('');
  const extraMap = Object.entries(opts.extraListeners ?? {})
    .map(([n, proto]) => `,${n}:${proto}`)
    .join('');
  const nodeId = 1;
  const clusterId = opts.clusterId ?? randomClusterId();
  const quorum = opts.quorum ?? 'static';
  const rootDir = mkdtempSync(join(tmpdir(), 'tkafka-apache-kafka-'));
  const dataDir = join(rootDir, 'data');
  const logDir = join(rootDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const configFile = join(rootDir, 'server.properties');
  const log4jFile = join(rootDir, 'log4j2.properties');
  writeFileSync(log4jFile, broker_log4j(logDir));

  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(nodeId),
    listeners: `PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:${controllerPort}${extra}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:${controllerPort}${extra}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': `CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${extraMap}`,
    'log.dirs': dataDir,
    'num.partitions': '1',
    'default.replication.factor': '1',
    'offsets.topic.replication.factor': '1',
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'transaction.state.log.num.partitions': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    'auto.create.topics.enable': 'true',
  };
  if (quorum === 'static') props['controller.quorum.voters'] = `${nodeId}@127.0.0.1:${controllerPort}`;
  else props['controller.quorum.bootstrap.servers'] = `127.0.0.1:${controllerPort}`;
  for (const [k, v] of Object.entries(opts.overrides ?? {})) props[k] = String(v);
  writeFileSync(configFile, propertiesText(props));

  const fmt = await runKafkaTool('kafka.tools.StorageTool', [
    'format',
    '-t',
    clusterId,
    '-c',
    configFile,
    ...(quorum === 'dynamic' ? ['--standalone'] : []),
    ...(opts.formatArgs ?? []),
  ]);
  if (fmt.exitCode !== 0) {
    rmSync(rootDir, { recursive: true, force: true });
    throw new Error(`kafka-storage format failed (exit ${fmt.exitCode}):\n${fmt.stdout}${fmt.stderr}`);
  }

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let startMs = 0;
  const consoleLog = join(logDir, 'console.log');

  const logs = (): string => {
    let s = '';
    for (const f of ['server.log', 'console.log']) {
      const p = join(logDir, f);
      if (existsSync(p)) {
        const t = readFileSync(p, 'utf8');
        s += `--- ${f} (last 8000 chars) ---\n${t.slice(-8000)}\n`;
      }
    }
    return s;
  };

  const serverLog = join(logDir, 'server.log');
  const logSize = (): number => (existsSync(serverLog) ? readFileSync(serverLog).length : 0);
  const launch = async (): Promise<void> => {
    const logFrom = logSize();
    const logSince = (): string => (existsSync(serverLog) ? readFileSync(serverLog).subarray(logFrom).toString() : '');
    const out = openSync(consoleLog, 'a');
    const t0 = Date.now();
    const c = spawn(
      'java',
      [
        `-Xmx${opts.heap ?? '512m'}`,
        `-Xms${opts.heap ?? '512m'}`,
        '-XX:+UseG1GC',
        '-XX:MaxGCPauseMillis=20',
        '-XX:InitiatingHeapOccupancyPercent=35',
        '-XX:+ExplicitGCInvokesConcurrent',
        '-XX:MaxInlineLevel=15',
        '-Xshare:auto',
        '-Djava.awt.headless=true',
        `-Dlog4j2.configurationFile=${log4jFile}`,
        `-Dkafka.logs.dir=${logDir}`,
        ...(opts.jvmArgs ?? []),
        '-cp',
        [`${lib}/*`, ...(opts.classpath ?? [])].join(':'),
        'kafka.Kafka',
        configFile,
      ],
      { cwd: rootDir, stdio: ['ignore', out, out] },
    );
    closeSync(out);
    child = c;
    track(c);
    let exitInfo: string | null = null;
    exited = new Promise<void>((resolve) => {
      c.once('exit', (code, signal) => {
        exitInfo = `exit ${code ?? signal}`;
        resolve();
      });
      c.once('error', (e) => {
        exitInfo = `spawn error ${e.message}`;
        resolve();
      });
    });
    const timeoutMs = opts.startTimeoutMs ?? 120_000;
    const ready = await waitFor(
      async () => {
        if (exitInfo !== null) return { exited: exitInfo };
        if (port === 0) {
          // first start: PLAINTEXT on port 0, the bound port is in Kafka's log
          const bound = RESOLVED_PORT.exec(logSince());
          if (!bound) return null;
          port = Number(bound[1]);
        }
        return (await metadataAnswers(port, nodeId, 2000)) ? { exited: null } : null;
      },
      { what: `Apache Kafka to log its PLAINTEXT port and answer Metadata`, timeoutMs, intervalMs: 200 },
    ).catch(async (e: Error) => {
      c.kill('SIGKILL');
      await exited;
      throw new Error(`${e.message}:\n${logs()}`);
    });
    if (ready.exited !== null) {
      if (BIND_FAILED.test(logSince())) throw new BindFailed(`Apache Kafka could not bind its ports:\n${logs()}`);
      throw new Error(`Apache Kafka exited before serving (${ready.exited}):\n${logs()}`);
    }
    startMs = Date.now() - t0;
    handle.startMs = startMs;
  };

  const stopWith = async (signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill(signal);
    const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    child = null;
  };

  const handle: ApacheKafka = {
    get bootstrap() {
      return `127.0.0.1:${port}`;
    },
    controllerBootstrap: `127.0.0.1:${controllerPort}`,
    get port() {
      return port;
    },
    controllerPort,
    listenerPorts,
    nodeId,
    clusterId,
    rootDir,
    dataDir,
    logDir,
    configFile,
    startMs,
    pid: () => (child as ChildProcess | null)?.pid,
    logs,
    stop: () => stopWith('SIGTERM', 30_000),
    kill: () => stopWith('SIGKILL', 5_000),
    restart: async () => {
      // back on the PLAINTEXT port it had, as a broker restarting on its configured port
      await stopWith('SIGTERM', 30_000);
      const listeners = `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}${extra}`;
      writeFileSync(configFile, propertiesText({ ...props, listeners, 'advertised.listeners': listeners }));
      await launch();
    },
    cleanup: async () => {
      await stopWith('SIGTERM', 30_000);
      rmSync(rootDir, { recursive: true, force: true });
    },
    runTool: (mainClass, args, o) => runKafkaTool(mainClass, args, o),
    waitForTopic: async (topic, o = {}) => {
      let last = 'no answer';
      const ready = async (): Promise<boolean> => {
        const client = await RawClient.connect(port).catch(() => null);
        if (client) {
          try {
            const md = await client.request(ApiKey.Metadata, 12, {
              topics: [{ name: topic, topicId: ZERO_UUID }],
              allowAutoTopicCreation: false,
              includeTopicAuthorizedOperations: false,
            });
            const t = md.topics?.find((x: { name: string | null }) => x.name === topic);
            const parts: { leaderId: number }[] = t?.partitions ?? [];
            last = t ? `error ${t.errorCode}, ${parts.length} partitions` : 'topic not in the answer';
            if (
              t &&
              t.errorCode === 0 &&
              parts.length > 0 &&
              (o.partitions === undefined || parts.length === o.partitions) &&
              parts.every((p) => p.leaderId >= 0)
            )
              return true;
          } finally {
            client.close();
          }
        }
        return false;
      };
      await waitFor(ready, { what: `topic ${topic} on Apache Kafka`, timeoutMs: o.timeoutMs ?? 30_000 }).catch(
        (e: Error) => {
          throw new Error(`${e.message} (${last})`);
        },
      );
    },
  };

  try {
    await launch();
  } catch (e) {
    rmSync(rootDir, { recursive: true, force: true });
    throw e;
  }
  return handle;
}

/** The broker log4j2 set-up above (everything at INFO to <logDir>/server.log), for kafka-cluster.ts's nodes. */
export const brokerLog4j = broker_log4j;
