// `tkafka console-consumer`: kafka-console-consumer.sh (org.apache.kafka.tools.consumer.
// ConsoleConsumer, Kafka 4.4): the same flags, validation messages and exit codes, records printed
// by Kafka's DefaultMessageFormatter (raw bytes), "Processed a total of N messages" on stderr at
// the end, exit 0 when --timeout-ms or --max-messages ends consumption. Without --group a random
// `console-consumer-N` group with auto-commit off is used, as Kafka does; with --partition the
// consumer is assigned the partition and seeks (no group).
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { Consumer, ConsumerConfig, ConsumerRecord } from '../../client/consumer.js';
import { JoptError, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { loadPropertiesFile, openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, writeStack } from '../common/errors.js';
import { helpOrVersion } from '../common/run-tool.js';
import { parseOutputFormat, type OutputFormat } from '../common/output.js';
import { DEFAULT_FORMATTER, consoleConsumerSpec, parseKeyValueArgs, parsingSpec } from './spec.js';
import type { FormatterConfig } from './formatter.js';

const FORMATTERS = new Set([
  DEFAULT_FORMATTER,
  'org.apache.kafka.tools.consumer.LoggingMessageFormatter',
  'org.apache.kafka.tools.consumer.NoOpMessageFormatter',
]);

class Usage extends Error {}

const intArg = (opts: JoptOptions, name: string, long = false): number | undefined => {
  const v = opts.string(name);
  if (v === undefined) return undefined;
  const ok =
    /^[+-]?\d+$/.test(v) &&
    (long
      ? BigInt(v) < 2n ** 63n && BigInt(v) >= -(2n ** 63n)
      : Math.abs(Number(v)) <= 2147483647 && Number(v) >= -2147483648);
  if (!ok) throw new JoptError(`Cannot parse argument '${v}' of option ${name}`);
  return Number(v);
};

interface Settings {
  consumerProps: Map<string, string>;
  offset: 'earliest' | 'latest' | bigint;
  timeoutMs: number;
  maxMessages: number;
  formatterProps: Map<string, string>;
  formatter: string;
}

/** ConsoleConsumerOptions: validation in Kafka's order; throws Usage (message + help) or JoptError. */
async function settings(opts: JoptOptions, io: ToolIO, bootstrap: string | null): Promise<Settings | number> {
  const has = (n: string): boolean => opts.has(n);
  if ([has('topic'), has('include')].filter(Boolean).length !== 1) {
    throw new Usage('Exactly one of the following arguments is required: [topic], [include]');
  }
  const partition = intArg(opts, 'partition');
  if (partition !== undefined) {
    if (!has('topic')) throw new Usage('The topic is required when partition is specified.');
    if (has('from-beginning') && has('offset'))
      throw new Usage('Options from-beginning and offset cannot be specified together.');
  } else if (has('offset')) throw new Usage('The partition is required when offset is specified.');
  if (bootstrap === null) throw new Usage('Missing required argument "[bootstrap-server]"');
  // Kafka 4.4 (KIP-1147): --command-property / --command-config, the old names deprecated (a notice
  // on stdout; on stderr with --output json or table, whose stdout is data).
  const notice = (text: string): void => {
    (['json', 'table'].includes(opts.string('output') ?? '') ? io.stderr : io.stdout).write(`${text}\n`);
  };
  if (has('consumer-property') && has('command-property')) {
    throw new Usage('Options --consumer-property and --command-property cannot be specified together.');
  }
  if (has('consumer.config') && has('command-config'))
    throw new Usage('Options --consumer.config and --command-config cannot be specified together.');
  if (has('consumer-property')) {
    notice(
      'Option --consumer-property is deprecated and will be removed in a future version. Use --command-property instead.',
    );
  }
  if (has('consumer.config')) {
    notice(
      'Option --consumer.config is deprecated and will be removed in a future version. Use --command-config instead.',
    );
  }
  const configOpt = has('consumer.config') ? 'consumer.config' : 'command-config';
  const fromFile = has(configOpt) ? await loadPropertiesFile(opts.string(configOpt)!) : new Map<string, string>();
  const extra = parseKeyValueArgs(
    opts.valuesOf(has('consumer-property') ? 'consumer-property' : 'command-property').map(String),
  );
  const groups: string[] = [];
  if (has('group')) groups.push(opts.string('group')!);
  if (fromFile.has('group.id')) groups.push(fromFile.get('group.id')!);
  if (extra.has('group.id')) groups.push(extra.get('group.id')!);
  const distinct = [...new Set(groups)];
  if (distinct.length > 1) {
    throw new Usage(
      "The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. " +
        `Detected group ids: ${distinct.map((g) => `'${g}'`).join(', ')}`,
    );
  }
  if (distinct.length > 0 && partition !== undefined)
    throw new Usage('Options group and partition cannot be specified together.');
  const props = new Map<string, string>([...fromFile, ...extra]);
  if (props.has('auto.offset.reset')) {
    const v = props.get('auto.offset.reset')!;
    if (has('from-beginning') && v !== 'earliest') {
      io.stderr.write(
        `Can't simultaneously specify --from-beginning and 'auto.offset.reset=${v}', please remove one option\n`,
      );
      return 1;
    }
  } else props.set('auto.offset.reset', has('from-beginning') ? 'earliest' : 'latest');
  props.set('bootstrap.servers', bootstrap);
  if (!props.has('client.id')) props.set('client.id', 'console-consumer');
  if (has('isolation-level') || !props.has('isolation.level'))
    props.set('isolation.level', opts.string('isolation-level') ?? 'read_uncommitted');
  if (distinct.length === 0) {
    props.set('group.id', `console-consumer-${Math.floor(Math.random() * 100000)}`);
    if (!props.has('enable.auto.commit')) props.set('enable.auto.commit', 'false');
  } else props.set('group.id', distinct[0]!);
  let offset: Settings['offset'] = has('from-beginning') ? 'earliest' : 'latest';
  if (has('offset')) {
    const raw = opts.string('offset')!;
    const lower = raw.toLowerCase();
    if (lower === 'earliest' || lower === 'latest') offset = lower;
    else if (/^[+-]?\d+$/.test(raw) && BigInt(raw) >= 0n && BigInt(raw) < 2n ** 63n) offset = BigInt(raw);
    else
      throw new Usage(
        `The provided offset value '${raw}' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.`,
      );
  }
  const t = intArg(opts, 'timeout-ms', true);
  const formatter = opts.string('formatter')!;
  if (!FORMATTERS.has(formatter)) throw new Usage(formatter);
  if (has('formatter-property') && has('property'))
    throw new Usage('Options --property and --formatter-property cannot be specified together.');
  if (has('property')) {
    notice(
      'Option --property is deprecated and will be removed in a future version. Use --formatter-property instead.',
    );
  }
  const formatterProps = opts.has('formatter-config')
    ? await loadPropertiesFile(opts.string('formatter-config')!)
    : new Map<string, string>();
  if (opts.string('key-deserializer')) formatterProps.set('key.deserializer', opts.string('key-deserializer')!);
  if (opts.string('value-deserializer')) formatterProps.set('value.deserializer', opts.string('value-deserializer')!);
  const propertyOpt = has('property') ? 'property' : 'formatter-property';
  for (const [k, v] of parseKeyValueArgs(opts.valuesOf(propertyOpt).map(String))) formatterProps.set(k, v);
  return {
    consumerProps: props,
    offset,
    timeoutMs: t !== undefined && t >= 0 ? t : Infinity,
    maxMessages: -1,
    formatterProps,
    formatter,
  };
}

const num = (props: Map<string, string>, k: string): number | undefined =>
  props.has(k) && /^\d+$/.test(props.get(k)!.trim()) ? Number(props.get(k)!.trim()) : undefined;

function consumerConfig(p: Map<string, string>): Partial<ConsumerConfig> {
  const reset = (p.get('auto.offset.reset') ?? 'latest').trim().toLowerCase();
  if (reset !== 'earliest' && reset !== 'latest' && reset !== 'none') {
    throw new Error(
      `Invalid value ${reset} for configuration auto.offset.reset: String must be one of: latest, earliest, none`,
    );
  }
  const iso = (p.get('isolation.level') ?? 'read_uncommitted').trim().toLowerCase();
  if (iso !== 'read_committed' && iso !== 'read_uncommitted') {
    throw new Error(
      `Invalid value ${iso} for configuration isolation.level: String must be one of: read_committed, read_uncommitted`,
    );
  }
  const c: Partial<ConsumerConfig> = {
    groupId: p.get('group.id') ?? null,
    groupInstanceId: p.get('group.instance.id') ?? null,
    autoOffsetReset: reset,
    enableAutoCommit: (p.get('enable.auto.commit') ?? 'true').trim().toLowerCase() === 'true',
    isolationLevel: iso,
  };
  const map: [string, keyof ConsumerConfig][] = [
    ['auto.commit.interval.ms', 'autoCommitIntervalMs'],
    ['session.timeout.ms', 'sessionTimeoutMs'],
    ['heartbeat.interval.ms', 'heartbeatIntervalMs'],
    ['max.poll.interval.ms', 'maxPollIntervalMs'],
    ['fetch.max.wait.ms', 'fetchMaxWaitMs'],
    ['fetch.min.bytes', 'fetchMinBytes'],
    ['fetch.max.bytes', 'fetchMaxBytes'],
    ['max.partition.fetch.bytes', 'maxPartitionFetchBytes'],
    ['max.poll.records', 'maxPollRecords'],
    ['metadata.max.age.ms', 'metadataMaxAgeMs'],
    ['request.timeout.ms', 'requestTimeoutMs'],
  ];
  for (const [k, f] of map) {
    const v = num(p, k);
    if (v !== undefined) (c as Record<string, unknown>)[f] = v;
  }
  if (p.has('exclude.internal.topics'))
    c.excludeInternalTopics = p.get('exclude.internal.topics')!.trim().toLowerCase() === 'true';
  return c;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = consoleConsumerSpec();
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
  let format: OutputFormat;
  let s: Settings;
  let bootstrap;
  try {
    bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    format = parseOutputFormat(opts.string('output'));
    const r = await settings(opts, io, bootstrap?.value ?? null);
    if (typeof r === 'number') return r;
    s = r;
    s.maxMessages = intArg(opts, 'max-messages') ?? -1;
  } catch (e) {
    if (e instanceof Usage) return usage(e.message);
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  const { formatterConfig } = await import('./formatter.js');
  let fc: FormatterConfig;
  let cc: Partial<ConsumerConfig>;
  try {
    fc = formatterConfig(s.formatterProps, (m) => io.stderr.write(`ERROR ${m}\n`));
    cc = consumerConfig(s.consumerProps);
  } catch (e) {
    return usage(errorLine(e));
  }
  let client: KafkaClient | null = null;
  let consumer: Consumer | null = null;
  let count = 0;
  let code = 0;
  let stop = false;
  const onSignal = (): void => {
    stop = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const table: (string | number)[][] = [];
  try {
    client = await openClient({
      bootstrap: bootstrap!,
      properties: s.consumerProps,
      overrides: { clientId: s.consumerProps.get('client.id')! },
    });
    const { Consumer } = await import('../../client/consumer.js');
    consumer = new Consumer(client, cc, (m) => io.stderr.write(`WARN ${m}\n`));
    const topic = opts.string('topic');
    const partition = intArg(opts, 'partition');
    if (topic !== undefined && partition !== undefined) {
      const tp = { topic, partition };
      consumer.assign([tp]);
      if (s.offset === 'earliest') consumer.seekToBeginning([tp]);
      else if (s.offset === 'latest') consumer.seekToEnd([tp]);
      else consumer.seek(tp, s.offset);
    } else if (topic !== undefined) consumer.subscribe([topic]);
    else consumer.subscribe(new RegExp(opts.string('include')!));
    const { formatRecord, jsonRecord, tableRow } = await import('./formatter.js');
    const skip = opts.has('skip-message-on-error');
    let pending: ConsumerRecord[] = [];
    let last = Date.now();
    let broken = false;
    io.stdout.on?.('error', () => {
      broken = true;
    });
    while (!stop && !broken && (s.maxMessages === -1 || count < s.maxMessages)) {
      if (pending.length === 0) {
        const wait = s.timeoutMs === Infinity ? 1000 : Math.max(0, s.timeoutMs - (Date.now() - last));
        pending = await consumer.poll(Math.min(wait, 1000));
        if (pending.length === 0) {
          if (Date.now() - last > s.timeoutMs || (s.timeoutMs === 0 && Date.now() - last >= 0)) break;
          continue;
        }
        last = Date.now();
      }
      const r = pending.shift()!;
      count++;
      try {
        if (format === 'json') await write(io, JSON.stringify(jsonRecord(fc, r)) + '\n');
        else if (format === 'table') table.push(tableRow(fc, r));
        else if (s.formatter === DEFAULT_FORMATTER || s.formatter.endsWith('LoggingMessageFormatter'))
          await write(io, formatRecord(fc, r));
      } catch (e) {
        if (broken) break;
        if (!skip) throw e;
        io.stderr.write(`ERROR Error processing message, skipping this message: ${errorLine(e)}\n`);
      }
    }
    if (broken) io.stderr.write('Unable to write to standard out, closing consumer.\n');
    // Records fetched but not printed are not committed: rewind to the first of each partition.
    const first = new Map<string, ConsumerRecord>();
    for (const r of pending) if (!first.has(`${r.topic}-${r.partition}`)) first.set(`${r.topic}-${r.partition}`, r);
    for (const r of first.values()) consumer.seek({ topic: r.topic, partition: r.partition }, r.offset);
    if (format === 'table') {
      const { writeTable } = await import('../common/output.js');
      await writeTable(io, ['PARTITION', 'OFFSET', 'TIMESTAMP', 'HEADERS', 'KEY', 'VALUE'], table);
    }
  } catch (e) {
    io.stderr.write(`ERROR Unknown error when running consumer: ${errorLine(e)}\n`);
    writeStack(io, debug, e);
    code = 1;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await consumer?.close().catch(() => undefined);
    client?.close();
    io.stderr.write(`Processed a total of ${count} messages\n`);
  }
  return code;
}

function write(io: ToolIO, data: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = io.stdout.write(data, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else io.stdout.once('drain', () => resolve());
  });
}
