// The KRaft controller's operations against a real (temporary) metadata log: bootstrap, topics,
// partitions, configs, producer ids, broker fencing, with Kafka's errors and messages.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { ConfigResourceType, type MetadataEvent, type MetadataUpdate } from '../src/broker/metadata/index.js';
import { OpType, type QuorumController } from '../src/broker/controller/index.js';
import { addBrokers, CLUSTER_ID, openController, tempDir } from './helpers/metadata-env.js';

async function withController(
  fn: (c: QuorumController) => Promise<void>,
  extra: Parameters<typeof openController>[1] = {},
): Promise<void> {
  const { dir, cleanup } = tempDir();
  const c = await openController(dir, extra);
  try {
    await fn(c);
  } finally {
    await c.close();
    cleanup();
  }
}

test('bootstrap: metadata.version, local broker registered and unfenced, controller registered', async () => {
  await withController(async (c) => {
    const img = c.image;
    assert.equal(img.clusterId, CLUSTER_ID);
    assert.equal(img.controllerId, 1);
    assert.equal(img.metadataVersion, 33);
    assert.equal(img.features.get('metadata.version'), 33);
    const b = img.brokers.get(1)!;
    assert.ok(b, 'local broker registered');
    assert.equal(b.fenced, false);
    assert.equal(b.epoch, c.brokerEpoch);
    assert.deepEqual(b.endpoints, [{ name: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 0 }]);
    assert.deepEqual(b.directories, ['J8aAPcfLQt2bqs1JT_rMgQ']);
    assert.equal(b.incarnationId, c.incarnationId);
    assert.deepEqual(img.controllers.get(1)?.endpoints, [
      { name: 'CONTROLLER', host: 'localhost', port: 9093, securityProtocol: 0 },
    ]);
    assert.equal(img.topicsByName.size, 0);
    assert.equal(img.nextProducerId, -1n);
  });
});

test('createTopics: TopicRecord + PartitionRecords + ConfigRecords, defaults for -1, events', async () => {
  await withController(
    async (c) => {
      const events: MetadataEvent[] = [];
      const updates: MetadataUpdate[] = [];
      await c.addPublisher({
        name: 'test',
        onMetadataUpdate: (u) => {
          updates.push(u);
          events.push(...u.events);
        },
      });
      assert.equal(updates[0]!.kind, 'initial');
      const created: string[] = [];
      c.on('topicCreated', (e) => created.push(e.topic.name));

      const [r] = await c.createTopics([
        {
          name: 'orders',
          numPartitions: -1,
          replicationFactor: -1,
          configs: [{ name: 'cleanup.policy', value: 'compact' }],
        },
      ]);
      assert.equal(r!.errorCode, ErrorCode.NONE);
      assert.equal(r!.errorMessage, null);
      assert.equal(r!.numPartitions, 3);
      assert.equal(r!.replicationFactor, 1);
      assert.match(r!.topicId, /^[A-Za-z0-9_-]{22}$/);
      const t = c.image.topic('orders')!;
      assert.equal(t.id, r!.topicId);
      assert.equal(c.image.topicById(r!.topicId), t);
      assert.equal(t.partitions.size, 3);
      for (const [pid, p] of t.partitions) {
        assert.equal(p.partitionId, pid);
        assert.deepEqual(p.replicas, [1]);
        assert.deepEqual(p.isr, [1]);
        assert.equal(p.leader, 1);
        assert.equal(p.leaderEpoch, 0);
        assert.equal(p.partitionEpoch, 0);
        assert.deepEqual(p.directories, ['J8aAPcfLQt2bqs1JT_rMgQ']);
      }
      assert.equal(c.image.topicConfigs('orders').get('cleanup.policy'), 'compact');
      const tc = events.find((e) => e.type === 'topicCreated');
      assert.ok(tc && tc.type === 'topicCreated' && tc.topic.name === 'orders');
      const pc = events.find((e) => e.type === 'partitionsCreated');
      assert.ok(pc && pc.type === 'partitionsCreated');
      assert.deepEqual(
        pc.partitions.map((p) => p.partitionId),
        [0, 1, 2],
      );
      assert.deepEqual(created, ['orders']);
      // A publisher added later sees the topic in its initial update.
      const late: MetadataEvent[] = [];
      await c.addPublisher({
        name: 'late',
        onMetadataUpdate: (u) => {
          late.push(...u.events);
        },
      });
      assert.ok(
        late.some((e) => e.type === 'partitionsCreated' && e.topic.name === 'orders' && e.partitions.length === 3),
      );
    },
    { defaultNumPartitions: 3 },
  );
});

