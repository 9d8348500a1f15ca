// Which broker configuration keys tkafka honours, and what `tkafka server start` does with the
// ones it does not: a key that ignoring would change behaviour an operator relies on (limits,
// policies, durability) stops start-up when it is set to a value other than Kafka's default; a key
// whose absence is harmless (threads, buffers, tuning intervals) gives one WARN line. Keys the TLS and
// SASL work owns are listed as such and left to it. test/config-support.test.ts checks that every
// key of definitions.ts is classified here and that docs/config-support.md is this module's table.
import { BROKER_CONFIG_KEYS, ConfigError, NO_DEFAULT, convertToString, parseConfigValue } from './definitions.js';
import type { ConfigKey, ConfigValue } from './config-def.js';
import type { ServerConfig } from './server-config.js';

/** The only authorizer.class.name tkafka accepts: Kafka's KRaft StandardAuthorizer (ACLs in the metadata log). */
export const STANDARD_AUTHORIZER_CLASS = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

export type SupportStatus = 'honoured' | 'refuse' | 'warn' | 'security';

export interface KeySupport {
  status: SupportStatus;
  /** Why a key is refused or ignored; for honoured keys, where it is read when not obvious. */
  reason: string;
}

/**
 * Broker keys whose only reader is the topic-level configuration they are the default of (Kafka's
 * ServerTopicConfigSynonyms): honoured because the topic key is honoured by the log.
 */
export const HONOURED_THROUGH_TOPIC: ReadonlyMap<string, string> = new Map([
  ['message.max.bytes', 'max.message.bytes'],
  ['compression.gzip.level', 'compression.gzip.level'],
  ['compression.lz4.level', 'compression.lz4.level'],
  ['compression.zstd.level', 'compression.zstd.level'],
  ['log.segment.bytes', 'segment.bytes'],
  ['log.roll.ms', 'segment.ms'],
  ['log.roll.hours', 'segment.ms'],
  ['log.roll.jitter.ms', 'segment.jitter.ms'],
  ['log.roll.jitter.hours', 'segment.jitter.ms'],
  ['log.retention.ms', 'retention.ms'],
  ['log.retention.minutes', 'retention.ms'],
  ['log.retention.hours', 'retention.ms'],
  ['log.retention.bytes', 'retention.bytes'],
  ['log.cleanup.policy', 'cleanup.policy'],
  // produce validation of compressed batches (src/broker/replication/record-validator.ts)
  ['max.decompressed.message.bytes', 'max.decompressed.message.bytes'],
  ['log.index.size.max.bytes', 'segment.index.bytes'],
  ['log.index.interval.bytes', 'index.interval.bytes'],
  ['log.flush.interval.messages', 'flush.messages'],
  ['log.flush.interval.ms', 'flush.ms'],
  ['log.flush.scheduler.interval.ms', 'flush.ms'],
  ['log.segment.delete.delay.ms', 'file.delete.delay.ms'],
  ['log.message.timestamp.type', 'message.timestamp.type'],
  ['log.message.timestamp.before.max.ms', 'message.timestamp.before.max.ms'],
  ['log.message.timestamp.after.max.ms', 'message.timestamp.after.max.ms'],
  ['log.cleaner.min.cleanable.ratio', 'min.cleanable.dirty.ratio'],
  ['log.cleaner.delete.retention.ms', 'delete.retention.ms'],
  ['log.cleaner.min.compaction.lag.ms', 'min.compaction.lag.ms'],
  ['log.cleaner.max.compaction.lag.ms', 'max.compaction.lag.ms'],
]);

/**
 * Honoured keys whose effect is easy to doubt: where they act. The warm-up keys act as in Kafka 4.4, whose
 * AssignmentRefiner is a no-op (no warm-up task is ever assigned); they bound and default the group's
 * streams.num.warmup.replicas. The rack-aware tags reach the assignment configs and the MISSING_CLIENT_TAGS
 * status; Kafka 4.4's sticky assignor does not place standbys by tags either.
 */
