// The records the group coordinator writes to __consumer_offsets decode with `tkafka dump-log
// --offsets-decoder` (and with Kafka's own DumpLogSegments in the interop suite's dump-log test).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { startBroker } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';

test('group metadata and offset commits in __consumer_offsets decode with tkafka dump-log --offsets-decoder', async () => {
  const broker = await startBroker({
    overrides: { 'offsets.topic.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0 },
  });
  try {
    await execa('kcat', ['-P', '-b', broker.bootstrap, '-t', 'dl'], { input: 'a\nb\nc\n' });
    await execa(
      'kcat',
      [
        '-C',
        '-b',
        broker.bootstrap,
        '-G',
        'dump-group',
        'dl',
        '-e',
        '-q',
        '-X',
        'auto.offset.reset=earliest',
        '-X',
        'enable.auto.commit=true',
        '-X',
        'auto.commit.interval.ms=100',
      ],
      { timeout: 60_000 },
    );
    await broker.stop();
    const dir = join(broker.dataDir, 'logs', '__consumer_offsets-0');
    const seg = readdirSync(dir).find((f) => f.endsWith('.log'))!;
    const r = await execa('node', ['bin/tkafka', 'dump-log', '--offsets-decoder', '--files', join(dir, seg)], {
      cwd: REPO_ROOT,
      reject: false,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.match(r.stdout, /"type":"2".*"group":"dump-group"/, 'a GroupMetadata record of the group');
    assert.match(
      r.stdout,
      /"type":"1".*"group":"dump-group","topic":"dl","partition":0.*"offset":3/,
      'the committed offset 3',
    );
  } finally {
    await broker.stop();
    broker.cleanup();
  }
});
