// The live fuzzer as a script, for the long run (issue 20: ≥ 1,000,000 mutated frames): starts a
// real `tkafka server start`, creates the fuzzer's topics, runs test/fuzz/live-fuzz.ts against it
// and prints the report as JSON (exit 1 when the verdict fails).
//
//   node dist/test/fuzz/run.js --frames 1000000 [--seed N] [--workers 16] [--max-minutes 30]
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../helpers/broker-process.js';
import { createTopicAt } from '../helpers/create-topic.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { liveFuzz, PROBE_TOPIC, TARGET_TOPIC, type FuzzReport } from './live-fuzz.js';

/**
 * Handler exceptions whose answer is what Apache Kafka 4.4.0 answers to the same bytes (checked
 * against a real Kafka 4.4.0): not counted against the broker. Each with its evidence.
 *  - Metadata v12+ naming one topic by a null name and a zero topic id (e.g. v13
 *    000000250003000d00000007000466757a7a0002000000000000000000000000000000000000010000): Kafka answers
 *    that topic with errorCode -1 (UNKNOWN_SERVER_ERROR), name "", as tkafka does (tkafka gets there
 *    through a TypeError in invalidTopicReason, via auto-creation).
 */
export const SAME_AS_KAFKA: readonly RegExp[] = [
  /^handling Metadata v1[2-3]: TypeError: Cannot read properties of null \(reading 'length'\)$/,
];

/**
 * A connection left open after the client's half-close is a deviation from Kafka (which closes
 * at the client's EOF), but a known one, not counted here: a Fetch parked for maxWaitMs (Fetch v12,
 * maxWaitMs 60000, minBytes 1 MiB, then half-close: Kafka 4.4.0 answers and closes in ~50 ms,
 * tkafka keeps the connection open until maxWaitMs). A stuck connection with no Fetch among its
 * frames fails the verdict.
 */
const knownStuck = (c: { apis: number[] }): boolean => c.apis.includes(ApiKey.Fetch);

/** The verdict of a run: the list of what failed (empty: passed). */
export function verdict(r: FuzzReport, rssBoundMiB: number): string[] {
  const out: string[] = [];
  if (!r.alive) out.push('the broker is not alive after the run');
  if (r.probes.failed > 0)
    out.push(`the correct client failed ${r.probes.failed} times: ${r.probes.failures.join('; ')}`);
  if (r.probes.ok < 2) out.push(`the correct client ran only ${r.probes.ok} times`);
  // only the first 10 stuck connections are kept: beyond them, nothing is known, so they count
  const unknownStuck = r.stuck - r.stuckConnections.filter(knownStuck).length;
  if (unknownStuck > 0)
    out.push(
      `${unknownStuck} connections (without a parked Fetch) neither answered nor closed within 10 s of the client's half-close: ` +
        JSON.stringify(r.stuckConnections.filter((c) => !knownStuck(c))),
    );
  if (!(r.rssMiB.peak <= rssBoundMiB)) out.push(`peak RSS ${r.rssMiB.peak} MiB above the bound ${rssBoundMiB} MiB`);
  const errors = Object.entries(r.handlerErrors).filter(([k]) => !SAME_AS_KAFKA.some((re) => re.test(k)));
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
      // created only when the broker died (the last connections' bytes go there)
      crashDir: join(tmpdir(), `tkafka-fuzz-${opts.seed}-${Date.now()}`),
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
