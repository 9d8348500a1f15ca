// kafka-streams-groups.sh's flags (org.apache.kafka.tools.streams.StreamsGroupCommandOptions,
// Kafka 4.4, read with javap: the stored upstream source is not 4.4's) as a jopt spec table, plus
// tkafka's --output and --debug. Arguments are parsed as Strings: jopt converts `--timeout`,
// `--to-offset` and `--shift-by` only when the command reads them.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

const NL = '\n';

/** The JSON shapes `--output json` prints, one document per run (documented in --help). */
export const JSON_SHAPES =
  'tkafka: output format: text (the default: the same lines as kafka-streams-groups.sh), table, or json. JSON documents: ' +
  '--list {"groups":[{"group","state"}]}; ' +
  '--describe (--offsets) {"groups":[{"group","state","error","offsets":[{"topic","partition","currentOffset","leaderEpoch","logEndOffset","lag"}]}]}; ' +
  '--describe --members {"groups":[{"group","state","error","targetAssignmentEpoch","topologyEpoch","members":[{"memberId","processId","clientId","memberEpoch","isClassic","assignment","targetAssignment"}]}]} ' +
  '(assignments {"active","standby","warmup":[{"subtopologyId","partitions"}]}); ' +
  '--describe --state {"groups":[{"group","coordinator":{"id","host","port"},"assignor","state","groupEpoch","targetAssignmentEpoch","members","error"}]}; ' +
  '--describe --topology {"groups":[{"group","status","topology","text"}]}; ' +
  '--reset-offsets {"execute","groups":[{"group","error","offsets":[{"topic","partition","newOffset"}]}]}; ' +
  '--delete {"groups":[{"group","deleted","error"}]}; --delete-offsets {"group","error","partitions":[{"topic","partition","error"}]}. ' +
  'Missing values are null; offsets are numbers.';

export const OUTPUT_OPTION: JoptOptionSpec = {
  names: ['output'],
  description: JSON_SHAPES,
  arg: { name: 'text|json|table' },
  extension: true,
  complete: ['text', 'json', 'table'],
};

export function streamsGroupsSpec(): JoptToolSpec {
  const options: JoptOptionSpec[] = [
    {
      names: ['bootstrap-server'],
      arg: { name: 'server to connect to' },
      complete: 'host:port',
      description: 'REQUIRED: The server(s) to connect to.' + BOOTSTRAP_HELP_SUFFIX,
    },
    { names: ['group'], arg: { name: 'group id' }, description: 'The streams group id.' },
    {
      names: ['input-topic'],
      arg: { name: 'topic' },
      description:
        'The input topic whose committed offset should be deleted or reset. In --reset-offsets case, partitions can be ' +
        'specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to be included. Multiple input ' +
        'topics can be specified. Supported operations: delete-offsets, reset-offsets.',
    },
    {
      names: ['all-input-topics'],
      description:
        'Consider all input topics used in the topology of the group. Supported operations: delete-offsets, reset-offsets.',
    },
    { names: ['list'], description: 'List all streams groups.' },
    { names: ['describe'], description: 'Describe streams group and list offset lag related to given group.' },
    { names: ['all-groups'], description: 'Apply to all streams groups.' },
    {
      names: ['delete'],
      description: 'Delete topic partition offsets and ownership information for one or more streams groups.',
    },
    {
      names: ['delete-offsets'],
      description: 'Delete offsets of streams group. Supports one streams group at a time, and multiple topics.',
    },
    {
      names: ['timeout'],
      arg: { name: 'timeout (ms)', type: 'Long', defaults: [30000n] },
      description:
        'The timeout that can be set for some use cases. For example, it can be used when describing the group ' +
        'to specify the maximum amount of time in milliseconds to wait before the group stabilizes.',
    },
    {
      names: ['command-config'],
      arg: { name: 'command config property file' },
      complete: 'file',
      description: 'Property file containing configs to be passed to Admin Client.',
    },
    {
      names: ['state'],
      arg: { optional: true },
      description:
        'When specified with --list, it displays the state of all groups. It can also be used to list groups with ' +
        'specific states. Valid values are Empty, NotReady, Stable, Assigning, Reconciling, and Dead.',
    },
    {
      names: ['members'],
      description: 'Describe members of the group. This option may be used with the --describe option only.',
    },
    {
      names: ['offsets'],
      description:
        'Describe the group and list all topic partitions in the group along with their offset information.' +
        'This is the default sub-action and may be used with the --describe option only.',
    },
    {
      names: ['topology'],
      description:
        "Describe the topology of the streams group, as recorded by the broker's topology description plugin. " +
        "This option may be used with the '--describe' option only.",
    },
    {
      names: ['reset-offsets'],
      description:
        'Reset offsets of streams group. The instances should be inactive.' +
        NL +
        'Has 2 execution options: --dry-run to plan which offsets to reset, and --execute to update the offsets.' +
        NL +
        'If you use --execute, all internal topics linked to the group will also be deleted.' +
        NL +
        'Additionally, the --export option can be used to generate the offsets in CSV format for export to a file.' +
        NL +
        'You must choose one of the following reset specifications: --to-datetime, --by-duration, --to-earliest, ' +
        '--to-latest, --shift-by, --from-file, --to-current, --to-offset.' +
        NL +
        'To define the scope, use --all-input-topics or --input-topic. The scope must be specified unless you use --from-file.' +
        NL +
        'Fails if neither --dry-run nor --execute is specified.',
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
      names: ['delete-internal-topic'],
      arg: {},
      description:
        'Delete specified internal topic of the streams group. Supported operation: reset-offsets.' +
        'This option is applicable only when --execute is used.',
    },
    {
      names: ['delete-all-internal-topics'],
      description:
        'Delete all internal topics linked to the streams group. Supported operations: reset-offsets, delete.' +
        'With reset-offsets, this option is applicable only when --execute is used.',
    },
    {
      names: ['verbose'],
      description:
        'Use with --describe --state to show group epoch and target assignment epoch.' +
        NL +
        'Use with --describe --members to show for each member the member epoch, target assignment epoch, current ' +
        'assignment, target assignment, and whether member is still using the classic rebalance protocol.' +
        NL +
        'Use with --describe --offsets and --describe to show leader epochs for each partition.',
    },
    {
      names: ['dry-run'],
      description: 'Only show results without executing changes on streams group. Supported operation: reset-offsets.',
    },
    { names: ['execute'], description: 'Execute the offset reset operation. Supported operation: reset-offsets.' },
    {
      names: ['export'],
      description:
        'Generate offset reset information in CSV format for export to a file. Supported operation: reset-offsets.',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ];
  return {
    name: 'streams-groups',
    kafkaScript: 'kafka-streams-groups.sh',
    description: 'This tool helps to list, describe, delete and manage the offsets of streams groups.',
    options,
  };
}

/** jopt's `availableIf` (Kafka 4.4's parser): option → the options one of which must be present. */
export const AVAILABLE_IF: readonly [string, readonly string[]][] = [
  ['members', ['describe']],
  ['offsets', ['describe']],
  ['topology', ['describe']],
  ['state', ['describe', 'list']],
  ['verbose', ['describe']],
];

/** allResetOffsetScenarioOpts. */
export const RESET_SCENARIOS = [
  'to-offset',
  'shift-by',
  'to-datetime',
  'by-duration',
  'to-earliest',
  'to-latest',
  'to-current',
  'from-file',
] as const;
