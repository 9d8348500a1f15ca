// Starts a real `bin/tkafka server start` process with its data in a temp folder, waits until it
// serves, and stops it (SIGTERM) or kills it (SIGKILL).
//
// Ports: every listener is configured on port 0 (advertised listener and voter endpoint too), so
// the kernel picks a free port at bind time and nothing can take it between the pick and the bind.
// The broker logs one Kafka Acceptor line per listener, in `listeners` order ("Awaiting socket
// connections on 127.0.0.1:40123."), and this harness reads the ports from those lines.
// restart() brings the node back on the ports it had (a broker restarting on its configured
// ports, so clients reconnect to the same bootstrap address); if one of them was taken in the
// meantime, it starts on port 0 again and `port`/`bootstrap` change.
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './spec-models.js';
import { waitFor } from './wait-for.js';

export interface BrokerProcess {
  /** The PLAINTEXT listener's bound port (may change on restart, see above). */
  readonly port: number;
  /** pid of the running broker process (changes on restart). */
  pid: () => number | undefined;
  readonly controllerPort: number;
  readonly bootstrap: string;
  dataDir: string;
  output: () => string;
  stop(): Promise<void>;
  kill(): Promise<void>;
  restart(): Promise<void>;
  cleanup(): void;
}

export interface BrokerOptions {
  overrides?: Record<string, string | number | boolean>;
  dataDir?: string;
  /** node's own options (e.g. --cpu-prof), for benchmarks; passed in NODE_OPTIONS */
  nodeArgs?: readonly string[];
  /** Extra environment for the process (e.g. the launcher's MALLOC_ARENA_MAX, TKAFKA_NODE_OPTS). */
  env?: Readonly<Record<string, string>>;
  /** How long a start may take until "Kafka Server started" (default 60 s; more for thousands of partitions). */
  startTimeoutMs?: number;
}

/** Kafka's Acceptor line (SocketServer.openServerSocket), one per listener as it binds. */
export const ACCEPTOR_LINE = /Awaiting socket connections on (\S+):(\d+)\.$/gm;
/** The line `tkafka server start` writes once the node serves (Kafka's KafkaRaftServer line). */
const STARTED_LINE = /\] Kafka Server started/;

/** The bound port of each listener, by name, from the Acceptor lines of one start. */
export function boundPorts(output: string, listenerNames: readonly string[]): Map<string, number> | null {
  const ports = [...output.matchAll(ACCEPTOR_LINE)].map((m) => Number(m[2]));
  if (ports.length < listenerNames.length) return null;
  return new Map(listenerNames.map((n, i) => [n, ports[i]!]));
}

/** Listener names of a `listeners` value, in order. */
const listenerNames = (listeners: string): string[] =>
  listeners
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => l.slice(0, l.indexOf(':')).toUpperCase());

export async function startBroker(opts: BrokerOptions = {}): Promise<BrokerProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tkafka-it-'));
  const userOverrides: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.overrides ?? {})) userOverrides[k] = String(v);

  let port = 0;
  let controllerPort = 0;
  const overridesFor = (p: number, c: number): Record<string, string> => ({
    listeners: `PLAINTEXT://127.0.0.1:${p},CONTROLLER://127.0.0.1:${c}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${p}`,
    'controller.quorum.voters': `1@127.0.0.1:${c}`,
    'log.dirs': join(dataDir, 'logs'),
    ...userOverrides,
  });

  let child: ResultPromise | null = null;
  let out = '';
  let exitedWith: string | null = null;

  /** Starts the process on the given ports (0: ephemeral); resolves with false if a port was taken. */
  const launch = async (p: number, c: number): Promise<boolean> => {
    exitedWith = null;
    const from = out.length;
    const overrides = overridesFor(p, c);
    const args = ['server', 'start'];
    for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);
    // bin/tkafka itself, as a user runs it: its launcher line sets the memory options (README, Memory)
    const nodeOptions = [process.env.NODE_OPTIONS ?? '', ...(opts.nodeArgs ?? [])].join(' ').trim();
    const c0 = execa(join(REPO_ROOT, 'bin', 'tkafka'), args, {
      cwd: REPO_ROOT,
      all: true,
      reject: false,
      buffer: false,
      env: { ...opts.env, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
    });
    child = c0;
    c0.all?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    void c0.then((r) => {
      exitedWith = `exit ${r.exitCode ?? r.signal}\n${out.slice(-4000)}`;
    });
    const names = listenerNames(overrides.listeners);
    const started = await waitFor(
      () => {
        const since = out.slice(from);
        if (STARTED_LINE.test(since)) return { ok: true as const, since };
        if (exitedWith !== null) return { ok: false as const, since };
        return null;
      },
      { what: 'the broker to log "Kafka Server started"', timeoutMs: opts.startTimeoutMs ?? 60_000 },
    ).catch(async (e: Error) => {
      c0.kill('SIGKILL');
      await c0;
      child = null;
      throw new Error(`${e.message}; its output:\n${out.slice(from).slice(-4000)}`);
    });
    if (!started.ok) {
      await c0;
      child = null;
      if (/Socket server failed to bind to .*(EADDRINUSE|address already in use)/i.test(started.since)) return false;
      throw new Error(`broker exited before serving:\n${exitedWith}`);
    }
    const ports = boundPorts(started.since, names);
    if (!ports) throw new Error(`the broker did not log an Acceptor line per listener:\n${started.since}`);
    port = ports.get('PLAINTEXT') ?? 0;
    controllerPort = ports.get('CONTROLLER') ?? 0;
    // keep memory bounded in long tests; `from` offsets only matter during a launch
    if (out.length > 1_000_000) out = out.slice(-500_000);
    return true;
  };
  const waitExit = async () => {
    if (child) await child;
    child = null;
  };
  if (!(await launch(0, 0))) throw new Error('port 0 was refused');
  const handle: BrokerProcess = {
    get port() {
      return port;
    },
    pid: () => (child as { pid?: number } | null)?.pid,
    get controllerPort() {
      return controllerPort;
    },
    get bootstrap() {
      return `127.0.0.1:${port}`;
    },
    dataDir,
    output: () => out,
    async stop() {
      if (!child) return;
      child.kill('SIGTERM');
      await waitExit();
    },
    async kill() {
      if (!child) return;
      child.kill('SIGKILL');
      await waitExit();
    },
    async restart() {
      await handle.stop();
      if (await launch(port, controllerPort)) return;
      // a port was taken while the broker was down: come back on fresh ones
      if (!(await launch(0, 0))) throw new Error('port 0 was refused');
    },
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/**
 * A loopback port nothing listens on, for tests of an unreachable cluster. Not for binding: the
 * port is released before it is returned (a broker binds port 0 instead, see above).
 */
export async function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