test('createTopics: Kafka validation errors and messages', async () => {
  await withController(async (c) => {
    await c.createTopics([
      { name: 'a_b', numPartitions: 1, replicationFactor: 1 },
      { name: 'exists', numPartitions: 1, replicationFactor: 1 },
    ]);
    const res = await c.createTopics([
      { name: 'exists', numPartitions: 1, replicationFactor: 1 },
      { name: 'a.b', numPartitions: 1, replicationFactor: 1 },
      { name: 'bad name!', numPartitions: 1, replicationFactor: 1 },
      { name: '.', numPartitions: 1, replicationFactor: 1 },
      { name: '..', numPartitions: 1, replicationFactor: 1 },
      { name: 'x'.repeat(250), numPartitions: 1, replicationFactor: 1 },
      { name: '', numPartitions: 1, replicationFactor: 1 },
      { name: 'zero-parts', numPartitions: 0, replicationFactor: 1 },
      { name: 'neg-parts', numPartitions: -2, replicationFactor: 1 },
      { name: 'zero-rf', numPartitions: 1, replicationFactor: 0 },
      { name: 'rf3', numPartitions: 2, replicationFactor: 3 },
      { name: 'dup', numPartitions: 1, replicationFactor: 1 },
      { name: 'dup', numPartitions: 1, replicationFactor: 1 },
      { name: '__cluster_metadata', numPartitions: 1, replicationFactor: 1 },
      { name: 'nullcfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: null }] },
      { name: 'ok', numPartitions: 1, replicationFactor: 1 },
    ]);
    const by = new Map(res.map((r) => [r.name, r]));
    const expect = (name: string, code: number, message: string | null) => {
      const r = by.get(name);
      assert.ok(r, `result for ${name}`);
      assert.equal(r.errorCode, code, `${name}: ${r.errorMessage}`);
      assert.equal(r.errorMessage, message, name);
    };
    expect('exists', ErrorCode.TOPIC_ALREADY_EXISTS, "Topic 'exists' already exists.");
    expect('a.b', ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic 'a.b' collides with existing topic: a_b");
    expect(
      'bad name!',
      ErrorCode.INVALID_TOPIC_EXCEPTION,
      "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
    );
    expect('.', ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: '.' is not allowed");
    expect('..', ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: '..' is not allowed");
    expect(
      'x'.repeat(250),
      ErrorCode.INVALID_TOPIC_EXCEPTION,
      `Topic name is invalid: the length of '${'x'.repeat(250)}' is longer than the max allowed length 249`,
    );
    expect('', ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name is invalid: the empty string is not allowed');
    expect(
      'zero-parts',
      ErrorCode.INVALID_PARTITIONS,
      'Number of partitions was set to an invalid non-positive value.',
    );
    expect('neg-parts', ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    expect(
      'zero-rf',
      ErrorCode.INVALID_REPLICATION_FACTOR,
      'Replication factor must be larger than 0, or -1 to use the default value.',
    );
    expect(
      'rf3',
      ErrorCode.INVALID_REPLICATION_FACTOR,
      'Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered' +
        ' or some brokers have all their log directories cordoned.',
    );
    expect('dup', ErrorCode.INVALID_REQUEST, 'Duplicate topic name.');
    expect(
      '__cluster_metadata',
      ErrorCode.INVALID_REQUEST,
      'Creation of internal topic __cluster_metadata is prohibited.',
    );
    expect('nullcfg', ErrorCode.INVALID_CONFIG, 'Null value not supported for topic configs: retention.ms');
    expect('ok', ErrorCode.NONE, null);
    assert.equal(res.filter((r) => r.name === 'dup').length, 1);
    assert.deepEqual([...c.image.topicsByName.keys()].sort(), ['a_b', 'exists', 'ok']);
    for (const r of res) if (r.errorCode !== 0) assert.equal(r.topicId, 'AAAAAAAAAAAAAAAAAAAAAA');
  });
});

test('createTopics: validateOnly writes nothing; config validator callback', async () => {
  const seen: string[] = [];
  await withController(
    async (c) => {
      const offset = c.image.offset;
      const [v] = await c.createTopics([{ name: 'dry', numPartitions: 2, replicationFactor: 1 }], {
        validateOnly: true,
      });
      assert.equal(v!.errorCode, 0);
      assert.equal(v!.numPartitions, 2);
      assert.equal(c.image.topic('dry'), undefined);
      assert.equal(c.image.offset, offset);
      const [bad] = await c.createTopics([
        { name: 'badcfg', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: 'soon' }] },
      ]);
      assert.equal(bad!.errorCode, ErrorCode.INVALID_CONFIG);
      assert.equal(bad!.errorMessage, 'Invalid value soon for configuration retention.ms: Not a number of type LONG');
      assert.equal(c.image.topic('badcfg'), undefined);
    },
    {
      configValidator: (resource, configs) => {
        seen.push(`${resource.type}:${resource.name}`);
        const v = configs.get('retention.ms');
        if (v !== undefined && !/^-?\d+$/.test(v)) {
          return {
            errorCode: ErrorCode.INVALID_CONFIG,
            errorMessage: `Invalid value ${v} for configuration retention.ms: Not a number of type LONG`,
          };
        }
        return null;
      },
    },
  );
  assert.ok(seen.includes('2:badcfg'));
});

test('createTopics: placement over several brokers and explicit assignments', async () => {
  await withController(async (c) => {
    await addBrokers(c, [2, 3]);
    assert.equal(c.image.activeBrokers().length, 3);
    const [r] = await c.createTopics([{ name: 'spread', numPartitions: 6, replicationFactor: 3 }]);
    assert.equal(r!.errorCode, 0, r!.errorMessage ?? '');
    const t = c.image.topic('spread')!;
    const leaders = new Set<number>();
    for (const p of t.partitions.values()) {
      assert.equal(new Set(p.replicas).size, 3);
      assert.deepEqual([...p.isr], [...p.replicas]);
      assert.equal(p.leader, p.replicas[0]);
      leaders.add(p.leader);
      assert.equal(p.directories.length, 3);
    }
    assert.equal(leaders.size, 3, 'leadership is striped over the brokers');

    const [m] = await c.createTopics([
      {
        name: 'manual',
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [
          { partitionIndex: 1, brokerIds: [3, 1] },
          { partitionIndex: 0, brokerIds: [2, 3] },
        ],
      },
    ]);
    assert.equal(m!.errorCode, 0, m!.errorMessage ?? '');
    assert.equal(m!.replicationFactor, 2);
    assert.deepEqual(c.image.partition('manual', 0)!.replicas, [2, 3]);
    assert.deepEqual(c.image.partition('manual', 1)!.replicas, [3, 1]);
    assert.equal(c.image.partition('manual', 1)!.leader, 3);

    const errs = await c.createTopics([
      { name: 'm1', numPartitions: -1, replicationFactor: 2, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }] },
      { name: 'm2', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 9] }] },
      { name: 'm3', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 1] }] },
      {
        name: 'm4',
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [
          { partitionIndex: 0, brokerIds: [1, 2] },
          { partitionIndex: 1, brokerIds: [1] },
        ],
      },
      { name: 'm5', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 1, brokerIds: [1] }] },
      {
        name: 'm6',
        numPartitions: -1,
        replicationFactor: -1,
        assignments: [
          { partitionIndex: 0, brokerIds: [1] },
          { partitionIndex: 0, brokerIds: [2] },
        ],
      },
    ]);
    const msg = new Map(errs.map((e) => [e.name, `${e.errorCode} ${e.errorMessage}`]));
    assert.equal(
      msg.get('m1'),
      `${ErrorCode.INVALID_REQUEST} A manual partition assignment was specified, but replication factor was not set to -1.`,
    );
    assert.equal(
      msg.get('m2'),
      `${ErrorCode.INVALID_REPLICA_ASSIGNMENT} The manual partition assignment includes broker 9, but no such broker is registered.`,
    );
    assert.equal(
      msg.get('m3'),
      `${ErrorCode.INVALID_REPLICA_ASSIGNMENT} The manual partition assignment includes the broker 1 more than once.`,
    );
    assert.equal(
      msg.get('m4'),
      `${ErrorCode.INVALID_REPLICA_ASSIGNMENT} The manual partition assignment includes a partition with 1 replica(s), but this is not consistent with previous partitions, which have 2 replica(s).`,
    );
    assert.equal(
      msg.get('m5'),
      `${ErrorCode.INVALID_REPLICA_ASSIGNMENT} partitions should be a consecutive 0-based integer sequence`,
    );
    assert.equal(
      msg.get('m6'),
      `${ErrorCode.INVALID_REPLICA_ASSIGNMENT} Found multiple manual partition assignments for partition 0`,
    );
  });
});

