// Consumer groups against a real `tkafka server start` process with real clients: kafkajs members
// joining, leaving and being killed (session timeout) over a 6-partition topic with commit-after-
// processing; kcat -G and kafka-python in groups; confluent-kafka cooperative-sticky (incremental)
// rebalancing; committed offsets and group state across a broker restart.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import kafkajs from 'kafkajs';
import { waitFor } from './helpers/wait-for.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

const { Kafka, logLevel, AssignerProtocol } = kafkajs;
type Consumer = kafkajs.Consumer;

const OVERRIDES = { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 1000, 'num.partitions': 1 };
let broker: BrokerProcess;

before(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
});
after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function kafka(clientId = 'group-e2e') {
  return new Kafka({
    clientId,
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 100 },
  });
}

async function createTopic(name: string, partitions: number): Promise<void> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

async function produce(topic: string, values: string[]): Promise<void> {
  const p = kafka().producer();
  await p.connect();
  try {
    await p.send({ topic, messages: values.map((v) => ({ key: v, value: v })), acks: -1 });
  } finally {
    await p.disconnect();
  }
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const found = await waitFor(
    async () => {
      const v = await fn();
      return v === undefined ? undefined : { v };
    },
    { what, timeoutMs: ms },
  );
  return found.v;
}

/** Waits for a Stable group of n members whose assignments cover the topic's partitions once each. */
async function stableAssignment(
  groupId: string,
  topic: string,
  n: number,
  partitions: number,
): Promise<Map<string, number[]>> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    return await until(`${groupId} stable with ${n} members`, async () => {
      const { groups } = await admin.describeGroups([groupId]);
      const g = groups[0]!;
      if (g.state !== 'Stable' || g.members.length !== n) return undefined;
      const owners = new Map<string, number[]>();
      for (const m of g.members) {
        const a = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
        owners.set(m.memberId, a?.assignment[topic] ?? []);
      }
      const all = [...owners.values()].flat().sort((a, b) => a - b);
      if (all.length !== partitions) return undefined;
      assert.deepEqual(
        all,
        Array.from({ length: partitions }, (_, i) => i),
        'every partition owned by exactly one member',
      );
      return owners;
    });
  } finally {
    await admin.disconnect();
  }
}

/** Counts processing per value; a consumer "processes" (counts) then commits the next offset. */
class Ledger {
  readonly seen = new Map<string, number>();
  record(v: string): void {
    this.seen.set(v, (this.seen.get(v) ?? 0) + 1);
  }
  async waitFor(values: string[], ms = 60_000): Promise<void> {
    await until(
      `${values.length} records processed`,
      () => (values.every((v) => this.seen.has(v)) ? true : undefined),
      ms,
    );
  }
}

async function member(groupId: string, topic: string, ledger: Ledger, clientId: string): Promise<Consumer> {
  // kafkajs heartbeats between fetches: the fetch wait must stay well below the session timeout
  const c = kafka(clientId).consumer({
    groupId,
    sessionTimeout: 3000,
    heartbeatInterval: 300,
    rebalanceTimeout: 10_000,
    maxWaitTimeInMs: 250,
  });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({
    autoCommit: false,
    eachMessage: async ({ topic: t, partition, message }) => {
      ledger.record(message.value!.toString());
      await c.commitOffsets([{ topic: t, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
    },
  });
  return c;
}

/** A kafkajs member in its own process, so it can be killed with SIGKILL. */
function childMember(groupId: string, topic: string, ledger: Ledger): ResultPromise {
  const script = join(broker.dataDir, `member-${Date.now()}.cjs`);
  writeFileSync(
    script,
    `
const { Kafka, logLevel } = require(${JSON.stringify(join(REPO_ROOT, 'node_modules', 'kafkajs'))});
const kafka = new Kafka({ clientId: 'child', brokers: [${JSON.stringify(broker.bootstrap)}], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
const c = kafka.consumer({ groupId: ${JSON.stringify(groupId)}, sessionTimeout: 3000, heartbeatInterval: 300, rebalanceTimeout: 10000, maxWaitTimeInMs: 250 });
(async () => {
  await c.connect();
  await c.subscribe({ topic: ${JSON.stringify(topic)}, fromBeginning: true });
  await c.run({ autoCommit: false, eachMessage: async ({ topic, partition, message }) => {
    process.stdout.write(message.value.toString() + '\\n');
    await c.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
  } });
})();
`,
  );
  const child = execa('node', [script], { reject: false, buffer: false });
  let buf = '';
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) if (l) ledger.record(l);
  });
  return child;
}

