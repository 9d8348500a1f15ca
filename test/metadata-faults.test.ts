// The metadata side of issue 20's item 2: an append to the metadata log that cannot be written is
// cut back to the previous end and handed to the fatal fault handler (Kafka's raft IO thread:
// "Encountered fatal fault", halt 1), through the test-only file-fault seam; and a metadata publisher
// failing on an image goes to the loader's fault handler with Kafka's MetadataLoader message, which
// for a process with the controller role is ProcessTerminatingFaultHandler (log, then halt(1)).
// TKAFKA_TEST_FAULTS is read when the file layer loads: set here before the modules are imported.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const root = mkdtempSync(join(tmpdir(), 'tkafka-metadata-faults-'));
after(() => rmSync(root, { recursive: true, force: true }));
// writes to the `torn` metadata log's segments fail (EIO) once 150 bytes went there: part-way
// through the second batch
process.env['TKAFKA_TEST_FAULTS'] = `${root}/torn/*.log:write:EIO:150`;

const { buildDataBatch, MetadataLog } = await import('../src/broker/raft/index.js');
const { metadataRecord, RecordType } = await import('../src/broker/metadata/index.js');
const { defaultNoOpRecord } = await import('../src/protocol/generated/metadata/NoOpRecord.js');
const { MetadataLoader, processTerminatingFaultHandler } = await import('../src/broker/metadata/loader.js');

const noOps = (n: number) => Array.from({ length: n }, () => metadataRecord(RecordType.NoOp, 0, defaultNoOpRecord()));

test('a metadata log append that fails part-way is cut back and is fatal', async () => {
  const fatal: Array<{ message: string; cause: Error }> = [];
  const dir = join(root, 'torn');
  const log = await MetadataLog.open({ dir, onFatal: (message, cause) => fatal.push({ message, cause }) });
  const first = buildDataBatch({ baseOffset: 0, epoch: 1, timestamp: 1 }, noOps(1));
  await log.append(first);
  assert.ok(first.length < 150);
  const second = buildDataBatch({ baseOffset: 1, epoch: 1, timestamp: 2 }, noOps(5));
  assert.ok(first.length + second.length > 150);
  await assert.rejects(log.append(second), { code: 'EIO' });
  assert.equal(fatal.length, 1);
  assert.match(fatal[0]!.message, /^Unexpected error in raft IO thread/);
  assert.equal(fatal[0]!.cause.message.startsWith('EIO'), true);
  assert.equal(log.logEndOffset, 1, 'the log end did not move');
  const file = join(dir, '00000000000000000000.log');
  assert.equal(statSync(file).size, first.length, 'the torn bytes were cut back');
  assert.deepEqual(readFileSync(file), first);
  await log.close();
  // reopened (as after the halt): the first batch only, nothing truncated at open
  const again = await MetadataLog.open({ dir, onFatal: () => undefined });
  assert.equal(again.logEndOffset, 1);
  assert.equal(again.truncatedBytesAtOpen, 0);
  await again.close();
});

test('a publisher failing on an image goes to the fault handler; the fatal one halts with status 1', async () => {
  const faults: string[] = [];
  const loader = new MetadataLoader({ clusterId: 'c', faultHandler: (m) => faults.push(m) });
  await loader.addPublisher({
    name: 'Broken',
    onMetadataUpdate: () => {
      throw new Error('boom');
    },
  });
  assert.deepEqual(faults, ['Unhandled error publishing the new metadata image ending at -1 with publisher Broken']);

  const logged: string[] = [];
  const halted: number[] = [];
  const fatal = processTerminatingFaultHandler(
    { info: () => undefined, warn: () => undefined, error: (m) => logged.push(m) },
    (code) => halted.push(code),
  );
  const loader2 = new MetadataLoader({ clusterId: 'c', faultHandler: fatal });
  await loader2.addPublisher({
    name: 'Broken',
    onMetadataUpdate: () => {
      throw new Error('boom');
    },
  });
  assert.deepEqual(halted, [1]);
  assert.deepEqual(logged, [
    'Encountered fatal fault: Unhandled error publishing the new metadata image ending at -1 with publisher Broken',
  ]);
  await loader.close();
  await loader2.close();
});
