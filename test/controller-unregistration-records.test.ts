// The records of UnregisterController (ClusterControlManager.unregisterController and
// ClusterDelta.replay(UnregisterControllerRecord)), on images built by replaying records: refused
// below metadata.version 4.4-IV2 (UNSUPPORTED_VERSION), for an unknown id
// (CONTROLLER_ID_NOT_REGISTERED) and for the active controller (INVALID_REQUEST), with Kafka's
// messages; otherwise one UnregisterControllerRecord v0, whose replay removes the registration.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import { unregisterController } from '../src/broker/controller/cluster.js';
import { controllerRegistrationRecord } from '../src/broker/metadata/image-writer.js';
import { ErrorCode, KafkaError } from '../src/protocol/errors.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../src/protocol/metadata-records.js';

const PROVENANCE = { offset: 0, epoch: 1, lastContainedLogTimeMs: -1 };

function imageAt(metadataVersion: number, controllerIds: number[]): MetadataImage {
  const b = new ImageBuilder(MetadataImage.empty());
  b.apply(metadataRecord(RecordType.FeatureLevel, 0, { name: 'metadata.version', featureLevel: metadataVersion }));
  for (const id of controllerIds) {
    b.apply(
      controllerRegistrationRecord({
        id,
        incarnationId: 'AAAAAAAAAAAAAAAAAAAAAg',
        zkMigrationReady: false,
        endpoints: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 9093 + id, securityProtocol: 0 }],
        supportedFeatures: new Map([['metadata.version', { min: 7, max: 33 }]]),
      }),
    );
  }
  return b.build(PROVENANCE);
}

function refusal(image: MetadataImage, activeId: number, id: number): [number, string] {
  try {
    unregisterController(image, activeId, id);
  } catch (e) {
    assert.ok(e instanceof KafkaError);
    return [e.code, e.message];
  }
  assert.fail('no error');
}

test('UnregisterController is refused below 4.4-IV2, for unknown ids and for the active controller', () => {
  assert.deepEqual(refusal(imageAt(32, [1, 2]), 1, 2), [
    ErrorCode.UNSUPPORTED_VERSION,
    'The current MetadataVersion is too old to support controller unregistration.',
  ]);
  assert.deepEqual(refusal(imageAt(33, [1, 2]), 1, 3), [
    ErrorCode.CONTROLLER_ID_NOT_REGISTERED,
    'Controller ID 3 is not currently registered.',
  ]);
  // QuorumController checks the active controller's own id first, at any metadata.version
  assert.deepEqual(refusal(imageAt(32, [1, 2]), 1, 1), [
    ErrorCode.INVALID_REQUEST,
    'Controller cannot unregister itself while it is active.',
  ]);
});

test('an UnregisterControllerRecord v0 removes the registration when replayed', () => {
  const image = imageAt(33, [1, 2, 3]);
  const records: MetadataRecord[] = unregisterController(image, 1, 2);
  assert.deepEqual(records, [{ type: RecordType.UnregisterController, version: 0, data: { controllerId: 2 } }]);
  const b = new ImageBuilder(image);
  for (const r of records) b.apply(r);
  assert.deepEqual([...b.scope.controllerIds], [2]);
  const next = b.build({ ...PROVENANCE, offset: 1 });
  assert.deepEqual([...next.controllers.keys()].sort(), [1, 3]);
  assert.deepEqual([...image.controllers.keys()].sort(), [1, 2, 3], 'the base image is unchanged');
});
