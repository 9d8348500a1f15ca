// `tkafka producer-perf-test`: kafka-producer-perf-test.sh (org.apache.kafka.tools.ProducerPerformance,
// Kafka 4.4): the same argparse4j flags and checks, the same throttling, and the same output lines:
// every --reporting-interval ms (5 s) `N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency.` and at
// the end the total with percentiles. Client properties as Kafka's ConfigPostProcessor:
// --producer.config (deprecated) or --command-config, --producer-props (deprecated) or
// --command-property over them, --bootstrap-server over both; the security keys (security.protocol,
// sasl.*, ssl.*) reach the connection through openClient's toolProperties. --key-distribution
// range|random keys the records (`i % KEY-RANGE` or random in [0, KEY-RANGE)); --random-seed seeds
// tkafka's generator (the same seed gives the same run in tkafka; Java's SplittableRandom sequence
// is not reproduced). --warmup-records N: a second Stats from record N on, whose window lines
// replace the first's and whose summary (`… steady state records sent, …`) follows the total. On a terminal (unless --no-tty or NO_COLOR) a live progress
// view (ink) shows the run, with Kafka's lines printed above it; piped, only Kafka's lines.
//
// Differences, on purpose: bootstrap.servers may come from TKAFKA_BOOTSTRAP_SERVER or the active
// profile; a failed record prints one line on stderr (the first of each kind) instead of a stack
// trace per record, and the exit status is then 1. --print-metrics prints the metrics tkafka's
// producer keeps (a subset of the Java client's), in Kafka's layout.
import { readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ToolIO } from '../common/io.js';
import type { Producer, ProducerConfig } from '../../client/producer.js';
import { ArgumentParser, ArgumentParserError, parseOrExit, formatWidth, type Namespace } from '../common/argparse.js';
import { javaF, javaFixed } from './java-format.js';

export const DEFAULT_TRANSACTION_ID_PREFIX = 'performance-producer-';
export const DEFAULT_TRANSACTION_DURATION_MS = 3000n;

const DESCRIPTION =
  'This tool is used to verify the producer performance. To enable transactions, you can specify a transactional id or set a transaction duration using --transaction-duration-ms. ' +
  'There are three ways to specify the transactional id: set transactional.id=<id> via --command-property, set transactional.id=<id> in the config file via --command-config, or use --transactional-id <id>.';
const EXACTLY_ONE = 'Note that you must provide exactly one of --record-size, --payload-file or --payload-monotonic.';

