// The benchmark's second client: test/clients/go/load (franz-go), built with the machine's Go into
// .cache/clients/bin/franz-load from the client matrix's module and module cache (as
// test/clients/go/setup.sh builds the matrix's programs), rebuilt when its source is newer. Each
// run prints its figures and its own CPU time: records per client CPU-second is the client's
// ceiling, printed beside the throughput so a reader sees whether the client was the limit.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from '../../test/helpers/spec-models.js';

const MODULE = join(REPO_ROOT, 'test', 'clients', 'go');
const SOURCE = join(MODULE, 'load', 'main.go');
const CACHE = join(REPO_ROOT, '.cache', 'clients');
/** TKAFKA_FRANZ_LOAD: a franz-load built elsewhere (e.g. from a worktree whose .cache is shared), used as is. */
const PREBUILT = process.env.TKAFKA_FRANZ_LOAD;
/** The program, for callers that launch it themselves (e.g. pinned with taskset). */
export const FRANZ_LOAD_BIN = PREBUILT ?? join(CACHE, 'bin', 'franz-load');
const BIN = FRANZ_LOAD_BIN;

export interface LoadFigures {
  records: number;
  seconds: number;
  recsPerSec: number;
  mbPerSec: number;
  p50Ms?: number;
  p99Ms?: number;
  cpuSeconds: number;
  ceilingRecsPerCpuSec: number;
}

/** Builds franz-load when it is missing or older than its source. */
export async function ensureFranzLoad(): Promise<void> {
  if (PREBUILT !== undefined) return;
  if (existsSync(BIN) && statSync(BIN).mtimeMs >= statSync(SOURCE).mtimeMs) return;
  await execa('go', ['build', '-trimpath', '-o', BIN, './load'], {
    cwd: MODULE,
    timeout: 600_000,
    env: {
      GOMODCACHE: join(CACHE, 'go', 'mod'),
      GOCACHE: join(CACHE, 'go', 'build'),
      GOFLAGS: '-mod=readonly -modcacherw',
      CGO_ENABLED: '0',
    },
  });
}

async function run(args: string[]): Promise<LoadFigures> {
  const r = await execa(BIN, args, { reject: false, timeout: 900_000 });
  if (r.exitCode !== 0) throw new Error(`franz-load ${args.join(' ')} exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(String(r.stdout).trim().split('\n').at(-1)!) as LoadFigures;
}

/** `topic` may be several, comma-separated: the records then go round-robin over them. */
export function franzProduce(
  bootstrap: string,
  topic: string,
  o: { records: number; size: number; acks: '1' | 'all'; compression: 'none' | 'lz4' | 'zstd'; clients: number },
): Promise<LoadFigures> {
  return run([
    'produce',
    bootstrap,
    topic,
    String(o.records),
    String(o.size),
    o.acks,
    o.compression,
    String(o.clients),
  ]);
}

export function franzConsume(bootstrap: string, topic: string, records: number): Promise<LoadFigures> {
  return run(['consume', bootstrap, topic, String(records)]);
}
