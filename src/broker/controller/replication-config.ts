// The controller's replication settings from the server configuration (Kafka's ControllerServer
// passing ReplicationConfigs to QuorumController): the static topic defaults behind topic and
// dynamic broker configs, and the periodic election tasks — electPreferred every
// leader.imbalance.check.interval.seconds when auto.leader.rebalance.enable, electUnclean every
// unclean.leader.election.interval.ms. Shared by controller-only and combined nodes.

import type { TopicConfigDefaults } from './leader-and-isr.js';

export interface ReplicationConfigSource {
  getInt(name: string): number;
  getLong(name: string): bigint;
  getBoolean(name: string): boolean;
}

export interface ControllerReplicationOptions {
  readonly topicDefaults: TopicConfigDefaults;
  /** leader.imbalance.check.interval.seconds in ms, or 0 when auto.leader.rebalance.enable is false. */
  readonly leaderImbalanceCheckIntervalMs: number;
  readonly uncleanLeaderElectionIntervalMs: number;
}

export function controllerReplicationOptions(config: ReplicationConfigSource): ControllerReplicationOptions {
  return {
    topicDefaults: {
      minInsyncReplicas: config.getInt('min.insync.replicas'),
      uncleanLeaderElectionEnable: config.getBoolean('unclean.leader.election.enable'),
    },
    leaderImbalanceCheckIntervalMs: config.getBoolean('auto.leader.rebalance.enable')
      ? Number(config.getLong('leader.imbalance.check.interval.seconds')) * 1000
      : 0,
    uncleanLeaderElectionIntervalMs: Number(config.getLong('unclean.leader.election.interval.ms')),
  };
}
