// tkafka share-groups without a cluster: Kafka 4.4's usage messages (ShareGroupCommandOptions.
// checkArgs, in its order) and the text renderings of ShareGroupService (column widths, sort
// orders, the state messages).
import test from 'node:test';
import assert from 'node:assert/strict';
import { runTkafka } from './helpers/tool-run.js';
import {
  assignmentString,
  renderDelete,
  renderList,
  renderMembers,
  renderOffsets,
  renderReset,
  renderState,
  parseStates,
  toView,
  offsetRows,
  type ShareGroupView,
} from '../src/tools/share-groups/ops.js';

const BS = ['--bootstrap-server', '127.0.0.1:1'];

async function usage(args: string[]): Promise<string> {
  const r = await runTkafka('share-groups', [...BS, ...args], {});
  assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  assert.match(r.err, /\nOption +Description/);
  return r.err.split('\n')[0]!;
}

test('usage messages', async () => {
  const cases: [string[], string][] = [
    [
      ['--all-groups'],
      'Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets.',
    ],
    [['--describe'], 'Option [describe] takes one of these options: [all-groups], [group]'],
    [
      ['--describe', '--group', 'g', '--members', '--offsets'],
      'Option [describe] takes at most one of these options: [members], [offsets], [state]',
    ],
    [['--describe', '--group', 'g', '--state', 'x'], 'Option [describe] does not take a value for [state]'],
    [['--delete'], 'Option [delete] takes the options [group] or [all-groups].'],
    [['--delete', '--group', 'g', '--all-groups'], 'Option [delete] takes either [group] or [all-groups], not both.'],
    [
      ['--delete', '--group', 'g', '--all-topics'],
      'Option [delete] does not take the options [topic] or [all-topics].',
    ],
    [['--delete-offsets', '--topic', 't'], 'Option [delete-offsets] takes the following options: [group], [topic]'],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--execute'],
      'Option [reset-offsets] only accepts one of [execute] and [dry-run]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--to-latest', '--all-topics'],
      'Option [reset-offsets] takes the option: [execute] or [dry-run]',
    ],
    [
      ['--reset-offsets', '--dry-run', '--to-latest', '--all-topics'],
      'Option [reset-offsets] takes the option: [group]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--to-latest'],
      'Option [reset-offsets] takes one of these options: [all-topics], [from-file], [topic]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--topic', 't', '--all-topics', '--to-latest'],
      'Option "[topic]" can\'t be used with option "[all-topics]"',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--topic', 't'],
      'Option [reset-offsets] takes one of these options: [from-file], [to-current], [to-datetime], [to-earliest], [to-latest], [to-offset]',
    ],
    [
      ['--reset-offsets', '--group', 'g', '--dry-run', '--topic', 't', '--to-latest', '--to-earliest'],
      'Option "[to-earliest]" can\'t be used with option "[to-latest]"',
    ],
    [['--list', '--group', 'g'], 'Option "[group]" can\'t be used with option "[list]"'],
    [['--describe', '--group', 'g', '--topic', 't'], 'Option "[topic]" can\'t be used with option "[describe]"'],
  ];
  for (const [args, message] of cases) assert.equal(await usage(args), message, args.join(' '));
  const unavailable = await runTkafka('share-groups', [...BS, '--list', '--members'], {});
  assert.equal(unavailable.code, 1);
  assert.equal(unavailable.err, 'Option(s) [members] are unavailable given other options on the command line\n');
});

test('state lists', () => {
  assert.deepEqual(parseStates('stable, EMPTY'), ['Stable', 'Empty']);
  assert.throws(
    () => parseStates('Stable,Assigning'),
    /^UsageError: Invalid state list 'Stable,Assigning'. Valid states are: Stable, Dead, Empty$/,
  );
});

test('list renderings', () => {
  const groups = [
    { groupId: 'a-rather-long-share-group', protocolType: 'share', state: 'Stable', type: 'Share' },
    { groupId: 'q', protocolType: 'share', state: null, type: 'Share' },
  ];
  assert.equal(renderList(groups, false), 'a-rather-long-share-group\nq\n');
  assert.equal(
    renderList(groups, true),
    'GROUP                     STATE\na-rather-long-share-group Stable\nq                         Unknown\n',
  );
  assert.equal(renderList([], true), 'GROUP           STATE\n');
});

