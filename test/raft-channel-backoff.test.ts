// The raft channel's backoff after repeated failures (KafkaRaftManager's NetworkClient reconnect
// backoff: 50 ms doubling to 500 ms with 20% jitter), so a follower whose leader is dead retries it
// about twice a second instead of every controller.quorum.retry.backoff.ms (20 ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { RaftChannel, reconnectBackoffMs } from '../src/broker/raft/channel.js';
import { pickPort } from './helpers/cluster.js';

test('reconnectBackoffMs: 50, 100, 200, 400, then 500 ms, each within 20%', () => {
  const expected = [50, 100, 200, 400, 500, 500, 500];
  expected.forEach((ms, i) => {
    assert.equal(
      reconnectBackoffMs(i + 1, () => 0.5),
      ms,
    );
    assert.equal(
      reconnectBackoffMs(i + 1, () => 0),
      Math.round(ms * 0.8),
    );
    assert.equal(
      reconnectBackoffMs(i + 1, () => 1),
      Math.round(ms * 1.2),
    );
  });
});

test('a voter that refuses connections is retried with a growing backoff, never sooner than the retry backoff', async () => {
  const port = await pickPort(); // nothing listens there
  let now = 1_000_000;
  const ch = new RaftChannel({
    nodeId: 2,
    listenerName: 'CONTROLLER',
    requestTimeoutMs: 2000,
    retryBackoffMs: 20,
    voters: new Map([[1, { host: '127.0.0.1', port }]]),
    now: () => now,
  });
  try {
    const backoffs: number[] = [];
    for (let i = 0; i < 6; i++) {
      assert.ok(ch.isReady({ voterId: 1 }));
      await assert.rejects(ch.send({ voterId: 1 }, ApiKey.ApiVersions, {}));
      const b = ch.backoffMs({ voterId: 1 });
      backoffs.push(b);
      // in backoff: a send is refused at once, without a connection attempt
      await assert.rejects(ch.send({ voterId: 1 }, ApiKey.ApiVersions, {}), /in backoff/);
      now += b;
    }
    const nominal = [50, 100, 200, 400, 500, 500];
    backoffs.forEach((b, i) => {
      assert.ok(b >= nominal[i]! * 0.8 && b <= nominal[i]! * 1.2, `backoff ${i + 1}: ${b} ms (${backoffs.join(', ')})`);
    });
  } finally {
    ch.close();
  }
});
