// The numbers of `tkafka reassign-partitions --list --watch` (src/tools/common/live/reassign-model.ts):
// bytes copied per new replica against the existing replicas' bytes, the rate over the window, the
// ETA of each copy and of the whole move (its slowest copy), the plain logfmt lines, and the end.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ReassignTracker, plainLines, type ReassignPartitionSample } from '../src/tools/common/live/reassign-model.js';

const MB = 1_000_000;

function part(
  adding: Record<number, number | null>,
  sourceBytes: number | null,
  partition = 0,
): ReassignPartitionSample {
  return {
    topic: 'orders',
    partition,
    replicas: [2, 3, ...Object.keys(adding).map(Number)],
    adding: Object.keys(adding).map(Number),
    removing: [2],
    sourceBytes,
    addingBytes: new Map(Object.entries(adding).map(([b, v]) => [Number(b), v])),
  };
}

test('rate over the window, ETA per copy and for the whole move', () => {
  const t = new ReassignTracker(10_000);
  const f0 = t.add({ at: 0, partitions: [part({ 4: 0, 5: null }, 20 * MB)] });
  assert.equal(f0.rows.length, 2);
  assert.equal(f0.rows[0]!.rate, null, 'one sample: no rate yet');
  assert.equal(f0.rows[1]!.moved, null, 'broker 5 has no replica yet');
  assert.equal(f0.etaSeconds, null);
  assert.equal(f0.done, false);
  const f1 = t.add({ at: 2_000, partitions: [part({ 4: 2 * MB, 5: 0 }, 20 * MB)] });
  const r4 = f1.rows.find((r) => r.broker === 4)!;
  assert.equal(r4.rate, 1 * MB, '2 MB in 2 s');
  assert.equal(r4.etaSeconds, 18, '18 MB left at 1 MB/s');
  const r5 = f1.rows.find((r) => r.broker === 5)!;
  assert.equal(r5.rate, null, "broker 5's first point");
  assert.equal(f1.etaSeconds, null, 'unknown while one copy has no rate');
  assert.equal(f1.moved, 2 * MB);
  assert.equal(f1.target, 40 * MB);
  const f2 = t.add({ at: 4_000, partitions: [part({ 4: 4 * MB, 5: 0.5 * MB }, 20 * MB)] });
  assert.equal(f2.rows.find((r) => r.broker === 5)!.rate, 0.25 * MB);
  assert.equal(f2.etaSeconds, (19.5 * MB) / (0.25 * MB), 'the whole move ends with its slowest copy');
  assert.equal(f2.rate, 1.25 * MB);
});

test('the window drops old points; a replica caught up has ETA 0; the end is a frame with no partitions', () => {
  const t = new ReassignTracker(3_000);
  t.add({ at: 0, partitions: [part({ 4: 0 }, 10 * MB)] });
  t.add({ at: 1_000, partitions: [part({ 4: 9 * MB }, 10 * MB)] });
  t.add({ at: 5_000, partitions: [part({ 4: 9.5 * MB }, 10 * MB)] });
  const f = t.add({ at: 6_000, partitions: [part({ 4: 10 * MB }, 10 * MB)] });
  // points at 5000 and 6000 remain (1000 is older than 3 s; at least two points are always kept)
  assert.equal(f.rows[0]!.rate, 0.5 * MB);
  assert.equal(f.rows[0]!.etaSeconds, 0);
  const end = t.add({ at: 7_000, partitions: [] });
  assert.equal(end.done, true);
  assert.deepEqual(plainLines(end), ['time=1970-01-01T00:00:07.000Z partitions=0 done=true']);
});

test('a failed sample keeps the last numbers and reports the error; plain lines', () => {
  const t = new ReassignTracker(10_000);
  t.add({ at: 0, partitions: [part({ 4: 0 }, 4 * MB)] });
  const ok = t.add({ at: 1_000, partitions: [part({ 4: 1 * MB }, 4 * MB)] });
  assert.deepEqual(plainLines(ok), [
    'time=1970-01-01T00:00:01.000Z topic=orders partition=0 broker=4 moved-bytes=1000000 target-bytes=4000000 rate=1000000.0 eta-seconds=3.0',
    'time=1970-01-01T00:00:01.000Z partitions=1 moved-bytes=1000000 target-bytes=4000000 rate=1000000.0 eta-seconds=3.0',
  ]);
  const failed = t.add({ at: 2_000, partitions: [], error: 'Timed out' });
  assert.equal(failed.done, false, 'a failed sample is not the end');
  assert.equal(failed.moved, 1 * MB);
  assert.deepEqual(plainLines(failed), ['time=1970-01-01T00:00:02.000Z error="Timed out"']);
});