const HONOURED_NOTES: ReadonlyMap<string, string> = new Map([
  [
    'group.streams.num.warmup.replicas',
    "as Kafka 4.4 (no warm-up tasks: its AssignmentRefiner is a no-op); default of the group's streams.num.warmup.replicas",
  ],
  [
    'group.streams.max.warmup.replicas',
    "as Kafka 4.4 (no warm-up tasks); bound of the group's streams.num.warmup.replicas",
  ],
  [
    'group.streams.rack.aware.assignment.tags',
    'assignment configs and the MISSING_CLIENT_TAGS status; placement as Kafka 4.4 (the sticky assignor ignores tags)',
  ],
]);

/** Keys the broker, controller or `tkafka storage format` reads and acts on. */
export const HONOURED_KEYS: readonly string[] = [
  'process.roles',
  'node.id',
  'broker.id',
  'controller.listener.names',
  'connection.failed.authentication.delay.ms',
  'controller.quorum.voters',
  'controller.quorum.bootstrap.servers',
  'controller.quorum.election.timeout.ms',
  'controller.quorum.fetch.timeout.ms',
  'controller.quorum.election.backoff.max.ms',
  'controller.quorum.request.timeout.ms',
  'controller.quorum.retry.backoff.ms',
  'metadata.log.dir',
  'metadata.log.segment.bytes',
  'metadata.log.segment.ms',
  'metadata.max.retention.bytes',
  'metadata.max.retention.ms',
  'metadata.max.idle.interval.ms',
  'metadata.log.max.record.bytes.between.snapshots',
  'metadata.log.max.snapshot.interval.ms',
  'broker.heartbeat.interval.ms',
  'broker.session.timeout.ms',
  'initial.broker.registration.timeout.ms',
  'broker.rack',
  'advertised.listeners',
  'inter.broker.listener.name',
  'socket.request.max.bytes',
  'connections.max.idle.ms',
  'request.timeout.ms',
  'fetch.max.bytes',
  'max.incremental.fetch.session.cache.slots',
  'max.request.partition.size.limit',
  'delete.topic.enable',
  'auto.create.topics.enable',
  'compression.type',
  'unstable.feature.versions.enable',
  'controlled.shutdown.enable',
  'num.partitions',
  'log.dir',
  'log.dirs',
  // the deadline of propagating an offline log dir to the controller (src/broker/log/log-dir-failure.ts)
  'log.dir.failure.timeout.ms',
  'log.retention.check.interval.ms',
  'log.flush.offset.checkpoint.interval.ms',
  'log.flush.start.offset.checkpoint.interval.ms',
  'replica.high.watermark.checkpoint.interval.ms',
  'log.initial.task.delay.ms',
  'min.insync.replicas',
  'log.cleaner.enable',
  'log.cleaner.backoff.ms',
  'default.replication.factor',
  'unclean.leader.election.enable',
  'replica.lag.time.max.ms',
  'replica.fetch.max.bytes',
  'replica.fetch.wait.max.ms',
  'replica.fetch.min.bytes',
  'replica.fetch.response.max.bytes',
  'replica.fetch.backoff.ms',
  'replica.socket.timeout.ms',
  'auto.leader.rebalance.enable',
  'leader.imbalance.check.interval.seconds',
  'unclean.leader.election.interval.ms',
  'inter.broker.protocol.version',
  'replica.selector.class',
  'offsets.topic.num.partitions',
  'offsets.topic.replication.factor',
  'offsets.topic.segment.bytes',
  'offsets.retention.minutes',
  'offsets.retention.check.interval.ms',
  'offsets.load.buffer.size',
  'offsets.commit.timeout.ms',
  'offset.metadata.max.bytes',
  'group.initial.rebalance.delay.ms',
  'group.min.session.timeout.ms',
  'group.max.session.timeout.ms',
  'group.max.size',
  'telemetry.max.bytes',
  'tkafka.client.telemetry.enable',
  'group.coordinator.rebalance.protocols',
  'group.consumer.session.timeout.ms',
  'group.consumer.min.session.timeout.ms',
  'group.consumer.max.session.timeout.ms',
  'group.consumer.heartbeat.interval.ms',
  'group.consumer.min.heartbeat.interval.ms',
  'group.consumer.max.heartbeat.interval.ms',
  'group.consumer.max.size',
  'group.consumer.assignors',
  'group.consumer.migration.policy',
  'group.consumer.min.assignment.interval.ms',
  'group.consumer.max.assignment.interval.ms',
  'transaction.state.log.num.partitions',
  // share groups: the group coordinator (group/config.ts) and the SharePartitionManager
  'group.share.session.timeout.ms',
  'group.share.min.session.timeout.ms',
  'group.share.max.session.timeout.ms',
  'group.share.heartbeat.interval.ms',
  'group.share.min.heartbeat.interval.ms',
  'group.share.max.heartbeat.interval.ms',
  'group.share.max.size',
  'group.share.initialize.retry.interval.ms',
  'group.share.min.assignment.interval.ms',
  'group.share.max.assignment.interval.ms',
  'group.share.delivery.count.limit',
  'group.share.max.delivery.count.limit',
  'group.share.min.delivery.count.limit',
  'group.share.record.lock.duration.ms',
  'group.share.min.record.lock.duration.ms',
  'group.share.max.record.lock.duration.ms',
  'group.share.partition.max.record.locks',
  'group.share.max.partition.max.record.locks',
  'group.share.min.partition.max.record.locks',
  'group.share.max.share.sessions',
  // streams groups: the group coordinator (group/config.ts → group/streams-ops.ts, group/group-configs.ts)
  'group.streams.session.timeout.ms',
  'group.streams.min.session.timeout.ms',
  'group.streams.max.session.timeout.ms',
  'group.streams.heartbeat.interval.ms',
  'group.streams.min.heartbeat.interval.ms',
  'group.streams.max.heartbeat.interval.ms',
  'group.streams.max.size',
  'group.streams.num.standby.replicas',
  'group.streams.max.standby.replicas',
  'group.streams.initial.rebalance.delay.ms',
  'group.streams.assignment.interval.ms',
  'group.streams.min.assignment.interval.ms',
  'group.streams.max.assignment.interval.ms',
  'group.streams.task.offset.interval.ms',
  'group.streams.min.task.offset.interval.ms',
  'group.streams.num.warmup.replicas',
  'group.streams.max.warmup.replicas',
  'group.streams.rack.aware.assignment.tags',
  'group.streams.acceptable.recovery.lag',
  'share.coordinator.state.topic.num.partitions',
  'share.coordinator.state.topic.replication.factor',
  'share.coordinator.state.topic.min.isr',
  'share.coordinator.state.topic.segment.bytes',
  'share.coordinator.snapshot.update.records.per.snapshot',
  'share.coordinator.load.buffer.size',
  'share.coordinator.write.timeout.ms',
  'share.coordinator.state.topic.prune.interval.ms',
  'share.coordinator.cold.partition.snapshot.interval.ms',
  'transaction.state.log.replication.factor',
  'transaction.state.log.min.isr',
  'transaction.state.log.segment.bytes',
  'transaction.state.log.load.buffer.size',
  'transactional.id.expiration.ms',
  'transaction.max.timeout.ms',
  'transaction.abort.timed.out.transaction.cleanup.interval.ms',
  'transaction.remove.expired.transaction.cleanup.interval.ms',
  'add.partitions.to.txn.retry.backoff.max.ms',
  'add.partitions.to.txn.retry.backoff.ms',
  'transaction.partition.verification.enable',
  'producer.id.expiration.ms',
  'producer.id.expiration.check.interval.ms',
  'tkafka.request.log',
  'tkafka.metrics.listener',
  'authorizer.class.name',
  // connection limits and the queued-request bound (src/broker/network/connection-quotas.ts)
  'max.connections',
  'max.connections.per.ip',
  'max.connections.per.ip.overrides',
  'max.connection.creation.rate',
  'queued.max.request.bytes',
  'queued.max.requests',
  ...HONOURED_THROUGH_TOPIC.keys(),
];

