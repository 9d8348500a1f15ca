// tkafka streams-groups without a cluster (in-process): Kafka 4.4's usage messages
// (StreamsGroupCommandOptions.checkArgs, in its order), the parse errors, and the text renderings
// of StreamsGroupService (column widths, the ASSIGNOR column, task strings, state messages).
import test from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { run } from '../src/tools/streams-groups/main.js';
import {
  isInferredInternalTopic,
  parseStates,
  renderList,
  renderMembers,
  renderOffsets,
  renderReset,
  renderState,
  tasksString,
  activeTopicPartitions,
  renderTopology,
} from '../src/tools/streams-groups/ops.js';
import { formatTopology } from '../src/tools/streams-groups/topology.js';
import type { StreamsGroupDescription, StreamsMemberDescription } from '../src/client/admin/streams-groups.js';

const BS = ['--bootstrap-server', '127.0.0.1:1'];

async function runInProcess(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await run(args, { stdout, stderr, stdin: new PassThrough(), env: {} });
  return { code, out, err };
}

async function usage(args: string[]): Promise<string> {
  const r = await runInProcess([...BS, ...args]);
  assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  assert.match(r.err, /\nOption +Description/, args.join(' '));
  return r.err.split('\n')[0]!;
}

test('usage messages', async () => {
  const cases: [string[], string][] = [
    [
      ['--all-groups'],
      'Command must include exactly one action: --list, --describe, --delete, --reset-offsets, or --delete-offsets.',
    ],
    [
      ['--list', '--describe', '--all-groups'],
      'Command must include exactly one action: --list, --describe, --delete, --reset-offsets, or --delete-offsets.',
    ],
    [['--describe'], 'Option [describe] takes one of these options: [all-groups], [group]'],
    [
      ['--describe', '--group', 'g', '--members', '--topology'],
      'Option [describe] takes at most one of these options: [members], [offsets], [state], [topology]',
    ],
    [['--describe', '--group', 'g', '--state', 'x'], 'Option [describe] does not take a value for [state]'],
    [['--delete'], 'Option [delete] takes one of these options: [all-groups], [group]'],
    [
      ['--delete', '--group', 'g', '--input-topic', 't'],
      'Kafka Streams does not support topic-specific offset deletion from a streams group.',
    ],
    [
      ['--delete-offsets', '--group', 'g'],
      'Option [delete-offsets] takes the [group] and one of these options: [all-input-topics], [input-topic]',
    ],
    [
      ['--delete-offsets', '--all-input-topics'],
      'Option [delete-offsets] takes the [group] and one of these options: [all-input-topics], [input-topic]',
    ],
    [
      ['--delete-offsets', '--group', 'a', '--group', 'b', '--input-topic', 't'],
      'Option [delete-offsets] supports only one [group] at a time, but found: [a, b]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--execute'],
      'Option [reset-offsets] only accepts one of [execute] and [dry-run]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--to-latest', '--all-input-topics'],
      'Option [reset-offsets] takes the option: [execute] or [dry-run]',
    ],
    [
      ['--reset-offsets', '--dry-run', '--to-latest'],
      'Option [reset-offsets] takes one of these options: [all-groups], [group]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--shift-by', '1', '--by-duration', 'PT1H'],
      'Option "[shift-by]" can\'t be used with option "[by-duration]"',
    ],
    [
      ['--list', '--delete-all-internal-topics'],
      'Option [delete-all-internal-topics] takes one of these options: [delete], [reset-offsets]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--to-latest', '--delete-all-internal-topics'],
      'Option [delete-all-internal-topics] takes [execute] when [reset-offsets] is used.',
    ],
    [
      ['--delete', '--group', 'g', '--delete-internal-topic', 'g-x-changelog'],
      'Option [delete-internal-topic] takes [reset-offsets] when [execute] is used.',
    ],
    [['--list', '--dry-run'], 'Only Option [reset-offsets] accepts [execute] or [dry-run]'],
    [['--describe', '--group', 'g', '--all-groups'], 'Option "[group]" can\'t be used with option "[all-groups]"'],
    [['--list', '--group', 'g'], 'Option "[group]" can\'t be used with option "[list]"'],
    [
      ['--describe', '--group', 'g', '--input-topic', 't'],
      'Option "[input-topic]" can\'t be used with option "[describe]"',
    ],
  ];
  for (const [args, msg] of cases) assert.equal(await usage(args), msg, args.join(' '));
  assert.equal((await runInProcess(['--list'])).err.split('\n')[0], 'Missing required argument "[bootstrap-server]"');
});

