// kafka-topics.sh's flags (org.apache.kafka.tools.TopicCommand, Kafka 4.0) as a jopt spec table,
// plus tkafka's --output and --debug. The --config help lists the topic config names; that list
// is only loaded when help is printed.
import { COMMAND_CONFIG_OPTION, type JoptOptionSpec, type JoptToolSpec } from '../common/jopt.js';
import { OUTPUT_HELP } from '../common/output.js';

const CONFIGS_TOOL = ' (To alter topic configurations, the kafka-configs tool can be used.)';

export const BOOTSTRAP_HELP_SUFFIX =
  ' (tkafka: may be omitted when TKAFKA_BOOTSTRAP_SERVER is set or a profile is active; precedence: this flag > TKAFKA_BOOTSTRAP_SERVER > profile)';

export const OUTPUT_OPTION: JoptOptionSpec = {
  names: ['output'],
  description: `tkafka: ${OUTPUT_HELP}`,
  arg: { name: 'text|json|table' },
  extension: true,
  complete: ['text', 'json', 'table'],
};
export const DEBUG_OPTION: JoptOptionSpec = {
  names: ['debug'],
  description: 'tkafka: show stack traces and connection details on errors.',
  extension: true,
};

function configHelp(configNames: readonly string[]): string {
  return (
    'A topic configuration override for the topic being created. The following is a list of valid configurations: \n' +
    configNames.map((n) => `\t${n}`).join('\n') +
    '\n' +
    'See the Kafka documentation for full details on the topic configs. It is supported only in combination with --create.' +
    CONFIGS_TOOL
  );
}

export function topicsSpec(configNames: readonly string[] = []): JoptToolSpec {
  const opts: JoptOptionSpec[] = [
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED: The Kafka server to connect to.' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'server to connect to' },
      complete: 'host:port',
    },
    COMMAND_CONFIG_OPTION,
    { names: ['list'], description: 'List all available topics.' },
    { names: ['create'], description: 'Create a new topic.' },
    { names: ['delete'], description: 'Delete a topic.' },
    { names: ['alter'], description: 'Alter the number of partitions and replica assignment.' + CONFIGS_TOOL },
    { names: ['describe'], description: 'List details for the given topics.' },
    {
      names: ['topic'],
      arg: { name: 'topic' },
      description:
        'The topic to create, alter, describe or delete. It also accepts a regular expression, except for --create option. ' +
        'Put topic name in double quotes and use the \'\\\' prefix to escape regular expression symbols; e.g. "test\\.topic".',
    },
    { names: ['topic-id'], description: 'The topic-id to describe.', arg: { name: 'topic-id' } },
    { names: ['config'], description: configHelp(configNames), arg: { name: 'name=value' } },
    {
      names: ['delete-config'],
      description: 'This option is no longer supported and has been deprecated since 4.0',
      arg: { name: 'name' },
    },
    {
      names: ['partitions'],
      arg: { name: '# of partitions', type: 'Integer' },
      description:
        'The number of partitions for the topic being created or altered. If not supplied with --create, the topic uses the cluster default. ' +
        '(WARNING: If partitions are increased for a topic that has a key, the partition logic or ordering of the messages will be affected).',
    },
    {
      names: ['replication-factor'],
      arg: { name: 'replication factor', type: 'Integer' },
      description:
        'The replication factor for each partition in the topic being created. If not supplied, the topic uses the cluster default.',
    },
    {
      names: ['replica-assignment'],
      description: 'A list of manual partition-to-broker assignments for the topic being created or altered.',
      arg: {
        name: 'broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , broker_id_for_part2_replica1 : broker_id_for_part2_replica2 , ...',
      },
    },
    {
      names: ['under-replicated-partitions'],
      description: 'If set when describing topics, only show under-replicated partitions.',
    },
    {
      names: ['unavailable-partitions'],
      description: 'If set when describing topics, only show partitions whose leader is not available.',
    },
    {
      names: ['under-min-isr-partitions'],
      description:
        'If set when describing topics, only show partitions whose isr count is less than the configured minimum.',
    },
    {
      names: ['at-min-isr-partitions'],
      description:
        'If set when describing topics, only show partitions whose isr count is equal to the configured minimum.',
    },
    {
      names: ['topics-with-overrides'],
      description: 'If set when describing topics, only show topics that have overridden configs.',
    },
    {
      names: ['if-exists'],
      description:
        'If set when altering or deleting or describing topics, the action will only execute if the topic exists.',
    },
    {
      names: ['if-not-exists'],
      description:
        'If set when creating topics, the create request will not fail if the topic already exists, but the request will still be sent.',
    },
    {
      names: ['exclude-internal'],
      description:
        'Exclude internal topics when listing or describing topics. By default, the internal topics are included.',
    },
    {
      names: ['partition-size-limit-per-response'],
      description: 'The maximum partition size to be included in one DescribeTopicPartitions response.',
      arg: { name: 'maximum number of partitions per response', type: 'Integer' },
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ];
  return {
    name: 'topics',
    kafkaScript: 'kafka-topics.sh',
    description: 'This tool helps to create, delete, describe, or change a topic.',
    options: opts,
  };
}

/** The spec with the topic config names in --config's help (what --help prints). */
export async function fullTopicsSpec(): Promise<JoptToolSpec> {
  const { TOPIC_CONFIG_KEYS } = await import('../../config/topic-configs.js');
  // LogConfig.configNames() of Kafka 4.0 no longer lists the deprecated no-op key.
  return topicsSpec(
    TOPIC_CONFIG_KEYS.map((k) => k.name)
      .filter((n) => n !== 'message.downconversion.enable')
      .sort(),
  );
}

/**
 * The spec used for parsing: every argument kept as a String. jopt-simple converts an argument
 * only when the tool asks for its value, so a bad number surfaces late (e.g. after the
 * can't-be-used-with checks, as `Cannot parse argument 'x' of option partitions`).
 */
export function parsingSpec(spec: JoptToolSpec): JoptToolSpec {
  return {
    ...spec,
    options: spec.options.map((o) =>
      o.arg?.type && o.arg.type !== 'String' ? { ...o, arg: { ...o.arg, type: 'String' as const } } : o,
    ),
  };
}

/** jopt's lazy conversion of an Integer option's value. */
export function intValue(
  value: string | undefined,
  option: string,
  fail: (message: string) => Error,
): number | undefined {
  if (value === undefined) return undefined;
  const n = /^[+-]?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < -2147483648 || n > 2147483647)
    throw fail(`Cannot parse argument '${value}' of option ${option}`);
  return n;
}
