// tkafka's ObserverQuorum catches up from a snapshot of an Apache Kafka 4.4.0 controller: while the
// observer is down, Kafka snapshots its metadata and deletes the log segments the observer had not
// fetched (small segments, small retention), so on restart its fetch offset is below Kafka's log
// start; Kafka answers SnapshotId, the observer downloads the snapshot with FetchSnapshot, restarts
// its log at the snapshot's end offset and follows the tail.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { waitFor } from '../helpers/wait-for.js';
import { RecordType } from '../../src/protocol/metadata-records.js';
import { ObserverQuorum } from '../../src/broker/raft/observer.js';
import { METADATA_PARTITION_DIR, type OffsetAndEpoch } from '../../src/broker/raft/types.js';
import { parseSnapshotFileName } from '../../src/storage/snapshot-file.js';
import { createTopicAt } from '../helpers/create-topic.js';

let kafka: ApacheKafka;
let dir: string;
let observer: ObserverQuorum | undefined;

before(async () => {
  kafka = await startApacheKafka({
    overrides: {
      'internal.metadata.log.segment.bytes': 4096,
      'metadata.log.max.record.bytes.between.snapshots': 4096,
      'metadata.max.retention.bytes': 1,
      'metadata.max.retention.ms': 1000,
      'internal.metadata.delete.delay.millis': 0,
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'tkafka-observer-snapshot-'));
});

after(async () => {
  await observer?.close();
  rmSync(dir, { recursive: true, force: true });
  await kafka?.cleanup();
});

interface Seen {
  topics: Set<string>;
  snapshots: OffsetAndEpoch[];
}

async function openObserver(seen: Seen): Promise<ObserverQuorum> {
  const q = await ObserverQuorum.open({
    metadataLogDir: dir,
    nodeId: 101,
    clusterId: kafka.clusterId,
    voters: [{ id: kafka.nodeId, host: '127.0.0.1', port: kafka.controllerPort }],
    listenerName: 'CONTROLLER',
  });
  q.register({
    handleLoadSnapshot(s) {
      seen.snapshots.push(s.id);
      seen.topics.clear();
      for (const r of s.records) if (r.type === RecordType.Topic) seen.topics.add(r.data.name);
    },
    handleCommit(b) {
      for (const r of b.records) if (r.type === RecordType.Topic) seen.topics.add(r.data.name);
    },
  });
  await q.start();
  return q;
}

/** Kafka's log start (first segment's base offset) and its latest snapshot. */
function kafkaLogState(): { logStart: number; latest: OffsetAndEpoch | null } {
  const names = readdirSync(join(kafka.dataDir, METADATA_PARTITION_DIR));
  const bases = names.filter((n) => /^\d{20}\.log$/.test(n)).map((n) => Number(n.slice(0, 20)));
  const snaps = names.map(parseSnapshotFileName).filter((s): s is OffsetAndEpoch => s !== null);
  snaps.sort((a, b) => a.offset - b.offset);
  return { logStart: Math.min(...bases), latest: snaps[snaps.length - 1] ?? null };
}

test('an ObserverQuorum behind an Apache Kafka 4.4.0 log start catches up from its snapshot', async () => {
  const first: Seen = { topics: new Set(), snapshots: [] };
  await createTopicAt(kafka.port, 'early', { partitions: 1, timeoutMs: 30_000 });
  observer = await openObserver(first);
  await waitFor(() => first.topics.has('early') || null, {
    what: 'the observer to deliver "early"',
    timeoutMs: 30_000,
  });
  await observer.close();
  const observerEnd = observer.logEndOffset;
  observer = undefined;

  // Fill Kafka's metadata log until it has deleted the segments past the observer's end.
  let n = 0;
  const state = await waitFor(
    async () => {
      await createTopicAt(kafka.port, `fill-${n++}`, { partitions: 16, timeoutMs: 30_000 });
      const s = kafkaLogState();
      return s.logStart > observerEnd && s.latest && s.latest.offset > observerEnd ? s : null;
    },
    { what: `Kafka's log start to pass offset ${observerEnd}`, timeoutMs: 120_000, intervalMs: 200 },
  );
  const last = `fill-${n - 1}`;

  const again: Seen = { topics: new Set(), snapshots: [] };
  observer = await openObserver(again);
  await waitFor(() => (again.topics.has(last) && again.topics.has('early') ? true : null), {
    what: `the restarted observer to deliver "early" and "${last}"`,
    timeoutMs: 60_000,
  });
  assert.ok(again.snapshots.length >= 1, 'a snapshot was loaded');
  const loaded = again.snapshots[again.snapshots.length - 1]!;
  assert.ok(loaded.offset >= state.latest!.offset, `loaded ${loaded.offset}, Kafka had ${state.latest!.offset}`);
  assert.equal(observer.latestSnapshotId()?.offset, loaded.offset);
  assert.ok(observer.log.logStartOffset >= loaded.offset, 'the log restarted at the snapshot');
});
