// Starts a real `bin/tkafka server start` process on free loopback ports with its data in a
// temp folder, waits until it serves, and stops it (SIGTERM) or kills it (SIGKILL).
import { execa, type ResultPromise } from 'execa';
import { createServer, connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './spec-models.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface BrokerProcess {
  port: number;
  /** pid of the running broker process (changes on restart). */
  pid: () => number | undefined;
  controllerPort: number;
  bootstrap: string;
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
}

async function waitForPort(port: number, deadline: number, exited: () => string | null): Promise<void> {
  while (Date.now() < deadline) {
    const gone = exited();
    if (gone !== null) throw new Error(`broker exited before serving:\n${gone}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`broker did not listen on ${port} in time`);
}

export async function startBroker(opts: BrokerOptions = {}): Promise<BrokerProcess> {
  const port = await freePort();
  const controllerPort = await freePort();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tkafka-it-'));
  const overrides: Record<string, string> = {
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.quorum.voters': `1@127.0.0.1:${controllerPort}`,
    'log.dirs': join(dataDir, 'logs'),
  };
  for (const [k, v] of Object.entries(opts.overrides ?? {})) overrides[k] = String(v);
  const args = ['bin/tkafka', 'server', 'start'];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);

  let child: ResultPromise | null = null;
  let out = '';
  let exitedWith: string | null = null;
  const launch = async () => {
    exitedWith = null;
    const c = execa('node', args, { cwd: REPO_ROOT, all: true, reject: false, buffer: false });
    child = c;
    c.all?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.length > 1_000_000) out = out.slice(-500_000);
    });
    void c.then((r) => {
      exitedWith = `exit ${r.exitCode ?? r.signal}\n${out.slice(-4000)}`;
    });
    await waitForPort(port, Date.now() + 30_000, () => exitedWith);
  };
  const waitExit = async () => {
    if (child) await child;
    child = null;
  };
  await launch();
  const handle: BrokerProcess = {
    port,
    pid: () => (child as { pid?: number } | null)?.pid,
    controllerPort,
    bootstrap: `127.0.0.1:${port}`,
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
      await launch();
    },
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}
