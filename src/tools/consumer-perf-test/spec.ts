// kafka-consumer-perf-test.sh's flags (org.apache.kafka.tools.ConsumerPerformance, Kafka 4.4) as a
// jopt spec table: the parser, --help, man page and completions all come from it.
import type { JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX } from '../topics/spec.js';

export const DEFAULT_DATE_FORMAT = 'yyyy-MM-dd HH:mm:ss:SSS';

/** The default group: `perf-consumer-<0..99999>` (a new one per run, as Kafka's Random). */
export const defaultGroup = (): string => `perf-consumer-${Math.floor(Math.random() * 100_000)}`;

export function consumerPerfSpec(group = 'perf-consumer-<random 0..99999>'): JoptToolSpec {
  return {
    name: 'consumer-perf-test',
    kafkaScript: 'kafka-consumer-perf-test.sh',
    description: 'This tool is used to verify the consumer performance.',
    options: [
      {
        names: ['bootstrap-server'],
        description: 'REQUIRED: The server(s) to connect to.' + BOOTSTRAP_HELP_SUFFIX,
        arg: { name: 'server to connect to' },
        complete: 'host:port',
      },
      { names: ['topic'], description: 'The topic to consume from.', arg: { name: 'topic' } },
      {
        names: ['include'],
        description: 'Regular expression specifying list of topics to include for consumption.',
        arg: { name: 'Java regex (String)' },
      },
      { names: ['group'], description: 'The group id to consume on.', arg: { name: 'gid', defaults: [group] } },
      {
        names: ['fetch-size'],
        description: 'The maximum amount of data to fetch from a single partition per request.',
        arg: { name: 'size', type: 'Integer', defaults: [1024 * 1024] },
      },
      {
        names: ['command-property'],
        description:
          'Kafka consumer related configuration properties like client.id. These configs take precedence over those passed via --command-config or --consumer.config.',
        arg: { name: 'prop1=val1' },
      },
      {
        names: ['from-latest'],
        description:
          'If the consumer does not already have an established offset to consume from, start with the latest record present in the log rather than the earliest record.',
      },
      {
        names: ['socket-buffer-size'],
        description: 'The size of the tcp RECV size.',
        arg: { name: 'size', type: 'Integer', defaults: [2 * 1024 * 1024] },
      },
      {
        names: ['consumer.config'],
        description:
          '(DEPRECATED) Consumer config properties file. This option will be removed in a future version. Use --command-config instead.',
        arg: { name: 'config file' },
        complete: 'file',
      },
      {
        names: ['command-config'],
        description: 'Config properties file.',
        arg: { name: 'config file' },
        complete: 'file',
      },
      { names: ['print-metrics'], description: 'Print out the metrics.' },
      {
        names: ['show-detailed-stats'],
        description: 'If set, stats are reported for each reporting interval as configured by reporting-interval.',
      },
      {
        names: ['timeout'],
        description: 'The maximum allowed time in milliseconds between returned records.',
        arg: { name: 'milliseconds', type: 'Long', optional: true, defaults: [10_000n] },
      },
      {
        names: ['messages'],
        description:
          '(DEPRECATED) The number of records to consume. This option will be removed in a future version. Use --num-records instead.',
        arg: { name: 'count', type: 'Long' },
      },
      {
        names: ['num-records'],
        description: 'REQUIRED: The number of records to consume.',
        arg: { name: 'count', type: 'Long' },
      },
      {
        names: ['reporting-interval'],
        description: 'Interval in milliseconds at which to print progress info.',
        arg: { name: 'interval_ms', type: 'Long', defaults: [5000n] },
      },
      {
        names: ['date-format'],
        description:
          'The date format to use for formatting the time field. See java.text.SimpleDateFormat for options.',
        arg: { name: 'date format', defaults: [DEFAULT_DATE_FORMAT] },
      },
      { names: ['hide-header'], description: 'If set, skips printing the header for the stats.' },
    ],
  };
}

/** The spec as documented (man page, completions). */
export const CONSUMER_PERF_SPEC: JoptToolSpec = consumerPerfSpec();
