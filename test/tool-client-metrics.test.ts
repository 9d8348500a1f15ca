// `tkafka client-metrics` against a tkafka broker, with kafka-client-metrics.sh's texts (recorded from
// Kafka 4.4.0's tool; interop/client-telemetry-kafka.test.ts runs both side by side): usage and
// argument errors, alter/list/describe/delete, and a subscription reaching GetTelemetrySubscriptions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { runTkafka } from './helpers/tool-run.js';
import { withRawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/frame.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
let broker: BrokerProcess;

before(async () => {
  broker = await startBroker({ overrides: { 'tkafka.client.telemetry.enable': true } });
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

const tool = (args: string[]) => runTkafka('client-metrics', args);

test('usage and argument errors', async () => {
  const B = broker.bootstrap;
  const usage: [string[], string][] = [
    [[], 'This tool helps to manipulate and describe client metrics configurations.'],
    [['--bootstrap-server', B], 'Command must include exactly one action: --alter, --delete, --describe or --list.'],
    [
      ['--bootstrap-server', B, '--list', '--describe'],
      'Command must include exactly one action: --alter, --delete, --describe or --list.',
    ],
    [['--bootstrap-server', B, '--list', '--name', 'x'], 'Option "[list]" can\'t be used with option "[name]"'],
    [
      ['--bootstrap-server', B, '--describe', '--metrics', 'x'],
      'Option "[describe]" can\'t be used with option "[metrics]"',
    ],
  ];
  for (const [args, line] of usage) {
    const r = await tool(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.out, '');
    const lines = r.err.split('\n');
    assert.equal(lines[0], line);
    assert.match(lines[1]!, /^Option +Description/, 'then the help table');
  }
  const argument: [string[], string][] = [
    [['--list'], '--bootstrap-server must be specified.'],
    [['--bootstrap-server', B, '--alter'], 'One of --name or --generate-name must be specified with --alter.'],
    [
      ['--bootstrap-server', B, '--alter', '--name', 'a', '--generate-name'],
      'One of --name or --generate-name must be specified with --alter.',
    ],
    [['--bootstrap-server', B, '--delete'], 'A client metrics resource name must be specified with --delete.'],
    [
      ['--bootstrap-server', B, '--alter', '--name', 'a', '--interval', 'abc'],
      'Invalid interval value. Enter an integer, or leave empty to reset.',
    ],
  ];
  for (const [args, line] of argument) {
    const r = await tool(args);
    assert.deepEqual(
      [r.code, r.out, r.err],
      [1, '', `${line}\njava.lang.IllegalArgumentException: ${line}\n`],
      args.join(' '),
    );
  }
  const version = await tool(['--version']);
  assert.equal(version.code, 0);
});

test('alter, list, describe, delete', async () => {
  const B = ['--bootstrap-server', broker.bootstrap];
  assert.deepEqual(await tool([...B, '--list']), { code: 0, out: '\n', err: '' });
  const alter = await tool([
    ...B,
    '--alter',
    '--name',
    'sub1',
    '--metrics',
    'org.apache.kafka.producer.,org.apache.kafka.consumer.',
    '--interval',
    '1000',
    '--match',
    'client_id=perf.*,client_software_name=apache-kafka-java',
  ]);
  assert.deepEqual(alter, { code: 0, out: 'Altered client metrics config for sub1.\n', err: '' });
  assert.deepEqual((await tool([...B, '--alter', '--name', 'sub2', '--metrics', '*', '--interval', '2000'])).code, 0);
  // an empty --interval deletes interval.ms
  assert.equal(
    (await tool([...B, '--alter', '--name', 'sub2', '--interval', ''])).out,
    'Altered client metrics config for sub2.\n',
  );
  const refused = await tool([...B, '--alter', '--name', 'sub2', '--interval', '50']);
  assert.deepEqual(
    [refused.code, refused.out],
    [
      1,
      'Error while executing client metrics command : Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)\n',
    ],
  );
  // Kafka's order (its ConcurrentHashMap of subscriptions)
  assert.equal((await tool([...B, '--list'])).out, 'sub2\nsub1\n');
  assert.equal(
    (await tool([...B, '--describe'])).out,
    [
      'Client metrics configs for sub2 are:',
      '  interval.ms=300000',
      '  match=',
      '  metrics=*',
      'Client metrics configs for sub1 are:',
      '  interval.ms=1000',
      '  match=client_id=perf.*,client_software_name=apache-kafka-java',
      '  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer.',
      '',
    ].join('\n'),
  );
  assert.equal(
    (await tool([...B, '--describe', '--name', 'nope'])).out,
    "The client metric resource nope doesn't exist and doesn't have dynamic config.\n",
  );
  assert.deepEqual(JSON.parse((await tool([...B, '--list', '--output', 'json'])).out), { resources: ['sub2', 'sub1'] });
  // the broker answers with the subscription at once
  const got = await withRawClient(broker.port, (c) =>
    c.request(ApiKey.GetTelemetrySubscriptions, 0, { clientInstanceId: ZERO }),
  );
  assert.deepEqual([got.errorCode, got.requestedMetrics, got.pushIntervalMs], [0, ['*'], 300000]);
  assert.equal((await tool([...B, '--delete', '--name', 'sub2'])).out, 'Deleted client metrics config for sub2.\n');
  assert.equal((await tool([...B, '--list'])).out, 'sub1\n');
});
