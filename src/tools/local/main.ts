// `tkafka local start [-n N] | stop | status`: a development cluster on this machine. N processes,
// each a broker and a KRaft controller (`tkafka server start`), listen on loopback ports; their
// configuration, data and logs live under one folder (default
// ${XDG_STATE_HOME:-~/.local/state}/tkafka/local, or --dir / TKAFKA_LOCAL_DIR). `start` prints the
// bootstrap string on stdout (so `export TKAFKA_BOOTSTRAP_SERVER=$(tkafka local start)` works) and
// details on stderr; it is idempotent while the cluster runs, and a stopped cluster restarts with
// its data. `status` exits 0 when every node runs, 1 when some do not, 3 when none does.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ToolIO } from '../common/io.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';

export const STATE_FILE = 'cluster.json';
const BIN = fileURLToPath(new URL('../../../../bin/tkafka', import.meta.url));

export interface LocalNode {
  id: number;
  brokerPort: number;
  controllerPort: number;
  pid: number | null;
  /** Relative to the cluster folder. */
  dir: string;
}

export interface LocalState {
  version: 1;
  clusterId: string;
  host: string;
  nodes: LocalNode[];
  bootstrap: string;
  startedAt: string | null;
}

export function defaultDir(env: NodeJS.ProcessEnv): string {
  if (env.TKAFKA_LOCAL_DIR) return resolve(env.TKAFKA_LOCAL_DIR);
  const state =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/')
      ? env.XDG_STATE_HOME
      : join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'tkafka', 'local');
}

export function buildParser(): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'tkafka local',
    description:
      'Run a local development cluster: N processes, each a broker and a KRaft controller, on loopback ports, with their configuration, data and logs under one folder. ' +
      'start prints the bootstrap string (e.g. 127.0.0.1:9092) on standard output.',
    epilog:
      'The folder is --dir, else TKAFKA_LOCAL_DIR, else ${XDG_STATE_HOME:-~/.local/state}/tkafka/local. Node i (1..N) listens on PORT+2(i-1) (clients) and PORT+2(i-1)+1 (controller).',
  });
  const sub = parser.addSubparsers({ dest: 'command' });
  const dir = (p: ArgumentParser): void => {
    p.addArgument({
      flags: ['--dir'],
      metavar: 'DIR',
      help: 'the cluster folder (default: TKAFKA_LOCAL_DIR or ~/.local/state/tkafka/local)',
    });
  };
  const start = sub.addParser('start', {
    help: 'start the cluster (or restart a stopped one with its data) and print the bootstrap string',
    description:
      'Start N broker+controller processes on loopback ports and print the bootstrap string on standard output. Starting a running cluster only prints its bootstrap string.',
  });
  start.addArgument({
    flags: ['-n', '--nodes'],
    type: 'int',
    default: 1,
    metavar: 'N',
    help: 'number of nodes, each a broker and a controller (default: 1)',
  });
  start.addArgument({
    flags: ['--port'],
    type: 'int',
    default: 9092,
    metavar: 'PORT',
    help: 'client port of node 1; node i uses PORT+2(i-1) and PORT+2(i-1)+1 (controller); 0 picks free ports (default: 9092)',
  });
  start.addArgument({
    flags: ['--override'],
    action: 'append',
    metavar: 'KEY=VALUE',
    help: 'a server.properties setting for every node (repeatable)',
  });
  start.addArgument({
    flags: ['--timeout'],
    type: 'int',
    default: 60,
    metavar: 'SECONDS',
    help: 'how long to wait for the nodes to serve (default: 60)',
  });
  dir(start);
  const stop = sub.addParser('stop', {
    help: 'stop the cluster (SIGTERM, then SIGKILL after --timeout seconds)',
    description: 'Stop the nodes of the local cluster; their data stays unless --clean is given.',
  });
  stop.addArgument({
    flags: ['--clean'],
    action: 'storeTrue',
    help: 'also delete the cluster folder (configuration, data and logs)',
  });
  stop.addArgument({
    flags: ['--timeout'],
    type: 'int',
    default: 20,
    metavar: 'SECONDS',
    help: 'how long to wait for a clean shutdown before SIGKILL (default: 20)',
  });
  dir(stop);
  const status = sub.addParser('status', {
    help: 'show the nodes, their processes and ports (exit 0: all running, 1: some, 3: none)',
    description:
      'Show the nodes of the local cluster. Exit status 0 when every node runs, 1 when some do not, 3 when none does (or there is no cluster).',
  });
  status.addArgument({
    flags: ['--output'],
    choices: ['text', 'json'],
    default: 'text',
    help: 'output format (default: text)',
  });
  dir(status);
  return parser;
}

