// Client quotas compared with Apache Kafka 4.4.0: the same quota commands of Kafka's ConfigCommand
// (kafka-configs.sh, which manages quotas in 4.4) and of `tkafka configs` run against a Kafka node
// and a tkafka node print the same output and exit the same way, `--describe` included; and one
// AlterClientQuotas request mixing valid and invalid entities gets the same answer from both, entry
// order and messages included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runKafkaTool, startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { runTkafka } from '../helpers/tool-run.js';
import { ApiKey } from '../../src/protocol/frame.js';

const CONFIG_COMMAND = 'org.apache.kafka.tools.ConfigCommand';

let kafka: ApacheKafka | null = null;
let broker: BrokerProcess | null = null;

before(async () => {
  [kafka, broker] = await Promise.all([startApacheKafka(), startBroker()]);
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
  await kafka?.cleanup();
});

interface Out {
  code: number;
  out: string;
  err: string;
}

/** The first two stderr lines, the node's address (quoted in the args line) made neutral. */
function firstLines(err: string, bootstrap: string): string {
  return err.split('\n').slice(0, 2).join('\n').replaceAll(bootstrap, '<bootstrap>');
}

async function kafkaTool(bootstrap: string, args: string[]): Promise<Out> {
  const r = await runKafkaTool(CONFIG_COMMAND, ['--bootstrap-server', bootstrap, ...args]);
  return { code: r.exitCode, out: r.stdout, err: firstLines(r.stderr, bootstrap) };
}

async function tkafkaTool(bootstrap: string, args: string[]): Promise<Out> {
  const r = await runTkafka('configs', ['--bootstrap-server', bootstrap, ...args]);
  return { code: r.code, out: r.out, err: firstLines(r.err, bootstrap) };
}

/** Runs one command with Kafka's tool on both nodes (and tkafka's when `both`): all the same. */
async function same(args: string[], both = true): Promise<Out> {
  const onKafka = await kafkaTool(kafka!.bootstrap, args);
  const onTkafka = await kafkaTool(broker!.bootstrap, args);
  assert.deepEqual(onTkafka, onKafka, `kafka-configs ${args.join(' ')}: tkafka node vs Kafka node`);
  if (both) {
    const tk = await tkafkaTool(broker!.bootstrap, args);
    assert.deepEqual(tk, onKafka, `tkafka configs ${args.join(' ')} vs kafka-configs`);
  }
  return onKafka;
}

test('kafka-configs.sh and tkafka configs set and describe quotas alike on both nodes', async () => {
  const alters: string[][] = [
    [
      '--entity-type',
      'users',
      '--entity-name',
      'alice',
      '--add-config',
      'producer_byte_rate=1024,consumer_byte_rate=2048',
    ],
    ['--entity-type', 'clients', '--entity-default', '--add-config', 'request_percentage=50.5'],
    [
      '--entity-type',
      'users',
      '--entity-name',
      'alice',
      '--entity-type',
      'clients',
      '--entity-name',
      'app',
      '--add-config',
      'controller_mutation_rate=10',
    ],
    ['--entity-type', 'ips', '--entity-name', '127.0.0.1', '--add-config', 'connection_creation_rate=10'],
  ];
  for (const a of alters) {
    const r = await same(['--alter', ...a], false);
    assert.equal(r.code, 0, r.err);
  }
  // tkafka's tool alters both nodes the same way too
  const tkAlter = ['--alter', '--entity-type', 'users', '--entity-default', '--add-config', 'producer_byte_rate=4096'];
  const onKafka = await tkafkaTool(kafka!.bootstrap, tkAlter);
  assert.deepEqual(await tkafkaTool(broker!.bootstrap, tkAlter), onKafka);
  assert.equal(onKafka.code, 0, onKafka.err);
  // an invalid value: the broker's message, the same on both
  const bad = await same(
    ['--alter', '--entity-type', 'users', '--entity-name', 'bob', '--add-config', 'producer_byte_rate=1.5'],
    false,
  );
  assert.notEqual(bad.code, 0);
  for (const d of [
    ['--entity-type', 'users'],
    ['--entity-type', 'clients'],
    ['--entity-type', 'users', '--entity-name', 'alice', '--entity-type', 'clients'],
    ['--entity-type', 'ips'],
  ]) {
    const r = await same(['--describe', ...d]);
    assert.equal(r.code, 0, r.err);
    assert.notEqual(r.out, '', d.join(' '));
  }
});

test('AlterClientQuotas: the same per-entity answers, in the same order, from both nodes', async () => {
  const e = (pairs: [string, string | null][]): { entityType: string; entityName: string | null }[] =>
    pairs.map(([entityType, entityName]) => ({ entityType, entityName }));
  const op = (key: string, value: number, remove = false): { key: string; value: number; remove: boolean } => ({
    key,
    value,
    remove,
  });
  const request = {
    validateOnly: true,
    entries: [
      { entity: e([['user', 'u1']]), ops: [op('producer_byte_rate', 100)] },
      {
        entity: e([
          ['client-id', 'c1'],
          ['user', 'u1'],
        ]),
        ops: [op('consumer_byte_rate', 1.5)],
      },
      {
        entity: e([
          ['ip', '10.0.0.1'],
          ['user', 'u2'],
        ]),
        ops: [op('connection_creation_rate', 5)],
      },
      { entity: e([['ip', 'example.invalid']]), ops: [op('connection_creation_rate', 5)] },
      { entity: e([['ip', null]]), ops: [op('producer_byte_rate', 5)] },
      { entity: e([['user', 'u3']]), ops: [op('request_percentage', 10), op('request_percentage', 20)] },
      { entity: e([['user', 'u1']]), ops: [op('consumer_byte_rate', 1, true)] },
      { entity: e([['foo', 'bar']]), ops: [op('producer_byte_rate', 5)] },
      { entity: e([['user', '']]), ops: [op('producer_byte_rate', 5)] },
      { entity: e([]), ops: [op('producer_byte_rate', 5)] },
      { entity: e([['client-id', null]]), ops: [op('producer_byte_rate', 0)] },
      { entity: e([['ip', '::1']]), ops: [op('connection_creation_rate', 2 ** 31)] },
    ],
  };
  const answer = async (port: number): Promise<unknown> => {
    const c = await RawClient.connect(port);
    try {
      return (await c.request(ApiKey.AlterClientQuotas, 1, request)).entries;
    } finally {
      c.close();
    }
  };
  const fromKafka = await answer(kafka!.port);
  assert.deepEqual(await answer(broker!.port), fromKafka);
});
