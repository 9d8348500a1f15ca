// The live-broker fuzzer (issue 20): seeded mutations of valid requests of every API a running
// tkafka advertises (ApiVersions), sent over many loopback connections, while a correct client
// keeps producing, fetching and asking for metadata, and the broker's RSS is sampled.
//
// Frames: for each advertised API and version, a valid request (the codec's defaults, richer
// bodies for Produce (plain and gzip/snappy/lz4/zstd batches), Fetch, ListOffsets and Metadata
// naming a real topic), then 1–3 mutations:
//   bitflip    1–8 random bits of the body flipped
//   size       the 4-byte size prefix replaced (shorter, longer, 0, negative, huge)
//   truncate   the body cut short (size prefix matching)
//   extend     1–64 random bytes appended (size prefix matching)
//   tagged     random tagged fields in the request header's or the body's tagged-field section
//              (flexible versions), sizes sometimes lying
//   intfield   an int16/int32 at a random offset replaced by -1, 0, max, min or random (length and
//              count fields included)
//   varint     an unterminated varint (5 × 0xff) at a random offset
// A connection carries 1–8 frames (a tenth left unmutated, so connections reach deeper state),
// written at once, then the client half-closes and waits (bounded) for the broker to close. Kafka
// closes a connection on a request it cannot parse, so frames after such a one are never read:
// the count that matters, `processed`, is of the mutated frames the broker did read (every frame
// up to the last one answered, by correlation id, plus the one after which it closed), and the run
// goes on until that count reaches the target.
// APIs left out, with the reason: UnregisterBroker (a valid mutation of it unregisters the broker
// under test, which Kafka would do as well).
//
// The verdict: the broker process is alive at the end and answers; the correct client's every
// produce, fetch and metadata request succeeded within its bound, during and after the run; the
// RSS stayed under the bound; and the broker logged no handler exception (the dispatcher's
// "error handling …" lines: an exception answered with UNKNOWN_SERVER_ERROR, where Kafka answers
// a specific error or closes the connection), counted by API and message.
import { connect, type Socket } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiKey, apiSpec, encodeRequest, isFlexible, requestHeaderVersion } from '../../src/protocol/frame.js';
import { buildRecordBatch, buildRecordBatchSync } from '../../src/protocol/records/batch-build.js';
import type { CompressionType } from '../../src/protocol/records/layout.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { RawClient } from '../helpers/raw-client.js';
import { prng } from '../chaos/faults.js';

export const TARGET_TOPIC = 'fuzz-target';
export const PROBE_TOPIC = 'fuzz-probe';
const CLIENT_ID = 'fuzz';
/** Excluded from fuzzing, with the reason in the header comment. */
const EXCLUDED = new Set<number>([ApiKey.UnregisterBroker]);

export interface FuzzOptions {
  port: number;
  pid: () => number | undefined;
  output: () => string;
  seed: number;
  /** Mutated frames the broker must process (at least). */
  frames: number;
  /** Time bound: no new connection after it. */
  maxMs: number;
  /** Concurrent fuzzing connections. */
  workers?: number;
  /** The correct client's period. */
  probeEveryMs?: number;
  /** Where the frames of connections open when the broker died are written. */
  crashDir?: string;
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  seeds: number;
  apis: number;
  /** Frames sent, mutated frames sent. */
  frames: number;
  mutated: number;
  /** Mutated frames the broker read: before or at the one after which it closed the connection. */
  processed: number;
  byMutation: Record<string, number>;
  connections: number;
  responses: number;
  closedByBroker: number;
  /** Connections the broker neither answered nor closed within 10 s of the client's half-close. */
  stuck: number;
  /** The stuck connections (first 10): the seed APIs of their frames and the bytes sent (base64). */
  stuckConnections: { apis: number[]; frames: string }[];
  probes: { ok: number; failed: number; maxMs: number; failures: string[] };
  rssMiB: { baseline: number; peak: number; last: number; samples: number[] };
  /** Handler exceptions in the broker log, "Api vN: message" → count. */
  handlerErrors: Record<string, number>;
  alive: boolean;
  wallMs: number;
  crashFile?: string;
}

/** VmRSS of a process, in MiB (NaN when it is gone). */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

interface Seed {
  apiKey: number;
  version: number;
  flexible: boolean;
  frame: Buffer;
}

