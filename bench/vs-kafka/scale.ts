// bench:scale — tkafka and Apache Kafka 4.4.0 side by side at scale: 10,000 partitions on one
// combined node (100 topics × 100 partitions) and 1,000 concurrent client connections. Per broker,
// one at a time (targets.ts starts each fresh): partition creation, a franz-go load spread over
// every partition, Metadata latency (all topics and one topic), RSS and open fds, start-up after a
// clean and after an unclean (SIGKILL) shutdown until Metadata shows a leader for every partition,
// then 1,000 raw connections held open at once.
//
//   npm run bench:scale [-- --impl tkafka|kafka|both] [--records N] [--connections N]
//                       [--topics N] [--partitions N]
//   TKAFKA_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' adds node flags to the tkafka broker's command.
//
// The npm script runs node through `bash -c 'ulimit -Sn $(ulimit -Hn) && exec …'` (the soft limit on
// open files raised to the hard one), so both brokers, children of this process, inherit it; the
// limit is printed with the figures. Bounded: every loop has a count and a deadline; loopback only.
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { buildRecordBatchSync } from '../../src/protocol/records/batch-build.js';
import { RawClient } from '../../test/helpers/raw-client.js';
import { ensureFranzLoad, franzProduce } from './franz-load.js';
import { startTarget, type Impl, type Target } from './targets.js';

const { values: opts } = parseArgs({
  options: {
    impl: { type: 'string', default: 'both' },
    topics: { type: 'string', default: '100' },
    partitions: { type: 'string', default: '100' },
    records: { type: 'string', default: '500000' },
    connections: { type: 'string', default: '1000' },
  },
});
const TOPICS = Number(opts.topics);
const PARTITIONS = Number(opts.partitions);
const TOTAL = TOPICS * PARTITIONS;
const RECORDS = Number(opts.records);
const CONNECTIONS = Number(opts.connections);
const METADATA_REQUESTS = 50;
/** Topics per CreateTopics request: Kafka's controller refuses a user operation of more than 10,000 records. */
const TOPICS_PER_CREATE = 10;
const topicName = (i: number) => `scale-${String(i).padStart(3, '0')}`;
const TOPIC_NAMES = Array.from({ length: TOPICS }, (_, i) => topicName(i));

interface Figures {
  createMs: number;
  produceRecsPerSec: number;
  produceSeconds: number;
  emptyPartitions: number;
  mdAllP50: number;
  mdAllP99: number;
  mdOneP50: number;
  mdOneP99: number;
  rssMiB: number;
  fds: number;
  cleanStartMs: number;
  cleanFirstMetadataMs: number;
  uncleanStartMs: number;
  uncleanFirstMetadataMs: number;
  connectMs: number;
  connRssMiB: number;
  connFds: number;
  connMdP50: number;
  connMdP99: number;
}

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const fdCount = (pid: number | undefined): number => (pid === undefined ? NaN : readdirSync(`/proc/${pid}/fd`).length);

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!;
};

/** Bounds one step: rejects after `ms` (a bound on a step that can hang, not a wait). */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

/** Partitions of the bench's topics with a leader and no error, from one all-topics Metadata. */
async function ledPartitions(c: RawClient): Promise<number> {
  const md = await c.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
  let led = 0;
  for (const t of md.topics) {
    if (t.errorCode !== 0 || !t.name?.startsWith('scale-')) continue;
    for (const p of t.partitions) if (p.errorCode === 0 && p.leaderId >= 0) led++;
  }
  return led;
}

/**
 * Polls (every 50 ms, ≤ `timeoutMs`) until every partition has a leader; ms from `t0`. `failed`
 * ends the wait early with the launch's error.
 */
