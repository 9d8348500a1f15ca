// The broker configuration keys tkafka accepts, with Kafka 4.0's names, types, defaults and
// validators (KafkaConfig's ConfigDef, assembled from ServerConfigs, KRaftConfigs, QuorumConfig,
// SocketServerConfigs, ServerLogConfigs, CleanerConfig, ReplicationConfigs, GroupCoordinatorConfig,
// TransactionLogConfig, TransactionStateManagerConfig), plus tkafka's own `tkafka.*` keys.
// Kafka 4.0 changes against 3.x (KIP-1030 and ZooKeeper removal) are applied: process.roles and
// node.id have no default, log.segment.bytes is at least 1 MiB, num.recovery.threads.per.data.dir
// defaults to 2, log.message.timestamp.after.max.ms to one hour, and the message-format configs
// are gone.
import {
  type ConfigKey,
  type ConfigType,
  type ConfigValue,
  type Validator,
  NO_DEFAULT,
  LONG_MAX,
  INT_MAX,
  atLeast,
  between,
  validString,
  validList,
  anyNonDuplicateValues,
  gzipLevel,
  lambda,
  indexKeys,
  invalidValue,
  ConfigError,
} from './config-def.js';
import { isIP } from 'node:net';
import { LATEST_PRODUCTION, metadataVersionFromString } from './features.js';

export * from './config-def.js';

type Importance = ConfigKey['importance'];
type Extra = Pick<ConfigKey, 'internal' | 'dynamic' | 'informational'>;

function def(
  name: string,
  type: ConfigType,
  dflt: ConfigValue | typeof NO_DEFAULT,
  validator: Validator | null,
  importance: Importance,
  doc: string,
  extra: Extra = {},
): ConfigKey {
  return { name, type, default: dflt, ...(validator ? { validator } : {}), importance, doc, ...extra };
}

const H: Importance = 'high';
const M: Importance = 'medium';
const L: Importance = 'low';
const DYN: Extra = { dynamic: 'cluster-wide' };
const PER_BROKER: Extra = { dynamic: 'per-broker' };
const INFO: Extra = { informational: true };

/** The ReplicaSelector tkafka implements (KIP-392 fetch from the closest replica). */
export const RACK_AWARE_REPLICA_SELECTOR = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';

/** Minimum segment size (KIP-1030, Kafka 4.0): 1 MiB for log.segment.bytes / segment.bytes. */
export const SEGMENT_BYTES_MIN = 1024 * 1024;
export const DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
export const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'];
export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
export const DEFAULT_LISTENER_SECURITY_PROTOCOL_MAP =
  'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT';
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** controller.quorum.voters entries: `{id}@{host}:{port}` (QuorumConfig.parseVoterConnections). */
export const HOST_PORT_PATTERN = /^(?:[0-9a-zA-Z\-%._]*:\/\/)?\[?([0-9a-zA-Z\-%._:]*)]?:([0-9]+)$/;
const VALID_HOST = /^[0-9a-zA-Z\-%._:]*$/;

export function parseVoterEntry(entry: string): { id: number; host: string; port: number } {
  const parts = entry.split('@');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // Java split drops trailing empties
  if (parts.length !== 2) {
    throw new ConfigError(
      'Invalid configuration value for controller.quorum.voters. Each entry should be in the form `{id}@{host}:{port}`.',
      'controller.quorum.voters',
    );
  }
  if (!/^[+-]?\d+$/.test(parts[0]) || Math.abs(Number(parts[0])) > INT_MAX) {
    throw new ConfigError(`Failed to parse voter ID as an integer from ${parts[0]}`, 'controller.quorum.voters');
  }
  const m = HOST_PORT_PATTERN.exec(parts[1]);
  if (!m || !VALID_HOST.test(m[1])) {
    throw new ConfigError(
      `Failed to parse host name from entry ${entry} for the configuration controller.quorum.voters. Each entry should be in the form \`{id}@{host}:{port}\`.`,
      'controller.quorum.voters',
    );
  }
  return { id: Number(parts[0]), host: m[1], port: Number(m[2]) };
}

export function parseBootstrapServer(entry: string): { host: string; port: number } {
  const m = HOST_PORT_PATTERN.exec(entry);
  if (!m || !VALID_HOST.test(m[1])) {
    throw new ConfigError(
      `Failed to parse host name from ${entry} for the configuration controller.quorum.bootstrap.servers. Each entry should be in the form "{host}:{port}"`,
      'controller.quorum.bootstrap.servers',
    );
  }
  return { host: m[1], port: Number(m[2]) };
}

const votersValidator = lambda('non-empty list', (_n, v) => {
  for (const e of (v as string[]) ?? []) parseVoterEntry(e);
});
const bootstrapValidator = lambda('non-empty list', (_n, v) => {
  for (const e of (v as string[]) ?? []) parseBootstrapServer(e);
});
const metadataVersionValidator = lambda('[3.0-IV1, ..., 4.0-IV3]', (name, v) => {
  try {
    metadataVersionFromString(String(v));
  } catch (e) {
    throw new ConfigError(`Invalid value ${String(v)} for configuration ${name}: ${(e as Error).message}`, name);
  }
});

/**
 * tkafka.metrics.listener: `http://<host>:<port>` where host is an IPv4/IPv6 address (IPv6 in
 * brackets) or localhost, port 0..65535 (0: any free port). Parsed by parseMetricsListener.
 */
export function parseMetricsListener(name: string, value: string): { host: string; port: number } {
  const m = /^http:\/\/(\[[0-9a-fA-F:.]+\]|[^/:[\]]+):([0-9]+)\/?$/.exec(value);
  if (!m) {
    throw invalidValue(
      name,
      value,
      'expected http://<ip or localhost>:<port>, e.g. http://127.0.0.1:9404 (only plain http is served)',
    );
  }
  const rawHost = m[1]!;
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  if (host !== 'localhost' && isIP(host) === 0) {
    throw invalidValue(name, value, `the host must be an IP address or localhost, not ${host}`);
  }
  const port = Number(m[2]);
  if (port > 65535) throw invalidValue(name, value, `port ${port} is out of range (0..65535)`);
  return { host, port };
}

const metricsListenerValidator = lambda('http://<ip or localhost>:<port>', (name, value) => {
  if (value !== null && value !== '') parseMetricsListener(name, value as string);
});

