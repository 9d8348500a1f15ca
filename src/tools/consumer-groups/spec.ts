// kafka-consumer-groups.sh's flags (org.apache.kafka.tools.consumer.group.ConsumerGroupCommand,
// Kafka 4.0) as a jopt spec table, plus tkafka's --output and --debug. Every argument is parsed as
// a String: jopt converts `--timeout`, `--to-offset`, `--shift-by` only when the command reads them.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

const NL = '\n';

/** The JSON shapes `--output json` prints, one document per run (documented in --help). */
export const JSON_SHAPES =
  'tkafka: output format: text (the default: the same lines as kafka-consumer-groups.sh), table, or json. JSON documents: ' +
  '--list {"groups":[{"group","type","state","protocolType"}]}; ' +
  '--describe (--offsets) {"groups":[{"group","state","coordinator":{"id","host","port"},"error","offsets":[{"topic","partition","leaderEpoch","currentOffset","logEndOffset","lag","consumerId","host","clientId"}]}]}; ' +
  '--describe --members {"groups":[{"group","state","error","members":[{"consumerId","groupInstanceId","host","clientId","partitions","assignment":[{"topic","partition"}],"memberEpoch","targetAssignment","upgraded"}]}]}; ' +
  '--describe --state {"groups":[{"group","coordinator","assignmentStrategy","state","members","groupEpoch","targetAssignmentEpoch","error"}]}; ' +
  '--reset-offsets {"execute","groups":[{"group","error","offsets":[{"topic","partition","newOffset"}]}]}; ' +
  '--delete {"groups":[{"group","deleted","error"}]}; --delete-offsets {"group","error","partitions":[{"topic","partition","status","error"}]}. ' +
  'Missing values are null; offsets are numbers.';

export const OUTPUT_OPTION: JoptOptionSpec = {
  names: ['output'],
  description: JSON_SHAPES,
  arg: { name: 'text|json|table' },
  extension: true,
  complete: ['text', 'json', 'table'],
};

