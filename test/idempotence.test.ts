// Idempotent producers against a broker process through a small TCP proxy on loopback that drops
// some Produce responses: the client times out and retries the same batch (same producer id,
// epoch and sequence), the broker answers the retry with the original offset, and the log holds
// every record exactly once. kafkajs and librdkafka (confluent-kafka, /usr/bin/python3).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { type BrokerProcess } from './helpers/broker-process.js';
import { startBroker as startTxnBroker } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';

const { Kafka, logLevel } = kafkajs;

/** Forwards loopback connections to the broker, dropping the responses `drop(n)` selects (n = 1, 2, ... over Produce responses). */
class DroppingProxy {
  produceResponses = 0;
  dropped = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: Server) {}

  /** The proxy's port (it listens on port 0: the kernel picks a free one). */
  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  static async start(target: () => number, drop: (n: number) => boolean): Promise<DroppingProxy> {
    const server = createServer();
    const proxy = new DroppingProxy(server);
    server.on('connection', (client) => {
      const upstream = connect(target(), '127.0.0.1');
      proxy.sockets.add(client);
      proxy.sockets.add(upstream);
      const produceCorrelations = new Set<number>();
      let reqBuf = Buffer.alloc(0);
      client.on('data', (d) => {
        reqBuf = Buffer.concat([reqBuf, d]);
        while (reqBuf.length >= 4 && reqBuf.length >= 4 + reqBuf.readInt32BE(0)) {
          const n = reqBuf.readInt32BE(0);
          if (reqBuf.readInt16BE(4) === 0) produceCorrelations.add(reqBuf.readInt32BE(8));
          upstream.write(reqBuf.subarray(0, 4 + n));
          reqBuf = reqBuf.subarray(4 + n);
        }
      });
      let resBuf = Buffer.alloc(0);
      upstream.on('data', (d) => {
        resBuf = Buffer.concat([resBuf, d]);
        while (resBuf.length >= 4 && resBuf.length >= 4 + resBuf.readInt32BE(0)) {
          const n = resBuf.readInt32BE(0);
          const corr = resBuf.readInt32BE(4);
          const frame = resBuf.subarray(0, 4 + n);
          resBuf = resBuf.subarray(4 + n);
          if (produceCorrelations.delete(corr) && drop(++proxy.produceResponses)) {
            proxy.dropped++;
            continue;
          }
          client.write(frame);
        }
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
      client.on('error', end);
      upstream.on('error', end);
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    return proxy;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((res) => this.server.close(() => res()));
  }
}

let broker: BrokerProcess;
let proxy: DroppingProxy;
let brokerPort = 0;

before(async () => {
  // every 7th Produce response is lost on its way back
  proxy = await DroppingProxy.start(
    () => brokerPort,
    (n) => n % 7 === 3,
  );
  broker = await startTxnBroker({
    overrides: {
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxy.port}`,
      'offsets.topic.num.partitions': 1,
      'transaction.state.log.num.partitions': 1,
    },
  });
  brokerPort = broker.port;
});

after(async () => {
  await proxy?.close();
  await broker?.stop();
  broker?.cleanup();
});

async function readAll(kafka: InstanceType<typeof Kafka>, topic: string, expected: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `check-${topic}`, readUncommitted: true });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  const next = new Map<number, number>(); // partition -> offset after the last record read
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      values.push(message.value!.toString());
      next.set(partition, Number(message.offset) + 1);
    },
  });
  // Read up to the log end: a duplicate, if the log held one, is below it and has been read too.
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(
      async () => {
        if (values.length < expected) return false;
        const ends = await admin.fetchTopicOffsets(topic);
        return ends.every((e) => (next.get(e.partition) ?? 0) >= Number(e.high));
      },
      { what: `${expected} records of ${topic} and its log end`, timeoutMs: 30_000 },
    ).catch(() => undefined); // too few records: the assertions on `values` say which
  } finally {
    await admin.disconnect();
  }
  await consumer.disconnect();
  return values;
}

test(
  'kafkajs idempotent producer: dropped responses are retried, nothing is written twice',
  { timeout: 120_000 },
  async () => {
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${proxy.port}`],
      logLevel: logLevel.NOTHING,
      clientId: 'idem',
      requestTimeout: 1500,
      retry: { retries: 10, initialRetryTime: 50 },
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'idem-js', numPartitions: 1 }] });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await producer.connect();
    const N = 60;
    const before = proxy.dropped;
    for (let i = 0; i < N; i++) await producer.send({ topic: 'idem-js', messages: [{ key: `k${i}`, value: `v${i}` }] });
    await producer.disconnect();
    assert.ok(proxy.dropped - before >= 5, `responses dropped: ${proxy.dropped - before}`);
    const offsets = await admin.fetchTopicOffsets('idem-js');
    assert.equal(offsets[0]!.high, String(N), 'each record written once');
    const values = await readAll(kafka, 'idem-js', N);
    assert.deepEqual(
      values,
      Array.from({ length: N }, (_, i) => `v${i}`),
    );
    await admin.disconnect();
  },
);

const PY_PRODUCER = `
import sys
from confluent_kafka import Producer
p = Producer({'bootstrap.servers': sys.argv[1], 'enable.idempotence': True, 'request.timeout.ms': 1500, 'socket.timeout.ms': 1500,
              'message.timeout.ms': 60000, 'linger.ms': 0, 'retry.backoff.ms': 50})
errors = []
def cb(err, msg):
    if err is not None: errors.append(str(err))
n = int(sys.argv[3])
for i in range(n):
    p.produce(sys.argv[2], key=('k%d' % i).encode(), value=('v%d' % i).encode(), partition=0, on_delivery=cb)
    p.flush(30)
left = p.flush(60)
print('errors=%d left=%d' % (len(errors), left))
for e in errors[:5]: print(e)
`;

test(
  'librdkafka (confluent-kafka) idempotent producer: dropped responses are retried, nothing is written twice',
  { timeout: 180_000 },
  async () => {
    const kafka = new Kafka({
      brokers: [`127.0.0.1:${proxy.port}`],
      logLevel: logLevel.NOTHING,
      clientId: 'idem-check',
    });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'idem-py', numPartitions: 1 }] });
    const dir = mkdtempSync(join(tmpdir(), 'tkafka-idem-'));
    try {
      const script = join(dir, 'producer.py');
      writeFileSync(script, PY_PRODUCER);
      const N = 30;
      const before = proxy.dropped;
      const r = await execa('/usr/bin/python3', [script, `127.0.0.1:${proxy.port}`, 'idem-py', String(N)], {
        reject: false,
        timeout: 150_000,
      });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.match(r.stdout, /errors=0 left=0/, r.stdout);
      assert.ok(proxy.dropped - before >= 3, `responses dropped: ${proxy.dropped - before}`);
      const offsets = await admin.fetchTopicOffsets('idem-py');
      assert.equal(offsets[0]!.high, String(N));
      const values = await readAll(kafka, 'idem-py', N);
      assert.deepEqual(
        values,
        Array.from({ length: N }, (_, i) => `v${i}`),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await admin.disconnect();
    }
  },
);
