// Offline parts of `tkafka replica-verification` (Kafka's ReplicaVerificationTool): the ReplicaBuffer
// comparison (ReplicaVerificationToolTest.testReplicaBufferVerifyChecksum, plus the checksum and offset
// mismatch lines and the high-watermark bound), the Fetch it sends, and the command line (flags,
// defaults, usage errors and exit codes as kafka-replica-verification.sh 4.4.0 prints them).
// The cluster side is test/replica-verification-cluster.test.ts and test/interop/replica-verification.test.ts.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { ToolIO } from '../src/tools/common/io.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch.js';
import {
  ReplicaBuffer,
  ReplicaOffsetMismatch,
  batchInfos,
  formatDate,
} from '../src/tools/replica-verification/verify.js';
import {
  bootstrapProblem,
  fetchBody,
  includeFilter,
  run,
  REPLICA_VERIFICATION_SPEC,
} from '../src/tools/replica-verification/main.js';
import { formatJoptHelp } from '../src/tools/common/jopt.js';

const records = (n: number, prefix = ''): { key: string; value: string; timestamp: number }[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `key ${i}`,
    value: `${prefix}value ${i}`,
    timestamp: 1_700_000_000_000,
  }));

/** A clock that moves 1 ms per read, so a report interval of 0 always reports. */
const ticking = (): (() => number) => {
  let t = 1_700_000_000_000;
  return () => t++;
};

const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}: /;

test('testReplicaBufferVerifyChecksum: 6 records at offset 4 on every replica, HW 20: max lag 10 for a-1 at offset 10', () => {
  const expected = new Map([
    ['a-0', 3],
    ['a-1', 3],
    ['b-0', 2],
  ]);
  const tps = [
    { topic: 'a', partition: 0 },
    { topic: 'a', partition: 1 },
    { topic: 'b', partition: 0 },
  ];
  const buffer = new ReplicaBuffer(tps, new Map(), 0, ticking());
  for (const tp of tps) {
    for (let replica = 0; replica < expected.get(`${tp.topic}-${tp.partition}`)!; replica++) {
      const batch = buildRecordBatchSync({ baseOffset: 4, records: records(6) });
      buffer.addFetchedData(tp, replica, { highWatermark: 20, records: batch });
    }
  }
  const lines: string[] = [];
  buffer.verifyCheckSum((l) => lines.push(l));
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, DATE);
  assert.ok(lines[0]!.endsWith(': max lag is 10 for partition a-1 at offset 10 among 3 partitions'), lines[0]);
  assert.equal(buffer.getOffset({ topic: 'a', partition: 0 }), 10);
});

test('a batch at or above a replica high watermark is not verified yet: the offset stays', () => {
  const tp = { topic: 't', partition: 0 };
  const buffer = new ReplicaBuffer([tp], new Map([['t-0', 0]]), 0, ticking());
  const b0 = buildRecordBatchSync({ baseOffset: 0, records: records(3) });
  const b1 = buildRecordBatchSync({ baseOffset: 3, records: records(2) });
  buffer.addFetchedData(tp, 1, { highWatermark: 5, records: Buffer.concat([b0, b1]) });
  buffer.addFetchedData(tp, 2, { highWatermark: 3, records: Buffer.concat([b0, b1]) });
  const lines: string[] = [];
  buffer.verifyCheckSum((l) => lines.push(l));
  assert.equal(buffer.getOffset(tp), 3);
  assert.ok(lines[0]!.endsWith(': max lag is 2 for partition t-0 at offset 3 among 1 partitions'), lines[0]);
  // one replica without data (a failed fetch): nothing moves
  buffer.addFetchedData(tp, 1, { highWatermark: 5, records: b1 });
  buffer.addFetchedData(tp, 2, { highWatermark: -1, records: null });
  buffer.verifyCheckSum(() => {});
  assert.equal(buffer.getOffset(tp), 3);
});

test('different data at the same offsets: the unmatched checksum line, and verification goes on', () => {
  const tp = { topic: 't', partition: 0 };
  const buffer = new ReplicaBuffer([tp], new Map([['t-0', 0]]), 1_000_000, ticking());
  const a = buildRecordBatchSync({ baseOffset: 0, records: records(3) });
  const b = buildRecordBatchSync({ baseOffset: 0, records: records(3, 'other ') });
  buffer.addFetchedData(tp, 2, { highWatermark: 3, records: a });
  buffer.addFetchedData(tp, 3, { highWatermark: 3, records: b });
  const lines: string[] = [];
  buffer.verifyCheckSum((l) => lines.push(l));
  const crcA = batchInfos(a)[0]!.checksum;
  const crcB = batchInfos(b)[0]!.checksum;
  assert.notEqual(crcA, crcB);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, DATE);
  assert.ok(
    lines[0]!.endsWith(
      `: partition t-0 has unmatched checksum at offset 2; replica 2's checksum ${crcA}; replica 3's checksum ${crcB}`,
    ),
    lines[0],
  );
  assert.equal(buffer.getOffset(tp), 3);
});

