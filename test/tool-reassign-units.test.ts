// Offline parts of `tkafka reassign-partitions` and `tkafka leader-election`: argument validation
// (ReassignPartitionsCommandArgsTest, LeaderElectionCommandErrorTest), the JSON files and their
// messages, the status texts, the throttle move map (ReassignPartitionsUnitTest.testMoveMap) and the
// striped placement --generate proposes. The cluster side is test/interop/reassign-tools.test.ts.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runTkafka, type Run } from './helpers/tool-run.js';
import { classifyResults, parseElectionJson, resultLines } from '../src/tools/leader-election/main.js';
import {
  checkExecuteAssignment,
  formatReassignmentJson,
  parseGenerateArgs,
  parseReassignmentJson,
  parseTopicsJson,
} from '../src/tools/reassign-partitions/json.js';
import { partitionStatesText, replicaMoveStatesText } from '../src/tools/reassign-partitions/command.js';
import {
  followerThrottles,
  leaderThrottles,
  proposedMoveMap,
  reassigningBrokers,
} from '../src/tools/reassign-partitions/throttles.js';
import { placeReplicas } from '../src/client/admin/replica-placer.js';
import { ApiError } from '../src/client/errors.js';

const runTool = (tool: 'reassign-partitions' | 'leader-election', argv: string[]): Promise<Run> =>
  runTkafka(tool, argv);

const firstLine = (s: string): string => s.split('\n')[0]!;

test('reassign-partitions: usage errors as validateAndParseArgs words them (exit 1, help on stderr)', async () => {
  const cases: [string[], string][] = [
    [[], 'This tool helps to move topic partitions between replicas.'],
    [['--help'], 'This tool helps to move topic partitions between replicas.'],
    [
      ['--bootstrap-server', 'h:9092'],
      'Command must include exactly one action: --generate, --execute, --verify, --cancel, --list',
    ],
    [
      ['--bootstrap-server', 'h:9092', '--execute', '--verify', '--reassignment-json-file', 'f'],
      'Command must include exactly one action: --generate, --execute, --verify, --cancel, --list',
    ],
    [['--list'], 'Please specify either --bootstrap-server or --bootstrap-controller'],
    [
      ['--list', '--bootstrap-server', 'a:1', '--bootstrap-controller', 'b:1'],
      "Please don't specify both --bootstrap-server and --bootstrap-controller",
    ],
    [['--execute', '--bootstrap-server', 'h:9092'], 'Missing required argument "[reassignment-json-file]"'],
    [['--verify', '--bootstrap-server', 'h:9092'], 'Missing required argument "[reassignment-json-file]"'],
    [['--cancel', '--bootstrap-server', 'h:9092'], 'Missing required argument "[reassignment-json-file]"'],
    [
      ['--generate', '--bootstrap-server', 'h:9092', '--broker-list', '1'],
      'Missing required argument "[topics-to-move-json-file]"',
    ],
    [
      ['--generate', '--bootstrap-server', 'h:9092', '--topics-to-move-json-file', 'f'],
      'Missing required argument "[broker-list]"',
    ],
    [
      ['--verify', '--bootstrap-server', 'h:9092', '--reassignment-json-file', 'f', '--throttle', '100'],
      'Option "[throttle]" can\'t be used with action "[verify]"',
    ],
    [
      ['--verify', '--bootstrap-server', 'h:9092', '--reassignment-json-file', 'f', '--additional'],
      'Option "[additional]" can\'t be used with action "[verify]"',
    ],
    [
      ['--generate', '--bootstrap-controller', 'h:9093', '--broker-list', '1', '--topics-to-move-json-file', 'f'],
      'Option "[bootstrap-controller]" can\'t be used with action "[generate]"',
    ],
    [
      ['--execute', '--bootstrap-server', 'h:9092', '--reassignment-json-file', 'f', '--preserve-throttles'],
      'Option "[preserve-throttles]" can\'t be used with action "[execute]"',
    ],
    [
      ['--list', '--bootstrap-server', 'h:9092', '--broker-list', '1', '--timeout', '5'],
      'Option "[broker-list]" can\'t be used with action "[list]"',
    ],
    [
      ['--cancel', '--bootstrap-server', 'h:9092', '--reassignment-json-file', 'f', '--disable-rack-aware'],
      'Option "[disable-rack-aware]" can\'t be used with action "[cancel]"',
    ],
    [
      [
        '--generate',
        '--bootstrap-server',
        'h:9092',
        '--broker-list',
        '1',
        '--topics-to-move-json-file',
        'f',
        '--additional',
      ],
      'Option "[additional]" can\'t be used with action "[generate]"',
    ],
  ];
  for (const [argv, message] of cases) {
    const r = await runTool('reassign-partitions', argv);
    assert.equal(r.code, 1, argv.join(' '));
    assert.equal(r.out, '', argv.join(' '));
    assert.equal(firstLine(r.err), message, argv.join(' '));
    assert.match(r.err, /^Option {2,}Description/m, argv.join(' '));
  }
  const v = await runTool('reassign-partitions', ['--version']);
  assert.equal(v.code, 0);
  assert.match(v.out, /^\d+\.\d+/);
});