/** Known keys tkafka does not act on: refused when set to a non-default value, or warned about. */
export const UNSUPPORTED_KEYS: ReadonlyMap<string, KeySupport> = new Map<string, KeySupport>([
  // ---- limits an operator relies on: refused
  [
    'log.cleaner.io.max.bytes.per.second',
    { status: 'refuse', reason: 'the log cleaner is not throttled: its disk I/O would exceed the limit' },
  ],
  [
    'create.topic.policy.class.name',
    { status: 'refuse', reason: 'Java policy classes cannot be loaded: topic creations would not be checked' },
  ],
  [
    'alter.config.policy.class.name',
    { status: 'refuse', reason: 'Java policy classes cannot be loaded: config changes would not be checked' },
  ],
  [
    'cordoned.log.dirs',
    { status: 'refuse', reason: 'KIP-1066 log directory cordoning is not implemented; validate.ts refuses it first' },
  ],
  // ---- harmless to ignore: one WARN line
  ['controller.quorum.append.linger.ms', { status: 'warn', reason: 'the controller appends records at once' }],
  ['early.start.listeners', { status: 'warn', reason: 'every listener starts when the node is ready' }],
  ['socket.send.buffer.bytes', { status: 'warn', reason: "Node's net sockets keep the OS send buffer size" }],
  ['socket.receive.buffer.bytes', { status: 'warn', reason: "Node's net sockets keep the OS receive buffer size" }],
  ['socket.listen.backlog.size', { status: 'warn', reason: "listeners use Node's default accept backlog" }],
  ['num.network.threads', { status: 'warn', reason: 'one event loop serves every connection' }],
  ['num.io.threads', { status: 'warn', reason: 'one event loop handles every request' }],
  ['background.threads', { status: 'warn', reason: 'background tasks run on the event loop' }],
  ['unstable.api.versions.enable', { status: 'warn', reason: 'only stable API versions are advertised' }],
  ['log.preallocate', { status: 'warn', reason: 'segment files are not preallocated' }],
  ['num.recovery.threads.per.data.dir', { status: 'warn', reason: 'logs are recovered on the event loop' }],
  ['log.local.retention.ms', { status: 'warn', reason: 'tiered storage is not implemented, there is no remote log' }],
  [
    'log.local.retention.bytes',
    { status: 'warn', reason: 'tiered storage is not implemented, there is no remote log' },
  ],
  [
    'log.remote.copy.lag.bytes',
    { status: 'warn', reason: 'tiered storage is not implemented, there is no remote log' },
  ],
  ['log.remote.copy.lag.ms', { status: 'warn', reason: 'tiered storage is not implemented, there is no remote log' }],
  ['log.cleaner.threads', { status: 'warn', reason: 'one cleaner task cleans every log' }],
  ['log.cleaner.dedupe.buffer.size', { status: 'warn', reason: 'the cleaner sizes its offset map itself' }],
  ['log.cleaner.io.buffer.size', { status: 'warn', reason: 'the cleaner sizes its I/O buffers itself' }],
  ['log.cleaner.io.buffer.load.factor', { status: 'warn', reason: 'the cleaner sizes its offset map itself' }],
  [
    'replica.socket.receive.buffer.bytes',
    { status: 'warn', reason: "Node's net sockets keep the OS receive buffer size" },
  ],
  ['num.replica.fetchers', { status: 'warn', reason: 'one fetcher per source broker' }],
  ['offsets.topic.compression.codec', { status: 'warn', reason: 'offset commits are written uncompressed' }],
  ['group.coordinator.threads', { status: 'warn', reason: 'the group coordinator runs on the event loop' }],
  [
    'group.consumer.assignment.interval.ms',
    { status: 'warn', reason: 'consumer group assignments are computed at once, not on an interval' },
  ],
  ['group.consumer.assignor.offload.enable', { status: 'warn', reason: 'assignments are computed on the event loop' }],
  [
    'group.share.assignment.interval.ms',
    { status: 'warn', reason: 'share group assignments are computed at once, not on an interval' },
  ],
  ['group.share.assignor.offload.enable', { status: 'warn', reason: 'assignments are computed on the event loop' }],
  [
    'group.share.assignors',
    { status: 'refuse', reason: 'only the simple share assignor exists: another assignor would not be used' },
  ],
  [
    'group.streams.assignor.offload.enable',
    { status: 'warn', reason: 'streams group assignments are computed on the event loop' },
  ],
  [
    'group.streams.assignors',
    { status: 'refuse', reason: 'only the sticky task assignor exists: another assignor would not be used' },
  ],
  [
    'group.streams.topology.description.plugin.class',
    {
      status: 'refuse',
      reason: 'Java plugin classes cannot be loaded: streams groups would have no topology description',
    },
  ],
  [
    'share.fetch.purgatory.purge.interval.requests',
    { status: 'warn', reason: 'parked share fetches are removed when they complete' },
  ],
  [
    'group.consumer.regex.refresh.interval.ms',
    { status: 'warn', reason: 'subscribed regular expressions are refreshed on topic changes' },
  ],
]);