async function untilAllLed(
  port: () => number,
  t0: number,
  timeoutMs: number,
  failed: () => unknown = () => null,
): Promise<{ firstMs: number; allMs: number }> {
  let firstMs = NaN;
  const deadline = t0 + timeoutMs;
  while (performance.now() < deadline) {
    if (failed()) throw failed() as Error;
    let c: RawClient | null = null;
    try {
      c = await within(2000, 'connect', RawClient.connect(port()));
      const led = await within(10_000, 'Metadata', ledPartitions(c));
      if (Number.isNaN(firstMs)) firstMs = performance.now() - t0;
      if (led === TOTAL) return { firstMs, allMs: performance.now() - t0 };
    } catch {
      // not listening yet, or still loading
    } finally {
      c?.close();
    }
    await delay(50);
  }
  throw new Error(`not all ${TOTAL} partitions had a leader within ${timeoutMs} ms`);
}

async function createAll(port: number): Promise<number> {
  const t0 = performance.now();
  const c = await RawClient.connect(port);
  try {
    for (let i = 0; i < TOPICS; i += TOPICS_PER_CREATE) {
      const names = TOPIC_NAMES.slice(i, i + TOPICS_PER_CREATE);
      const r = await within(
        120_000,
        'CreateTopics',
        c.request(ApiKey.CreateTopics, 7, {
          topics: names.map((name) => ({
            name,
            numPartitions: PARTITIONS,
            replicationFactor: 1,
            assignments: [],
            configs: [],
          })),
          timeoutMs: 60_000,
          validateOnly: false,
        }),
      );
      for (const t of r.topics)
        if (t.errorCode !== 0) throw new Error(`CreateTopics ${t.name}: ${t.errorCode} ${t.errorMessage}`);
    }
  } finally {
    c.close();
  }
  const { allMs } = await untilAllLed(() => port, t0, 300_000);
  return allMs;
}

/** p50/p99 of METADATA_REQUESTS Metadata requests (all topics: `topics` null) on one connection. */
async function metadataLatency(port: number, topics: string[] | null): Promise<{ p50: number; p99: number }> {
  const c = await RawClient.connect(port);
  try {
    const ms: number[] = [];
    for (let i = 0; i < METADATA_REQUESTS; i++) {
      const t0 = performance.now();
      await within(
        30_000,
        'Metadata',
        c.request(ApiKey.Metadata, 12, {
          topics: topics === null ? null : topics.map((name) => ({ name })),
          allowAutoTopicCreation: false,
        }),
      );
      ms.push(performance.now() - t0);
    }
    return { p50: pct(ms, 50), p99: pct(ms, 99) };
  } finally {
    c.close();
  }
}

/** Partitions of the bench's topics whose log end offset is still 0 (ListOffsets latest). */
async function emptyPartitions(port: number): Promise<number> {
  const c = await RawClient.connect(port);
  try {
    const r = await within(
      60_000,
      'ListOffsets',
      c.request(ApiKey.ListOffsets, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: TOPIC_NAMES.map((name) => ({
          name,
          partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, timestamp: -1n })),
        })),
      }),
    );
    let empty = 0;
    for (const t of r.topics) for (const p of t.partitions) if (p.errorCode !== 0 || p.offset <= 0n) empty++;
    return empty;
  } finally {
    c.close();
  }
}

/** Stops (clean) or kills (unclean) the node, starts it again, times it until every partition is led. */
async function restartTimed(t: Target, how: 'clean' | 'unclean'): Promise<{ firstMs: number; allMs: number }> {
  await (how === 'clean' ? t.stop() : t.kill());
  const t0 = performance.now();
  const launched = t.relaunch();
  let failed: unknown = null;
  launched.catch((e: unknown) => {
    failed = e;
  });
  const r = await untilAllLed(
    () => t.port,
    t0,
    600_000,
    () => failed,
  );
  await launched;
  return r;
}

interface Conn {
  c: RawClient;
}

