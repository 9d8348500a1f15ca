// `tkafka consumer-perf-test`: kafka-consumer-perf-test.sh (org.apache.kafka.tools.ConsumerPerformance,
// Kafka 4.4): the same jopt flags and checks; joins the group, consumes --num-records records (or
// stops after --timeout ms without records) and prints Kafka's lines: the header, detailed rows
// every --reporting-interval with --show-detailed-stats, else one summary row
// (`start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
// rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec`). On a terminal (unless
// --no-tty or NO_COLOR) a live progress view (ink) runs below Kafka's lines.
//
// Client properties as Kafka's ConsumerPerfOptions.props(): --consumer.config (deprecated) or
// --command-config, then --command-property over them, then the tool's own keys (bootstrap.servers,
// group.id, max.partition.fetch.bytes, auto.offset.reset) over all; the security keys
// (security.protocol, sasl.*, ssl.*) reach the connection through openClient's toolProperties.
//
// Differences, on purpose: the cluster may come from TKAFKA_BOOTSTRAP_SERVER or the active
// profile; rebalance time is the time spent without an assignment (tkafka's consumer has no
// rebalance listener); errors are one line on stderr (exit 1); --print-metrics prints the metrics
// tkafka's consumer keeps, in Kafka's layout.
import type { ToolIO } from '../common/io.js';
import { VERSION } from '../common/version.js';
import type { ConsumerConfig } from '../../client/consumer.js';
import { parseOrUsage, printUsage } from '../common/jopt.js';
import { javaFixed, simpleDateFormat } from '../producer-perf-test/java-format.js';
import { metricsLines } from '../producer-perf-test/main.js';
import { parseKeyValueArgs } from '../console-consumer/spec.js';
import { DEFAULT_DATE_FORMAT, consumerPerfSpec, defaultGroup } from './spec.js';

const HEADER_EXTRA = ', rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';

export function headerLine(detailed: boolean): string {
  return detailed
    ? `time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${HEADER_EXTRA}`
    : `start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${HEADER_EXTRA}`;
}

/** ConsumerPerformance.printConsumerProgress (one detailed row). */
export function progressLine(o: {
  id: number;
  bytesRead: number;
  lastBytesRead: number;
  messagesRead: number;
  lastMessagesRead: number;
  startMs: number;
  endMs: number;
  format: (ms: number) => string;
  joinTimeMsInSingleRound: number;
}): string {
  const elapsedMs = o.endMs - o.startMs;
  const totalMbRead = o.bytesRead / (1024 * 1024);
  const intervalMbRead = (o.bytesRead - o.lastBytesRead) / (1024 * 1024);
  const intervalMbPerSec = (1000.0 * intervalMbRead) / elapsedMs;
  const intervalMessagesPerSec = ((o.messagesRead - o.lastMessagesRead) / elapsedMs) * 1000.0;
  const fetchTimeMs = elapsedMs - o.joinTimeMsInSingleRound;
  const fetchMbPerSec = fetchTimeMs <= 0 ? 0.0 : (1000.0 * intervalMbRead) / fetchTimeMs;
  const fetchMsgPerSec = fetchTimeMs <= 0 ? 0.0 : (1000.0 * (o.messagesRead - o.lastMessagesRead)) / fetchTimeMs;
  return (
    `${o.format(o.endMs)}, ${o.id}, ${javaFixed(totalMbRead, 4)}, ${javaFixed(intervalMbPerSec, 4)}, ${o.messagesRead}, ${javaFixed(intervalMessagesPerSec, 4)}` +
    `, ${o.joinTimeMsInSingleRound}, ${fetchTimeMs}, ${javaFixed(fetchMbPerSec, 4)}, ${javaFixed(fetchMsgPerSec, 4)}`
  );
}

/** The final summary row. */
export function summaryLine(o: {
  startMs: number;
  endMs: number;
  bytes: number;
  messages: number;
  joinTimeMs: number;
  format: (ms: number) => string;
}): string {
  const elapsedSec = (o.endMs - o.startMs) / 1000.0;
  const fetchTimeInMs = o.endMs - o.startMs - o.joinTimeMs;
  const totalMbRead = o.bytes / (1024 * 1024);
  return (
    `${o.format(o.startMs)}, ${o.format(o.endMs)}, ${javaFixed(totalMbRead, 4)}, ${javaFixed(totalMbRead / elapsedSec, 4)}, ${o.messages}, ` +
    `${javaFixed(o.messages / elapsedSec, 4)}, ${o.joinTimeMs}, ${fetchTimeInMs}, ${javaFixed(totalMbRead / (fetchTimeInMs / 1000.0), 4)}, ` +
    `${javaFixed(o.messages / (fetchTimeInMs / 1000.0), 4)}`
  );
}