export function consumerGroupsSpec(): JoptToolSpec {
  const options: JoptOptionSpec[] = [
    {
      names: ['bootstrap-server'],
      arg: { name: 'server to connect to' },
      complete: 'host:port',
      description:
        'The server(s) to connect to. REQUIRED for all options except for --validate-regex.' + BOOTSTRAP_HELP_SUFFIX,
    },
    { names: ['group'], arg: { name: 'group id' }, description: 'The consumer group id.' },
    {
      names: ['topic'],
      arg: { name: 'topic' },
      description:
        'The topic whose offset information should be deleted or reset. ' +
        'In `reset-offsets` case, partitions can be specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to be included. ' +
        'Reset-offsets also supports multiple topics.',
    },
    { names: ['all-topics'], description: 'Apply to all topics.' },
    { names: ['list'], description: 'List all consumer groups.' },
    {
      names: ['describe'],
      description:
        'Describe consumer group and list offset lag (number of messages not yet processed) related to given group.',
    },
    { names: ['all-groups'], description: 'Apply to all consumer groups.' },
    {
      names: ['delete'],
      description: 'Delete topic partition offsets and ownership information for one or more consumer groups.',
    },
    {
      names: ['timeout'],
      arg: { name: 'timeout (ms)', type: 'Long', defaults: [30000n] },
      description:
        'The timeout that can be set for some use cases. For example, it can be used when describing the group ' +
        'to specify the maximum amount of time in milliseconds to wait before the group stabilizes (when the group is just created, or is going through some changes).',
    },
    {
      names: ['command-config'],
      arg: { name: 'command config property file' },
      complete: 'file',
      description: 'Property file containing configs to be passed to Admin Client and Consumer.',
    },
    {
      names: ['reset-offsets'],
      description:
        'Reset offsets of consumer group. Supports one consumer group at a time, and instances should be inactive' +
        NL +
        'Has 2 execution options: --dry-run (the default) to plan which offsets to reset, and --execute to update the offsets. ' +
        NL +
        'Additionally, the --export option can be used to generate the offsets in CSV format for export to a file.' +
        NL +
        'You must choose one of the following reset specifications: --to-datetime, --by-duration, --to-earliest, ' +
        '--to-latest, --shift-by, --from-file, --to-current, --to-offset.' +
        NL +
        'To define the scope, use --all-topics or --topic. The scope must be specified unless you use --from-file.',
    },
    {
      names: ['delete-offsets'],
      description: 'Delete offsets of consumer group. Supports one consumer group at a time, and multiple topics.',
    },
    {
      names: ['dry-run'],
      description:
        'Output offset reset information without executing the operation. Supported operation: reset-offsets.',
    },
    { names: ['execute'], description: 'Execute the offset reset operation. Supported operation: reset-offsets.' },
    {
      names: ['export'],
      description:
        'Generate offset reset information in CSV format for export to a file. Supported operation: reset-offsets.',
    },
    { names: ['to-offset'], arg: { name: 'offset', type: 'Long' }, description: 'Reset offsets to a specific offset.' },
    {
      names: ['from-file'],
      arg: { name: 'path to CSV file' },
      complete: 'file',
      description: 'Reset offsets to values defined in CSV file.',
    },
    {
      names: ['to-datetime'],
      arg: { name: 'datetime' },
      description: "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDThh:mm:ss.sss'",
    },
    {
      names: ['by-duration'],
      arg: { name: 'duration' },
      description: "Reset offsets by duration from current timestamp. Format: 'PnDTnHnMnS'",
    },
    { names: ['to-earliest'], description: 'Reset offsets to earliest offset.' },
    { names: ['to-latest'], description: 'Reset offsets to latest offset.' },
    { names: ['to-current'], description: 'Reset offsets to current offset.' },
    {
      names: ['shift-by'],
      arg: { name: 'number-of-offsets', type: 'Long' },
      description: "Reset offsets shifting current offset by 'n', where 'n' can be positive or negative.",
    },
    {
      names: ['members'],
      description:
        'Describe members of the group. This option may be used with the --describe option only.' +
        NL +
        'Example: --bootstrap-server localhost:9092 --describe --group group1 --members',
    },
    {
      names: ['verbose'],
      description:
        'Provide additional information, if any, when describing the group. This option may be used with the --describe option only.',
    },
    {
      names: ['offsets'],
      description:
        'Describe the group and list all topic partitions in the group along with their offset lag. ' +
        'This is the default sub-action of and may be used with the --describe option only.' +
        NL +
        'Example: --bootstrap-server localhost:9092 --describe --group group1 --offsets',
    },
    {
      names: ['state'],
      arg: { optional: true },
      description:
        'When specified with --describe, it displays the state of the group.' +
        NL +
        'Example: --bootstrap-server localhost:9092 --describe --group group1 --state' +
        NL +
        'When specified with --list, it displays the states of the groups. It can also be used to list groups with specific states.' +
        NL +
        'Example: --bootstrap-server localhost:9092 --list --state stable,empty' +
        NL +
        'This option may be used with --describe and --list options only.',
    },
    {
      names: ['type'],
      arg: { optional: true },
      description:
        'When specified with --list, it displays the types of the groups. It can also be used to list groups with specific types.' +
        NL +
        'Example: --bootstrap-server localhost:9092 --list --type classic,consumer' +
        NL +
        'This option may be used with the --list option only.',
    },
    {
      names: ['validate-regex'],
      arg: { name: 'regex' },
      description: 'Validate the syntax of the regular expression according to the RE2 format.',
    },
    {
      names: ['watch'],
      arg: { name: 'seconds', optional: true, type: 'Double', defaults: [2] },
      extension: true,
      description:
        'tkafka: with --describe, keep refreshing the offsets view every N seconds (default 2): lag per partition, total lag and its rate, consume and produce rates. A live table on a terminal; plain logfmt lines when piped, with --no-tty or NO_COLOR. Stops on Ctrl-C.',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ];
  return {
    name: 'consumer-groups',
    kafkaScript: 'kafka-consumer-groups.sh',
    description: 'This tool helps to list, describe, delete and manage the offsets of consumer groups.',
    options,
  };
}

/** The spec used for parsing: arguments stay Strings (jopt converts them lazily, when read). */
export function parsingSpec(spec: JoptToolSpec): JoptToolSpec {
  return {
    ...spec,
    options: spec.options.map((o) =>
      o.arg?.type && o.arg.type !== 'String'
        ? { ...o, arg: { ...o.arg, type: 'String' as const, defaults: o.arg.defaults?.map(String) } }
        : o,
    ),
  };
}

/** jopt's `availableIf`: option → the options one of which must be present. */
export const AVAILABLE_IF: readonly [string, readonly string[]][] = [
  ['members', ['describe']],
  ['verbose', ['describe']],
  ['offsets', ['describe']],
  ['state', ['describe', 'list']],
  ['type', ['list']],
  ['watch', ['describe']],
];

/** The reset scenarios, in the (HashSet) order Kafka 4.0 prints them. */
export const RESET_SCENARIOS = [
  'to-offset',
  'to-current',
  'to-datetime',
  'from-file',
  'by-duration',
  'to-earliest',
  'to-latest',
  'shift-by',
] as const;