test(
  'kafkajs: three members share 6 partitions; join, leave and kill -9 rebalance it; every record processed exactly once',
  { timeout: 240_000 },
  async () => {
    const topic = 'g-orders';
    const groupId = 'g-three';
    await createTopic(topic, 6);
    const ledger = new Ledger();
    const consumers: Consumer[] = [];
    const child = childMember(groupId, topic, ledger);
    try {
      consumers.push(await member(groupId, topic, ledger, 'm1'));
      consumers.push(await member(groupId, topic, ledger, 'm2'));
      const three = await stableAssignment(groupId, topic, 3, 6);
      assert.deepEqual(
        [...three.values()].map((p) => p.length),
        [2, 2, 2],
      );
      const wave = (n: number) => Array.from({ length: 60 }, (_, i) => `w${n}-${i}`);
      await produce(topic, wave(1));
      await ledger.waitFor(wave(1));

      // a fourth member joins: the group rebalances to four members
      const fourth = await member(groupId, topic, ledger, 'm4');
      const four = await stableAssignment(groupId, topic, 4, 6);
      assert.equal(four.size, 4);
      await produce(topic, wave(2));
      await ledger.waitFor(wave(2));

      // it leaves (LeaveGroup): back to three
      await fourth.disconnect();
      await stableAssignment(groupId, topic, 3, 6);
      await produce(topic, wave(3));
      await ledger.waitFor(wave(3));

      // the child process is killed: its session times out and the two others take over
      child.kill('SIGKILL');
      await child;
      const two = await stableAssignment(groupId, topic, 2, 6);
      assert.deepEqual([...two.values()].map((p) => p.length).sort(), [3, 3]);
      await produce(topic, wave(4));
      await ledger.waitFor(wave(4));

      const all = [1, 2, 3, 4].flatMap(wave);
      assert.equal(ledger.seen.size, all.length, 'no record lost');
      const twice = [...ledger.seen].filter(([, n]) => n > 1);
      assert.deepEqual(twice, [], 'no record processed twice');
    } finally {
      child.kill('SIGKILL');
      for (const c of consumers) await c.disconnect().catch(() => undefined);
    }
  },
);

