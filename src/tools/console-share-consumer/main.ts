// `tkafka console-share-consumer`: kafka-console-share-consumer.sh (org.apache.kafka.tools.consumer.
// ConsoleShareConsumer, Kafka 4.4): a share consumer (src/client/share-consumer.ts) in group
// --group (default `console-share-consumer`) reading --topic; every record printed by Kafka's
// DefaultMessageFormatter is acknowledged as accepted, or released (--release) or rejected
// (--reject); "Processed a total of N messages" on stderr at the end; --timeout-ms ends it with
// Kafka's `ERROR Error processing message, terminating consumer process:` and exit 0, as Kafka's.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { AcknowledgeType, ShareConsumer, ShareRecord } from '../../client/share-consumer.js';
import { JoptError, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { loadPropertiesFile, openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, writeStack } from '../common/errors.js';
import { helpOrVersion } from '../common/run-tool.js';
import { DEFAULT_FORMATTER, parseKeyValueArgs, parsingSpec } from '../console-consumer/spec.js';
import { consoleShareConsumerSpec } from './spec.js';

class Usage extends Error {}

const intArg = (opts: JoptOptions, name: string): number | undefined => {
  const v = opts.string(name);
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v) || Math.abs(Number(v)) > 2147483647)
    throw new JoptError(`Cannot parse argument '${v}' of option ${name}`);
  return Number(v);
};

interface Settings {
  group: string;
  topic: string;
  props: Map<string, string>;
  formatterProps: Map<string, string>;
  ack: AcknowledgeType;
  maxMessages: number;
  timeoutMs: number;
}

/** ConsoleShareConsumerOptions: Kafka's checks and messages (Usage: message + help, exit 1). */
async function settings(opts: JoptOptions, io: ToolIO): Promise<Settings> {
  const has = (n: string): boolean => opts.has(n);
  if (!has('topic')) throw new Usage('--topic is a required argument');
  if (has('reject') && has('release')) throw new Usage('At most one of --reject and --release may be specified.');
  if (has('consumer-property') && has('command-property'))
    throw new Usage('Options --consumer-property and --command-property cannot be specified together.');
  if (has('consumer-config') && has('command-config'))
    throw new Usage('Options --consumer-config and --command-config cannot be specified together.');
  if (has('property') && has('formatter-property'))
    throw new Usage('Options --property and --formatter-property cannot be specified together.');
  for (const [old, neu] of [
    ['consumer-property', 'command-property'],
    ['consumer-config', 'command-config'],
    ['property', 'formatter-property'],
  ] as const)
    if (has(old))
      io.stdout.write(`Option --${old} is deprecated and will be removed in a future version. Use --${neu} instead.\n`);
  const configOpt = has('consumer-config') ? 'consumer-config' : 'command-config';
  const fromFile = has(configOpt) ? await loadPropertiesFile(opts.string(configOpt)!) : new Map<string, string>();
  const extra = parseKeyValueArgs(
    opts.valuesOf(has('consumer-property') ? 'consumer-property' : 'command-property').map(String),
  );
  const groups = new Set<string>();
  if (has('group')) groups.add(opts.string('group')!);
  if (fromFile.has('group.id')) groups.add(fromFile.get('group.id')!);
  if (extra.has('group.id')) groups.add(extra.get('group.id')!);
  if (groups.size > 1)
    throw new Usage(
      "The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer-config') do not match. " +
        `Detected group ids: ${[...groups].map((g) => `'${g}'`).join(', ')}`,
    );
  const props = new Map<string, string>([...fromFile, ...extra]);
  if (!props.has('client.id')) props.set('client.id', 'console-share-consumer');
  const formatter = opts.string('formatter') ?? DEFAULT_FORMATTER;
  if (formatter !== DEFAULT_FORMATTER) throw new Usage(`The formatter ${formatter} is not supported by tkafka.`);
  const formatterProps = has('formatter-config')
    ? await loadPropertiesFile(opts.string('formatter-config')!)
    : new Map<string, string>();
  if (opts.string('key-deserializer')) formatterProps.set('key.deserializer', opts.string('key-deserializer')!);
  if (opts.string('value-deserializer')) formatterProps.set('value.deserializer', opts.string('value-deserializer')!);
  for (const [k, v] of parseKeyValueArgs(
    opts.valuesOf(has('property') ? 'property' : 'formatter-property').map(String),
  ))
    formatterProps.set(k, v);
  return {
    group: [...groups][0] ?? 'console-share-consumer',
    topic: opts.string('topic')!,
    props,
    formatterProps,
    ack: has('reject') ? 'reject' : has('release') ? 'release' : 'accept',
    maxMessages: intArg(opts, 'max-messages') ?? -1,
    timeoutMs: intArg(opts, 'timeout-ms') ?? -1,
  };
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = consoleShareConsumerSpec();
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
  let s: Settings;
  let bootstrap;
  try {
    bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    if (!bootstrap) throw new Usage('Missing required argument "[bootstrap-server]"');
    s = await settings(opts, io);
  } catch (e) {
    if (e instanceof Usage || e instanceof JoptError) return usage(e.message);
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  const { formatterConfig, formatRecord } = await import('../console-consumer/formatter.js');
  let fc;
  try {
    fc = formatterConfig(s.formatterProps, (m) => io.stderr.write(`ERROR ${m}\n`));
  } catch (e) {
    return usage(errorLine(e));
  }
  let client: KafkaClient | null = null;
  let consumer: ShareConsumer | null = null;
  let count = 0;
  let code = 0;
  let stop = false;
  const onSignal = (): void => {
    stop = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    client = await openClient({
      bootstrap,
      overrides: { clientId: s.props.get('client.id')! },
      toolProperties: s.props,
    });
    const { ShareConsumer } = await import('../../client/share-consumer.js');
    consumer = new ShareConsumer(client, { groupId: s.group, topics: [s.topic] });
    await consumer.subscribe();
    let pending: ShareRecord[] = [];
    let last = Date.now();
    while (!stop && (s.maxMessages === -1 || count < s.maxMessages)) {
      if (pending.length === 0) {
        const wait = s.timeoutMs < 0 ? 1000 : Math.max(0, s.timeoutMs - (Date.now() - last));
        pending = await consumer.poll(Math.min(wait, 1000));
        if (pending.length === 0) {
          if (s.timeoutMs >= 0 && Date.now() - last >= s.timeoutMs) {
            // Kafka: the consumer's TimeoutException ends the loop with this log line (exit 0)
            io.stderr.write(
              `[${log4jTime(new Date())}] ERROR Error processing message, terminating consumer process:  (org.apache.kafka.tools.consumer.ConsoleShareConsumer)\n` +
                'org.apache.kafka.common.errors.TimeoutException\n',
            );
            break;
          }
          continue;
        }
        last = Date.now();
      }
      const r = pending.shift()!;
      count++;
      await write(io, formatRecord(fc, r));
      consumer.acknowledge(r, s.ack);
    }
    // records acquired but not printed go back to the group
    for (const r of pending) consumer.acknowledge(r, 'release');
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

/** log4j's `%d`: `yyyy-MM-dd HH:mm:ss,SSS`, local time. */
function log4jTime(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
}
