// `tkafka local start [-n N] [--controllers M] | stop | status | kill NODE | restart NODE`: a
// development cluster on this machine. Its nodes (combined broker+controller nodes, or dedicated
// controllers plus brokers: layout.ts) are `tkafka server start` processes on loopback ports;
// their configuration, data and logs live under one folder (default
// ${XDG_STATE_HOME:-~/.local/state}/tkafka/local, or --dir / TKAFKA_LOCAL_DIR). `start` prints the
// bootstrap string on stdout (so `export TKAFKA_BOOTSTRAP_SERVER=$(tkafka local start)` works) and
// details on stderr; it is idempotent while the cluster runs, and a stopped cluster restarts with
// its data. `status` exits 0 when every node runs, 1 when some do not, 3 when none does. `kill`
// and `restart` are for failure drills.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import type { ToolIO } from '../common/io.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';
import {
  bootstrapOf,
  brokersOf,
  defaultDir,
  formatArgs,
  isBroker,
  isController,
  nodeProperties,
  planNodes,
  portsOf,
  readState,
  rolesOf,
  writeState,
  type LocalNode,
  type LocalState,
  type QuorumMode,
} from './layout.js';
import {
  alive,
  awaitStarted,
  killNode,
  LocalError,
  logFileOf,
  pickPort,
  portFree,
  sleep,
  spawnNode,
  stopNode,
  stopNodes,
} from './processes.js';
import { status } from './status.js';

export { STATE_FILE, defaultDir, type LocalNode, type LocalState } from './layout.js';

export function buildParser(): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'tkafka local',
    description:
      'Run a local development cluster on loopback ports, with its configuration, data and logs under one folder: N nodes, each a broker and a KRaft controller, or (--controllers M) M controllers and N brokers. ' +
      'start prints the bootstrap string (e.g. 127.0.0.1:9092) on standard output.',
    epilog:
      'The folder is --dir, else TKAFKA_LOCAL_DIR, else ${XDG_STATE_HOME:-~/.local/state}/tkafka/local. Node i (1..M+N, controllers first) listens on PORT+2(i-1) (clients) and PORT+2(i-1)+1 (controller).',
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
      'Start the nodes on loopback ports and print the bootstrap string on standard output once every broker serves. Starting a running cluster only prints its bootstrap string.',
  });
  start.addArgument({
    flags: ['-n', '--nodes'],
    type: 'int',
    default: 1,
    metavar: 'N',
    help: 'number of brokers: combined broker+controller nodes, or broker-only nodes with --controllers (default: 1)',
  });
  start.addArgument({
    flags: ['--controllers'],
    type: 'int',
    default: 0,
    metavar: 'M',
    help: 'run M controller-only nodes (ids 1..M) and N broker-only nodes (ids M+1..M+N) instead of N combined nodes (default: 0, combined)',
  });
  start.addArgument({
    flags: ['--quorum'],
    choices: ['dynamic', 'static'],
    metavar: 'KIND',
    help: 'how a multi-node quorum is configured: dynamic (controller.quorum.bootstrap.servers, storage formatted with --initial-controllers, as Kafka 4.4 sets up a new cluster) or static (controller.quorum.voters). Default: dynamic; a single node always has a static voter',
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
    help: 'stop the cluster: brokers first, then controllers (SIGTERM, then SIGKILL after --timeout seconds)',
    description:
      'Stop the nodes of the local cluster in a controlled way: SIGTERM to the broker-only nodes, then (once they are gone) to the controllers; their data stays unless --clean is given.',
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
  const statusP = sub.addParser('status', {
    help: 'show the nodes: role, process, quorum state and lag, ports (exit 0: all running, 1: some, 3: none)',
    description:
      "Show the nodes of the local cluster: roles, process, quorum state (leader, follower or observer, with the leader epoch) and lag behind the leader's log end offset, from DescribeQuorum. Exit status 0 when every node runs, 1 when some do not, 3 when none does (or there is no cluster).",
  });
  statusP.addArgument({
    flags: ['--output'],
    choices: ['text', 'json'],
    default: 'text',
    help: 'output format (default: text)',
  });
  dir(statusP);
  const kill = sub.addParser('kill', {
    help: 'kill one node with SIGKILL (a failure drill)',
    description:
      'Kill node NODE of the local cluster with SIGKILL, as a crash would; restart it with tkafka local restart NODE.',
  });
  kill.addArgument({ flags: ['node'], type: 'int', metavar: 'NODE', help: 'the node id' });
  dir(kill);
  const restart = sub.addParser('restart', {
    help: 'restart one node (SIGTERM if it runs, then start it on its ports and data)',
    description:
      'Stop node NODE of the local cluster if it runs (SIGTERM, SIGKILL after --timeout seconds) and start it again with its configuration and data; returns once it serves.',
  });
  restart.addArgument({ flags: ['node'], type: 'int', metavar: 'NODE', help: 'the node id' });
  restart.addArgument({
    flags: ['--timeout'],
    type: 'int',
    default: 60,
    metavar: 'SECONDS',
    help: 'how long to wait for the stop and for the node to serve again (default: 60)',
  });
  dir(restart);
  return parser;
}

const silent = (): ToolIO & { text: () => string } => {
  let text = '';
  const w = new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) });
  return Object.assign(
    { stdout: w, stderr: w, stdin: process.stdin, env: {} as NodeJS.ProcessEnv },
    { text: () => text },
  ) as ToolIO & { text: () => string };
};