/** Valid requests: every advertised API × version (what the codec can encode), richer bodies for a few. */
function seedFrames(
  advertised: { apiKey: number; minVersion: number; maxVersion: number }[],
  topicId: string,
  compressed: Buffer[],
): Seed[] {
  const batch = buildRecordBatchSync({
    records: [
      { key: 'k', value: 'fuzz-value', headers: [{ key: 'h', value: 'v' }] },
      { key: null, value: 'second' },
    ],
  });
  const rich = (apiKey: number, v: number): unknown[] => {
    switch (apiKey) {
      case ApiKey.Produce:
        return [
          ...[1, 0, -1].map((acks) => ({ acks, records: batch })),
          ...compressed.map((records) => ({ acks: 1, records })),
        ].map(({ acks, records }) => ({
          transactionalId: null,
          acks,
          timeoutMs: 5000,
          topicData: [{ name: TARGET_TOPIC, topicId, partitionData: [{ index: 0, records }] }],
        }));
      case ApiKey.Fetch:
        return [
          {
            replicaId: -1,
            maxWaitMs: 0,
            minBytes: 0,
            maxBytes: 1 << 20,
            isolationLevel: 0,
            sessionId: 0,
            sessionEpoch: -1,
            topics: [
              {
                topic: TARGET_TOPIC,
                topicId,
                partitions: [
                  {
                    partition: 0,
                    currentLeaderEpoch: -1,
                    fetchOffset: 0n,
                    logStartOffset: -1n,
                    partitionMaxBytes: 1 << 20,
                  },
                ],
              },
            ],
            forgottenTopicsData: [],
            rackId: '',
          },
        ];
      case ApiKey.ListOffsets:
        return [
          {
            replicaId: -1,
            isolationLevel: 0,
            topics: [
              { name: TARGET_TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] },
            ],
          },
        ];
      case ApiKey.Metadata:
        return [{ topics: [{ name: TARGET_TOPIC, topicId: v >= 10 ? ZERO_UUID : ZERO_UUID }] }];
      default:
        return [];
    }
  };
  const out: Seed[] = [];
  for (const a of advertised) {
    if (EXCLUDED.has(a.apiKey)) continue;
    const spec = apiSpec(a.apiKey);
    if (!spec) continue;
    for (let v = Math.max(a.minVersion, spec.minVersion); v <= Math.min(a.maxVersion, spec.maxVersion); v++)
      for (const body of [{}, ...rich(a.apiKey, v)]) {
        try {
          const frame = Buffer.concat(encodeRequest(a.apiKey, v, 1, CLIENT_ID, body));
          out.push({ apiKey: a.apiKey, version: v, flexible: isFlexible(spec, v), frame });
        } catch {
          // a default body this version cannot carry: the version is covered by its other seeds
        }
      }
  }
  return out;
}

const MUTATIONS = ['bitflip', 'size', 'truncate', 'extend', 'tagged', 'intfield', 'varint'] as const;
type Mutation = (typeof MUTATIONS)[number];

function uvarint(n: number): number[] {
  const out: number[] = [];
  let x = n >>> 0;
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
  return out;
}