/** All broker configuration keys, in the order Kafka's documentation groups them. */
export const BROKER_CONFIG_KEYS: readonly ConfigKey[] = [
  // ---- KRaft / node identity
  def(
    'process.roles',
    'list',
    NO_DEFAULT,
    validList('broker', 'controller'),
    H,
    "The roles this process plays: 'broker', 'controller', or 'broker,controller' if it is both.",
  ),
  def(
    'node.id',
    'int',
    NO_DEFAULT,
    atLeast(0),
    H,
    'The node ID associated with the roles this process is playing. Required in KRaft mode.',
  ),
  def('broker.id', 'int', -1, null, H, 'Legacy synonym of node.id; when both are set they must be equal.'),
  def(
    'controller.listener.names',
    'string',
    null,
    null,
    H,
    'Comma-separated names of the listeners used by the controller; brokers use the first to reach the controller quorum.',
  ),
  def(
    'controller.quorum.voters',
    'list',
    [],
    votersValidator,
    H,
    'Static voter set as a comma-separated list of {id}@{host}:{port} entries.',
  ),
  def(
    'controller.quorum.bootstrap.servers',
    'list',
    [],
    bootstrapValidator,
    H,
    'Comma-separated {host}:{port} endpoints used to discover the controller quorum.',
  ),
  def(
    'controller.quorum.election.timeout.ms',
    'int',
    1000,
    null,
    H,
    'Maximum time without fetching from the leader before triggering a new election.',
  ),
  def(
    'controller.quorum.fetch.timeout.ms',
    'int',
    2000,
    null,
    H,
    'Maximum time without a successful fetch from the leader before becoming a candidate.',
  ),
  def(
    'controller.quorum.election.backoff.max.ms',
    'int',
    1000,
    null,
    H,
    'Maximum time before starting a new election (exponential backoff).',
  ),
  def(
    'controller.quorum.append.linger.ms',
    'int',
    25,
    null,
    M,
    'How long the quorum leader waits for writes to accumulate before flushing them to disk.',
  ),
  def('controller.quorum.request.timeout.ms', 'int', 2000, null, M, 'Timeout of requests between quorum members.'),
  def('controller.quorum.retry.backoff.ms', 'int', 20, null, L, 'Backoff before retrying a failed quorum request.'),
  def(
    'metadata.log.dir',
    'string',
    null,
    null,
    H,
    'Directory of the KRaft metadata log; if unset, the first directory of log.dirs.',
  ),
  def(
    'metadata.log.segment.bytes',
    'int',
    DEFAULT_SEGMENT_BYTES,
    atLeast(12),
    H,
    'Maximum size of a single metadata log file.',
  ),
  def(
    'metadata.log.segment.ms',
    'long',
    BigInt(WEEK_MS),
    null,
    H,
    'Maximum time before a new metadata log segment is rolled.',
  ),
  def(
    'metadata.max.retention.bytes',
    'long',
    104857600n,
    null,
    H,
    'Maximum combined size of the metadata log and snapshots before old snapshots and logs are deleted.',
  ),
  def(
    'metadata.max.retention.ms',
    'long',
    BigInt(WEEK_MS),
    null,
    H,
    'How long to keep a metadata log file or snapshot before deleting it.',
  ),
  def(
    'metadata.max.idle.interval.ms',
    'int',
    500,
    atLeast(0),
    L,
    'How often the active controller writes no-op records to advance the high watermark.',
  ),
  def(
    'metadata.log.max.record.bytes.between.snapshots',
    'long',
    20971520n,
    atLeast(1),
    H,
    'Bytes of new metadata records after which a snapshot is generated.',
  ),
  def(
    'metadata.log.max.snapshot.interval.ms',
    'long',
    3600000n,
    atLeast(0),
    H,
    'Maximum time before generating a snapshot when there are new records.',
  ),
  def('broker.heartbeat.interval.ms', 'int', 2000, null, M, 'Time between broker heartbeats to the controller.'),
  def('broker.session.timeout.ms', 'int', 9000, null, M, 'How long a broker lease lasts without heartbeats.'),
  def(
    'initial.broker.registration.timeout.ms',
    'int',
    60000,
    null,
    M,
    'How long to wait for the first broker registration before failing.',
  ),
  def(
    'sasl.mechanism.controller.protocol',
    'string',
    'GSSAPI',
    null,
    H,
    'SASL mechanism used to talk to controllers.',
    INFO,
  ),
  def('broker.rack', 'string', null, null, M, 'Rack of the broker, used for rack-aware replica assignment.'),
  // ---- listeners and sockets
  def(
    'listeners',
    'string',
    'PLAINTEXT://:9092',
    null,
    H,
    'Comma-separated URIs to listen on, NAME://host:port; an empty host binds all interfaces.',
    PER_BROKER,
  ),
  def(
    'advertised.listeners',
    'string',
    null,
    null,
    H,
    'Listener addresses published to clients and other brokers, if different from listeners.',
  ),
  def(
    'listener.security.protocol.map',
    'string',
    DEFAULT_LISTENER_SECURITY_PROTOCOL_MAP,
    null,
    L,
    'Map from listener names to security protocols, NAME:PROTOCOL pairs separated by commas.',
    PER_BROKER,
  ),
  def(
    'inter.broker.listener.name',
    'string',
    null,
    null,
    M,
    'Listener used between brokers; defaults to the one named after security.inter.broker.protocol.',
  ),
  def(
    'security.inter.broker.protocol',
    'string',
    'PLAINTEXT',
    validString(...SECURITY_PROTOCOLS),
    M,
    'Security protocol used between brokers (alternative to inter.broker.listener.name).',
  ),
  def(
    'early.start.listeners',
    'string',
    null,
    null,
    H,
    'Listeners that may start before the authorizer has finished initialization.',
    INFO,
  ),
  def('socket.send.buffer.bytes', 'int', 102400, null, H, 'SO_SNDBUF of server sockets; -1 uses the OS default.'),
  def('socket.receive.buffer.bytes', 'int', 102400, null, H, 'SO_RCVBUF of server sockets; -1 uses the OS default.'),
  def('socket.request.max.bytes', 'int', 104857600, atLeast(1), H, 'Maximum size of a request the server accepts.'),
  def(
    'socket.listen.backlog.size',
    'int',
    50,
    atLeast(1),
    M,
    'Maximum number of pending connections on a listening socket.',
  ),
  def('max.connections.per.ip', 'int', INT_MAX, atLeast(0), M, 'Maximum connections allowed from one IP address.', DYN),
  def(
    'max.connections.per.ip.overrides',
    'string',
    '',
    null,
    M,
    'Per-IP or hostname overrides of max.connections.per.ip, host:count pairs.',
    DYN,
  ),
  def('max.connections', 'int', INT_MAX, atLeast(0), M, 'Maximum connections allowed in the broker at any time.', DYN),
  def(
    'max.connection.creation.rate',
    'int',
    INT_MAX,
    atLeast(0),
    M,
    'Maximum connection creation rate per second.',
    DYN,
  ),
  def('connections.max.idle.ms', 'long', 600000n, null, M, 'Idle connections are closed after this many milliseconds.'),
  def(
    'connection.failed.authentication.delay.ms',
    'int',
    100,
    atLeast(0),
    L,
    'Delay before closing a connection after a failed authentication.',
  ),
  // ---- SASL on the broker's listeners (src/broker/security): listener.name.<l>.-prefixed forms are
  // read from the originals
  def(
    'sasl.enabled.mechanisms',
    'list',
    ['GSSAPI'],
    null,
    M,
    'SASL mechanisms enabled on SASL listeners (tkafka implements PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER).',
  ),
  def(
    'sasl.mechanism.inter.broker.protocol',
    'string',
    'GSSAPI',
    null,
    M,
    'SASL mechanism used for inter-broker communication.',
    INFO,
  ),
  def(
    'sasl.jaas.config',
    'password',
    null,
    null,
    M,
    'JAAS login context (ignored on a broker unless listener-prefixed).',
  ),
  def(
    'sasl.server.max.receive.size',
    'int',
    524288,
    null,
    L,
    'Maximum size of a request before and during SASL authentication.',
  ),
  def(
    'connections.max.reauth.ms',
    'long',
    0n,
    null,
    M,
    'Maximum lifetime of an authenticated SASL session before the client must re-authenticate (0: unlimited).',
  ),
  // ---- OAUTHBEARER JWKS validation (OAuthBearerValidatorCallbackHandler, src/broker/security/jwt-validator.ts):
  // read under the listener.name.<l>.oauthbearer. and listener.name.<l>. prefixes too
  def(
    'sasl.oauthbearer.jwks.endpoint.url',
    'string',
    null,
    null,
    M,
    'JWKS endpoint (http, https or file: URL) with the keys that verify OAUTHBEARER tokens; it must be listed in the org.apache.kafka.sasl.oauthbearer.allowed.urls system property (-D in KAFKA_OPTS).',
  ),
  def(
    'sasl.oauthbearer.jwks.endpoint.refresh.ms',
    'long',
    3600000n,
    null,
    L,
    'How often the JWKS is fetched again (an unknown key id also triggers a fetch).',
  ),
  def(
    'sasl.oauthbearer.jwks.endpoint.retry.backoff.ms',
    'long',
    100n,
    null,
    L,
    'Initial wait between attempts to fetch the JWKS.',
  ),
  def(
    'sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms',
    'long',
    10000n,
    null,
    L,
    'Maximum wait between attempts to fetch the JWKS.',
  ),
  def('sasl.oauthbearer.expected.audience', 'list', [], null, L, 'Audiences (aud) a token must name one of.'),
  def('sasl.oauthbearer.expected.issuer', 'string', null, null, L, 'Issuer (iss) a token must name.'),
  def(
    'sasl.oauthbearer.allow.unverified.audience',
    'boolean',
    false,
    null,
    L,
    'Accept tokens whatever their audience when sasl.oauthbearer.expected.audience is not set.',
  ),
  def(
    'sasl.oauthbearer.allow.unverified.issuer',
    'boolean',
    false,
    null,
    L,
    'Accept tokens whatever their issuer when sasl.oauthbearer.expected.issuer is not set.',
  ),
  def('sasl.oauthbearer.scope.claim.name', 'string', 'scope', null, L, "Claim holding the token's scopes."),
  def('sasl.oauthbearer.sub.claim.name', 'string', 'sub', null, L, 'Claim holding the principal name.'),
  def(
    'sasl.oauthbearer.clock.skew.seconds',
    'int',
    30,
    null,
    L,
    'Clock difference allowed between the broker and the token issuer.',
  ),
  def(
    'queued.max.requests',
    'int',
    500,
    atLeast(1),
    H,
    'Requests allowed in the request queue before network threads stop reading.',
    INFO,
  ),
  def(
    'queued.max.request.bytes',
    'long',
    -1n,
    null,
    M,
    'Bytes of queued requests allowed before no more requests are read.',
    INFO,
  ),
  def(
    'num.network.threads',
    'int',
    3,
    atLeast(1),
    H,
    'Threads receiving requests and sending responses (informational in tkafka).',
    { ...DYN, informational: true },
  ),
  def('num.io.threads', 'int', 8, atLeast(1), H, 'Threads processing requests (informational in tkafka).', {
    ...DYN,
    informational: true,
  }),
  def('background.threads', 'int', 10, atLeast(1), H, 'Threads for background tasks (informational in tkafka).', {
    ...DYN,
    informational: true,
  }),
  def('request.timeout.ms', 'int', 30000, null, H, 'Maximum time a request may wait for a response.'),
  def(
    'message.max.bytes',
    'int',
    DEFAULT_MAX_MESSAGE_BYTES,
    atLeast(0),
    H,
    'Largest record batch size allowed (topic level: max.message.bytes).',
    DYN,
  ),
  def(
    'fetch.max.bytes',
    'int',
    57671680,
    atLeast(1024),
    M,
    'Maximum bytes returned for a fetch request. Must be at least 1024.',
  ),
  def(
    'max.incremental.fetch.session.cache.slots',
    'int',
    1000,
    atLeast(0),
    M,
    'Maximum number of incremental fetch sessions kept.',
  ),
  def(
    'max.request.partition.size.limit',
    'int',
    2000,
    atLeast(1),
    M,
    'Maximum number of partitions served in one request.',
  ),
  def('delete.topic.enable', 'boolean', true, null, H, 'Enables topic deletion; if false, DeleteTopics fails.'),
  def(
    'auto.create.topics.enable',
    'boolean',
    true,
    null,
    H,
    'Create a topic automatically when a client asks for metadata of an unknown topic.',
  ),
  def(
    'compression.type',
    'string',
    'producer',
    validString(...COMPRESSION_TYPES),
    H,
    "Final compression of a topic's data: a codec, 'uncompressed', or 'producer' to keep the producer's codec.",
    DYN,
  ),
  def('compression.gzip.level', 'int', -1, gzipLevel, M, "Compression level when compression.type is 'gzip'.", DYN),
  def('compression.lz4.level', 'int', 9, between(1, 17), M, "Compression level when compression.type is 'lz4'.", DYN),
  def(
    'compression.zstd.level',
    'int',
    3,
    between(-131072, 22),
    M,
    "Compression level when compression.type is 'zstd'.",
    DYN,
  ),
  def('unstable.api.versions.enable', 'boolean', false, null, H, 'Advertise API versions that are not yet stable.', {
    internal: true,
  }),
  def(
    'unstable.feature.versions.enable',
    'boolean',
    false,
    null,
    H,
    'Allow feature levels that are not yet production ready.',
    { internal: true },
  ),
  def(
    'authorizer.class.name',
    'string',
    '',
    null,
    L,
    'Authorizer implementation class: empty (no ACLs) or org.apache.kafka.metadata.authorizer.StandardAuthorizer.',
    INFO,
  ),
  def('controlled.shutdown.enable', 'boolean', true, null, M, 'Move leadership away before shutting down.', INFO),
  // ---- logs
  def('num.partitions', 'int', 1, atLeast(1), M, 'Default number of partitions of a new topic.'),
  def('log.dir', 'string', '/tmp/kafka-logs', null, H, 'Directory holding the log data (used when log.dirs is unset).'),
  def(
    'cordoned.log.dirs',
    'list',
    [],
    null,
    H,
    'Log directories cordoned (KIP-1066): no new replicas are placed on them; * cordons all. Not supported by tkafka: it must stay empty.',
  ),
  def(
    'log.dirs',
    'string',
    null,
    null,
    H,
    'Comma-separated directories holding the log data; if unset, log.dir is used.',
  ),
  def(
    'log.segment.bytes',
    'int',
    DEFAULT_SEGMENT_BYTES,
    atLeast(SEGMENT_BYTES_MIN),
    H,
    'Maximum size of a single log segment file.',
    DYN,
  ),
  def(
    'log.roll.ms',
    'long',
    null,
    null,
    H,
    'Maximum time before a new segment is rolled (ms); if unset, log.roll.hours is used.',
    DYN,
  ),
  def(
    'log.roll.hours',
    'int',
    168,
    atLeast(1),
    H,
    'Maximum time before a new segment is rolled (hours), secondary to log.roll.ms.',
  ),
  def(
    'log.roll.jitter.ms',
    'long',
    null,
    null,
    H,
    'Maximum jitter subtracted from the roll time (ms); if unset, log.roll.jitter.hours is used.',
    DYN,
  ),
  def(
    'log.roll.jitter.hours',
    'int',
    0,
    atLeast(0),
    H,
    'Maximum jitter subtracted from the roll time (hours), secondary to log.roll.jitter.ms.',
  ),
  def(
    'log.retention.ms',
    'long',
    null,
    null,
    H,
    'How long to keep a segment before deleting it (ms); -1 means no time limit. If unset, log.retention.minutes is used.',
    DYN,
  ),
  def(
    'log.retention.minutes',
    'int',
    null,
    null,
    H,
    'Retention in minutes, secondary to log.retention.ms; if unset, log.retention.hours is used.',
  ),
  def('log.retention.hours', 'int', 168, null, H, 'Retention in hours, tertiary to log.retention.ms.'),
  def(
    'log.retention.bytes',
    'long',
    -1n,
    null,
    H,
    'Maximum size of a partition log before old segments are deleted; -1 means no limit.',
    DYN,
  ),
  def(
    'log.retention.check.interval.ms',
    'long',
    300000n,
    atLeast(1),
    M,
    'How often the retention check looks for deletable segments.',
  ),
  def(
    'log.cleanup.policy',
    'list',
    ['delete'],
    validList('compact', 'delete'),
    M,
    'Default cleanup policy for segments beyond retention: delete, compact, or both.',
    DYN,
  ),
  def('log.index.size.max.bytes', 'int', 10485760, atLeast(4), M, 'Maximum size of an offset index file.', DYN),
  def('log.index.interval.bytes', 'int', 4096, atLeast(0), M, 'Bytes of log between two offset index entries.', DYN),
  def(
    'log.flush.interval.messages',
    'long',
    LONG_MAX,
    atLeast(1),
    H,
    'Messages accumulated on a partition before it is flushed to disk.',
    DYN,
  ),
  def(
    'log.flush.interval.ms',
    'long',
    null,
    null,
    H,
    'Maximum time a message stays unflushed; if unset, log.flush.scheduler.interval.ms is used.',
    DYN,
  ),
  def(
    'log.flush.scheduler.interval.ms',
    'long',
    LONG_MAX,
    null,
    H,
    'How often the flusher checks whether a log needs flushing.',
  ),
  def(
    'log.flush.offset.checkpoint.interval.ms',
    'int',
    60000,
    atLeast(0),
    H,
    'How often the recovery-point checkpoint is written.',
  ),
  def(
    'log.flush.start.offset.checkpoint.interval.ms',
    'int',
    60000,
    atLeast(0),
    H,
    'How often the log-start-offset checkpoint is written.',
  ),
  def(
    'log.segment.delete.delay.ms',
    'long',
    60000n,
    atLeast(0),
    H,
    'How long a deleted segment waits before its files are removed.',
    DYN,
  ),
  def('log.preallocate', 'boolean', false, null, M, 'Preallocate segment files when rolling.', DYN),
  def(
    'log.message.timestamp.type',
    'string',
    'CreateTime',
    validString('CreateTime', 'LogAppendTime'),
    M,
    'Timestamp stored in appended batches: CreateTime or LogAppendTime.',
    DYN,
  ),
  def(
    'log.message.timestamp.before.max.ms',
    'long',
    LONG_MAX,
    atLeast(0),
    M,
    'With CreateTime, how far a timestamp may lie before the broker time.',
    DYN,
  ),
  def(
    'log.message.timestamp.after.max.ms',
    'long',
    3600000n,
    atLeast(0),
    M,
    'With CreateTime, how far a timestamp may lie after the broker time.',
    DYN,
  ),
  def(
    'log.dir.failure.timeout.ms',
    'long',
    30000n,
    atLeast(1),
    L,
    'How long a log directory failure may stay unreported before the broker shuts down.',
  ),
  def(
    'log.initial.task.delay.ms',
    'long',
    30000n,
    atLeast(0),
    L,
    'Initial delay of the log manager background tasks (testing).',
    { internal: true },
  ),
  def(
    'num.recovery.threads.per.data.dir',
    'int',
    2,
    atLeast(1),
    H,
    'Threads per data directory for recovery at startup (informational in tkafka).',
    { ...DYN, informational: true },
  ),
  def(
    'min.insync.replicas',
    'int',
    1,
    atLeast(1),
    H,
    'Minimum in-sync replicas that must acknowledge an acks=all write.',
    DYN,
  ),
  def(
    'create.topic.policy.class.name',
    'class',
    null,
    null,
    L,
    'CreateTopics policy class (not supported by tkafka).',
    INFO,
  ),
  def(
    'alter.config.policy.class.name',
    'class',
    null,
    null,
    L,
    'AlterConfigs policy class (not supported by tkafka).',
    INFO,
  ),
  def(
    'log.local.retention.ms',
    'long',
    -2n,
    atLeast(-2),
    M,
    'Local retention with tiered storage; -2 means log.retention.ms.',
    DYN,
  ),
  def(
    'log.local.retention.bytes',
    'long',
    -2n,
    atLeast(-2),
    M,
    'Local retention size with tiered storage; -2 means log.retention.bytes.',
    DYN,
  ),
  def(
    'log.remote.copy.lag.bytes',
    'long',
    -1n,
    atLeast(-1),
    M,
    'Bytes of newer local data after which a segment may be copied to remote storage; -1 derives it from local retention.',
    DYN,
  ),
  def(
    'log.remote.copy.lag.ms',
    'long',
    0n,
    atLeast(-1),
    M,
    'Time after its latest record before a segment may be copied to remote storage; -1 derives it from local retention.',
    DYN,
  ),
  def(
    'max.decompressed.message.bytes',
    'int',
    INT_MAX - 8,
    between(1, INT_MAX - 8),
    M,
    'Largest decompressed size of a single record of a compressed batch the broker accepts (checked by produce validation).',
    DYN,
  ),
  // ---- log cleaner
  def('log.cleaner.enable', 'boolean', true, null, M, 'Run the log cleaner for compacted topics.'),
  def('log.cleaner.threads', 'int', 1, atLeast(0), M, 'Background threads used for log cleaning.', DYN),
  def(
    'log.cleaner.dedupe.buffer.size',
    'long',
    134217728n,
    null,
    M,
    'Memory used for log deduplication across all cleaner threads.',
    DYN,
  ),
  def('log.cleaner.io.buffer.size', 'int', 524288, atLeast(0), M, 'Memory used for cleaner I/O buffers.', DYN),
  def('log.cleaner.io.buffer.load.factor', 'double', 0.9, null, M, 'Load factor of the deduplication buffer.', DYN),
  def(
    'log.cleaner.io.max.bytes.per.second',
    'double',
    Number.MAX_VALUE,
    null,
    M,
    'Throttle of cleaner I/O (read plus write bytes per second).',
    DYN,
  ),
  def('log.cleaner.backoff.ms', 'long', 15000n, atLeast(0), M, 'Sleep time when there are no logs to clean.', DYN),
  def(
    'log.cleaner.min.cleanable.ratio',
    'double',
    0.5,
    between(0, 1),
    M,
    'Minimum dirty/total ratio for a log to be eligible for cleaning.',
    DYN,
  ),
  def(
    'log.cleaner.delete.retention.ms',
    'long',
    86400000n,
    atLeast(0),
    M,
    'How long tombstones are kept on compacted topics.',
    DYN,
  ),
  def('log.cleaner.min.compaction.lag.ms', 'long', 0n, atLeast(0), M, 'Minimum time a message stays uncompacted.', DYN),
  def(
    'log.cleaner.max.compaction.lag.ms',
    'long',
    LONG_MAX,
    atLeast(1),
    M,
    'Maximum time a message stays ineligible for compaction.',
    DYN,
  ),
  // ---- replication
  def('default.replication.factor', 'int', 1, null, M, 'Default replication factor of automatically created topics.'),
  def(
    'unclean.leader.election.enable',
    'boolean',
    false,
    null,
    H,
    'Allow replicas outside the ISR to become leader as a last resort (may lose data).',
    DYN,
  ),
  def(
    'replica.lag.time.max.ms',
    'long',
    30000n,
    null,
    H,
    'A follower not caught up for this long is removed from the ISR.',
  ),
  def('replica.fetch.max.bytes', 'int', 1048576, atLeast(0), M, 'Bytes fetched per partition by replica fetchers.'),
  def('replica.fetch.wait.max.ms', 'int', 500, null, H, 'Maximum wait of a follower fetch request.'),
  def('replica.fetch.min.bytes', 'int', 1, null, H, 'Minimum bytes a follower fetch waits for.'),
  def(
    'replica.fetch.response.max.bytes',
    'int',
    10485760,
    atLeast(0),
    M,
    'Maximum bytes of a whole replica fetch response.',
  ),
  def('replica.fetch.backoff.ms', 'int', 1000, atLeast(0), M, 'Sleep after a replica fetch error.'),
  def('replica.socket.timeout.ms', 'int', 30000, null, H, 'Socket timeout of replica fetch requests.'),
  def('replica.socket.receive.buffer.bytes', 'int', 65536, null, H, 'Socket receive buffer of replica fetchers.'),
  def(
    'replica.high.watermark.checkpoint.interval.ms',
    'long',
    5000n,
    null,
    H,
    'How often the high watermark checkpoint is written.',
  ),
  def('num.replica.fetchers', 'int', 1, null, H, 'Fetcher threads per source broker (informational in tkafka).', {
    ...DYN,
    informational: true,
  }),
  def(
    'auto.leader.rebalance.enable',
    'boolean',
    true,
    null,
    H,
    'Move leadership back to preferred replicas periodically.',
  ),
  def(
    'leader.imbalance.check.interval.seconds',
    'long',
    300n,
    atLeast(1),
    H,
    'How often partition rebalance is checked.',
  ),
  def(
    'unclean.leader.election.interval.ms',
    'long',
    300000n,
    atLeast(1),
    M,
    'How often the controller checks whether to elect leaders uncleanly for leaderless partitions.',
    { internal: true },
  ),
  def(
    'inter.broker.protocol.version',
    'string',
    LATEST_PRODUCTION.version,
    metadataVersionValidator,
    M,
    'Inter-broker protocol version; in KRaft only read by storage format as the default release version.',
  ),
  def(
    'replica.selector.class',
    'string',
    null,
    null,
    M,
    `The fully qualified class name that implements ReplicaSelector, used by the broker to find the preferred read replica (KIP-392). By default the leader serves every fetch. tkafka implements ${RACK_AWARE_REPLICA_SELECTOR} only (consumers that set client.rack read from a replica in their rack); any other class stops start-up.`,
  ),
  // ---- group coordinator
  def(
    'offsets.topic.num.partitions',
    'int',
    50,
    atLeast(1),
    H,
    'Partitions of __consumer_offsets (must not change after deployment).',
  ),
  def('offsets.topic.replication.factor', 'short', 3, atLeast(1), H, 'Replication factor of __consumer_offsets.'),
  def('offsets.topic.segment.bytes', 'int', 104857600, atLeast(1), H, 'Segment size of __consumer_offsets.'),
  def('offsets.topic.compression.codec', 'int', 0, null, H, 'Compression codec id of __consumer_offsets writes.'),
  def(
    'offsets.retention.minutes',
    'int',
    10080,
    atLeast(1),
    H,
    'Committed offsets of an empty group expire after this many minutes.',
  ),
  def('offsets.retention.check.interval.ms', 'long', 600000n, atLeast(1), H, 'How often stale offsets are checked.'),
  def(
    'offsets.load.buffer.size',
    'int',
    5242880,
    atLeast(1),
    H,
    'Batch size for reading offsets segments into the cache.',
    INFO,
  ),
  def('offsets.commit.timeout.ms', 'int', 5000, atLeast(1), H, 'Timeout of an offset commit write.'),
  def('offset.metadata.max.bytes', 'int', 4096, null, H, 'Maximum size of the metadata string of a committed offset.'),
  def(
    'group.initial.rebalance.delay.ms',
    'int',
    3000,
    null,
    M,
    'How long a new classic group waits for more members before the first rebalance.',
  ),
  def('group.min.session.timeout.ms', 'int', 6000, null, M, 'Minimum session timeout of classic group members.'),
  def('group.max.session.timeout.ms', 'int', 1800000, null, M, 'Maximum session timeout of classic group members.'),
  def('group.max.size', 'int', INT_MAX, atLeast(1), M, 'Maximum members of a classic group.'),
  def(
    'group.coordinator.rebalance.protocols',
    'list',
    ['classic', 'consumer', 'streams'],
    validList('classic', 'consumer', 'share', 'streams'),
    M,
    'Enabled rebalance protocols: classic, consumer, share, streams.',
  ),
  def(
    'group.coordinator.threads',
    'int',
    4,
    atLeast(1),
    H,
    'Threads of the group coordinator (informational in tkafka).',
    INFO,
  ),
  def(
    'group.consumer.session.timeout.ms',
    'int',
    45000,
    atLeast(1),
    M,
    'Session timeout of consumer-protocol group members.',
  ),
  def(
    'group.consumer.min.session.timeout.ms',
    'int',
    45000,
    atLeast(1),
    M,
    'Minimum session timeout of consumer-protocol members.',
  ),
  def(
    'group.consumer.max.session.timeout.ms',
    'int',
    60000,
    atLeast(1),
    M,
    'Maximum session timeout of consumer-protocol members.',
  ),
  def(
    'group.consumer.heartbeat.interval.ms',
    'int',
    5000,
    atLeast(1),
    M,
    'Heartbeat interval of consumer-protocol members.',
  ),
  def(
    'group.consumer.min.heartbeat.interval.ms',
    'int',
    5000,
    atLeast(1),
    M,
    'Minimum heartbeat interval of consumer-protocol members.',
  ),
  def(
    'group.consumer.max.heartbeat.interval.ms',
    'int',
    15000,
    atLeast(1),
    M,
    'Maximum heartbeat interval of consumer-protocol members.',
  ),
  def('group.consumer.max.size', 'int', INT_MAX, atLeast(1), M, 'Maximum members of a consumer-protocol group.'),
  def(
    'group.consumer.assignors',
    'list',
    [
      'org.apache.kafka.coordinator.group.assignor.UniformAssignor',
      'org.apache.kafka.coordinator.group.assignor.RangeAssignor',
    ],
    null,
    M,
    'The server side assignors as a list of full class names (or uniform, range); the first is the default.',
  ),
  def(
    'group.consumer.migration.policy',
    'string',
    'bidirectional',
    lambda('(case insensitive) [DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL]', (name, v) => {
      if (!['disabled', 'downgrade', 'upgrade', 'bidirectional'].includes(String(v).toLowerCase()))
        throw invalidValue(
          name,
          String(v),
          'String must be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL',
        );
    }),
    M,
    'Online conversion between classic groups and consumer groups: bidirectional, upgrade, downgrade or disabled.',
  ),
  def(
    'group.consumer.assignment.interval.ms',
    'int',
    1000,
    atLeast(0),
    M,
    'The interval between assignment updates for a consumer group (tkafka computes the target assignment in the heartbeat that needs it).',
    INFO,
  ),
  def(
    'group.consumer.min.assignment.interval.ms',
    'int',
    0,
    atLeast(0),
    M,
    'The minimum interval between assignment updates for a consumer group.',
    INFO,
  ),
  def(
    'group.consumer.max.assignment.interval.ms',
    'int',
    15000,
    atLeast(0),
    M,
    'The maximum interval between assignment updates for a consumer group.',
    INFO,
  ),
  def(
    'group.consumer.assignor.offload.enable',
    'boolean',
    true,
    null,
    M,
    'Whether to offload consumer group assignment to a group coordinator background thread.',
    { internal: true, informational: true },
  ),
  def(
    'group.consumer.regex.refresh.interval.ms',
    'int',
    600000,
    atLeast(10000),
    M,
    'The interval at which the group coordinator refreshes the topics matching the regular expressions of its groups (tkafka refreshes them when topics are created or deleted).',
    { internal: true, informational: true },
  ),
  // ---- share groups (KIP-932): Kafka 4.4's GroupCoordinatorConfig group.share.* keys (read by
  // src/broker/group/config.ts) and ShareGroupConfig (read by src/broker/share/share-partition-manager.ts;
  // the bounds also bound the share.* group configs, src/broker/group/group-configs.ts)
  def(
    'group.share.session.timeout.ms',
    'int',
    45000,
    atLeast(1),
    M,
    'The timeout to detect client failures when using the share group protocol.',
  ),
  def(
    'group.share.min.session.timeout.ms',
    'int',
    45000,
    atLeast(1),
    M,
    'The minimum allowed session timeout for share group members.',
  ),
  def(
    'group.share.max.session.timeout.ms',
    'int',
    60000,
    atLeast(1),
    M,
    'The maximum allowed session timeout for share group members.',
  ),
  def(
    'group.share.heartbeat.interval.ms',
    'int',
    5000,
    atLeast(1),
    M,
    'The heartbeat interval given to the members of a share group.',
  ),
  def(
    'group.share.min.heartbeat.interval.ms',
    'int',
    5000,
    atLeast(1),
    M,
    'The minimum heartbeat interval for share group members.',
  ),
  def(
    'group.share.max.heartbeat.interval.ms',
    'int',
    15000,
    atLeast(1),
    M,
    'The maximum heartbeat interval for share group members.',
  ),
  def(
    'group.share.max.size',
    'int',
    200,
    between(1, 1000),
    M,
    'The maximum number of members that a single share group can accommodate.',
  ),
  def(
    'group.share.assignors',
    'list',
    ['simple'],
    null,
    M,
    'The server-side assignors as a list of either names for built-in assignors or full class names for custom assignors (tkafka: simple).',
  ),
  def(
    'group.share.assignment.interval.ms',
    'int',
    1000,
    atLeast(0),
    M,
    'The interval between assignment updates for a share group (tkafka computes the target assignment in the heartbeat that needs it).',
    INFO,
  ),
  def(
    'group.share.min.assignment.interval.ms',
    'int',
    0,
    atLeast(0),
    M,
    'The minimum interval between assignment updates for a share group.',
    INFO,
  ),
  def(
    'group.share.max.assignment.interval.ms',
    'int',
    15000,
    atLeast(0),
    M,
    'The maximum interval between assignment updates for a share group.',
    INFO,
  ),
  def(
    'group.share.assignor.offload.enable',
    'boolean',
    true,
    null,
    M,
    'Whether to offload share group assignment to a group coordinator background thread.',
    { internal: true, informational: true },
  ),
  def(
    'group.share.initialize.retry.interval.ms',
    'int',
    30000,
    atLeast(1),
    M,
    'Time elapsed before retrying initialize share group state request.',
    { internal: true },
  ),
  def(
    'group.share.delivery.count.limit',
    'int',
    5,
    between(2, 10),
    M,
    'The maximum number of delivery attempts for a record delivered to a share group.',
  ),
  def(
    'group.share.max.delivery.count.limit',
    'int',
    10,
    between(5, 25),
    M,
    'The maximum value of a group configuration for the maximum number of delivery attempts for a record delivered to a share group.',
  ),
  def(
    'group.share.min.delivery.count.limit',
    'int',
    2,
    between(2, 5),
    M,
    'The minimum value of a group configuration for the maximum number of delivery attempts for a record delivered to a share group.',
  ),
  def(
    'group.share.record.lock.duration.ms',
    'int',
    30000,
    between(1000, 3600000),
    M,
    'The record acquisition lock duration in milliseconds for share groups.',
  ),
  def(
    'group.share.min.record.lock.duration.ms',
    'int',
    15000,
    between(1000, 30000),
    M,
    'The minimum value of a group configuration for record acquisition lock duration in milliseconds.',
  ),
  def(
    'group.share.max.record.lock.duration.ms',
    'int',
    60000,
    between(30000, 3600000),
    M,
    'The maximum value of a group configuration for record acquisition lock duration in milliseconds.',
  ),
  def(
    'group.share.partition.max.record.locks',
    'int',
    2000,
    between(100, 10000),
    M,
    'Share-group record lock limit per share-partition.',
  ),
  def(
    'group.share.max.partition.max.record.locks',
    'int',
    4000,
    between(2000, 10000),
    M,
    'The maximum value of a group configuration for the record lock limit per share-partition.',
  ),
  def(
    'group.share.min.partition.max.record.locks',
    'int',
    100,
    between(100, 2000),
    M,
    'The minimum value of a group configuration for the record lock limit per share-partition.',
  ),
  def('group.share.max.share.sessions', 'int', 2000, atLeast(1), M, 'The maximum number of share sessions per broker.'),
  def(
    'share.fetch.purgatory.purge.interval.requests',
    'int',
    1000,
    null,
    M,
    'The purge interval (in number of requests) of the share fetch request purgatory (tkafka: parked share fetches are removed when they complete).',
    INFO,
  ),
  // ---- streams groups (KIP-1071): Kafka 4.4's GroupCoordinatorConfig group.streams.* keys, in its
  // CONFIG_DEF order (read by src/broker/group/config.ts; the bounds and defaults of the streams.* group
  // configs, src/broker/group/group-configs.ts); cross-key rules in validate.ts (verifyStreamsGroupConfigs)
  def(
    'group.streams.session.timeout.ms',
    'int',
    45000,
    atLeast(1),
    M,
    'The timeout to detect client failures when using the streams group protocol.',
  ),
  def(
    'group.streams.min.session.timeout.ms',
    'int',
    45000,
    atLeast(1),
    M,
    'The minimum allowed value for the group-level configuration of streams.session.timeout.ms',
  ),
  def(
    'group.streams.max.session.timeout.ms',
    'int',
    60000,
    atLeast(1),
    M,
    'The maximum allowed value for the group-level configuration of streams.session.timeout.ms',
  ),
  def(
    'group.streams.heartbeat.interval.ms',
    'int',
    5000,
    atLeast(1),
    M,
    'The heartbeat interval given to the members.',
  ),
  def(
    'group.streams.min.heartbeat.interval.ms',
    'int',
    5000,
    atLeast(1),
    M,
    'The minimum allowed value for the group-level configuration of streams.heartbeat.interval.ms',
  ),
  def(
    'group.streams.max.heartbeat.interval.ms',
    'int',
    15000,
    atLeast(1),
    M,
    'The maximum allowed value for the group-level configuration of streams.heartbeat.interval.ms',
  ),
  def(
    'group.streams.max.size',
    'int',
    INT_MAX,
    atLeast(1),
    M,
    'The maximum number of streams clients that a single streams group can accommodate.',
  ),
  def('group.streams.num.standby.replicas', 'int', 0, atLeast(0), M, 'The number of standby replicas for each task.'),
  def(
    'group.streams.max.standby.replicas',
    'int',
    2,
    atLeast(0),
    M,
    'The maximum allowed value for the group-level configuration of streams.num.standby.replicas',
  ),
  def(
    'group.streams.initial.rebalance.delay.ms',
    'int',
    3000,
    atLeast(0),
    M,
    'The amount of time the group coordinator will wait for more streams clients to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances.',
  ),
  def(
    'group.streams.assignment.interval.ms',
    'int',
    1000,
    atLeast(0),
    M,
    'The interval between assignment updates for a streams group.',
    DYN,
  ),
  def(
    'group.streams.min.assignment.interval.ms',
    'int',
    0,
    atLeast(0),
    M,
    'The minimum interval between assignment updates for a streams group.',
  ),
  def(
    'group.streams.max.assignment.interval.ms',
    'int',
    15000,
    atLeast(0),
    M,
    'The maximum interval between assignment updates for a streams group.',
  ),
  def(
    'group.streams.assignors',
    'list',
    ['sticky'],
    anyNonDuplicateValues(false, false),
    M,
    'The server side task assignors for streams groups as a list of either names for built-in assignors or fully qualified class names for custom assignors. The first one in the list is considered as the default assignor to be used in the case where the streams group does not specify an assignor. Changing the default assignor does not trigger a rebalance for existing groups; the new default takes effect on the next rebalance. The supported built-in assignors are: sticky.',
  ),
  def(
    'group.streams.assignor.offload.enable',
    'boolean',
    true,
    null,
    M,
    'Whether to offload streams group assignment to a group coordinator background thread.',
    { internal: true, informational: true },
  ),
  def(
    'group.streams.task.offset.interval.ms',
    'int',
    60000,
    atLeast(1),
    M,
    'The interval in which the warmup task changelog offsets on a client are updated on the broker. The offsets are sent with the next heartbeat after this time has passed.',
    { internal: true },
  ),
  def(
    'group.streams.min.task.offset.interval.ms',
    'int',
    15000,
    atLeast(1),
    M,
    'The minimum allowed value for the group-level configuration of streams.task.offset.interval.ms',
    { internal: true },
  ),
  def('group.streams.num.warmup.replicas', 'int', 2, atLeast(0), M, 'The maximum number of warmup task replicas.', {
    internal: true,
  }),
  def(
    'group.streams.max.warmup.replicas',
    'int',
    20,
    atLeast(0),
    M,
    'The maximum allowed value for the group-level configuration of streams.num.warmup.replicas',
    { internal: true },
  ),
  def(
    'group.streams.rack.aware.assignment.tags',
    'list',
    [],
    anyNonDuplicateValues(true, false),
    L,
    'List of client tag keys used to distribute standby replicas across Kafka Streams instances. When configured, and the used broker-side assignor supports it, it will make a best-effort to distribute standby tasks over each client tag dimension.',
  ),
  def(
    'group.streams.topology.description.plugin.class',
    'class',
    null,
    null,
    M,
    'The fully qualified class name of a StreamsGroupTopologyDescriptionPlugin implementation. When not set, the feature is disabled.',
  ),
  def(
    'group.streams.acceptable.recovery.lag',
    'long',
    10000n,
    atLeast(0),
    M,
    'The maximum acceptable lag (number of offsets to catch up) for a client to be considered caught-up enough to receive an active task assignment.',
    { internal: true },
  ),
  // ---- share coordinator (__share_group_state; Kafka 4.4's ShareCoordinatorConfig)
  def(
    'share.coordinator.state.topic.num.partitions',
    'int',
    50,
    atLeast(1),
    H,
    'The number of partitions for the share-group state topic (should not change after deployment).',
  ),
  def(
    'share.coordinator.state.topic.replication.factor',
    'short',
    3,
    atLeast(1),
    H,
    'Replication factor for the share-group state topic. Topic creation will fail until the cluster size meets this replication factor requirement.',
  ),
  def(
    'share.coordinator.state.topic.min.isr',
    'short',
    2,
    atLeast(1),
    H,
    'Overridden min.insync.replicas for the share-group state topic.',
  ),
  def(
    'share.coordinator.state.topic.segment.bytes',
    'int',
    104857600,
    atLeast(1),
    H,
    'The log segment size for the share-group state topic.',
  ),
  def(
    'share.coordinator.snapshot.update.records.per.snapshot',
    'int',
    500,
    between(0, 500),
    M,
    'The number of update records the share coordinator writes between snapshot records.',
  ),
  def(
    'share.coordinator.load.buffer.size',
    'int',
    5242880,
    atLeast(1),
    H,
    'Batch size for reading from the share-group state topic when loading state information into the cache (soft-limit, overridden if records are too large).',
  ),
  def(
    'share.coordinator.state.topic.prune.interval.ms',
    'int',
    300000,
    atLeast(1),
    M,
    'The duration in milliseconds that the share coordinator will wait between pruning eligible records in share-group state topic.',
  ),
  def(
    'share.coordinator.cold.partition.snapshot.interval.ms',
    'int',
    300000,
    atLeast(1),
    M,
    'The duration in milliseconds that the share coordinator will wait between force snapshotting share partitions which are not being updated.',
  ),
  def(
    'share.coordinator.write.timeout.ms',
    'int',
    5000,
    atLeast(1),
    H,
    'The duration in milliseconds that the share coordinator will wait for all replicas of the share-group state topic to receive a write.',
  ),
  // ---- transactions and producer ids
  def(
    'transaction.state.log.num.partitions',
    'int',
    50,
    atLeast(1),
    H,
    'Partitions of __transaction_state (must not change after deployment).',
  ),
  def(
    'transaction.state.log.replication.factor',
    'short',
    3,
    atLeast(1),
    H,
    'Replication factor of __transaction_state.',
  ),
  def('transaction.state.log.min.isr', 'int', 2, atLeast(1), H, 'min.insync.replicas of __transaction_state.'),
  def('transaction.state.log.segment.bytes', 'int', 104857600, atLeast(1), H, 'Segment size of __transaction_state.'),
  def(
    'transaction.state.log.load.buffer.size',
    'int',
    5242880,
    atLeast(1),
    H,
    'Batch size for loading transaction state.',
    INFO,
  ),
  def('transactional.id.expiration.ms', 'int', 604800000, atLeast(1), H, 'How long an idle transactional id is kept.'),
  def(
    'transaction.max.timeout.ms',
    'int',
    900000,
    atLeast(1),
    H,
    'Maximum transaction timeout a producer may ask for.',
  ),
  def(
    'transaction.abort.timed.out.transaction.cleanup.interval.ms',
    'int',
    10000,
    atLeast(1),
    L,
    'How often timed-out transactions are rolled back.',
  ),
  def(
    'transaction.remove.expired.transaction.cleanup.interval.ms',
    'int',
    3600000,
    atLeast(1),
    L,
    'How often expired transactional ids are removed.',
  ),
  def(
    'add.partitions.to.txn.retry.backoff.max.ms',
    'int',
    100,
    atLeast(0),
    H,
    'The maximum allowed timeout for adding partitions to transactions on the server side. It only applies to the actual add partition operations, not the verification. It will not be effective if it is larger than request.timeout.ms',
  ),
  def(
    'add.partitions.to.txn.retry.backoff.ms',
    'int',
    20,
    atLeast(1),
    H,
    'The server-side retry backoff when the server attemptsto add the partition to the transaction',
  ),
  def(
    'transaction.partition.verification.enable',
    'boolean',
    true,
    null,
    L,
    'Verify that a partition was added to the transaction before writing to it.',
    DYN,
  ),
  def(
    'producer.id.expiration.ms',
    'int',
    86400000,
    atLeast(1),
    L,
    'How long producer-id state is kept after the last write.',
    DYN,
  ),
  def(
    'producer.id.expiration.check.interval.ms',
    'int',
    600000,
    atLeast(1),
    L,
    'How often expired producer ids are removed.',
    { internal: true },
  ),
  // ---- tkafka
  def(
    'tkafka.request.log',
    'boolean',
    false,
    null,
    L,
    'tkafka: log one line per request handled (client, API, version, latency).',
  ),
  def(
    'tkafka.metrics.listener',
    'string',
    null,
    metricsListenerValidator,
    L,
    "tkafka: where the node serves its metrics for Prometheus (GET /metrics, the Prometheus JMX exporter's names for Kafka's MBeans, docs/metrics.md), as http://<ip or localhost>:<port>, e.g. http://127.0.0.1:9404. Unset: no metrics endpoint.",
  ),
];

