// kafka-configs.sh's flags (org.apache.kafka.tools.ConfigCommand, Kafka 4.4) as a jopt spec table, plus
// tkafka's --output and --debug. The --add-config help lists valid names per entity type; the
// topic list comes from the broker's topic config table, loaded only for help.
import type { JoptOptionSpec, JoptToolSpec } from '../common/jopt.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION, OUTPUT_OPTION } from '../topics/spec.js';

export const TOPIC = 'topics';
export const CLIENT = 'clients';
export const USER = 'users';
export const BROKER = 'brokers';
export const IP = 'ips';
export const CLIENT_METRICS = 'client-metrics';
export const GROUP = 'groups';
export const BROKER_LOGGER = 'broker-loggers';

/** broker-loggers, then ConfigType.values(), in Kafka 4.4's order (as its error message lists them). */
export const SUPPORTED_TYPES = [BROKER_LOGGER, TOPIC, CLIENT, USER, BROKER, IP, CLIENT_METRICS, GROUP];

export const ENTITY_FLAGS: readonly [string, string][] = [
  ['topic', TOPIC],
  ['client', CLIENT],
  ['user', USER],
  ['broker', BROKER],
  ['broker-logger', BROKER_LOGGER],
  ['ip', IP],
  ['client-metrics', CLIENT_METRICS],
  ['group', GROUP],
];
export const ENTITY_DEFAULT_FLAGS: readonly [string, string][] = [
  ['client-defaults', CLIENT],
  ['user-defaults', USER],
  ['broker-defaults', BROKER],
  ['ip-defaults', IP],
];

export const QUOTA_CONFIGS = [
  'consumer_byte_rate',
  'controller_mutation_rate',
  'producer_byte_rate',
  'request_percentage',
];
export const IP_CONFIGS = ['connection_creation_rate'];
export const SCRAM_MECHANISM_NAMES = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];

function addConfigHelp(lists: Record<string, readonly string[]>): string {
  const block = (type: string): string =>
    `For entity-type '${type}': \n` + (lists[type] ?? []).map((n) => `\t${n}`).join('\n') + '\n';
  return (
    "Key Value pairs of configs to add. Square brackets can be used to group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'. " +
    'The following is a list of valid configurations: ' +
    [TOPIC, BROKER, USER, CLIENT, IP, CLIENT_METRICS, GROUP].map(block).join('') +
    "Entity types 'users' and 'clients' may be specified together to update config for clients of a specific user."
  );
}

export function configsSpec(lists: Record<string, readonly string[]> = {}): JoptToolSpec {
  const s = (names: string, description: string, arg?: string): JoptOptionSpec => ({
    names: [names],
    description,
    ...(arg !== undefined ? { arg: arg === '' ? {} : { name: arg } } : {}),
  });
  const options: JoptOptionSpec[] = [
    {
      ...s('bootstrap-server', 'The Kafka servers to connect to.' + BOOTSTRAP_HELP_SUFFIX, 'server to connect to'),
      complete: 'host:port',
    },
    {
      ...s('bootstrap-controller', 'The Kafka controllers to connect to.', 'controller to connect to'),
      complete: 'host:port',
    },
    {
      ...s(
        'command-config',
        'Property file containing configs to be passed to Admin Client. This is used only with --bootstrap-server option for describing and altering broker configs.',
        'command config property file',
      ),
      complete: 'file',
    },
    s('alter', 'Alter the configuration for the entity.'),
    s('describe', 'List configs for the given entity.'),
    s('all', 'List all configs for the given entity, including static configs if available.'),
    {
      ...s('entity-type', 'Type of entity (topics/clients/users/brokers/broker-loggers/ips/client-metrics/groups)', ''),
      complete: SUPPORTED_TYPES,
    },
    s(
      'entity-name',
      'Name of entity (topic name/client id/user principal name/broker id/ip/client metrics/group id)',
      '',
    ),
    s('entity-default', 'Default entity name for clients/users/brokers/ips (applies to corresponding entity type)'),
    s('add-config', addConfigHelp(lists), ''),
    {
      ...s(
        'add-config-file',
        'Path to a properties file with configs to add. See add-config for a list of valid configurations.',
        '',
      ),
      complete: 'file',
    },
    { names: ['delete-config'], description: "config keys to remove 'k1,k2'", arg: { separator: ',' } },
    // no --force: Kafka 4.4's ConfigCommand removed it ("force is not a recognized option", exit 1)
    s('topic', "The topic's name.", ''),
    s('client', "The client's ID.", ''),
    s('client-defaults', 'The config defaults for all clients.'),
    s('user', "The user's principal name.", ''),
    s('user-defaults', 'The config defaults for all users.'),
    s('broker', "The broker's ID.", ''),
    s('broker-defaults', 'The config defaults for all brokers.'),
    s('broker-logger', "The broker's ID for its logger config.", ''),
    s('ip-defaults', 'The config defaults for all IPs.'),
    s('ip', 'The IP address.', ''),
    s('group', "The group's ID.", ''),
    s('client-metrics', 'The client metrics config resource name.', ''),
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ];
  return {
    name: 'configs',
    kafkaScript: 'kafka-configs.sh',
    description:
      'This tool helps to manipulate and describe entity config for a topic, client, user, broker, ip, client-metrics or group',
    options,
  };
}

export async function fullConfigsSpec(): Promise<JoptToolSpec> {
  const [{ TOPIC_CONFIG_KEYS }, names] = await Promise.all([
    import('../../config/topic-configs.js'),
    import('./names.js'),
  ]);
  return configsSpec({
    [TOPIC]: TOPIC_CONFIG_KEYS.map((k) => k.name)
      .filter((n) => n !== 'message.downconversion.enable')
      .sort(),
    [BROKER]: names.BROKER_CONFIG_NAMES,
    [USER]: names.USER_CONFIG_NAMES,
    [CLIENT]: names.CLIENT_CONFIG_NAMES,
    [IP]: names.IP_CONFIG_NAMES,
    [CLIENT_METRICS]: names.CLIENT_METRICS_CONFIG_NAMES,
    [GROUP]: names.GROUP_CONFIG_NAMES,
  });
}