/** Applies one mutation to a frame (size prefix included); returns the new frame. */
function mutate(rnd: () => number, s: Seed, frame: Buffer, m: Mutation): Buffer {
  const int = (n: number): number => Math.floor(rnd() * n);
  const body = frame.subarray(4);
  const withSize = (b: Buffer): Buffer => {
    const f = Buffer.alloc(4 + b.length);
    f.writeInt32BE(b.length, 0);
    b.copy(f, 4);
    return f;
  };
  switch (m) {
    case 'bitflip': {
      const b = Buffer.from(body);
      for (let i = 1 + int(8); i > 0 && b.length > 0; i--) b[int(b.length)]! ^= 1 << int(8);
      return withSize(b);
    }
    case 'size': {
      const f = Buffer.from(frame);
      const n = body.length;
      const choices = [n - 1 - int(8), n + 1 + int(200), 0, -1, -int(1 << 30), 0x7fffffff, int(200 << 20)];
      f.writeInt32BE(choices[int(choices.length)]! | 0, 0);
      return f;
    }
    case 'truncate':
      return withSize(Buffer.from(body.subarray(0, int(body.length))));
    case 'extend': {
      const extra = Buffer.alloc(1 + int(64));
      for (let i = 0; i < extra.length; i++) extra[i] = int(256);
      return withSize(Buffer.concat([body, extra]));
    }
    case 'tagged': {
      // header v2: apiKey, apiVersion, correlationId, clientId (int16 length + bytes), tagged fields
      const headerTags = 2 + 2 + 4 + 2 + Buffer.byteLength(CLIENT_ID);
      const atHeader = requestHeaderVersion(s.apiKey, s.version) >= 2 && rnd() < 0.5;
      if (!s.flexible) return mutate(rnd, s, frame, 'extend');
      const pos = atHeader ? headerTags : body.length - 1; // the body's top-level tagged fields: its last byte (0)
      const count = 1 + int(4);
      const fields: number[] = [...uvarint(count)];
      for (let i = 0; i < count; i++) {
        const tag = rnd() < 0.5 ? int(8) : int(1 << 20);
        const size = int(40);
        const lie = rnd() < 0.2 ? size + 1 + int(1000) : size;
        fields.push(...uvarint(tag), ...uvarint(lie));
        for (let j = 0; j < size; j++) fields.push(int(256));
      }
      return withSize(Buffer.concat([body.subarray(0, pos), Buffer.from(fields), body.subarray(pos + 1)]));
    }
    case 'intfield': {
      const b = Buffer.from(body);
      if (b.length < 4) return withSize(b);
      const values = [-1, 0, 0x7fffffff, -0x80000000, int(0x7fffffff), 1 + int(1000)];
      const v = values[int(values.length)]!;
      if (rnd() < 0.5) b.writeInt32BE(v | 0, int(b.length - 3));
      else b.writeInt16BE((v << 16) >> 16, int(b.length - 1));
      return withSize(b);
    }
    case 'varint': {
      const b = Buffer.from(body);
      const at = int(b.length);
      for (let i = at; i < Math.min(b.length, at + 5); i++) b[i] = 0xff;
      return withSize(b);
    }
  }
}

/** Frames of one connection: [bytes, mutations used]. */
function connectionFrames(
  rnd: () => number,
  seeds: Seed[],
  corr: { n: number },
): {
  data: Buffer;
  count: number;
  mutated: number;
  kinds: Mutation[];
  corrIds: number[];
  isMutated: boolean[];
  apis: number[];
} {
  const count = 1 + Math.floor(rnd() * 8);
  const parts: Buffer[] = [];
  const kinds: Mutation[] = [];
  const corrIds: number[] = [];
  const isMutated: boolean[] = [];
  const apis: number[] = [];
  let mutated = 0;
  for (let i = 0; i < count; i++) {
    const s = seeds[Math.floor(rnd() * seeds.length)]!;
    apis.push(s.apiKey);
    let f: Buffer = Buffer.from(s.frame);
    const id = corr.n++ | 0;
    f.writeInt32BE(id, 8); // correlation id
    corrIds.push(id);
    isMutated.push(false);
    if (rnd() < 0.9) {
      mutated++;
      isMutated[i] = true;
      for (let k = 1 + Math.floor(rnd() * 3); k > 0; k--) {
        const m = MUTATIONS[Math.floor(rnd() * MUTATIONS.length)]!;
        kinds.push(m);
        f = mutate(rnd, s, f, m);
      }
    }
    parts.push(f);
  }
  return { data: Buffer.concat(parts), count, mutated, kinds, corrIds, isMutated, apis };
}

/** Sends one connection's frames; resolves with what came back. */
function runConnection(
  port: number,
  data: Buffer,
): Promise<{ responses: number; answered: Set<number>; closedByBroker: boolean; stuck: boolean }> {
  return new Promise((resolve) => {
    let responses = 0;
    const answered = new Set<number>();
    let pending = Buffer.alloc(0);
    let ended = false;
    let done = false;
    const sock: Socket = connect(port, '127.0.0.1');
    const finish = (closedByBroker: boolean, stuck: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ responses, answered, closedByBroker, stuck });
    };
    const timer = setTimeout(() => finish(false, true), 10_000);
    sock.on('connect', () => {
      sock.write(data);
      sock.end();
      ended = true;
    });
    sock.on('data', (d) => {
      pending = pending.length ? Buffer.concat([pending, d]) : d;
      while (pending.length >= 8 && pending.length >= 4 + pending.readInt32BE(0)) {
        answered.add(pending.readInt32BE(4));
        pending = pending.subarray(4 + pending.readInt32BE(0));
        responses++;
      }
    });
    sock.on('error', () => finish(true, false));
    sock.on('close', () => finish(ended, false));
  });
}

