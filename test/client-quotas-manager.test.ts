// The broker's client quota manager (src/broker/quota/): Kafka's Rate over 11 one-second samples,
// QuotaUtils.throttleTime, DefaultQuotaCallback's precedence of user / client-id quotas, the IP
// connection-rate quota the acceptor asks, and the quota window configs.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  ClientQuotaManager,
  Rate,
  quotaLimit,
  quotaMetricTags,
  quotaWindowConfig,
  throttleTime,
} from '../src/broker/quota/client-quota-manager.js';
import {
  ControllerMutationQuotaManager,
  STRICT_SINCE_VERSION,
  ThrottlingQuotaExceeded,
  tokenBucketThrottleTime,
} from '../src/broker/quota/controller-mutation-quota.js';
import { connectionRateQuotaFor, IP_CONNECTION_RATE_DEFAULT } from '../src/broker/quota/connection-quotas.js';
import { alterClientQuotas } from '../src/broker/controller/client-quotas.js';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import { EMBEDDED_DEFAULT_CONFIG, loadServerConfig } from '../src/config/load.js';
import { checkConfigSupport } from '../src/config/support.js';
import { ConfigError } from '../src/config/definitions.js';

const W = { samples: 11, windowMs: 1000 };

function imageWith(quotas: [[string, string | null][], string, number][]): MetadataImage {
  const { records, results } = alterClientQuotas(
    MetadataImage.empty('c'),
    quotas.map(([entity, key, value]) => ({
      entity: entity.map(([entityType, entityName]) => ({ entityType, entityName })),
      ops: [{ key, value, remove: false }],
    })),
  );
  assert.ok(results.every((r) => r.errorCode === 0));
  const b = new ImageBuilder(MetadataImage.empty('c'));
  for (const r of records) b.apply(r);
  return b.build({ offset: records.length, epoch: 1, lastContainedLogTimeMs: -1 });
}

test('Rate: the window is at least samples − 1 full windows; samples older than the window are purged', () => {
  const r = new Rate(W);
  r.record(1000, 0);
  // elapsed 0, padded to 10 windows
  assert.equal(r.windowSize(0), 10_000);
  assert.equal(r.measure(0), 100);
  r.record(1000, 5500);
  // 5.5 s elapsed: 5 full windows, padded by 5 more (the fraction stays)
  assert.equal(r.windowSize(5500), 10_500);
  assert.equal(r.measure(5500), 2000 / 10.5);
  // after 11 windows the first sample is gone
  assert.equal(r.measure(11_000), 1000 / 10.5);
  // 22 s: every sample is obsolete, reset to now
  assert.equal(r.measure(22_000), 0);
  assert.equal(r.windowSize(22_000), 10_000);
});

test('throttleTime: (observed − quota) / quota × window, rounded', () => {
  assert.equal(throttleTime(200, 100, 10_000), 10_000);
  assert.equal(throttleTime(110, 100, 10_000), 1000);
  assert.equal(throttleTime(100.04, 100, 10_000), 4);
});

test('ClientQuotaManager: within the quota 0, above it the time to get back to it', () => {
  let image = imageWith([[[['client-id', 'slow']], 'producer_byte_rate', 1000]]);
  const m = new ClientQuotaManager('producer_byte_rate', W, () => image);
  // 10 s window: 10000 bytes are allowed
  assert.equal(m.recordAndGetThrottleTimeMs('User:ANONYMOUS', 'slow', 10_000, 0), 0);
  // 11000 bytes over 10 s = 1100/s: 10% over → 1 s
  assert.equal(m.recordAndGetThrottleTimeMs('User:ANONYMOUS', 'slow', 1000, 0), 1000);
  // another client id has no quota
  assert.equal(m.recordAndGetThrottleTimeMs('User:ANONYMOUS', 'fast', 1e9, 0), 0);
  // a quota removed: nothing throttled
  image = MetadataImage.empty('c');
  assert.equal(m.recordAndGetThrottleTimeMs('User:ANONYMOUS', 'slow', 1e9, 0), 0);
});

