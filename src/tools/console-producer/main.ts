// `tkafka console-producer`: kafka-console-producer.sh (org.apache.kafka.tools.ConsoleProducer,
// Kafka 4.0): reads records from stdin with Kafka's LineMessageReader (parse.key, key.separator,
// parse.headers, null.marker, ...) and produces them, asynchronously (linger.ms = --timeout) or
// one at a time with --sync. Exit 0 at end of input once everything was acknowledged; usage and
// parse errors exit 1. Unlike Kafka (which only logs failed asynchronous sends), a record that
// could not be delivered makes the tool exit 1, with one line per distinct error on stderr.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { Producer, ProducerConfig } from '../../client/producer.js';
import { JoptError, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { loadPropertiesFile, openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, writeStack } from '../common/errors.js';
import { helpOrVersion } from '../common/run-tool.js';
import { parseKeyValueArgs } from '../console-consumer/spec.js';
import { DEFAULT_READER, bootstrapProblem, consoleProducerSpec, parsingSpec } from './spec.js';

const COMPRESSION = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const MAX_UNACKED = 10_000;

class ConfigError extends Error {}

/** ConsoleProducerOptions.producerProps: file, --producer-property, then forced values and the flags (a given flag wins). */
async function producerProps(opts: JoptOptions, bootstrap: string): Promise<Map<string, string>> {
  const configOpt = opts.has('producer.config') ? 'producer.config' : 'command-config';
  const props = opts.has(configOpt) ? await loadPropertiesFile(opts.string(configOpt)!) : new Map<string, string>();
  const propertyOpt = opts.has('producer-property') ? 'producer-property' : 'command-property';
  for (const [k, v] of parseKeyValueArgs(opts.valuesOf(propertyOpt).map(String))) props.set(k, v);
  props.set('bootstrap.servers', bootstrap);
  const codec = opts.has('compression-codec') ? opts.string('compression-codec') || 'gzip' : 'none';
  props.set('compression.type', codec);
  if (!props.has('client.id')) props.set('client.id', 'console-producer');
  const merge = (key: string, flag: string): void => {
    if (opts.has(flag) || !props.has(key)) props.set(key, opts.string(flag)!);
  };
  merge('linger.ms', 'timeout');
  merge('acks', 'request-required-acks');
  merge('request.timeout.ms', 'request-timeout-ms');
  merge('retries', 'message-send-max-retries');
  merge('retry.backoff.ms', 'retry-backoff-ms');
  merge('send.buffer.bytes', 'socket-buffer-size');
  merge('buffer.memory', 'max-memory-bytes');
  merge('batch.size', 'batch-size');
  merge('batch.size', 'max-partition-memory-bytes');
  merge('metadata.max.age.ms', 'metadata-expiry-ms');
  merge('max.block.ms', 'max-block-ms');
  return props;
}

function producerConfig(p: Map<string, string>): Partial<ProducerConfig> {
  const int = (k: string): number | undefined => {
    const v = p.get(k);
    if (v === undefined) return undefined;
    if (!/^[+-]?\d+$/.test(v.trim()))
      throw new ConfigError(`Invalid value ${v} for configuration ${k}: Not a number of type LONG`);
    return Number(v.trim());
  };
  const compression = (p.get('compression.type') ?? 'none').trim().toLowerCase();
  if (!COMPRESSION.includes(compression))
    throw new ConfigError(
      `Invalid value ${compression} for configuration compression.type: String must be one of: ${COMPRESSION.join(', ')}`,
    );
  const acksRaw = (p.get('acks') ?? 'all').trim().toLowerCase();
  const acks = acksRaw === 'all' ? -1 : Number(acksRaw);
  if (![-1, 0, 1].includes(acks) || !/^(all|-1|0|1)$/.test(acksRaw))
    throw new ConfigError(`Invalid value ${acksRaw} for configuration acks: String must be one of: all, -1, 0, 1`);
  const c: Partial<ProducerConfig> = { acks, compression };
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

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = consoleProducerSpec();
  const usage = (msg: string): number => printUsage(spec, io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(parsingSpec(spec), argv);
  } catch (e) {
    if (e instanceof JoptError) return usage(e.message);
    throw e;
  }
  const debug = opts.has('debug');
  const early = await helpOrVersion(spec, argv, opts, io);
  if (early !== null) return early;
  if (!opts.has('topic')) return usage('Missing required argument "[topic]"');
  // Kafka 4.4 (KIP-1147): the old option names still work, with a warning on stdout.
  if (opts.has('command-config') && opts.has('producer.config'))
    return usage('Options --command-config and --producer.config cannot be specified together.');
  if (opts.has('command-property') && opts.has('producer-property')) {
    return usage('Options --command-property and --producer-property cannot be specified together.');
  }
  if (opts.has('reader-property') && opts.has('property'))
    return usage('Options --reader-property and --property cannot be specified together.');
  const deprecated: [string, string][] = [
    ['producer-property', 'Use --command-property instead.'],
    ['producer.config', 'Use --command-config instead.'],
    ['property', 'Use --reader-property instead.'],
  ];
  for (const [name, hint] of deprecated) {
    if (opts.has(name))
      io.stdout.write(`Warning: --${name} is deprecated and will be removed in a future version. ${hint}\n`);
  }
  if (opts.has('max-partition-memory-bytes')) {
    io.stdout.write(
      'Warning: --max-partition-memory-bytes is deprecated and will be removed in Apache Kafka 5.0. Use --batch-size instead.\n',
    );
  }
  let bootstrap;
  try {
    bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  const problem = bootstrapProblem(bootstrap?.value);
  if (problem !== null) return usage(problem);
  const topic = opts.string('topic')!;
  let config: Partial<ProducerConfig>;
  let clientProps: Map<string, string> | undefined;
  let reader;
  const { readerConfig, parseLine, readLines } = await import('./line-reader.js');
  try {
    for (const n of [
      'batch-size',
      'message-send-max-retries',
      'request-timeout-ms',
      'max-partition-memory-bytes',
      'socket-buffer-size',
    ])
      intCheck(opts, n, false);
    for (const n of ['retry-backoff-ms', 'timeout', 'metadata-expiry-ms', 'max-block-ms', 'max-memory-bytes'])
      intCheck(opts, n, true);
    const readerClass = opts.string('line-reader')!;
    if (readerClass !== DEFAULT_READER) throw new ConfigError(`java.lang.ClassNotFoundException: ${readerClass}`);
    const readerProps = opts.has('reader-config')
      ? await loadPropertiesFile(opts.string('reader-config')!)
      : new Map<string, string>();
    readerProps.set('topic', topic);
    for (const [k, v] of parseKeyValueArgs(
      opts.valuesOf(opts.has('property') ? 'property' : 'reader-property').map(String),
    ))
      readerProps.set(k, v);
    reader = readerConfig(readerProps);
    clientProps = await producerProps(opts, bootstrap!.value);
    config = producerConfig(clientProps);
  } catch (e) {
    if (e instanceof JoptError) return usage(e.message);
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  const sync = opts.has('sync');
  const prompt = (io.stdin as { isTTY?: boolean }).isTTY === true && (io.stdout as { isTTY?: boolean }).isTTY === true;
  let client: KafkaClient | null = null;
  let producer: Producer | null = null;
  const errors = new Set<string>();
  let failed = false;
  const report = (topicName: string, key: Buffer | null, value: Buffer | null, e: unknown): void => {
    failed = true;
    const msg = errorLine(e);
    if (errors.has(msg)) return;
    errors.add(msg);
    const size = (b: Buffer | null): string => (b === null ? 'null' : `${b.length} bytes`);
    io.stderr.write(
      `ERROR Error when sending message to topic ${topicName} with key: ${size(key)}, value: ${size(value)} with error: ${msg}\n`,
    );
  };
  let code = 0;
  try {
    client = await openClient({
      bootstrap: bootstrap!,
      properties: clientProps,
      overrides: {
        clientId: 'console-producer',
        requestTimeoutMs: Math.max(config.requestTimeoutMs ?? 1500, 1000) + 5000,
      },
    });
    const { Producer } = await import('../../client/producer.js');
    producer = new Producer(client, config);
    const unacked = new Set<Promise<unknown>>();
    let lineNumber = 0;
    if (prompt) io.stdout.write('>');
    for await (const line of readLines(io.stdin)) {
      lineNumber++;
      const rec = parseLine(reader, line, lineNumber);
      const p = producer.send({ topic, key: rec.key, value: rec.value, headers: rec.headers });
      if (sync) {
        try {
          await p;
        } catch (e) {
          report(topic, rec.key, rec.value, e);
        }
      } else {
        const tracked: Promise<unknown> = p
          .catch((e) => report(topic, rec.key, rec.value, e))
          .finally(() => unacked.delete(tracked));
        unacked.add(tracked);
        if (unacked.size >= MAX_UNACKED) await Promise.race(unacked);
      }
      if (prompt) io.stdout.write('>');
    }
    await Promise.all(unacked);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    writeStack(io, debug, e);
    code = 1;
  } finally {
    await producer?.close().catch(() => undefined);
    client?.close();
  }
  return code !== 0 || failed ? 1 : 0;
}

function intCheck(opts: JoptOptions, name: string, long: boolean): void {
  if (!opts.has(name)) return;
  const v = opts.string(name)!;
  const ok =
    /^[+-]?\d+$/.test(v) &&
    (long
      ? BigInt(v) < 2n ** 63n && BigInt(v) >= -(2n ** 63n)
      : Math.abs(Number(v)) <= 2147483647 && Number(v) >= -2147483648);
  if (!ok) throw new JoptError(`Cannot parse argument '${v}' of option ${name}`);
}
