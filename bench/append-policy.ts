// The append policy the validation benchmarks use: a topic with Kafka's defaults, limits out of the way.
import type { AppendPolicy } from '../src/broker/replication/topic-config.js';

export const BENCH_POLICY: AppendPolicy = {
  compacted: false,
  deletable: true,
  timestampType: 'CreateTime',
  timestampBeforeMaxMs: Number.MAX_SAFE_INTEGER,
  timestampAfterMaxMs: Number.MAX_SAFE_INTEGER,
  maxMessageBytes: 1 << 24,
  maxDecompressedMessageBytes: 2147483647 - 8,
  compressionType: 'producer',
  compressionLevel: undefined,
  minInsyncReplicas: 1,
};