// ---- process and port checks ----------------------------------------------------------------------

function alive(pid: number | null): boolean {
  if (pid === null || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Guard against a recycled pid: on Linux, the command line must be a `server start` of this folder.
  const cmdline = `/proc/${pid}/cmdline`;
  if (existsSync('/proc/self/cmdline')) {
    try {
      const args = readFileSync(cmdline, 'utf8').split('\0');
      return args.includes('server') && args.includes('start');
    } catch {
      return false;
    }
  }
  return true;
}

function listening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolveP) => {
    const s = connect({ host, port });
    const done = (ok: boolean): void => {
      s.destroy();
      resolveP(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolveP) => {
    const s = createServer();
    s.once('error', () => resolveP(false));
    s.listen(port, host, () => s.close(() => resolveP(true)));
  });
}

/** A port free now; only for controller ports of multi-node clusters (static voters), retried on a bind failure. */
function pickPort(host: string): Promise<number> {
  return new Promise((resolveP, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolveP(p));
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---- state ---------------------------------------------------------------------------------------

function readState(dir: string): LocalState | null {
  const f = join(dir, STATE_FILE);
  if (!existsSync(f)) return null;
  try {
    const s = JSON.parse(readFileSync(f, 'utf8')) as LocalState;
    return s && Array.isArray(s.nodes) ? s : null;
  } catch {
    return null;
  }
}

function writeState(dir: string, s: LocalState): void {
  writeFileSync(join(dir, STATE_FILE), JSON.stringify(s, null, 2) + '\n');
}

function nodeProperties(dir: string, state: LocalState, node: LocalNode, overrides: readonly string[]): string {
  const n = state.nodes.length;
  const voters = state.nodes.map((x) => `${x.id}@${state.host}:${x.controllerPort}`).join(',');
  const rf = Math.min(n, 3);
  const lines = [
    '# Written by `tkafka local start`; edits are kept until the next start with different settings.',
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `listeners=PLAINTEXT://${state.host}:${node.brokerPort},CONTROLLER://${state.host}:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://${state.host}:${node.brokerPort}`,
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `controller.quorum.voters=${voters}`,
    `log.dirs=${join(dir, node.dir, 'data')}`,
    'num.partitions=1',
    `offsets.topic.replication.factor=${rf}`,
    `transaction.state.log.replication.factor=${rf}`,
    `transaction.state.log.min.isr=${Math.min(rf, 2)}`,
    'group.initial.rebalance.delay.ms=0',
    ...overrides,
  ];
  return lines.join('\n') + '\n';
}

const silent = (): ToolIO => {
  let text = '';
  const w = new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) });
  return Object.assign(
    { stdout: w, stderr: w, stdin: process.stdin, env: {} as NodeJS.ProcessEnv },
    { text: () => text },
  ) as ToolIO;
};

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

class LocalError extends Error {}

// ---- commands ------------------------------------------------------------------------------------