/** One connection as a client makes it: connect, ApiVersions, Metadata for one topic, one small Produce. */
async function clientConnection(port: number, i: number, batch: Buffer): Promise<Conn> {
  const c = await RawClient.connect(port);
  try {
    await c.request(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'tkafka-bench-scale',
      clientSoftwareVersion: '1',
      clusterId: null,
      nodeId: -1,
    });
    const topic = TOPIC_NAMES[i % TOPICS]!;
    await c.request(ApiKey.Metadata, 12, { topics: [{ name: topic }], allowAutoTopicCreation: false });
    const r = await c.request(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 30_000,
      topicData: [{ name: topic, partitionData: [{ index: i % PARTITIONS, records: batch }] }],
    });
    const code = r.responses[0]!.partitionResponses[0]!.errorCode;
    if (code !== 0) throw new Error(`Produce on connection ${i}: error ${code}`);
    return { c };
  } catch (e) {
    c.close();
    throw e;
  }
}

async function manyConnections(
  t: Target,
): Promise<Pick<Figures, 'connectMs' | 'connRssMiB' | 'connFds' | 'connMdP50' | 'connMdP99'>> {
  const batch = buildRecordBatchSync({ records: [{ value: Buffer.alloc(100, 'x') }] });
  const t0 = performance.now();
  const settled = await within(
    120_000,
    `${CONNECTIONS} connections`,
    Promise.allSettled(Array.from({ length: CONNECTIONS }, (_, i) => clientConnection(t.port, i, batch))),
  );
  const connectMs = performance.now() - t0;
  const conns = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw new Error(`${CONNECTIONS - conns.length} of ${CONNECTIONS} connections failed: ${failed.reason}`);
    const connRssMiB = rssMiB(t.pid());
    const connFds = fdCount(t.pid());
    const md = await metadataLatency(t.port, [TOPIC_NAMES[0]!]);
    return { connectMs, connRssMiB, connFds, connMdP50: md.p50, connMdP99: md.p99 };
  } finally {
    for (const { c } of conns) c.close();
  }
}