test('deleteTopics by name and by id: RemoveTopicRecord, errors, events, configs dropped', async () => {
  await withController(async (c) => {
    const created = await c.createTopics([
      { name: 'one', numPartitions: 2, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '1000' }] },
      { name: 'two', numPartitions: 1, replicationFactor: 1 },
    ]);
    const ids = new Map(created.map((r) => [r.name, r.topicId]));
    const deleted: string[] = [];
    c.on('topicDeleted', (e) => deleted.push(`${e.topic.name}/${e.topic.partitions.size}`));
    const res = await c.deleteTopics({ topicNames: ['one', 'missing'] });
    const one = res.find((r) => r.name === 'one')!;
    assert.equal(one.errorCode, 0);
    assert.equal(one.topicId, ids.get('one'));
    const missing = res.find((r) => r.name === 'missing')!;
    assert.equal(missing.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal(c.image.topic('one'), undefined);
    assert.equal(c.image.topicById(ids.get('one')!), undefined);
    assert.equal(c.image.topicConfigs('one').size, 0);

    const byId = await c.deleteTopics({
      topics: [
        { name: null, topicId: ids.get('two')! },
        { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAg' },
      ],
    });
    assert.equal(byId.find((r) => r.topicId === ids.get('two'))!.errorCode, 0);
    assert.equal(byId.find((r) => r.topicId === ids.get('two'))!.name, 'two');
    assert.equal(byId.find((r) => r.topicId === 'AAAAAAAAAAAAAAAAAAAAAg')!.errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
    await c.loader.published();
    assert.deepEqual(deleted, ['one/2', 'two/1']);
    const dup = await c.deleteTopics({ topicNames: ['x', 'x'] });
    assert.deepEqual(
      dup.map((r) => [r.name, r.errorCode, r.errorMessage]),
      [['x', ErrorCode.INVALID_REQUEST, 'Duplicate topic name.']],
    );

    // Re-creating the name gets a fresh topic id.
    const [again] = await c.createTopics([{ name: 'one', numPartitions: 1, replicationFactor: 1 }]);
    assert.equal(again!.errorCode, 0);
    assert.notEqual(again!.topicId, ids.get('one'));
  });
});

test('createPartitions: grows a topic, Kafka errors otherwise', async () => {
  await withController(async (c) => {
    await c.createTopics([{ name: 'grow', numPartitions: 2, replicationFactor: 1 }]);
    const added: number[] = [];
    c.on('partitionsCreated', (e) => {
      if (e.topic.name === 'grow') added.push(...e.partitions.map((p) => p.partitionId));
    });
    const [ok] = await c.createPartitions([{ name: 'grow', count: 5, assignments: null }]);
    assert.equal(ok!.errorCode, 0);
    assert.equal(c.image.topic('grow')!.partitions.size, 5);
    assert.equal(c.image.partition('grow', 4)!.leader, 1);
    await c.loader.published();
    assert.deepEqual(added, [2, 3, 4]);
    const errs = await c.createPartitions([
      { name: 'grow', count: 5, assignments: null },
      { name: 'nope', count: 3, assignments: null },
    ]);
    assert.equal(errs[0]!.errorCode, ErrorCode.INVALID_PARTITIONS);
    assert.equal(errs[0]!.errorMessage, 'Topic already has 5 partition(s).');
    assert.equal(errs[1]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const [shrink] = await c.createPartitions([{ name: 'grow', count: 3, assignments: null }]);
    assert.equal(shrink!.errorMessage, 'The topic grow currently has 5 partition(s); 3 would not be an increase.');
    const [wrongAssign] = await c.createPartitions([{ name: 'grow', count: 7, assignments: [{ brokerIds: [1] }] }]);
    assert.equal(wrongAssign!.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assert.equal(
      wrongAssign!.errorMessage,
      'Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.',
    );
    const [dry] = await c.createPartitions([{ name: 'grow', count: 9, assignments: null }], { validateOnly: true });
    assert.equal(dry!.errorCode, 0);
    assert.equal(c.image.topic('grow')!.partitions.size, 5);
  });
});

test('configs: incremental SET/DELETE/APPEND/SUBTRACT, legacy alter, broker resources, errors', async () => {
  await withController(
    async (c) => {
      await c.createTopics([{ name: 'cfg', numPartitions: 1, replicationFactor: 1 }]);
      const changes: string[] = [];
      c.on('configChanged', (e) =>
        changes.push(
          `${e.resourceType}/${e.resourceName}:${[...e.changes]
            .map(([k, v]) => `${k}=${v}`)
            .sort()
            .join(',')}`,
        ),
      );
      const T = ConfigResourceType.Topic;
      let [r] = await c.incrementalAlterConfigs([
        {
          resourceType: T,
          resourceName: 'cfg',
          configs: [
            { name: 'retention.ms', value: '60000', configOperation: OpType.SET },
            { name: 'cleanup.policy', value: 'compact', configOperation: OpType.APPEND },
          ],
        },
      ]);
      assert.equal(r!.errorCode, 0, r!.errorMessage ?? '');
      assert.deepEqual([...c.image.topicConfigs('cfg')].sort(), [
        ['cleanup.policy', 'delete,compact'],
        ['retention.ms', '60000'],
      ]);
      [r] = await c.incrementalAlterConfigs([
        {
          resourceType: T,
          resourceName: 'cfg',
          configs: [
            { name: 'retention.ms', value: null, configOperation: OpType.DELETE },
            { name: 'cleanup.policy', value: 'delete', configOperation: OpType.SUBTRACT },
          ],
        },
      ]);
      assert.equal(r!.errorCode, 0);
      assert.deepEqual([...c.image.topicConfigs('cfg')], [['cleanup.policy', 'compact']]);

      [r] = await c.incrementalAlterConfigs([
        {
          resourceType: T,
          resourceName: 'cfg',
          configs: [{ name: 'retention.ms', value: '1', configOperation: OpType.APPEND }],
        },
      ]);
      assert.equal(r!.errorCode, ErrorCode.INVALID_CONFIG);
      assert.equal(r!.errorMessage, "Can't APPEND to key retention.ms because its type is not LIST.");
      [r] = await c.incrementalAlterConfigs([
        {
          resourceType: T,
          resourceName: 'ghost',
          configs: [{ name: 'retention.ms', value: '1', configOperation: OpType.SET }],
        },
      ]);
      assert.equal(r!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      assert.equal(r!.errorMessage, "The topic 'ghost' does not exist.");
      [r] = await c.incrementalAlterConfigs([
        {
          resourceType: ConfigResourceType.Broker,
          resourceName: '7',
          configs: [{ name: 'log.cleaner.threads', value: '2', configOperation: OpType.SET }],
        },
      ]);
      assert.equal(r!.errorCode, ErrorCode.BROKER_ID_NOT_REGISTERED);
      assert.equal(r!.errorMessage, 'No node with id 7 found.');
      const dupKeys = await c.incrementalAlterConfigs([
        {
          resourceType: T,
          resourceName: 'cfg',
          configs: [
            { name: 'a', value: '1', configOperation: OpType.SET },
            { name: 'a', value: '2', configOperation: OpType.SET },
          ],
        },
      ]);
      assert.equal(dupKeys[0]!.errorMessage, 'Error due to duplicate config keys');

      const broker = await c.incrementalAlterConfigs([
        {
          resourceType: ConfigResourceType.Broker,
          resourceName: '',
          configs: [{ name: 'log.retention.ms', value: '5000', configOperation: OpType.SET }],
        },
        {
          resourceType: ConfigResourceType.Broker,
          resourceName: '1',
          configs: [{ name: 'log.cleaner.threads', value: '2', configOperation: OpType.SET }],
        },
      ]);
      assert.deepEqual(
        broker.map((b) => b.errorCode),
        [0, 0],
      );
      assert.equal(c.image.brokerConfigs().get('log.retention.ms'), '5000');
      assert.equal(c.image.brokerConfigs(1).get('log.cleaner.threads'), '2');

      // Legacy AlterConfigs replaces the whole set.
      const [legacy] = await c.alterConfigs([
        { resourceType: T, resourceName: 'cfg', configs: [{ name: 'segment.ms', value: '100' }] },
      ]);
      assert.equal(legacy!.errorCode, 0);
      assert.deepEqual([...c.image.topicConfigs('cfg')], [['segment.ms', '100']]);
      await c.loader.published();
      assert.deepEqual(changes, [
        '2/cfg:cleanup.policy=delete,compact,retention.ms=60000',
        '2/cfg:cleanup.policy=compact,retention.ms=null',
        '4/:log.retention.ms=5000',
        '4/1:log.cleaner.threads=2',
        '2/cfg:cleanup.policy=null,segment.ms=100',
      ]);
    },
    {
      configSchema: {
        isList: (_t, key) => key === 'cleanup.policy',
        defaultValue: (_t, key) => (key === 'cleanup.policy' ? 'delete' : null),
      },
    },
  );
});

test('allocateProducerIds: consecutive blocks of 1000, stale broker epochs rejected', async () => {
  await withController(async (c) => {
    const a = await c.allocateProducerIds();
    const b = await c.allocateProducerIds(1, c.brokerEpoch);
    assert.deepEqual([a.errorCode, a.producerIdStart, a.producerIdLen], [0, 0n, 1000]);
    assert.deepEqual([b.errorCode, b.producerIdStart, b.producerIdLen], [0, 1000n, 1000]);
    assert.equal(c.image.nextProducerId, 2000n);
    const stale = await c.allocateProducerIds(1, c.brokerEpoch + 1n);
    assert.equal(stale.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    assert.equal(
      stale.errorMessage,
      `Expected broker epoch ${c.brokerEpoch}, but got broker epoch ${c.brokerEpoch + 1n}`,
    );
    const unknown = await c.allocateProducerIds(42, 0n);
    assert.equal(unknown.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    assert.equal(c.image.nextProducerId, 2000n);
  });
});

test('fencing a broker moves leadership and shrinks ISRs; unfencing elects it for leaderless partitions', async () => {
  await withController(async (c) => {
    await addBrokers(c, [2]);
    const made = await c.createTopics([
      { name: 'ha', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [2, 1] }] },
      { name: 'solo', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [2] }] },
    ]);
    assert.deepEqual(
      made.map((m) => m.errorCode),
      [0, 0],
    );
    const epoch2 = c.image.brokers.get(2)!.epoch;
    const changed: string[] = [];
    c.on('partitionsChanged', (e) =>
      changed.push(
        ...e.partitions.map(
          (p) => `${e.topic.name}-${p.current.partitionId}:${p.previous.leader}->${p.current.leader}`,
        ),
      ),
    );
    assert.equal((await c.fenceBroker(2, epoch2)).errorCode, 0);
    const p0 = c.image.partition('ha', 0)!;
    assert.equal(p0.leader, 1);
    assert.deepEqual(p0.isr, [1]);
    assert.equal(p0.leaderEpoch, 1);
    assert.equal(p0.partitionEpoch, 1);
    const p1 = c.image.partition('solo', 0)!;
    // eligible.leader.replicas.version=1 (the 4.4-IV2 default): the last ISR member leaves the ISR
    // for the ELR (KIP-966), and is remembered as the last known leader
    assert.equal(p1.leader, -1);
    assert.deepEqual(p1.isr, []);
    assert.deepEqual(p1.eligibleLeaderReplicas, [2]);
    assert.deepEqual(p1.lastKnownElr, [2]);
    assert.equal(c.image.brokers.get(2)!.fenced, true);
    assert.equal((await c.unfenceBroker(2, epoch2)).errorCode, 0);
    assert.equal(c.image.partition('solo', 0)!.leader, 2);
    assert.equal(c.image.partition('solo', 0)!.leaderEpoch, 2);
    assert.deepEqual(c.image.partition('solo', 0)!.isr, [2], 'elected from the ELR, back in the ISR');
    assert.deepEqual(c.image.partition('solo', 0)!.eligibleLeaderReplicas, []);
    assert.deepEqual(c.image.partition('solo', 0)!.lastKnownElr, []);
    assert.equal(c.image.partition('ha', 0)!.leader, 1, 'leadership does not move back by itself');
    await c.loader.published();
    assert.deepEqual(changed, ['ha-0:2->1', 'solo-0:2->-1', 'solo-0:-1->2']);
    const [r] = await c.createTopics([{ name: 'after', numPartitions: 1, replicationFactor: 2 }]);
    assert.equal(r!.errorCode, 0);
  });
});
