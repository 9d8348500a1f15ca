// The kafkajs 2.2.4 program of the client matrix (test/clients/README.md):
//
//   node test/clients/node/kafkajs-client.mjs <scenario> <bootstrap>
//
// Codecs: kafkajs ships gzip; snappy is kafkajs-snappy, lz4 is kafkajs-lz4, zstd is a codec over
// @mongodb-js/zstd (the @kafkajs/zstd plugin's native cppzst 2.0.6 does not compile against Node 20's
// headers). kafkajs speaks the classic group protocol only (no KIP-848 consumer) and has no assign():
// every read goes through a group consumer.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as zstd from '@mongodb-js/zstd';
import kafkajs from 'kafkajs';
import LZ4Codec from 'kafkajs-lz4';
import SnappyCodec from 'kafkajs-snappy';
import { NotApplicable, check, checkEqual, main, uniqueName, waitFor } from './common.mjs';

const { Kafka, CompressionTypes, CompressionCodecs, ConfigResourceTypes, Partitioners, logLevel } = kafkajs;
const require = createRequire(import.meta.url);
const VERSION = require('kafkajs/package.json').version;

CompressionCodecs[CompressionTypes.Snappy] = SnappyCodec;
CompressionCodecs[CompressionTypes.LZ4] = new LZ4Codec().codec;
CompressionCodecs[CompressionTypes.ZSTD] = () => ({
  compress: async (encoder) => zstd.compress(encoder.buffer),
  decompress: async (buffer) => zstd.decompress(buffer),
});

const FAMILY = 'kafkajs';
const scenario = process.argv[2];
const logs = [];

function client(bootstrap, extra = {}) {
  return new Kafka({
    ...extra,
    clientId: `m-${FAMILY}`,
    brokers: [bootstrap],
    connectionTimeout: 5000,
    requestTimeout: 20000,
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ namespace, level, log }) => {
        const { message, timestamp: _t, logger: _l, ...extra } = log;
        const label = Object.keys(logLevel).find((k) => logLevel[k] === level) ?? level;
        logs.push(`${label} [${namespace}] ${message} ${JSON.stringify(extra)}`);
        if (logs.length > 20) logs.shift();
      },
  });
}

const name = (what = '') => uniqueName(FAMILY, scenario, what);

/** Short timeouts so rebalances and empty fetches do not eat the 60 s budget. */
const CONSUMER_OPTS = {
  sessionTimeout: 10000,
  rebalanceTimeout: 10000,
  heartbeatInterval: 500,
  maxWaitTimeInMs: 500,
  retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 2000 },
};

async function withAdmin(kafka, fn) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

async function createTopic(admin, topic, numPartitions = 1, configEntries = []) {
  const created = await admin.createTopics({
    topics: [{ topic, numPartitions, replicationFactor: 1, configEntries }],
    waitForLeaders: true,
    timeout: 15000,
  });
  check(created === true, `createTopics(${topic}) returned ${created}, want true`);
}

/** Offsets of every partition: [{partition, low, high}] as numbers, sorted by partition. */
async function offsets(admin, topic) {
  const o = await admin.fetchTopicOffsets(topic);
  return o
    .map((p) => ({ partition: p.partition, low: Number(p.low), high: Number(p.high) }))
    .sort((a, b) => a.partition - b.partition);
}

/**
 * Reads with a group consumer (subscribed from the beginning) until `want` records arrived from
 * `topics`; returns them as plain objects in arrival order. Fails after `timeoutMs`.
 */
async function consume(kafka, { topics, want, groupId = name('g'), readUncommitted = false, timeoutMs = 25000 }) {
  const consumer = kafka.consumer({ groupId, readUncommitted, ...CONSUMER_OPTS });
  const got = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    let done;
    const finished = new Promise((resolve) => (done = resolve));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        got.push({ topic, partition, ...message });
        if (got.length >= want) done();
      },
    });
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([finished, timeout]);
    clearTimeout(timer);
    check(got.length >= want, `consumer read ${got.length} records of ${want} within ${timeoutMs} ms`);
    return got;
  } finally {
    await consumer.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------

async function metadataNamed(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, topic, 3);
    const cluster = await admin.describeCluster();
    const nodeIds = cluster.brokers.map((b) => b.nodeId);
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    checkEqual(
      md.topics.map((t) => t.name),
      [topic],
      'topics in the metadata answer',
    );
    const parts = [...md.topics[0].partitions].sort((a, b) => a.partitionId - b.partitionId);
    checkEqual(
      parts.map((p) => p.partitionId),
      [0, 1, 2],
      'partition ids',
    );
    for (const p of parts) {
      checkEqual(p.partitionErrorCode, 0, `partition ${p.partitionId} error code`);
      check(nodeIds.includes(p.leader), `partition ${p.partitionId} leader ${p.leader} is not a broker (${nodeIds})`);
      checkEqual(p.replicas, [p.leader], `partition ${p.partitionId} replicas`);
      checkEqual(p.isr, [p.leader], `partition ${p.partitionId} isr`);
    }
  });
}