function view(): ShareGroupView {
  const offsets = new Map([
    ['b-0', { tp: { topic: 'b', partition: 0 }, startOffset: 7n, leaderEpoch: 0, lag: 3n }],
    ['a-10', { tp: { topic: 'a', partition: 10 }, startOffset: null, leaderEpoch: null, lag: null }],
    ['a-2', { tp: { topic: 'a', partition: 2 }, startOffset: 0n, leaderEpoch: 1, lag: 0n }],
  ]);
  return toView(
    {
      groupId: 'g1',
      state: 'Stable',
      groupEpoch: 5,
      targetAssignmentEpoch: 4,
      assignor: 'simple',
      coordinator: { id: 1, host: 'localhost', port: 9092, rack: null },
      members: [
        {
          memberId: 'zz-member',
          rackId: null,
          memberEpoch: 5,
          clientId: 'c2',
          host: '/127.0.0.1',
          subscribedTopicNames: ['a', 'b'],
          assignment: [
            { topic: 'b', partition: 0 },
            { topic: 'a', partition: 10 },
            { topic: 'a', partition: 2 },
          ],
        },
        {
          memberId: 'aa-member-with-a-long-id',
          rackId: null,
          memberEpoch: 4,
          clientId: 'c1',
          host: '/127.0.0.1',
          subscribedTopicNames: ['a'],
          assignment: [],
        },
      ],
    },
    offsetRows(offsets),
  );
}

test('describe renderings: offsets, members, state', () => {
  const v = view();
  assert.equal(assignmentString(v.members[1]!.assignment), 'a:2,10;b:0');
  assert.equal(
    renderOffsets(v, false),
    '\nGROUP           TOPIC           PARTITION  START-OFFSET  LAG' +
      '\ng1              a               2          0             0' +
      '\ng1              a               10         -             -' +
      '\ng1              b               0          7             3\n',
  );
  assert.equal(
    renderOffsets(v, true).split('\n')[1],
    'GROUP           TOPIC           PARTITION  LEADER-EPOCH  START-OFFSET  LAG',
  );
  assert.equal(renderOffsets({ ...v, offsets: [] }, false), "\nShare group 'g1' has no offset information.\n");
  assert.equal(
    renderMembers(v, false),
    '\nGROUP           CONSUMER-ID              HOST            CLIENT-ID       #PARTITIONS  ASSIGNMENT' +
      '\ng1              aa-member-with-a-long-id /127.0.0.1      c1              0            ' +
      '\ng1              zz-member                /127.0.0.1      c2              3            a:2,10;b:0\n',
  );
  assert.equal(
    renderMembers(v, true).split('\n')[3],
    'g1              zz-member                /127.0.0.1      c2              3            5             a:2,10;b:0',
  );
  assert.equal(
    renderState(v, false),
    '\nGROUP           COORDINATOR (ID)          STATE           #MEMBERS' +
      '\ng1              localhost:9092  (1)       Stable          2\n',
  );
  assert.equal(
    renderState(v, true),
    '\nGROUP           COORDINATOR (ID)          STATE           GROUP-EPOCH  ASSIGNMENT-EPOCH  #MEMBERS' +
      '\ng1              localhost:9092  (1)       Stable          5            4                 2\n',
  );
});

test('delete and reset renderings', () => {
  assert.equal(renderDelete(['a', 'b'], []), "Deletion of requested share groups ('a', 'b') was successful.\n");
  assert.equal(
    renderDelete(
      ['a'],
      [['x', "org.apache.kafka.common.errors.GroupNotEmptyException: Share group 'x' is not EMPTY."]],
    ),
    "\nError: Deletion of some share groups failed:\n* Group 'x' could not be deleted due to: " +
      "org.apache.kafka.common.errors.GroupNotEmptyException: Share group 'x' is not EMPTY.\n" +
      "\nThese share groups were deleted successfully: 'a'\n",
  );
  assert.equal(
    renderReset('g', [
      { tp: { topic: 'b', partition: 0 }, offset: 3n },
      { tp: { topic: 'a', partition: 1 }, offset: 0n },
    ]),
    '\nGROUP           TOPIC           PARTITION  NEW-OFFSET' +
      '\ng               a               1          0' +
      '\ng               b               0          3\n',
  );
  assert.equal(renderReset('g', []), '\n');
});
