// The live fuzzer as a script, for the long run (issue 20: ≥ 1,000,000 mutated frames): starts a
// real `tkafka server start`, creates the fuzzer's topics, runs test/fuzz/live-fuzz.ts against it
// and prints the report as JSON (exit 1 when the verdict fails).
//
//   node dist/test/fuzz/run.js --frames 1000000 [--seed N] [--workers 16] [--max-minutes 30]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../helpers/broker-process.js';
import { createTopicAt } from '../helpers/create-topic.js';
import { liveFuzz, PROBE_TOPIC, TARGET_TOPIC, type FuzzReport } from './live-fuzz.js';

/** The verdict of a run: the list of what failed (empty: passed). */
export function verdict(r: FuzzReport, rssBoundMiB: number): string[] {
  const out: string[] = [];
  if (!r.alive) out.push('the broker is not alive after the run');
  if (r.probes.failed > 0)
    out.push(`the correct client failed ${r.probes.failed} times: ${r.probes.failures.join('; ')}`);
  if (r.probes.ok < 2) out.push(`the correct client ran only ${r.probes.ok} times`);
  if (r.stuck > 0)
    out.push(`${r.stuck} connections neither answered nor closed within 10 s of the client's half-close`);
  if (!(r.rssMiB.peak <= rssBoundMiB)) out.push(`peak RSS ${r.rssMiB.peak} MiB above the bound ${rssBoundMiB} MiB`);
  const errors = Object.entries(r.handlerErrors);
  if (errors.length > 0)
    out.push(`handler exceptions (UNKNOWN_SERVER_ERROR): ${errors.map(([k, n]) => `${n}× ${k}`).join('; ')}`);
  return out;
}

/** Starts a broker, fuzzes it, stops it. */
export async function fuzzBroker(opts: {
  frames: number;
  seed: number;
  workers?: number;
  maxMs: number;
}): Promise<FuzzReport> {
  const broker = await startBroker({ overrides: { 'num.partitions': 1, 'auto.create.topics.enable': false } });
  try {
    await createTopicAt(broker.port, TARGET_TOPIC);
    await createTopicAt(broker.port, PROBE_TOPIC);
    return await liveFuzz({
      port: broker.port,
      pid: () => broker.pid(),
      output: () => broker.output(),
      seed: opts.seed,
      frames: opts.frames,
      maxMs: opts.maxMs,
      workers: opts.workers,
      crashDir: mkdtempSync(join(tmpdir(), 'tkafka-fuzz-')),
    });
  } finally {
    await broker.kill();
    broker.cleanup();
  }
}

/** The RSS bound of the verdict (MiB): FUZZ_RSS_BOUND_MIB, default 512. */
export const rssBound = (): number => Number(process.env.FUZZ_RSS_BOUND_MIB ?? 512);

async function main(argv: string[]): Promise<number> {
  const arg = (name: string, dflt: number): number => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return dflt;
    const n = Number(argv[i + 1]);
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} needs a non-negative integer`);
    return n;
  };
  const seed = arg('seed', Math.floor(Math.random() * 2 ** 31));
  const r = await fuzzBroker({
    frames: arg('frames', 1_000_000),
    seed,
    workers: arg('workers', 16),
    maxMs: arg('max-minutes', 30) * 60_000,
  });
  const failed = verdict(r, rssBound());
  console.log(JSON.stringify({ ...r, verdict: failed.length === 0 ? 'OK' : failed }, null, 2));
  return failed.length === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href)
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(2);
    },
  );
