// kafka-console-producer.sh's flags (org.apache.kafka.tools.ConsoleProducer, Kafka 4.4) as a jopt
// spec table, plus tkafka's --debug. Numeric arguments stay Strings until read, as jopt does.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

export const DEFAULT_READER = 'org.apache.kafka.tools.LineMessageReader';

const READER_PROPERTY_HELP =
  'A mechanism to pass user-defined properties in the form key=value to the message reader. This allows custom configuration for a user-defined message reader.' +
  '\nDefault properties include:' +
  '\n parse.key=false' +
  '\n parse.headers=false' +
  '\n ignore.error=false' +
  '\n key.separator=\\t' +
  '\n headers.delimiter=\\t' +
  '\n headers.separator=,' +
  '\n headers.key.separator=:' +
  '\n null.marker=   When set, any fields (key, value and headers) equal to this will be replaced by null' +
  '\nDefault parsing pattern when:' +
  '\n parse.headers=true and parse.key=true:' +
  '\n  "h1:v1,h2:v2...\\tkey\\tvalue"' +
  '\n parse.key=true:' +
  '\n  "key\\tvalue"' +
  '\n parse.headers=true:' +
  '\n  "h1:v1,h2:v2...\\tvalue"';
const ENCODING_HELP =
  '\ntkafka: key.encoding, value.encoding, headers.encoding = text (default) | base64 | hex read keys, values and header values in that encoding.';
/** --property (deprecated in Kafka 4.4 for --reader-property). */
const PROPERTY_HELP =
  `(DEPRECATED) ${READER_PROPERTY_HELP}\n This option will be removed in a future version. Use --reader-property instead.` +
  ENCODING_HELP;
const BATCH_HELP =
  'The buffer size in bytes allocated for a partition. When records are received which are smaller than this size the producer will attempt to ' +
  'optimistically group them together until this size is reached. This is the option to control batch.size in producer configs.';