async function metadataAll(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, topic, 1);
    const names = await admin.listTopics();
    check(names.includes(topic), `listTopics does not list ${topic} (${names.length} topics)`);
    const all = await admin.fetchTopicMetadata();
    const t = all.topics.find((x) => x.name === topic);
    check(t, `fetchTopicMetadata() (all topics) does not list ${topic}`);
    checkEqual(t.partitions.length, 1, 'partitions of the topic in the all-topics metadata');
  });
}

async function describeTopicConfig(admin, topic, configNames) {
  const d = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames }],
    includeSynonyms: false,
  });
  checkEqual(d.resources.length, 1, 'describeConfigs resources');
  checkEqual(d.resources[0].errorCode, 0, 'describeConfigs error code');
  return Object.fromEntries(d.resources[0].configEntries.map((e) => [e.configName, e]));
}

async function adminTopics(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, topic, 2, [{ name: 'cleanup.policy', value: 'compact' }]);
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    checkEqual(md.topics[0].partitions.length, 2, 'partition count');
    const cfg = await describeTopicConfig(admin, topic, ['cleanup.policy']);
    checkEqual(cfg['cleanup.policy']?.configValue, 'compact', 'cleanup.policy');
    checkEqual(cfg['cleanup.policy']?.isDefault, false, 'cleanup.policy isDefault');
    await admin.deleteTopics({ topics: [topic], timeout: 15000 });
    await waitFor(`${topic} to be gone from listTopics`, async () => !(await admin.listTopics()).includes(topic));
  });
}

async function adminConfigs(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, topic, 1);
    const before = await describeTopicConfig(admin, topic, ['retention.ms']);
    checkEqual(before['retention.ms']?.configValue, '604800000', 'retention.ms before');
    checkEqual(before['retention.ms']?.isDefault, true, 'retention.ms isDefault before');
    // kafkajs has no IncrementalAlterConfigs: the legacy AlterConfigs (replaces the topic's set).
    const altered = await admin.alterConfigs({
      validateOnly: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'retention.ms', value: '3600000' }] },
      ],
    });
    checkEqual(
      altered.resources.map((r) => r.errorCode),
      [0],
      'alterConfigs error codes',
    );
    const after = await waitFor('retention.ms to read back 3600000', async () => {
      const c = await describeTopicConfig(admin, topic, ['retention.ms']);
      return c['retention.ms']?.configValue === '3600000' && c;
    });
    checkEqual(after['retention.ms'].isDefault, false, 'retention.ms isDefault after');
    checkEqual(after['retention.ms'].configSource, 1, 'retention.ms source after (1 = TOPIC_CONFIG)');
  });
}

const CODECS = [
  ['none', CompressionTypes.None],
  ['gzip', CompressionTypes.GZIP],
  ['snappy', CompressionTypes.Snappy],
  ['lz4', CompressionTypes.LZ4],
  ['zstd', CompressionTypes.ZSTD],
];