function consumerConfig(props: Map<string, string>): Partial<ConsumerConfig> {
  const c: Partial<ConsumerConfig> = {};
  const int = (k: string): number | undefined => {
    const v = props.get(k);
    if (v === undefined) return undefined;
    if (!/^[+-]?\d+$/.test(v.trim()))
      throw new Error(`Invalid value ${v} for configuration ${k}: Not a number of type INT`);
    return Number(v.trim());
  };
  const set = <K extends keyof ConsumerConfig>(k: K, v: ConsumerConfig[K] | undefined): void => {
    if (v !== undefined) c[k] = v;
  };
  set('sessionTimeoutMs', int('session.timeout.ms'));
  set('heartbeatIntervalMs', int('heartbeat.interval.ms'));
  set('maxPollIntervalMs', int('max.poll.interval.ms'));
  set('fetchMaxWaitMs', int('fetch.max.wait.ms'));
  set('fetchMinBytes', int('fetch.min.bytes'));
  set('fetchMaxBytes', int('fetch.max.bytes'));
  set('maxPollRecords', int('max.poll.records'));
  set('autoCommitIntervalMs', int('auto.commit.interval.ms'));
  set('requestTimeoutMs', int('request.timeout.ms'));
  if (props.has('enable.auto.commit'))
    c.enableAutoCommit = props.get('enable.auto.commit')!.trim().toLowerCase() === 'true';
  const iso = props.get('isolation.level')?.trim();
  if (iso === 'read_committed' || iso === 'read_uncommitted') c.isolationLevel = iso;
  if (props.has('group.instance.id')) c.groupInstanceId = props.get('group.instance.id')!;
  return c;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = consumerPerfSpec(defaultGroup());
  const parsed = parseOrUsage(spec, argv, io, VERSION);
  if ('exitCode' in parsed) return parsed.exitCode;
  const o = parsed.options;
  // ConsumerPerfOptions' checks, in Kafka's order (--bootstrap-server may also come from the
  // environment or the profile: checked when the connection is resolved).
  const exactlyOne = (a: string, b: string): string | null =>
    o.has(a) === o.has(b) ? `Exactly one of the following arguments is required: [${a}], [${b}]` : null;
  const oneOf = exactlyOne('topic', 'include') ?? exactlyOne('messages', 'num-records');
  if (oneOf !== null) return printUsage(spec, io, oneOf);
  if (o.has('consumer.config') && o.has('command-config'))
    return printUsage(spec, io, 'Option "[consumer.config]" can\'t be used with option "[command-config]"');
  if (o.has('messages')) io.stdout.write('Warning: --messages is deprecated. Use --num-records instead.\n');
  if (o.has('consumer.config'))
    io.stdout.write('Warning: --consumer.config is deprecated. Use --command-config instead.\n');
  let include: RegExp | null = null;
  if (o.has('include')) {
    try {
      include = new RegExp(o.string('include')!);
    } catch (e) {
      io.stderr.write(`${(e as Error).message}\n`);
      return 1;
    }
  }
  const reportingRaw = o.string('reporting-interval')!;
  if (!/^\d+$/.test(reportingRaw))
    return printUsage(spec, io, `Cannot parse argument '${reportingRaw}' of option reporting-interval`);

  let format: (ms: number) => string;
  try {
    format = simpleDateFormat(o.string('date-format') ?? DEFAULT_DATE_FORMAT);
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }
  const reportingIntervalMs = Number(reportingRaw);
  if (reportingIntervalMs <= 0) {
    io.stderr.write('Reporting interval must be greater than 0.\n');
    return 1;
  }
  const numMessages = Number(o.valueOf(o.has('messages') ? 'messages' : 'num-records'));
  const timeoutMs = Number(o.valueOf('timeout') ?? 10_000n);
  const detailed = o.has('show-detailed-stats');
  const topic = o.string('topic') ?? null;
  const group = o.string('group')!;

  const [{ resolveBootstrap, openClient, loadPropertiesFile }, { createProgress }] = await Promise.all([
    import('../common/connection.js'),
    import('../common/live/progress.js'),
  ]);
  let client: Awaited<ReturnType<typeof openClient>> | null = null;
  let consumer: import('../../client/consumer.js').Consumer | null = null;
  let progress: import('../common/live/progress.js').Progress | null = null;
  const out = (line: string): void => {
    if (progress) progress.line(line);
    else io.stdout.write(`${line}\n`);
  };
  try {
    const configOpt = o.has('consumer.config') ? 'consumer.config' : 'command-config';
    const props = o.has(configOpt) ? await loadPropertiesFile(o.string(configOpt)!) : new Map<string, string>();
    for (const [k, v] of parseKeyValueArgs(o.valuesOf('command-property').map(String))) props.set(k, v);
    const bootstrap = await resolveBootstrap(o.string('bootstrap-server') ?? null, io.env);
    if (!bootstrap) return printUsage(spec, io, 'Missing required argument "[bootstrap-server]"');
    props.set('bootstrap.servers', bootstrap.value);
    props.set('group.id', group);
    props.set('max.partition.fetch.bytes', String(o.valueOf('fetch-size')));
    props.set('auto.offset.reset', o.has('from-latest') ? 'latest' : 'earliest');
    if (!props.has('client.id')) props.set('client.id', 'perf-consumer-client');
    const clientId = props.get('client.id')!;
    client = await openClient({ bootstrap, overrides: { clientId }, toolProperties: props });
    const { Consumer } = await import('../../client/consumer.js');
    consumer = new Consumer(
      client,
      {
        ...consumerConfig(props),
        groupId: group,
        autoOffsetReset: o.has('from-latest') ? 'latest' : 'earliest',
        maxPartitionFetchBytes: Number(o.valueOf('fetch-size')),
      },
      (msg) => io.stderr.write(`WARN ${msg}\n`),
    );

    progress = createProgress(io, {
      title: `Consuming from ${topic ?? `topics matching ${include!.source}`}`,
      total: numMessages,
      unit: 'messages',
    });
    if (!o.has('hide-header')) out(headerLine(detailed));

    const startMs = Date.now();
    let joinTimeMs = 0;
    let joinTimeMsInSingleRound = 0;
    let joinStartMs = startMs;
    let assigned = false;
    let bytesRead = 0;
    let messagesRead = 0;
    let lastBytesRead = 0;
    let lastMessagesRead = 0;
    let currentTimeMs = startMs;
    let lastReportTimeMs = currentTimeMs;
    let lastConsumedTimeMs = currentTimeMs;
    consumer.subscribe(topic !== null ? [topic] : include!);
    while (messagesRead < numMessages && currentTimeMs - lastConsumedTimeMs <= timeoutMs) {
      const records = await consumer.poll(100);
      currentTimeMs = Date.now();
      const nowAssigned = consumer.assignment().length > 0;
      if (nowAssigned && !assigned) {
        joinTimeMs += currentTimeMs - joinStartMs;
        joinTimeMsInSingleRound += currentTimeMs - joinStartMs;
      } else if (!nowAssigned && assigned) joinStartMs = currentTimeMs;
      assigned = nowAssigned;
      if (records.length > 0) lastConsumedTimeMs = currentTimeMs;
      for (const r of records) {
        messagesRead += 1;
        if (r.key) bytesRead += r.key.length;
        if (r.value) bytesRead += r.value.length;
        if (currentTimeMs - lastReportTimeMs >= reportingIntervalMs) {
          if (detailed) {
            out(
              progressLine({
                id: 0,
                bytesRead,
                lastBytesRead,
                messagesRead,
                lastMessagesRead,
                startMs: lastReportTimeMs,
                endMs: currentTimeMs,
                format,
                joinTimeMsInSingleRound,
              }),
            );
          }
          joinTimeMsInSingleRound = 0;
          lastReportTimeMs = currentTimeMs;
          lastMessagesRead = messagesRead;
          lastBytesRead = bytesRead;
        }
      }
      const sec = Math.max(currentTimeMs - startMs, 1) / 1000;
      progress.update(messagesRead, {
        details: [`${javaFixed(bytesRead / (1024 * 1024) / sec, 2)} MB/sec`, assigned ? 'assigned' : 'joining group'],
      });
    }
    if (messagesRead < numMessages) {
      out(
        `WARNING: Exiting before consuming the expected number of messages: timeout (${timeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.`,
      );
    }
    const endMs = Date.now();
    await progress.finish();
    progress = null;
    await consumer.close().catch(() => undefined);
    consumer = null;
    if (!detailed) out(summaryLine({ startMs, endMs, bytes: bytesRead, messages: messagesRead, joinTimeMs, format }));
    if (o.has('print-metrics')) {
      const tags = `{client-id=${clientId}}`;
      const sec = Math.max(endMs - startMs, 1) / 1000;
      const m = new Map<string, number>([
        [`consumer-fetch-manager-metrics:records-consumed-total:${tags}`, messagesRead],
        [`consumer-fetch-manager-metrics:records-consumed-rate:${tags}`, messagesRead / sec],
        [`consumer-fetch-manager-metrics:bytes-consumed-total:${tags}`, bytesRead],
        [`consumer-fetch-manager-metrics:bytes-consumed-rate:${tags}`, bytesRead / sec],
        [`consumer-coordinator-metrics:rebalance-latency-total:${tags}`, joinTimeMs],
      ]);
      for (const l of metricsLines(m)) out(l);
    }
    return 0;
  } catch (e) {
    await progress?.finish();
    io.stderr.write(`${(e as Error).message ?? String(e)}\n`);
    if (io.env.TKAFKA_DEBUG && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return 1;
  } finally {
    await consumer?.close().catch(() => undefined);
    client?.close();
  }
}
