// The flags of `tkafka dump-log` (kafka-dump-log.sh, kafka.tools.DumpLogSegments), as data: the
// jopt parser, the help table, man pages and completions all come from this table.
import type { JoptOptions, JoptToolSpec } from '../common/jopt.js';

export const STRING_DECODER = 'org.apache.kafka.tools.api.StringDecoder';

export const DUMP_LOG_SPEC: JoptToolSpec = {
  name: 'dump-log',
  kafkaScript: 'kafka-dump-log.sh',
  description:
    'This tool helps to parse a log file and dump its contents to the console, useful for debugging a seemingly corrupt log segment.',
  positional: { name: 'file', description: 'Files to dump, in addition to --files (tkafka).' },
  options: [
    {
      names: ['print-data-log'],
      description:
        'If set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified.',
    },
    { names: ['verify-index-only'], description: 'If set, just verify the index log without printing its content.' },
    {
      names: ['index-sanity-check'],
      description:
        'If set, just checks the index sanity without printing its content. This is the same check that is executed on broker startup to determine if an index needs rebuilding or not.',
    },
    {
      names: ['files'],
      description: 'REQUIRED: The comma separated list of data and index log files to be dumped.',
      arg: { name: 'file1, file2, ...' },
      complete: 'file',
    },
    {
      names: ['max-message-size'],
      description: 'Size of largest message.',
      arg: { name: 'size', type: 'Integer', defaults: [5 * 1024 * 1024] },
    },
    {
      names: ['max-bytes'],
      description: 'Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).',
      arg: { name: 'size', type: 'Integer', defaults: [2147483647] },
    },
    {
      names: ['deep-iteration'],
      description: 'If set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.',
    },
    {
      names: ['value-decoder-class'],
      description:
        'If set, used to deserialize the messages. This class should implement org.apache.kafka.tools.api.Decoder trait. Custom jar should be available in kafka/libs directory.',
      arg: { optional: true, defaults: [STRING_DECODER] },
      complete: [
        'org.apache.kafka.tools.api.StringDecoder',
        'org.apache.kafka.tools.api.IntegerDecoder',
        'org.apache.kafka.tools.api.LongDecoder',
        'org.apache.kafka.tools.api.DefaultDecoder',
      ],
    },
    {
      names: ['key-decoder-class'],
      description:
        'If set, used to deserialize the keys. This class should implement org.apache.kafka.tools.api.Decoder trait. Custom jar should be available in kafka/libs directory.',
      arg: { optional: true, defaults: [STRING_DECODER] },
      complete: [
        'org.apache.kafka.tools.api.StringDecoder',
        'org.apache.kafka.tools.api.IntegerDecoder',
        'org.apache.kafka.tools.api.LongDecoder',
        'org.apache.kafka.tools.api.DefaultDecoder',
      ],
    },
    {
      names: ['offsets-decoder'],
      description: 'If set, log data will be parsed as offset data from the __consumer_offsets topic.',
    },
    {
      names: ['transaction-log-decoder'],
      description: 'If set, log data will be parsed as transaction metadata from the __transaction_state topic.',
    },
    {
      names: ['cluster-metadata-decoder'],
      description: 'If set, log data will be parsed as cluster metadata records.',
    },
    {
      names: ['remote-log-metadata-decoder'],
      description:
        'If set, log data will be parsed as TopicBasedRemoteLogMetadataManager (RLMM) metadata records. Instead, the value-decoder-class option can be used if a custom RLMM implementation is configured.',
    },
    {
      names: ['share-group-state-decoder'],
      description: 'If set, log data will be parsed as share group state data from the __share_group_state topic.',
    },
    {
      names: ['skip-record-metadata'],
      description: 'Skip metadata when printing records. This flag also skips control records.',
    },
    {
      names: ['output'],
      description:
        "tkafka: output format, text (Kafka's DumpLogSegments lines) or json (one JSON object per line: file, batch, record, index entry, problem).",
      arg: { name: 'text|json', defaults: ['text'] },
      extension: true,
      complete: ['text', 'json'],
    },
  ],
};

export type DecoderKind =
  'offsets' | 'transaction-log' | 'cluster-metadata' | 'remote-log-metadata' | 'share-group-state' | 'classes';

export interface DumpLogOptions {
  files: string[];
  printDataLog: boolean;
  deepIteration: boolean;
  skipRecordMetadata: boolean;
  verifyOnly: boolean;
  indexSanityOnly: boolean;
  maxMessageSize: number;
  maxBytes: number;
  decoder: DecoderKind;
  keyDecoderClass: string;
  valueDecoderClass: string;
  json: boolean;
}

/** Java's String.split with a literal separator: trailing empty strings are dropped. */
export function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  if (parts.length === 1) return parts;
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** DumpLogSegmentsOptions' derived settings. */
export function dumpLogOptions(o: JoptOptions): DumpLogOptions {
  const decoder: DecoderKind = o.has('offsets-decoder')
    ? 'offsets'
    : o.has('transaction-log-decoder')
      ? 'transaction-log'
      : o.has('cluster-metadata-decoder')
        ? 'cluster-metadata'
        : o.has('remote-log-metadata-decoder')
          ? 'remote-log-metadata'
          : o.has('share-group-state-decoder')
            ? 'share-group-state'
            : 'classes';
  const printDataLog =
    o.has('print-data-log') || decoder !== 'classes' || o.has('value-decoder-class') || o.has('key-decoder-class');
  const files: string[] = [];
  if (o.has('files')) for (const v of o.valuesOf('files')) files.push(...javaSplit(String(v), ','));
  files.push(...o.nonOptions);
  return {
    files,
    printDataLog,
    deepIteration: o.has('deep-iteration') || printDataLog,
    skipRecordMetadata: o.has('skip-record-metadata'),
    verifyOnly: o.has('verify-index-only'),
    indexSanityOnly: o.has('index-sanity-check'),
    maxMessageSize: o.number('max-message-size')!,
    maxBytes: o.number('max-bytes')!,
    decoder,
    keyDecoderClass: o.string('key-decoder-class')!,
    valueDecoderClass: o.string('value-decoder-class')!,
    json: o.string('output') === 'json',
  };
}