/** ProducerPerformance.argParser() (Kafka 4.4). */
export function buildParser(): ArgumentParser {
  const parser = new ArgumentParser({ prog: 'kafka-producer-perf-test', description: DESCRIPTION });
  parser.addArgument({
    flags: ['--bootstrap-server'],
    metavar: 'BOOTSTRAP-SERVER',
    dest: 'bootstrapServer',
    help: 'The server(s) to connect to. This config takes precedence over bootstrap.servers specified via --command-property or --command-config.',
  });
  const payload = parser.addMutuallyExclusiveGroup({ required: true });
  parser.addArgument({ flags: ['--topic'], required: true, metavar: 'TOPIC', help: 'Produce records to this topic.' });
  parser.addArgument({
    flags: ['--num-records'],
    required: true,
    type: 'long',
    metavar: 'NUM-RECORDS',
    dest: 'numRecords',
    help: 'Number of records to produce.',
  });
  payload.addArgument({
    flags: ['--record-size'],
    type: 'int',
    metavar: 'RECORD-SIZE',
    dest: 'recordSize',
    help: `Record size in bytes. ${EXACTLY_ONE}`,
  });
  payload.addArgument({
    flags: ['--payload-file'],
    metavar: 'PAYLOAD-FILE',
    dest: 'payloadFile',
    help:
      'File to read the record payloads from. This works only for UTF-8 encoded text files. Payloads will be read from this file and a payload will be randomly selected when sending records. ' +
      EXACTLY_ONE,
  });
  payload.addArgument({
    flags: ['--payload-monotonic'],
    action: 'storeTrue',
    dest: 'payloadMonotonic',
    help: `Payload is a monotonically increasing integer. ${EXACTLY_ONE} (default: false)`,
  });
  parser.addArgument({
    flags: ['--payload-delimiter'],
    metavar: 'PAYLOAD-DELIMITER',
    dest: 'payloadDelimiter',
    default: '\\n',
    help: 'Provides the delimiter to be used when --payload-file is provided. Defaults to new line. Note that this parameter will be ignored if --payload-file is not provided. (default: \\n)',
  });
  parser.addArgument({
    flags: ['--throughput'],
    required: true,
    type: 'double',
    metavar: 'THROUGHPUT',
    help: 'Throttle maximum record throughput to *approximately* THROUGHPUT records/sec. Set this to -1 to disable throttling.',
  });
  parser.addArgument({
    flags: ['--producer-props'],
    nargs: '+',
    metavar: 'PROP-NAME=PROP-VALUE',
    dest: 'producerConfig',
    help: '(DEPRECATED) Kafka producer related configuration properties like client.id. These configs take precedence over those passed via --command-config or --producer.config. This option will be removed in a future version. Use --command-property instead. Example: --command-property linger.ms=10 batch.size=32768',
  });
  parser.addArgument({
    flags: ['--command-property'],
    nargs: '+',
    metavar: 'PROP-NAME=PROP-VALUE',
    dest: 'commandProperties',
    help: 'Kafka producer related configuration properties like client.id. These configs take precedence over those passed via --command-config or --producer.config. Example: --command-property linger.ms=10 batch.size=32768',
  });
  parser.addArgument({
    flags: ['--producer.config'],
    metavar: 'CONFIG-FILE',
    dest: 'producerConfigFile',
    help: '(DEPRECATED) Producer config properties file. This option will be removed in a future version. Use --command-config instead.',
  });
  parser.addArgument({
    flags: ['--command-config'],
    metavar: 'CONFIG-FILE',
    dest: 'commandConfigFile',
    help: 'Producer config properties file.',
  });
  parser.addArgument({
    flags: ['--print-metrics'],
    action: 'storeTrue',
    dest: 'printMetrics',
    help: 'Print out metrics at the end of the test. (default: false)',
  });
  parser.addArgument({
    flags: ['--transactional-id'],
    metavar: 'TRANSACTIONAL-ID',
    dest: 'transactionalId',
    help:
      'The transactional id to use. This config takes precedence over the transactional.id specified via --command-property or --command-config. ' +
      'Note that if the transactional id is not specified while --transaction-duration-ms is provided, the default value for the transactional id will be performance-producer- followed by a random uuid.',
  });
  parser.addArgument({
    flags: ['--transaction-duration-ms'],
    type: 'long',
    metavar: 'TRANSACTION-DURATION',
    dest: 'transactionDurationMs',
    help:
      'The maximum duration of each transaction. The commitTransaction will be called after this time has elapsed. The value should be greater than 0. ' +
      'If the transactional id is specified via --command-property, --command-config or --transactional-id but --transaction-duration-ms is not specified, the default value will be 3000.',
  });
  parser.addArgument({
    flags: ['--warmup-records'],
    type: 'long',
    metavar: 'WARMUP-RECORDS',
    dest: 'warmupRecords',
    default: 0n,
    help: 'The number of records to treat as warmup. These initial records will not be included in steady-state statistics. An additional summary line will be printed describing the steady-state statistics. (default: 0)',
  });
  parser.addArgument({
    flags: ['--reporting-interval'],
    type: 'long',
    metavar: 'INTERVAL-MS',
    dest: 'reportingInterval',
    default: 5000n,
    help: 'Interval in milliseconds at which to print progress info. (default: 5000)',
  });
  parser.addArgument({
    flags: ['--record-key-range'],
    type: 'int',
    metavar: 'KEY-RANGE',
    dest: 'recordKeyRange',
    help: "The range of keys to use when --key-distribution is 'range' or 'random'. Keys will be integers in [0, KEY-RANGE). Required for range and random distributions.",
  });
  parser.addArgument({
    flags: ['--key-distribution'],
    metavar: 'KEY-DISTRIBUTION',
    dest: 'keyDistribution',
    choices: ['none', 'range', 'random'],
    default: 'none',
    help: "The key distribution to use: 'none' for null keys, 'range' for round-robin keys in [0, KEY-RANGE), or 'random' for random keys in [0, KEY-RANGE). Requires --record-key-range when set to 'range' or 'random'. (default: none)",
  });
  parser.addArgument({
    flags: ['--random-seed'],
    type: 'long',
    metavar: 'RANDOM-SEED',
    dest: 'randomSeed',
    default: 0n,
    help: 'Seed for the pseudo-random number generator used by --key-distribution random and random payload generation. The default value of 0 ensures deterministic, reproducible benchmark runs. Set to a different value when non-repeating sequences are required. (default: 0)',
  });
  return parser;
}

