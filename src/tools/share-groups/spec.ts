// kafka-share-groups.sh's flags (org.apache.kafka.tools.consumer.group.ShareGroupCommandOptions,
// Kafka 4.4) as a jopt spec table, plus tkafka's --output and --debug. Arguments are parsed as
// Strings: jopt converts `--timeout` and `--to-offset` only when the command reads them.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

const NL = '\n';

/** The JSON shapes `--output json` prints, one document per run (documented in --help). */
export const JSON_SHAPES =
  'tkafka: output format: text (the default: the same lines as kafka-share-groups.sh), table, or json. JSON documents: ' +
  '--list {"groups":[{"group","state"}]}; ' +
  '--describe (--offsets) {"groups":[{"group","state","error","offsets":[{"topic","partition","leaderEpoch","startOffset","lag"}]}]}; ' +
  '--describe --members {"groups":[{"group","state","error","members":[{"consumerId","host","clientId","partitions","memberEpoch","assignment":[{"topic","partition"}]}]}]}; ' +
  '--describe --state {"groups":[{"group","coordinator":{"id","host","port"},"state","groupEpoch","assignmentEpoch","members","error"}]}; ' +
  '--reset-offsets {"execute","groups":[{"group","offsets":[{"topic","partition","newOffset"}]}]}; ' +
  '--delete {"groups":[{"group","deleted","error"}]}; --delete-offsets {"group","error","topics":[{"topic","status","error"}]}. ' +
  'Missing values are null; offsets are numbers.';

export const OUTPUT_OPTION: JoptOptionSpec = {
  names: ['output'],
  description: JSON_SHAPES,
  arg: { name: 'text|json|table' },
  extension: true,
  complete: ['text', 'json', 'table'],
};

export function shareGroupsSpec(): JoptToolSpec {
  const options: JoptOptionSpec[] = [
    {
      names: ['bootstrap-server'],
      arg: { name: 'server to connect to' },
      complete: 'host:port',
      description: 'REQUIRED: The server(s) to connect to.' + BOOTSTRAP_HELP_SUFFIX,
    },
    { names: ['group'], arg: { name: 'group id' }, description: 'The share group id.' },
    {
      names: ['topic'],
      arg: { name: 'topic' },
      description:
        'The topic whose offset information should be deleted or reset. When resetting offsets, partitions can be ' +
        'specified using this format: `topic:0,1,2`, where 0,1,2 are the partitions to be included.',
    },
    { names: ['all-topics'], description: 'Apply to all topics. Supported operation: reset-offsets.' },
    { names: ['list'], description: 'List all share groups.' },
    { names: ['describe'], description: 'Describe share group, members and offset information.' },
    { names: ['all-groups'], description: 'Apply to all share groups.' },
    { names: ['delete'], description: 'Delete share group.' },
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
      names: ['reset-offsets'],
      description:
        'Reset offsets of share group. Supports one share group at a time, and instances must be inactive.' +
        NL +
        'Has 2 execution options: --dry-run to plan which offsets to reset, and --execute to reset the offsets. ' +
        NL +
        'Additionally, the --export option can be used to generate the offsets in CSV format for export to a file.' +
        NL +
        'You must choose one of the following reset specifications: --to-datetime, --to-earliest, --to-latest, ' +
        '--from-file, --to-current, --to-offset.' +
        NL +
        'To define the scope, use --all-topics or --topic. The scope must be specified unless you use --from-file.' +
        NL +
        'Fails if neither --dry-run nor --execute is specified.',
    },
    {
      names: ['delete-offsets'],
      description: 'Delete offsets of share group. Supports one share group at a time, and multiple topics.',
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
    { names: ['to-earliest'], description: 'Reset offsets to earliest offset.' },
    { names: ['to-latest'], description: 'Reset offsets to latest offset.' },
    { names: ['to-current'], description: 'Reset offsets to current offset.' },
    {
      names: ['members'],
      description: 'Describe members of the group. This option may be used with the --describe option only.',
    },
    {
      names: ['offsets'],
      description:
        'Describe the group and list all topic partitions in the group along with their offset information. ' +
        'This is the default sub-action and may be used with the --describe option only.',
    },
    {
      names: ['state'],
      arg: { optional: true },
      description:
        'When specified with --describe, it displays the state of the group.' +
        NL +
        'When specified with --list, it displays the state of all groups. It can also be used to list groups with specific states. ' +
        'Valid values are Empty, Stable and Dead.',
    },
    {
      names: ['verbose'],
      description:
        'Provide additional information, if any, when describing the group. This option may be used with the --describe option only.',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ];
  return {
    name: 'share-groups',
    kafkaScript: 'kafka-share-groups.sh',
    description: 'This tool helps to list, describe, delete and manage the offsets of share groups.',
    options,
  };
}

/** jopt's `availableIf`: option → the options one of which must be present. */
export const AVAILABLE_IF: readonly [string, readonly string[]][] = [
  ['members', ['describe']],
  ['offsets', ['describe']],
  ['state', ['describe', 'list']],
  ['verbose', ['describe']],
];

/** The reset scenarios (allResetOffsetsScenarioOpts). */
export const RESET_SCENARIOS = [
  'to-offset',
  'to-datetime',
  'to-earliest',
  'to-latest',
  'to-current',
  'from-file',
] as const;
