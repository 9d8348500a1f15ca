// The crash driver's metadata image check can see a difference: on a real tkafka, the image it
// serves equals the one replayed from its metadata log by Kafka's DumpLogSegments (topic ids,
// partitions, leaders, epochs, ISR, topic configs), and a replay of a copy of the log taken before
// a CreatePartitions and an IncrementalAlterConfigs differs from what the broker serves after them.
//
//   node --test dist/test/crash/metadata-image.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKey } from '../../src/protocol/frame.js';
import { startBroker } from '../helpers/broker-process.js';
import { createTopicAt } from '../helpers/create-topic.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { diffImages, replayedImage, servedImage } from './metadata-image.js';

test(
  'the served metadata image equals the replayed one, and a stale log replay differs',
  { timeout: 180_000 },
  async () => {
    const broker = await startBroker({ overrides: { 'metadata.log.max.snapshot.interval.ms': 1000 } });
    const stale = mkdtempSync(join(tmpdir(), 'tkafka-meta-stale-'));
    try {
      await createTopicAt(broker.port, 'img', { partitions: 2 });
      const dir = join(broker.dataDir, 'logs', '__cluster_metadata-0');
      const served = await waitFor(
        async () => {
          const s = await servedImage(broker.port);
          const r = await replayedImage(dir);
          return s && diffImages(s, r.image).length === 0 && s.img ? s : null;
        },
        { what: 'the served image to equal the replayed one', timeoutMs: 60_000, intervalMs: 500 },
      );
      assert.equal(served.img!.partitions.length, 2);
      cpSync(dir, stale, { recursive: true, filter: (src) => !src.endsWith('.part') });

      const c = await RawClient.connect(broker.port);
      try {
        const cp = await c.request(ApiKey.CreatePartitions, 3, {
          topics: [{ name: 'img', count: 3, assignments: null }],
          timeoutMs: 10_000,
          validateOnly: false,
        });
        assert.equal(cp.results[0]!.errorCode, 0);
        const ac = await c.request(ApiKey.IncrementalAlterConfigs, 1, {
          resources: [
            {
              resourceType: 2,
              resourceName: 'img',
              configs: [{ name: 'retention.ms', configOperation: 0, value: '123456' }],
            },
          ],
          validateOnly: false,
        });
        assert.equal(ac.responses[0]!.errorCode, 0);
      } finally {
        c.close();
      }
      const after = await waitFor(
        async () => {
          const s = await servedImage(broker.port);
          return s?.img?.partitions.length === 3 && s.img.configs['retention.ms'] === '123456' ? s : null;
        },
        { what: 'the broker to serve 3 partitions and the new config', timeoutMs: 30_000 },
      );
      const diff = diffImages(after, (await replayedImage(stale)).image);
      assert.equal(diff.length, 1, diff.join('\n'));
      assert.match(diff[0]!, /^img: /);
      await waitFor(async () => diffImages(after, (await replayedImage(dir)).image).length === 0, {
        what: 'the replay of the current log to catch up with the served image',
        timeoutMs: 30_000,
        intervalMs: 500,
      });
    } finally {
      await broker.kill();
      broker.cleanup();
      rmSync(stale, { recursive: true, force: true });
    }
  },
);