/**
 * ProducerPerformance.Stats: the window lines (every reporting interval) and the final summary; a
 * steady-state Stats (--warmup-records) says `In steady state.` before its first window line and
 * ` steady state` in its summary.
 */
export class Stats {
  private readonly start: number;
  private readonly latencies: Int32Array;
  private readonly sampling: number;
  private iteration = 0;
  private index = 0;
  count = 0;
  bytes = 0;
  maxLatency = 0;
  totalLatency = 0;
  private windowCount = 0;
  private windowMaxLatency = 0;
  private windowTotalLatency = 0;
  private windowBytes = 0;
  private windowStart: number;
  private suppressPrint = false;

  constructor(
    numRecords: number,
    private readonly print: (line: string) => void,
    private readonly now: () => number = Date.now,
    private readonly reportingInterval = 5000,
    private readonly isSteadyState = false,
  ) {
    this.start = now();
    this.windowStart = this.start;
    this.sampling = Math.floor(numRecords / Math.min(numRecords, 500_000));
    this.latencies = new Int32Array(Math.floor(numRecords / this.sampling) + 1);
  }

  record(latency: number, bytes: number, time: number): void {
    this.count++;
    this.bytes += bytes;
    this.totalLatency += latency;
    this.maxLatency = Math.max(this.maxLatency, latency);
    this.windowCount++;
    this.windowBytes += bytes;
    this.windowTotalLatency += latency;
    this.windowMaxLatency = Math.max(this.windowMaxLatency, latency);
    if (this.iteration % this.sampling === 0) this.latencies[this.index++] = latency;
    if (time - this.windowStart >= this.reportingInterval) {
      if (this.isSteadyState && this.count === this.windowCount) this.print('In steady state.');
      if (!this.suppressPrint) this.printWindow();
      this.newWindow();
    }
    this.iteration++;
  }

  /** The window lines stop (the warmup's Stats once the steady state begins). */
  suppressPrinting(): void {
    this.suppressPrint = true;
  }

  printWindow(): void {
    const elapsed = this.now() - this.windowStart;
    const recsPerSec = (1000.0 * this.windowCount) / elapsed;
    const mbPerSec = (1000.0 * this.windowBytes) / elapsed / (1024.0 * 1024.0);
    this.print(
      `${this.windowCount} records sent, ${javaFixed(recsPerSec, 1)} records/sec (${javaFixed(mbPerSec, 2)} MB/sec), ` +
        `${javaFixed(this.windowTotalLatency / this.windowCount, 1)} ms avg latency, ${javaFixed(this.windowMaxLatency, 1)} ms max latency.`,
    );
  }

  private newWindow(): void {
    this.windowStart = this.now();
    this.windowCount = 0;
    this.windowMaxLatency = 0;
    this.windowTotalLatency = 0;
    this.windowBytes = 0;
  }

  totalLine(): string {
    const elapsed = this.now() - this.start;
    const recsPerSec = (1000.0 * this.count) / elapsed;
    const mbPerSec = (1000.0 * this.bytes) / elapsed / (1024.0 * 1024.0);
    const [p50, p95, p99, p999] = this.percentiles(0.5, 0.95, 0.99, 0.999);
    return (
      `${this.count}${this.isSteadyState ? ' steady state' : ''} records sent, ${javaF(recsPerSec)} records/sec (${javaFixed(mbPerSec, 2)} MB/sec), ` +
      `${javaFixed(this.totalLatency / this.count, 2)} ms avg latency, ${javaFixed(this.maxLatency, 2)} ms max latency, ` +
      `${p50} ms 50th, ${p95} ms 95th, ${p99} ms 99th, ${p999} ms 99.9th.`
    );
  }