async function produceConsume(bootstrap) {
  const kafka = client(bootstrap);
  const base = Date.now() - 3_600_000;
  const topics = Object.fromEntries(CODECS.map(([codec]) => [codec, name(codec)]));
  await withAdmin(kafka, async (admin) => {
    for (const topic of Object.values(topics)) await createTopic(admin, topic, 1);
  });
  const expected = (codec, i) => ({
    key: `key-${i}`,
    value: `value-${codec}-${i}-${'x'.repeat(i % 17)}`,
    headers: { h1: `one-${i}`, h2: `two-${codec}-${i}` },
    timestamp: String(base + i * 10),
  });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    for (const [codec, compression] of CODECS) {
      const messages = Array.from({ length: 100 }, (_, i) => expected(codec, i));
      const res = await producer.send({ topic: topics[codec], compression, acks: -1, messages });
      checkEqual(
        res.map((r) => [r.errorCode, r.baseOffset]),
        [[0, '0']],
        `${codec}: produce result (error code, base offset)`,
      );
    }
  } finally {
    await producer.disconnect();
  }
  const got = await consume(kafka, { topics: Object.values(topics), want: 500 });
  checkEqual(got.length, 500, 'records read');
  for (const [codec] of CODECS) {
    const mine = got.filter((m) => m.topic === topics[codec]);
    checkEqual(mine.length, 100, `${codec}: records read`);
    mine.forEach((m, i) => {
      const want = expected(codec, i);
      checkEqual(m.offset, String(i), `${codec}: offset of record ${i}`);
      checkEqual(m.key?.toString(), want.key, `${codec}: key of record ${i}`);
      checkEqual(m.value?.toString(), want.value, `${codec}: value of record ${i}`);
      checkEqual(m.timestamp, want.timestamp, `${codec}: timestamp of record ${i}`);
      const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, v?.toString()]));
      checkEqual(headers, want.headers, `${codec}: headers of record ${i}`);
    });
  }
}

async function idempotent(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  await withAdmin(kafka, (admin) => createTopic(admin, topic, 1));
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  try {
    for (let b = 0; b < 10; b++) {
      const messages = Array.from({ length: 100 }, (_, i) => ({ key: `k${b * 100 + i}`, value: String(b * 100 + i) }));
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
  const got = await consume(kafka, { topics: [topic], want: 1000 });
  checkEqual(got.length, 1000, 'records read');
  got.forEach((m, i) => {
    checkEqual([m.offset, m.value.toString()], [String(i), String(i)], `record ${i} (offset, value)`);
  });
  await withAdmin(kafka, async (admin) => {
    checkEqual(await offsets(admin, topic), [{ partition: 0, low: 0, high: 1000 }], 'watermarks (no duplicates)');
  });
}

/** Produces `count` records round-robin over the partitions; returns how many went to each. */
async function produceSpread(kafka, topic, partitions, count, tag) {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    const messages = Array.from({ length: count }, (_, i) => ({ partition: i % partitions, value: `${tag}-${i}` }));
    await producer.send({ topic, acks: -1, messages });
  } finally {
    await producer.disconnect();
  }
}

async function groupClassic(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  const groupId = name('g');
  await withAdmin(kafka, (admin) => createTopic(admin, topic, 4));

  // Two members; each records its latest assignment (from GROUP_JOIN) and what it consumed.
  const members = [0, 1].map((id) => {
    const consumer = kafka.consumer({ groupId, ...CONSUMER_OPTS });
    const m = { id, consumer, join: null, got: [] };
    consumer.on(consumer.events.GROUP_JOIN, (e) => (m.join = e.payload));
    return m;
  });
  for (const m of members) {
    await m.consumer.connect();
    await m.consumer.subscribe({ topics: [topic], fromBeginning: true });
    await m.consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        m.got.push({ partition, offset: Number(message.offset), value: message.value.toString() });
        await m.consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      },
    });
  }
  const partsOf = (m) => [...(m.join?.memberAssignment?.[topic] ?? [])].sort();
  await waitFor(
    'both members in one generation with disjoint assignments covering partitions 0-3',
    async () => {
      const [a, b] = members;
      if (!a.join || !b.join || a.join.generationId !== b.join.generationId) return false;
      const pa = partsOf(a);
      const pb = partsOf(b);
      return pa.length > 0 && pb.length > 0 && JSON.stringify([...pa, ...pb].sort()) === '[0,1,2,3]';
    },
    { timeoutMs: 30000 },
  );
  await produceSpread(kafka, topic, 4, 40, 'first');
  await waitFor(
    'both members to consume the 40 records',
    async () => members[0].got.length + members[1].got.length >= 40,
    {
      timeoutMs: 20000,
    },
  );
  for (const m of members) {
    const mine = new Set(partsOf(m));
    check(
      m.got.every((r) => mine.has(r.partition)),
      `member ${m.id} consumed outside its assignment ${[...mine]}`,
    );
    check(m.got.length > 0, `member ${m.id} consumed nothing`);
  }
  const all = [...members[0].got, ...members[1].got].map((r) => r.value).sort();
  checkEqual(all, Array.from({ length: 40 }, (_, i) => `first-${i}`).sort(), 'records consumed by the two members');
  for (const m of members) await m.consumer.disconnect();

  await withAdmin(kafka, async (admin) => {
    const committed = await admin.fetchOffsets({ groupId, topics: [topic] });
    const got = committed[0].partitions.map((p) => [p.partition, p.offset]).sort((a, b) => a[0] - b[0]);
    checkEqual(
      got,
      [
        [0, '10'],
        [1, '10'],
        [2, '10'],
        [3, '10'],
      ],
      'committed offsets after the two members stopped',
    );
  });

  // A new member resumes from the committed offsets: it sees only the 20 records produced after.
  await produceSpread(kafka, topic, 4, 20, 'second');
  const third = kafka.consumer({ groupId, ...CONSUMER_OPTS });
  const got = [];
  await third.connect();
  try {
    await third.subscribe({ topics: [topic], fromBeginning: true });
    await third.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ partition, offset: Number(message.offset), value: message.value.toString() });
      },
    });
    await waitFor('the new member to read the 20 new records', async () => got.length >= 20, { timeoutMs: 25000 });
  } finally {
    await third.disconnect();
  }
  const redelivered = got.filter((r) => r.offset < 10);
  checkEqual(redelivered, [], 'records re-delivered to the new member');
  checkEqual(
    got.map((r) => r.value).sort(),
    Array.from({ length: 20 }, (_, i) => `second-${i}`).sort(),
    'records read by the new member',
  );
}

