// server.properties for a cluster of test/helpers/cluster.ts (startCluster with brokerListener
// 'BROKER') where every listener is SASL_SSL, as Kafka's docs secure a KRaft cluster, readable by
// tkafka and by Apache Kafka 4.4.0 alike:
// - CONTROLLER: SASL_SSL with PLAIN (sasl.mechanism.controller.protocol), users in its JAAS;
// - BROKER (inter-broker and clients): SASL_SSL with SCRAM-SHA-512 (sasl.mechanism.inter.broker.protocol),
//   the users made by `storage format --add-scram` on the controllers (SCRAM_FORMAT_ARGS);
// - TLS: the test certificates' PKCS12 key store (CN=localhost, SAN IP:127.0.0.1) and the test CA as
//   PEM trust store, on both listeners (hostname verification, Kafka's default, holds for 127.0.0.1).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STORE_PASSWORD, type TestCerts } from './certs.js';
import { propertiesText } from './cluster.js';
import { runTkafka } from './tool-run.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';

export const CONTROLLER_PASSWORD = 'controller-secret';
export const BROKER_PASSWORD = 'broker-secret';

/** `storage format` arguments for the controllers: the inter-broker user and the clients' user alice. */
export const SCRAM_FORMAT_ARGS = [
  '--add-scram',
  `SCRAM-SHA-512=[name=broker,password=${BROKER_PASSWORD}]`,
  '--add-scram',
  'SCRAM-SHA-512=[name=alice,password=alice-secret]',
];

/** Every node's settings; `controllerPassword` / `brokerPassword` are what this node sends. */
export function securedNodeProperties(
  certs: TestCerts,
  opts: { controllerPassword?: string; brokerPassword?: string } = {},
): Record<string, string> {
  const tls = (l: string): Record<string, string> => ({
    [`listener.name.${l}.ssl.keystore.type`]: 'PKCS12',
    [`listener.name.${l}.ssl.keystore.location`]: certs.server.keystoreP12Path,
    [`listener.name.${l}.ssl.keystore.password`]: STORE_PASSWORD,
    [`listener.name.${l}.ssl.truststore.type`]: 'PEM',
    [`listener.name.${l}.ssl.truststore.location`]: certs.ca.certPath,
  });
  return {
    'listener.security.protocol.map': 'CONTROLLER:SASL_SSL,BROKER:SASL_SSL',
    ...tls('controller'),
    ...tls('broker'),
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': `${PLAIN_MODULE} required username="controller" password="${opts.controllerPassword ?? CONTROLLER_PASSWORD}" user_controller="${CONTROLLER_PASSWORD}";`,
    'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    'listener.name.broker.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'listener.name.broker.scram-sha-512.sasl.jaas.config': `${SCRAM_MODULE} required username="broker" password="${opts.brokerPassword ?? BROKER_PASSWORD}";`,
  };
}

/** A client properties file (in the certificates' dir) for alice over SASL_SSL SCRAM-SHA-512. */
export function aliceClientProperties(certs: TestCerts): string {
  const file = join(certs.dir, 'alice.properties');
  writeFileSync(
    file,
    propertiesText({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': `${SCRAM_MODULE} required username="alice" password="alice-secret";`,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.ca.certPath,
    }),
  );
  return file;
}

/** Partition `partition`'s leader and ISR from `tkafka topics --describe` through `bootstrap`; null when not shown. */
export async function describePartition(
  bootstrap: string,
  clientProps: string,
  topic: string,
  partition = 0,
): Promise<{ leader: number; isr: number[] } | null> {
  const r = await runTkafka('topics', [
    '--bootstrap-server',
    bootstrap,
    '--command-config',
    clientProps,
    '--describe',
    '--topic',
    topic,
  ]);
  const m = new RegExp(`Partition: ${partition}\\s+Leader: (-?\\d+)\\s+Replicas: [\\d,]+\\s+Isr: ([\\d,]*)`).exec(
    r.out,
  );
  return m ? { leader: Number(m[1]), isr: m[2]!.split(',').filter(Boolean).map(Number) } : null;
}

/**
 * `tkafka console-consumer` of `n` records of partition 0 from the earliest offset, assigned (no
 * group: __consumer_offsets has one replica in these clusters); its stdout, or the error and `context`.
 */
export async function consumeAssigned(
  bootstrap: string,
  clientProps: string,
  topic: string,
  n: number,
  context: () => string = () => '',
): Promise<string> {
  const r = await runTkafka('console-consumer', [
    '--bootstrap-server',
    bootstrap,
    '--command-config',
    clientProps,
    '--topic',
    topic,
    '--partition',
    '0',
    '--offset',
    'earliest',
    '--max-messages',
    String(n),
    '--timeout-ms',
    '30000',
  ]);
  if (r.code !== 0 || r.out.split('\n').length - 1 !== n)
    throw new Error(
      `consuming ${n} records of ${topic} through ${bootstrap} failed (exit ${r.code}): ${r.err}\n${context()}`,
    );
  return r.out;
}

/**
 * The size of `topic`-0 on each broker's log dirs (`tkafka log-dirs --describe`, DescribeLogDirs to
 * every broker): a follower's size equal to the leader's shows it fetched every byte.
 */
export async function replicaSizes(
  bootstrap: string,
  clientProps: string,
  topic: string,
): Promise<Map<number, number>> {
  const r = await runTkafka('log-dirs', [
    '--bootstrap-server',
    bootstrap,
    '--command-config',
    clientProps,
    '--describe',
    '--topic-list',
    topic,
  ]);
  const json = r.out.split('\n').find((l) => l.startsWith('{'));
  if (r.code !== 0 || json === undefined) throw new Error(`log-dirs failed (exit ${r.code}): ${r.out}${r.err}`);
  const parsed = JSON.parse(json) as {
    brokers: { broker: number; logDirs: { partitions: { partition: string; size: number }[] }[] }[];
  };
  const sizes = new Map<number, number>();
  for (const b of parsed.brokers)
    for (const d of b.logDirs)
      for (const p of d.partitions) if (p.partition === `${topic}-0`) sizes.set(b.broker, p.size);
  return sizes;
}
