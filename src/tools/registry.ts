// The tools behind `tkafka <name> ...`. Each entry is cheap to list; its module is imported only
// when the tool runs, so a tool never pays for loading the broker or other tools.
import type { ToolModule } from '../cli.js';

export interface ToolDescriptor {
  /** The subcommand: `tkafka <name>`. */
  readonly name: string;
  readonly summary: string;
  /** The Apache Kafka script this tool replaces. */
  readonly kafka: string;
  readonly load: () => Promise<ToolModule>;
}

export const TOOLS: readonly ToolDescriptor[] = [
  { name: 'metadata-quorum', summary: 'Describe the KRaft metadata quorum, add and remove controllers', kafka: 'kafka-metadata-quorum.sh', load: () => import('./metadata-quorum/main.js') },
  { name: 'dump-log', summary: 'Dump log segments, indexes, producer snapshots and metadata snapshots', kafka: 'kafka-dump-log.sh', load: () => import('./dump-log/main.js') },
  { name: 'storage', summary: 'Format and inspect storage directories', kafka: 'kafka-storage.sh', load: () => import('./storage/main.js') },
  { name: 'topics', summary: 'Create, delete, describe, or change a topic', kafka: 'kafka-topics.sh', load: () => import('./topics/main.js') },
  { name: 'configs', summary: 'Describe and alter configs of topics, brokers, broker loggers, users, clients, groups', kafka: 'kafka-configs.sh', load: () => import('./configs/main.js') },
  { name: 'get-offsets', summary: 'Get offsets of topic partitions', kafka: 'kafka-get-offsets.sh', load: () => import('./get-offsets/main.js') },
  { name: 'delete-records', summary: 'Delete records up to given offsets', kafka: 'kafka-delete-records.sh', load: () => import('./delete-records/main.js') },
  { name: 'broker-api-versions', summary: 'Show the API versions each broker supports', kafka: 'kafka-broker-api-versions.sh', load: () => import('./broker-api-versions/main.js') },
  { name: 'log-dirs', summary: 'Describe the log directories of brokers', kafka: 'kafka-log-dirs.sh', load: () => import('./log-dirs/main.js') },
  { name: 'cluster', summary: 'Get the cluster id, unregister brokers', kafka: 'kafka-cluster.sh', load: () => import('./cluster/main.js') },
  { name: 'features', summary: 'Describe and update feature levels', kafka: 'kafka-features.sh', load: () => import('./features/main.js') },
  { name: 'transactions', summary: 'List, describe and abort transactions; describe producers; find hanging transactions', kafka: 'kafka-transactions.sh', load: () => import('./transactions/main.js') },
  { name: 'profile', summary: 'Manage named cluster profiles used when --bootstrap-server is omitted', kafka: '(tkafka only)', load: () => import('./profile/main.js') },
];
