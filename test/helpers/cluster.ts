// Multi-process KRaft clusters for tests: controller-only, broker-only and combined nodes, each a
// real process with its own server.properties, storage (formatted as `kafka-storage format` would)
// and log, under one temp folder. The engine is the same for every implementation: a node is
// launched by a NodeLauncher, `tkafkaLauncher` here (`bin/tkafka server start`), Apache Kafka's in
// test/interop/helpers/kafka-cluster.ts; a mixed cluster gives each node its launcher. Both read
// the same configuration names, so one properties generator serves both.
//
// Ports: controller ports must be known before anything starts (the voters string, or
// --initial-controllers), so they are picked up front; when a node then fails to bind one
// (something took it meanwhile), every node is killed, the ports re-picked and the whole start
// retried (three attempts). Broker listeners bind port 0; the bound port is the Acceptor line
// ("Awaiting socket connections on 127.0.0.1:N.") that is not the node's controller port. A node
// restarts on the ports it had.
//
// Queries (DescribeQuorum, DescribeCluster with fenced brokers, Metadata topic ids) use RawClient
// and work on any implementation; they are what the acceptance scenarios compare.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ApiKey } from '../../src/protocol/frame.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { RawClient } from './raw-client.js';
import { REPO_ROOT } from './spec-models.js';
import { waitFor } from './wait-for.js';

export type Roles = 'controller' | 'broker' | 'broker,controller';
export type QuorumMode = 'static' | 'dynamic';

/** How one implementation formats storage and runs a server process. */
export interface NodeLauncher {
  /** 'tkafka' or 'kafka', for messages and figures. */
  readonly impl: string;
  /** `storage format` with these arguments; never throws for a non-zero exit. */
  format(args: string[], cwd: string): Promise<{ exitCode: number; output: string }>;
  /** Starts the server with `configFile`; its output goes to files under `nodeDir`. */
  spawn(configFile: string, nodeDir: string): ChildProcess;
  /** Everything the node logged so far (the files spawn() writes), from byte `from`. */
  log(nodeDir: string, from?: number): string;
  /** Bytes logged so far (where a new start's log begins). */
  logSize(nodeDir: string): number;
}

export interface NodeSpec {
  id: number;
  roles: Roles;
  /** Default: the cluster's launcher. */
  launcher?: NodeLauncher;
  /** server.properties entries for this node only. */
  overrides?: Record<string, string | number | boolean>;
  /** More `storage format` arguments for this node (e.g. `--feature streams.version=0`). */
  formatArgs?: readonly string[];
  /** Log dirs of this node (default 1): `<node dir>/data`, then `data2`, `data3`, ... (the metadata log in the first). */
  logDirs?: number;
}

export interface ClusterSpec {
  nodes: NodeSpec[];
  /** static: controller.quorum.voters; dynamic (KIP-853): controller.quorum.bootstrap.servers + --initial-controllers. */
  quorum?: QuorumMode;
  launcher: NodeLauncher;
  /** For every node. */
  overrides?: Record<string, string | number | boolean>;
  /** For controller (and combined) nodes. */
  controllerOverrides?: Record<string, string | number | boolean>;
  /** For broker (and combined) nodes. */
  brokerOverrides?: Record<string, string | number | boolean>;
  clusterId?: string;
  /** Per node start time-out (default 120 s: JVMs on shared CPUs are slow). */
  startTimeoutMs?: number;
  /**
   * The brokers' listener name (default PLAINTEXT): also the inter-broker listener; its security
   * protocol and settings come from the overrides (listener.security.protocol.map, listener.name.*).
   */
  brokerListener?: string;
  /** An existing controller quorum to join instead of the spec's own controllers (mixed clusters). */
  external?: { clusterId: string; quorum: QuorumMode; controllers: { id: number; port: number }[] };
}

export interface ClusterNode {
  readonly id: number;
  readonly roles: Roles;
  readonly impl: string;
  readonly isController: boolean;
  readonly isBroker: boolean;
  /** The broker listener's port (PLAINTEXT, or the spec's brokerListener; 0 for a controller-only node). */
  readonly port: number;
  /** The CONTROLLER listener's port (0 for a broker-only node). */
  readonly controllerPort: number;
  readonly dir: string;
  readonly configFile: string;
  /** The metadata partition's folder (log.dirs/__cluster_metadata-0). */
  readonly metadataDir: string;
  pid(): number | undefined;
  running(): boolean;
  /** SIGTERM (controlled shutdown), SIGKILL after 30 s. */
  stop(): Promise<void>;
  /** SIGKILL. */
  kill(): Promise<void>;
  /** Starts a stopped node again on its ports and data; resolves when it logs that it serves. */
  start(): Promise<void>;
  /** The last `chars` characters of its log. */
  logs(chars?: number): string;
}

