// What the man pages say beyond the flag definitions: examples (commands and output copied from
// real runs against a `tkafka server start` broker; ids and times are whatever that run printed),
// exit statuses where a tool differs from its parser's default, environment, files and notes.
// Keys: '' for tkafka(1), a command name for tkafka-<command>(1), 'server.properties' for (5).

export interface Example {
  /** What the example shows (one sentence). */
  text: string;
  /** Command lines, shown after `$ `. */
  commands: string[];
  /** Output lines as printed. */
  output?: string[];
}

export interface PageExtras {
  /** Replaces the synopsis generated from the parser. */
  synopsis?: string[];
  /** Paragraphs after the generated description. */
  description?: string;
  /** Replaces the generated sentence about the Kafka script this command stands for. */
  kafkaNote?: string;
  examples?: Example[];
  /** [status, meaning] rows; default: the parser style's. */
  exit?: [string, string][];
  exitNote?: string;
  environment?: [string, string][];
  files?: [string, string][];
  notes?: string;
  seeAlso?: string[];
  /** The command has live terminal views (documents NO_COLOR / TKAFKA_NO_TTY). */
  live?: boolean;
}

const B = 'localhost:9092';

export const PAGES: Record<string, PageExtras> = {
  '': {
    description:
      'tkafka is one binary with two jobs: a Kafka-compatible broker and KRaft controller (tkafka server start), and an operations toolkit that works against any Kafka cluster. ' +
      'Each tool takes the flags of the Apache Kafka script it replaces (tkafka topics for kafka-topics.sh, and so on), checks them the same way and prints the same lines, ' +
      'so existing runbooks and scripts keep working with the script name replaced.\n\n' +
      'The cluster of a tool comes from --bootstrap-server, else the TKAFKA_BOOTSTRAP_SERVER environment variable, else the active profile (tkafka profile). ' +
      'Commands that watch something change (consumer-groups --describe --watch, the perf tests, long dump-log runs) draw a live view on a terminal, ' +
      'and print plain, script-friendly lines when their output is not a terminal, with --no-tty, or when NO_COLOR is set.',
    files: [
      [
        '$XDG_CONFIG_HOME/tkafka/config.json',
        'Cluster profiles (default ~/.config/tkafka/config.json); see tkafka-profile(1).',
      ],
      [
        '$XDG_STATE_HOME/tkafka/local',
        'The local development cluster of tkafka local (default ~/.local/state/tkafka/local); see tkafka-local(1).',
      ],
    ],
    examples: [
      {
        text: 'Start a local single-node cluster and point every tool at it:',
        commands: [
          'export TKAFKA_BOOTSTRAP_SERVER=$(tkafka local start)',
          'tkafka topics --create --topic orders --partitions 3',
        ],
        output: ['Created topic orders.'],
      },
      { text: 'Install the shell completion for bash:', commands: ['eval "$(tkafka completion bash)"'] },
    ],
  },

  server: {
    kafkaNote:
      "This is tkafka's version of Apache Kafka's kafka-server-start.sh (with a KRaft server.properties): `kafka-server-start.sh config/server.properties --override key=value` becomes `tkafka server start config/server.properties --override key=value`. " +
      'The node logs to standard error.',
    description:
      'Without a file the node uses the embedded single-node configuration listed in tkafka-server.properties(5) (broker and controller on 127.0.0.1:9092 and 9093, data in ./tkafka-data). ' +
      'The storage is formatted on first start when it is not yet (as kafka-storage.sh format would). SIGTERM or SIGINT shuts the node down cleanly.',
    exit: [
      ['0', 'Clean shutdown after SIGTERM or SIGINT.'],
      [
        '1',
        'A configuration error (`Exiting Kafka due to fatal exception: ...` on standard error) or a fatal error during startup.',
      ],
    ],
    examples: [
      {
        text: 'Start a node with the embedded configuration:',
        commands: ['tkafka server start'],
        output: [
          '[2026-11-29 10:54:20.890] INFO [KafkaRaftServer nodeId=1] Kafka Server started (cluster id SeKXnl3nRsKEC5u1A-hmyw, listening on PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093)',
        ],
      },
      {
        text: 'Start from a file, overriding one setting:',
        commands: ['tkafka server start config/server.properties --override log.dirs=/var/lib/tkafka'],
      },
    ],
    seeAlso: ['tkafka-server.properties(5)', 'tkafka-storage(1)', 'tkafka-local(1)'],
  },

  'server.properties': {
    description:
      'A Java properties file (key=value lines, # comments) with the configuration of one tkafka node, read by tkafka server start. ' +
      "The keys are Apache Kafka 4.0's broker and controller keys, with the same types, defaults and validation messages; tkafka's own keys start with tkafka. " +
      'Keys tkafka does not know are reported once at startup and ignored. A known key tkafka does not act on, set to a value other than its default, stops startup when ignoring it would lift a limit or a policy, and is otherwise reported once and ignored (each entry below says which; docs/config-support.md lists them all). Settings given with --override win over the file. ' +
      'Update mode says whether kafka-configs (tkafka configs --entity-type brokers) can change a key at run time: read-only keys need a restart.',
    examples: [
      {
        text: 'A single node that is broker and controller:',
        commands: ['cat server.properties'],
        output: [
          'process.roles=broker,controller',
          'node.id=1',
          'listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
          'advertised.listeners=PLAINTEXT://127.0.0.1:9092',
          'controller.listener.names=CONTROLLER',
          'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
          'controller.quorum.voters=1@127.0.0.1:9093',
          'log.dirs=/var/lib/tkafka',
        ],
      },
    ],
  },

  topics: {
    examples: [
      {
        text: 'Create a topic with three partitions and a retention override:',
        commands: [
          `tkafka topics --bootstrap-server ${B} --create --topic orders --partitions 3 --config retention.ms=86400000`,
        ],
        output: ['Created topic orders.'],
      },
      {
        text: 'Describe it:',
        commands: [`tkafka topics --bootstrap-server ${B} --describe --topic orders`],
        output: [
          'Topic: orders\tTopicId: qzVGJtG8TLeOQJkOGmb5ow\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: retention.ms=86400000',
          '\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: ',
          '\tTopic: orders\tPartition: 1\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: ',
          '\tTopic: orders\tPartition: 2\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: ',
        ],
      },
      {
        text: 'List the topics (the cluster from TKAFKA_BOOTSTRAP_SERVER):',
        commands: ['tkafka topics --list'],
        output: ['__consumer_offsets', 'orders'],
      },
      { text: 'The same as JSON:', commands: ['tkafka topics --list --output json'] },
    ],
    exit: [
      ['0', 'Success (and --version).'],
      [
        '1',
        "A usage error or --help (on standard error), or a failed operation: Kafka's `Error while executing topic command : <message>` on standard output, or one line on standard error when the cluster cannot be reached.",
      ],
    ],
    seeAlso: ['tkafka-configs(1)', 'tkafka-get-offsets(1)'],
  },

  configs: {
    examples: [
      {
        text: 'Describe the dynamic configs of a topic:',
        commands: [`tkafka configs --bootstrap-server ${B} --entity-type topics --entity-name orders --describe`],
        output: [
          'Dynamic configs for topic orders are:',
          '  retention.ms=86400000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=86400000}',
        ],
      },
      {
        text: 'Change one:',
        commands: [
          `tkafka configs --bootstrap-server ${B} --entity-type topics --entity-name orders --alter --add-config retention.ms=3600000`,
        ],
        output: ['Completed updating config for topic orders.'],
      },
    ],
    seeAlso: ['tkafka-topics(1)', 'tkafka-server.properties(5)'],
  },

  'get-offsets': {
    examples: [
      {
        text: 'Latest offsets of every partition of a topic:',
        commands: [`tkafka get-offsets --bootstrap-server ${B} --topic perf`],
        output: ['perf:0:101968', 'perf:1:100861', 'perf:2:97171'],
      },
      {
        text: 'Earliest offsets of partitions 0 to 2 of the topics matching a pattern:',
        commands: [`tkafka get-offsets --bootstrap-server ${B} --topic-partitions 'ord.*:0-3' --time earliest`],
        output: ['orders:0:1', 'orders2:0:0', 'orders2:1:0', 'orders2:2:0'],
      },
    ],
  },

  'reassign-partitions': {
    description:
      "Moves partitions between brokers as kafka-reassign-partitions.sh does: --generate proposes an assignment (Kafka's striped, rack-aware placement: the first replica of each topic starts at a random broker, so two runs differ), " +
      '--execute starts it (printing the current assignment to keep for a rollback) and with --throttle sets the replication throttles, ' +
      '--verify reports progress and removes the throttles once nothing is moving, --cancel reverts the partitions still moving, --list shows what is moving.',
    examples: [
      {
        text: 'Move partition 0 of orders to brokers 3 and 4 at 10 MB/s, then follow it until it completes (output of the first two commands):',
        commands: [
          'echo \'{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,4]}]}\' > plan.json',
          `tkafka reassign-partitions --bootstrap-server ${B} --execute --reassignment-json-file plan.json --throttle 10000000`,
          `tkafka reassign-partitions --bootstrap-server ${B} --verify --reassignment-json-file plan.json`,
        ],
        output: [
          'Current partition replica assignment',
          '',
          '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3],"log_dirs":["/var/lib/kafka/data","/var/lib/kafka/data"]}]}',
          '',
          'Save this to use as the --reassignment-json-file option during rollback',
          'Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.',
          'The inter-broker throttle limit was set to 10000000 B/s',
          'Successfully started partition reassignment for orders-0',
          'Status of partition reassignment:',
          'Reassignment of partition orders-0 is still in progress.',
          '',
        ],
      },
      {
        text: 'The reassignments in progress:',
        commands: [`tkafka reassign-partitions --bootstrap-server ${B} --list`],
        output: ['Current partition reassignments:', 'orders-0: replicas: 3,4,2. adding: 4. removing: 2.'],
      },
    ],
    exit: [
      ['0', 'Success.'],
      [
        '1',
        'A usage error (message and help on standard error), or a failure: its message on standard output, as Kafka prints it (Kafka adds a Java stack trace; tkafka prints a stack with --debug, on standard error).',
      ],
    ],
  },

  'leader-election': {
    examples: [
      {
        text: 'Give partition 0 of orders back to its preferred leader:',
        commands: [
          `tkafka leader-election --bootstrap-server ${B} --election-type preferred --topic orders --partition 0`,
        ],
        output: ['Successfully completed leader election (PREFERRED) for partitions orders-0'],
      },
    ],
    exit: [
      ['0', 'Every election succeeded or was not needed.'],
      [
        '1',
        'A usage error, or a partition could not be elected: its line on standard output, then `N replica(s) could not be elected` on standard error.',
      ],
    ],
  },

  'delete-records': {
    examples: [
      {
        text: 'Delete the records before offset 1 of orders-0:',
        commands: [
          'echo \'{"partitions":[{"topic":"orders","partition":0,"offset":1}],"version":1}\' > del.json',
          `tkafka delete-records --bootstrap-server ${B} --offset-json-file del.json`,
        ],
        output: [
          'Executing records delete operation',
          'Records delete operation completed:',
          'partition: orders-0\tlow_watermark: 1',
        ],
      },
    ],
  },

  'client-metrics': {
    examples: [
      {
        text: 'Subscribe producers to their producer metrics every second (KIP-714 client telemetry; the broker needs tkafka.client.telemetry.enable=true to serve it):',
        commands: [
          `tkafka client-metrics --bootstrap-server ${B} --alter --name producers --metrics org.apache.kafka.producer. --interval 1000 --match 'client_software_name=apache-kafka-java'`,
        ],
        output: ['Altered client metrics config for producers.'],
      },
      {
        text: 'Describe every client metrics resource:',
        commands: [`tkafka client-metrics --bootstrap-server ${B} --describe`],
        output: [
          'Client metrics configs for producers are:',
          '  interval.ms=1000',
          '  match=client_software_name=apache-kafka-java',
          '  metrics=org.apache.kafka.producer.',
        ],
      },
    ],
    exit: [
      [
        '0',
        'The operation succeeded (describing a resource that does not exist prints a line and succeeds, as Kafka).',
      ],
      [
        '1',
        "A usage error (on standard error), or a failed operation: Kafka's `Error while executing client metrics command : <message>` on standard output.",
      ],
    ],
  },

  'broker-api-versions': {
    examples: [
      {
        text: 'The API versions of every broker (first lines):',
        commands: [`tkafka broker-api-versions --bootstrap-server ${B}`],
        output: [
          '127.0.0.1:9092 (id: 1 rack: null isFenced: false) -> (',
          '\tProduce(0): 0 to 11 [usable: 11],',
          '\tFetch(1): 4 to 17 [usable: 17],',
        ],
      },
    ],
  },

  'log-dirs': {
    examples: [
      {
        text: 'The log directories holding a topic:',
        commands: [`tkafka log-dirs --bootstrap-server ${B} --describe --topic-list orders`],
        output: [
          'Querying brokers for log directories information',
          'Received log directory information from brokers 1',
          '{"brokers":[{"broker":1,"logDirs":[{"partitions":[{"partition":"orders-0","size":89,"offsetLag":0,"isFuture":false}],"error":null,"logDir":"/var/lib/tkafka"}]}],"version":1}',
        ],
      },
    ],
  },

  cluster: {
    examples: [
      {
        text: 'The cluster id:',
        commands: [`tkafka cluster cluster-id --bootstrap-server ${B}`],
        output: ['Cluster ID: OmWBArORS6WM5KufgsBVWA'],
      },
    ],
    exit: [
      ['0', 'Success.'],
      [
        '1',
        "A parse error, -h/--help (as Kafka 4.0's kafka-cluster.sh), or a failed command (message on standard error).",
      ],
    ],
  },

  features: {
    examples: [
      {
        text: 'Supported and finalized feature levels:',
        commands: [`tkafka features --bootstrap-server ${B} describe`],
        output: [
          'Feature: group.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 1\tEpoch: 11',
          'Feature: kraft.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 1\tFinalizedVersionLevel: 0\tEpoch: 11',
          'Feature: metadata.version\tSupportedMinVersion: 3.3-IV3\tSupportedMaxVersion: 4.4-IV2\tFinalizedVersionLevel: 4.4-IV2\tEpoch: 11',
          'Feature: transaction.version\tSupportedMinVersion: 0\tSupportedMaxVersion: 2\tFinalizedVersionLevel: 2\tEpoch: 11',
        ],
      },
    ],
  },

  'metadata-quorum': {
    examples: [
      {
        text: 'The state of the KRaft quorum:',
        commands: [`tkafka metadata-quorum --bootstrap-server ${B} describe --status`],
        output: [
          'ClusterId:              OmWBArORS6WM5KufgsBVWA',
          'LeaderId:               1',
          'LeaderEpoch:            1',
          'HighWatermark:          76',
          'MaxFollowerLag:         0',
          'MaxFollowerLagTimeMs:   0',
          'CurrentVoters:          [{"id": 1, "directoryId": "aeBV0y1i8eDeJcZEzpFSRg", "endpoints": ["CONTROLLER://127.0.0.1:9093"]}]',
          'CurrentObservers:       []',
        ],
      },
    ],
  },

  storage: {
    examples: [
      {
        text: "A new cluster id, then format a node's directories with it:",
        commands: [
          'tkafka storage random-uuid',
          'tkafka storage format -t hYzhZVzwThyqjYGTrrkWyA -c server.properties',
        ],
        output: ['hYzhZVzwThyqjYGTrrkWyA'],
      },
    ],
    seeAlso: ['tkafka-server(1)', 'tkafka-server.properties(5)'],
  },

  transactions: {
    examples: [
      {
        text: 'List the transactions (the table cells end with a tab, as in Kafka):',
        commands: [`tkafka transactions --bootstrap-server ${B} list`],
        output: ['TransactionalId\tCoordinator\tProducerId\tTransactionState\t'],
      },
      {
        text: 'Find transactions left open on a broker for more than 15 minutes:',
        commands: [`tkafka transactions --bootstrap-server ${B} find-hanging --broker-id 1`],
      },
    ],
    exit: [
      ['0', 'Success.'],
      [
        '1',
        "A parse error, -h/--help (as Kafka's kafka-transactions.sh), or a failed command (message on standard error).",
      ],
    ],
  },

  'consumer-groups': {
    description:
      "tkafka adds --watch to --describe: the offsets view refreshes every N seconds (default 2) with the lag of each partition and its rate, the group's total lag, its rate (negative while the group catches up) and a sparkline, and the consume and produce rates. " +
      'On a terminal it is a live table (ink); when standard output is not a terminal, with --no-tty or NO_COLOR, each refresh prints plain logfmt lines, one per partition and one per group:\n' +
      'time=2026-11-29T10:37:59.779Z group=g1 topic=perf partition=2 current-offset=30 log-end-offset=284218 lag=284188 lag-rate=0.0 consumer-id=-\n' +
      'time=2026-11-29T10:37:59.779Z group=g1 state=Empty total-lag=866140 lag-rate=0.0 consume-rate=0.0 produce-rate=0.0\n' +
      'Rates are records per second (- until two refreshes exist). The watch stops on Ctrl-C or SIGTERM (exit 0) or when standard output closes.',
    live: true,
    environment: [['TKAFKA_WATCH_COUNT', 'With --watch: stop after this many refreshes.']],
    examples: [
      {
        text: 'The groups of the cluster:',
        commands: [`tkafka consumer-groups --bootstrap-server ${B} --list`],
        output: ['billing'],
      },
      {
        text: 'Offsets and lag of a group:',
        commands: [`tkafka consumer-groups --bootstrap-server ${B} --describe --group billing`],
        output: [
          '',
          "Consumer group 'billing' has no active members.",
          '',
          'GROUP           TOPIC           PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG             CONSUMER-ID     HOST            CLIENT-ID',
          'billing         orders          0          2               2               0               -               -               -',
        ],
      },
      {
        text: 'Watch the lag of a group change, refreshing every second (Ctrl-C to stop):',
        commands: [`tkafka consumer-groups --bootstrap-server ${B} --describe --group billing --watch 1`],
      },
      {
        text: 'Rewind a group to the beginning of a topic:',
        commands: [
          `tkafka consumer-groups --bootstrap-server ${B} --reset-offsets --group billing --topic orders --to-earliest --execute`,
        ],
        output: [
          '',
          'GROUP                          TOPIC                          PARTITION  NEW-OFFSET     ',
          'billing                        orders                         0          0              ',
        ],
      },
    ],
    exit: [
      ['0', 'Success (and --version); a --watch stopped with Ctrl-C.'],
      [
        '1',
        'A usage error or --help (on standard error); a failed command: where Kafka prints `Error: ...` on standard output and still exits 0, tkafka prints the same line, adds one on standard error and exits 1.',
      ],
    ],
    seeAlso: ['tkafka-console-consumer(1)', 'tkafka-consumer-perf-test(1)'],
  },

  'console-producer': {
    examples: [
      {
        text: 'Produce keyed records from standard input:',
        commands: [
          `printf 'k1:hello\\nk2:world\\n' | tkafka console-producer --bootstrap-server ${B} --topic orders --property parse.key=true --property key.separator=:`,
        ],
      },
    ],
    exit: [
      ['0', 'End of input reached and every record acknowledged (and --version).'],
      [
        '1',
        'A usage error or --help (on standard error), or a record that could not be delivered (one line per distinct error on standard error).',
      ],
    ],
    seeAlso: ['tkafka-console-consumer(1)', 'tkafka-producer-perf-test(1)'],
  },

  'console-consumer': {
    examples: [
      {
        text: 'Print keys and values from the beginning, then stop:',
        commands: [
          `tkafka console-consumer --bootstrap-server ${B} --topic orders --from-beginning --property print.key=true --max-messages 2`,
        ],
        output: ['k1\thello', 'k2\tworld', 'Processed a total of 2 messages'],
      },
    ],
    exit: [
      ['0', 'Success, including an end by --timeout-ms or --max-messages (and --version).'],
      ['1', 'A usage error or --help (on standard error), or a failure.'],
    ],
    seeAlso: ['tkafka-console-producer(1)', 'tkafka-consumer-groups(1)'],
  },

  'dump-log': {
    description:
      'Long runs show a progress display on standard error (ink) when standard error is a terminal and standard output is redirected (e.g. > dump.txt); it never shows when standard error is not a terminal, with --no-tty, with NO_COLOR, or with TKAFKA_PROGRESS=0. Standard output is the same either way.',
    live: true,
    environment: [['TKAFKA_PROGRESS', '0 turns the progress display off.']],
    examples: [
      {
        text: 'Dump a segment with its records:',
        commands: ['tkafka dump-log --files /var/lib/tkafka/orders-0/00000000000000000000.log --print-data-log'],
        output: [
          'Dumping /var/lib/tkafka/orders-0/00000000000000000000.log',
          'Log starting offset: 0',
          'baseOffset: 0 lastOffset: 1 count: 2 baseSequence: 0 lastSequence: 1 producerId: 0 producerEpoch: 0 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1795948935478 size: 89 magic: 2 compresscodec: none crc: 2393338625 isvalid: true',
          '| offset: 0 CreateTime: 1795948935478 keySize: 2 valueSize: 5 sequence: 0 headerKeys: [] key: k1 payload: hello',
          '| offset: 1 CreateTime: 1795948935478 keySize: 2 valueSize: 5 sequence: 1 headerKeys: [] key: k2 payload: world',
        ],
      },
      {
        text: 'One JSON object per line, for scripts:',
        commands: ['tkafka dump-log --output json --print-data-log 00000000000000000000.log'],
      },
    ],
    exit: [
      ['0', 'Success (and --version).'],
      [
        '1',
        'A usage error or --help (on standard error), or damaged input: the file, the position and the reason are reported, and the dump goes on with what can be read.',
      ],
    ],
  },

  'producer-perf-test': {
    description:
      "On a terminal (unless --no-tty or NO_COLOR) a live view shows a progress bar, the rate and the average latency while Kafka's 5-second lines print above it; piped, the output is Kafka's lines only. " +
      'bootstrap.servers may also come from TKAFKA_BOOTSTRAP_SERVER or the active profile. A record that fails prints one line per distinct error on standard error (Kafka prints a stack trace per record).',
    live: true,
    examples: [
      {
        text: 'Send 300,000 records of 100 bytes at up to 50,000 records per second:',
        commands: [
          'tkafka producer-perf-test --topic perf --num-records 300000 --record-size 100 --throughput 50000 --producer-props bootstrap.servers=localhost:9092 acks=1',
        ],
        output: [
          '113653 records sent, 22726.1 records/sec (2.17 MB/sec), 1377.0 ms avg latency, 3433.0 ms max latency.',
          '300000 records sent, 45344.619105 records/sec (4.32 MB/sec), 1168.41 ms avg latency, 3433.00 ms max latency, 1153 ms 50th, 2167 ms 95th, 3263 ms 99th, 3409 ms 99.9th.',
        ],
      },
      {
        text: 'Payloads picked at random from a file with one per line, unthrottled:',
        commands: [
          "printf 'a\\nb\\nc\\n' > /tmp/payloads.txt",
          'tkafka producer-perf-test --topic perf --num-records 1000 --payload-file /tmp/payloads.txt --throughput -1 --producer-props bootstrap.servers=localhost:9092',
        ],
        output: [
          'Reading payloads from: /tmp/payloads.txt',
          'Number of messages read: 3',
          '1000 records sent, 5649.717514 records/sec (0.01 MB/sec), 168.89 ms avg latency, 173.00 ms max latency, 169 ms 50th, 171 ms 95th, 171 ms 99th, 173 ms 99.9th.',
        ],
      },
    ],
    exit: [
      ['0', 'Every record was acknowledged; no arguments at all (help on standard output).'],
      [
        '1',
        'A parse error or -h/--help (as Kafka 4.0), a failed check (usage and message on standard error), or a record that could not be sent.',
      ],
    ],
    seeAlso: ['tkafka-consumer-perf-test(1)', 'tkafka-console-producer(1)'],
  },

  'consumer-perf-test': {
    description:
      "On a terminal (unless --no-tty or NO_COLOR) a live view shows a progress bar toward --messages with the rate; piped, the output is Kafka's lines only. " +
      'Rebalance time is the time spent without an assignment. The cluster may also come from TKAFKA_BOOTSTRAP_SERVER or the active profile.',
    live: true,
    examples: [
      {
        text: 'Consume 300,000 records from the beginning with a new group (whole fetched batches count, so a few more may be read, as in Kafka):',
        commands: [`tkafka consumer-perf-test --bootstrap-server ${B} --topic perf --messages 300000`],
        output: [
          'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
          '2026-11-29 10:43:14:048, 2026-11-29 10:43:17:748, 28.5759, 7.7232, 300130, 81116.2162, 3139, 561, 50.9374, 534991.0873',
        ],
      },
      {
        text: 'A row every second instead of the summary:',
        commands: [
          `tkafka consumer-perf-test --bootstrap-server ${B} --topic perf --messages 1000000 --show-detailed-stats --reporting-interval 1000`,
        ],
      },
    ],
    exit: [
      ['0', 'Success, also when --timeout ended the run early (a WARNING line says so), and --version.'],
      ['1', 'A usage error or --help (on standard error), or a failure (message on standard error).'],
    ],
    seeAlso: ['tkafka-producer-perf-test(1)', 'tkafka-consumer-groups(1)'],
  },

  local: {
    description:
      'Node i (1..N) gets node.id i, listens for clients on 127.0.0.1:PORT+2(i-1) and for controllers on PORT+2(i-1)+1, and keeps server.properties, its data and server.log in DIR/node-i; DIR/cluster.json records the ports and process ids. ' +
      'The storage is formatted once with one cluster id. start waits until every node answers, prints the bootstrap string on standard output and the details on standard error; it only prints the bootstrap string when the cluster already runs, and restarts a stopped cluster with its data. ' +
      'Until tkafka supports multi-node controller quorums and replication, N > 1 starts N nodes that do not form one cluster (start says so).',
    synopsis: [
      'tkafka local start [-n N] [--port PORT] [--dir DIR] [--override KEY=VALUE]... [--timeout SECONDS]',
      'tkafka local stop [--clean] [--dir DIR] [--timeout SECONDS]',
      'tkafka local status [--output text|json] [--dir DIR]',
    ],
    environment: [
      ['TKAFKA_LOCAL_DIR', 'The cluster folder when --dir is not given.'],
      ['XDG_STATE_HOME', 'The default folder is $XDG_STATE_HOME/tkafka/local (~/.local/state/tkafka/local).'],
    ],
    files: [
      ['DIR/cluster.json', 'Ports, process ids and the cluster id.'],
      ['DIR/node-i/server.properties', 'The configuration of node i.'],
      ['DIR/node-i/server.log', 'What node i printed.'],
    ],
    exit: [
      ['0', 'start: the cluster runs; stop: done; status: every node runs.'],
      ['1', 'A parse error or failure (start stops the nodes it started); status: some nodes are not running.'],
      ['3', 'status: no node is running, or there is no cluster.'],
    ],
    examples: [
      {
        text: 'Start a single-node cluster and use it:',
        commands: ['export TKAFKA_BOOTSTRAP_SERVER=$(tkafka local start)', 'tkafka topics --create --topic orders'],
        output: ['Created topic orders.'],
      },
      {
        text: 'Its state:',
        commands: ['tkafka local status'],
        output: [
          'NODE  PID    STATE    BROKER          CONTROLLER      DATA',
          '1     30633  running  127.0.0.1:9092  127.0.0.1:9093  /tmp/fh/.local/state/tkafka/local/node-1',
          'Cluster id: lRJ2znO-RC-5rsyjKknysg',
          'Bootstrap: 127.0.0.1:9092',
        ],
      },
      { text: 'Stop it and delete its data:', commands: ['tkafka local stop --clean'] },
    ],
    seeAlso: ['tkafka-server(1)', 'tkafka-server.properties(5)'],
  },

  completion: {
    description:
      'The scripts are generated from the same definitions as --help and the man pages (they are also installed under completions/ in the package). ' +
      'Beyond sub-commands and flags they complete flag values: files, fixed choices, and live topic and group names for --topic and --group, asked from the cluster named by --bootstrap-server on the line ' +
      '(or bootstrap.servers=... in perf-test properties), else TKAFKA_BOOTSTRAP_SERVER or the active profile. The lookup gives up after about a second (TKAFKA_COMPLETE_TIMEOUT_MS), so Tab never hangs.',
    environment: [['TKAFKA_COMPLETE_TIMEOUT_MS', 'How long a live name lookup may take (default 1000).']],
    exit: [
      ['0', 'The script was printed (and -h/--help).'],
      ['1', 'A parse error (e.g. an unknown shell).'],
    ],
    examples: [
      { text: 'bash (in ~/.bashrc):', commands: ['eval "$(tkafka completion bash)"'] },
      { text: 'zsh (in ~/.zshrc, after compinit):', commands: ['source <(tkafka completion zsh)'] },
      { text: 'fish:', commands: ['tkafka completion fish > ~/.config/fish/completions/tkafka.fish'] },
    ],
  },

  profile: {
    files: [['$XDG_CONFIG_HOME/tkafka/config.json', 'The profiles (default ~/.config/tkafka/config.json).']],
    environment: [['TKAFKA_PROFILE', 'Use this profile instead of the current one.']],
    examples: [
      {
        text: 'Save a cluster and make it the current one, then leave out --bootstrap-server:',
        commands: [`tkafka profile create dev --bootstrap-server ${B} --use`, 'tkafka topics --list'],
      },
      { text: 'The profiles:', commands: ['tkafka profile list'] },
    ],
  },
};