test('reassign-partitions: a missing file fails after validation, on stdout (Error: <path>)', async () => {
  const r = await runTool('reassign-partitions', [
    '--verify',
    '--bootstrap-server',
    '127.0.0.1:1',
    '--reassignment-json-file',
    '/nonexistent/r.json',
  ]);
  assert.equal(r.code, 1);
  assert.equal(r.out, 'Error: /nonexistent/r.json\n');
});

test('reassignment JSON: parsing, log dirs and the messages of parsePartitionReassignmentData', () => {
  const d = parseReassignmentJson(
    '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2,3],"log_dirs":["/tmp/a","any","/tmp/c"]},' +
      '{"topic":"foo","partition":1,"replicas":[3,4,5]}]}',
  );
  assert.deepEqual(d.partitions, [
    { topic: 'foo', partition: 0, replicas: [1, 2, 3] },
    { topic: 'foo', partition: 1, replicas: [3, 4, 5] },
  ]);
  assert.deepEqual(d.logDirs, [
    { topic: 'foo', partition: 0, brokerId: 1, logDir: '/tmp/a' },
    { topic: 'foo', partition: 0, brokerId: 3, logDir: '/tmp/c' },
  ]);
  assert.deepEqual(parseReassignmentJson('{}').partitions, []);
  const fails: [string, string][] = [
    ['{"version":2,"partitions":[]}', 'Not supported version field value 2'],
    [
      '{"partitions":[{"topic":"foo","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}',
      'Size of replicas list [1, 2] is different from size of log dirs list [any] for partition foo-0',
    ],
    ['{"partitions":[{"partition":0,"replicas":[1]}]}', 'No such field exists: `topic`'],
    ['{"partitions":[{"topic":"foo","partition":"0","replicas":[1]}]}', 'Expected `Integer` value, received "0"'],
    ['{"partitions":[{"topic":"foo","partition":0,"replicas":1}]}', 'Expected JSON array, received 1'],
    ['[]', 'Expected JSON object, received []'],
  ];
  for (const [json, message] of fails) assert.throws(() => parseReassignmentJson(json), { message }, json);
  assert.throws(() => parseReassignmentJson('{invalid_json'), { name: 'ReassignCommandError' });
});

test('execute: parseExecuteAssignmentArgs checks (ReassignPartitionsUnitTest.testParseExecuteAssignmentArgs)', () => {
  const check = (json: string): unknown => checkExecuteAssignment(parseReassignmentJson(json));
  assert.throws(() => check('{"version":1,"partitions":[]}'), {
    message: 'Partition reassignment list cannot be empty',
  });
  assert.throws(() => check('{"partitions":[{"topic":"foo","partition":0,"replicas":[]}]}'), {
    message: 'Partition replica list cannot be empty',
  });
  assert.throws(
    () =>
      check(
        '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,1],"log_dirs":["any","any"]},' +
          '{"topic":"foo","partition":0,"replicas":[2,3,4],"log_dirs":["any","any","any"]}]}',
      ),
    { message: 'Partition reassignment contains duplicate topic partitions: foo-0' },
  );
  assert.throws(
    () =>
      check(
        '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,0],"log_dirs":["/abc","/def"]},' +
          '{"topic":"foo","partition":1,"replicas":[2,3,2,3],"log_dirs":["any","any","any","any"]}]}',
      ),
    {
      message:
        'Partition replica lists may not contain duplicate entries: foo-0 contains multiple entries for 0. foo-1 contains multiple entries for 2,3',
    },
  );
  const ok = checkExecuteAssignment(
    parseReassignmentJson(
      '{"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2,3]},{"topic":"foo","partition":1,"replicas":[3,4,5]}]}',
    ),
  );
  assert.deepEqual([...ok.keys()], ['foo-0', 'foo-1']);
});

