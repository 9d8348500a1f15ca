// AlterPartition as a partition leader sends it, forged with RawClient against a controller
// listener: two forged brokers (ids 2 and 3) register and are unfenced, a topic is placed on them
// (leader 2, ISR [2, 3], min.insync.replicas 2), then broker 2 proposes ISRs the controller must
// refuse (stale broker epoch, unknown topic id / partition, epochs from the future or the past, a
// sender that is not the leader, an ISR without the leader, duplicates, a non-replica, RECOVERING
// with several members, another broker epoch, a fenced member) and ISRs it must accept (shrink,
// no-op, expand), each answer recorded in a transcript, with the partition as
// DescribeTopicPartitions shows it (the ELR of KIP-966, which both sides finalize by default) after
// the ISR shrinks below min.insync.replicas. The same scenario runs against a tkafka node and an
// Apache Kafka 4.4.0 node, and the transcripts must be equal.
import { randomBytes } from 'node:crypto';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import type {
  AlterPartitionRequestPartitionData,
  AlterPartitionResponse,
} from '../../src/protocol/generated/protocol/AlterPartition.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import type { Input } from '../../src/protocol/codec/types.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';

export interface AlterPartitionTarget {
  /** The node's PLAINTEXT (broker) listener: Metadata, ApiVersions, CreateTopics. */
  readonly port: number;
  /** The node's controller listener, where BrokerRegistration / BrokerHeartbeat / AlterPartition go. */
  readonly controllerPort: number;
}

const uuid = (): string => randomBytes(16).toString('base64url');

function line(what: string, r: AlterPartitionResponse): string {
  if (r.errorCode !== 0 || r.topics.length === 0) return `${what}: error=${r.errorCode} topics=${r.topics.length}`;
  const p = r.topics[0]!.partitions[0]!;
  if (p.errorCode !== 0) return `${what}: partition error=${p.errorCode}`;
  return `${what}: ok leader=${p.leaderId} leaderEpoch=${p.leaderEpoch} isr=[${p.isr.join(',')}] recovery=${p.leaderRecoveryState} partitionEpoch=${p.partitionEpoch}`;
}

