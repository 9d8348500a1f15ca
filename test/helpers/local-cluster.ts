// What the `tkafka local` cluster tests share: a data folder per file (every node it left running is
// killed and the folder removed after the file), `bin/tkafka` run as a user runs it, and
// `local status --output json` read back.
import { after, before } from 'node:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './spec-models.js';

/** `bin/tkafka <args>` from the repo root, with no TKAFKA_LOCAL_DIR of the caller's. */
export const tk = (args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
  execa('node', ['bin/tkafka', ...args], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 180_000,
    input: opts.input,
    env: { TKAFKA_LOCAL_DIR: '', ...opts.env },
  });

/** One node of `local status --output json`. */
export interface StatusNode {
  id: number;
  roles: string;
  state: string;
  quorum: string;
  epoch: number | null;
  lag: number | null;
  broker: string | null;
}

export interface LocalStatus {
  code: number;
  nodes: StatusNode[];
  quorum: { leaderId: number; leaderEpoch: number } | null;
}

/** A cluster folder for this file: `dir()` once `before` ran; `status()` is `local status` of it. */
export function localClusterFolder(prefix: string): { dir: () => string; status: () => Promise<LocalStatus> } {
  let root = '';
  let dir = '';
  before(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
    dir = join(root, 'cluster');
  });
  after(() => {
    try {
      const state = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')) as {
        nodes: { pid: number | null }[];
      };
      for (const n of state.nodes) if (n.pid) process.kill(n.pid, 'SIGKILL');
    } catch {
      // no state, or gone
    }
    if (root) rmSync(root, { recursive: true, force: true });
  });
  const status = async (): Promise<LocalStatus> => {
    const r = await tk(['local', 'status', '--dir', dir, '--output', 'json']);
    const doc = JSON.parse(r.stdout) as { nodes: StatusNode[]; quorum: LocalStatus['quorum'] };
    return { code: r.exitCode ?? -1, nodes: doc.nodes, quorum: doc.quorum };
  };
  return { dir: () => dir, status };
}