async function groupConsumer() {
  throw new NotApplicable('kafkajs 2.2.4 has no KIP-848 (group.protocol=consumer) consumer; classic protocol only');
}

/**
 * txn-v2 for a transactions V1 client: kafkajs knows neither EndTxn v5 nor Produce v12, so on a
 * cluster with transaction.version=2 finalized it keeps AddPartitionsToTxn and a constant epoch.
 * 100 transactions of one record to each of 2 partitions, every 7th aborted; a read_committed
 * consumer sees exactly the committed records.
 */
async function txnV2(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  const TXNS = 100;
  await withAdmin(kafka, (admin) => createTopic(admin, topic, 2));
  const producer = kafka.producer({ transactionalId: name('tx'), idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const committed = [];
  let aborted = 0;
  const start = Date.now();
  try {
    for (let i = 0; i < TXNS; i++) {
      const txn = await producer.transaction();
      const keys = [`t${i}-p0`, `t${i}-p1`];
      await txn.send({ topic, messages: keys.map((k, partition) => ({ key: k, value: k, partition })) });
      if (i % 7 === 6) {
        await txn.abort();
        aborted++;
      } else {
        await txn.commit();
        committed.push(...keys);
      }
    }
  } finally {
    await producer.disconnect();
  }
  const ms = Date.now() - start;
  checkEqual(aborted, Math.floor(TXNS / 7), 'aborted transactions');
  const got = await consume(kafka, { topics: [topic], want: committed.length, readUncommitted: false });
  checkEqual(got.map((m) => m.value.toString()).sort(), [...committed].sort(), 'read_committed records');
  return `${TXNS} transactions (${aborted} aborted) in ${ms} ms; read_committed saw ${got.length} records`;
}

async function transactions(bootstrap) {
  const kafka = client(bootstrap);
  const input = name('in');
  const output = name('out');
  const groupId = name('g');
  const INPUTS = 20;
  const ABORT_EVERY = 4; // transactions 3, 7, 11, ... are aborted and their input is redone
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, input, 1);
    await createTopic(admin, output, 1);
  });
  await produceSpread(kafka, input, 1, INPUTS, 'in');

  const producer = kafka.producer({ transactionalId: name('tx'), idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const consumer = kafka.consumer({ groupId, readUncommitted: false, ...CONSUMER_OPTS });
  await consumer.connect();
  let txns = 0;
  let aborted = 0;
  let processed = 0;
  let failure;
  try {
    await consumer.subscribe({ topics: [input], fromBeginning: true });
    let resolveDone;
    const done = new Promise((resolve) => (resolveDone = resolve));
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        try {
          for (const message of batch.messages) {
            const n = Number(message.offset);
            for (let committed = false; !committed;) {
              const t = txns++;
              const txn = await producer.transaction();
              await txn.send({ topic: output, messages: [{ key: `k${n}`, value: `out-${message.value}-t${t}` }] });
              await txn.sendOffsets({
                consumerGroupId: groupId,
                topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: String(n + 1) }] }],
              });
              if (t % ABORT_EVERY === ABORT_EVERY - 1) {
                await txn.abort();
                aborted++;
              } else {
                await txn.commit();
                committed = true;
              }
            }
            processed++;
            await heartbeat();
          }
        } catch (e) {
          failure = e;
        }
        if (failure || processed >= INPUTS) resolveDone();
      },
    });
    let timer;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, 30000)))]);
    clearTimeout(timer);
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
  }
  if (failure) throw failure;
  checkEqual(processed, INPUTS, 'input records processed transactionally');
  check(aborted > 0, 'no transaction was aborted');

  const committed = await consume(kafka, { topics: [output], want: INPUTS, readUncommitted: false });
  const outValues = committed.map((m) => m.value.toString());
  checkEqual(
    outValues.map((v) => v.replace(/-t\d+$/, '')),
    Array.from({ length: INPUTS }, (_, i) => `out-in-${i}`),
    'read_committed output (each input once, in order)',
  );
  check(
    outValues.every((v) => Number(v.match(/-t(\d+)$/)[1]) % ABORT_EVERY !== ABORT_EVERY - 1),
    'read_committed output holds a record of an aborted transaction',
  );
  const everything = await consume(kafka, { topics: [output], want: INPUTS + aborted, readUncommitted: true });
  checkEqual(everything.length, INPUTS + aborted, 'read_uncommitted output (committed + aborted records)');
  await withAdmin(kafka, async (admin) => {
    const offs = await admin.fetchOffsets({ groupId, topics: [input] });
    checkEqual(
      offs[0].partitions.map((p) => p.offset),
      [String(INPUTS)],
      "the group's committed input offset",
    );
  });
}