test('generate: parseGenerateAssignmentArgs (ReassignPartitionsUnitTest.testParseGenerateAssignmentArgs)', () => {
  const foo = '{"topics": [{"topic": "foo"}], "version":1}';
  assert.throws(() => parseGenerateArgs(foo, '1,1,2'), { message: 'Broker list contains duplicate entries: [1]' });
  assert.throws(() => parseGenerateArgs(foo, '5,2,3,4,5'), { message: 'Broker list contains duplicate entries: [5]' });
  assert.deepEqual(parseGenerateArgs(foo, '5,2,3,4'), { brokers: [5, 2, 3, 4], topics: ['foo'] });
  assert.throws(() => parseGenerateArgs('{"topics": [{"topic": "foo"},{"topic": "foo"}], "version":1}', '5,2,3,4'), {
    message: 'List of topics to reassign contains duplicate entries: [foo]',
  });
  assert.deepEqual(parseGenerateArgs('{"topics": [{"topic": "foo"},{"topic": "bar"}], "version":1}', '5,3,4'), {
    brokers: [5, 3, 4],
    topics: ['foo', 'bar'],
  });
  assert.throws(() => parseGenerateArgs(foo, '1,x'), { message: 'For input string: "x"' });
  assert.throws(() => parseTopicsJson('not json'), { message: 'The input string is not a valid JSON' });
  assert.throws(() => parseTopicsJson('{"version":2}'), { message: 'Not supported version field value 2' });
});

test('formatAsReassignmentJson: compact, sorted, log_dirs always present', () => {
  assert.equal(
    formatReassignmentJson(
      [
        { topic: 'foo', partition: 10, replicas: [3, 1] },
        { topic: 'bar', partition: 0, replicas: [1] },
        { topic: 'foo', partition: 2, replicas: [1, 2] },
      ],
      new Map([['foo-2-2', '/data/d1']]),
    ),
    '{"version":1,"partitions":[{"topic":"bar","partition":0,"replicas":[1],"log_dirs":["any"]},' +
      '{"topic":"foo","partition":2,"replicas":[1,2],"log_dirs":["any","/data/d1"]},' +
      '{"topic":"foo","partition":10,"replicas":[3,1],"log_dirs":["any","any"]}]}',
  );
});

test('verify texts (testPartitionReassignStatesToString, testReplicaMoveStatesToString)', () => {
  assert.equal(
    partitionStatesText([
      { topic: 'bar', partition: 0, state: 'in-progress', currentReplicas: [1, 2, 3], targetReplicas: [1, 2, 4] },
      { topic: 'foo', partition: 0, state: 'completed', currentReplicas: [1, 2, 3], targetReplicas: [1, 2, 3] },
      { topic: 'foo', partition: 1, state: 'mismatch', currentReplicas: [1, 2], targetReplicas: [2, 3] },
    ]),
    [
      'Status of partition reassignment:',
      'Reassignment of partition bar-0 is still in progress.',
      'Reassignment of partition foo-0 is completed.',
      'There is no active reassignment of partition foo-1, but replica set is 1,2 rather than 2,3.',
    ].join('\n'),
  );
  const r = (topic: string, partition: number, brokerId: number, logDir: string) => ({
    topic,
    partition,
    brokerId,
    logDir,
  });
  assert.equal(
    replicaMoveStatesText([
      { replica: r('quux', 2, 1, '/tmp/kafka-logs1'), state: 'missing-log-dir', current: null, future: null },
      { replica: r('bar', 0, 0, '/tmp/kafka-logs0'), state: 'completed', current: '/tmp/kafka-logs0', future: null },
      {
        replica: r('foo', 0, 0, '/tmp/kafka-logs1'),
        state: 'active',
        current: '/tmp/kafka-logs0',
        future: '/tmp/kafka-logs1',
      },
      { replica: r('foo', 1, 0, '/tmp/kafka-logs1'), state: 'cancelled', current: '/tmp/kafka-logs0', future: null },
      { replica: r('quux', 0, 0, '/tmp/kafka-logs1'), state: 'missing-replica', current: null, future: null },
      {
        replica: r('quux', 1, 1, '/tmp/kafka-logs1'),
        state: 'active',
        current: '/tmp/kafka-logs0',
        future: '/tmp/kafka-logs2',
      },
    ]),
    [
      'Reassignment of replica bar-0-0 completed successfully.',
      'Reassignment of replica foo-0-0 is still in progress.',
      'Partition foo-1 on broker 0 is not being moved from log dir /tmp/kafka-logs0 to /tmp/kafka-logs1.',
      'Partition quux-0 cannot be found in any live log directory on broker 0.',
      'Partition quux-1 on broker 1 is being moved to log dir /tmp/kafka-logs2 instead of /tmp/kafka-logs1.',
      'Partition quux-2 is not found in any live log dir on broker 1. There is likely an offline log directory on the broker.',
    ].join('\n'),
  );
});