test(
  'kcat -G (librdkafka) and kafka-python KafkaConsumer(group_id) consume through groups and commit',
  { timeout: 180_000 },
  async () => {
    const topic = 'g-mixed';
    await createTopic(topic, 6);
    const values = Array.from({ length: 60 }, (_, i) => `m-${i}`);
    await produce(topic, values);
    // kcat balanced consumer: reads to the end of every partition, commits on close
    const kcat = await execa(
      'kcat',
      [
        '-b',
        broker.bootstrap,
        '-G',
        'g-kcat',
        topic,
        '-o',
        'beginning',
        '-e',
        '-q',
        '-f',
        '%s\\n',
        '-X',
        'session.timeout.ms=6000',
        '-X',
        'enable.auto.commit=true',
        '-X',
        'auto.commit.interval.ms=100',
      ],
      { timeout: 120_000 },
    );
    assert.deepEqual(kcat.stdout.split('\n').filter(Boolean).sort(), [...values].sort());
    const py = `
import sys
from kafka import KafkaConsumer, TopicPartition
c = KafkaConsumer(sys.argv[2], bootstrap_servers=sys.argv[1], group_id='g-python', auto_offset_reset='earliest',
                  enable_auto_commit=False, consumer_timeout_ms=8000, session_timeout_ms=6000, heartbeat_interval_ms=500)
seen = []
for m in c:
    seen.append(m.value.decode())
    if len(seen) == 60:
        break
c.commit()
parts = sorted(c.assignment(), key=lambda tp: tp.partition)
print(len(seen), len(set(seen)), sum(c.committed(tp) or 0 for tp in parts), len(parts))
c.close()
`;
    const r = await execa('/usr/bin/python3', ['-c', py, broker.bootstrap, topic], { timeout: 120_000 });
    assert.equal(r.stdout.trim(), '60 60 60 6');
    // both groups' commits are visible to another client
    const admin = kafka().admin();
    await admin.connect();
    try {
      for (const groupId of ['g-kcat', 'g-python']) {
        const offsets = await until(`${groupId} offsets`, async () => {
          const [t] = await admin.fetchOffsets({ groupId, topics: [topic] });
          const sum = t!.partitions.reduce((s, p) => s + Number(p.offset), 0);
          return sum === 60 ? t : undefined;
        });
        assert.equal(offsets.partitions.length, 6);
      }
      const listed = (await admin.listGroups()).groups.map((g) => g.groupId);
      assert.ok(listed.includes('g-kcat') && listed.includes('g-python'));
    } finally {
      await admin.disconnect();
    }
  },
);

test(
  'confluent-kafka cooperative-sticky: a second member takes partitions incrementally, nothing else is revoked',
  { timeout: 180_000 },
  async () => {
    const topic = 'g-coop';
    await createTopic(topic, 6);
    const py = `
import sys, time, json
from confluent_kafka import Consumer
conf = {'bootstrap.servers': sys.argv[1], 'group.id': 'g-coop', 'partition.assignment.strategy': 'cooperative-sticky',
        'session.timeout.ms': 6000, 'heartbeat.interval.ms': 300, 'auto.offset.reset': 'earliest'}
events = []
owned = {1: set(), 2: set()}
def cb(n):
    def on_assign(c, ps):
        owned[n] |= {p.partition for p in ps}; events.append([n, 'assign', sorted(p.partition for p in ps)])
    def on_revoke(c, ps):
        owned[n] -= {p.partition for p in ps}; events.append([n, 'revoke', sorted(p.partition for p in ps)])
    return on_assign, on_revoke
c1 = Consumer(conf); a, r = cb(1); c1.subscribe([sys.argv[2]], on_assign=a, on_revoke=r)
end = time.time() + 30
while time.time() < end and len(owned[1]) < 6: c1.poll(0.1)
c2 = Consumer(conf); a, r = cb(2); c2.subscribe([sys.argv[2]], on_assign=a, on_revoke=r)
end = time.time() + 60
while time.time() < end and not (len(owned[1]) == 3 and len(owned[2]) == 3):
    c1.poll(0.05); c2.poll(0.05)
print(json.dumps({'events': events, 'owned': {k: sorted(v) for k, v in owned.items()}}))
c2.close(); c1.close()
`;
    const r = await execa('/usr/bin/python3', ['-c', py, broker.bootstrap, topic], { timeout: 150_000 });
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      events: [number, string, number[]][];
      owned: Record<string, number[]>;
    };
    assert.equal(out.owned['1']!.length, 3);
    assert.equal(out.owned['2']!.length, 3);
    assert.deepEqual([...out.owned['1']!, ...out.owned['2']!].sort(), [0, 1, 2, 3, 4, 5]);
    const revokes = out.events.filter(([n, kind]) => n === 1 && kind === 'revoke');
    assert.ok(revokes.length >= 1, JSON.stringify(out.events));
    for (const [, , ps] of revokes)
      assert.ok(ps.length < 6, `incremental: only some partitions revoked (${JSON.stringify(out.events)})`);
    assert.deepEqual(out.events[0], [1, 'assign', [0, 1, 2, 3, 4, 5]]);
  },
);