async function listOffsetsTime(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  const t = Date.now() - 60_000;
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, topic, 1);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    try {
      for (let i = 0; i < 3; i++) {
        await producer.send({ topic, acks: -1, messages: [{ value: `r${i}`, timestamp: String(t + i * 1000) }] });
      }
    } finally {
      await producer.disconnect();
    }
    const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, t + 1000);
    checkEqual(
      byTime.map((p) => [p.partition, p.offset]),
      [[0, '1']],
      'offset for timestamp t+1000',
    );
    const first = await admin.fetchTopicOffsetsByTimestamp(topic, t - 5000);
    checkEqual(
      first.map((p) => p.offset),
      ['0'],
      'offset for a timestamp before t',
    );
    checkEqual(await offsets(admin, topic), [{ partition: 0, low: 0, high: 3 }], 'earliest/latest offsets');
  });
}

async function deleteRecords(bootstrap) {
  const kafka = client(bootstrap);
  const topic = name();
  await withAdmin(kafka, async (admin) => {
    await createTopic(admin, topic, 1);
    await produceSpread(kafka, topic, 1, 10, 'r');
    checkEqual(await offsets(admin, topic), [{ partition: 0, low: 0, high: 10 }], 'offsets before deleting');
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '5' }] });
    checkEqual(await offsets(admin, topic), [{ partition: 0, low: 5, high: 10 }], 'offsets after deleting before 5');
  });
  const got = await consume(kafka, { topics: [topic], want: 5 });
  checkEqual(
    got.map((m) => [m.offset, m.value.toString()]),
    [5, 6, 7, 8, 9].map((i) => [String(i), `r-${i}`]),
    'records read from earliest',
  );
}