/** The correct client: metadata, an acks=all produce, a fetch of what it produced, each bounded. */
async function probe(port: number, n: number): Promise<void> {
  const bound = <T>(p: Promise<T>, what: string): Promise<T> =>
    Promise.race([p, delay(15_000).then(() => Promise.reject(new Error(`${what}: no answer within 15 s`)))]);
  const c = await bound(RawClient.connect(port), 'connect');
  try {
    const md = await bound(
      c.request(ApiKey.Metadata, 12, {
        topics: [{ name: PROBE_TOPIC, topicId: ZERO_UUID }],
        allowAutoTopicCreation: false,
      }),
      'metadata',
    );
    const t = md.topics[0]!;
    if (t.errorCode !== 0 || t.partitions[0]?.leaderId !== md.brokers[0]?.nodeId)
      throw new Error(`metadata: topic error ${t.errorCode}, leader ${t.partitions[0]?.leaderId}`);
    const value = `probe-${n}`;
    const pr = await bound(
      c.request(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          { name: PROBE_TOPIC, partitionData: [{ index: 0, records: buildRecordBatchSync({ records: [{ value }] }) }] },
        ],
      }),
      'produce',
    );
    const p = pr.responses[0]!.partitionResponses[0]!;
    if (p.errorCode !== 0) throw new Error(`produce: error ${p.errorCode}`);
    const fr = await bound(
      c.request(ApiKey.Fetch, 12, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: PROBE_TOPIC,
            partitions: [
              {
                partition: 0,
                currentLeaderEpoch: -1,
                fetchOffset: p.baseOffset,
                lastFetchedEpoch: -1,
                logStartOffset: -1n,
                partitionMaxBytes: 1 << 20,
              },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      }),
      'fetch',
    );
    const f = fr.responses[0]!.partitions[0]!;
    if (f.errorCode !== 0) throw new Error(`fetch: error ${f.errorCode}`);
    const bytes = f.records as Buffer | null;
    if (!bytes || !bytes.includes(Buffer.from(value)))
      throw new Error(`fetch at ${p.baseOffset}: ${value} not returned`);
  } finally {
    c.close();
  }
}

