// Client settings, with Kafka's property names (what `--command-config` files hold) and defaults.
import { ClientConfigError } from './errors.js';
import { clientTlsConfig, type ClientTlsConfig } from './tls-config.js';

export interface ClientConfig {
  /** `host:port` entries, tried in turn. */
  bootstrapServers: string[];
  clientId: string;
  /** request.timeout.ms: wait for one response. */
  requestTimeoutMs: number;
  /** default.api.timeout.ms: the whole operation including retries. */
  apiTimeoutMs: number;
  /** retry.backoff.ms / retry.backoff.max.ms: exponential backoff between retries. */
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  /** socket.connection.setup.timeout.ms. */
  connectTimeoutMs: number;
  /** metadata.max.age.ms. */
  metadataMaxAgeMs: number;
  /** security.protocol=SSL: the TLS settings every connection uses (absent: PLAINTEXT). */
  tls?: ClientTlsConfig | undefined;
}

export const DEFAULT_CLIENT_CONFIG: Omit<ClientConfig, 'bootstrapServers'> = {
  clientId: 'tkafka-admin',
  requestTimeoutMs: 30_000,
  apiTimeoutMs: 60_000,
  retryBackoffMs: 100,
  retryBackoffMaxMs: 1000,
  connectTimeoutMs: 10_000,
  metadataMaxAgeMs: 300_000,
};

const SUPPORTED_PROTOCOLS = new Set(['PLAINTEXT', 'SSL']);

/** Splits and checks `host:port[,host:port]` (Kafka's ClientUtils.parseAndValidateAddresses). */
export function parseBootstrapServers(value: string): string[] {
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const s = raw.trim();
    if (s === '') continue;
    const { host, port } = splitHostPort(s);
    if (!host || !Number.isInteger(port) || port < 0 || port > 65535) {
      throw new ClientConfigError(`Invalid url in bootstrap.servers: ${s}`);
    }
    out.push(s);
  }
  if (out.length === 0) throw new ClientConfigError('No resolvable bootstrap urls given in bootstrap.servers');
  return out;
}

export function splitHostPort(address: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address.trim());
  if (!m) return { host: '', port: NaN };
  return { host: m[1]!, port: Number(m[2]) };
}

function intProp(props: ReadonlyMap<string, string>, name: string, dflt: number): number {
  const v = props.get(name);
  if (v === undefined) return dflt;
  const n = Number(v.trim());
  if (!Number.isFinite(n) || !Number.isInteger(n)) {
    throw new ClientConfigError(`Invalid value ${v} for configuration ${name}: Not a number of type INT`);
  }
  return n;
}

/**
 * Builds a client config from Kafka client properties (a `--command-config` file) plus the
 * tool's overrides. Security settings other than PLAINTEXT are refused with a clear message.
 */
export function clientConfigFromProperties(
  props: ReadonlyMap<string, string>,
  overrides: Partial<ClientConfig> = {},
): ClientConfig {
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').trim().toUpperCase();
  if (!SUPPORTED_PROTOCOLS.has(protocol)) {
    throw new ClientConfigError(
      `security.protocol=${protocol} is not supported by the tkafka client (only PLAINTEXT and SSL)`,
    );
  }
  const bootstrap =
    overrides.bootstrapServers ??
    (props.has('bootstrap.servers') ? parseBootstrapServers(props.get('bootstrap.servers')!) : []);
  const d = DEFAULT_CLIENT_CONFIG;
  return {
    bootstrapServers: bootstrap,
    clientId: overrides.clientId ?? props.get('client.id') ?? d.clientId,
    requestTimeoutMs: overrides.requestTimeoutMs ?? intProp(props, 'request.timeout.ms', d.requestTimeoutMs),
    apiTimeoutMs: overrides.apiTimeoutMs ?? intProp(props, 'default.api.timeout.ms', d.apiTimeoutMs),
    retryBackoffMs: overrides.retryBackoffMs ?? intProp(props, 'retry.backoff.ms', d.retryBackoffMs),
    retryBackoffMaxMs: overrides.retryBackoffMaxMs ?? intProp(props, 'retry.backoff.max.ms', d.retryBackoffMaxMs),
    connectTimeoutMs:
      overrides.connectTimeoutMs ?? intProp(props, 'socket.connection.setup.timeout.ms', d.connectTimeoutMs),
    metadataMaxAgeMs: overrides.metadataMaxAgeMs ?? intProp(props, 'metadata.max.age.ms', d.metadataMaxAgeMs),
    tls: overrides.tls ?? clientTlsConfig(props, protocol),
  };
}
