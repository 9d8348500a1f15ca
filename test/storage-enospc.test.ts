// ENOSPC during a produce stream (issue 20), on a real filesystem that fills up: a real
// `tkafka server start` with log.dirs on a small loop-mounted ext4 (test/helpers/fault-fs.ts;
// the metadata log on the ordinary disk), one partition written by acks=all Produce requests, one
// after the other, until the disk is full. Kafka's answer: the write fails, the log directory goes
// offline, the producer gets KAFKA_STORAGE_ERROR (56) — or, since it is the broker's only log
// directory, the broker shuts down ("all log dirs have failed"). Then the space is freed and the
// broker restarted: every acknowledged record is readable at the offset it was acknowledged at,
// nothing after the last acknowledged record is served, and both `tkafka dump-log` and Apache
// Kafka's DumpLogSegments (org.apache.kafka.tools.DumpLogSegments in 4.4.0's kafka-tools jar)
// find the segments and indexes sound.
//
//   node --test dist/test/storage-enospc.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKey } from '../src/protocol/frame.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch-build.js';
import { iterateBatches } from '../src/protocol/records/batch-iterate.js';
import { decodeBatch } from '../src/protocol/records/batch-records.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { createTopicAt } from './helpers/create-topic.js';
import { createFaultFs, type FaultFs } from './helpers/fault-fs.js';
import { RawClient } from './helpers/raw-client.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { runKafkaTool } from './interop/helpers/apache-kafka.js';

const TOPIC = 'enospc';
const KAFKA_STORAGE_ERROR = 56;
const RECORDS_PER_BATCH = 40;
const VALUE_PAD = 'x'.repeat(200);
/** Bounds of the produce stream: a 24 MiB disk fills long before either. */
const MAX_BATCHES = 20_000;
const MAX_STREAM_MS = 120_000;

let fs: FaultFs | undefined;
let broker: BrokerProcess | undefined;
let dataDir: string | undefined;

interface Acked {
  offset: bigint;
  value: string;
}

const valueOf = (batch: number, i: number): string => `b${batch}-r${i}-${VALUE_PAD}`;

/** Every record of the partition from offset 0 on, as a plain consumer reads it (high watermark bounded). */
async function readAll(port: number): Promise<{ records: Acked[]; highWatermark: bigint; errorCode: number }> {
  const c = await RawClient.connect(port);
  try {
    const records: Acked[] = [];
    let offset = 0n;
    for (let round = 0; round < 10_000; round++) {
      const r = await c.request(ApiKey.Fetch, 12, {
        clusterId: null,
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 4 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: TOPIC,
            partitions: [
              {
                partition: 0,
                currentLeaderEpoch: -1,
                fetchOffset: offset,
                lastFetchedEpoch: -1,
                logStartOffset: -1n,
                partitionMaxBytes: 4 << 20,
              },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      });
      const p = r.responses[0]!.partitions[0]!;
      if (p.errorCode !== 0) return { records, highWatermark: p.highWatermark, errorCode: p.errorCode };
      const bytes = (p.records as Buffer | null) ?? Buffer.alloc(0);
      let progressed = false;
      for (const entry of iterateBatches(bytes)) {
        const batch = await decodeBatch(bytes, entry.position);
        for (const rec of batch.records)
          if (BigInt(rec.offset) >= offset) {
            records.push({ offset: BigInt(rec.offset), value: rec.value?.toString() ?? '' });
            progressed = true;
          }
      }
      if (records.length > 0) offset = records[records.length - 1]!.offset + 1n;
      if (!progressed || offset >= p.highWatermark) return { records, highWatermark: p.highWatermark, errorCode: 0 };
    }
    throw new Error('readAll: more than 10000 fetch rounds');
  } finally {
    c.close();
  }
}

type Fault = 'enospc' | 'eio';

/** What one produce of `records` answered: an error code, or null when the connection closed. */
async function produceOnce(c: RawClient, records: { key?: string; value: string }[]) {
  const request = c.request(ApiKey.Produce, 9, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 10_000,
    topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: buildRecordBatchSync({ records }) }] }],
  });
  const answer = await Promise.race([
    request,
    waitFor(() => c.closed, { what: 'the connection to close', timeoutMs: 30_000 }).then(() => null),
  ]);
  return answer === null ? null : answer.responses[0]!.partitionResponses[0]!;
}

