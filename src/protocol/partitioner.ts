// Kafka-compatible hashing used to place records and coordinator state on partitions.
//
//  * murmur2 / toPositive / defaultPartition: the Java producer's keyed partitioning
//    (org.apache.kafka.common.utils.Utils.murmur2/toPositive, BuiltInPartitioner.partitionForKey):
//    partition = toPositive(murmur2(keyBytes)) % numPartitions, over the topic's total partition
//    count. toPositive clears the sign bit; it is NOT Math.abs.
//  * javaStringHashCode / kafkaAbs / coordinatorPartition: placement of a group on
//    __consumer_offsets (GroupCoordinatorService.partitionFor) and of a transactional id on
//    __transaction_state (TransactionStateManager.partitionFor):
//    Utils.abs(s.hashCode()) % numPartitions, where Utils.abs(Integer.MIN_VALUE) is 0 (Java's
//    Math.abs would return MIN_VALUE, a negative number).

const M = 0x5bd1e995;
const SEED = 0x9747b28c;

/** Kafka's murmur2 of `data` as a signed 32-bit integer (Utils.murmur2). */
export function murmur2(data: Uint8Array): number {
  const len = data.length;
  let h = (SEED ^ len) | 0;
  const words = len & ~3;
  for (let i = 0; i < words; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = len & 3;
  if (tail === 3) h ^= data[words + 2]! << 16;
  if (tail >= 2) h ^= data[words + 1]! << 8;
  if (tail >= 1) {
    h ^= data[words]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Utils.toPositive: clears the sign bit. */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

/** Partition of a keyed record under the Java default partitioner. */
export function defaultPartition(keyBytes: Uint8Array | string, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0)
    throw new RangeError(`invalid partition count ${numPartitions}`);
  const bytes = typeof keyBytes === 'string' ? Buffer.from(keyBytes, 'utf8') : keyBytes;
  return toPositive(murmur2(bytes)) % numPartitions;
}

/** java.lang.String.hashCode: h = 31*h + c over UTF-16 code units, wrapping int32. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.abs: |n|, except Integer.MIN_VALUE maps to 0. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n | 0);
}

/** Java's Math.abs on an int (Math.abs(Integer.MIN_VALUE) stays Integer.MIN_VALUE). */
export function javaMathAbs(n: number): number {
  return n === -2147483648 ? n : Math.abs(n | 0);
}

/**
 * Partition of a coordinator key (group id, transactional id, share-group state key):
 * Utils.abs(key.hashCode()) % numPartitions, as GroupCoordinatorService.partitionFor and
 * TransactionStateManager.partitionFor compute it.
 */
export function coordinatorPartition(key: string, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0)
    throw new RangeError(`invalid partition count ${numPartitions}`);
  return kafkaAbs(javaStringHashCode(key)) % numPartitions;
}