test('parse errors: message only', async () => {
  const r = await runInProcess([...BS, '--list', '--members']);
  assert.equal(r.code, 1);
  assert.equal(r.err, 'Option(s) [members] are unavailable given other options on the command line\n');
  const t = await runInProcess([...BS, '--list', '--topology']);
  assert.equal(t.err, 'Option(s) [topology] are unavailable given other options on the command line\n');
  const u = await runInProcess([...BS, '--list', '--nope']);
  assert.equal(u.code, 1);
  assert.equal(u.err, 'nope is not a recognized option\n');
});

test('help', async () => {
  // Kafka's maybePrintHelpOrVersion: printUsageAndExit, exit 1.
  const r = await runInProcess(['--help']);
  assert.equal(r.code, 1);
  const text = r.out + r.err;
  assert.match(text, /^This tool helps to list, describe, delete and manage the offsets of streams groups\.\n/);
  for (const flag of [
    '--topology',
    '--delete-all-internal-topics',
    '--delete-internal-topic <String>',
    '--shift-by <Long: number-of-offsets>',
    '--timeout <Long: timeout (ms)>',
  ])
    assert.ok(text.includes(flag), flag);
  assert.match(text, /\(default: 30000\)/);
});

test('state lists', () => {
  assert.deepEqual(parseStates('stable, empty'), ['Stable', 'Empty']);
  assert.deepEqual(parseStates('NotReady,assigning,Reconciling,dead'), [
    'NotReady',
    'Assigning',
    'Reconciling',
    'Dead',
  ]);
  assert.throws(() => parseStates('PreparingRebalance'), {
    message:
      "Invalid state list 'PreparingRebalance'. Valid states are: Empty, NotReady, Assigning, Reconciling, Stable, Dead",
  });
});

test('list rendering', () => {
  const groups = [
    { groupId: 'wordcount', protocolType: 'streams', state: 'Stable', type: 'Streams' },
    { groupId: 'a-very-long-application-id', protocolType: 'streams', state: 'Empty', type: 'Streams' },
  ];
  assert.equal(renderList(groups, false), 'wordcount\na-very-long-application-id\n');
  assert.equal(
    renderList(groups, true),
    'GROUP                      STATE\nwordcount                  Stable\na-very-long-application-id Empty\n',
  );
  assert.equal(renderList([], true), 'GROUP           STATE\n');
});

const none = { active: [], standby: [], warmup: [] };
function member(
  id: string,
  active: [string, number[]][],
  standby: [string, number[]][] = [],
): StreamsMemberDescription {
  const a = {
    active: active.map(([subtopologyId, partitions]) => ({ subtopologyId, partitions })),
    standby: standby.map(([subtopologyId, partitions]) => ({ subtopologyId, partitions })),
    warmup: [],
  };
  return {
    memberId: id,
    memberEpoch: 7,
    instanceId: null,
    rackId: null,
    clientId: `${id}-client`,
    clientHost: '/127.0.0.1',
    topologyEpoch: 0,
    processId: `process-${id}`,
    isClassic: false,
    assignment: a,
    targetAssignment: a,
  };
}

