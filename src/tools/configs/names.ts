// The dynamic config names kafka-configs.sh (Kafka 4.0) lists in its --add-config help, per entity type
// (DynamicConfig.Broker/User/Client/Ip/ClientMetrics/Group names). Help text only: tkafka sends
// whatever is given and the broker validates it.

export const BROKER_CONFIG_NAMES: readonly string[] = [
  'background.threads', 'compression.gzip.level', 'compression.lz4.level', 'compression.type',
  'compression.zstd.level', 'follower.replication.throttled.rate', 'leader.replication.throttled.rate',
  'listener.security.protocol.map', 'listeners', 'log.cleaner.backoff.ms', 'log.cleaner.dedupe.buffer.size',
  'log.cleaner.delete.retention.ms', 'log.cleaner.io.buffer.load.factor', 'log.cleaner.io.buffer.size',
  'log.cleaner.io.max.bytes.per.second', 'log.cleaner.max.compaction.lag.ms', 'log.cleaner.min.cleanable.ratio',
  'log.cleaner.min.compaction.lag.ms', 'log.cleaner.threads', 'log.cleanup.policy', 'log.flush.interval.messages',
  'log.flush.interval.ms', 'log.index.interval.bytes', 'log.index.size.max.bytes', 'log.local.retention.bytes',
  'log.local.retention.ms', 'log.message.timestamp.after.max.ms', 'log.message.timestamp.before.max.ms',
  'log.message.timestamp.type', 'log.preallocate', 'log.retention.bytes', 'log.retention.ms', 'log.roll.jitter.ms',
  'log.roll.ms', 'log.segment.bytes', 'log.segment.delete.delay.ms', 'max.connection.creation.rate', 'max.connections',
  'max.connections.per.ip', 'max.connections.per.ip.overrides', 'message.max.bytes', 'metric.reporters',
  'min.insync.replicas', 'num.io.threads', 'num.network.threads', 'num.recovery.threads.per.data.dir',
  'num.replica.fetchers', 'principal.builder.class', 'producer.id.expiration.ms', 'remote.fetch.max.wait.ms',
  'remote.list.offsets.request.timeout.ms', 'remote.log.index.file.cache.total.size.bytes',
  'remote.log.manager.copier.thread.pool.size', 'remote.log.manager.copy.max.bytes.per.second',
  'remote.log.manager.expiration.thread.pool.size', 'remote.log.manager.fetch.max.bytes.per.second',
  'remote.log.reader.threads', 'replica.alter.log.dirs.io.max.bytes.per.second', 'sasl.enabled.mechanisms',
  'sasl.jaas.config', 'sasl.kerberos.kinit.cmd', 'sasl.kerberos.min.time.before.relogin',
  'sasl.kerberos.principal.to.local.rules', 'sasl.kerberos.service.name', 'sasl.kerberos.ticket.renew.jitter',
  'sasl.kerberos.ticket.renew.window.factor', 'sasl.login.refresh.buffer.seconds',
  'sasl.login.refresh.min.period.seconds', 'sasl.login.refresh.window.factor', 'sasl.login.refresh.window.jitter',
  'sasl.mechanism.inter.broker.protocol', 'ssl.cipher.suites', 'ssl.client.auth', 'ssl.enabled.protocols',
  'ssl.endpoint.identification.algorithm', 'ssl.engine.factory.class', 'ssl.key.password', 'ssl.keymanager.algorithm',
  'ssl.keystore.certificate.chain', 'ssl.keystore.key', 'ssl.keystore.location', 'ssl.keystore.password',
  'ssl.keystore.type', 'ssl.protocol', 'ssl.provider', 'ssl.secure.random.implementation',
  'ssl.trustmanager.algorithm', 'ssl.truststore.certificates', 'ssl.truststore.location', 'ssl.truststore.password',
  'ssl.truststore.type', 'transaction.partition.verification.enable', 'unclean.leader.election.enable',
];

export const USER_CONFIG_NAMES: readonly string[] = [
  'SCRAM-SHA-256', 'SCRAM-SHA-512', 'consumer_byte_rate', 'controller_mutation_rate', 'producer_byte_rate',
  'request_percentage',
];

export const CLIENT_CONFIG_NAMES: readonly string[] = [
  'consumer_byte_rate', 'controller_mutation_rate', 'producer_byte_rate', 'request_percentage',
];

export const IP_CONFIG_NAMES: readonly string[] = [
  'connection_creation_rate',
];

export const CLIENT_METRICS_CONFIG_NAMES: readonly string[] = [
  'interval.ms', 'match', 'metrics',
];

export const GROUP_CONFIG_NAMES: readonly string[] = [
  'consumer.heartbeat.interval.ms', 'consumer.session.timeout.ms', 'share.auto.offset.reset',
  'share.heartbeat.interval.ms', 'share.record.lock.duration.ms', 'share.session.timeout.ms',
];