// ---- start ---------------------------------------------------------------------------------------

async function start(ns: Namespace, dir: string, io: ToolIO): Promise<number> {
  const n = ns.nodes as number;
  const m = ns.controllers as number;
  if (!Number.isInteger(n) || n < 1 || n > 32) throw new LocalError('--nodes must be between 1 and 32');
  if (!Number.isInteger(m) || m < 0 || m > 9) throw new LocalError('--controllers must be between 0 and 9');
  const total = n + m;
  const basePort = ns.port as number;
  if (basePort !== 0 && (basePort < 1 || basePort + 2 * total - 1 > 65535))
    throw new LocalError(`--port ${basePort} leaves no room for ${total} node(s)`);
  const overrides = ((ns.override as string[] | null) ?? []).map(String);
  for (const o of overrides) if (!o.includes('=')) throw new LocalError(`--override needs KEY=VALUE: ${o}`);
  const host = '127.0.0.1';
  const err = (s: string): void => void io.stderr.write(s + '\n');
  const shape = (s: LocalState): string => {
    const b = brokersOf(s).length;
    const c = s.nodes.length - b;
    return rolesOf(s.nodes[0]!) === 'broker,controller' ? `${s.nodes.length}-node` : `${c}-controller ${b}-broker`;
  };
  const wanted = m === 0 ? `${n}-node` : `${m}-controller ${n}-broker`;

  let state = readState(dir);
  if (state) {
    const running = state.nodes.filter((x) => alive(x.pid));
    if (running.length === state.nodes.length && state.nodes.length > 0) {
      if (shape(state) !== wanted)
        throw new LocalError(
          `a ${shape(state)} cluster is running in ${dir}; stop it first (tkafka local stop --dir ${dir})`,
        );
      err(`The local cluster in ${dir} is already running (${n} node${n > 1 ? 's' : ''}).`);
      io.stdout.write(`${state.bootstrap}\n`);
      return 0;
    }
    if (running.length > 0)
      throw new LocalError(
        `the local cluster in ${dir} is partly running (${running.length} of ${state.nodes.length} nodes); run tkafka local stop --dir ${dir} first`,
      );
    if (shape(state) !== wanted) {
      const flags = state.nodes.length - brokersOf(state).length;
      const again =
        rolesOf(state.nodes[0]!) === 'broker,controller'
          ? `-n ${state.nodes.length}`
          : `-n ${brokersOf(state).length} --controllers ${flags}`;
      throw new LocalError(
        `${dir} holds a ${shape(state)} cluster; start it with ${again}, or remove it (tkafka local stop --clean --dir ${dir})`,
      );
    }
  }

  mkdirSync(dir, { recursive: true });
  const fresh = !state;
  if (!state) {
    const { randomUuid } = await import('../../storage/meta-properties.js');
    const nodes = await planNodes({
      brokers: n,
      controllers: m,
      basePort,
      pick: () => pickPort(host),
      directoryId: randomUuid,
    });
    const quorum: QuorumMode = nodes.length === 1 ? 'static' : ((ns.quorum as QuorumMode | null) ?? 'dynamic');
    state = { version: 1, clusterId: randomUuid(), host, quorum, nodes, bootstrap: '', startedAt: null };
    state.bootstrap = bootstrapOf(state);
  }
  const picked = fresh && basePort === 0;
  if (!picked) {
    for (const node of state.nodes) {
      for (const p of portsOf(node)) {
        if (!(await portFree(host, p)))
          throw new LocalError(
            `port ${p} on ${host} is in use (choose other ports with --port, or --port 0 for free ones)`,
          );
      }
    }
  }

  const deadline = Date.now() + (ns.timeout as number) * 1000;
  for (let attempt = 1; ; attempt++) {
    const outcome = await launchNodes(dir, state, overrides, io, deadline, ns.timeout as number);
    if (outcome === 'started') break;
    if (outcome !== 'bind failed' || !picked || attempt === 3) {
      const logs = state.nodes.map((x) => logFileOf(dir, x)).join(', ');
      throw new LocalError(outcome === 'bind failed' ? `a node could not bind its ports; see ${logs}` : outcome);
    }
    // A picked controller port was taken between the pick and the bind: pick again, and format
    // again (a dynamic quorum's voters are written into the storage at format time).
    for (const node of state.nodes) {
      rmSync(join(dir, node.dir, 'data'), { recursive: true, force: true });
      node.brokerPort = 0;
      node.controllerPort = isController(node) && state.nodes.length > 1 ? await pickPort(host) : 0;
    }
  }
  state.bootstrap = bootstrapOf(state);
  writeState(dir, state);
  // the ports bound on port 0 into each node's file, so `local restart NODE` brings it back on them
  for (const node of state.nodes)
    writeFileSync(join(dir, node.dir, 'server.properties'), nodeProperties(dir, state, node, overrides));
  const joined = await waitForBrokers(state, deadline);

  err(`Started a ${shape(state)} local cluster (cluster id ${state.clusterId}) in ${dir}:`);
  for (const node of state.nodes) {
    const listens = [
      ...(isBroker(node) ? [`clients ${host}:${node.brokerPort}`] : []),
      ...(rolesOf(node) !== 'broker' ? [`controller ${host}:${node.controllerPort}`] : []),
    ].join(', ');
    const role = state.nodes.length > 1 ? ` (${rolesOf(node)})` : '';
    err(`  node ${node.id}${role}: pid ${node.pid}, ${listens}, log ${logFileOf(dir, node)}`);
  }
  if (!joined)
    err(
      'Note: the brokers did not form one cluster within 5 s (the first broker does not list them all in its metadata): multi-node quorums are being built (issue 14); the bootstrap string lists all of them.',
    );
  err(
    `Use it with: export TKAFKA_BOOTSTRAP_SERVER=${state.bootstrap}   Stop it with: tkafka local stop${dir === defaultDir(io.env) ? '' : ` --dir ${dir}`}`,
  );
  io.stdout.write(`${state.bootstrap}\n`);
  return 0;
}