async function start(ns: Namespace, dir: string, io: ToolIO): Promise<number> {
  const n = ns.nodes as number;
  if (!Number.isInteger(n) || n < 1 || n > 32) throw new LocalError('--nodes must be between 1 and 32');
  const basePort = ns.port as number;
  if (basePort !== 0 && (basePort < 1 || basePort + 2 * n - 1 > 65535))
    throw new LocalError(`--port ${basePort} leaves no room for ${n} node(s)`);
  const overrides = ((ns.override as string[] | null) ?? []).map(String);
  for (const o of overrides) if (!o.includes('=')) throw new LocalError(`--override needs KEY=VALUE: ${o}`);
  const host = '127.0.0.1';
  const err = (s: string): void => void io.stderr.write(s + '\n');

  let state = readState(dir);
  if (state) {
    const running = state.nodes.filter((x) => alive(x.pid));
    if (running.length === state.nodes.length && state.nodes.length > 0) {
      if (state.nodes.length !== n)
        throw new LocalError(
          `a ${state.nodes.length}-node cluster is running in ${dir}; stop it first (tkafka local stop --dir ${dir})`,
        );
      err(`The local cluster in ${dir} is already running (${n} node${n > 1 ? 's' : ''}).`);
      io.stdout.write(`${state.bootstrap}\n`);
      return 0;
    }
    if (running.length > 0)
      throw new LocalError(
        `the local cluster in ${dir} is partly running (${running.length} of ${state.nodes.length} nodes); run tkafka local stop --dir ${dir} first`,
      );
    if (state.nodes.length !== n)
      throw new LocalError(
        `${dir} holds a ${state.nodes.length}-node cluster; start it with -n ${state.nodes.length}, or remove it (tkafka local stop --clean --dir ${dir})`,
      );
  }

  mkdirSync(dir, { recursive: true });
  if (!state) {
    const { randomUuid } = await import('../../storage/meta-properties.js');
    // --port 0: client listeners bind port 0 and the ports are read from each node's log. The
    // controller listener of a single node too (voter 1@host:0); with several nodes the static
    // voter list needs the controller ports up front, so they are picked, and re-picked if a
    // bind fails (below).
    const nodes: LocalNode[] = [];
    for (let i = 1; i <= n; i++) {
      const bp = basePort === 0 ? 0 : basePort + 2 * (i - 1);
      const cp = basePort === 0 ? (n === 1 ? 0 : await pickPort(host)) : basePort + 2 * (i - 1) + 1;
      nodes.push({ id: i, brokerPort: bp, controllerPort: cp, pid: null, dir: `node-${i}` });
    }
    state = {
      version: 1,
      clusterId: randomUuid(),
      host,
      nodes,
      bootstrap: nodes.map((x) => `${host}:${x.brokerPort}`).join(','),
      startedAt: null,
    };
  }
  const picked = state.nodes.some((x) => x.brokerPort === 0);
  for (const node of state.nodes) {
    for (const p of [node.brokerPort, node.controllerPort]) {
      if (p !== 0 && !picked && !(await portFree(host, p)))
        throw new LocalError(
          `port ${p} on ${host} is in use (choose other ports with --port, or --port 0 for free ones)`,
        );
    }
  }

  const deadline = Date.now() + (ns.timeout as number) * 1000;
  for (let attempt = 1; ; attempt++) {
    const outcome = await launchNodes(dir, state, overrides, io, deadline, ns.timeout as number);
    if (outcome === 'started') break;
    if (outcome !== 'bind failed' || !picked || attempt === 3) {
      const logs = state.nodes.map((x) => join(dir, x.dir, 'server.log')).join(', ');
      throw new LocalError(outcome === 'bind failed' ? `a node could not bind its ports; see ${logs}` : outcome);
    }
    // a picked controller port was taken between the pick and the bind: pick again
    for (const node of state.nodes) {
      node.brokerPort = 0;
      node.controllerPort = n === 1 ? 0 : await pickPort(host);
    }
  }
  state.bootstrap = state.nodes.map((x) => `${host}:${x.brokerPort}`).join(',');
  writeState(dir, state);
  const joined = await waitForBrokers(state, deadline);

  err(`Started a ${n}-node local cluster (cluster id ${state.clusterId}) in ${dir}:`);
  for (const node of state.nodes)
    err(
      `  node ${node.id}: pid ${node.pid}, clients ${host}:${node.brokerPort}, controller ${host}:${node.controllerPort}, log ${join(dir, node.dir, 'server.log')}`,
    );
  if (!joined)
    err(
      'Note: the nodes did not form one cluster: each runs its own controller quorum until tkafka supports multi-node quorums and replication; the bootstrap string lists all of them.',
    );
  err(
    `Use it with: export TKAFKA_BOOTSTRAP_SERVER=${state.bootstrap}   Stop it with: tkafka local stop${dir === defaultDir(io.env) ? '' : ` --dir ${dir}`}`,
  );
  io.stdout.write(`${state.bootstrap}\n`);
  return 0;
}

/** Kafka's Acceptor line, one per listener in `listeners` order (PLAINTEXT, then CONTROLLER). */
const ACCEPTOR_LINE = /Awaiting socket connections on \S+:(\d+)\.$/gm;
const STARTED_LINE = /\] Kafka Server started/;
const BIND_FAILED = /Socket server failed to bind to /;

