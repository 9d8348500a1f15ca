// The tools behind `tkafka <name> ...`. Each entry is cheap to list; its module is imported only
// when the tool runs, so a tool never pays for loading the broker or other tools.
import type { ToolModule } from '../cli.js';
import type { ToolSpec } from './completion/model.js';

export interface ToolDescriptor {
  /** The subcommand: `tkafka <name>`. */
  readonly name: string;
  readonly summary: string;
  /** The Apache Kafka script this tool replaces. */
  readonly kafka: string;
  readonly load: () => Promise<ToolModule>;
  /** The flag definitions behind the tool's `--help`; man pages and completions are generated from them (npm run docs). */
  readonly spec?: () => Promise<ToolSpec>;
  /** Left out of `tkafka --help`, man pages and completions (internal helpers). */
  readonly hidden?: boolean;
}

export const TOOLS: readonly ToolDescriptor[] = [
  {
    name: 'metadata-quorum',
    summary: 'Describe the KRaft metadata quorum, add and remove controllers',
    kafka: 'kafka-metadata-quorum.sh',
    load: () => import('./metadata-quorum/main.js'),
    spec: async () => (await import('./metadata-quorum/main.js')).buildParser(),
  },
  {
    name: 'dump-log',
    summary: 'Dump log segments, indexes, producer snapshots and metadata snapshots',
    kafka: 'kafka-dump-log.sh',
    load: () => import('./dump-log/main.js'),
    spec: async () => (await import('./dump-log/options.js')).DUMP_LOG_SPEC,
  },
  {
    name: 'storage',
    summary: 'Format and inspect storage directories',
    kafka: 'kafka-storage.sh',
    load: () => import('./storage/main.js'),
    spec: async () => (await import('./storage/main.js')).buildParser(),
  },
  {
    name: 'topics',
    summary: 'Create, delete, describe, or change a topic',
    kafka: 'kafka-topics.sh',
    load: () => import('./topics/main.js'),
    spec: async () => (await import('./topics/spec.js')).fullTopicsSpec(),
  },
  {
    name: 'configs',
    summary: 'Describe and alter configs of topics, brokers, broker loggers, users, clients, groups',
    kafka: 'kafka-configs.sh',
    load: () => import('./configs/main.js'),
    spec: async () => (await import('./configs/spec.js')).fullConfigsSpec(),
  },
  {
    name: 'get-offsets',
    summary: 'Get offsets of topic partitions',
    kafka: 'kafka-get-offsets.sh',
    load: () => import('./get-offsets/main.js'),
    spec: async () => (await import('./get-offsets/main.js')).GET_OFFSETS_SPEC,
  },
  {
    name: 'delete-records',
    summary: 'Delete records up to given offsets',
    kafka: 'kafka-delete-records.sh',
    load: () => import('./delete-records/main.js'),
    spec: async () => (await import('./delete-records/main.js')).DELETE_RECORDS_SPEC,
  },
  {
    name: 'broker-api-versions',
    summary: 'Show the API versions each broker supports',
    kafka: 'kafka-broker-api-versions.sh',
    load: () => import('./broker-api-versions/main.js'),
    spec: async () => (await import('./broker-api-versions/main.js')).BROKER_API_VERSIONS_SPEC,
  },
  {
    name: 'log-dirs',
    summary: 'Describe the log directories of brokers',
    kafka: 'kafka-log-dirs.sh',
    load: () => import('./log-dirs/main.js'),
    spec: async () => (await import('./log-dirs/main.js')).LOG_DIRS_SPEC,
  },
  {
    name: 'cluster',
    summary: 'Get the cluster id, unregister brokers',
    kafka: 'kafka-cluster.sh',
    load: () => import('./cluster/main.js'),
    spec: async () => (await import('./cluster/main.js')).buildClusterParser(),
  },
  {
    name: 'features',
    summary: 'Describe and update feature levels',
    kafka: 'kafka-features.sh',
    load: () => import('./features/main.js'),
    spec: async () => (await import('./features/main.js')).buildFeaturesParser(),
  },
  {
    name: 'transactions',
    summary: 'List, describe and abort transactions; describe producers; find hanging transactions',
    kafka: 'kafka-transactions.sh',
    load: () => import('./transactions/main.js'),
    spec: async () => (await import('./transactions/main.js')).buildTransactionsParser(),
  },
  {
    name: 'consumer-groups',
    summary: 'List, describe and delete consumer groups; reset and delete their offsets',
    kafka: 'kafka-consumer-groups.sh',
    load: () => import('./consumer-groups/main.js'),
    spec: async () => (await import('./consumer-groups/spec.js')).consumerGroupsSpec(),
  },
  {
    name: 'console-producer',
    summary: 'Read records from standard input and produce them to a topic',
    kafka: 'kafka-console-producer.sh',
    load: () => import('./console-producer/main.js'),
    spec: async () => (await import('./console-producer/spec.js')).consoleProducerSpec(),
  },
  {
    name: 'console-consumer',
    summary: 'Consume records from topics and print them to standard output',
    kafka: 'kafka-console-consumer.sh',
    load: () => import('./console-consumer/main.js'),
    spec: async () => (await import('./console-consumer/spec.js')).consoleConsumerSpec(),
  },
  {
    name: 'producer-perf-test',
    summary: 'Measure producer throughput and latency',
    kafka: 'kafka-producer-perf-test.sh',
    load: () => import('./producer-perf-test/main.js'),
    spec: async () => (await import('./producer-perf-test/main.js')).buildParser(),
  },
  {
    name: 'consumer-perf-test',
    summary: 'Measure consumer throughput',
    kafka: 'kafka-consumer-perf-test.sh',
    load: () => import('./consumer-perf-test/main.js'),
    spec: async () => (await import('./consumer-perf-test/spec.js')).CONSUMER_PERF_SPEC,
  },
  {
    name: 'local',
    summary: 'Run a local development cluster: start, stop, status',
    kafka: '(tkafka only)',
    load: () => import('./local/main.js'),
    spec: async () => (await import('./local/main.js')).buildParser(),
  },
  {
    name: 'completion',
    summary: 'Print the shell completion script for bash, zsh or fish',
    kafka: '(tkafka only)',
    load: () => import('./completion/main.js'),
    spec: async () => (await import('./completion/main.js')).buildParser(),
  },
  {
    name: '__complete',
    summary: 'List live topic or group names for shell completion',
    kafka: '(tkafka only)',
    load: () => import('./completion/complete.js'),
    hidden: true,
  },
  {
    name: 'profile',
    summary: 'Manage named cluster profiles used when --bootstrap-server is omitted',
    kafka: '(tkafka only)',
    load: () => import('./profile/main.js'),
    spec: async () => (await import('./profile/main.js')).PROFILE_SPEC,
  },
];
