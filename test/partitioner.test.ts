// Partitioner / coordinator hashing tests against Kafka's and librdkafka's own vectors.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  murmur2,
  toPositive,
  defaultPartition,
  javaStringHashCode,
  kafkaAbs,
  javaMathAbs,
  coordinatorPartition,
} from '../src/protocol/partitioner.js';

test('murmur2 matches Kafka UtilsTest.testMurmur2', () => {
  // apache/kafka clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java, testMurmur2
  // (commit 1eb7644349cb07139d6a3c1ad1986979647cac99)
  const cases: [Uint8Array, number][] = [
    [Buffer.from('21'), -973932308],
    [Buffer.from('foobar'), -790332482],
    [Buffer.from('a-little-bit-long-string'), -985981536],
    [Buffer.from('a-little-bit-longer-string'), -1486304829],
    [Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'), -58897971],
    [new Uint8Array([0x61, 0x62, 0x63]), 479470107],
  ];
  for (const [key, expected] of cases) assert.equal(murmur2(key), expected, Buffer.from(key).toString());
});

test('murmur2 matches librdkafka unittest_murmur2 (values generated with Java Utils.murmur2)', () => {
  // confluentinc/librdkafka src/rdmurmur2.c, unittest_murmur2 (java_murmur2_results, as int32)
  const short = '1234';
  const unaligned = 'PreAmbleWillBeRemoved,ThePrePartThatIs';
  const cases: [string, number][] = [
    ['kafka', 0xd067cf64],
    ['giberish123456789', 0x8f552b0c],
    [short, 0x9fc97b14],
    [short.slice(1), 0xe7c009ca],
    [short.slice(2), 0x873930da],
    [short.slice(3), 0x5a4b5ca1],
    [unaligned, 0x78424f1c],
    [unaligned.slice(1), 0x4a62b377],
    [unaligned.slice(2), 0xe0e4e09e],
    [unaligned.slice(3), 0x62b8b43f],
    ['', 0x106e08d9],
  ];
  for (const [key, expected] of cases) assert.equal(murmur2(Buffer.from(key)), expected | 0, JSON.stringify(key));
});

test('default partition = toPositive(murmur2) % n (storage-formats.md §13 derived values)', () => {
  assert.equal(toPositive(-973932308), 1173551340);
  for (const n of [3, 6, 10]) assert.equal(defaultPartition('21', n), 0);
  assert.equal(toPositive(murmur2(Buffer.from('hello'))), 2132663229);
  assert.equal(defaultPartition(Buffer.from('hello'), 3), 0);
  assert.equal(defaultPartition('hello', 6), 3);
  assert.equal(defaultPartition('hello', 10), 9);
  assert.equal(toPositive(-2147483648), 0);
  assert.equal(toPositive(-1), 0x7fffffff);
  assert.throws(() => defaultPartition('x', 0), RangeError);
});

test('Java String.hashCode and Utils.abs for coordinator partitions (storage-formats.md §11)', () => {
  assert.equal(javaStringHashCode('my-group'), -1906497762);
  assert.equal(javaStringHashCode('test'), 3556498);
  assert.equal(javaStringHashCode('console-consumer-12345'), 158455506);
  assert.equal(javaStringHashCode(''), 0);
  assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
  assert.equal(javaStringHashCode('héllo'), 103094734);
  // UTF-16 code units: a non-BMP character counts as its two surrogates
  assert.equal(javaStringHashCode('😀'), Math.imul(0xd83d, 31) + 0xde00);
  assert.equal(coordinatorPartition('my-group', 50), 12);
  assert.equal(coordinatorPartition('test', 50), 48);
  assert.equal(coordinatorPartition('console-consumer-12345', 50), 6);
  assert.equal(coordinatorPartition('', 50), 0);
  assert.equal(coordinatorPartition('polygenelubricants', 50), 0);
  assert.equal(coordinatorPartition('héllo', 50), 34);
  // Utils.abs (used by GroupCoordinatorService.partitionFor) vs Java's Math.abs
  assert.equal(kafkaAbs(-2147483648), 0);
  assert.equal(kafkaAbs(-10), 10);
  assert.equal(kafkaAbs(10), 10);
  assert.equal(kafkaAbs(0), 0);
  assert.equal(kafkaAbs(-1), 1);
  assert.equal(javaMathAbs(-2147483648), -2147483648);
});