/**
 * Writes each node's configuration, formats its storage, starts the processes and waits until
 * every node logs that it serves; the ports each bound are read from its log into `state`.
 * Resolves 'started', or (after stopping the nodes) the reason a node failed; a bind failure is
 * retried by the caller when it picked the ports.
 */
async function launchNodes(
  dir: string,
  state: LocalState,
  overrides: readonly string[],
  io: ToolIO,
  deadline: number,
  timeoutS: number,
): Promise<'started' | string> {
  // Configuration and storage (formatted once, with the cluster id all nodes share).
  const storage = await import('../storage/main.js');
  for (const node of state.nodes) {
    const nodeDir = join(dir, node.dir);
    mkdirSync(nodeDir, { recursive: true });
    const props = join(nodeDir, 'server.properties');
    writeFileSync(props, nodeProperties(dir, state, node, overrides));
    const out = silent();
    const code = await storage.run(['format', '-t', state.clusterId, '-c', props, '--ignore-formatted'], out);
    if (code !== 0)
      throw new LocalError(`formatting ${nodeDir} failed: ${(out as unknown as { text: () => string }).text().trim()}`);
  }

  // Processes: detached, output appended to <node>/server.log (read from where this start begins).
  const env = { ...io.env };
  delete env.TKAFKA_NO_TTY;
  const logFrom = new Map<number, number>();
  for (const node of state.nodes) {
    const nodeDir = join(dir, node.dir);
    const logFile = join(nodeDir, 'server.log');
    logFrom.set(node.id, existsSync(logFile) ? readFileSync(logFile).length : 0);
    const log = openSync(logFile, 'a');
    try {
      const child = spawn(process.execPath, [BIN, 'server', 'start', join(nodeDir, 'server.properties')], {
        cwd: nodeDir,
        detached: true,
        stdio: ['ignore', log, log],
        env,
      });
      child.unref();
      node.pid = child.pid ?? null;
    } finally {
      closeSync(log);
    }
  }
  state.startedAt = new Date().toISOString();
  writeState(dir, state);

  // Wait until every node logs "Kafka Server started"; its Acceptor lines give the bound ports.
  for (const node of state.nodes) {
    const logFile = join(dir, node.dir, 'server.log');
    const since = (): string => readFileSync(logFile).subarray(logFrom.get(node.id)).toString();
    for (;;) {
      const text = since();
      if (STARTED_LINE.test(text)) {
        const ports = [...text.matchAll(ACCEPTOR_LINE)].map((m) => Number(m[1]));
        node.brokerPort = ports[0] ?? node.brokerPort;
        node.controllerPort = ports[1] ?? node.controllerPort;
        break;
      }
      if (!alive(node.pid)) {
        await stopNodes(dir, state, 5, io);
        if (BIND_FAILED.test(since())) return 'bind failed';
        return `node ${node.id} exited during startup; last lines of ${logFile}:\n${tail(logFile)}`;
      }
      if (Date.now() > deadline) {
        await stopNodes(dir, state, 5, io);
        return `node ${node.id} did not start serving within ${timeoutS} s; see ${logFile}`;
      }
      await sleep(100);
    }
  }
  return 'started';
}

/**
 * Waits (bounded) until every node answers Metadata, then (briefly) until node 1's metadata lists
 * every node as a broker. Returns false when the nodes did not form one cluster.
 */
async function waitForBrokers(state: LocalState, deadline: number): Promise<boolean> {
  const { KafkaClient } = await import('../../client/client.js');
  const ask = async (address: string): Promise<number | null> => {
    const client = new KafkaClient({
      bootstrapServers: [address],
      connectTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      apiTimeoutMs: 3000,
    });
    try {
      return (await client.metadata({ refresh: true })).brokers.size;
    } catch {
      return null;
    } finally {
      client.close();
    }
  };
  const addresses = state.nodes.map((x) => `${state.host}:${x.brokerPort}`);
  for (const a of addresses) {
    while ((await ask(a)) === null) {
      if (Date.now() > deadline) throw new LocalError(`${a} does not answer Metadata requests`);
      await sleep(200);
    }
  }
  const joinBy = Math.min(deadline, Date.now() + 5000);
  for (;;) {
    if (((await ask(addresses[0]!)) ?? 0) >= state.nodes.length) return true;
    if (Date.now() > joinBy) return false;
    await sleep(200);
  }
}

