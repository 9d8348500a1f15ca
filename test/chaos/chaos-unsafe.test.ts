// The checker can see loss: tkafka started with TKAFKA_TEST_UNSAFE_ACKS=1 (a test-only switch of
// the replication code: acks=all answered after the leader's local append, before the ISR has the
// records) under zombie-leader partitions (the leader keeps its clients, loses the controller and
// its followers, so it acknowledges records no follower gets, and a new leader is elected) must
// make the chaos checker report lost acknowledged records.
//
//   node --test dist/test/chaos/chaos-unsafe.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runChaos } from './run.js';

test('chaos on tkafka with unsafe acks=all: the checker reports lost records', { timeout: 20 * 60_000 }, async () => {
  const report = await runChaos({
    target: 'tkafka',
    faults: 6,
    kinds: ['zombie', 'kill'],
    minHoldMs: 12_000,
    maxHoldMs: 15_000,
    unsafeAcks: true,
    maxTotalMs: 10 * 60_000,
  });
  console.log(report.summary);
  assert.equal(report.result.ok, false, `the checker found nothing wrong with unsafe acks: ${report.summary}`);
  assert.ok(report.result.lost > 0, `lost=0 with unsafe acks: ${report.summary}`);
});