export interface Cluster {
  readonly clusterId: string;
  readonly rootDir: string;
  readonly nodes: readonly ClusterNode[];
  node(id: number): ClusterNode;
  readonly controllers: readonly ClusterNode[];
  readonly brokers: readonly ClusterNode[];
  /** Broker-listener addresses of the running brokers. */
  bootstrap(): string;
  /** CONTROLLER addresses of the running controllers (--bootstrap-controller). */
  controllerBootstrap(): string;
  /** What the voters are: `1@127.0.0.1:p1,...` (also for a dynamic quorum, for messages). */
  readonly voters: string;
  /** Logs of every node (the tail), for failure messages. */
  logs(chars?: number): string;
  /** Stops every node (brokers first) and removes rootDir. */
  cleanup(): Promise<void>;
}

const CONTROLLER = 'CONTROLLER';
/** The line a node writes once it serves (Kafka's KafkaRaftServer "Kafka Server started"). */
export const STARTED_LINE = /\] Kafka Server started/;
/** Kafka's Acceptor line, one per listener as it binds. */
const ACCEPTOR_LINE = /Awaiting socket connections on \S+:(\d+)\./g;
/** Kafka's and tkafka's Acceptor line when a port is taken. */
const BIND_FAILED = /Socket server failed to bind to .*(EADDRINUSE|[Aa]ddress already in use)/;

/** A random Uuid (Kafka's Uuid.toString: URL-safe base64 without padding, not starting with '-'). */
export function randomUuidString(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * A loopback port free now (for controller ports, which must be known up front). It is taken below
 * the kernel's ephemeral range (`ip_local_port_range`): a port from that range, once released, can
 * become the source port of any outgoing connection before the node binds it (chaos's proxies make
 * dozens), and the node then fails with EADDRINUSE.
 */
export async function pickPort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.min(10_000, high - 1000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await canBind(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return bindAny();
}

const handedOut = new Set<number>();

function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 2048) return low;
  } catch {
    // not Linux: the IANA range
  }
  return 49152;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