/**
 * Writes each node's configuration, formats its storage, starts every process at once (a
 * controller waits for its quorum, a broker for the controllers) and waits until every node logs
 * that it serves; the ports each bound are read from its log into `state`. Resolves 'started',
 * or (after stopping the nodes) the reason a node failed; a bind failure is retried by the
 * caller when it picked the ports.
 */
async function launchNodes(
  dir: string,
  state: LocalState,
  overrides: readonly string[],
  io: ToolIO,
  deadline: number,
  timeoutS: number,
): Promise<'started' | string> {
  const storage = await import('../storage/main.js');
  for (const node of state.nodes) {
    const nodeDir = join(dir, node.dir);
    mkdirSync(nodeDir, { recursive: true });
    const props = join(nodeDir, 'server.properties');
    writeFileSync(props, nodeProperties(dir, state, node, overrides));
    const out = silent();
    const code = await storage.run(['format', '-t', state.clusterId, '-c', props, ...formatArgs(state, node)], out);
    if (code !== 0) throw new LocalError(`formatting ${nodeDir} failed: ${out.text().trim()}`);
  }
  const from = new Map<number, number>();
  for (const node of state.nodes) from.set(node.id, spawnNode(dir, node, io.env));
  state.startedAt = new Date().toISOString();
  writeState(dir, state);
  const outcomes = await Promise.all(
    state.nodes.map((node) => awaitStarted(dir, node, from.get(node.id)!, deadline, timeoutS)),
  );
  const failed = outcomes.find((o) => o !== 'started');
  if (failed === undefined) return 'started';
  await stopNodes(dir, state, 5, io);
  return outcomes.includes('bind failed') ? 'bind failed' : failed;
}

