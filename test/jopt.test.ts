// jopt-simple work-alike (src/tools/common/jopt.ts): parsing as jopt-simple 5.0.4 does, Kafka's
// CommandLineUtils messages, and the help table byte for byte (the golden text below is the output of
// Apache Kafka 4.4.0's kafka-dump-log.sh with no arguments).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  checkDeclaredRules,
  formatJoptHelp,
  parseJopt,
  parseOrUsage,
  JoptError,
  type JoptToolSpec,
} from '../src/tools/common/jopt.js';
import { cellPieces, lineBreakWords, renderRows } from '../src/tools/common/jopt-text.js';
import { DUMP_LOG_SPEC } from '../src/tools/dump-log/options.js';

/** Kafka 4.4.0 `kafka-dump-log.sh` (no arguments), stderr. */
const KAFKA_DUMP_LOG_HELP = [
  'This tool helps to parse a log file and dump its contents to the console, useful for debugging a seemingly corrupt log segment.',
  'Option                               Description                                ',
  '------                               -----------                                ',
  '--cluster-metadata-decoder           If set, log data will be parsed as cluster ',
  '                                       metadata records.                        ',
  '--deep-iteration                     If set, uses deep instead of shallow       ',
  '                                       iteration. Automatically set if print-   ',
  '                                       data-log is enabled.                     ',
  '--files <String: file1, file2, ...>  REQUIRED: The comma separated list of data ',
  '                                       and index log files to be dumped.        ',
  '--help                               Print usage information.                   ',
  '--index-sanity-check                 If set, just checks the index sanity       ',
  '                                       without printing its content. This is    ',
  '                                       the same check that is executed on       ',
  '                                       broker startup to determine if an index  ',
  '                                       needs rebuilding or not.                 ',
  '--key-decoder-class [String]         If set, used to deserialize the keys. This ',
  '                                       class should implement org.apache.kafka. ',
  '                                       tools.api.Decoder trait. Custom jar      ',
  '                                       should be available in kafka/libs        ',
  '                                       directory. (default: org.apache.kafka.   ',
  '                                       tools.api.StringDecoder)                 ',
  '--max-bytes <Integer: size>          Limit the amount of total batches read in  ',
  '                                       bytes avoiding reading the whole .log    ',
  '                                       file(s). (default: 2147483647)           ',
  '--max-message-size <Integer: size>   Size of largest message. (default: 5242880)',
  '--offsets-decoder                    If set, log data will be parsed as offset  ',
  '                                       data from the __consumer_offsets topic.  ',
  '--print-data-log                     If set, printing the messages content when ',
  '                                       dumping data logs. Automatically set if  ',
  '                                       any decoder option is specified.         ',
  '--remote-log-metadata-decoder        If set, log data will be parsed as         ',
  '                                       TopicBasedRemoteLogMetadataManager       ',
  '                                       (RLMM) metadata records. Instead, the    ',
  '                                       value-decoder-class option can be used   ',
  '                                       if a custom RLMM implementation is       ',
  '                                       configured.                              ',
  '--share-group-state-decoder          If set, log data will be parsed as share   ',
  '                                       group state data from the                ',
  '                                       __share_group_state topic.               ',
  '--skip-record-metadata               Skip metadata when printing records. This  ',
  '                                       flag also skips control records.         ',
  '--transaction-log-decoder            If set, log data will be parsed as         ',
  '                                       transaction metadata from the            ',
  '                                       __transaction_state topic.               ',
  '--value-decoder-class [String]       If set, used to deserialize the messages.  ',
  '                                       This class should implement org.apache.  ',
  '                                       kafka.tools.api.Decoder trait. Custom    ',
  '                                       jar should be available in kafka/libs    ',
  '                                       directory. (default: org.apache.kafka.   ',
  '                                       tools.api.StringDecoder)                 ',
  '--verify-index-only                  If set, just verify the index log without  ',
  '                                       printing its content.                    ',
  '--version                            Display Kafka version.                     ',
  '',
].join('\n');

const KAFKA_ONLY = { ...DUMP_LOG_SPEC, options: DUMP_LOG_SPEC.options.filter((o) => !o.extension) };

function io(): { stdout: PassThrough; stderr: PassThrough; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d) => (o += d));
  stderr.on('data', (d) => (e += d));
  return { stdout, stderr, out: () => o, err: () => e };
}

test('the help table matches Kafka 4.4.0 kafka-dump-log.sh byte for byte', () => {
  assert.equal(`${KAFKA_ONLY.description}\n${formatJoptHelp(KAFKA_ONLY)}`, KAFKA_DUMP_LOG_HELP);
});

test('no arguments and --help print the description and the table on stderr, exit 1; --version on stdout, exit 0', () => {
  for (const argv of [[], ['--help'], ['--files', 'x', '--help']]) {
    const s = io();
    const r = parseOrUsage(KAFKA_ONLY, argv, s, '9.9.9');
    assert.deepEqual(r, { exitCode: 1 });
    assert.equal(s.err(), KAFKA_DUMP_LOG_HELP);
    assert.equal(s.out(), '');
  }
  const s = io();
  assert.deepEqual(parseOrUsage(KAFKA_ONLY, ['--version'], s, '9.9.9'), { exitCode: 0 });
  assert.equal(s.out(), '9.9.9\n');
});

