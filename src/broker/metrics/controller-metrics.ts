// The controller role's metrics: KafkaController gauges (ControllerMetadataMetrics, from the
// metadata image every controller applies, so standby controllers report the same cluster numbers
// and ActiveControllerCount 0) and the raft-metrics group (as the Strimzi rules render
// kafka.server:type=raft-metrics: kafka_server_raftmetrics_<name with - as _>).
import type { Registry } from 'prom-client';
import type { MetadataImage } from '../metadata/image.js';
import type { Quorum } from '../raft/types.js';
import { counters, gauge, gauges } from './families.js';

export interface ControllerSource {
  readonly image: MetadataImage;
  isActive(): boolean;
  on(
    type: 'partitionsChanged',
    handler: (event: {
      partitions: readonly {
        previous: { leaderRecoveryState: number; leader: number; isr: readonly number[] };
        current: { leaderRecoveryState: number; leader: number; isr: readonly number[] };
      }[];
    }) => void,
  ): () => void;
}

export function registerControllerMetrics(registry: Registry, controller: ControllerSource): () => void {
  const kc = (name: string, help: string, value: () => number): void =>
    gauge(
      registry,
      `kafka_controller_kafkacontroller_${name.toLowerCase()}`,
      `kafka.controller:type=KafkaController,name=${name}: ${help}`,
      value,
    );
  const partitions = function* (image: MetadataImage) {
    for (const t of image.topicsByName.values()) yield* t.partitions.values();
  };
  const countPartitions = (pred: (p: { leader: number; replicas: readonly number[] }) => boolean) => (): number => {
    let n = 0;
    for (const p of partitions(controller.image)) if (pred(p)) n++;
    return n;
  };
  kc('ActiveControllerCount', '1 on the active controller, else 0', () => (controller.isActive() ? 1 : 0));
  kc('GlobalTopicCount', 'topics in the metadata image', () => controller.image.topicsByName.size);
  kc(
    'GlobalPartitionCount',
    'partitions in the metadata image',
    countPartitions(() => true),
  );
  kc(
    'OfflinePartitionsCount',
    'partitions without a leader',
    countPartitions((p) => p.leader < 0),
  );
  kc(
    'PreferredReplicaImbalanceCount',
    'partitions led by another replica than the first',
    countPartitions((p) => p.leader >= 0 && p.leader !== p.replicas[0]),
  );
  const brokers = (fenced: boolean) => (): number =>
    [...controller.image.brokers.values()].filter((b) => b.fenced === fenced).length;
  kc('ActiveBrokerCount', 'registered unfenced brokers', brokers(false));
  kc('FencedBrokerCount', 'registered fenced brokers', brokers(true));
  // ControllerStats UncleanLeaderElectionsPerSec: a committed partition change that elected a
  // leader outside the ISR (it comes back RECOVERING, ControllerMetadataMetricsPublisher)
  let unclean = 0;
  const off = controller.on('partitionsChanged', (e) => {
    for (const { previous, current } of e.partitions)
      if (current.leaderRecoveryState === 1 && previous.leaderRecoveryState !== 1 && current.leader >= 0) unclean++;
  });
  counters(
    registry,
    'kafka_controller_controllerstats_uncleanleaderelections_total',
    'kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec (Count)',
    [],
    (emit) => emit({}, unclean),
  );
  return off;
}

/** raft-metrics of the node's KRaft client (voter or observer). */
export function registerRaftMetrics(registry: Registry, quorum: Quorum & { readonly stateName?: string }): void {
  const raft = (name: string, value: () => number): void =>
    gauge(
      registry,
      `kafka_server_raftmetrics_${name.replace(/-/g, '_')}`,
      `kafka.server:type=raft-metrics ${name}`,
      value,
    );
  raft('current-leader', () => quorum.leaderId);
  raft('current-epoch', () => quorum.leaderEpoch);
  raft('high-watermark', () => quorum.highWatermark);
  raft('log-end-offset', () => quorum.logEndOffset);
  gauges(
    registry,
    'kafka_server_raftmetrics_current_state',
    'kafka.server:type=raft-metrics current-state (1 for the state in effect)',
    ['current_state'],
    (emit) =>
      emit({ current_state: (quorum.stateName ?? (quorum.isLeader() ? 'Leader' : 'Observer')).toLowerCase() }, 1),
  );
}