function group(state: string, members: StreamsMemberDescription[]): StreamsGroupDescription {
  return {
    groupId: 'wc',
    state,
    groupEpoch: 9,
    targetAssignmentEpoch: 8,
    topologyEpoch: 0,
    assignor: 'sticky',
    coordinator: { id: 1, host: 'localhost', port: 9092, rack: null },
    subtopologies: [
      {
        subtopologyId: '0',
        sourceTopics: ['words'],
        repartitionSinkTopics: ['wc-counts-repartition'],
        stateChangelogTopics: [],
        repartitionSourceTopics: [],
      },
      {
        subtopologyId: '1',
        sourceTopics: [],
        repartitionSinkTopics: [],
        stateChangelogTopics: ['wc-counts-changelog'],
        repartitionSourceTopics: ['wc-counts-repartition'],
      },
    ],
    members,
    topologyDescriptionStatus: 0,
    topologyDescription: null,
  };
}

test('task strings', () => {
  assert.equal(tasksString(none, null), '');
  const m = member(
    'm1',
    [
      ['0', [0, 1]],
      ['1', [2]],
    ],
    [['1', [0]]],
  );
  assert.equal(tasksString(m.assignment, null), 'ACTIVE: 0:[0,1]; 1:[2]; STANDBY: 1:[0]; ');
  assert.equal(
    tasksString(m.assignment, m.targetAssignment),
    'ACTIVE: 0:[0,1]; 1:[2]; STANDBY: 1:[0]; TARGET-ACTIVE: 0:[0,1]; 1:[2]; TARGET-STANDBY: 1:[0]; ',
  );
});

test('members rendering', () => {
  const d = group('Stable', [member('m1', [['0', [0]]])]);
  assert.equal(
    renderMembers(d, false),
    'GROUP           MEMBER          PROCESS         CLIENT-ID       ASSIGNMENTS\n' +
      'wc              m1              process-m1      m1-client       ACTIVE: 0:[0]; \n',
  );
  assert.equal(
    renderMembers(d, true),
    'GROUP           TARGET-ASSIGNMENT-EPOCH   TOPOLOGY-EPOCH MEMBER          MEMBER-PROTOCOL MEMBER-EPOCH    PROCESS         CLIENT-ID       ASSIGNMENTS\n' +
      'wc              8                         0              m1              streams         7               process-m1      m1-client       ACTIVE: 0:[0]; TARGET-ACTIVE: 0:[0]; \n',
  );
  assert.equal(renderMembers(group('Empty', []), false), '');
});

test('state rendering', () => {
  const d = group('Stable', [member('m1', [['0', [0]]])]);
  assert.equal(
    renderState(d, false),
    'GROUP           COORDINATOR (ID)          ASSIGNOR        STATE                     #MEMBERS\n' +
      'wc              localhost:9092 (1)        sticky          Stable                    1\n',
  );
  assert.equal(
    renderState(group('Empty', []), true),
    "\nError: Streams group 'wc' has no active members.\n" +
      'GROUP           COORDINATOR (ID)          ASSIGNOR        STATE                     GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n' +
      'wc              localhost:9092 (1)        sticky          Empty                     9               8                         0\n',
  );
});

test('offsets rendering', () => {
  const d = group('Reconciling', [
    member('m1', [
      ['0', [0]],
      ['1', [0]],
    ]),
  ]);
  assert.deepEqual(
    activeTopicPartitions(d).map((tp) => `${tp.topic}-${tp.partition}`),
    ['words-0', 'wc-counts-repartition-0'],
  );
  const offsets = [
    { topic: 'words', partition: 0, currentOffset: 5n, leaderEpoch: 0, logEndOffset: 8n, lag: 3n },
    { topic: 'wc-counts-repartition', partition: 0, currentOffset: null, leaderEpoch: null, logEndOffset: 4n, lag: 4n },
  ];
  assert.equal(
    renderOffsets({ description: d, offsets }, false),
    'GROUP           TOPIC                 PARTITION  OFFSET-LAG\n' +
      'wc              words                 0          3\n' +
      'wc              wc-counts-repartition 0          4\n',
  );
  assert.equal(
    renderOffsets({ description: d, offsets }, true),
    'GROUP           TOPIC                 PARTITION  CURRENT-OFFSET  LEADER-EPOCH    LOG-END-OFFSET  OFFSET-LAG     \n' +
      'wc              words                 0          5               0               8               3              \n' +
      'wc              wc-counts-repartition 0          -               -               4               4              \n',
  );
  assert.equal(renderOffsets({ description: group('Dead', []), offsets: [] }, false), '');
});

