// kafka-consumer-perf-test.sh's flags (org.apache.kafka.tools.ConsumerPerformance, Kafka 4.0) as a
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
      { names: ['topic'], description: 'REQUIRED: The topic to consume from.', arg: { name: 'topic' } },
      { names: ['group'], description: 'The group id to consume on.', arg: { name: 'gid', defaults: [group] } },
      {
        names: ['fetch-size'],
        description: 'The amount of data to fetch in a single request.',
        arg: { name: 'size', type: 'Integer', defaults: [1024 * 1024] },
      },
      {
        names: ['from-latest'],
        description:
          'If the consumer does not already have an established offset to consume from, start with the latest message present in the log rather than the earliest message.',
      },
      {
        names: ['socket-buffer-size'],
        description: 'The size of the tcp RECV size.',
        arg: { name: 'size', type: 'Integer', defaults: [2 * 1024 * 1024] },
      },
      {
        names: ['consumer.config'],
        description: 'Consumer config properties file.',
        arg: { name: 'config file' },
        complete: 'file',
      },
      { names: ['print-metrics'], description: 'Print out the metrics.' },
      {
        names: ['show-detailed-stats'],
        description: 'If set, stats are reported for each reporting interval as configured by reporting-interval',
      },
      {
        names: ['timeout'],
        description: 'The maximum allowed time in milliseconds between returned records.',
        arg: { name: 'milliseconds', type: 'Long', optional: true, defaults: [10_000n] },
      },
      {
        names: ['messages'],
        description: 'REQUIRED: The number of messages to consume.',
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
      { names: ['hide-header'], description: 'If set, skips printing the header for the stats' },
    ],
  };
}

/** The spec as documented (man page, completions). */
export const CONSUMER_PERF_SPEC: JoptToolSpec = consumerPerfSpec();
