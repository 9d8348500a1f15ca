// The ReplicationControlManager helpers of src/broker/controller/leader-and-isr.ts on images built by
// replaying records: min.insync.replicas and unclean.leader.election.enable resolved as Kafka's
// controller does (topic config, then the active controller's dynamic broker config, then the
// cluster default, then the static default; min ISR capped at the replication factor), the
// LeaderAcceptor's directory rule, and the ClearElrRecords a min.insync.replicas change brings.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { ConfigResourceType, MetadataImage } from '../src/broker/metadata/image.js';
import { brokerRegistrationRecord } from '../src/broker/metadata/image-writer.js';
import {
  clearElrRecordsAsNeeded,
  DIRECTORY_LOST,
  leaderAcceptor,
  topicEffectiveMinIsr,
  uncleanLeaderElectionEnabled,
} from '../src/broker/controller/leader-and-isr.js';
import {
  defaultConfigRecord,
  defaultPartitionRecord,
  defaultTopicRecord,
} from '../src/protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../src/protocol/metadata-records.js';

const TOPIC_ID = 'FbrrdcfiR-KC2CPSTHaJrg';
const DIR = 'Y25PaCAmRfyGIKxAThhBAw';

function config(resourceType: number, resourceName: string, name: string, value: string | null): MetadataRecord {
  return metadataRecord(RecordType.Config, 0, { ...defaultConfigRecord(), resourceType, resourceName, name, value });
}

function image(extra: MetadataRecord[], elr = 1, controllerId = 1): MetadataImage {
  const b = new ImageBuilder(MetadataImage.empty('c', controllerId));
  const records: MetadataRecord[] = [
    metadataRecord(RecordType.FeatureLevel, 0, { name: 'metadata.version', featureLevel: 33 }),
    metadataRecord(RecordType.FeatureLevel, 0, { name: 'eligible.leader.replicas.version', featureLevel: elr }),
    brokerRegistrationRecord(
      {
        id: 2,
        epoch: 10n,
        incarnationId: 'AAAAAAAAAAAAAAAAAAAAAw',
        endpoints: [],
        supportedFeatures: new Map(),
        rack: null,
        fenced: false,
        inControlledShutdown: false,
        isMigratingZkBroker: false,
        directories: [DIR],
      },
      33,
    ),
    metadataRecord(RecordType.Topic, 0, { ...defaultTopicRecord(), name: 't', topicId: TOPIC_ID }),
    metadataRecord(RecordType.Partition, 2, {
      ...defaultPartitionRecord(),
      partitionId: 0,
      topicId: TOPIC_ID,
      replicas: [2, 3, 4],
      isr: [2, 3, 4],
      leader: 2,
      directories: [DIR, DIR, DIR],
    }),
    ...extra,
  ];
  for (const r of records) b.apply(r);
  return b.build({ offset: records.length, epoch: 1, lastContainedLogTimeMs: -1 });
}

test('min.insync.replicas: topic, then the controller node, then the cluster default, then static; capped at RF', () => {
  const T = ConfigResourceType.Topic;
  const B = ConfigResourceType.Broker;
  const minIsr = (img: MetadataImage, staticMin?: number) =>
    topicEffectiveMinIsr({ image: img, defaults: { minInsyncReplicas: staticMin } }, img.topic('t')!);
  assert.equal(minIsr(image([])), 1);
  assert.equal(minIsr(image([]), 2), 2);
  assert.equal(minIsr(image([]), 5), 3, 'capped at the replication factor');
  assert.equal(minIsr(image([config(B, '', 'min.insync.replicas', '2')]), 1), 2);
  assert.equal(
    minIsr(image([config(B, '', 'min.insync.replicas', '2'), config(B, '1', 'min.insync.replicas', '3')])),
    3,
  );
  assert.equal(minIsr(image([config(B, '7', 'min.insync.replicas', '3')])), 1, "another node's config is not read");
  assert.equal(
    minIsr(image([config(B, '1', 'min.insync.replicas', '3'), config(T, 't', 'min.insync.replicas', '2')])),
    2,
  );
});

test('unclean.leader.election.enable: topic over broker configs over the static default', () => {
  const T = ConfigResourceType.Topic;
  const B = ConfigResourceType.Broker;
  const unclean = (img: MetadataImage, staticValue?: boolean) =>
    uncleanLeaderElectionEnabled({ image: img, defaults: { uncleanLeaderElectionEnable: staticValue } }, 't');
  assert.equal(unclean(image([])), false);
  assert.equal(unclean(image([]), true), true);
  assert.equal(unclean(image([config(B, '', 'unclean.leader.election.enable', 'true')])), true);
  assert.equal(
    unclean(
      image([
        config(B, '', 'unclean.leader.election.enable', 'true'),
        config(T, 't', 'unclean.leader.election.enable', 'false'),
      ]),
    ),
    false,
  );
});

test('LeaderAcceptor: active and its replica directory online', () => {
  const img = image([]);
  const p = img.partition('t', 0)!;
  const accept = leaderAcceptor(img, p);
  assert.equal(accept(2), true);
  assert.equal(accept(3), false, 'not registered');
  const lost = { ...p, directories: [DIRECTORY_LOST, DIR, DIR] };
  assert.equal(leaderAcceptor(img, lost)(2), false, 'a LOST directory is offline');
  const other = { ...p, directories: ['X5FnAcIgTheWgTMzeO5WHw', DIR, DIR] };
  assert.equal(leaderAcceptor(img, other)(2), false, 'a directory the broker did not register is offline');
});

test('ClearElrRecords follow min.insync.replicas changes only with ELR enabled', () => {
  const changes = [
    config(ConfigResourceType.Topic, 't', 'min.insync.replicas', '2'),
    config(ConfigResourceType.Topic, 't', 'retention.ms', '1'),
    config(ConfigResourceType.Broker, '', 'min.insync.replicas', null),
  ];
  const out = clearElrRecordsAsNeeded(image([]), changes);
  assert.deepEqual(
    out.map((r) => (r.type === RecordType.ClearElr ? r.data.topicName : '?')),
    ['t', ''],
  );
  assert.deepEqual(clearElrRecordsAsNeeded(image([], 0), changes), []);
});
