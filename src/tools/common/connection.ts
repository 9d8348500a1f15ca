// Where a tool's cluster comes from. Precedence: the --bootstrap-server flag, then the
// TKAFKA_BOOTSTRAP_SERVER environment variable, then the active profile (TKAFKA_PROFILE or the one
// chosen with `tkafka profile use`). Client properties: the profile's (only when the profile gives
// the cluster), overlaid by the --command-config file.
import type { ToolIO } from './io.js';
import type { KafkaClient } from '../../client/client.js';
import type { ClientConfig } from '../../client/config.js';

export const BOOTSTRAP_ENV = 'TKAFKA_BOOTSTRAP_SERVER';

/** Appended to every tool's --help. */
export const CONNECTION_HELP =
  'Cluster selection: --bootstrap-server wins; without it the TKAFKA_BOOTSTRAP_SERVER environment variable is used, ' +
  'then the active profile (TKAFKA_PROFILE, or the one set with `tkafka profile use NAME`; see `tkafka profile --help`). ' +
  'A profile also supplies client properties; --command-config properties override them.';

export type BootstrapSource = 'flag' | 'env' | 'profile';

export interface ResolvedBootstrap {
  value: string;
  source: BootstrapSource;
  profile?: string;
  /** The profile's client properties (only when the profile is the source). */
  profileProperties?: Record<string, string>;
}

export class ConnectionSetupError extends Error {
  override name = 'ConnectionSetupError';
}

/** Resolves the bootstrap servers; null when none of flag, environment and profile gives one. */
export async function resolveBootstrap(
  flag: string | undefined | null,
  env: NodeJS.ProcessEnv,
): Promise<ResolvedBootstrap | null> {
  if (flag !== undefined && flag !== null) return { value: flag, source: 'flag' };
  const fromEnv = env[BOOTSTRAP_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { value: fromEnv.trim(), source: 'env' };
  const { activeProfile, ProfileError } = await import('../profile/store.js');
  try {
    const p = activeProfile(env);
    if (p)
      return {
        value: p.profile.bootstrapServers,
        source: 'profile',
        profile: p.name,
        profileProperties: p.profile.properties,
      };
  } catch (e) {
    if (e instanceof ProfileError) throw new ConnectionSetupError(e.message);
    throw e;
  }
  return null;
}

/** Reads a Java properties file (Kafka's Utils.loadProps), with a one-line error. */
export async function loadPropertiesFile(path: string): Promise<Map<string, string>> {
  const { readPropertiesFile } = await import('../../config/properties.js');
  try {
    return readPropertiesFile(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new ConnectionSetupError(`java.nio.file.NoSuchFileException: ${path}`);
    throw new ConnectionSetupError(`Cannot read properties file ${path}: ${err.message}`);
  }
}

export interface ClientRequest {
  bootstrap: ResolvedBootstrap;
  /** Path of the --command-config file, if given. */
  commandConfig?: string | null;
  /** Client settings the tool forces (client.id, timeouts). */
  overrides?: Partial<ClientConfig>;
  /**
   * A tool's own client properties (console producer/consumer: --producer.config, --consumer.config,
   * --command-config, --*-property): their security settings (security.protocol, ssl.*, sasl.*) apply.
   */
  properties?: ReadonlyMap<string, string>;
}

const SECURITY_KEY = /^(security\.protocol$|ssl\.|sasl\.)/;

/** Creates the shared client (loaded lazily) from the resolved bootstrap and properties. */
export async function openClient(req: ClientRequest): Promise<KafkaClient> {
  const props = new Map<string, string>(Object.entries(req.bootstrap.profileProperties ?? {}));
  if (req.commandConfig) for (const [k, v] of await loadPropertiesFile(req.commandConfig)) props.set(k, v);
  for (const [k, v] of req.properties ?? []) if (SECURITY_KEY.test(k)) props.set(k, v);
  const [{ KafkaClient }, { clientConfigFromProperties, parseBootstrapServers }] = await Promise.all([
    import('../../client/client.js'),
    import('../../client/config.js'),
  ]);
  const config = clientConfigFromProperties(props, {
    ...req.overrides,
    bootstrapServers: parseBootstrapServers(req.bootstrap.value),
  });
  return new KafkaClient(config);
}

/** Describes where the cluster came from, for `--debug`. */
export function describeSource(b: ResolvedBootstrap): string {
  if (b.source === 'flag') return `--bootstrap-server ${b.value}`;
  if (b.source === 'env') return `${BOOTSTRAP_ENV}=${b.value}`;
  return `profile '${b.profile}' (${b.value})`;
}

export function debugLine(io: ToolIO, enabled: boolean, msg: string): void {
  if (enabled) io.stderr.write(`[debug] ${msg}\n`);
}