test(
  'commit, stop the broker, restart: offsets and the group come back; a consumer resumes after the last commit',
  { timeout: 180_000 },
  async () => {
    const topic = 'g-restart';
    await createTopic(topic, 3);
    const first = Array.from({ length: 30 }, (_, i) => `r1-${i}`);
    await produce(topic, first);
    const ledger = new Ledger();
    const c = await member('g-restart', topic, ledger, 'r');
    await ledger.waitFor(first);
    await c.disconnect();
    await broker.restart();
    const admin = kafka().admin();
    await admin.connect();
    try {
      const [offsets] = await until('offsets after restart', async () => {
        const o = await admin.fetchOffsets({ groupId: 'g-restart', topics: [topic] });
        return o[0]!.partitions.reduce((s, p) => s + Number(p.offset), 0) === 30 ? o : undefined;
      });
      assert.equal(offsets!.partitions.length, 3);
      const { groups } = await admin.describeGroups(['g-restart']);
      assert.equal(groups[0]!.state, 'Empty');
      assert.equal(groups[0]!.protocolType, 'consumer');
    } finally {
      await admin.disconnect();
    }
    const second = Array.from({ length: 10 }, (_, i) => `r2-${i}`);
    await produce(topic, second);
    const resumed = new Ledger();
    const c2 = await member('g-restart', topic, resumed, 'r2');
    try {
      await resumed.waitFor(second);
      await sleep(1000); // time is the point: a redelivered record would arrive in this quiet second
      assert.deepEqual(
        [...resumed.seen.keys()].sort(),
        [...second].sort(),
        'nothing before the last commit is delivered again',
      );
    } finally {
      await c2.disconnect();
    }
  },
);

// Apache Kafka 4.4.0's jars (scripts/kafka-jars.sh, which npm test runs first): the Java
// consumer speaks KIP-848. Skipped only where the jars were never fetched (no java/mvn on the machine).
const KAFKA_LIB = join(REPO_ROOT, '.cache', 'kafka-4.4.0', 'lib');

test(
  'group.protocol=consumer (KIP-848): the Apache Kafka 4.4 Java console consumer joins, consumes and commits',
  {
    timeout: 180_000,
    skip: existsSync(KAFKA_LIB) ? false : 'no Kafka 4.4.0 jars in .cache/kafka-4.4.0 (run scripts/kafka-jars.sh)',
  },
  async () => {
    const topic = 'g-848';
    await createTopic(topic, 3);
    const values = Array.from({ length: 30 }, (_, i) => `k848-${i}`);
    await produce(topic, values);
    const r = await execa(
      'java',
      [
        '-Xmx256m',
        '-cp',
        join(KAFKA_LIB, '*'),
        'org.apache.kafka.tools.consumer.ConsoleConsumer',
        '--bootstrap-server',
        broker.bootstrap,
        '--topic',
        topic,
        '--group',
        'g-848',
        '--from-beginning',
        '--max-messages',
        '30',
        '--timeout-ms',
        '60000',
        '--command-property',
        'group.protocol=consumer',
      ],
      { timeout: 150_000 },
    );
    assert.deepEqual(r.stdout.split('\n').filter(Boolean).sort(), [...values].sort());
    const c = await RawClient.connect(broker.port);
    try {
      const listed = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] });
      assert.deepEqual(
        listed.groups.map((g: { groupId: string; groupType: string }) => [g.groupId, g.groupType]),
        [['g-848', 'consumer']],
      );
      const f = await c.request(ApiKey.OffsetFetch, 9, {
        groups: [{ groupId: 'g-848', memberId: null, memberEpoch: -1, topics: null }],
        requireStable: false,
      });
      const sum = f.groups[0].topics[0].partitions.reduce(
        (s: number, p: { committedOffset: bigint }) => s + Number(p.committedOffset),
        0,
      );
      assert.equal(sum, 30, 'the consumer committed what it read');
    } finally {
      c.close();
    }
  },
);
