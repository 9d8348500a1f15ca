// kafka-reassign-partitions.sh's flags (org.apache.kafka.tools.reassign.ReassignPartitionsCommandOptions,
// Kafka 4.4) as a jopt spec table, plus tkafka's --output and --debug; and the per-action rules of
// ReassignPartitionsCommand.validateAndParseArgs (one action; required and permitted flags).
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

export const ACTIONS = ['generate', 'execute', 'verify', 'cancel', 'list'] as const;
export type Action = (typeof ACTIONS)[number];

const OUTPUT_OPTION: JoptOptionSpec = {
  names: ['output'],
  description:
    'tkafka: output format: text (the default: the same lines as kafka-reassign-partitions.sh) or json (one document ' +
    'per run: generate {current, proposed}; execute {current, interBrokerThrottle, logDirThrottle, started, logDirMoves}; ' +
    'verify {partitions, replicas, throttlesCleared}; cancel {cancelled, logDirMoves, throttlesCleared}; list {reassignments}; ' +
    'reassignment files in Kafka\'s {"version":1,"partitions":[...]} form).',
  arg: { name: 'text|json' },
  extension: true,
  complete: ['text', 'json'],
};

export const REASSIGN_SPEC: JoptToolSpec = {
  name: 'reassign-partitions',
  kafkaScript: 'kafka-reassign-partitions.sh',
  description: 'This tool helps to move topic partitions between replicas.',
  options: [
    {
      names: ['verify'],
      description:
        'Verify if the reassignment completed as specified by the --reassignment-json-file option. If there is a throttle engaged for the replicas specified, and the rebalance has completed, the throttle will be removed',
    },
    {
      names: ['generate'],
      description:
        'Generate a candidate partition reassignment configuration. Note that this only generates a candidate assignment, it does not execute it.',
    },
    {
      names: ['execute'],
      description: 'Kick off the reassignment as specified by the --reassignment-json-file option.',
    },
    { names: ['cancel'], description: 'Cancel an active reassignment.' },
    { names: ['list'], description: 'List all active partition reassignments.' },
    {
      names: ['bootstrap-server'],
      description: 'the server(s) to use for bootstrapping.' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'Server(s) to use for bootstrapping', optional: true },
      complete: 'host:port',
    },
    {
      names: ['command-config'],
      description: 'Property file containing configs to be passed to Admin Client.',
      arg: { name: 'Admin client property file' },
      complete: 'file',
    },
    {
      names: ['reassignment-json-file'],
      description:
        'The JSON file with the partition reassignment configurationThe format to use is - \n{"partitions":\n\t[{"topic": "foo",\n\t  "partition": 1,\n\t  "replicas": [1,2,3],\n\t  "log_dirs": ["dir1","dir2","dir3"] }],\n"version":1\n}\nNote that "log_dirs" is optional. When it is specified, its length must equal the length of the replicas list. The value in this list can be either "any" or the absolution path of the log directory on the broker. If absolute log directory path is specified, the replica will be moved to the specified log directory on the broker.',
      arg: { name: 'manual assignment json file path' },
      complete: 'file',
    },
    {
      names: ['topics-to-move-json-file'],
      description:
        'Generate a reassignment configuration to move the partitions of the specified topics to the list of brokers specified by the --broker-list option. The format to use is - \n{"topics":\n\t[{"topic": "foo"},{"topic": "foo1"}],\n"version":1\n}',
      arg: { name: 'topics to reassign json file path' },
      complete: 'file',
    },
    {
      names: ['broker-list'],
      description:
        'The list of brokers to which the partitions need to be reassigned in the form "0,1,2". This is required if --topics-to-move-json-file is used to generate reassignment configuration',
      arg: { name: 'brokerlist' },
    },
    {
      names: ['bootstrap-controller'],
      description:
        'The controller to use for reassignment. By default, the tool will get the quorum controller. This option supports the actions --cancel and --list.',
      arg: { name: 'bootstrap controller to connect to', optional: true },
      complete: 'host:port',
    },
    { names: ['disable-rack-aware'], description: 'Disable rack aware replica assignment' },
    {
      names: ['throttle'],
      description:
        'The movement of partitions between brokers will be throttled to this value (bytes/sec). This option can be included with --execute when a reassignment is started, and it can be altered by resubmitting the current reassignment along with the --additional flag. The throttle rate should be at least 1 KB/s.',
      arg: { name: 'throttle', type: 'Long', defaults: [-1n] },
    },
    {
      names: ['replica-alter-log-dirs-throttle'],
      description:
        'The movement of replicas between log directories on the same broker will be throttled to this value (bytes/sec). This option can be included with --execute when a reassignment is started, and it can be altered by resubmitting the current reassignment along with the --additional flag. The throttle rate should be at least 1 KB/s.',
      arg: { name: 'replicaAlterLogDirsThrottle', type: 'Long', defaults: [-1n] },
    },
    {
      names: ['timeout'],
      description: 'The maximum time in ms to wait for log directory replica assignment to begin.',
      arg: { name: 'timeout', type: 'Long', defaults: [10000n] },
    },
    {
      names: ['additional'],
      description:
        'Execute this reassignment in addition to any other ongoing ones. This option can also be used to change the throttle of an ongoing reassignment.',
    },
    { names: ['preserve-throttles'], description: 'Do not modify broker or topic throttles.' },
    {
      names: ['disallow-replication-factor-change'],
      description:
        "Denies the ability to change a partition's replication factor as part of this reassignment through adding validation against it.",
    },
    {
      names: ['watch'],
      arg: { name: 'seconds', optional: true, type: 'Double', defaults: [2] },
      extension: true,
      description:
        'tkafka: with --list (and --bootstrap-server), keep refreshing the ongoing reassignments every N seconds (default 2) until none is left: for each replica being added, the bytes copied so far, the bytes to copy, the rate and the ETA. A live table on a terminal; plain logfmt lines when piped, with --no-tty or NO_COLOR. Stops on Ctrl-C.',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ],
};

/** validateAndParseArgs' requiredArgs. */
export const REQUIRED: Record<Action, readonly string[]> = {
  verify: ['reassignment-json-file'],
  generate: ['topics-to-move-json-file', 'broker-list'],
  execute: ['reassignment-json-file'],
  cancel: ['reassignment-json-file'],
  list: [],
};

/** tkafka's flags, allowed with every action. */
const EXTENSIONS = ['output', 'debug'];

/** validateAndParseArgs' permittedArgs (the bootstrap flag given is permitted for cancel and list). */
export function permitted(action: Action, bootstrapController: boolean): readonly string[] {
  const bootstrap = bootstrapController ? 'bootstrap-controller' : 'bootstrap-server';
  switch (action) {
    case 'verify':
      return ['bootstrap-server', 'command-config', 'preserve-throttles', ...EXTENSIONS];
    case 'generate':
      return ['bootstrap-server', 'broker-list', 'command-config', 'disable-rack-aware', ...EXTENSIONS];
    case 'execute':
      return [
        'additional',
        'bootstrap-server',
        'command-config',
        'throttle',
        'replica-alter-log-dirs-throttle',
        'timeout',
        'disallow-replication-factor-change',
        ...EXTENSIONS,
      ];
    case 'cancel':
      return [bootstrap, 'command-config', 'preserve-throttles', 'timeout', ...EXTENSIONS];
    case 'list':
      return bootstrapController
        ? [bootstrap, 'command-config', ...EXTENSIONS]
        : [bootstrap, 'command-config', 'watch', ...EXTENSIONS];
  }
}