test('DefaultQuotaCallback precedence: user+client, user+default client, user, default user..., client, default client', () => {
  const K = 'producer_byte_rate';
  const all: [[string, string | null][], string, number][] = [
    [
      [
        ['user', 'u'],
        ['client-id', 'c'],
      ],
      K,
      1,
    ],
    [
      [
        ['user', 'u'],
        ['client-id', null],
      ],
      K,
      2,
    ],
    [[['user', 'u']], K, 3],
    [
      [
        ['user', null],
        ['client-id', 'c'],
      ],
      K,
      4,
    ],
    [
      [
        ['user', null],
        ['client-id', null],
      ],
      K,
      5,
    ],
    [[['user', null]], K, 6],
    [[['client-id', 'c']], K, 7],
    [[['client-id', null]], K, 8],
  ];
  for (let i = 0; i < all.length; i++) {
    const image = imageWith(all.slice(i));
    const tags = quotaMetricTags(image, K, 'u', 'c');
    assert.equal(quotaLimit(image, K, tags), i + 1, `level ${i + 1}`);
  }
  // the tags say who shares the quota: a user quota is shared by all the user's client ids
  const userOnly = imageWith([[[['user', 'u']], K, 3]]);
  assert.deepEqual(quotaMetricTags(userOnly, K, 'u', 'c'), { user: 'u', clientId: '' });
  assert.deepEqual(quotaMetricTags(userOnly, K, 'other', 'c'), { user: '', clientId: 'c' });
  assert.equal(quotaLimit(userOnly, K, { user: '', clientId: 'c' }), undefined);
  // a consumer quota is not a producer quota
  assert.equal(quotaLimit(userOnly, 'consumer_byte_rate', { user: 'u', clientId: '' }), undefined);
});

test('connectionRateQuotaFor: the IP entity, else the default IP entity, else unlimited', () => {
  assert.equal(connectionRateQuotaFor(MetadataImage.empty('c'), '127.0.0.1'), IP_CONNECTION_RATE_DEFAULT);
  const image = imageWith([
    [[['ip', '127.0.0.1']], 'connection_creation_rate', 5],
    [[['ip', null]], 'connection_creation_rate', 50],
  ]);
  assert.equal(connectionRateQuotaFor(image, '127.0.0.1'), 5);
  assert.equal(connectionRateQuotaFor(image, '::ffff:127.0.0.1'), 5);
  assert.equal(connectionRateQuotaFor(image, '10.1.1.1'), 50);
});

test('quota.window.num / quota.window.size.seconds: defaults 11 and 1 s, at least 1', () => {
  assert.deepEqual(quotaWindowConfig({ originals: new Map() }), { samples: 11, windowMs: 1000 });
  assert.deepEqual(
    quotaWindowConfig({
      originals: new Map([
        ['quota.window.num', '5'],
        ['quota.window.size.seconds', '2'],
      ]),
    }),
    { samples: 5, windowMs: 2000 },
  );
  assert.throws(
    () => quotaWindowConfig({ originals: new Map([['quota.window.num', '0']]) }),
    /Invalid value 0 for configuration quota.window.num: Value must be at least 1/,
  );
});

test('client.quota.callback.class: refused when set (only the default quota callback exists)', () => {
  const props = (extra: [string, string][]): Map<string, string> =>
    new Map([...EMBEDDED_DEFAULT_CONFIG.map(([k, v]) => [k, v] as [string, string]), ...extra]);
  assert.deepEqual(checkConfigSupport(loadServerConfig({ properties: props([]) }).config), []);
  assert.throws(
    () =>
      checkConfigSupport(
        loadServerConfig({ properties: props([['client.quota.callback.class', 'com.example.Callback']]) }).config,
      ),
    (e: unknown) => e instanceof ConfigError && e.key === 'client.quota.callback.class',
  );
});

test('controller_mutation_rate: TokenBucket, strict quotas refuse once negative, permissive ones only throttle', () => {
  const image = imageWith([[[['client-id', 'admin']], 'controller_mutation_rate', 2]]);
  let now = 1_000_000;
  const m = new ControllerMutationQuotaManager(
    W,
    () => image,
    () => now,
  );
  // burst = 11 windows × 1 s × 2/s = 22 partitions
  const strict = m.newQuotaFor('User:ANONYMOUS', 'admin', true);
  strict.record(20);
  strict.record(10); // the bucket was positive: recorded, now at −8
  assert.throws(
    () => strict.record(1),
    (e: unknown) => e instanceof ThrottlingQuotaExceeded && e.throttleTimeMs === 4000,
  );
  assert.equal(strict.throttleTime(), 4000);
  now += 1000;
  assert.equal(strict.throttleTime(), 3000);
  // 4 s after the refusal the bucket is back at 0
  now += 3000;
  const again = m.newQuotaFor('User:ANONYMOUS', 'admin', true);
  again.record(1);
  assert.equal(again.throttleTime(), 0);
  // permissive (older versions): recorded anyway, the throttle time answered
  const permissive = m.newQuotaFor('User:ANONYMOUS', 'admin', false);
  permissive.record(5);
  assert.equal(permissive.throttleTime(), 3000);
  assert.equal(tokenBucketThrottleTime(-6, 2), 3000);
  // another client id has no quota
  const other = m.newQuotaFor('User:ANONYMOUS', 'other', true);
  other.record(1000);
  other.record(1000);
  assert.equal(other.throttleTime(), 0);
  assert.equal(STRICT_SINCE_VERSION.CreateTopics, 6);
});