/** Extra node flags for the tkafka broker (e.g. `TKAFKA_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'`). */
const TKAFKA_NODE_ARGS = (process.env.TKAFKA_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

async function measure(impl: Impl): Promise<Figures> {
  const t = await startTarget(impl, TKAFKA_NODE_ARGS);
  const log = (s: string) => console.error(`[${impl}] ${s}`);
  try {
    const createMs = await createAll(t.port);
    log(`created ${TOTAL} partitions in ${createMs.toFixed(0)} ms`);
    const load = await franzProduce(t.bootstrap, TOPIC_NAMES.join(','), {
      records: RECORDS,
      size: 100,
      acks: '1',
      compression: 'none',
      clients: 1,
    });
    log(`produced ${RECORDS} records in ${load.seconds.toFixed(1)} s (${load.recsPerSec.toFixed(0)} rec/s)`);
    const empty = await emptyPartitions(t.port);
    const all = await metadataLatency(t.port, null);
    const one = await metadataLatency(t.port, [TOPIC_NAMES[0]!]);
    const rss = rssMiB(t.pid());
    const fds = fdCount(t.pid());
    log(
      `metadata all p50 ${all.p50.toFixed(1)} ms, one p50 ${one.p50.toFixed(2)} ms; RSS ${rss.toFixed(0)} MiB, ${fds} fds`,
    );
    const clean = await restartTimed(t, 'clean');
    log(`clean restart: all led after ${clean.allMs.toFixed(0)} ms`);
    const unclean = await restartTimed(t, 'unclean');
    log(`unclean restart: all led after ${unclean.allMs.toFixed(0)} ms`);
    const conn = await manyConnections(t);
    log(`${CONNECTIONS} connections in ${conn.connectMs.toFixed(0)} ms`);
    return {
      createMs,
      produceRecsPerSec: load.recsPerSec,
      produceSeconds: load.seconds,
      emptyPartitions: empty,
      mdAllP50: all.p50,
      mdAllP99: all.p99,
      mdOneP50: one.p50,
      mdOneP99: one.p99,
      rssMiB: rss,
      fds,
      cleanStartMs: clean.allMs,
      cleanFirstMetadataMs: clean.firstMs,
      uncleanStartMs: unclean.allMs,
      uncleanFirstMetadataMs: unclean.firstMs,
      ...conn,
    };
  } catch (e) {
    const lines = t.logs().split('\n');
    const notable = lines.filter((l) => /\b(WARN|ERROR|FATAL)\b|Terminating|shut ?down/i.test(l)).slice(-40);
    log(
      `failed; the broker's warnings and shutdown lines:\n${notable.join('\n')}\nits last lines:\n${lines.slice(-15).join('\n')}`,
    );
    throw e;
  } finally {
    await t.cleanup();
  }
}

const ROWS: [keyof Figures, string, (n: number) => string][] = [
  [
    'createMs',
    `create ${TOTAL} partitions (${TOPICS} topics, CreateTopics of ${TOPICS_PER_CREATE}) until all led, ms`,
    (n) => n.toFixed(0),
  ],
  ['produceRecsPerSec', `franz-go produce ${RECORDS} × 100 B over all partitions, acks=1, rec/s`, (n) => n.toFixed(0)],
  ['emptyPartitions', 'partitions left empty after the load', (n) => n.toFixed(0)],
  ['mdAllP50', `Metadata, all topics, p50 of ${METADATA_REQUESTS}, ms`, (n) => n.toFixed(1)],
  ['mdAllP99', 'Metadata, all topics, p99, ms', (n) => n.toFixed(1)],
  ['mdOneP50', 'Metadata, one topic, p50, ms', (n) => n.toFixed(2)],
  ['mdOneP99', 'Metadata, one topic, p99, ms', (n) => n.toFixed(2)],
  ['rssMiB', 'RSS after the load, MiB', (n) => n.toFixed(0)],
  ['fds', 'open fds after the load', (n) => n.toFixed(0)],
  ['cleanFirstMetadataMs', 'clean restart: first Metadata answer, ms', (n) => n.toFixed(0)],
  ['cleanStartMs', 'clean restart: all partitions led, ms', (n) => n.toFixed(0)],
  ['uncleanFirstMetadataMs', 'kill -9 restart: first Metadata answer, ms', (n) => n.toFixed(0)],
  ['uncleanStartMs', 'kill -9 restart: all partitions led, ms', (n) => n.toFixed(0)],
  ['connectMs', `${CONNECTIONS} connections (ApiVersions, Metadata, Produce each), all open, ms`, (n) => n.toFixed(0)],
  ['connRssMiB', `RSS with ${CONNECTIONS} connections open, MiB`, (n) => n.toFixed(0)],
  ['connFds', `open fds with ${CONNECTIONS} connections open`, (n) => n.toFixed(0)],
  ['connMdP50', `Metadata, one topic, with ${CONNECTIONS} open, p50, ms`, (n) => n.toFixed(2)],
  ['connMdP99', `Metadata, one topic, with ${CONNECTIONS} open, p99, ms`, (n) => n.toFixed(2)],
];

async function main(): Promise<void> {
  const nofile = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  console.log(`open-files limit (inherited by the brokers): soft ${nofile?.[1]}, hard ${nofile?.[2]}`);
  const impls: Impl[] = opts.impl === 'both' ? ['kafka', 'tkafka'] : [opts.impl as Impl];
  await ensureFranzLoad();
  const results = new Map<Impl, Figures>();
  for (const impl of impls) results.set(impl, await measure(impl));
  console.log(`| | ${impls.map((i) => (i === 'kafka' ? 'Kafka 4.4.0' : 'tkafka')).join(' | ')} |`);
  console.log(`|---|${impls.map(() => '---:').join('|')}|`);
  for (const [key, name, fmt] of ROWS)
    console.log(`| ${name} | ${impls.map((i) => fmt(results.get(i)![key])).join(' | ')} |`);
  console.log(JSON.stringify(Object.fromEntries(results)));
}

await main();