/** Broker keys by name. */
export const BROKER_CONFIGS: ReadonlyMap<string, ConfigKey> = indexKeys(BROKER_CONFIG_KEYS);

/**
 * QuotaConfig.brokerQuotaConfigs: broker configs that are only ever dynamic (not KafkaConfig keys,
 * so not listed by DescribeConfigs unless set), part of DynamicConfig.Broker's ConfigDef with which
 * Kafka validates a dynamic broker config change and types a described one.
 */
const quotaDoc = (what: string): string =>
  `A long representing the upper bound (bytes/sec) on replication traffic for ${what}s enumerated in the property ${what}.replication.throttled.replicas (for each topic). This property can be only set dynamically. It is suggested that the limit be kept above 1MB/s for accurate behaviour.`;
export const BROKER_QUOTA_CONFIGS: ReadonlyMap<string, ConfigKey> = indexKeys([
  def('leader.replication.throttled.rate', 'long', LONG_MAX, atLeast(0), M, quotaDoc('leader'), DYN),
  def('follower.replication.throttled.rate', 'long', LONG_MAX, atLeast(0), M, quotaDoc('follower'), DYN),
  def(
    'replica.alter.log.dirs.io.max.bytes.per.second',
    'long',
    LONG_MAX,
    atLeast(0),
    M,
    'A long representing the upper bound (bytes/sec) on disk IO used for moving replica between log directories on the same broker. This property can be only set dynamically. It is suggested that the limit be kept above 1MB/s for accurate behaviour.',
    DYN,
  ),
]);

/** A dynamic broker config's key (DynamicConfig.Broker): a KafkaConfig key or a broker quota. */
export function dynamicBrokerConfigKey(name: string): ConfigKey | undefined {
  return BROKER_CONFIGS.get(name) ?? BROKER_QUOTA_CONFIGS.get(name);
}

/**
 * DynamicBrokerConfig.brokerConfigSynonyms: the broker keys that set the same thing, highest
 * priority first (e.g. log.retention.ms, log.retention.minutes, log.retention.hours).
 */
export function brokerConfigSynonyms(name: string): string[] {
  switch (name) {
    case 'log.roll.ms':
    case 'log.roll.hours':
      return ['log.roll.ms', 'log.roll.hours'];
    case 'log.roll.jitter.ms':
    case 'log.roll.jitter.hours':
      return ['log.roll.jitter.ms', 'log.roll.jitter.hours'];
    case 'log.flush.interval.ms':
      return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
    case 'log.retention.ms':
    case 'log.retention.minutes':
    case 'log.retention.hours':
      return ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'];
    default:
      return [name];
  }
}
