// The perf tools' flags and usage errors against Kafka 4.4.0's own (kafka-consumer-perf-test.sh =
// ConsumerPerformance, kafka-producer-perf-test.sh = ProducerPerformance), run from the jars: the
// same --help text (tkafka's documented --bootstrap-server addition aside) and the same messages for
// the same bad command lines. No broker is needed: every case fails before connecting.
//
//   npm run build && node --test dist/test/interop/perf-tools-flags.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { runTkafka } from '../helpers/tool-run.js';
import { BOOTSTRAP_HELP_SUFFIX } from '../../src/tools/topics/spec.js';

const CONSUMER = 'org.apache.kafka.tools.ConsumerPerformance';
const PRODUCER = 'org.apache.kafka.tools.ProducerPerformance';
/** Help and usage text without layout: every run of whitespace removed (the wrapping differs). */
const bare = (s: string): string => s.replace(/\s+/g, '');

test('consumer-perf-test --help is ConsumerPerformance --help (Kafka 4.4)', async () => {
  const kafka = await runKafkaTool(CONSUMER, ['--help']);
  const ours = await runTkafka('consumer-perf-test', ['--help']);
  assert.equal(ours.code, kafka.exitCode);
  const group = /perf-consumer-\d+/g;
  assert.equal(
    bare(ours.err.replace(group, 'perf-consumer-N')).replace(bare(BOOTSTRAP_HELP_SUFFIX), ''),
    bare(kafka.stdout + kafka.stderr).replace(/perf-consumer-\d+/g, 'perf-consumer-N'),
  );
});

test("consumer-perf-test's usage errors are ConsumerPerformance's", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-perf-flags-'));
  try {
    const cfg = join(dir, 'c.properties');
    writeFileSync(cfg, 'client.id=x\n');
    const base = ['--bootstrap-server', '127.0.0.1:1'];
    const cases = [
      [...base, '--topic', 't'],
      [...base, '--topic', 't', '--messages', '1', '--num-records', '1'],
      [...base, '--num-records', '1'],
      [...base, '--topic', 't', '--include', 't.*', '--num-records', '1'],
      [...base, '--topic', 't', '--num-records', '1', '--consumer.config', cfg, '--command-config', cfg],
    ];
    for (const args of cases) {
      const kafka = await runKafkaTool(CONSUMER, args);
      const ours = await runTkafka('consumer-perf-test', args);
      assert.equal(ours.code, kafka.exitCode, args.join(' '));
      const first = (s: string): string => s.split('\n')[0]!;
      assert.equal(first(ours.err), first(kafka.stdout + kafka.stderr), args.join(' '));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('producer-perf-test -h has ProducerPerformance -h text (Kafka 4.4)', async () => {
  const kafka = await runKafkaTool(PRODUCER, []);
  const ours = await runTkafka('producer-perf-test', []);
  assert.equal(ours.code, kafka.exitCode);
  const [kUsage, kRest] = [kafka.stdout.split('\n\n')[0]!, kafka.stdout.split('\n\n').slice(1).join('\n\n')];
  assert.equal(bare(ours.out.split('\n\n')[0]!), bare(kUsage), 'usage line');
  // Each option's help entry, wherever it is placed: argparse4j lists the required payload group in
  // a section of its own (with the group's description), tkafka's help among the other options.
  const entries = kRest
    .split(/\n(?= {2}-)/)
    .slice(1)
    .map((e) => e.split('\n\n')[0]!);
  assert.ok(entries.length >= 20, String(entries.length));
  for (const e of entries) assert.ok(bare(ours.out).includes(bare(e)), e);
});

test("producer-perf-test's usage errors are ProducerPerformance's", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-perf-flags-'));
  try {
    const cfg = join(dir, 'p.properties');
    writeFileSync(cfg, 'acks=1\n');
    const base = ['--topic', 't', '--num-records', '5', '--throughput', '-1', '--record-size', '10'];
    const bs = ['--bootstrap-server', '127.0.0.1:1'];
    const cases = [
      base,
      [...base, '--command-property', 'acks=1', '--producer-props', 'acks=1'],
      [...base, '--command-config', cfg, '--producer.config', cfg],
      [...base, ...bs, '--num-records', '0'],
      [...base, ...bs, '--warmup-records', '5'],
      [...base, ...bs, '--record-size', '0'],
      [...base, ...bs, '--transaction-duration-ms', '0'],
      [...base, ...bs, '--reporting-interval', '0'],
      [...base, ...bs, '--record-key-range', '0', '--key-distribution', 'range'],
      [...base, ...bs, '--key-distribution', 'random'],
      [...base, ...bs, '--record-key-range', '4'],
      [...base, ...bs, '--key-distribution', 'hash'],
      [...base, ...bs, '--payload-monotonic'],
    ];
    for (const args of cases) {
      const kafka = await runKafkaTool(PRODUCER, args);
      const ours = await runTkafka('producer-perf-test', args);
      assert.equal(ours.code, kafka.exitCode, args.join(' '));
      assert.equal(bare(ours.err), bare(kafka.stderr), args.join(' '));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