test('reset plan rendering', () => {
  assert.equal(
    renderReset([{ group: 'wc', error: null, offsets: [{ tp: { topic: 'words', partition: 1 }, offset: 0n }] }]),
    '\nGROUP                          TOPIC                          PARTITION  NEW-OFFSET     ' +
      '\nwc                             words                          1          0              \n',
  );
  assert.equal(renderReset([]), '\n');
});

test('internal topics inferred', () => {
  assert.ok(isInferredInternalTopic('wc-counts-changelog', 'wc'));
  assert.ok(isInferredInternalTopic('wc-KSTREAM-AGGREGATE-0000000003-repartition', 'wc'));
  assert.ok(isInferredInternalTopic('wc-x-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007-topic', 'wc'));
  assert.ok(!isInferredInternalTopic('other-counts-changelog', 'wc'));
  assert.ok(!isInferredInternalTopic('wc-output', 'wc'));
});

test('topology rendering', () => {
  const n = (
    name: string,
    nodeType: number,
    successors: string[],
    extra: Partial<{ sourceTopics: string[]; stores: string[]; sinkTopic: string | null }> = {},
  ) => ({
    name,
    nodeType,
    sourceTopics: extra.sourceTopics ?? [],
    sinkTopic: extra.sinkTopic ?? null,
    stores: extra.stores ?? [],
    successors,
  });
  const topology = {
    subtopologies: [
      {
        subtopologyId: '0',
        nodes: [
          n('KSTREAM-SOURCE-0000000000', 1, ['KSTREAM-FLATMAPVALUES-0000000001'], { sourceTopics: ['words-in'] }),
          n('KSTREAM-FLATMAPVALUES-0000000001', 2, ['counts-repartition-sink']),
          n('counts-repartition-sink', 3, [], { sinkTopic: 'wc-counts-repartition' }),
        ],
      },
    ],
    globalStores: [
      {
        source: n('g-source', 1, ['g-processor'], { sourceTopics: ['b', 'a'] }),
        processor: n('g-processor', 2, [], { stores: ['g-store'] }),
      },
    ],
  };
  const text =
    'Topologies:\n' +
    '   Sub-topology: 0\n' +
    '    Source: KSTREAM-SOURCE-0000000000 (topics: [words-in])\n' +
    '      --> KSTREAM-FLATMAPVALUES-0000000001\n' +
    '    Processor: KSTREAM-FLATMAPVALUES-0000000001 (stores: [])\n' +
    '      --> counts-repartition-sink\n' +
    '      <-- KSTREAM-SOURCE-0000000000\n' +
    '    Sink: counts-repartition-sink (topic: wc-counts-repartition)\n' +
    '      <-- KSTREAM-FLATMAPVALUES-0000000001\n' +
    '\n' +
    '   Sub-topology: 1 for global store (will not generate tasks)\n' +
    '    Source: g-source (topics: [a, b])\n' +
    '      --> g-processor\n' +
    '    Processor: g-processor (stores: [g-store])\n' +
    '      --> none\n' +
    '      <-- g-source\n' +
    '\n';
  assert.equal(formatTopology(topology), text);
  const d = group('Stable', []);
  assert.deepEqual(renderTopology({ ...d, topologyDescriptionStatus: 3, topologyDescription: topology }), {
    text: `${text}\n`,
    ok: true,
  });
  assert.deepEqual(renderTopology({ ...d, topologyDescriptionStatus: 1 }), {
    text: "\nError: No topology description is stored for streams group 'wc'.\n",
    ok: false,
  });
  assert.equal(
    renderTopology(d).text,
    "\nError: No topology description is available for streams group 'wc' (status: NOT_REQUESTED).\n",
  );
});
