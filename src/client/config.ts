// Client settings, with Kafka's property names (what `--command-config` files hold) and defaults.
import { ClientConfigError } from './errors.js';
import { SASL_PROTOCOLS, expandSaslShorthands, saslConfigFromProperties, type SaslConfig } from './sasl-config.js';
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
  /** SASL (security.protocol SASL_PLAINTEXT / SASL_SSL): run on every connection after ApiVersions. */
  sasl?: SaslConfig;
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

const SUPPORTED_PROTOCOLS = new Set(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL']);

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
 * tool's overrides. SSL and SASL_SSL bring a `tls` config (tls-config.ts), SASL_PLAINTEXT and SASL_SSL a
 * `sasl` config (sasl-config.ts); any other security.protocol is refused with a clear message.
 */
export function clientConfigFromProperties(
  propsIn: ReadonlyMap<string, string>,
  overrides: Partial<ClientConfig> = {},
): ClientConfig {
  const protocol = (propsIn.get('security.protocol') ?? 'PLAINTEXT').trim().toUpperCase();
  const props = SASL_PROTOCOLS.has(protocol) ? expandSaslShorthands(propsIn) : propsIn;
  if (!SUPPORTED_PROTOCOLS.has(protocol)) {
    // Kafka's ConfigDef.CaseInsensitiveValidString
    throw new ClientConfigError(
      `Invalid value ${propsIn.get('security.protocol')} for configuration security.protocol: String must be one of (case insensitive): PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL`,
    );
  }
  const sasl = SASL_PROTOCOLS.has(protocol) ? saslConfigFromProperties(props) : undefined;
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
    ...(sasl ? { sasl } : {}),
    tls: overrides.tls ?? clientTlsConfig(props, protocol),
  };
}
