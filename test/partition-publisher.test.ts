// The broker's partition publisher (broker-server.ts) applies an update's partition changes several
// at a time: every partition of a large creation ends up led, and a topic deleted and recreated
// under the same name in one update ends up with the new topic's id and logs only.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { partitionPublisher } from '../src/broker/broker-server.js';
import type { LogManager } from '../src/broker/log/log-manager.js';
import type { MetadataEvent } from '../src/broker/metadata/events.js';
import { MetadataImage, type PartitionImage, type TopicImage } from '../src/broker/metadata/image.js';
import { DirectoryLogStore } from '../src/broker/replication/log-store.js';
import { ReplicaManager } from '../src/broker/replication/replica-manager.js';
import type { ServerConfig } from '../src/config/load.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';
import { soleReplicaPartition } from './helpers/partition-image.js';

const OLD_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const NEW_ID = 'BBBBBBBBBBBBBBBBBBBBBA';
const T_ID = 'CCCCCCCCCCCCCCCCCCCCCA';

function topic(name: string, id: string, partitions: number): TopicImage {
  const parts = new Map<number, PartitionImage>();
  for (let i = 0; i < partitions; i++) parts.set(i, soleReplicaPartition(id, i));
  return { name, id, partitions: parts };
}

const created = (t: TopicImage): MetadataEvent => ({
  type: 'partitionsCreated',
  topic: t,
  partitions: [...t.partitions.values()],
});

test('an update creating many partitions and recreating a topic: all led, the recreated topic only under its new id', async () => {
  const dir = await tempDir('tkafka-publisher-');
  const image = MetadataImage.empty();
  const rm = new ReplicaManager({ nodeId: 1, logs: new DirectoryLogStore(dir), metadata: () => image });
  const errors: string[] = [];
  // no event below reaches the config or the log manager (no config change, no directory assignments)
  const publisher = partitionPublisher(
    undefined as unknown as ServerConfig,
    rm,
    undefined as unknown as LogManager,
    (level, msg) => errors.push(`${level} ${msg}`),
  );
  try {
    const old = topic('r', OLD_ID, 5);
    await publisher.onMetadataUpdate({ kind: 'commit', previous: image, image, events: [created(old)] });
    for (let i = 0; i < 5; i++) assert.equal(rm.partition('r', i)?.topicId, OLD_ID);

    const recreated = topic('r', NEW_ID, 3);
    const t = topic('t', T_ID, 40);
    await publisher.onMetadataUpdate({
      kind: 'commit',
      previous: image,
      image,
      events: [created(t), { type: 'topicDeleted', topic: old }, created(recreated)],
    });
    assert.deepEqual(errors, []);
    for (let i = 0; i < 40; i++) assert.equal(rm.partition('t', i)?.isLeader, true, `t-${i} led`);
    for (let i = 0; i < 3; i++) assert.equal(rm.partition('r', i)?.topicId, NEW_ID);
    for (let i = 3; i < 5; i++) assert.equal(rm.hostedPartition('r', i), undefined);
    assert.equal(rm.topicIdByName('r'), NEW_ID);
    assert.equal(rm.topicNameById(OLD_ID), undefined);
    const rDirs = (await readdir(dir)).filter((d) => /^r-\d+$/.test(d)).sort();
    assert.deepEqual(rDirs, ['r-0', 'r-1', 'r-2']);
  } finally {
    await rm.shutdown();
    await removeDir(dir);
  }
});