function bindAny(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export function propertiesText(props: Record<string, string>): string {
  return (
    Object.entries(props)
      .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\')}`)
      .join('\n') + '\n'
  );
}

const isControllerRole = (r: Roles): boolean => r !== 'broker';
const isBrokerRole = (r: Roles): boolean => r !== 'controller';

/** Controllers as voters: `1@127.0.0.1:p1,...`. */
export function votersString(controllers: readonly { id: number; port: number }[]): string {
  return controllers.map((c) => `${c.id}@127.0.0.1:${c.port}`).join(',');
}

/**
 * The server.properties of one node, as Kafka's docs configure a KRaft cluster: CONTROLLER and
 * PLAINTEXT listeners on loopback, the quorum as voters (static) or bootstrap servers (dynamic),
 * single-replica internal topics (partition replication is issue 15).
 */
export function clusterNodeProperties(opts: {
  id: number;
  roles: Roles;
  brokerPort: number;
  controllerPort: number;
  logDir: string;
  quorum: QuorumMode;
  controllers: readonly { id: number; port: number }[];
  overrides?: Record<string, string | number | boolean>;
  /** The broker listener's name (default PLAINTEXT). */
  brokerListener?: string;
}): Record<string, string> {
  const broker = isBrokerRole(opts.roles);
  const controller = isControllerRole(opts.roles);
  const brokerListener = opts.brokerListener ?? 'PLAINTEXT';
  const listeners = [
    ...(broker ? [`${brokerListener}://127.0.0.1:${opts.brokerPort}`] : []),
    ...(controller ? [`${CONTROLLER}://127.0.0.1:${opts.controllerPort}`] : []),
  ].join(',');
  const props: Record<string, string> = {
    'process.roles': opts.roles,
    'node.id': String(opts.id),
    listeners,
    'advertised.listeners': listeners,
    'controller.listener.names': CONTROLLER,
    'listener.security.protocol.map': `CONTROLLER:PLAINTEXT,${brokerListener}:PLAINTEXT`,
    'log.dirs': opts.logDir,
  };
  if (opts.quorum === 'static') props['controller.quorum.voters'] = votersString(opts.controllers);
  else props['controller.quorum.bootstrap.servers'] = opts.controllers.map((c) => `127.0.0.1:${c.port}`).join(',');
  if (broker) {
    Object.assign(props, {
      'inter.broker.listener.name': brokerListener,
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
    });
  }
  for (const [k, v] of Object.entries(opts.overrides ?? {})) props[k] = String(v);
  return props;
}

/** `storage format` arguments for one node: static, or dynamic with --initial-controllers / --no-initial-controllers. */
export function formatArgs(opts: {
  clusterId: string;
  configFile: string;
  roles: Roles;
  quorum: QuorumMode;
  /** For a dynamic quorum: every initial controller with its directory id. */
  initialControllers?: readonly { id: number; port: number; directoryId: string }[];
}): string[] {
  const args = ['format', '-t', opts.clusterId, '-c', opts.configFile];
  if (opts.quorum === 'dynamic') {
    if (isControllerRole(opts.roles) && opts.initialControllers)
      args.push(
        '--initial-controllers',
        opts.initialControllers.map((c) => `${c.id}@127.0.0.1:${c.port}:${c.directoryId}`).join(','),
      );
    else args.push('--no-initial-controllers');
  }
  return args;
}

// ---- tkafka's launcher -------------------------------------------------------------------------

const TKAFKA_LOG = 'server.log';

export const tkafkaLauncher: NodeLauncher = {
  impl: 'tkafka',
  async format(args, cwd) {
    const r = await execa('node', [join(REPO_ROOT, 'bin', 'tkafka'), 'storage', ...args], {
      cwd,
      reject: false,
      all: true,
      timeout: 60_000,
    });
    return { exitCode: typeof r.exitCode === 'number' ? r.exitCode : -1, output: String(r.all ?? '') };
  },
  spawn(configFile, nodeDir) {
    const out = openSync(join(nodeDir, TKAFKA_LOG), 'a');
    try {
      return spawn(process.execPath, [join(REPO_ROOT, 'bin', 'tkafka'), 'server', 'start', configFile], {
        cwd: nodeDir,
        stdio: ['ignore', out, out],
      });
    } finally {
      closeSync(out);
    }
  },
  log: (nodeDir, from = 0) => readTail(join(nodeDir, TKAFKA_LOG), from),
  logSize: (nodeDir) => fileSize(join(nodeDir, TKAFKA_LOG)),
};

export function readTail(file: string, from = 0): string {
  return existsSync(file) ? readFileSync(file).subarray(from).toString() : '';
}

export function fileSize(file: string): number {
  return existsSync(file) ? readFileSync(file).length : 0;
}

// ---- process tracking ------------------------------------------------------------------------------

/**
 * Every server process started here, SIGKILLed when the test process exits or is ended by SIGINT,
 * SIGTERM or SIGHUP (the signal is then re-raised, so the process still ends as it would have).
 */
const live = new Set<ChildProcess>();
let hooked = false;
function killLive(): void {
  for (const p of live) p.kill('SIGKILL');
  live.clear();
}
function track(c: ChildProcess): void {
  live.add(c);
  c.once('exit', () => live.delete(c));
  if (hooked) return;
  hooked = true;
  process.once('exit', killLive);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killLive();
      process.removeListener(sig, onSignal);
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

class BindFailed extends Error {}

// ---- the engine ------------------------------------------------------------------------------------

/** Starts the cluster: every node formatted, launched, and logging that it serves. */
export async function startCluster(spec: ClusterSpec): Promise<Cluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(spec);
    } catch (e) {
      if (!(e instanceof BindFailed) || attempt === 3) throw e;
    }
  }
}

interface NodeState {
  spec: NodeSpec;
  launcher: NodeLauncher;
  brokerPort: number;
  controllerPort: number;
  dir: string;
  configFile: string;
  props: Record<string, string>;
  child: ChildProcess | null;
  exited: Promise<void>;
  exitInfo: string | null;
}