/** The scenario; the transcript has no epochs or ids that differ between runs. */
export async function alterPartitionScenario(target: AlterPartitionTarget): Promise<string[]> {
  const t: string[] = [];
  const broker = await RawClient.connect(target.port);
  const ctl = await RawClient.connect(target.controllerPort);
  try {
    const md = await broker.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
    const clusterId = md.clusterId ?? '';
    const av = await broker.request(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'ap-test',
      clientSoftwareVersion: '1',
    });
    const features = av.supportedFeatures.map((f) => ({
      name: f.name,
      minSupportedVersion: f.minVersion,
      maxSupportedVersion: f.maxVersion,
    }));
    if (!features.some((x) => x.name === 'kraft.version'))
      features.push({ name: 'kraft.version', minSupportedVersion: 0, maxSupportedVersion: 1 });
    for (const f of av.finalizedFeatures) {
      if (!features.some((x) => x.name === f.name))
        features.push({ name: f.name, minSupportedVersion: 0, maxSupportedVersion: f.maxVersionLevel });
    }
    const epochs = new Map<number, bigint>();
    for (const id of [2, 3]) {
      const r = await ctl.request(ApiKey.BrokerRegistration, 4, {
        brokerId: id,
        clusterId,
        incarnationId: uuid(),
        listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 1, securityProtocol: 0 }],
        features,
        rack: null,
        isMigratingZkBroker: false,
        logDirs: [uuid()],
        previousBrokerEpoch: -1n,
      });
      if (r.errorCode !== 0) throw new Error(`registering broker ${id}: error ${r.errorCode}`);
      epochs.set(id, r.brokerEpoch);
    }
    const heartbeat = (id: number, over: Record<string, unknown> = {}) =>
      ctl.request(ApiKey.BrokerHeartbeat, 1, {
        brokerId: id,
        brokerEpoch: epochs.get(id)!,
        currentMetadataOffset: epochs.get(id)! + 1_000_000n,
        wantFence: false,
        wantShutDown: false,
        offlineLogDirs: [],
        ...over,
      });
    const keepAlive = async () => {
      for (const id of [2, 3]) await heartbeat(id);
    };
    await waitFor(
      async () => {
        const a = await heartbeat(2);
        const b = await heartbeat(3);
        return !a.isFenced && !b.isFenced;
      },
      { what: 'brokers 2 and 3 to be unfenced', intervalMs: 100 },
    );

    const topic = `alter-partition-${Date.now()}`;
    const created = await broker.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: topic,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [2, 3] }],
          configs: [{ name: 'min.insync.replicas', value: '2' }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    t.push(`topic on brokers 2, 3: error=${created.topics[0]?.errorCode}`);
    const topicId = created.topics[0]!.topicId;
    await waitFor(
      async () => {
        await keepAlive();
        const m = await broker.request(ApiKey.Metadata, 12, {
          topics: [{ topicId: ZERO_UUID, name: topic }],
          allowAutoTopicCreation: false,
        });
        return m.topics[0]?.partitions[0]?.leaderId === 2;
      },
      { what: `broker 2 to lead ${topic}-0`, intervalMs: 100 },
    );

    /** DescribeTopicPartitions (through the broker listener) once the broker's image shows `isr`. */
    const describe = async (what: string, isr: number[]) => {
      const p = await waitFor(
        async () => {
          const r = await broker.request(ApiKey.DescribeTopicPartitions, 0, {
            topics: [{ name: topic }],
            responsePartitionLimit: 10,
            cursor: null,
          });
          const part = r.topics[0]?.partitions[0];
          return part && part.isrNodes.join(',') === isr.join(',') ? part : null;
        },
        { what: `${topic}-0 to show ISR [${isr.join(',')}]`, intervalMs: 50 },
      );
      t.push(
        `${what}: leader=${p.leaderId} isr=[${p.isrNodes.join(',')}] elr=[${(p.eligibleLeaderReplicas ?? []).join(',')}] lastKnownElr=[${(p.lastKnownElr ?? []).join(',')}]`,
      );
    };

    type P = Input<AlterPartitionRequestPartitionData>;
    const alter = (
      what: string,
      p: Partial<P>,
      opts: { version?: number; brokerId?: number; brokerEpoch?: bigint; topicId?: string } = {},
    ) => {
      const sender = opts.brokerId ?? 2;
      const version = opts.version ?? 3;
      const isr = (p.newIsr as number[] | undefined) ?? [2, 3];
      const body = {
        brokerId: sender,
        brokerEpoch: opts.brokerEpoch ?? epochs.get(sender) ?? -1n,
        topics: [
          {
            topicId: opts.topicId ?? topicId,
            partitions: [
              {
                partitionIndex: 0,
                leaderEpoch: 0,
                partitionEpoch: 0,
                leaderRecoveryState: 0,
                newIsr: version < 3 ? isr : [],
                newIsrWithEpochs:
                  version >= 3 ? isr.map((brokerId) => ({ brokerId, brokerEpoch: epochs.get(brokerId) ?? -1n })) : [],
                ...p,
              },
            ],
          },
        ],
      };
      return ctl.request(ApiKey.AlterPartition, version, body).then((r) => {
        t.push(line(what, r));
        return r;
      });
    };

    await alter('stale broker epoch', {}, { brokerEpoch: epochs.get(2)! - 1n });
    await alter('unknown topic id', {}, { topicId: uuid() });
    await alter('unknown partition', { partitionIndex: 7 });
    await alter('leader epoch from the future', { leaderEpoch: 1 });
    await alter('partition epoch from the future', { partitionEpoch: 1 });
    await alter('stale leader epoch', { leaderEpoch: -1 });
    await alter('from a follower', {}, { brokerId: 3 });
    await alter('ISR without the leader', { newIsr: [3] }, { version: 2 });
    await alter('empty ISR', { newIsr: [] }, { version: 2 });
    await alter('duplicate ISR member', { newIsr: [2, 2] }, { version: 2 });
    await alter('ISR member not a replica', { newIsr: [2, 5] }, { version: 2 });
    await alter('RECOVERING with two members', { leaderRecoveryState: 1 });
    await alter('RECOVERED to RECOVERING', { newIsr: [2], leaderRecoveryState: 1 }, { version: 2 });
    await alter('another broker epoch for a member', {
      newIsrWithEpochs: [
        { brokerId: 2, brokerEpoch: epochs.get(2)! },
        { brokerId: 3, brokerEpoch: epochs.get(3)! + 1n },
      ],
    });
    await keepAlive();
    await alter('shrink to [2] (v2)', { newIsr: [2] }, { version: 2 });
    await describe('described after the shrink below min.insync.replicas=2', [2]);
    await alter('stale partition epoch', { newIsr: [2] }, { version: 2 });
    await alter('no change', { newIsr: [2], partitionEpoch: 1 }, { version: 2 });
    await alter('expand to [2, 3] (v3)', { partitionEpoch: 1 });
    await alter('ISR in another order', { newIsr: [3, 2], partitionEpoch: 2 }, { version: 2 });
    const fenced = await heartbeat(3, { wantFence: true });
    t.push(`broker 3 asks to be fenced: error=${fenced.errorCode} fenced=${fenced.isFenced}`);
    await heartbeat(2);
    // fencing took 3 out of the ISR (partition epoch 4)
    await describe('described after the fencing', [2]);
    await alter('a fenced member', { partitionEpoch: 4 });
    await alter('without the fenced member', { newIsr: [2], partitionEpoch: 4 }, { version: 2 });
    await alter('a fenced member (v2)', { newIsr: [2, 3], partitionEpoch: 4 }, { version: 2 });
    return t;
  } catch (e) {
    throw new Error(`${(e as Error).message}\ntranscript so far:\n${t.join('\n')}`, { cause: e });
  } finally {
    broker.close();
    ctl.close();
  }
}