test('usage errors carry jopt-simple and CommandLineUtils messages above the help table', () => {
  const cases: [string[], string][] = [
    [['--foo'], 'foo is not a recognized option'],
    [['--files'], 'Option files requires an argument'],
    [['--files', 'a', '--max-bytes', 'abc'], "Cannot parse argument 'abc' of option max-bytes"],
    [['--files', 'a', '--max-bytes', '2147483648'], "Cannot parse argument '2147483648' of option max-bytes"],
    [['-x'], 'x is not a recognized option'],
    [['--print-data-log'], 'Missing required argument "[files]"'],
  ];
  const spec: JoptToolSpec = {
    ...KAFKA_ONLY,
    options: KAFKA_ONLY.options.map((o) => (o.names[0] === 'files' ? { ...o, required: true } : o)),
  };
  for (const [argv, msg] of cases) {
    const s = io();
    assert.deepEqual(parseOrUsage(spec, argv, s, 'v'), { exitCode: 1 }, argv.join(' '));
    const expectedHelp = formatJoptHelp(spec);
    assert.equal(s.err(), `${msg}\n${expectedHelp}`, argv.join(' '));
  }
});

test("can't-be-used-with and required rules render option names as jopt's [name] lists", () => {
  const spec: JoptToolSpec = {
    name: 't',
    description: 'd',
    options: [
      { names: ['list'], description: 'List.', invalidWith: ['create', 'delete'] },
      { names: ['create'], description: 'Create.' },
      { names: ['delete'], description: 'Delete.' },
      { names: ['topic', 't'], description: 'Topic.', arg: { name: 'topic' }, required: true },
    ],
  };
  assert.equal(checkDeclaredRules(spec, parseJopt(spec, ['--list', '--topic', 'x'])), null);
  assert.equal(
    checkDeclaredRules(spec, parseJopt(spec, ['--list', '--delete', '-t', 'x'])),
    'Option "[list]" can\'t be used with option "[delete]"',
  );
  assert.equal(checkDeclaredRules(spec, parseJopt(spec, ['--create'])), 'Missing required argument "[t, topic]"');
  // short names sort first in the help row, as jopt's arrangeOptions does
  assert.match(formatJoptHelp(spec), /^-t, --topic <String: topic> {2}Topic\.\s*$/m);
});

test('parsing follows jopt-simple: =value, -name for long names, clusters, --, optional arguments, repeats', () => {
  const spec: JoptToolSpec = {
    name: 't',
    description: 'd',
    options: [
      { names: ['files'], arg: { name: 'f' } },
      { names: ['n'], arg: { type: 'Integer' } },
      { names: ['v'] },
      { names: ['q'] },
      { names: ['decoder'], arg: { optional: true, defaults: ['Default'] } },
      { names: ['sep'], arg: { separator: ',' } },
    ],
  };
  let o = parseJopt(spec, ['--files=a.log', 'pos1', '-files', 'b.log', '-vq', '-n5', '--', '--v', '-x']);
  assert.deepEqual(o.valuesOf('files'), ['a.log', 'b.log']);
  assert.throws(() => o.valueOf('files'), /Found multiple arguments for option files, but you asked for only one/);
  assert.equal(o.valueOf('n'), 5);
  assert.ok(o.has('v') && o.has('q'));
  assert.deepEqual(o.nonOptions, ['pos1', '--v', '-x']);
  // A required argument takes the next token whatever it looks like.
  o = parseJopt(spec, ['--files', '--v']);
  assert.deepEqual(o.valuesOf('files'), ['--v']);
  assert.equal(o.has('v'), false);
  // An optional argument is taken only when it does not look like a flag; absent → the default.
  o = parseJopt(spec, ['--decoder', '--v']);
  assert.ok(o.has('decoder') && o.has('v'));
  assert.equal(o.valueOf('decoder'), 'Default');
  o = parseJopt(spec, ['--decoder', 'Mine']);
  assert.equal(o.valueOf('decoder'), 'Mine');
  assert.equal(parseJopt(spec, []).valueOf('decoder'), 'Default');
  assert.deepEqual(parseJopt(spec, ['--sep', 'a,b,c']).valuesOf('sep'), ['a', 'b', 'c']);
  assert.throws(
    () => parseJopt(spec, ['--fil', 'x']),
    (e: Error) => e instanceof JoptError && e.message === 'fil is not a recognized option',
  );
  assert.equal(parseJopt({ ...spec, abbreviations: true }, ['--fil', 'x']).valueOf('files'), 'x');
});

test('line breaking follows the JDK line BreakIterator', () => {
  assert.deepEqual(lineBreakWords('org.apache.kafka.tools.api.Decoder trait.'), [
    'org.',
    'apache.',
    'kafka.',
    'tools.',
    'api.',
    'Decoder ',
    'trait.',
  ]);
  assert.deepEqual(lineBreakWords('print-data-log (default: 1.5) -1 x'), [
    'print-',
    'data-',
    'log ',
    '(default: ',
    '1.5) ',
    '-1 ',
    'x',
  ]);
  assert.deepEqual(cellPieces('aaaa bbbb cccc', 10), ['aaaa bbbb', '  cccc']); // the word's trailing space counts
  assert.deepEqual(cellPieces('aaaa bbbb cccc', 9), ['aaaa', '  bbbb', '  cccc']);
  // a first word longer than the column leaves an empty first line, as jopt does
  assert.deepEqual(cellPieces('abcdefghijk x', 5), ['', '  abcdefghijk', '  x']);
  assert.equal(
    renderRows([
      ['Option', 'Description'],
      ['--a', 'x'],
    ]),
    'Option  Description\n--a     x          \n',
  );
});
