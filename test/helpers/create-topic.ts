// One topic created through one node with CreateTopics v7 (replication factor 1), as the raft and
// observer tests need it: the answer must be NONE.
import assert from 'node:assert/strict';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { RawClient } from './raw-client.js';

export async function createTopicAt(
  port: number,
  name: string,
  opts: { partitions?: number; timeoutMs?: number } = {},
): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [{ name, numPartitions: opts.partitions ?? 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: opts.timeoutMs ?? 10_000,
      validateOnly: false,
    });
    assert.equal(r.topics[0]!.errorCode, 0, `CreateTopics ${name}: error ${r.topics[0]!.errorCode}`);
  } finally {
    c.close();
  }
}
