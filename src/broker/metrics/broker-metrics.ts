// The broker role's metrics, read at scrape time from the state their owners keep: ReplicaManager
// and Partition gauges, the Log gauges of every hosted partition, purgatory sizes, the socket
// server's queues and connections, the event loop's idleness, disk I/O. Names as the JMX exporter
// renders Kafka's MBeans (docs/metrics.md).
import { readFileSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { Partition } from '../replication/partition.js';
import type { PartitionLog } from '../log/partition-log.js';
import type { ConnectionStats } from '../network/connection.js';
import { counters, gauge, gauges, histograms } from './families.js';
import { logFlushTimes } from './log-flush-stats.js';
import type { SampledStat } from './sampled.js';

/** ReplicaManager, Partition (kafka.cluster) and Log (kafka.log) metrics, purgatories, BrokerTopicMetrics. */
export function registerReplicaMetrics(registry: Registry, replicas: ReplicaManager): void {
  replicas.topicStats.register(registry);
  const count = (pred: (p: Partition) => boolean) => (): number => {
    let n = 0;
    for (const p of replicas.allPartitions()) if (pred(p)) n++;
    return n;
  };
  const rm = (name: string, help: string, value: () => number): void =>
    gauge(
      registry,
      `kafka_server_replicamanager_${name.toLowerCase()}`,
      `kafka.server:type=ReplicaManager,name=${name}: ${help}`,
      value,
    );
  rm(
    'PartitionCount',
    'partitions hosted here',
    count(() => true),
  );
  rm(
    'LeaderCount',
    'partitions led here',
    count((p) => p.isLeader && !p.log.isOffline),
  );
  rm(
    'UnderReplicatedPartitions',
    'led partitions whose ISR is smaller than their replicas',
    count((p) => p.isLeader && p.isr.length < p.replicas.length),
  );
  rm(
    'UnderMinIsrPartitionCount',
    'led partitions whose ISR is below min.insync.replicas',
    count((p) => p.isLeader && p.isr.length < p.effectiveMinIsr),
  );
  rm(
    'AtMinIsrPartitionCount',
    'led partitions whose ISR is at min.insync.replicas',
    count((p) => p.isLeader && p.isr.length === p.effectiveMinIsr),
  );
  rm(
    'OfflineReplicaCount',
    'hosted replicas in a failed log directory',
    count((p) => p.log.isOffline),
  );
  counters(
    registry,
    'kafka_server_replicamanager_isrshrinks_total',
    'kafka.server:type=ReplicaManager,name=IsrShrinksPerSec (Count)',
    [],
    (emit) => emit({}, replicas.isrShrinks),
  );
  counters(
    registry,
    'kafka_server_replicamanager_isrexpands_total',
    'kafka.server:type=ReplicaManager,name=IsrExpandsPerSec (Count)',
    [],
    (emit) => emit({}, replicas.isrExpands),
  );

  // kafka.cluster:type=Partition,name=*,topic=*,partition=* (every hosted partition; 0 unless led)
  const partition = (name: string, value: (p: Partition) => number): void =>
    gauges(
      registry,
      `kafka_cluster_partition_${name.toLowerCase()}`,
      `kafka.cluster:type=Partition,name=${name},topic=*,partition=*`,
      ['topic', 'partition'],
      (emit) => {
        for (const p of replicas.allPartitions()) emit({ topic: p.topic, partition: p.index }, value(p));
      },
    );
  partition('UnderReplicated', (p) => (p.isLeader && p.isr.length < p.replicas.length ? 1 : 0));
  partition('UnderMinIsr', (p) => (p.isLeader && p.isr.length < p.effectiveMinIsr ? 1 : 0));
  partition('AtMinIsr', (p) => (p.isLeader && p.isr.length === p.effectiveMinIsr ? 1 : 0));
  partition('ReplicasCount', (p) => (p.isLeader ? p.replicas.length : 0));
  partition('InSyncReplicasCount', (p) => (p.isLeader ? p.isr.length : 0));
  partition('LastStableOffsetLag', (p) => (p.isLeader ? Math.max(0, p.highWatermark - p.lastStableOffset) : 0));

  // kafka.log:type=Log,name=*,topic=*,partition=*
  const log = (name: string, value: (l: PartitionLog) => number): void =>
    gauges(
      registry,
      `kafka_log_log_${name.toLowerCase()}`,
      `kafka.log:type=Log,name=${name},topic=*,partition=*`,
      ['topic', 'partition'],
      (emit) => {
        for (const p of replicas.allPartitions())
          if (!p.log.isOffline) emit({ topic: p.topic, partition: p.index }, value(p.log));
      },
    );
  log('Size', (l) => l.size);
  log('LogStartOffset', (l) => l.logStartOffset);
  log('LogEndOffset', (l) => l.logEndOffset);
  log('NumLogSegments', (l) => l.segments.length);

  histograms(
    registry,
    'kafka_log_logflushstats_logflushrateandtimems',
    'kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs: ms per log flush',
    [],
    (visit) => visit({}, logFlushTimes),
  );

  // kafka.server:type=DelayedOperationPurgatory,name=PurgatorySize|NumDelayedOperations,delayedOperation=*
  for (const name of ['PurgatorySize', 'NumDelayedOperations'])
    gauges(
      registry,
      `kafka_server_delayedoperationpurgatory_${name.toLowerCase()}`,
      `kafka.server:type=DelayedOperationPurgatory,name=${name},delayedOperation=*`,
      ['delayedOperation'],
      (emit) => {
        for (const p of [replicas.producePurgatory, replicas.fetchPurgatory])
          emit({ delayedOperation: p.name }, p.size);
      },
    );
}

/** What the socket-server metrics read of a SocketServer. */
export interface ConnectionsSource {
  connectionStats(): ConnectionStats[];
}

/**
 * RequestChannel queue sizes, connections per listener (socket-server-metrics), and the idle
 * ratio of the one event loop that does both Kafka's network-processor and request-handler work.
 */
export function registerSocketServerMetrics(
  registry: Registry,
  server: ConnectionsSource,
  listeners: readonly string[],
): void {
  gauge(
    registry,
    'kafka_network_requestchannel_requestqueuesize',
    'kafka.network:type=RequestChannel,name=RequestQueueSize: requests read and waiting to be handled, over every connection',
    () => server.connectionStats().reduce((n, c) => n + c.queuedRequests, 0),
  );
  gauge(
    registry,
    'kafka_network_requestchannel_responsequeuesize',
    'kafka.network:type=RequestChannel,name=ResponseQueueSize: connections with response bytes not yet handed to the kernel',
    () => server.connectionStats().reduce((n, c) => n + (c.writableLength > 0 ? 1 : 0), 0),
  );
  gauges(
    registry,
    'kafka_server_socket_server_metrics_connection_count',
    'kafka.server:type=socket-server-metrics,listener=*,networkProcessor=* connection-count (Strimzi rule name)',
    ['listener', 'networkProcessor'],
    (emit) => {
      const by = new Map<string, number>(listeners.map((l) => [l, 0]));
      for (const c of server.connectionStats()) by.set(c.listenerName, (by.get(c.listenerName) ?? 0) + 1);
      for (const [listener, n] of by) emit({ listener, networkProcessor: '0' }, n);
    },
  );
  // 1 - event-loop utilisation since the previous scrape (since start for the first)
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  let idle = 1;
  const sample = (): number => {
    const now = performance.eventLoopUtilization();
    const d = performance.eventLoopUtilization(now, last);
    if (d.idle + d.active > 0) {
      idle = 1 - d.utilization;
      last = now;
    }
    return idle;
  };
  // the four names read one sample per scrape: the first of them takes it
  let sampledAt = -1;
  const idleRatio = (): number => {
    const t = performance.now();
    if (t - sampledAt > 100) {
      sampledAt = t;
      return sample();
    }
    return idle;
  };
  const help =
    '1 - the event loop utilisation since the previous scrape (one loop does the network and request handling)';
  gauge(
    registry,
    'kafka_network_socketserver_networkprocessoravgidlepercent',
    `kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent: ${help}`,
    idleRatio,
  );
  gauge(
    registry,
    'kafka_network_socketserver_networkprocessoravgidle_percent',
    `the same under the Strimzi rule's name: ${help}`,
    idleRatio,
  );
  gauge(
    registry,
    'kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent',
    `kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent (Strimzi rule, MeanRate): ${help}`,
    idleRatio,
  );
}

/** KafkaServer's linux-disk-read-bytes / linux-disk-write-bytes (LinuxIoMetricsCollector: /proc/self/io). */
export function registerLinuxIoMetrics(registry: Registry): void {
  const read = (field: string): number => {
    try {
      const m = new RegExp(`^${field}: (\\d+)$`, 'm').exec(readFileSync('/proc/self/io', 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  };
  gauge(
    registry,
    'kafka_server_kafkaserver_linux_disk_read_bytes',
    'kafka.server:type=KafkaServer,name=linux-disk-read-bytes',
    () => read('read_bytes'),
  );
  gauge(
    registry,
    'kafka_server_kafkaserver_linux_disk_write_bytes',
    'kafka.server:type=KafkaServer,name=linux-disk-write-bytes',
    () => read('write_bytes'),
  );
}

/** What the group metrics read of the group coordinator. */
export interface GroupsSource {
  /** group-coordinator-metrics partition-load-time-avg/max */
  readonly partitionLoadTimes: SampledStat;
  listGroups(
    states: readonly string[],
    types: readonly string[],
  ): Promise<{ errorCode: number; groups: readonly { groupState: string; groupType: string }[] }>;
}

/**
 * GroupMetadataManager's gauges (kafka.coordinator.group:type=GroupMetadataManager,name=NumGroups*)
 * over the groups this node coordinates; the per-state ones count classic groups, as Kafka's.
 */
export function registerGroupMetrics(registry: Registry, coordinator: () => GroupsSource | null): void {
  const STATES: readonly (readonly [string, string])[] = [
    ['NumGroupsPreparingRebalance', 'PreparingRebalance'],
    ['NumGroupsCompletingRebalance', 'CompletingRebalance'],
    ['NumGroupsStable', 'Stable'],
    ['NumGroupsEmpty', 'Empty'],
    ['NumGroupsDead', 'Dead'],
  ];
  const listed = async (): Promise<readonly { groupState: string; groupType: string }[]> => {
    const c = coordinator();
    if (!c) return [];
    const r = await c.listGroups([], []);
    return r.groups;
  };
  const name = (n: string): string => `kafka_coordinator_group_groupmetadatamanager_${n.toLowerCase()}`;
  new Gauge({
    name: name('NumGroups'),
    help: 'kafka.coordinator.group:type=GroupMetadataManager,name=NumGroups: groups coordinated here',
    registers: [registry],
    async collect() {
      this.set((await listed()).length);
    },
  });
  for (const [mbean, state] of STATES)
    new Gauge({
      name: name(mbean),
      help: `kafka.coordinator.group:type=GroupMetadataManager,name=${mbean}: classic groups in ${state}`,
      registers: [registry],
      async collect() {
        this.set((await listed()).filter((g) => g.groupType === 'classic' && g.groupState === state).length);
      },
    });
}

/**
 * A coordinator's partition-load-time-avg/max (Kafka's KafkaMetrics group `group`, e.g.
 * kafka.server:type=group-coordinator-metrics), named as the raft-metrics are:
 * kafka_server_<group without dashes>_partition_load_time_avg|max. NaN until a partition loaded.
 */
export function registerPartitionLoadTimes(
  registry: Registry,
  group: 'group-coordinator-metrics' | 'transaction-coordinator-metrics',
  stat: () => SampledStat | null,
): void {
  const prefix = `kafka_server_${group.replaceAll('-', '')}_partition_load_time`;
  for (const [suffix, read] of [
    ['avg', (s: SampledStat) => s.avg()],
    ['max', (s: SampledStat) => s.max()],
  ] as const)
    gauge(
      registry,
      `${prefix}_${suffix}`,
      `kafka.server:type=${group},name=partition-load-time-${suffix}: ms to load a coordinator partition (two 30 s samples)`,
      () => {
        const s = stat();
        return s ? read(s) : NaN;
      },
    );
}