test('throttles: the move map and the throttled replicas (ReassignPartitionsUnitTest.testMoveMap)', () => {
  const ongoing = [
    { topic: 'foo', partition: 0, replicas: [1, 2, 3, 4], addingReplicas: [4] },
    { topic: 'foo', partition: 1, replicas: [4, 5, 6, 7, 8], addingReplicas: [7, 8] },
    { topic: 'foo', partition: 2, replicas: [1, 2, 3, 4], addingReplicas: [3, 4] },
    { topic: 'foo', partition: 3, replicas: [1, 2, 3, 4], addingReplicas: [3, 4] },
    { topic: 'foo', partition: 4, replicas: [1, 2, 3, 4], addingReplicas: [3, 4] },
    { topic: 'foo', partition: 5, replicas: [1, 2, 3, 4], addingReplicas: [3, 4] },
  ];
  const proposed = [
    { topic: 'foo', partition: 0, replicas: [1, 2, 5] },
    { topic: 'foo', partition: 2, replicas: [3, 4] },
    { topic: 'foo', partition: 3, replicas: [5, 6] },
    { topic: 'foo', partition: 4, replicas: [3] },
    { topic: 'foo', partition: 5, replicas: [3, 4, 5, 6] },
    { topic: 'bar', partition: 0, replicas: [1, 2, 3] },
  ];
  const current = new Map([
    ['foo-0', [1, 2, 3, 4]],
    ['foo-1', [4, 5, 6, 7, 8]],
    ['foo-2', [1, 2, 3, 4]],
    ['foo-3', [1, 2, 3, 4]],
    ['foo-4', [1, 2, 3, 4]],
    ['foo-5', [1, 2, 3, 4]],
    ['bar-0', [2, 3, 4]],
    ['baz-0', [1, 2, 3]],
  ]);
  const moves = proposedMoveMap(ongoing, proposed, current);
  const plain = (m: typeof moves, topic: string) =>
    Object.fromEntries(
      [...m.get(topic)!].map(([p, mv]) => [
        p,
        { sources: [...mv.sources].sort(), destinations: [...mv.destinations].sort() },
      ]),
    );
  assert.deepEqual(plain(moves, 'foo'), {
    0: { sources: [1, 2, 3], destinations: [5] },
    1: { sources: [4, 5, 6], destinations: [7, 8] },
    2: { sources: [1, 2], destinations: [3, 4] },
    3: { sources: [1, 2], destinations: [5, 6] },
    4: { sources: [1, 2], destinations: [3] },
    5: { sources: [1, 2], destinations: [3, 4, 5, 6] },
  });
  assert.deepEqual(plain(moves, 'bar'), { 0: { sources: [2, 3, 4], destinations: [1] } });
  assert.deepEqual(Object.fromEntries(leaderThrottles(moves)), {
    foo: '0:1,0:2,0:3,1:4,1:5,1:6,2:1,2:2,3:1,3:2,4:1,4:2,5:1,5:2',
    bar: '0:2,0:3,0:4',
  });
  assert.deepEqual(Object.fromEntries(followerThrottles(moves)), {
    foo: '0:5,1:7,1:8,2:3,2:4,3:5,3:6,4:3,5:3,5:4,5:5,5:6',
    bar: '0:1',
  });
  assert.deepEqual(reassigningBrokers(moves), [1, 2, 3, 4, 5, 6, 7, 8]);
  // A TreeSet<String>: partition 10 sorts before partition 2.
  const wide = proposedMoveMap(
    [],
    [
      { topic: 't', partition: 10, replicas: [2] },
      { topic: 't', partition: 2, replicas: [2] },
    ],
    new Map([
      ['t-10', [1]],
      ['t-2', [1]],
    ]),
  );
  assert.equal(leaderThrottles(wide).get('t'), '10:1,2:1');
  assert.throws(() => proposedMoveMap([], [{ topic: 'x', partition: 0, replicas: [1] }], new Map()), {
    message: 'Trying to reassign a topic partition x-0 with 0 replicas',
  });
});