export function consoleProducerSpec(): JoptToolSpec {
  const options: JoptOptionSpec[] = [
    { names: ['topic'], arg: { name: 'topic' }, description: 'REQUIRED: The topic name to produce messages to.' },
    {
      names: ['bootstrap-server'],
      arg: { name: 'server to connect to' },
      complete: 'host:port',
      description:
        'REQUIRED: The server(s) to connect to. The broker list string in the form HOST1:PORT1,HOST2:PORT2.' +
        BOOTSTRAP_HELP_SUFFIX,
    },
    {
      names: ['sync'],
      description: 'If set message send requests to the brokers are synchronously, one at a time as they arrive.',
    },
    {
      names: ['compression-codec'],
      arg: { name: 'compression-codec', optional: true },
      complete: ['none', 'gzip', 'snappy', 'lz4', 'zstd'],
      description:
        "The compression codec: either 'none', 'gzip', 'snappy', 'lz4', or 'zstd'.If specified without value, then it defaults to 'gzip'",
    },
    {
      names: ['batch-size'],
      arg: { name: 'size', type: 'Integer', defaults: [16384] },
      description: `${BATCH_HELP} Please note that this option will be replaced if max-partition-memory-bytes is also set.`,
    },
    {
      names: ['message-send-max-retries'],
      arg: { type: 'Integer', defaults: [3] },
      description:
        'Brokers can fail receiving the message for multiple reasons, and being unavailable transiently is just one of them. ' +
        'This property specifies the number of retries before the producer give up and drop this message. This is the option to control `retries` in producer configs.',
    },
    {
      names: ['retry-backoff-ms'],
      arg: { type: 'Long', defaults: [100] },
      description:
        'Before each retry, the producer refreshes the metadata of relevant topics. Since leader election takes a bit of time, ' +
        'this property specifies the amount of time that the producer waits before refreshing the metadata. This is the option to control `retry.backoff.ms` in producer configs.',
    },
    {
      names: ['timeout'],
      arg: { name: 'timeout_ms', type: 'Long', defaults: [1000] },
      description:
        'If set and the producer is running in asynchronous mode, this gives the maximum amount of time a message will queue awaiting sufficient batch size. ' +
        'The value is given in ms. This is the option to control `linger.ms` in producer configs.',
    },
    {
      names: ['request-required-acks'],
      arg: { name: 'request required acks', defaults: ['-1'] },
      description: 'The required `acks` of the producer requests',
    },
    {
      names: ['request-timeout-ms'],
      arg: { name: 'request timeout ms', type: 'Integer', defaults: [1500] },
      description: 'The ack timeout of the producer requests. Value must be non-negative and non-zero.',
    },
    {
      names: ['metadata-expiry-ms'],
      arg: { name: 'metadata expiration interval', type: 'Long', defaults: [300000] },
      description:
        "The period of time in milliseconds after which we force a refresh of metadata even if we haven't seen any leadership changes. " +
        'This is the option to control `metadata.max.age.ms` in producer configs.',
    },
    {
      names: ['max-block-ms'],
      arg: { name: 'max block on send', type: 'Long', defaults: [60000] },
      description: 'The max time that the producer will block for during a send request.',
    },
    {
      names: ['max-memory-bytes'],
      arg: { name: 'total memory in bytes', type: 'Long', defaults: [33554432] },
      description:
        'The total memory used by the producer to buffer records waiting to be sent to the server. This is the option to control `buffer.memory` in producer configs.',
    },
    {
      names: ['max-partition-memory-bytes'],
      arg: { name: 'memory in bytes per partition', type: 'Integer', defaults: [16384] },
      description: `(Deprecated) ${BATCH_HELP} This option will be removed in Apache Kafka 5.0. Use --batch-size instead.`,
    },
    {
      names: ['line-reader'],
      arg: { name: 'reader_class', defaults: [DEFAULT_READER] },
      description:
        'The class name of the class to use for reading lines from standard in. By default each line is read as a separate message.',
    },
    {
      names: ['socket-buffer-size'],
      arg: { name: 'size', type: 'Integer', defaults: [102400] },
      description:
        'The size of the tcp RECV size. This is the option to control `send.buffer.bytes` in producer configs.',
    },
    { names: ['property'], arg: { name: 'prop' }, description: PROPERTY_HELP },
    { names: ['reader-property'], arg: { name: 'prop' }, description: READER_PROPERTY_HELP + ENCODING_HELP },
    {
      names: ['reader-config'],
      arg: { name: 'config file' },
      complete: 'file',
      description:
        'Config properties file for the message reader. Note that [reader-property] takes precedence over this config.',
    },
    {
      names: ['producer-property'],
      arg: { name: 'producer_prop' },
      description:
        '(DEPRECATED) Producer config properties in the form key=value. This option will be removed in a future version. Use --command-property instead.',
    },
    {
      names: ['command-property'],
      arg: { name: 'producer_prop' },
      description: 'Producer config properties in the form key=value.',
    },
    {
      names: ['producer.config'],
      arg: { name: 'config file' },
      complete: 'file',
      description:
        '(DEPRECATED) Producer config properties file. Note that [command-property] takes precedence over this config. ' +
        'This option will be removed in a future version. Use --command-config instead.',
    },
    {
      names: ['command-config'],
      arg: { name: 'config file' },
      complete: 'file',
      description: 'Producer config properties file. Note that [command-property] takes precedence over this config.',
    },
    DEBUG_OPTION,
  ];
  return {
    name: 'console-producer',
    kafkaScript: 'kafka-console-producer.sh',
    description: 'This tool helps to read data from standard input and publish it to Kafka.',
    options,
  };
}

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

/** Kafka's ToolsUtils.validateBootstrapServer; the message (with Kafka's trailing newline) or null. */
export function bootstrapProblem(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return 'Error while validating the bootstrap address\n';
  const parts = value.includes(',') ? value.split(',') : [value];
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  const valid = parts.filter((p) => /^(?:[0-9a-zA-Z\-%._]*:\/\/)?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)/.test(p));
  if (valid.length === 0 || valid.length !== parts.length)
    return 'Please provide valid host:port like host1:9091,host2:9092\n';
  return null;
}