/**
 * The scenario: a produce stream on a log directory that fails (full disk, or every I/O failing
 * with EIO after `eioAfter` acknowledged batches), then the checks of the issue after a restart.
 */
async function faultDuringStream(fault: Fault): Promise<void> {
  fs = createFaultFs({ sizeMiB: 24 });
  dataDir = mkdtempSync(join(tmpdir(), 'tkafka-enospc-'));
  const logDir = join(fs.mountPoint, 'logs');
  broker = await startBroker({
    dataDir,
    overrides: {
      'log.dirs': logDir,
      'metadata.log.dir': join(dataDir, 'metadata'),
      'log.segment.bytes': 1 << 20,
      'log.index.interval.bytes': 4096,
      'num.partitions': 1,
      'auto.create.topics.enable': false,
    },
  });
  await createTopicAt(broker.port, TOPIC);
  // ENOSPC: leave a little room, so the stream runs a while before the disk is full
  if (fault === 'enospc') fs.fill(3 << 20);
  const eioAfter = 100;

  const acked: Acked[] = [];
  let failure: { errorCode: number; batch: number } | null = null;
  let brokerGone = false;
  const t0 = Date.now();
  const c = await RawClient.connect(broker.port);
  try {
    for (let b = 0; b < MAX_BATCHES && Date.now() - t0 < MAX_STREAM_MS; b++) {
      if (fault === 'eio' && b === eioAfter) fs.ioShutdown('sync');
      const records = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ key: `k${i}`, value: valueOf(b, i) }));
      const p = await produceOnce(c, records);
      if (p === null) {
        brokerGone = true;
        break;
      }
      if (p.errorCode !== 0) {
        failure = { errorCode: p.errorCode, batch: b };
        break;
      }
      records.forEach((r, i) => acked.push({ offset: p.baseOffset + BigInt(i), value: r.value }));
    }
  } finally {
    c.close();
  }
  console.log(
    `${fault}: ${acked.length} records acknowledged in ${Date.now() - t0} ms; ` +
      (failure
        ? `then error ${failure.errorCode} on batch ${failure.batch}`
        : brokerGone
          ? 'then the broker closed the connection'
          : 'no failure'),
  );
  assert.ok(acked.length > 0, 'nothing was acknowledged before the fault');
  assert.ok(failure !== null || brokerGone, `no produce failed within ${MAX_BATCHES} batches`);
  if (failure) {
    assert.equal(
      failure.errorCode,
      KAFKA_STORAGE_ERROR,
      `a produce to a failed log directory must fail with KAFKA_STORAGE_ERROR, not ${failure.errorCode}; broker log:\n${broker.output().slice(-3000)}`,
    );
    // The directory is offline: a further produce fails the same way (even the smallest, for
    // which there would be room), or the broker, whose only log directory failed, has shut down
    // meanwhile (Kafka halts then).
    const again = await RawClient.connect(broker.port).catch(() => null);
    const p = again ? await produceOnce(again, [{ value: 'after-failure' }]).catch(() => null) : null;
    again?.close();
    if (p)
      assert.equal(
        p.errorCode,
        KAFKA_STORAGE_ERROR,
        `a produce after the failure (the directory must be offline) answers ${p.errorCode}, not KAFKA_STORAGE_ERROR`,
      );
    else assert.match(broker.output(), /ha(s|ve) failed|Shutdown broker because/i, 'the connection failed');
  } else {
    await waitFor(() => broker!.pid() === undefined || /ha(s|ve) failed|Shutdown broker/i.test(broker!.output()), {
      what: 'the broker to stop after its only log directory failed',
      timeoutMs: 60_000,
    });
  }

  // A clean stop (SIGTERM) when it still runs: the directory saw an error, so no
  // .kafka_cleanshutdown may be written for it and the next start recovers the log. The disk
  // comes back (space freed; the EIO filesystem remounted), the broker restarts.
  await broker.stop();
  if (fault === 'enospc') fs.release();
  else fs.remount();
  await broker.restart();
  const read = await readAll(broker.port);
  assert.equal(read.errorCode, 0, `fetch after restart: error ${read.errorCode}`);
  const lastAcked = acked[acked.length - 1]!.offset;
  const byOffset = new Map(read.records.map((r) => [r.offset, r.value]));
  const missing = acked.filter((a) => byOffset.get(a.offset) !== a.value);
  assert.equal(
    missing.length,
    0,
    `${missing.length} acknowledged records not readable at their offset, first: ${JSON.stringify(missing.slice(0, 3))}`,
  );
  const beyond = read.records.filter((r) => r.offset > lastAcked);
  assert.equal(
    beyond.length,
    0,
    `records served after the last acknowledged offset ${lastAcked}: ${beyond.length} (first at ${beyond[0]?.offset})`,
  );
  assert.equal(read.highWatermark, lastAcked + 1n, 'the log ends right after the last acknowledged record');

  // Both dump tools find the segments and indexes sound (broker stopped: indexes trimmed).
  await broker.stop();
  const partitionDir = join(logDir, `${TOPIC}-0`);
  const files = readdirSync(partitionDir)
    .filter((f) => /\.(log|index|timeindex)$/.test(f))
    .map((f) => join(partitionDir, f))
    .sort();
  assert.ok(
    files.some((f) => f.endsWith('.log')),
    `no segments in ${partitionDir}`,
  );
  const t = await runTkafka('dump-log', ['--index-sanity-check', '--files', files.join(',')]);
  assert.equal(t.code, 0, `tkafka dump-log --index-sanity-check: exit ${t.code}\n${t.err}\n${t.out.slice(-2000)}`);
  assert.doesNotMatch(t.out + t.err, /corrupt|mismatch|invalid|failed/i, t.out.slice(-2000));
  const k = await runKafkaTool('org.apache.kafka.tools.DumpLogSegments', [
    '--index-sanity-check',
    '--files',
    files.join(','),
  ]);
  assert.equal(k.exitCode, 0, `DumpLogSegments --index-sanity-check: exit ${k.exitCode}\n${k.stderr}`);
  assert.doesNotMatch(k.stdout + k.stderr, /corrupt|mismatch|invalid|failed|Exception/i, k.stdout.slice(-2000));
  // a deep iteration of every segment: each batch's CRC and offsets are checked
  const logs = files.filter((f) => f.endsWith('.log'));
  const deep = await runKafkaTool('org.apache.kafka.tools.DumpLogSegments', [
    '--deep-iteration',
    '--files',
    logs.join(','),
  ]);
  assert.equal(deep.exitCode, 0, `DumpLogSegments --deep-iteration: exit ${deep.exitCode}\n${deep.stderr}`);
  assert.doesNotMatch(
    deep.stdout + deep.stderr,
    /corrupt|invalid|Exception|Found \d+ invalid bytes/i,
    (deep.stdout + deep.stderr).slice(-2000),
  );
}

/** Kills the broker, unmounts and removes the filesystem of the test that ran. */
async function tearDown(): Promise<void> {
  await broker?.kill().catch(() => undefined);
  broker = undefined;
  fs?.cleanup();
  fs = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
}

test(
  'ENOSPC during a produce stream: KAFKA_STORAGE_ERROR (or a clean stop), then every acknowledged record and nothing more',
  { timeout: 6 * 60_000 },
  async (t) => {
    t.after(tearDown);
    await faultDuringStream('enospc');
  },
);

test(
  'EIO (the disk fails: ext4 shutdown) during a produce stream: the same guarantees',
  { timeout: 6 * 60_000 },
  async (t) => {
    t.after(tearDown);
    await faultDuringStream('eio');
  },
);