const SECURITY_KEYS = new Set(['listeners', 'listener.security.protocol.map', 'connections.max.reauth.ms']);

/** Keys the TLS/SASL part of issue 17 owns: no start-up behaviour from this module. */
export function isSecurityKey(name: string): boolean {
  return SECURITY_KEYS.has(name) || ['ssl.', 'sasl.', 'listener.name.', 'security.'].some((p) => name.startsWith(p));
}

const HONOURED = new Set(HONOURED_KEYS);

/** How tkafka treats a broker key; undefined for a key it does not know. */
export function keySupport(name: string): KeySupport | undefined {
  if (isSecurityKey(name)) return { status: 'security', reason: 'handled by issue 17 TLS/SASL' };
  const unsupported = UNSUPPORTED_KEYS.get(name);
  if (unsupported) return unsupported;
  if (name === 'authorizer.class.name')
    return {
      status: 'honoured',
      reason: `only ${STANDARD_AUTHORIZER_CLASS} (ACLs in the metadata log); any other class stops start-up`,
    };
  if (HONOURED.has(name)) {
    const topic = HONOURED_THROUGH_TOPIC.get(name);
    return {
      status: 'honoured',
      reason: topic === undefined ? (HONOURED_NOTES.get(name) ?? '') : `default of the topic config ${topic}`,
    };
  }
  return undefined;
}