test("generate: striped placement over the listed brokers, racks alternating, Kafka's errors", () => {
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const brokers = [1, 2, 3, 4].map((id) => ({ id, rack: null, fenced: false }));
  const placed = placeReplicas(brokers, 8, 3, random);
  assert.equal(placed.length, 8);
  const leaders = new Map<number, number>();
  for (const r of placed) {
    assert.equal(new Set(r).size, 3);
    for (const b of r) assert.ok([1, 2, 3, 4].includes(b));
    leaders.set(r[0]!, (leaders.get(r[0]!) ?? 0) + 1);
  }
  // Round-robin: every broker leads two of the eight partitions.
  assert.deepEqual([...leaders.values()].sort(), [2, 2, 2, 2]);
  const racked = [
    { id: 1, rack: 'a', fenced: false },
    { id: 2, rack: 'a', fenced: false },
    { id: 3, rack: 'b', fenced: false },
    { id: 4, rack: 'b', fenced: false },
  ];
  for (const r of placeReplicas(racked, 6, 2, random)) {
    const racks = r.map((b) => racked.find((x) => x.id === b)!.rack);
    assert.notEqual(racks[0], racks[1], `replicas ${r.join(',')} on one rack`);
  }
  assert.throws(() => placeReplicas(brokers, 1, 5, random), {
    message:
      'The target replication factor of 5 cannot be reached because only 4 broker(s) are registered or some brokers have all their log directories cordoned.',
  });
});

test('leader-election: validation and file messages (LeaderElectionCommandErrorTest)', async () => {
  const cases: [string[], string][] = [
    [['--bootstrap-server', 'h:9092'], 'Missing required option(s): election-type'],
    [['--election-type', 'preferred', '--all-topic-partitions'], 'Missing required option(s): bootstrap-server'],
    [
      ['--bootstrap-server', 'h:9092', '--election-type', 'preferred'],
      'One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file',
    ],
    [
      ['--bootstrap-server', 'h:9092', '--election-type', 'preferred', '--topic', 't', '--all-topic-partitions'],
      'One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file',
    ],
    [
      ['--bootstrap-server', 'h:9092', '--election-type', 'preferred', '--topic', 't'],
      'Missing required option(s): partition',
    ],
    [
      ['--bootstrap-server', 'h:9092', '--election-type', 'preferred', '--all-topic-partitions', '--partition', '0'],
      'Option partition is only allowed if topic is used',
    ],
    [
      ['--bootstrap-server', 'h:9092', '--election-type', 'invalid', '--all-topic-partitions'],
      "Cannot parse argument 'invalid' of option election-type",
    ],
  ];
  for (const [argv, message] of cases) {
    const r = await runTool('leader-election', argv);
    assert.equal(r.code, 1, argv.join(' '));
    assert.equal(r.err, `${message}\n`, argv.join(' '));
  }
  const both = await runTool('leader-election', [
    '--bootstrap-server',
    'h:9092',
    '--election-type',
    'preferred',
    '--all-topic-partitions',
    '--admin.config',
    'a',
    '--command-config',
    'b',
  ]);
  assert.equal(both.code, 1);
  assert.equal(firstLine(both.err), 'Option "[admin.config]" can\'t be used with option "[command-config]"');
  const help = await runTool('leader-election', []);
  assert.equal(help.code, 1);
  assert.match(help.err, /^This tool attempts to elect a new leader for a set of topic partitions\./);

  assert.deepEqual(
    parseElectionJson('{"partitions":[{"topic":"foo","partition":1},{"topic":"bar","partition":0}]}').length,
    2,
  );
  assert.throws(
    () => parseElectionJson('{"partitions":[{"topic":"foo","partition":1},{"topic":"foo","partition":1}]}'),
    {
      message: 'Replica election data contains duplicate partitions: [foo-1]',
    },
  );
  assert.throws(() => parseElectionJson('{"x":[]}'), {
    message: 'Replica election data is missing "partitions" field',
  });
  assert.throws(() => parseElectionJson('nope'), { message: 'Replica election data is empty' });
});

test('leader-election: result lines and their HashSet order', () => {
  const v = classifyResults('PREFERRED', [
    { topic: 'foo', partition: 1, ok: true },
    { topic: 'foo', partition: 0, ok: true },
    {
      topic: 'bar',
      partition: 0,
      ok: false,
      error: new ApiError(84, 'Leader election not needed for topic partition.'),
    },
    {
      topic: 'baz',
      partition: 3,
      ok: false,
      error: new ApiError(
        80,
        'Failed to elect leader for partition baz-3 under strategy PreferredReplicaPartitionLeaderElectionStrategy',
      ),
    },
  ]);
  assert.deepEqual(resultLines(v), [
    'Successfully completed leader election (PREFERRED) for partitions foo-0, foo-1',
    'Valid replica already elected for partitions bar-0',
    'Error completing leader election (PREFERRED) for partition: baz-3: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition baz-3 under strategy PreferredReplicaPartitionLeaderElectionStrategy',
  ]);
});