/**
 * Waits (bounded) until every broker answers Metadata, then (briefly) until the first broker's
 * metadata lists every broker. Returns false when the brokers did not form one cluster.
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
  const addresses = brokersOf(state).map((x) => `${state.host}:${x.brokerPort}`);
  for (const a of addresses) {
    while ((await ask(a)) === null) {
      if (Date.now() > deadline) throw new LocalError(`${a} does not answer Metadata requests`);
      await sleep(200);
    }
  }
  const joinBy = Math.min(deadline, Date.now() + 5000);
  for (;;) {
    if (((await ask(addresses[0]!)) ?? 0) >= addresses.length) return true;
    if (Date.now() > joinBy) return false;
    await sleep(200);
  }
}

// ---- stop, kill, restart -----------------------------------------------------------------------

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

function nodeOf(dir: string, id: number): { state: LocalState; node: LocalNode } {
  const state = readState(dir);
  if (!state) throw new LocalError(`no local cluster in ${dir}`);
  const node = state.nodes.find((x) => x.id === id);
  if (!node)
    throw new LocalError(
      `the local cluster in ${dir} has no node ${id} (nodes: ${state.nodes.map((x) => x.id).join(', ')})`,
    );
  return { state, node };
}

async function kill(ns: Namespace, dir: string, io: ToolIO): Promise<number> {
  const { state, node } = nodeOf(dir, ns.node as number);
  if (!alive(node.pid)) {
    io.stderr.write(`Node ${node.id} is not running.\n`);
    return 1;
  }
  const pid = node.pid;
  await killNode(node);
  if (alive(node.pid)) throw new LocalError(`node ${node.id} (pid ${pid}) is still running after SIGKILL`);
  node.pid = null;
  writeState(dir, state);
  io.stderr.write(`Killed node ${node.id} (pid ${pid}) with SIGKILL.\n`);
  return 0;
}

async function restart(ns: Namespace, dir: string, io: ToolIO): Promise<number> {
  const { state, node } = nodeOf(dir, ns.node as number);
  const timeoutS = ns.timeout as number;
  if (alive(node.pid)) await stopNode(node, timeoutS, io);
  for (const p of portsOf(node))
    if (!(await portFree(state.host, p)))
      throw new LocalError(`port ${p} of node ${node.id} on ${state.host} is in use`);
  const from = spawnNode(dir, node, io.env);
  writeState(dir, state);
  const outcome = await awaitStarted(dir, node, from, Date.now() + timeoutS * 1000, timeoutS);
  if (outcome !== 'started') {
    await stopNode(node, 5, io);
    writeState(dir, state);
    throw new LocalError(outcome === 'bind failed' ? `node ${node.id} could not bind its ports` : outcome);
  }
  writeState(dir, state);
  io.stderr.write(`Restarted node ${node.id} (pid ${node.pid}).\n`);
  return 0;
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
        return await status(ns.output === 'json', dir, io);
      case 'kill':
        return await kill(ns, dir, io);
      case 'restart':
        return await restart(ns, dir, io);
      default:
        io.stderr.write(
          parser.formatUsage() + 'tkafka local: error: choose a command: start, stop, status, kill or restart\n',
        );
        return 1;
    }
  } catch (e) {
    io.stderr.write(`tkafka local: ${(e as Error).message}\n`);
    return 1;
  }
}