function sameValue(key: ConfigKey, value: ConfigValue): boolean {
  if (key.default === NO_DEFAULT) return false;
  const dflt = parseConfigValue(key, undefined);
  return convertToString(value, key.type) === convertToString(dflt, key.type);
}

/**
 * Applies the classification to the keys set in the configuration (file and overrides) with a value
 * other than Kafka's default: throws a ConfigError naming the first refused key, and returns one
 * warning per ignored key. Called by `tkafka server start` after loadServerConfig.
 */
export function checkConfigSupport(config: ServerConfig): string[] {
  const warnings: string[] = [];
  const authorizer = config.originals.get('authorizer.class.name');
  if (authorizer !== undefined && authorizer.trim() !== '' && authorizer.trim() !== STANDARD_AUTHORIZER_CLASS)
    throw new ConfigError(
      `authorizer.class.name=${authorizer} is set but tkafka has no such authorizer: the only one is ${STANDARD_AUTHORIZER_CLASS}; set that or remove the setting`,
      'authorizer.class.name',
    );
  // client quotas (src/broker/quota/) are Kafka's DefaultQuotaCallback; a Java callback cannot be loaded
  const quotaCallback = config.originals.get('client.quota.callback.class');
  if (quotaCallback !== undefined && quotaCallback.trim() !== '')
    throw new ConfigError(
      `client.quota.callback.class=${quotaCallback} is set but tkafka cannot load a Java quota callback: client quotas are Kafka's default ones (ClientQuotaRecords); remove the setting`,
      'client.quota.callback.class',
    );
  for (const key of BROKER_CONFIG_KEYS) {
    const raw = config.originals.get(key.name);
    if (raw === undefined) continue;
    const support = keySupport(key.name);
    if (support === undefined || support.status === 'honoured' || support.status === 'security') continue;
    if (sameValue(key, config.get(key.name))) continue;
    if (support.status === 'refuse') {
      throw new ConfigError(
        `${key.name}=${raw} is set but tkafka does not enforce it yet (${support.reason}); remove the setting (see docs/config-support.md)`,
        key.name,
      );
    }
    warnings.push(
      `${key.name}=${raw} is not supported by tkafka and is ignored: ${support.reason} (see docs/config-support.md)`,
    );
  }
  return [...warnings, ...checkSecurityKeySupport(config)];
}