/** An unsecured JWS (alg none, no signature) of `claims`: Kafka's default OAUTHBEARER validator takes it. */
function unsecuredJws(claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'none' })}.${b64(claims)}.`;
}

/**
 * kafkajs options from the runner's TKAFKA_MATRIX_* settings (README, "Security scenarios");
 * `password` replaces the right one, clientCert=false leaves the client certificate out and
 * expiredToken=true makes the OAUTHBEARER token one that expired 10 minutes ago.
 */
function securityOptions(password = process.env.TKAFKA_MATRIX_SASL_PASSWORD, clientCert = true, expiredToken = false) {
  const env = process.env;
  check(env.TKAFKA_MATRIX_SECURITY_PROTOCOL, 'TKAFKA_MATRIX_SECURITY_PROTOCOL is not set (the runner sets it)');
  const opts = {};
  if (env.TKAFKA_MATRIX_SASL_MECHANISM === 'OAUTHBEARER') {
    // the token from our provider: an unsecured JWS of the user, exp in an hour (or 10 minutes past)
    const now = Math.floor(Date.now() / 1000);
    const sub = env.TKAFKA_MATRIX_SASL_USERNAME;
    const claims = expiredToken ? { sub, iat: now - 3600, exp: now - 600 } : { sub, iat: now, exp: now + 3600 };
    opts.sasl = { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: unsecuredJws(claims) }) };
  } else if (env.TKAFKA_MATRIX_SASL_MECHANISM) {
    // plain, scram-sha-256, scram-sha-512
    opts.sasl = {
      mechanism: env.TKAFKA_MATRIX_SASL_MECHANISM.toLowerCase(),
      username: env.TKAFKA_MATRIX_SASL_USERNAME,
      password,
    };
  }
  if (env.TKAFKA_MATRIX_CA_FILE) {
    opts.ssl = { ca: [readFileSync(env.TKAFKA_MATRIX_CA_FILE, 'utf8')] };
    if (env.TKAFKA_MATRIX_CERT_FILE && clientCert) {
      opts.ssl.cert = readFileSync(env.TKAFKA_MATRIX_CERT_FILE, 'utf8');
      opts.ssl.key = readFileSync(env.TKAFKA_MATRIX_KEY_FILE, 'utf8');
    }
  }
  return opts;
}

/** Through the secured listener: create a topic, 10 keyed records there and back; a wrong password fails. */
async function security(bootstrap) {
  const kafka = client(bootstrap, securityOptions());
  const topic = name();
  const records = Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
  await withAdmin(kafka, (admin) => createTopic(admin, topic, 1));
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: records });
  } finally {
    await producer.disconnect();
  }
  const got = await consume(kafka, { topics: [topic], want: 10 });
  checkEqual(
    got.map((m) => ({ key: m.key.toString(), value: m.value.toString() })),
    records,
    'records read back',
  );
  const sasl = Boolean(process.env.TKAFKA_MATRIX_SASL_MECHANISM);
  const oauth = process.env.TKAFKA_MATRIX_SASL_MECHANISM === 'OAUTHBEARER';
  const bad = client(bootstrap, {
    ...(oauth
      ? securityOptions(undefined, true, true)
      : sasl
        ? securityOptions(`${process.env.TKAFKA_MATRIX_SASL_PASSWORD}-wrong`)
        : securityOptions(undefined, false)),
    retry: { retries: 0 },
  });
  const admin = bad.admin();
  const t0 = Date.now();
  let error = null;
  try {
    await admin.connect();
    // kafkajs' connect() ends with the SASL exchange; the first request after it is the one an
    // OAUTHBEARER client whose token the broker refused cannot make (see below)
    await admin.listTopics();
  } catch (e) {
    error = e;
  } finally {
    await admin.disconnect();
  }
  check(
    error !== null,
    'the refused client (wrong password / expired token / no client certificate) listed the topics',
  );
  const text = `${error.name} ${error.originalError?.name ?? ''} ${error.message} ${error.type ?? ''}`;
  check(
    oauth
      ? // kafkajs 2.2.4 does not read the broker's OAUTHBEARER challenge (the error JSON): it takes the
        // exchange as done and sends its next request, on which the broker (tkafka as Kafka) closes
        // the connection; with no retry the admin is left with no broker
        /KafkaJSSASLAuthenticationError|SASL_AUTHENTICATION_FAILED|authentication failed|Connection error|closed|No brokers in the broker pool/i.test(
          text,
        )
      : sasl
        ? /KafkaJSSASLAuthenticationError|SASL_AUTHENTICATION_FAILED|authentication failed/i.test(text)
        : /ssl|certificate|alert|socket hang up|ECONNRESET|Connection error|closed/i.test(text),
    `the refused client failed, but not with an authentication/TLS error: ${error.name}: ${error.message}`,
  );
  check(Date.now() - t0 < 30000, `the refused client took ${Date.now() - t0} ms to fail`);
  console.log(`report: refused: ${error.name}: ${error.message}`);
}

await main({
  version: `kafkajs ${VERSION}`,
  recentLogs: () => logs,
  scenarios: {
    'metadata-named': metadataNamed,
    'metadata-all': metadataAll,
    'admin-topics': adminTopics,
    'admin-configs': adminConfigs,
    'produce-consume': produceConsume,
    idempotent,
    'group-classic': groupClassic,
    'group-consumer': groupConsumer,
    transactions,
    'txn-v2': txnV2,
    'list-offsets-time': listOffsetsTime,
    'delete-records': deleteRecords,
    'sasl-plain': security,
    'sasl-scram-256': security,
    'sasl-scram-512': security,
    'sasl-ssl-scram-512': security,
    'ssl-mtls': security,
    'sasl-oauthbearer': security,
  },
});