test("batches ending at different offsets: the offset mismatch line, then the tool stops (Kafka's Exit.exit(1))", () => {
  const tp = { topic: 't', partition: 0 };
  const buffer = new ReplicaBuffer([tp], new Map([['t-0', 0]]), 0, ticking());
  buffer.addFetchedData(tp, 1, {
    highWatermark: 10,
    records: buildRecordBatchSync({ baseOffset: 0, records: records(3) }),
  });
  buffer.addFetchedData(tp, 2, {
    highWatermark: 10,
    records: buildRecordBatchSync({ baseOffset: 0, records: records(4) }),
  });
  const lines: string[] = [];
  assert.throws(
    () => buffer.verifyCheckSum((l) => lines.push(l)),
    (e: unknown) => e instanceof ReplicaOffsetMismatch,
  );
  assert.equal(lines.length, 1);
  assert.ok(lines[0]!.endsWith(": partition t-0: replica 1's offset 2 doesn't match replica 2's offset 3"), lines[0]);
});

test('the date is SimpleDateFormat yyyy-MM-dd HH:mm:ss,SSS', () => {
  const d = new Date(2024, 0, 2, 3, 4, 5, 6).getTime();
  assert.equal(formatDate(d), '2024-01-02 03:04:05,006');
});

test('Fetch as FetchRequest.Builder.forReplica(latest, -2, -1, maxWait, 1, ...): replica -2 in ReplicaState from v15', () => {
  const parts = [{ tp: { topic: 't', partition: 1 }, topicId: 'id', offset: 7 }];
  const v17 = fetchBody(17, parts, 1000, 1048576) as Record<string, unknown>;
  assert.equal(v17.replicaId, -1);
  assert.deepEqual(v17.replicaState, { replicaId: -2, replicaEpoch: -1n });
  assert.equal(v17.minBytes, 1);
  assert.equal(v17.isolationLevel, 0);
  assert.deepEqual(v17.topics, [
    {
      topic: 't',
      topicId: 'id',
      partitions: [
        {
          partition: 1,
          currentLeaderEpoch: -1,
          fetchOffset: 7n,
          lastFetchedEpoch: -1,
          logStartOffset: 0n,
          partitionMaxBytes: 1048576,
        },
      ],
    },
  ]);
  assert.equal((fetchBody(12, parts, 1000, 10) as Record<string, unknown>).replicaId, -2);
});

test('bootstrap and topic filter validation as ToolsUtils / TopicFilter.IncludeList', () => {
  assert.equal(bootstrapProblem('127.0.0.1:9092,localhost:1'), null);
  assert.equal(bootstrapProblem('nohost'), 'Please provide valid host:port like host1:9091,host2:9092\n');
  assert.equal(bootstrapProblem(' '), 'Error while validating the bootstrap address\n');
  const f = includeFilter('foo.*,bar');
  assert.ok(f('foo1') && f('bar') && !f('bar1') && !f('xfoo'));
  assert.throws(() => includeFilter('['), /\[ is an invalid regex/);
});

interface Captured {
  code: number;
  out: string;
  err: string;
}
async function runTool(args: string[]): Promise<Captured> {
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void): Writable =>
    new Writable({
      write(c, _e, cb) {
        add(String(c));
        cb();
      },
    });
  const io: ToolIO = {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    env: {},
  };
  const code = await run(args, io);
  return { code, out, err };
}

test('command line: help, version, missing --broker-list, bad broker list, unknown flag', async () => {
  const help = formatJoptHelp(REPLICA_VERIFICATION_SPEC);
  // (the columns are jopt's, sized by the content: tkafka's extension flags widen them)
  for (const part of [
    '--broker-list <String: hostname:',
    'REQUIRED: The list of hostname and',
    '--fetch-size <Integer: bytes>',
    '(default: 1048576)',
    '--max-wait-ms <Integer: ms>',
    'request waits. (default: 1000)',
    '--report-interval-ms <Long: ms>',
    '--time <Long: timestamp/-1(latest)/-',
    'offsets. (default: -1)',
    '--topics-include <String: Java regex',
    'consistency. (default: .*)',
  ])
    assert.ok(help.includes(part), `help lacks ${JSON.stringify(part)}:\n${help}`);
  const none = await runTool([]);
  assert.equal(none.code, 1);
  assert.ok(none.err.startsWith('Validate that all replicas for a set of topics have the same data.\nOption'));
  const version = await runTool(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.out, /^\d+\.\d+/);
  const missing = await runTool(['--fetch-size', '5']);
  assert.equal(missing.code, 1);
  assert.ok(missing.err.startsWith('Missing required argument "[broker-list]"\nOption'), missing.err);
  const bad = await runTool(['--broker-list', 'nohost']);
  assert.equal(bad.code, 1);
  assert.ok(bad.err.startsWith('Please provide valid host:port like host1:9091,host2:9092\n\nOption'), bad.err);
  const unknown = await runTool(['--foo']);
  assert.equal(unknown.code, 1);
  assert.ok(unknown.err.startsWith('foo is not a recognized option\n'), unknown.err);
});