/** The default principal builder, the only one tkafka has (mTLS DN / SASL name as Kafka's builds them). */
export const DEFAULT_PRINCIPAL_BUILDER = 'org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder';

/** The ssl.* settings tkafka's TLS (Node's tls) cannot take: refused when set, plain or listener-prefixed. */
const SSL_REFUSED: ReadonlyMap<string, string> = new Map([
  ['ssl.engine.factory.class', 'tkafka builds its TLS contexts with Node, it does not load SslEngineFactory classes'],
  ['ssl.provider', 'Node uses OpenSSL, there is no JCA security provider to choose'],
]);
/** Java tuning of the TLS stack with no Node equivalent, and harmless to ignore: one WARN line. */
const SSL_WARNED: ReadonlyMap<string, string> = new Map([
  ['ssl.keymanager.algorithm', 'SunX509'],
  ['ssl.trustmanager.algorithm', 'PKIX'],
  ['ssl.secure.random.implementation', ''],
]);
const LISTENER_PREFIX = /^listener\.name\.[A-Za-z0-9_-]+\./;

/**
 * The security keys that are not in definitions.ts (ssl.*, principal.builder.class, super.users,
 * security.providers, allow.everyone.if.no.acl.found), plain or under a listener prefix: refused when tkafka cannot honour them, one
 * WARN line when ignoring them is harmless.
 */
function checkSecurityKeySupport(config: ServerConfig): string[] {
  const warnings: string[] = [];
  for (const [key, raw] of config.originals) {
    const base = key.replace(LISTENER_PREFIX, '');
    const value = raw.trim();
    const refused = SSL_REFUSED.get(base);
    if (refused !== undefined && value !== '')
      throw new ConfigError(`${key}=${raw} is set but tkafka cannot honour it: ${refused}; remove the setting`, key);
    const dflt = SSL_WARNED.get(base);
    if (dflt !== undefined && value !== dflt)
      warnings.push(`${key}=${raw} is not supported by tkafka and is ignored: Node's TLS has no such setting`);
    if (base === 'principal.builder.class' && value !== '' && value !== DEFAULT_PRINCIPAL_BUILDER)
      throw new ConfigError(
        `${key}=${raw} is set but tkafka does not load principal builder classes (it builds principals as ${DEFAULT_PRINCIPAL_BUILDER}); remove the setting`,
        key,
      );
    if (key === 'security.providers' && value !== '')
      throw new ConfigError(
        `${key}=${raw} is set but tkafka does not load JCA security providers; remove the setting`,
        key,
      );
    if (key === 'super.users' && value !== '') {
      for (const part of value.split(';')) {
        const p = part.trim();
        if (p !== '' && !p.includes(':'))
          throw new ConfigError(
            `${key}=${raw}: expected a string in format principalType:principalName but got ${p}`,
            key,
          );
      }
      if ((config.originals.get('authorizer.class.name') ?? '').trim() === '')
        warnings.push(`${key}=${raw} is ignored: no authorizer.class.name is set, so no request is refused`);
    }
  }
  return warnings;
}

/** Whether the loader should count `key` as a known security key (not "supplied but not used"). */
export function isKnownSecurityKey(key: string): boolean {
  const base = key.replace(LISTENER_PREFIX, '');
  return (
    base.startsWith('ssl.') ||
    ['principal.builder.class', 'super.users', 'security.providers', 'allow.everyone.if.no.acl.found'].includes(base)
  );
}

const STATUS_TEXT: Record<SupportStatus, string> = {
  honoured: 'honoured',
  refuse: 'refused-when-set',
  warn: 'ignored-with-warning',
  security: 'handled by issue 17 TLS/SASL',
};

/** The Markdown table of docs/config-support.md, one row per broker key in definitions.ts order. */
export function configSupportTable(): string {
  const rows = ['| key | status | why / where |', '| --- | --- | --- |'];
  for (const key of BROKER_CONFIG_KEYS) {
    const s = keySupport(key.name);
    rows.push(`| \`${key.name}\` | ${s ? STATUS_TEXT[s.status] : 'UNCLASSIFIED'} | ${s?.reason ?? ''} |`);
  }
  return rows.join('\n') + '\n';
}
