// `tkafka acls` without a cluster: the option checks of Kafka 4.4's AclCommandOptions.checkArgs (the
// cases of Kafka's AclCommandTest: testUseBootstrapServerOptWithBootstrapControllerOpt,
// testUseWithoutBootstrapServerOptAndBootstrapControllerOpt, testExactlyOneAction,
// testUseListPrincipalsOptWithoutListOpt, testUseProducerOptWithoutTopicOpt,
// testUseIdempotentOptWithoutProducerOpt, testUseConsumerOptWithoutRequiredOpt, testInvalidArgs,
// testPatternTypes' invalid ones), the checks made before the first request (pattern types,
// principals, operations, resources), and the text Kafka prints (help, prompts, blocks).
// Each case that must stop before the network points at 127.0.0.1:1, where nothing listens: a case
// that went on to connect would fail with a connection error instead of the expected message.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { runTkafka } from './helpers/tool-run.js';
import { addingLines, groupByPattern, listLines, removeAllPrompt, removePrompt } from '../src/tools/acls/render.js';
import { LineReader } from '../src/tools/acls/prompt.js';

const NOWHERE = '127.0.0.1:1';
const home = mkdtempSync(join(tmpdir(), 'tkafka-acls-units-'));
/** No TKAFKA_BOOTSTRAP_SERVER, no profile. */
const ENV = { HOME: home, XDG_CONFIG_HOME: home };

test.after(() => rmSync(home, { recursive: true, force: true }));

const acls = (args: string[], input?: string) => runTkafka('acls', args, ENV, input);

/** A usage failure: Kafka's message on the first stderr line, the help after it, exit 1, nothing on stdout. */
async function assertUsage(args: string[], message: string): Promise<void> {
  const r = await acls(args);
  assert.equal(r.code, 1, r.err);
  assert.equal(r.out, '');
  const [first, second] = r.err.split('\n');
  assert.equal(first, message);
  assert.match(second!, /^Option\s+Description\s*$/);
}

test('testUseBootstrapServerOptWithBootstrapControllerOpt', async () => {
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--bootstrap-controller', NOWHERE],
    'Only one of --bootstrap-server or --bootstrap-controller must be specified',
  );
});

test('testUseWithoutBootstrapServerOptAndBootstrapControllerOpt (no flag, no environment, no profile)', async () => {
  await assertUsage(['--list'], 'One of --bootstrap-server or --bootstrap-controller must be specified');
  // TKAFKA_BOOTSTRAP_SERVER stands in for the flag: the next check speaks.
  const r = await runTkafka('acls', ['--list', '--add'], { ...ENV, TKAFKA_BOOTSTRAP_SERVER: NOWHERE });
  assert.equal(r.err.split('\n')[0], 'Command must include exactly one action: --list, --add, --remove. ');
});

test("testExactlyOneAction (with Kafka's trailing space)", async () => {
  const msg = 'Command must include exactly one action: --list, --add, --remove. ';
  await assertUsage(['--bootstrap-server', NOWHERE, '--add', '--list'], msg);
  await assertUsage(['--bootstrap-server', NOWHERE, '--add', '--list', '--remove'], msg);
  await assertUsage(['--bootstrap-server', NOWHERE, '--topic', 't'], msg);
});

test('testUseListPrincipalsOptWithoutListOpt', async () => {
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--principal', 'User:CN=client'],
    'The --principal option is only available if --list is set',
  );
});

test('testUseProducerOptWithoutTopicOpt', async () => {
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--producer'],
    'With --producer you must specify a --topic',
  );
});

test('testUseIdempotentOptWithoutProducerOpt', async () => {
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--idempotent'],
    'The --idempotent option is only available if --producer is set',
  );
});

test('testUseConsumerOptWithoutRequiredOpt', async () => {
  const msg =
    'With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.';
  await assertUsage(['--bootstrap-server', NOWHERE, '--add', '--consumer'], msg);
  await assertUsage(['--bootstrap-server', NOWHERE, '--add', '--consumer', '--topic', 't'], msg);
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--consumer', '--topic', 't', '--group', 'g', '--cluster'],
    msg,
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--consumer', '--topic', 't', '--group', 'g', '--transactional-id', 'x'],
    msg,
  );
});

test('testInvalidArgs', async () => {
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--list', '--producer'],
    'Option "[list]" can\'t be used with option "[producer]"',
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--producer', '--operation'],
    // jopt reads the missing argument first
    'Option operation requires an argument',
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--producer', '--operation', 'Read'],
    'Option "[producer]" can\'t be used with option "[operation]"',
  );
  await assertUsage(
    [
      '--bootstrap-server',
      NOWHERE,
      '--add',
      '--consumer',
      '--operation',
      'Read',
      '--topic',
      'test-topic',
      '--group',
      'test-group',
    ],
    'Option "[consumer]" can\'t be used with option "[operation]"',
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--list', '--allow-principal', 'User:a'],
    'Option "[list]" can\'t be used with option "[allow-principal]"',
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--producer', '--topic', 't', '--deny-principal', 'User:a'],
    'Option "[producer]" can\'t be used with option "[deny-principal]"',
  );
});

