// Appends are all or nothing (issue 20, item 2), on a real single-node broker whose only log dir
// fails part-way through a write (the test-only seam: ENOSPC once 1,300,001 bytes went to the
// topic's segments, so the failing batch is torn after its first bytes, in the second segment
// after a roll at segment.bytes = 1 MiB). The producer gets KAFKA_STORAGE_ERROR; the broker, its
// only log dir failed, halts as Kafka does (status 1, no `.kafka_cleanshutdown`); every segment on
// disk ends at a batch boundary (the torn bytes were cut back). After a restart without faults,
// recovery runs, every acknowledged record is read back at its offset and nothing after the last
// acknowledged one is served; `tkafka dump-log --index-sanity-check` passes on every index.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCluster, type Cluster } from './helpers/cluster.js';
import { faultEnvLauncher } from './helpers/fault-env-launcher.js';
import { ledgerViolation, readPartitions, type Acked } from './helpers/ledger.js';
import { createReplicatedTopic, partitionDir, produceRaw, produceRawAppended } from './helpers/replication.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { ErrorCode } from '../src/protocol/errors.js';

const TOPIC = 'torn';
const FAULT_AFTER = 1_300_001;
let faults: (nodeDir: string) => string | undefined = (d) =>
  `${join(d, 'data', `${TOPIC}-0`)}/*.log:write:ENOSPC:${FAULT_AFTER}`;
const launcher = faultEnvLauncher((d) => faults(d));
let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher,
    nodes: [{ id: 1, roles: 'broker,controller', overrides: { 'log.segment.bytes': 1024 * 1024 } }],
  });
});

after(async () => {
  await cluster?.cleanup();
});

/** Checks a segment file holds whole batches only; returns the number of batches. */
function wholeBatches(file: string): number {
  const b = readFileSync(file);
  let pos = 0;
  let n = 0;
  while (pos + 12 <= b.length) {
    const size = b.readInt32BE(pos + 8) + 12;
    if (pos + size > b.length) break;
    pos += size;
    n++;
  }
  assert.equal(pos, b.length, `${file} ends at a batch boundary (${b.length - pos} torn bytes)`);
  return n;
}

test('a write failing part-way leaves the segment at its previous end; every ack survives a restart', async () => {
  const node = cluster.node(1);
  await waitFor(
    async () => (await createReplicatedTopic(node.port, TOPIC, { partitions: 1, replicationFactor: 1 })) === 0,
    { what: `topic ${TOPIC}`, timeoutMs: 30_000, intervalMs: 200 },
  );
  const BATCH = 20;
  const value = (n: number): string => `${TOPIC}-0-${n}-`.padEnd(1000, 'x'); // ~20 kB a batch
  const batch = (from: number): string[] => Array.from({ length: BATCH }, (_, i) => value(from + i));
  const acked: Acked[] = [];
  const exited = launcher.exited();
  await produceRawAppended(node.port, TOPIC, batch(0), { acks: -1 });
  batch(0).forEach((v, i) => acked.push({ n: i, offset: BigInt(i), value: v }));
  let failedWith: number | null | undefined;
  // 1.3 MB at ~21 kB a batch: the 62nd batch or so fails; bounded at 100
  for (let i = 1; i < 100 && failedWith === undefined; i++) {
    const vs = batch(i * BATCH);
    const code = await produceRaw(node.port, TOPIC, vs, { acks: -1 });
    if (code === ErrorCode.NONE)
      vs.forEach((v, j) => acked.push({ n: i * BATCH + j, offset: BigInt(acked.length), value: v }));
    else failedWith = code;
  }
  // KAFKA_STORAGE_ERROR, or no answer when the halt wins the race with the response (as in Kafka,
  // whose LogDirFailureHandler thread halts while the request thread answers)
  assert.ok(
    failedWith === ErrorCode.KAFKA_STORAGE_ERROR || failedWith === null,
    `the producer's answer: ${failedWith}`,
  );
  assert.ok(acked.length > 1000, `${acked.length} records acknowledged before the failure`);

  // the only log dir failed: Kafka's halt
  assert.equal(await exited, 1);
  const dataDir = dirname(node.metadataDir);
  assert.match(node.logs(100_000), /FATAL .*Shutdown broker because all log dirs in .* have failed/);
  assert.ok(!existsSync(join(dataDir, '.kafka_cleanshutdown')), 'no clean-shutdown marker');
  const dir = partitionDir(node, TOPIC);
  const logs = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  assert.ok(logs.length >= 2, `rolled at 1 MiB: ${logs.join(', ')}`);
  const batches = logs.reduce((n, f) => n + wholeBatches(join(dir, f)), 0);
  assert.equal(batches, acked.length / BATCH, 'exactly the acknowledged batches are on disk');

  faults = () => undefined;
  await node.start();
  const read = await readPartitions([cluster.bootstrap()], TOPIC, new Map([[0, BigInt(acked.length)]]));
  assert.equal(ledgerViolation(acked, read.get(0)!), null);
  // one more produce lands right after the last acknowledged record
  await produceRawAppended(node.port, TOPIC, ['after'], { acks: -1 });
  const again = await readPartitions([cluster.bootstrap()], TOPIC, new Map([[0, BigInt(acked.length + 1)]]));
  assert.deepEqual(again.get(0)!.at(-1), { offset: BigInt(acked.length), value: 'after' });

  // a clean stop trims the active segment's preallocated indexes (a live one fails Kafka's sanity check too)
  await node.stop();
  assert.ok(existsSync(join(dataDir, '.kafka_cleanshutdown')));
  const indexes = readdirSync(dir).filter((f) => f.endsWith('.index') || f.endsWith('.timeindex'));
  assert.ok(indexes.length >= 4);
  const r = await runTkafka('dump-log', [
    '--index-sanity-check',
    '--files',
    indexes.map((f) => join(dir, f)).join(','),
  ]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.match(/passed sanity check\./g)?.length, indexes.length, r.out);
});
