// `tkafka replica-verification`: kafka-replica-verification.sh (org.apache.kafka.tools.ReplicaVerificationTool,
// Kafka 4.4, deprecated there). Lists the topics matching --topics-include (internal ones included),
// finds each partition's starting offset (--time: -1 latest, -2 earliest, else a timestamp), then in
// rounds fetches every partition from every one of its replicas (Fetch as the debugging consumer,
// replica id -2, from followers too) and compares the replicas batch by batch (verify.ts, ReplicaBuffer).
// Kafka's fetcher threads and barriers are one loop here: each round's fetches run concurrently, then
// one verification. It runs until interrupted, as Kafka's does; `--max-reports N` (tkafka) ends it with
// exit 0 after N max-lag lines. Replicas that disagree on a batch's offset: the line, exit 1.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { FetchResponse } from '../../protocol/generated/protocol/Fetch.js';
import { JoptError, parseJopt, printUsage, type JoptOptions, type JoptToolSpec } from '../common/jopt.js';
import { helpOrVersion } from '../common/run-tool.js';
import { errorLine } from '../common/errors.js';
import { DEBUG_OPTION } from '../topics/spec.js';
import { hashSetOrder, tpHash, tpKey, type TopicPartition } from '../reassign-partitions/json.js';
import { ReplicaBuffer, ReplicaOffsetMismatch, formatDate, type FetchedPartition } from './verify.js';

export const REPLICA_VERIFICATION_SPEC: JoptToolSpec = {
  name: 'replica-verification',
  kafkaScript: 'kafka-replica-verification.sh',
  description: 'Validate that all replicas for a set of topics have the same data.',
  options: [
    {
      names: ['broker-list'],
      description: 'REQUIRED: The list of hostname and port of the server to connect to.',
      arg: { name: 'hostname:port,...,hostname:port' },
      complete: 'host:port',
    },
    {
      names: ['bootstrap-server'],
      description: 'tkafka: the same as --broker-list (the name the other tools use).',
      arg: { name: 'hostname:port,...,hostname:port' },
      extension: true,
      complete: 'host:port',
      invalidWith: ['broker-list'],
    },
    {
      names: ['fetch-size'],
      description: 'The fetch size of each request.',
      arg: { name: 'bytes', type: 'Integer', defaults: [1048576] },
    },
    {
      names: ['max-wait-ms'],
      description: 'The max amount of time each fetch request waits.',
      arg: { name: 'ms', type: 'Integer', defaults: [1000] },
    },
    {
      names: ['topics-include'],
      description: 'List of topics to verify replica consistency.',
      arg: { name: 'Java regex (String)', defaults: ['.*'] },
    },
    {
      names: ['time'],
      description: 'Timestamp for getting the initial offsets.',
      arg: { name: 'timestamp/-1(latest)/-2(earliest)', type: 'Long', defaults: [-1n] },
    },
    {
      names: ['report-interval-ms'],
      description: 'The reporting interval.',
      arg: { name: 'ms', type: 'Long', defaults: [30000n] },
    },
    {
      names: ['max-reports'],
      description: 'tkafka: stop (exit 0) after this many "max lag" reports instead of running until interrupted.',
      arg: { name: 'count', type: 'Integer' },
      extension: true,
    },
    DEBUG_OPTION,
  ],
};

/** An error Kafka's main prints as its message (then a stack trace: tkafka with --debug), exit 1. */
class VerificationError extends Error {
  override name = 'VerificationError';
}

/** ToolsUtils.validateBootstrapServer: the message, or null when valid. */
export function bootstrapProblem(value: string): string | null {
  if (value.trim() === '') return 'Error while validating the bootstrap address\n';
  const parts = value.includes(',') ? value.split(',') : [value];
  const ok = parts.filter((hp) => /^.*?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)$/.test(hp));
  return ok.length === 0 || ok.length !== parts.length
    ? 'Please provide valid host:port like host1:9091,host2:9092\n'
    : null;
}