async function startClusterOnce(spec: ClusterSpec): Promise<Cluster> {
  const quorum = spec.external?.quorum ?? spec.quorum ?? 'static';
  const clusterId = spec.external?.clusterId ?? spec.clusterId ?? randomUuidString();
  const rootDir = mkdtempSync(join(tmpdir(), 'tkafka-cluster-'));
  const timeoutMs = spec.startTimeoutMs ?? 120_000;

  const states: NodeState[] = [];
  for (const n of spec.nodes) {
    const dir = join(rootDir, `node-${n.id}`);
    mkdirSync(dir, { recursive: true });
    states.push({
      spec: n,
      launcher: n.launcher ?? spec.launcher,
      brokerPort: 0,
      controllerPort: isControllerRole(n.roles) ? await pickPort() : 0,
      dir,
      configFile: join(dir, 'server.properties'),
      props: {},
      child: null,
      exited: Promise.resolve(),
      exitInfo: null,
    });
  }
  const controllers =
    spec.external?.controllers ??
    states.filter((s) => isControllerRole(s.spec.roles)).map((s) => ({ id: s.spec.id, port: s.controllerPort }));
  const initialControllers = controllers.map((c) => ({ ...c, directoryId: randomUuidString() }));

  const writeConfig = (s: NodeState): void => {
    s.props = clusterNodeProperties({
      id: s.spec.id,
      roles: s.spec.roles,
      brokerPort: s.brokerPort,
      controllerPort: s.controllerPort,
      logDir: Array.from({ length: s.spec.logDirs ?? 1 }, (_, i) =>
        join(s.dir, i === 0 ? 'data' : `data${i + 1}`),
      ).join(','),
      quorum,
      controllers,
      brokerListener: spec.brokerListener,
      overrides: {
        ...spec.overrides,
        ...(isControllerRole(s.spec.roles) ? spec.controllerOverrides : {}),
        ...(isBrokerRole(s.spec.roles) ? spec.brokerOverrides : {}),
        ...s.spec.overrides,
      },
    });
    writeFileSync(s.configFile, propertiesText(s.props));
  };

  const logs = (chars = 6000): string =>
    states
      .map(
        (s) =>
          `--- node ${s.spec.id} (${s.launcher.impl}, ${s.spec.roles}) ---\n${s.launcher.log(s.dir).slice(-chars)}`,
      )
      .join('\n');

  const launch = async (s: NodeState): Promise<void> => {
    const from = s.launcher.logSize(s.dir);
    const c = s.launcher.spawn(s.configFile, s.dir);
    s.child = c;
    s.exitInfo = null;
    track(c);
    s.exited = new Promise<void>((resolve) => {
      c.once('exit', (code, signal) => {
        s.exitInfo = `exit ${code ?? signal}`;
        resolve();
      });
      c.once('error', (e) => {
        s.exitInfo = `spawn error ${e.message}`;
        resolve();
      });
    });
    const since = (): string => s.launcher.log(s.dir, from);
    const outcome = await waitFor(
      () => {
        const text = since();
        if (STARTED_LINE.test(text)) return { ok: true as const, text };
        if (s.exitInfo !== null) return { ok: false as const, text };
        return null;
      },
      {
        what: `node ${s.spec.id} (${s.launcher.impl} ${s.spec.roles}) to log "Kafka Server started"`,
        timeoutMs,
        intervalMs: 100,
      },
    ).catch(async (e: Error) => {
      c.kill('SIGKILL');
      await s.exited;
      throw new Error(`${e.message}:\n${since().slice(-6000)}`);
    });
    if (!outcome.ok) {
      if (BIND_FAILED.test(outcome.text)) throw new BindFailed(`node ${s.spec.id} could not bind a port`);
      throw new Error(
        `node ${s.spec.id} (${s.launcher.impl}) exited before serving (${s.exitInfo}):\n${outcome.text.slice(-6000)}`,
      );
    }
    if (isBrokerRole(s.spec.roles) && s.brokerPort === 0) {
      const bound = [...outcome.text.matchAll(ACCEPTOR_LINE)]
        .map((m) => Number(m[1]))
        .filter((p) => p !== s.controllerPort);
      if (bound.length === 0)
        throw new Error(`node ${s.spec.id} logged no Acceptor line for PLAINTEXT:\n${outcome.text}`);
      s.brokerPort = bound[0]!;
      writeConfig(s); // restarts come back on this port
    }
  };

  const stopNode = async (s: NodeState, signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    const c = s.child;
    if (!c || s.exitInfo !== null) return;
    c.kill(signal);
    const timer = setTimeout(() => c.kill('SIGKILL'), graceMs);
    await s.exited;
    clearTimeout(timer);
    s.child = null;
  };

  const stopAll = async (): Promise<void> => {
    // brokers first (controlled shutdown needs the controllers), then controllers
    await Promise.all(states.filter((s) => s.spec.roles === 'broker').map((s) => stopNode(s, 'SIGTERM', 30_000)));
    await Promise.all(states.filter((s) => s.spec.roles !== 'broker').map((s) => stopNode(s, 'SIGTERM', 30_000)));
  };

  try {
    for (const s of states) {
      writeConfig(s);
      const f = await s.launcher.format(
        formatArgs({
          clusterId,
          configFile: s.configFile,
          roles: s.spec.roles,
          quorum,
          initialControllers: spec.external ? undefined : initialControllers,
        }).concat(s.spec.formatArgs ?? []),
        s.dir,
      );
      if (f.exitCode !== 0)
        throw new Error(`format of node ${s.spec.id} (${s.launcher.impl}) failed (exit ${f.exitCode}):\n${f.output}`);
    }
    // Every node at once: a controller waits for a quorum, a broker for the controllers.
    const results = await Promise.allSettled(states.map((s) => launch(s)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (e) {
    await Promise.all(states.map((s) => stopNode(s, 'SIGKILL', 5000)));
    rmSync(rootDir, { recursive: true, force: true });
    throw e;
  }

  const nodes: ClusterNode[] = states.map((s) => ({
    id: s.spec.id,
    roles: s.spec.roles,
    impl: s.launcher.impl,
    isController: isControllerRole(s.spec.roles),
    isBroker: isBrokerRole(s.spec.roles),
    get port() {
      return s.brokerPort;
    },
    controllerPort: s.controllerPort,
    dir: s.dir,
    configFile: s.configFile,
    metadataDir: join(s.dir, 'data', '__cluster_metadata-0'),
    pid: () => (s.exitInfo === null ? s.child?.pid : undefined),
    running: () => s.child !== null && s.exitInfo === null,
    stop: () => stopNode(s, 'SIGTERM', 30_000),
    kill: () => stopNode(s, 'SIGKILL', 5000),
    start: async () => {
      if (s.child !== null && s.exitInfo === null) return;
      await launch(s);
    },
    logs: (chars = 6000) => s.launcher.log(s.dir).slice(-chars),
  }));
  const cluster: Cluster = {
    clusterId,
    rootDir,
    nodes,
    node: (id) => {
      const n = nodes.find((x) => x.id === id);
      if (!n) throw new Error(`no node ${id}`);
      return n;
    },
    controllers: nodes.filter((n) => n.isController),
    brokers: nodes.filter((n) => n.isBroker),
    bootstrap: () =>
      nodes
        .filter((n) => n.isBroker && n.running())
        .map((n) => `127.0.0.1:${n.port}`)
        .join(','),
    controllerBootstrap: () =>
      nodes
        .filter((n) => n.isController && n.running())
        .map((n) => `127.0.0.1:${n.controllerPort}`)
        .join(','),
    voters: votersString(controllers),
    logs,
    cleanup: async () => {
      await stopAll();
      rmSync(rootDir, { recursive: true, force: true });
    },
  };
  return cluster;
}

// ---- queries (any implementation) ------------------------------------------------------------------

/** One request on a fresh connection, bounded in time; null when the node does not answer. */
async function ask<T>(port: number, fn: (c: RawClient) => Promise<T>, timeoutMs = 3000): Promise<T | null> {
  let client: RawClient | null = null;
  const timer = new Promise<null>((r) => setTimeout(() => r(null), timeoutMs).unref());
  try {
    const attempt = (async () => {
      client = await RawClient.connect(port);
      return await fn(client);
    })().catch(() => null);
    return await Promise.race([attempt, timer]);
  } finally {
    (client as RawClient | null)?.close();
  }
}

export interface QuorumReplica {
  replicaId: number;
  logEndOffset: bigint;
  lastCaughtUpTimestamp: bigint;
}

export interface QuorumInfo {
  leaderId: number;
  leaderEpoch: number;
  highWatermark: bigint;
  voters: QuorumReplica[];
  observers: QuorumReplica[];
}

/** DescribeQuorum (v2) of __cluster_metadata-0, asked of one controller; null if it does not answer or errs. */
export async function describeQuorum(controllerPort: number): Promise<QuorumInfo | null> {
  return ask(controllerPort, async (c) => {
    const r = await c.request(ApiKey.DescribeQuorum, 2, {
      topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
    });
    const p = r.topics[0]?.partitions[0];
    if (r.errorCode !== 0 || !p || p.errorCode !== 0) return null;
    const replica = (x: { replicaId: number; logEndOffset: bigint; lastCaughtUpTimestamp: bigint }): QuorumReplica => ({
      replicaId: x.replicaId,
      logEndOffset: x.logEndOffset,
      lastCaughtUpTimestamp: x.lastCaughtUpTimestamp,
    });
    return {
      leaderId: p.leaderId,
      leaderEpoch: p.leaderEpoch,
      highWatermark: p.highWatermark,
      voters: p.currentVoters.map(replica),
      observers: p.observers.map(replica),
    };
  });
}

/**
 * Waits until a running controller reports a leader (other than `not`, with an epoch above
 * `afterEpoch`, when given) and returns what it said. Polls every controller every `intervalMs`.
 */
export async function waitForLeader(
  cluster: Cluster,
  opts: { not?: number; afterEpoch?: number; timeoutMs?: number; intervalMs?: number } = {},
): Promise<QuorumInfo> {
  return waitFor(
    async () => {
      for (const c of cluster.controllers.filter((n) => n.running())) {
        const q = await describeQuorum(c.controllerPort);
        if (
          q &&
          q.leaderId >= 0 &&
          q.leaderId !== opts.not &&
          q.leaderEpoch > (opts.afterEpoch ?? -1) &&
          cluster.node(q.leaderId).running()
        )
          return q;
      }
      return null;
    },
    { what: 'a quorum leader', timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: opts.intervalMs ?? 50 },
  );
}

export interface BrokerEntry {
  brokerId: number;
  isFenced: boolean;
}

/** DescribeCluster v2 with fenced brokers, asked of one broker (as `cluster list-endpoints --include-fenced-brokers`). */
export async function describeBrokers(brokerPort: number): Promise<BrokerEntry[] | null> {
  return ask(brokerPort, async (c) => {
    const r = await c.request(ApiKey.DescribeCluster, 2, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
      includeFencedBrokers: true,
    });
    if (r.errorCode !== 0) return null;
    return r.brokers
      .map((b) => ({ brokerId: b.brokerId, isFenced: b.isFenced }))
      .sort((a, b) => a.brokerId - b.brokerId);
  });
}

/**
 * Waits until a running broker lists every broker of the cluster (or `ids`) registered and
 * unfenced (DescribeCluster with fenced brokers); returns that list.
 */
export async function waitForUnfenced(
  cluster: Cluster,
  opts: { ids?: readonly number[]; timeoutMs?: number } = {},
): Promise<BrokerEntry[]> {
  const ids = opts.ids ?? cluster.brokers.map((b) => b.id);
  return waitFor(
    async () => {
      const b = cluster.brokers.find((n) => n.running());
      const list = b ? await describeBrokers(b.port) : null;
      return list && ids.every((id) => list.some((x) => x.brokerId === id && !x.isFenced)) ? list : null;
    },
    { what: `brokers ${ids.join(', ')} registered and unfenced`, timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 200 },
  );
}

/** Topic name → id as one broker's Metadata (v12) answers for `topics`; null if it does not answer. */
export async function topicIds(brokerPort: number, topics: readonly string[]): Promise<Map<string, string> | null> {
  return ask(brokerPort, async (c) => {
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: topics.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const out = new Map<string, string>();
    for (const t of md.topics) if (t.errorCode === 0 && t.name !== null) out.set(t.name, String(t.topicId));
    return out;
  });
}

/**
 * CreateTopics (v7) of one single-replica topic through a broker, retried (bounded) while the
 * cluster has no active controller; resolves with the error code of the last answer (0 = created).
 */
export async function createTopic(
  cluster: Cluster,
  name: string,
  opts: { partitions?: number; timeoutMs?: number } = {},
): Promise<number> {
  let last = -1;
  await waitFor(
    async () => {
      for (const b of cluster.brokers.filter((n) => n.running())) {
        const code = await ask(
          b.port,
          async (c) => {
            const r = await c.request(ApiKey.CreateTopics, 7, {
              topics: [
                { name, numPartitions: opts.partitions ?? 1, replicationFactor: 1, assignments: [], configs: [] },
              ],
              timeoutMs: 15_000,
              validateOnly: false,
            });
            return r.topics[0]?.errorCode ?? -1;
          },
          20_000,
        );
        if (code === null) continue;
        last = code;
        // 36 TOPIC_ALREADY_EXISTS after a retry whose first attempt was applied
        if (code === 0 || code === 36) return true;
      }
      return false;
    },
    { what: `topic ${name} to be created (last error ${last})`, timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 200 },
  );
  return last;
}