/**
 * What Apache Kafka 4.4.0 answers (the interop test checks it against a real one). 77
 * STALE_BROKER_EPOCH, 100 UNKNOWN_TOPIC_ID, 3 UNKNOWN_TOPIC_OR_PARTITION, 41 NOT_CONTROLLER, 74
 * FENCED_LEADER_EPOCH, 42 INVALID_REQUEST, 107 INELIGIBLE_REPLICA, 95 INVALID_UPDATE_VERSION.
 */
export const EXPECTED_ALTER_PARTITION_TRANSCRIPT: readonly string[] = [
  'topic on brokers 2, 3: error=0',
  'stale broker epoch: error=77 topics=0',
  'unknown topic id: partition error=100',
  'unknown partition: partition error=3',
  'leader epoch from the future: partition error=41',
  'partition epoch from the future: partition error=41',
  'stale leader epoch: partition error=74',
  'from a follower: partition error=42',
  'ISR without the leader: partition error=42',
  'empty ISR: partition error=42',
  'duplicate ISR member: partition error=42',
  'ISR member not a replica: partition error=42',
  'RECOVERING with two members: partition error=42',
  'RECOVERED to RECOVERING: partition error=42',
  'another broker epoch for a member: partition error=107',
  'shrink to [2] (v2): ok leader=2 leaderEpoch=0 isr=[2] recovery=0 partitionEpoch=1',
  'described after the shrink below min.insync.replicas=2: leader=2 isr=[2] elr=[3] lastKnownElr=[]',
  'stale partition epoch: partition error=95',
  'no change: ok leader=2 leaderEpoch=0 isr=[2] recovery=0 partitionEpoch=1',
  'expand to [2, 3] (v3): ok leader=2 leaderEpoch=0 isr=[2,3] recovery=0 partitionEpoch=2',
  'ISR in another order: ok leader=2 leaderEpoch=0 isr=[3,2] recovery=0 partitionEpoch=3',
  'broker 3 asks to be fenced: error=0 fenced=true',
  'described after the fencing: leader=2 isr=[2] elr=[3] lastKnownElr=[]',
  'a fenced member: partition error=107',
  'without the fenced member: ok leader=2 leaderEpoch=0 isr=[2] recovery=0 partitionEpoch=4',
  'a fenced member (v2): partition error=107',
];
