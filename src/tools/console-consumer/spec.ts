// kafka-console-consumer.sh's flags (org.apache.kafka.tools.consumer.ConsoleConsumerOptions,
// Kafka 4.4) as a jopt spec table, plus tkafka's --output and --debug. Numeric arguments are kept
// as Strings and converted when read, as jopt does.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

export const DEFAULT_FORMATTER = 'org.apache.kafka.tools.consumer.DefaultMessageFormatter';

const FORMATTER_PROPERTY_HELP =
  'The properties to initialize the message formatter. Default properties include: \n' +
  ' print.timestamp=true|false\n' +
  ' print.key=true|false\n' +
  ' print.offset=true|false\n' +
  ' print.epoch=true|false\n' +
  ' print.partition=true|false\n' +
  ' print.headers=true|false\n' +
  ' print.value=true|false\n' +
  ' key.separator=<key.separator>\n' +
  ' line.separator=<line.separator>\n' +
  ' headers.separator=<headers.separator>\n' +
  ' null.literal=<null.literal>\n' +
  ' key.deserializer=<key.deserializer>\n' +
  ' value.deserializer=<value.deserializer>\n' +
  ' header.deserializer=<header.deserializer>\n' +
  "\nUsers can also pass in customized properties for their formatter; more specifically, users can pass in properties keyed with 'key.deserializer.', " +
  "'value.deserializer.' and 'headers.deserializer.' prefixes to configure their deserializers.";
const ENCODING_HELP =
  '\ntkafka: key.encoding, value.encoding, headers.encoding = text (default: the bytes as they are) | base64 | hex print keys, values and header values encoded.';
/** --property (deprecated in Kafka 4.4 for --formatter-property). */
const PROPERTY_HELP =
  `(DEPRECATED) ${FORMATTER_PROPERTY_HELP} \nThis option will be removed in a future version. Use --formatter-property instead.` +
  ENCODING_HELP;

export function consoleConsumerSpec(): JoptToolSpec {
  const options: JoptOptionSpec[] = [
    { names: ['topic'], arg: { name: 'topic' }, description: 'The topic to consume from.' },
    {
      names: ['include'],
      arg: { name: 'Java regex (String)' },
      description: 'Regular expression specifying list of topics to include for consumption.',
    },
    {
      names: ['partition'],
      arg: { name: 'partition', type: 'Integer' },
      description:
        "The partition to consume from. Consumption starts from the end of the partition unless '--offset' is specified.",
    },
    {
      names: ['offset'],
      arg: { name: 'consume offset', defaults: ['latest'] },
      description:
        "The offset to consume from (a non-negative number), or 'earliest' which means from beginning, or 'latest' which means from end",
    },
    {
      names: ['consumer-property'],
      arg: { name: 'consumer_prop' },
      description:
        '(DEPRECATED) Consumer config properties in the form key=value. This option will be removed in a future version. Use --command-property instead.',
    },
    {
      names: ['command-property'],
      arg: { name: 'consumer_prop' },
      description: 'Consumer config properties in the form key=value.',
    },
    {
      names: ['consumer.config'],
      arg: { name: 'config file' },
      complete: 'file',
      description:
        '(DEPRECATED) Consumer config properties file. Note that [command-property] takes precedence over this config. ' +
        'This option will be removed in a future version. Use --command-config instead.',
    },
    {
      names: ['command-config'],
      arg: { name: 'config file' },
      complete: 'file',
      description: 'Consumer config properties file. Note that [command-property] takes precedence over this config.',
    },
    {
      names: ['formatter'],
      arg: { name: 'class', defaults: [DEFAULT_FORMATTER] },
      description: 'The name of a class to use for formatting kafka messages for display.',
    },
    { names: ['property'], arg: { name: 'prop' }, description: PROPERTY_HELP },
    { names: ['formatter-property'], arg: { name: 'prop' }, description: FORMATTER_PROPERTY_HELP + ENCODING_HELP },
    {
      names: ['formatter-config'],
      arg: { name: 'config file' },
      complete: 'file',
      description:
        'Config properties file to initialize the message formatter. Note that [formatter-property] takes precedence over this config.',
    },
    {
      names: ['from-beginning'],
      description:
        'If the consumer does not already have an established offset to consume from, start with the earliest message present in the log rather than the latest message.',
    },
    {
      names: ['max-messages'],
      arg: { name: 'num_messages', type: 'Integer' },
      description: 'The maximum number of messages to consume before exiting. If not set, consumption is continual.',
    },
    {
      names: ['timeout-ms'],
      arg: { name: 'timeout_ms', type: 'Long' },
      description: 'If specified, exit if no message is available for consumption for the specified interval.',
    },
    {
      names: ['skip-message-on-error'],
      description: 'If there is an error when processing a message, skip it instead of halt.',
    },
    {
      names: ['bootstrap-server'],
      arg: { name: 'server to connect to' },
      complete: 'host:port',
      description: 'REQUIRED: The server(s) to connect to.' + BOOTSTRAP_HELP_SUFFIX,
    },
    {
      names: ['key-deserializer'],
      arg: { name: 'deserializer for keys' },
      description: 'The name of the class to use for deserializing keys.',
    },
    {
      names: ['value-deserializer'],
      arg: { name: 'deserializer for values' },
      description: 'The name of the class to use for deserializing values.',
    },
    {
      names: ['enable-systest-events'],
      description:
        'Log lifecycle events of the consumer in addition to logging consumed messages. (This is specific for system tests.)',
    },
    {
      names: ['isolation-level'],
      arg: { defaults: ['read_uncommitted'] },
      complete: ['read_committed', 'read_uncommitted'],
      description:
        'Set to read_committed in order to filter out transactional messages which are not committed. Set to read_uncommitted to read all messages.',
    },
    { names: ['group'], arg: { name: 'consumer group id' }, description: 'The consumer group id of the consumer.' },
    {
      names: ['output'],
      arg: { name: 'text|json|table' },
      extension: true,
      complete: ['text', 'json', 'table'],
      description:
        "tkafka: output format. text (the default): the formatter's output, as kafka-console-consumer.sh. json: one JSON object per record and line: " +
        '{"topic","partition","offset","timestamp","timestampType","leaderEpoch","headers":[{"key","value","valueEncoding"}],"key","keyEncoding","value","valueEncoding"} ' +
        '(encodings utf8, base64 or hex; bytes that are not UTF-8 are base64). table: the records as a table once consumption ends.',
    },
    DEBUG_OPTION,
  ];
  return {
    name: 'console-consumer',
    kafkaScript: 'kafka-console-consumer.sh',
    description: 'This tool helps to read data from Kafka topics and outputs it to standard output.',
    options,
  };
}

/** Parsing keeps arguments as Strings; Integer/Long conversions happen when the tool reads them. */
export function parsingSpec(spec: JoptToolSpec): JoptToolSpec {
  return {
    ...spec,
    options: spec.options.map((o) =>
      o.arg?.type && o.arg.type !== 'String' ? { ...o, arg: { ...o.arg, type: 'String' as const } } : o,
    ),
  };
}

/** Kafka's CommandLineUtils.parseKeyValueArgs: split at the first `=`; no `=` gives an empty value. */
export function parseKeyValueArgs(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of args) {
    const i = a.indexOf('=');
    if (i < 0) out.set(a, '');
    else out.set(a.slice(0, i), a.slice(i + 1));
  }
  return out;
}