  private percentiles(...ps: number[]): number[] {
    const size = Math.min(this.index, this.latencies.length);
    const sorted = this.latencies.slice(0, size).sort();
    return ps.map((p) => sorted[Math.floor(p * size)] ?? 0);
  }

  get elapsedMs(): number {
    return this.now() - this.start;
  }
}

/** ThroughputThrottler: sleep so that `sent / elapsed` stays near the target rate. */
export class Throttler {
  constructor(
    private readonly target: number,
    private readonly startMs: number,
  ) {}
  shouldThrottle(amountSoFar: number, sendStartMs: number): boolean {
    if (this.target < 0) return false;
    const elapsedSec = (sendStartMs - this.startMs) / 1000;
    return elapsedSec > 0 && amountSoFar / elapsedSec > this.target;
  }
  /** Milliseconds to wait before the next send (Infinity for a target of 0). */
  delayMs(amountSoFar: number, now: number): number {
    if (this.target === 0) return Infinity;
    return Math.max(0, this.startMs + (amountSoFar / this.target) * 1000 - now);
  }
}

/** Java's String.split("=") with its dropping of trailing empty strings. */
function javaSplitEq(s: string): string[] {
  const parts = s.split('=');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Payloads of a --payload-file: java.util.Scanner tokens for the delimiter (a regular expression). */
export function splitPayloads(text: string, delimiter: string): Buffer[] {
  const re = new RegExp(delimiter, 'gu');
  const tokens = text.split(re);
  if (tokens.length && tokens[0] === '') tokens.shift();
  if (tokens.length && tokens[tokens.length - 1] === '') tokens.pop();
  return tokens.map((t) => Buffer.from(t, 'utf8'));
}

const COMPRESSION = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

function producerConfig(p: Map<string, string>): Partial<ProducerConfig> {
  const int = (k: string): number | undefined => {
    const v = p.get(k);
    if (v === undefined) return undefined;
    if (!/^[+-]?\d+$/.test(v.trim()))
      throw new UsageFailure(`Invalid value ${v} for configuration ${k}: Not a number of type INT`);
    return Number(v.trim());
  };
  const compression = (p.get('compression.type') ?? 'none').trim().toLowerCase();
  if (!COMPRESSION.includes(compression))
    throw new UsageFailure(
      `Invalid value ${compression} for configuration compression.type: String must be one of: ${COMPRESSION.join(', ')}`,
    );
  const acksRaw = (p.get('acks') ?? 'all').trim().toLowerCase();
  if (!/^(all|-1|0|1)$/.test(acksRaw))
    throw new UsageFailure(`Invalid value ${acksRaw} for configuration acks: String must be one of: all, -1, 0, 1`);
  const c: Partial<ProducerConfig> = { acks: acksRaw === 'all' ? -1 : Number(acksRaw), compression };
  const set = <K extends keyof ProducerConfig>(k: K, v: ProducerConfig[K] | undefined): void => {
    if (v !== undefined) c[k] = v;
  };
  set('lingerMs', int('linger.ms'));
  set('batchSize', int('batch.size'));
  set('requestTimeoutMs', int('request.timeout.ms'));
  set('retries', int('retries'));
  set('retryBackoffMs', int('retry.backoff.ms'));
  set('maxBlockMs', int('max.block.ms'));
  set('deliveryTimeoutMs', int('delivery.timeout.ms'));
  if (p.has('enable.idempotence')) c.idempotence = p.get('enable.idempotence')!.trim().toLowerCase() === 'true';
  return c;
}

/** A failure reported as one line on stderr (exit 1). */
class UsageFailure extends Error {}

interface PerfConfig {
  topic: string;
  numRecords: number;
  recordSize: number | null;
  throughput: number;
  payloadMonotonic: boolean;
  printMetrics: boolean;
  props: Map<string, string>;
  payloads: Buffer[];
  transactionsEnabled: boolean;
  transactionDurationMs: number;
  reportingIntervalMs: number;
  warmupRecords: number;
  keyDistribution: KeyDistribution;
  recordKeyRange: number;
  randomSeed: bigint;
}

export type KeyDistribution = 'none' | 'range' | 'random';

/**
 * ProducerPerformance.generateKey: no key, `i % range`, or a random integer in [0, range), as
 * UTF-8 decimal text. `nextInt(n)` is tkafka's seeded generator (not Java's SplittableRandom:
 * the same seed repeats tkafka's sequence, not Kafka's).
 */
export function generateKey(
  distribution: KeyDistribution,
  range: number,
  index: number,
  nextInt: (n: number) => number,
): Buffer | null {
  if (distribution === 'range') return Buffer.from(String(index % range), 'utf8');
  if (distribution === 'random') return Buffer.from(String(nextInt(range)), 'utf8');
  return null;
}

/** A xorshift32 state from a --random-seed (never 0, which xorshift cannot leave). */
export function seedState(seed: bigint, salt: number): number {
  const folded = Number(BigInt.asUintN(32, seed) ^ BigInt.asUintN(32, seed >> 32n)) ^ salt;
  return folded >>> 0 || salt;
}

/** ProducerPerformance.ConfigPostProcessor (Kafka 4.4): Kafka's checks, in Kafka's order. */
async function postProcess(parser: ArgumentParser, ns: Namespace, out: (line: string) => void): Promise<PerfConfig> {
  const bootstrapServer = (ns.bootstrapServer as string | null | undefined) ?? null;
  const numRecords = ns.numRecords as bigint;
  const warmup = BigInt(ns.warmupRecords as bigint);
  const warmupRecords = warmup > 0n ? warmup : 0n;
  const recordSize = (ns.recordSize as number | null | undefined) ?? null;
  const producerConfigs = (ns.producerConfig as string[] | null | undefined) ?? null;
  const producerConfigFile = (ns.producerConfigFile as string | null | undefined) ?? null;
  const commandProperties = (ns.commandProperties as string[] | null | undefined) ?? null;
  const commandConfigFile = (ns.commandConfigFile as string | null | undefined) ?? null;
  const payloadFile = (ns.payloadFile as string | null | undefined) ?? null;
  let transactionDurationMs = (ns.transactionDurationMs as bigint | null | undefined) ?? null;
  const transactionalId = (ns.transactionalId as string | null | undefined) ?? null;
  const reportingInterval = BigInt(ns.reportingInterval as bigint);
  if (numRecords <= 0n) throw new ArgumentParserError('--num-records should be greater than zero.', parser);
  if (warmupRecords >= numRecords) {
    throw new ArgumentParserError(
      'The value for --warmup-records must be strictly fewer than the number of records in the test, --num-records.',
      parser,
    );
  }
  if (recordSize !== null && recordSize <= 0)
    throw new ArgumentParserError('--record-size should be greater than zero.', parser);
  if (
    bootstrapServer === null &&
    commandProperties === null &&
    producerConfigs === null &&
    producerConfigFile === null &&
    commandConfigFile === null
  ) {
    throw new ArgumentParserError(
      'At least one of --bootstrap-server, --command-property, --producer-props, --producer.config or --command-config must be specified.',
      parser,
    );
  }
  if (commandProperties !== null && producerConfigs !== null)
    throw new ArgumentParserError('--command-property and --producer-props cannot be specified together.', parser);
  if (commandConfigFile !== null && producerConfigFile !== null)
    throw new ArgumentParserError('--command-config and --producer.config cannot be specified together.', parser);
  if (transactionDurationMs !== null && transactionDurationMs <= 0n)
    throw new ArgumentParserError('--transaction-duration-ms should be greater than zero.', parser);
  if (reportingInterval <= 0n)
    throw new ArgumentParserError('--reporting-interval should be greater than zero.', parser);
  const recordKeyRange = (ns.recordKeyRange as number | null | undefined) ?? null;
  if (recordKeyRange !== null && recordKeyRange <= 0)
    throw new ArgumentParserError('--record-key-range should be greater than zero.', parser);
  const keyDistribution = String(ns.keyDistribution ?? 'none') as KeyDistribution;
  if (keyDistribution !== 'none' && recordKeyRange === null) {
    throw new ArgumentParserError(
      "--record-key-range is required when --key-distribution is 'range' or 'random'.",
      parser,
    );
  }
  if (keyDistribution === 'none' && recordKeyRange !== null) {
    throw new ArgumentParserError(
      "--key-distribution must be 'range' or 'random' when --record-key-range is specified.",
      parser,
    );
  }
  const randomSeed = BigInt(ns.randomSeed as bigint);
  const delimiter = ns.payloadDelimiter === '\\n' ? '\n' : String(ns.payloadDelimiter);

  let payloads: Buffer[] = [];
  if (payloadFile !== null) {
    const abs = resolvePath(payloadFile);
    out(`Reading payloads from: ${abs}`);
    let size: number;
    try {
      size = statSync(abs).size;
    } catch {
      size = 0;
    }
    if (size === 0) throw new UsageFailure('File does not exist or empty file provided.');
    payloads = splitPayloads(readFileSync(abs, 'utf8'), delimiter);
    out(`Number of records read: ${payloads.length}`);
  }

  let propsList = commandProperties;
  let configFile = commandConfigFile;
  if (producerConfigs !== null) {
    out(
      'Option --producer-props has been deprecated and will be removed in a future version. Use --command-property instead.',
    );
    propsList = producerConfigs;
  }
  if (producerConfigFile !== null) {
    out(
      'Option --producer.config has been deprecated and will be removed in a future version. Use --command-config instead.',
    );
    configFile = producerConfigFile;
  }
  const props = new Map<string, string>();
  if (configFile !== null) {
    const { loadPropertiesFile } = await import('../common/connection.js');
    for (const [k, v] of await loadPropertiesFile(configFile)) props.set(k, v);
  }
  for (const prop of propsList ?? []) {
    const pieces = javaSplitEq(prop);
    if (pieces.length !== 2) throw new UsageFailure(`Invalid property: ${prop}`);
    props.set(pieces[0]!, pieces[1]!);
  }
  if (!props.has('client.id')) props.set('client.id', 'perf-producer-client');
  if (bootstrapServer !== null) props.set('bootstrap.servers', bootstrapServer);
  const transactionsEnabled =
    transactionDurationMs !== null || transactionalId !== null || props.has('transactional.id');
  if (transactionsEnabled) {
    props.set(
      'transactional.id',
      transactionalId ?? props.get('transactional.id') ?? DEFAULT_TRANSACTION_ID_PREFIX + randomUUID(),
    );
    transactionDurationMs ??= DEFAULT_TRANSACTION_DURATION_MS;
  }
  return {
    topic: String(ns.topic),
    numRecords: Number(numRecords),
    recordSize,
    throughput: Number(ns.throughput),
    payloadMonotonic: ns.payloadMonotonic === true,
    printMetrics: ns.printMetrics === true,
    props,
    payloads,
    transactionsEnabled,
    transactionDurationMs: Number(transactionDurationMs ?? 0n),
    reportingIntervalMs: Number(reportingInterval),
    warmupRecords: Number(warmupRecords),
    keyDistribution,
    recordKeyRange: recordKeyRange ?? 0,
    randomSeed,
  };
}

/** The transactional calls, when the producer has them. */
interface TransactionalProducer {
  initTransactions(): Promise<void>;
  beginTransaction(): void | Promise<void>;
  commitTransaction(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** ToolsUtils.printMetrics: a blank line, `Metric Name   Value`, then `name : value` sorted by name. */
export function metricsLines(metrics: ReadonlyMap<string, number | string>): string[] {
  if (metrics.size === 0) return [];
  const names = [...metrics.keys()].sort();
  const w = Math.max(...names.map((n) => n.length));
  const lines = ['', `${'Metric Name'.padEnd(w)}   Value`];
  for (const n of names) {
    const v = metrics.get(n)!;
    lines.push(`${n.padEnd(w)} : ${typeof v === 'number' ? javaFixed(v, 3) : v}`);
  }
  return lines;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const parser = buildParser();
  if (argv.length === 0) {
    parser.width = formatWidth(io.env, io.stdout as unknown as { isTTY?: boolean; columns?: number });
    io.stdout.write(parser.formatHelp());
    return 0;
  }
  // Kafka 4.4's ProducerPerformance exits 1 after printing -h help.
  const parsed = parseOrExit(parser, argv, io, 1);
  if ('exitCode' in parsed) return parsed.exitCode;

  const { createProgress } = await import('../common/live/progress.js');
  let progress: import('../common/live/progress.js').Progress | null = null;
  const out = (line: string): void => {
    if (progress) progress.line(line);
    else io.stdout.write(`${line}\n`);
  };
  let config: PerfConfig;
  try {
    config = await postProcess(parser, parsed.ns, out);
  } catch (e) {
    if (e instanceof ArgumentParserError) {
      io.stderr.write(parser.formatError(e));
      return 1;
    }
    io.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }

  const [{ resolveBootstrap, openClient }, { Producer }] = await Promise.all([
    import('../common/connection.js'),
    import('../../client/producer.js'),
  ]);
  let client: Awaited<ReturnType<typeof openClient>> | null = null;
  let producer: Producer | null = null;
  const failures = new Map<string, number>();
  try {
    const bootstrap = await resolveBootstrap(config.props.get('bootstrap.servers') ?? null, io.env);
    if (!bootstrap)
      throw new UsageFailure('Missing required configuration "bootstrap.servers" which has no default value.');
    const pc = producerConfig(config.props);
    client = await openClient({
      bootstrap,
      overrides: { clientId: config.props.get('client.id')! },
      toolProperties: config.props,
    });
    producer = new Producer(client, pc);
    const txn = producer as unknown as Partial<TransactionalProducer>;
    if (config.transactionsEnabled) {
      if (
        typeof txn.initTransactions !== 'function' ||
        typeof txn.beginTransaction !== 'function' ||
        typeof txn.commitTransaction !== 'function'
      ) {
        throw new UsageFailure(
          'Transactions (--transactional-id, --transaction-duration-ms, transactional.id) are not supported by the tkafka producer yet.',
        );
      }
      await txn.initTransactions();
    }

    progress = createProgress(io, { title: `Producing to ${config.topic}`, total: config.numRecords, unit: 'records' });
    if (config.warmupRecords > 0) {
      out(
        `Warmup first ${config.warmupRecords} records. Steady state results will print after the complete test summary.`,
      );
    }
    const stats = new Stats(config.numRecords, out, Date.now, config.reportingIntervalMs);
    let steadyStateStats: Stats | null = null;
    // Random uppercase payloads are slices of one block (never mutated): no copy per record.
    const block =
      config.recordSize !== null
        ? randomLetters(Math.max(config.recordSize * 64, 1 << 20), seedState(config.randomSeed, 0x2545f491))
        : null;
    const startMs = Date.now();
    const throttler = new Throttler(config.throughput, startMs);
    const maxOutstandingBytes = 32 * 1024 * 1024;
    let outstanding = 0;
    let outstandingBytes = 0;
    let wake: (() => void) | null = null;
    let currentTransactionSize = 0;
    let transactionStart = 0;
    let rng = seedState(config.randomSeed, 0x9e3779b9);
    const nextRandom = (n: number): number => {
      rng ^= rng << 13;
      rng ^= rng >>> 17;
      rng ^= rng << 5;
      return (rng >>> 0) % n;
    };
    let lastUpdate = 0;

    for (let i = 0; i < config.numRecords; i++) {
      let payload: Buffer;
      if (config.payloads.length > 0) payload = config.payloads[nextRandom(config.payloads.length)]!;
      else if (block !== null) {
        const size = config.recordSize!;
        const off = nextRandom(block.length - size + 1);
        payload = block.subarray(off, off + size);
      } else payload = Buffer.from(String(i), 'utf8');

      if (config.transactionsEnabled && currentTransactionSize === 0) {
        await txn.beginTransaction!();
        transactionStart = Date.now();
      }
      const sendStartMs = Date.now();
      if (config.warmupRecords > 0 && i === config.warmupRecords) {
        steadyStateStats = new Stats(
          config.numRecords - config.warmupRecords,
          out,
          Date.now,
          config.reportingIntervalMs,
          true,
        );
        stats.suppressPrinting();
      }
      const steady = steadyStateStats;
      outstanding++;
      outstandingBytes += payload.length;
      const bytes = payload.length;
      const key = generateKey(config.keyDistribution, config.recordKeyRange, i, nextRandom);
      producer
        .send({ topic: config.topic, key, value: payload })
        .then(
          () => {
            const now = Date.now();
            stats.record(now - sendStartMs, bytes, now);
            steady?.record(now - sendStartMs, bytes, now);
          },
          (e: unknown) => {
            const msg = (e as Error).message ?? String(e);
            const seen = failures.get(msg) ?? 0;
            if (seen === 0) io.stderr.write(`Error sending a record to ${config.topic}: ${msg}\n`);
            failures.set(msg, seen + 1);
          },
        )
        .finally(() => {
          outstanding--;
          outstandingBytes -= bytes;
          if (wake) {
            const w = wake;
            wake = null;
            w();
          }
        });
      currentTransactionSize++;
      if (config.transactionsEnabled && config.transactionDurationMs <= sendStartMs - transactionStart) {
        await txn.commitTransaction!();
        currentTransactionSize = 0;
      }
      if (outstanding >= 100_000 || outstandingBytes >= maxOutstandingBytes) {
        await new Promise<void>((r) => (wake = r));
      }
      if (throttler.shouldThrottle(i, sendStartMs)) {
        const d = throttler.delayMs(i, Date.now());
        if (d === Infinity) await new Promise<never>(() => {});
        if (d > 0) await sleep(Math.min(d, 1000));
      } else if ((i & 1023) === 1023) {
        await new Promise<void>((r) => setImmediate(r));
      }
      if (progress.live && sendStartMs - lastUpdate >= 100) {
        lastUpdate = sendStartMs;
        progress.update(stats.count, { details: progressDetails(stats) });
      }
    }
    if (config.transactionsEnabled && currentTransactionSize !== 0) await txn.commitTransaction!();
    while (outstanding > 0) await new Promise<void>((r) => (wake = r));
    await producer.flush();
    progress.update(stats.count, { details: progressDetails(stats) });
    await progress.finish();
    progress = null;
    io.stdout.write(`${stats.totalLine()}\n`);
    if (steadyStateStats) io.stdout.write(`${steadyStateStats.totalLine()}\n`);
    if (config.printMetrics) {
      const tags = `{client-id=${config.props.get('client.id')}}`;
      const elapsedSec = Math.max(stats.elapsedMs, 1) / 1000;
      const failed = [...failures.values()].reduce((a, b) => a + b, 0);
      const m = new Map<string, number>([
        [`producer-metrics:record-send-total:${tags}`, stats.count],
        [`producer-metrics:record-send-rate:${tags}`, stats.count / elapsedSec],
        [`producer-metrics:record-error-total:${tags}`, failed],
        [`producer-metrics:record-size-avg:${tags}`, stats.count ? stats.bytes / stats.count : 0],
        [`producer-metrics:outgoing-byte-total:${tags}`, stats.bytes],
        [`producer-metrics:request-latency-avg:${tags}`, stats.count ? stats.totalLatency / stats.count : 0],
        [`producer-metrics:request-latency-max:${tags}`, stats.maxLatency],
      ]);
      for (const l of metricsLines(m)) io.stdout.write(`${l}\n`);
    }
    return failures.size > 0 ? 1 : 0;
  } catch (e) {
    await progress?.finish();
    io.stderr.write(`${(e as Error).message ?? String(e)}\n`);
    if (io.env.TKAFKA_DEBUG && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return 1;
  } finally {
    await producer?.close().catch(() => undefined);
    client?.close();
  }
}

function progressDetails(stats: Stats): string[] {
  const sec = Math.max(stats.elapsedMs, 1) / 1000;
  return [
    `${javaFixed(stats.bytes / sec / (1024 * 1024), 2)} MB/sec`,
    `${stats.count ? javaFixed(stats.totalLatency / stats.count, 1) : '-'} ms avg latency`,
  ];
}

function randomLetters(n: number, state: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = state;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = 65 + ((x >>> 0) % 26);
  }
  return b;
}