/** TopicFilter.IncludeList: Kafka's preprocessing of the regex, then a whole-name match. */
export function includeFilter(raw: string): (topic: string) => boolean {
  let re: RegExp;
  const regex = raw
    .trim()
    .replace(/,/g, '|')
    .replace(/ /g, '')
    .replace(/^["']+/, '')
    .replace(/["']+$/, '');
  try {
    re = new RegExp(`^(?:${regex})$`);
  } catch {
    throw new VerificationError(`${raw} is an invalid regex`);
  }
  return (t) => re.test(t);
}

/** The Fetch Kafka's ReplicaFetcher sends (FetchRequest.Builder.forReplica(latest, -2, -1, maxWait, 1, ...)). */
export function fetchBody(
  version: number,
  partitions: readonly { tp: TopicPartition; topicId: string; offset: number }[],
  maxWaitMs: number,
  fetchSize: number,
): unknown {
  const topics = new Map<string, { topicId: string; ps: { partition: number; offset: number }[] }>();
  for (const p of partitions) {
    const t = topics.get(p.tp.topic) ?? { topicId: p.topicId, ps: [] };
    t.ps.push({ partition: p.tp.partition, offset: p.offset });
    topics.set(p.tp.topic, t);
  }
  return {
    clusterId: null,
    replicaId: version >= 15 ? -1 : -2,
    replicaState: { replicaId: version >= 15 ? -2 : -1, replicaEpoch: -1n },
    maxWaitMs,
    minBytes: 1,
    maxBytes: 2147483647,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [...topics].map(([topic, t]) => ({
      topic,
      topicId: t.topicId,
      partitions: t.ps.map((p) => ({
        partition: p.partition,
        currentLeaderEpoch: -1,
        fetchOffset: BigInt(p.offset),
        lastFetchedEpoch: -1,
        logStartOffset: 0n,
        partitionMaxBytes: fetchSize,
      })),
    })),
    forgottenTopicsData: [],
    rackId: '',
  };
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let opts: JoptOptions;
  try {
    opts = parseJopt(REPLICA_VERIFICATION_SPEC, argv);
  } catch (e) {
    if (e instanceof JoptError) {
      // thrown from the options' constructor: main prints the message (and a stack trace)
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const early = await helpOrVersion(REPLICA_VERIFICATION_SPEC, argv, opts, io);
  if (early !== null) return early;
  const usage = (m: string): number => printUsage(REPLICA_VERIFICATION_SPEC, io, m);
  if (opts.has('broker-list') && opts.has('bootstrap-server'))
    return usage('Option "[bootstrap-server]" can\'t be used with option "[broker-list]"');
  const brokerList = opts.string('broker-list') ?? opts.string('bootstrap-server');
  if (brokerList === undefined) return usage('Missing required argument "[broker-list]"');
  const bad = bootstrapProblem(brokerList);
  if (bad !== null) return usage(bad);
  const debug = opts.has('debug');
  const out = (l: string): void => void io.stdout.write(`${l}\n`);
  let client: KafkaClient | null = null;
  try {
    const fetchSize = opts.number('fetch-size')!;
    const maxWaitMs = opts.number('max-wait-ms')!;
    const time = BigInt(opts.valueOf('time') as bigint);
    const reportInterval = Number(opts.valueOf('report-interval-ms') as bigint);
    const maxReports = opts.has('max-reports') ? opts.number('max-reports')! : Infinity;
    const [{ KafkaClient }, { parseBootstrapServers }, topicsApi, { describeCluster }, { listOffsets }] =
      await Promise.all([
        import('../../client/client.js'),
        import('../../client/config.js'),
        import('../../client/admin/topics.js'),
        import('../../client/admin/cluster.js'),
        import('../../client/admin/offsets.js'),
      ]);
    client = new KafkaClient({ bootstrapServers: parseBootstrapServers(brokerList), clientId: 'ReplicaVerification' });
    const names = (await topicsApi.listTopics(client, { listInternal: true })).map((t) => t.name);
    const described = await topicsApi.describeTopics(client, names);
    const nodes = new Set((await describeCluster(client)).nodes.map((n) => n.id));
    const allowed = includeFilter(opts.string('topics-include')!);
    const topics = [...described.values()]
      .map((o) => {
        if (!o.ok) throw o.error;
        return o.value;
      })
      .filter((t) => allowed(t.name));
    if (topics.length === 0) {
      io.stderr.write(
        'ERROR No topics found. [topics-include] if specified, is either filtering out all topics or there is no topic.\n',
      );
      return 1;
    }
    const topicIds = new Map(topics.map((t) => [t.name, t.topicId]));
    const partitions: TopicPartition[] = [];
    const byBroker = new Map<number, TopicPartition[]>();
    for (const t of topics) {
      for (const p of [...t.partitions].sort((a, b) => a.partition - b.partition)) {
        const tp = { topic: t.name, partition: p.partition };
        partitions.push(tp);
        for (const r of p.replicas) byBroker.set(r, [...(byBroker.get(r) ?? []), tp]);
      }
    }
    // KafkaConsumer endOffsets (-1) / beginningOffsets (-2) / offsetsForTimes (which refuses other negatives)
    if (time < 0n && time !== -1n && time !== -2n) {
      const first = hashSetOrder(partitions, tpHash, tpKey)[0]!;
      throw new VerificationError(
        `The target time for partition ${tpKey(first)} is ${time}. The target time cannot be negative.`,
      );
    }
    const offsets = await listOffsets(client, partitions, time);
    const initial = new Map<string, number>();
    for (const tp of partitions) {
      const o = offsets.get(tpKey(tp));
      if (!o) continue;
      if (!o.ok) throw o.error;
      if (o.value.offset < 0n && time >= 0n)
        // offsetsForTimes maps a timestamp past every record to null: Kafka's tool fails on it
        throw new VerificationError(
          'Cannot invoke "org.apache.kafka.clients.consumer.OffsetAndTimestamp.offset()" because the return value of "java.util.Map$Entry.getValue()" is null',
        );
      initial.set(tpKey(tp), Number(o.value.offset));
    }
    const buffer = new ReplicaBuffer(partitions, initial, reportInterval);
    out(`${formatDate(Date.now())}: verification process is started`);
    let reports = 0;
    const println = (l: string): void => {
      out(l);
      if (l.includes(': max lag is ')) reports++;
    };
    const c = client;
    for (;;) {
      await Promise.all(
        [...byBroker].map(async ([broker, tps]) => {
          let resp: FetchResponse | null = null;
          if (nodes.has(broker)) {
            try {
              const r = await c.send<FetchResponse>(
                { node: broker },
                'Fetch',
                (v: number) =>
                  fetchBody(
                    v,
                    tps.map((tp) => ({ tp, topicId: topicIds.get(tp.topic)!, offset: buffer.getOffset(tp) })),
                    maxWaitMs,
                    fetchSize,
                  ),
                { timeoutMs: 30000 + maxWaitMs },
              );
              resp = r.body;
            } catch {
              // ReplicaFetcher: a failed fetch counts as an empty answer (high watermark -1)
              resp = null;
            }
          }
          const got = new Set<string>();
          for (const t of resp?.responses ?? []) {
            const topic = t.topic !== '' ? t.topic : [...topicIds].find(([, id]) => id === t.topicId)?.[0];
            if (topic === undefined) continue;
            for (const p of t.partitions) {
              const tp = { topic, partition: p.partitionIndex };
              const data: FetchedPartition = {
                highWatermark: Number(p.highWatermark),
                records: (p.records as Uint8Array | null) ?? null,
              };
              buffer.addFetchedData(tp, broker, data);
              got.add(tpKey(tp));
            }
          }
          for (const tp of tps)
            if (!got.has(tpKey(tp))) buffer.addFetchedData(tp, broker, { highWatermark: -1, records: null });
        }),
      );
      buffer.verifyCheckSum(println);
      if (reports >= maxReports) return 0;
    }
  } catch (e) {
    if (e instanceof ReplicaOffsetMismatch) return 1;
    io.stderr.write(`${e instanceof VerificationError ? e.message : errorLine(e)}\n`);
    if (debug && e instanceof Error && e.stack) io.stderr.write(`${e.stack}\n`);
    return 1;
  } finally {
    client?.close();
  }
}
