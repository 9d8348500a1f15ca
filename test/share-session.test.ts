// Share sessions in-process (Kafka's SharePartitionManagerTest session cases): epochs, full and
// incremental contexts, forgotten topics, the final epoch, the session limit, ShareAcknowledge's
// session update.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { FINAL_EPOCH, ShareSessionCache, ShareSessionError, nextEpoch } from '../src/broker/share/share-session.js';
import { invalidAcknowledgements, isMemberIdValid, type AckData } from '../src/broker/api/share-fetch.js';
import { parseIsoDurationMs } from '../src/broker/share/share-partition-manager.js';

const tp = (partition: number, topicId = 'T1') => ({ topicId, topic: 'events', partition });
const code = (f: () => unknown): number => {
  try {
    f();
  } catch (e) {
    if (e instanceof ShareSessionError) return e.errorCode;
    throw e;
  }
  return ErrorCode.NONE;
};

test('a new session (epoch 0) is full, then incremental with the epoch going up (testNewContext)', () => {
  const cache = new ShareSessionCache(10);
  const full = cache.newContext('g', 'm', 0, [tp(0), tp(1)], [], false, 'c1');
  assert.equal(full.kind, 'full');
  assert.deepEqual(
    full.partitions.map((p) => p.partition),
    [0, 1],
  );
  assert.equal(full.session!.epoch, 1);
  // the next request names one more partition and forgets one: the session holds both changes
  const inc = cache.newContext('g', 'm', 1, [tp(2)], [tp(0)], false, 'c1');
  assert.equal(inc.kind, 'incremental');
  assert.deepEqual(
    inc.partitions.map((p) => p.partition),
    [1, 2],
  );
  assert.equal(cache.get('g', 'm')!.epoch, 2);
  // a stale epoch, an unknown session
  assert.equal(
    code(() => cache.newContext('g', 'm', 1, [], [], false, 'c1')),
    ErrorCode.INVALID_SHARE_SESSION_EPOCH,
  );
  assert.equal(
    code(() => cache.newContext('g', 'other', 1, [], [], false, 'c1')),
    ErrorCode.SHARE_SESSION_NOT_FOUND,
  );
  // acknowledgements are not allowed when opening a session
  assert.equal(
    code(() => cache.newContext('g', 'x', 0, [tp(0)], [], true, 'c1')),
    ErrorCode.INVALID_REQUEST,
  );
  // epoch 0 again replaces the session
  cache.newContext('g', 'm', 0, [tp(5)], [], false, 'c2');
  assert.equal(cache.get('g', 'm')!.epoch, 1);
  assert.deepEqual(
    [...cache.get('g', 'm')!.partitions.values()].map((p) => p.partition),
    [5],
  );
  assert.equal(nextEpoch(0x7fffffff), 1);
});

test('the final epoch: only with a session (testNewContextFinalEpoch)', () => {
  const cache = new ShareSessionCache(10);
  assert.equal(
    code(() => cache.newContext('g', 'm', FINAL_EPOCH, [], [], false, 'c')),
    ErrorCode.SHARE_SESSION_NOT_FOUND,
  );
  cache.newContext('g', 'm', 0, [tp(0)], [], false, 'c');
  const ctx = cache.newContext('g', 'm', FINAL_EPOCH, [tp(0)], [], true, 'c');
  assert.equal(ctx.kind, 'final');
  assert.deepEqual(ctx.partitions, []);
});

test('the session limit: SHARE_SESSION_LIMIT_REACHED (group.share.max.share.sessions)', () => {
  const cache = new ShareSessionCache(2);
  cache.newContext('g', 'a', 0, [], [], false, 'c');
  cache.newContext('g', 'b', 0, [], [], false, 'c');
  assert.equal(
    code(() => cache.newContext('g', 'c', 0, [], [], false, 'c')),
    ErrorCode.SHARE_SESSION_LIMIT_REACHED,
  );
  // a member replacing its own session does not need room
  assert.equal(
    code(() => cache.newContext('g', 'a', 0, [], [], false, 'c')),
    ErrorCode.NONE,
  );
});

test('ShareAcknowledge session update: epoch 0 invalid, -1 keeps it for closing, others must match', () => {
  const cache = new ShareSessionCache(10);
  assert.equal(
    code(() => cache.acknowledgeSessionUpdate('g', 'm', 1)),
    ErrorCode.SHARE_SESSION_NOT_FOUND,
  );
  cache.newContext('g', 'm', 0, [tp(0)], [], false, 'c');
  assert.equal(
    code(() => cache.acknowledgeSessionUpdate('g', 'm', 0)),
    ErrorCode.INVALID_SHARE_SESSION_EPOCH,
  );
  assert.equal(
    code(() => cache.acknowledgeSessionUpdate('g', 'm', 2)),
    ErrorCode.INVALID_SHARE_SESSION_EPOCH,
  );
  cache.acknowledgeSessionUpdate('g', 'm', 1);
  assert.equal(cache.get('g', 'm')!.epoch, 2);
  cache.acknowledgeSessionUpdate('g', 'm', FINAL_EPOCH);
  assert.equal(cache.get('g', 'm')!.epoch, 2);
});

test('sessions of a connection and of a member', () => {
  const cache = new ShareSessionCache(10);
  cache.newContext('g', 'a', 0, [], [], false, 'c1');
  cache.newContext('g', 'b', 0, [], [], false, 'c2');
  cache.newContext('h', 'a', 0, [], [], false, 'c1');
  assert.deepEqual(
    cache.sessionsOnConnection('c1').map((s) => `${s.groupId}/${s.memberId}`),
    ['g/a', 'h/a'],
  );
  assert.equal(cache.sessionsOf('g').length, 2);
  assert.equal(cache.sessionsOf('g', 'b').length, 1);
});

test('member ids and acknowledgement batches are validated as KafkaApis does', () => {
  assert.equal(isMemberIdValid(''), false);
  assert.equal(isMemberIdValid(null), false);
  assert.equal(isMemberIdValid('x'.repeat(37)), false);
  assert.equal(isMemberIdValid('AAAAAAAAAAAAAAAAAAAAAA'), true);
  const acks = (batches: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[]): AckData =>
    new Map([['T1:0', { tip: tp(0), batches }]]);
  const bad = (a: AckData, v = 2, renew = false) => invalidAcknowledgements(a, v, renew).size === 1;
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] }])), false);
  assert.equal(bad(acks([{ firstOffset: 5, lastOffset: 4, acknowledgeTypes: [1] }])), true);
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [] }])), true);
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1, 2] }])), true);
  assert.equal(
    bad(
      acks([
        { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] },
        { firstOffset: 4, lastOffset: 6, acknowledgeTypes: [1] },
      ]),
    ),
    true,
  );
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [5] }])), true);
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [4] }])), true, 'RENEW without IsRenewAck');
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [4] }]), 2, true), false);
  assert.equal(bad(acks([{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [4] }]), 1, true), true, 'v1 has no RENEW');
});

test('share.auto.offset.reset by_duration durations (ISO-8601, as java.time.Duration.parse)', () => {
  assert.equal(parseIsoDurationMs('PT1H'), 3_600_000);
  assert.equal(parseIsoDurationMs('P1DT2M3.5S'), 86_400_000 + 120_000 + 3500);
  assert.equal(parseIsoDurationMs('P'), null);
  assert.equal(parseIsoDurationMs('1h'), null);
});