async function stopNodes(dir: string, state: LocalState, timeoutS: number, io: ToolIO): Promise<number> {
  let stopped = 0;
  for (const node of state.nodes) if (alive(node.pid)) process.kill(node.pid!, 'SIGTERM');
  const deadline = Date.now() + timeoutS * 1000;
  for (const node of state.nodes) {
    while (alive(node.pid) && Date.now() < deadline) await sleep(100);
    if (alive(node.pid)) {
      io.stderr.write(`node ${node.id} (pid ${node.pid}) did not stop within ${timeoutS} s: killing it\n`);
      try {
        process.kill(node.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      for (let i = 0; i < 50 && alive(node.pid); i++) await sleep(100);
    }
    if (node.pid !== null) stopped++;
    node.pid = null;
  }
  state.startedAt = null;
  if (existsSync(dir)) writeState(dir, state);
  return stopped;
}

async function stop(ns: Namespace, dir: string, io: ToolIO): Promise<number> {
  const state = readState(dir);
  if (!state) {
    io.stderr.write(`No local cluster in ${dir}.\n`);
    return 0;
  }
  const running = state.nodes.filter((x) => alive(x.pid)).length;
  await stopNodes(dir, state, ns.timeout as number, io);
  io.stderr.write(
    running
      ? `Stopped the local cluster in ${dir} (${running} node${running > 1 ? 's' : ''}).\n`
      : `The local cluster in ${dir} was not running.\n`,
  );
  if (ns.clean === true) {
    rmSync(dir, { recursive: true, force: true });
    io.stderr.write(`Removed ${dir}.\n`);
  }
  return 0;
}

async function status(ns: Namespace, dir: string, io: ToolIO): Promise<number> {
  const state = readState(dir);
  const nodes = await Promise.all(
    (state?.nodes ?? []).map(async (x) => {
      const running = alive(x.pid);
      const serving = running && (await listening(state!.host, x.brokerPort));
      return {
        ...x,
        pid: running ? x.pid : null,
        state: serving ? 'running' : running ? 'starting' : 'stopped',
        data: join(dir, x.dir),
      };
    }),
  );
  const up = nodes.filter((x) => x.state === 'running').length;
  const code = state === null || up === 0 ? 3 : up === nodes.length ? 0 : 1;
  if (ns.output === 'json') {
    io.stdout.write(
      JSON.stringify({
        dir,
        clusterId: state?.clusterId ?? null,
        bootstrap: state?.bootstrap ?? null,
        running: code === 0,
        nodes: nodes.map((x) => ({
          id: x.id,
          pid: x.pid,
          state: x.state,
          broker: `${state!.host}:${x.brokerPort}`,
          controller: `${state!.host}:${x.controllerPort}`,
          data: x.data,
        })),
      }) + '\n',
    );
    return code;
  }
  if (!state) {
    io.stdout.write(`No local cluster in ${dir} (start one with: tkafka local start)\n`);
    return code;
  }
  const rows = [
    ['NODE', 'PID', 'STATE', 'BROKER', 'CONTROLLER', 'DATA'],
    ...nodes.map((x) => [
      String(x.id),
      x.pid === null ? '-' : String(x.pid),
      x.state,
      `${state.host}:${x.brokerPort}`,
      `${state.host}:${x.controllerPort}`,
      x.data,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    io.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ') + '\n');
  io.stdout.write(`Cluster id: ${state.clusterId}\nBootstrap: ${state.bootstrap}\n`);
  return code;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const parser = buildParser();
  const parsed = parseOrExit(parser, argv, io);
  if ('exitCode' in parsed) return parsed.exitCode;
  const ns = parsed.ns;
  const dir = typeof ns.dir === 'string' ? resolve(ns.dir) : defaultDir(io.env);
  try {
    switch (ns.command) {
      case 'start':
        return await start(ns, dir, io);
      case 'stop':
        return await stop(ns, dir, io);
      case 'status':
        return await status(ns, dir, io);
      default:
        io.stderr.write(parser.formatUsage() + 'tkafka local: error: choose a command: start, stop or status\n');
        return 1;
    }
  } catch (e) {
    io.stderr.write(`tkafka local: ${(e as Error).message}\n`);
    return 1;
  }
}
