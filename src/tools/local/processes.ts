// The node processes of a `tkafka local` cluster: each a detached `tkafka server start <props>`
// with its output appended to <node>/server.log; started, awaited (its "Kafka Server started"
// line, its Acceptor lines for the bound ports), stopped in order (brokers first, then the
// controllers, as Kafka's docs stop a cluster), killed and restarted one by one.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import type { ToolIO } from '../common/io.js';
import { PACKAGE_ROOT } from '../common/package-root.js';
import { isBroker, isController, writeState, type LocalNode, type LocalState } from './layout.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'tkafka');

export class LocalError extends Error {}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A running `tkafka server start` (a recycled pid running something else does not count). */
export function alive(pid: number | null): boolean {
  if (pid === null || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Guard against a recycled pid: on Linux, the command line must be a `server start`; a zombie is gone.
  if (existsSync('/proc/self/cmdline')) {
    try {
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false;
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return args.includes('server') && args.includes('start');
    } catch {
      return false;
    }
  }
  return true;
}

export function listening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
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

export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolveP) => {
    const s = createServer();
    s.once('error', () => resolveP(false));
    s.listen(port, host, () => s.close(() => resolveP(true)));
  });
}

/** A port free now; only for controller ports of multi-node clusters (the quorum needs them up front), retried on a bind failure. */
export function pickPort(host: string): Promise<number> {
  return new Promise((resolveP, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolveP(p));
    });
  });
}

export function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export const logFileOf = (dir: string, node: LocalNode): string => join(dir, node.dir, 'server.log');

/** Kafka's Acceptor line, one per listener in `listeners` order (PLAINTEXT, then CONTROLLER). */
const ACCEPTOR_LINE = /Awaiting socket connections on \S+:(\d+)\.$/gm;
const STARTED_LINE = /\] Kafka Server started/;
const BIND_FAILED = /Socket server failed to bind to /;

/** Starts a node's process, detached; returns where its log of this start begins. */
export function spawnNode(dir: string, node: LocalNode, env: NodeJS.ProcessEnv): number {
  const nodeDir = join(dir, node.dir);
  const logFile = logFileOf(dir, node);
  const from = existsSync(logFile) ? readFileSync(logFile).length : 0;
  const childEnv = { ...env };
  delete childEnv.TKAFKA_NO_TTY;
  const log = openSync(logFile, 'a');
  try {
    const child = spawn(process.execPath, [BIN, 'server', 'start', join(nodeDir, 'server.properties')], {
      cwd: nodeDir,
      detached: true,
      stdio: ['ignore', log, log],
      env: childEnv,
    });
    child.unref();
    node.pid = child.pid ?? null;
  } finally {
    closeSync(log);
  }
  return from;
}

/**
 * Waits until the node logs "Kafka Server started" (since `from`) and reads the ports it bound
 * into `node`. Resolves 'started', 'bind failed', or why it did not start (the process is left
 * to the caller).
 */
export async function awaitStarted(
  dir: string,
  node: LocalNode,
  from: number,
  deadline: number,
  timeoutS: number,
): Promise<'started' | 'bind failed' | string> {
  const logFile = logFileOf(dir, node);
  const since = (): string => (existsSync(logFile) ? readFileSync(logFile).subarray(from).toString() : '');
  for (;;) {
    const text = since();
    if (STARTED_LINE.test(text)) {
      const ports = [...text.matchAll(ACCEPTOR_LINE)].map((m) => Number(m[1]));
      if (isBroker(node)) node.brokerPort = ports.shift() ?? node.brokerPort;
      if (isController(node)) node.controllerPort = ports.shift() ?? node.controllerPort;
      return 'started';
    }
    if (!alive(node.pid)) {
      if (BIND_FAILED.test(since())) return 'bind failed';
      return `node ${node.id} exited during startup; last lines of ${logFile}:\n${tail(logFile)}`;
    }
    if (Date.now() > deadline) return `node ${node.id} did not start serving within ${timeoutS} s; see ${logFile}`;
    await sleep(100);
  }
}

/** SIGTERM, then SIGKILL after `timeoutS`; waits until the process is gone. */
async function stopOne(node: LocalNode, timeoutS: number, io: ToolIO): Promise<void> {
  if (!alive(node.pid)) return;
  process.kill(node.pid!, 'SIGTERM');
  const deadline = Date.now() + timeoutS * 1000;
  while (alive(node.pid) && Date.now() < deadline) await sleep(100);
  if (alive(node.pid)) {
    io.stderr.write(`node ${node.id} (pid ${node.pid}) did not stop within ${timeoutS} s: killing it\n`);
    killOne(node);
    for (let i = 0; i < 50 && alive(node.pid); i++) await sleep(100);
  }
}

export function killOne(node: LocalNode): void {
  try {
    process.kill(node.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Kills a node with SIGKILL and waits (bounded) until it is gone. */
export async function killNode(node: LocalNode): Promise<void> {
  if (!alive(node.pid)) return;
  killOne(node);
  for (let i = 0; i < 100 && alive(node.pid); i++) await sleep(50);
}

/** Stops one node (controlled: SIGTERM), SIGKILL after `timeoutS`. */
export async function stopNode(node: LocalNode, timeoutS: number, io: ToolIO): Promise<void> {
  await stopOne(node, timeoutS, io);
  node.pid = null;
}

/**
 * Stops every node: the broker-only nodes first (their controlled shutdown needs the
 * controllers), then the others; each group at once. Returns how many had a process.
 */
export async function stopNodes(dir: string, state: LocalState, timeoutS: number, io: ToolIO): Promise<number> {
  let stopped = 0;
  const brokersOnly = state.nodes.filter((n) => !isController(n));
  const rest = state.nodes.filter((n) => isController(n));
  for (const group of [brokersOnly, rest]) {
    await Promise.all(group.map((n) => stopOne(n, timeoutS, io)));
    for (const n of group) {
      if (n.pid !== null) stopped++;
      n.pid = null;
    }
  }
  state.startedAt = null;
  if (existsSync(dir)) writeState(dir, state);
  return stopped;
}
