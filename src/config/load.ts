// Loading a broker configuration: server.properties (or the embedded default) plus
// `--override key=value`, parsed and validated like KafkaConfig, with the derived values the
// broker needs (listeners, voters, effective retention/roll times, metadata log dir).
import { existsSync, statSync } from 'node:fs';
import { ConfigError, BROKER_CONFIGS } from './definitions.js';
import { readPropertiesFile } from './properties.js';
import { ServerConfig } from './server-config.js';
import { validateServerConfig } from './validate.js';
import { isPrefixedSaslKey } from './sasl-keys.js';
import { isKnownSecurityKey } from './support.js';

export { ConfigError } from './config-def.js';
export { DEFAULT_LISTENER_SECURITY_PROTOCOL_MAP } from './definitions.js';
export { parseListeners, type Endpoint, type SecurityProtocol } from './listeners.js';
export { ServerConfig, parseCsvList, type ProcessRole, type VoterEntry } from './server-config.js';

/** The configuration `tkafka server start` uses when no file is given. */
export const EMBEDDED_DEFAULT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['process.roles', 'broker,controller'],
  ['node.id', '1'],
  ['listeners', 'PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093'],
  ['advertised.listeners', 'PLAINTEXT://127.0.0.1:9092'],
  ['controller.listener.names', 'CONTROLLER'],
  ['listener.security.protocol.map', 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT'],
  ['controller.quorum.voters', '1@127.0.0.1:9093'],
  ['log.dirs', './tkafka-data'],
  ['num.partitions', '1'],
  ['offsets.topic.replication.factor', '1'],
  ['transaction.state.log.replication.factor', '1'],
  ['transaction.state.log.min.isr', '1'],
  // Kafka 4.x's single-node server.properties: __share_group_state with one replica
  ['share.coordinator.state.topic.replication.factor', '1'],
  ['share.coordinator.state.topic.min.isr', '1'],
];

export interface LoadServerConfigOptions {
  /** server.properties path; omitted → the embedded default. */
  file?: string;
  /** `key=value` strings, applied after the file (Kafka's `--override`). */
  overrides?: string[];
  /** Properties to use instead of a file (tests, embedding). */
  properties?: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
}

export interface LoadedServerConfig {
  config: ServerConfig;
  /** Human-readable warnings (unknown keys, deprecated settings); print each once. */
  warnings: string[];
  /** Keys that are not broker configurations. */
  unknownKeys: string[];
  source: 'file' | 'embedded' | 'properties';
}

/** CommandLineUtils.parseKeyValueArgs: split at the first `=`; a missing value is "". */
export function parseOverrides(overrides: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const arg of overrides) {
    const i = arg.indexOf('=');
    if (i < 0) out.set(arg, '');
    else out.set(arg.slice(0, i), arg.slice(i + 1));
  }
  return out;
}

/** Read and validate a broker configuration. Throws ConfigError with Kafka's message. */
export function loadServerConfig(opts: LoadServerConfigOptions = {}): LoadedServerConfig {
  let props: Map<string, string>;
  let source: LoadedServerConfig['source'];
  if (opts.properties) {
    const entries = opts.properties instanceof Map ? [...opts.properties] : Object.entries(opts.properties);
    props = new Map(entries.filter(([, v]) => v !== undefined && v !== null));
    source = 'properties';
  } else if (opts.file !== undefined) {
    if (!existsSync(opts.file)) throw new ConfigError(opts.file, undefined, 'java.nio.file.NoSuchFileException');
    if (statSync(opts.file).isDirectory())
      throw new ConfigError(`${opts.file}: Is a directory`, undefined, 'java.io.IOException');
    props = readPropertiesFile(opts.file);
    source = 'file';
  } else {
    props = new Map(EMBEDDED_DEFAULT_CONFIG.map(([k, v]) => [k, v]));
    source = 'embedded';
  }
  for (const [k, v] of parseOverrides(opts.overrides ?? [])) props.set(k, v);
  const config = new ServerConfig(props);
  validateServerConfig(config);
  const unknownKeys = [...props.keys()].filter(
    (k) => !BROKER_CONFIGS.has(k) && !isPrefixedSaslKey(k) && !isKnownSecurityKey(k),
  );
  const warnings: string[] = [];
  if (unknownKeys.length)
    warnings.push(`These configurations '[${unknownKeys.join(', ')}]' were supplied but are not used yet.`);
  if (props.has('inter.broker.protocol.version')) {
    warnings.push(
      'inter.broker.protocol.version is deprecated in KRaft mode as of 3.3 and will only be read when first upgrading from a KRaft prior to 3.3. See kafka-storage.sh help for details on setting the metadata.version for a new KRaft cluster.',
    );
  }
  if (config.controllerListenerNames.length > 1 && !config.isController) {
    warnings.push(
      `controller.listener.names has multiple entries; only the first will be used since process.roles=broker: [${config.controllerListenerNames.join(', ')}]`,
    );
  }
  return { config, warnings, unknownKeys, source };
}
