// The secured pair of issue 18's proving tests (acl-tenant.test.ts, acl-admin-librdkafka.test.ts): a
// tkafka node and an Apache Kafka 4.4.0 node, both with
// authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer, a PLAINTEXT listener
// (whose ANONYMOUS principal is a super user, as Kafka's own broker-to-controller connections need)
// and a SASL_PLAINTEXT listener `SASL` with SCRAM-SHA-512. `createUsers` makes SCRAM-SHA-512
// credentials (`<user>-secret`) with `tkafka configs --entity-type users` through PLAINTEXT, the same
// request on both; User:admin is a super user.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from '../helpers/apache-kafka.js';
import { startBroker, boundPorts, type BrokerProcess } from '../../helpers/broker-process.js';
import { runTkafka } from '../../helpers/tool-run.js';

export const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';
const AUTHZ = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'super.users': 'User:admin;User:ANONYMOUS',
};
const SASL = {
  'listener.name.sasl.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
  'listener.name.sasl.scram-sha-512.sasl.jaas.config': `${SCRAM_MODULE} required;`,
};

export interface Node {
  name: 'Kafka 4.4.0' | 'tkafka';
  /** PLAINTEXT listener (ANONYMOUS, a super user). */
  plaintext: string;
  /** SASL_PLAINTEXT listener, SCRAM-SHA-512. */
  sasl: string;
}

export interface SecuredPair {
  kafka: ApacheKafka;
  tkafka: BrokerProcess;
  kafkaNode: Node;
  tkafkaNode: Node;
  /** A scratch directory, removed by cleanup. */
  dir: string;
  /** A client properties file for `user` on the SASL listener. */
  clientConfig(user: string): string;
  cleanup(): Promise<void>;
}

export async function startSecuredPair(): Promise<SecuredPair> {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-acl-pair-'));
  const kafka = await startApacheKafka({
    extraListeners: { SASL: 'SASL_PLAINTEXT' },
    overrides: { ...AUTHZ, ...SASL },
  });
  let tkafka: BrokerProcess;
  try {
    tkafka = await startBroker({
      overrides: {
        listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASL://127.0.0.1:0',
        'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SASL://127.0.0.1:0',
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT',
        ...SASL,
        ...AUTHZ,
      },
    });
  } catch (e) {
    await kafka.cleanup();
    throw e;
  }
  const ports = boundPorts(tkafka.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL'])!;
  return {
    kafka,
    tkafka,
    dir,
    kafkaNode: { name: 'Kafka 4.4.0', plaintext: kafka.bootstrap, sasl: `127.0.0.1:${kafka.listenerPorts['SASL']}` },
    tkafkaNode: { name: 'tkafka', plaintext: tkafka.bootstrap, sasl: `127.0.0.1:${ports.get('SASL')}` },
    clientConfig(user) {
      const file = join(dir, `${user}.properties`);
      writeFileSync(
        file,
        [
          'security.protocol=SASL_PLAINTEXT',
          'sasl.mechanism=SCRAM-SHA-512',
          `sasl.jaas.config=${SCRAM_MODULE} required username="${user}" password="${user}-secret";`,
          '',
        ].join('\n'),
      );
      return file;
    },
    async cleanup() {
      await kafka.cleanup();
      await tkafka.stop();
      tkafka.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `tkafka <tool> <args>`'s stdout; throws with its output when it exits non-zero. */
export async function tkafkaTool(tool: string, args: string[]): Promise<string> {
  const r = await runTkafka(tool, args);
  if (r.code !== 0) throw new Error(`tkafka ${tool} ${args.join(' ')} failed (exit ${r.code}): ${r.out}${r.err}`);
  return r.out;
}

/** SCRAM-SHA-512 credentials `<user>-secret` for each user, through `node`'s PLAINTEXT listener. */
export async function createUsers(node: Node, users: string[]): Promise<void> {
  for (const user of users)
    await tkafkaTool('configs', [
      '--bootstrap-server',
      node.plaintext,
      '--alter',
      '--entity-type',
      'users',
      '--entity-name',
      user,
      '--add-config',
      `SCRAM-SHA-512=[password=${user}-secret]`,
    ]);
}