test('testPatternTypes: ANY and MATCH cannot add; UNKNOWN and junk are conversion errors', async () => {
  for (const p of ['ANY', 'match']) {
    await assertUsage(
      [
        '--bootstrap-server',
        NOWHERE,
        '--add',
        '--allow-principal',
        'User:a',
        '--producer',
        '--topic',
        'Test',
        '--resource-pattern-type',
        p,
      ],
      `A '--resource-pattern-type' value of '${p.toUpperCase()}' is not valid when adding acls.`,
    );
  }
  for (const action of ['--add', '--list', '--remove']) {
    for (const p of ['UNKNOWN', 'foo']) {
      const r = await acls([
        '--bootstrap-server',
        NOWHERE,
        action,
        '--topic',
        'Test',
        '--force',
        '--resource-pattern-type',
        p,
      ]);
      assert.equal(r.code, 1);
      assert.equal(
        r.out,
        `Error while executing ACL command: Cannot parse argument '${p}' of option resource-pattern-type\n` +
          `joptsimple.OptionArgumentConversionException: Cannot parse argument '${p}' of option resource-pattern-type\n`,
      );
    }
  }
});

test('checks before the first request: resources, principals, operations', async () => {
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--allow-principal', 'User:a'],
    'You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>',
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--topic', 't'],
    'You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.',
  );
  await assertUsage(
    [
      '--bootstrap-server',
      NOWHERE,
      '--add',
      '--topic',
      't',
      '--allow-principal',
      'User:a',
      '--operation',
      'ClusterAction',
    ],
    'ResourceType TOPIC only supports operations [ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS]',
  );
  await assertUsage(
    ['--bootstrap-server', NOWHERE, '--add', '--cluster', '--allow-principal', 'User:a', '--operation', 'read'],
    'ResourceType CLUSTER only supports operations [ALL, CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE]',
  );
  const bad = await acls(['--bootstrap-server', NOWHERE, '--add', '--topic', 't', '--allow-principal', 'alice']);
  assert.equal(bad.code, 1);
  assert.equal(
    bad.out,
    'Error while executing ACL command: expected a string in format principalType:principalName but got alice\n' +
      'java.lang.IllegalArgumentException: expected a string in format principalType:principalName but got alice\n',
  );
  const any = await acls([
    '--bootstrap-server',
    NOWHERE,
    '--add',
    '--topic',
    't',
    '--allow-principal',
    'User:a',
    '--operation',
    'Any',
  ]);
  assert.equal(any.out.split('\n')[0], 'Error while executing ACL command: operation must not be ANY');
});

test('--help, no arguments and --version', async () => {
  for (const args of [['--help'], []]) {
    const r = await acls(args);
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    const lines = r.err.split('\n');
    assert.equal(lines[0], 'This tool helps to manage acls on kafka.');
    assert.match(
      r.err,
      /\n--resource-pattern-type {18}The type of the resource pattern or {4}\n {2}<ANY\|MATCH\|LITERAL\|PREFIXED> /,
    );
    assert.match(r.err, /\(default: LITERAL\)/);
    assert.match(r.err, /\n\s+\tTwoPhaseCommit\s*\n/);
  }
  const v = await acls(['--version']);
  assert.equal(v.code, 0);
  assert.match(v.out, /^\S+\n$/);
});

test('Kafka 4.4 text: adding block, current block, principal listing, questions', () => {
  const pattern = { resourceType: 'TOPIC', name: 'orders-', patternType: 'PREFIXED' } as const;
  const alice = { principal: 'User:alice', host: '*', operation: 'WRITE', permissionType: 'ALLOW' } as const;
  const bob = { principal: 'User:bob', host: '10.0.0.1', operation: 'READ', permissionType: 'DENY' } as const;
  assert.equal(
    addingLines(pattern, [alice, bob]),
    'Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders-, patternType=PREFIXED)`: \n' +
      ' \t(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)\n' +
      '\t(principal=User:bob, host=10.0.0.1, operation=READ, permissionType=DENY)\n',
  );
  const blocks = groupByPattern([
    { pattern, entry: bob },
    { pattern, entry: alice },
    { pattern, entry: alice },
    { pattern: { resourceType: 'CLUSTER', name: 'kafka-cluster', patternType: 'LITERAL' }, entry: alice },
  ]);
  assert.deepEqual(
    blocks.map((b) => [b.pattern.resourceType, b.acls.length]),
    [
      ['TOPIC', 2],
      ['CLUSTER', 1],
    ],
  );
  assert.equal(
    listLines(blocks, ['User:bob', 'User:nobody']),
    'ACLs for principal `User:bob`\n' +
      'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders-, patternType=PREFIXED)`:\n' +
      '\t(principal=User:bob, host=10.0.0.1, operation=READ, permissionType=DENY)\n\n' +
      'ACLs for principal `User:nobody`\n',
  );
  assert.equal(
    removePrompt(pattern, [alice]),
    'Are you sure you want to remove ACLs: \n \t(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)\n from resource filter `ResourcePattern(resourceType=TOPIC, name=orders-, patternType=PREFIXED)`? (y/n)',
  );
  assert.equal(
    removeAllPrompt({ resourceType: 'GROUP', name: 'g', patternType: 'MATCH' }),
    'Are you sure you want to delete all ACLs for resource filter `ResourcePattern(resourceType=GROUP, name=g, patternType=MATCH)`? (y/n)',
  );
});

test('answers are read line by line from stdin; end of input is no answer', async () => {
  const r = new LineReader(Readable.from([Buffer.from('y\r\nN\nlast')]));
  assert.equal(await r.next(), 'y');
  assert.equal(await r.next(), 'N');
  assert.equal(await r.next(), 'last');
  assert.equal(await r.next(), null);
  r.close();
});

test('an unreachable cluster: one line inside Kafka\'s "Error while executing ACL command", exit 1', async () => {
  const r = await acls(['--bootstrap-server', NOWHERE, '--list']);
  assert.equal(r.code, 1);
  assert.match(r.out, /^Error while executing ACL command: .*127\.0\.0\.1:1.*\n$/);
  assert.equal(r.err, '');
});
