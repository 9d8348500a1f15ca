// The client families of the matrix (test/clients/README.md's table) and the scenario ids.
// A family is one program run as `<argv...> <scenario> <bootstrap>` from the repo root; its
// `version` scenario prints the client library's version. `needs` are the files (relative to the
// repo root) that its setup.sh produces or that the program is: when one is absent the family is
// reported as "setup missing" without being run.

export interface Family {
  /** Short id, used with --family and in results.json (the `m-<family>-` prefix is the program's). */
  name: string;
  /** The label of the README table. */
  label: string;
  /** The command line, relative to the repo root; the runner appends `<scenario> <bootstrap>`. */
  argv: string[];
  /** Files that must exist before the family can run (relative to the repo root). */
  needs: string[];
  /** The setup script that installs it (relative to the repo root). */
  setup: string;
}

export const SCENARIOS = [
  'metadata-named',
  'metadata-all',
  'admin-topics',
  'admin-configs',
  'produce-consume',
  'idempotent',
  'group-classic',
  'group-consumer',
  'group-upgrade',
  'group-downgrade',
  'transactions',
  'txn-v2',
  'list-offsets-time',
  'delete-records',
  // security (test/clients/security.ts): through a secured listener; then a wrong password / no client certificate fails
  'sasl-plain',
  'sasl-scram-256',
  'sasl-scram-512',
  'sasl-ssl-scram-512',
  'ssl-mtls',
  'sasl-oauthbearer',
] as const;

export type Scenario = (typeof SCENARIOS)[number];

/**
 * Scenarios only some families run (the others are recorded n/a without being started): group-upgrade
 * needs a client that speaks both the classic and the KIP-848 protocol and a rolling restart between them.
 */
/** The families whose programs have the security scenarios (test/clients/security.ts). */
const SECURITY_FAMILIES = ['confluent-kafka', 'kafka-python', 'kcat', 'java', 'franz-go', 'kafkajs'];

export const SCENARIO_FAMILIES: Partial<Record<Scenario, readonly string[]>> = {
  'group-upgrade': ['java'],
  'group-downgrade': ['java'],
  // transactions V2: the two clients that run it at 1,000 transactions, and kafkajs as the V1 client
  'txn-v2': ['java', 'confluent-kafka', 'kafkajs'],
  // security: the programs of sarama and @platformatic/kafka do not have these scenarios yet (they have sasl-oauthbearer)
  'sasl-plain': SECURITY_FAMILIES,
  'sasl-scram-256': SECURITY_FAMILIES,
  'sasl-scram-512': SECURITY_FAMILIES,
  'sasl-ssl-scram-512': SECURITY_FAMILIES,
  'ssl-mtls': SECURITY_FAMILIES,
  // the programs of sarama and @platformatic/kafka have OAUTHBEARER only (a token provider / token)
  'sasl-oauthbearer': [...SECURITY_FAMILIES, 'sarama', 'platformatic'],
};

const PY = '.cache/clients/venv/bin/python';
const NODE24 = '.cache/clients/node24/bin/node';
/** Where go/setup.sh builds the Go programs (TKAFKA_GO_BIN: a worktree sharing .cache with another checkout). */
const GO_BIN = process.env.TKAFKA_GO_BIN ?? '.cache/clients/bin';

export const FAMILIES: Family[] = [
  {
    name: 'confluent-kafka',
    label: 'confluent-kafka (librdkafka 2.15)',
    argv: [PY, 'test/clients/python/confluent_client.py'],
    needs: [PY, 'test/clients/python/confluent_client.py'],
    setup: 'test/clients/python/setup.sh',
  },
  {
    name: 'kafka-python',
    label: 'kafka-python 3.0',
    argv: [PY, 'test/clients/python/kafka_python_client.py'],
    needs: [PY, 'test/clients/python/kafka_python_client.py'],
    setup: 'test/clients/python/setup.sh',
  },
  {
    name: 'kcat',
    label: "kcat (Debian's librdkafka)",
    argv: ['bash', 'test/clients/kcat/client.sh'],
    needs: ['test/clients/kcat/client.sh'],
    setup: 'test/clients/kcat/setup.sh',
  },
  {
    name: 'java',
    label: 'java (kafka-clients 4.4.0)',
    argv: ['bash', 'test/clients/java/run.sh'],
    needs: ['test/clients/java/run.sh', '.cache/clients/java/classes/.stamp'],
    setup: 'test/clients/java/setup.sh',
  },
  {
    name: 'franz-go',
    label: 'franz-go v1.22',
    argv: [`${GO_BIN}/franz-client`],
    needs: [`${GO_BIN}/franz-client`],
    setup: 'test/clients/go/setup.sh',
  },
  {
    name: 'sarama',
    label: 'sarama v1.61',
    argv: [`${GO_BIN}/sarama-client`],
    needs: [`${GO_BIN}/sarama-client`],
    setup: 'test/clients/go/setup.sh',
  },
  {
    name: 'kafkajs',
    label: 'kafkajs 2.2.4',
    argv: ['node', 'test/clients/node/kafkajs-client.mjs'],
    needs: ['test/clients/node/kafkajs-client.mjs'],
    setup: 'test/clients/node/setup.sh',
  },
  {
    name: 'platformatic',
    label: '@platformatic/kafka 2.x',
    argv: [NODE24, 'test/clients/node/platformatic-client.mjs'],
    needs: [NODE24, 'test/clients/node/platformatic-client.mjs'],
    setup: 'test/clients/node/setup.sh',
  },
];
