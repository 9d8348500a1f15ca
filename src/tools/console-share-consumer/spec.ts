// kafka-console-share-consumer.sh's flags (org.apache.kafka.tools.consumer.ConsoleShareConsumerOptions,
// Kafka 4.4) as a jopt spec table, plus tkafka's --debug. Numeric arguments are kept as Strings
// and converted when read, as jopt does.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';
import { DEFAULT_FORMATTER } from '../console-consumer/spec.js';

const FORMATTER_PROPERTY_HELP =
  'The properties to initialize the message formatter. Default properties include: \n' +
  ' print.timestamp=true|false\n' +
  ' print.key=true|false\n' +
  ' print.offset=true|false\n' +
  ' print.delivery=true|false\n' +
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

export function consoleShareConsumerSpec(): JoptToolSpec {
  const options: JoptOptionSpec[] = [
    { names: ['topic'], arg: { name: 'topic' }, description: 'The topic to consume from.' },
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
      names: ['consumer-config'],
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
      description: 'The name of a class to use for formatting Kafka messages for display.',
    },
    {
      names: ['property'],
      arg: { name: 'prop' },
      description: `(DEPRECATED) ${FORMATTER_PROPERTY_HELP} \nThis option will be removed in a future version. Use --formatter-property instead.`,
    },
    { names: ['formatter-property'], arg: { name: 'prop' }, description: FORMATTER_PROPERTY_HELP },
    {
      names: ['formatter-config'],
      arg: { name: 'config file' },
      complete: 'file',
      description:
        'Config properties file to initialize the message formatter. Note that [formatter-property] takes precedence over this config.',
    },
    {
      names: ['max-messages'],
      arg: { name: 'num_messages', type: 'Integer' },
      description: 'The maximum number of messages to consume before exiting. If not set, consumption is continual.',
    },
    {
      names: ['timeout-ms'],
      arg: { name: 'timeout_ms', type: 'Integer' },
      description: 'If specified, exit if no message is available for consumption for the specified interval.',
    },
    { names: ['reject'], description: 'If specified, messages are rejected as they are consumed.' },
    { names: ['release'], description: 'If specified, messages are released as they are consumed.' },
    {
      names: ['reject-message-on-error'],
      description: 'If there is an error when processing a message, reject it instead of halting.',
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
        'Log lifecycle events of the share consumer in addition to logging consumed messages. (This is specific for system tests.)',
    },
    { names: ['group'], arg: { name: 'share group id' }, description: 'The share group id of the consumer.' },
    DEBUG_OPTION,
  ];
  return {
    name: 'console-share-consumer',
    kafkaScript: 'kafka-console-share-consumer.sh',
    description: 'This tool helps to read data from Kafka topics using share groups and outputs it to standard output.',
    options,
  };
}
