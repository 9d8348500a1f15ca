#!/usr/bin/env node
// The long chaos run (issue 15): the harness of test/chaos/ (compiled in dist/) with a long
// schedule, on tkafka or on Apache Kafka 4.4.0. Prints the seed first and the checker's summary
// line last; exits 1 when the checker finds anything wrong (or the run fails), 0 otherwise.
//
//   npm run build && node scripts/chaos.mjs [--target tkafka|kafka] [--faults 200] [--seed N]
//       [--max-minutes 180] [--unsafe-acks]
//
// CHAOS_TARGET / CHAOS_FAULTS / CHAOS_SEED are the defaults of the flags. Needs Kafka's Java
// client (bash test/clients/java/setup.sh) and, for --target kafka, its jars (scripts/kafka-jars.sh).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const runJs = join(repo, 'dist', 'test', 'chaos', 'run.js');
if (!existsSync(runJs)) {
  console.error(`chaos: ${runJs} is missing: run npm run build first`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: process.env.CHAOS_TARGET ?? 'tkafka' },
    faults: { type: 'string', default: process.env.CHAOS_FAULTS ?? '200' },
    seed: { type: 'string' },
    'max-minutes': { type: 'string', default: '180' },
    'unsafe-acks': { type: 'boolean', default: false },
  },
});
if (values.target !== 'tkafka' && values.target !== 'kafka') {
  console.error(`chaos: --target must be tkafka or kafka, not ${values.target}`);
  process.exit(2);
}
const faults = Number(values.faults);
const maxMinutes = Number(values['max-minutes']);
if (!Number.isSafeInteger(faults) || faults < 1 || !(maxMinutes > 0)) {
  console.error('chaos: --faults must be a positive integer and --max-minutes positive');
  process.exit(2);
}

const { runChaos } = await import(pathToFileURL(runJs).href);
try {
  const report = await runChaos({
    target: values.target,
    faults,
    seed: values.seed === undefined ? undefined : Number(values.seed),
    maxTotalMs: maxMinutes * 60_000,
    unsafeAcks: values['unsafe-acks'],
  });
  console.log(`${report.summary} wall=${Math.round(report.wallMs / 1000)}s`);
  process.exit(report.result.ok ? 0 : 1);
} catch (e) {
  console.error(`chaos: the run failed: ${e instanceof Error ? e.stack : String(e)}`);
  process.exit(1);
}