/** Handler exceptions in the broker output: "Api vN: first line of the error" → count. */
export function handlerErrors(output: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of output.matchAll(
    /error (handling|encoding the response to|building the error response to) (\w+) v(\d+) \([^)]*\) on \S+: ([^\n]*)/g,
  )) {
    const k = `${m[1]} ${m[2]} v${m[3]}: ${m[4]!.slice(0, 160)}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

export async function liveFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const log = o.log ?? ((l: string): void => console.log(l));
  const t0 = Date.now();
  const c = await RawClient.connect(o.port);
  let advertised: { apiKey: number; minVersion: number; maxVersion: number }[];
  let topicId: string;
  try {
    const av = await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' });
    advertised = av.apiKeys.map((k) => ({ apiKey: k.apiKey, minVersion: k.minVersion, maxVersion: k.maxVersion }));
    const md = await c.request(ApiKey.Metadata, 12, { topics: [{ name: TARGET_TOPIC, topicId: ZERO_UUID }] });
    topicId = md.topics[0]!.topicId;
  } finally {
    c.close();
  }
  // compressed batches (gzip, snappy, lz4, zstd) as Produce seeds: mutations reach the decompressors
  const compressed = await Promise.all(
    [1, 2, 3, 4].map((c) =>
      buildRecordBatch({
        records: Array.from({ length: 40 }, (_, i) => ({
          key: `k${i}`,
          value: `compressible ${'v'.repeat(100)} ${i}`,
        })),
        compression: c as CompressionType,
      }),
    ),
  );
  const seeds = seedFrames(advertised, topicId, compressed);
  const apis = new Set(seeds.map((s) => s.apiKey)).size;
  log(
    `fuzz: seed=${o.seed} ${seeds.length} valid requests of ${apis} APIs (of ${advertised.length} advertised) → ${o.frames} mutated frames`,
  );
  const outputStart = o.output().length;

  const rss0 = rssMiB(o.pid());
  const samples: number[] = [rss0];
  let peak = rss0;
  const probes = { ok: 0, failed: 0, maxMs: 0, failures: [] as string[] };
  let stop = false;
  const sampler = (async () => {
    for (let n = 0; !stop; n++) {
      const r = rssMiB(o.pid());
      if (!Number.isNaN(r)) {
        peak = Math.max(peak, r);
        if (n % 5 === 0) samples.push(r);
      }
      const p0 = Date.now();
      try {
        await probe(o.port, n);
        probes.ok++;
      } catch (e) {
        probes.failed++;
        if (probes.failures.length < 20) probes.failures.push(`${new Date().toISOString()} ${(e as Error).message}`);
      }
      probes.maxMs = Math.max(probes.maxMs, Date.now() - p0);
      await delay(o.probeEveryMs ?? 1000);
    }
  })();

  const byMutation: Record<string, number> = Object.fromEntries(MUTATIONS.map((m) => [m, 0]));
  let frames = 0;
  let mutated = 0;
  let processed = 0;
  let connections = 0;
  let responses = 0;
  let closedByBroker = 0;
  let stuck = 0;
  const stuckConnections: { apis: number[]; frames: string }[] = [];
  let dead = false;
  /** The last connections' bytes (worker/connection → frames), written out if the broker dies. */
  const recent: [string, Buffer][] = [];
  const deadline = t0 + o.maxMs;
  const workers = o.workers ?? 16;
  const worker = async (w: number): Promise<void> => {
    const rnd = prng((o.seed * 7919 + w * 104_729) >>> 0);
    const corr = { n: w << 24 };
    for (let conn = 0; processed < o.frames && Date.now() < deadline && !dead; conn++) {
      const f = connectionFrames(rnd, seeds, corr);
      recent.push([`${w}/${conn}`, f.data]);
      if (recent.length > 4 * workers) recent.shift();
      const r = await runConnection(o.port, f.data);
      connections++;
      frames += f.count;
      mutated += f.mutated;
      // The broker reads a connection's frames in order: every frame up to the last answered one
      // was processed, and, when the broker closed the connection, the next one (that made it close).
      let last = -1;
      f.corrIds.forEach((id, i) => {
        if (r.answered.has(id)) last = i;
      });
      const upTo = r.closedByBroker ? Math.min(last + 1, f.count - 1) : f.count - 1;
      for (let i = 0; i <= upTo; i++) if (f.isMutated[i]) processed++;
      for (const k of f.kinds) byMutation[k]!++;
      responses += r.responses;
      if (r.closedByBroker) closedByBroker++;
      if (r.stuck) {
        stuck++;
        if (stuckConnections.length < 10) stuckConnections.push({ apis: f.apis, frames: f.data.toString('base64') });
      }
      if (connections % 2000 === 0) {
        if (o.pid() === undefined) dead = true;
        log(
          `fuzz: ${processed} mutated frames processed (${mutated} sent), ${connections} connections, rss ${rssMiB(o.pid())} MiB, probes ${probes.ok} ok / ${probes.failed} failed`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  // the correct client once more after the run, then stop the sampler
  await delay(o.probeEveryMs ?? 1000);
  stop = true;
  await sampler;
  let alive = o.pid() !== undefined;
  try {
    await probe(o.port, -1);
    probes.ok++;
  } catch (e) {
    alive = false;
    probes.failed++;
    probes.failures.push(`after the run: ${(e as Error).message}`);
  }
  let crashFile: string | undefined;
  if (!alive && o.crashDir) {
    mkdirSync(o.crashDir, { recursive: true });
    crashFile = join(o.crashDir, `fuzz-${o.seed}-last-connections.json`);
    writeFileSync(crashFile, JSON.stringify(Object.fromEntries(recent.map(([k, b]) => [k, b.toString('base64')]))));
  }
  const last = rssMiB(o.pid());
  samples.push(last);
  return {
    seed: o.seed,
    seeds: seeds.length,
    apis,
    frames,
    mutated,
    processed,
    byMutation,
    connections,
    responses,
    closedByBroker,
    stuck,
    stuckConnections,
    probes,
    rssMiB: { baseline: rss0, peak, last, samples },
    handlerErrors: handlerErrors(o.output().slice(outputStart)),
    alive,
    wallMs: Date.now() - t0,
    crashFile,
  };
}
