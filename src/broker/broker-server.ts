// The broker-only node (process.roles=broker): Kafka's BrokerServer without a controller in the
// process. The metadata log is replicated from the controller quorum by an observer (a `Quorum` that
// is not a voter); the MetadataLoader builds the image from it and the broker side (partitions,
// groups, transactions) follows that image exactly as on a combined node. The node registers with
// the active controller and heartbeats (BrokerLifecycleManager); controller APIs of clients are
// forwarded to the active controller in Envelopes, and the broker's own controller requests
// (auto-created topics, producer id blocks) go there over the same ControllerChannel.
//
// Start-up, as BrokerServer.startup: storage check (formatted by `tkafka storage format`, never here:
// the cluster id is the controllers') → acceptors bound → observer started → lifecycle manager
// registers → logs loaded, publishers installed → wait until the controller says the broker caught up
// with the metadata → serve → ready to unfence → wait until unfenced. Shutdown: controlled shutdown
// (WantShutDown until ShouldShutDown, bounded by broker.session.timeout.ms), then stop serving, flush
// and close the logs, stop the observer.
import { StandardAuthorizer } from './authorizer/standard-authorizer.js';
import { ensureFormatted } from './storage/ensure-formatted.js';
import { loadEnsemble } from '../storage/meta-properties.js';
import type { ServerConfig } from '../config/load.js';
import { effectiveTopicConfig } from '../config/topic-configs.js';
import type { MetadataPublisher, MetadataUpdate } from './metadata/events.js';
import { ConfigResourceType, type MetadataImage, type PartitionImage } from './metadata/image.js';
import { mv } from './metadata/features.js';
import { AssignmentsManager } from './replication/assignments-manager.js';
import path from 'node:path';
import { MetadataLoader, processTerminatingFaultHandler } from './metadata/loader.js';
import { LogManager } from './log/log-manager.js';
import { logDirFailureHooks } from './log/log-dir-failure.js';
import { logConfigFromProps, type LogConfig } from './log/log-config.js';
import { HandlerRegistry } from './api/registry.js';
import { registerSaslHandlers } from './api/sasl-authenticate.js';
import { saslListenerConfigs } from './security/config.js';
import { nodeOutgoingSecurity } from './security/outgoing.js';
import { saslAuthenticatorFactory } from './security/authenticator.js';
import { imageScramCredentials } from './security/scram.js';
import { createApiVersionsHandler } from './api/api-versions.js';
import { SocketServer } from './network/socket-server.js';
import { instrumentNode, instrumentSocketServer, NodeMetrics } from './metrics/index.js';
import { connectionLimitsPublisher, socketServerLimits } from './network/connection-limits-config.js';
import { connectionRateQuotaFor } from './quota/connection-quotas.js';
import { requestQuotaOf } from './quota/managers.js';
import { acceptorListeners, ListenerStores, tlsReloadPublisher } from './network/tls-listener.js';
import type { ReplicationQuotas } from './replication/replication-quotas.js';
import { ReplicaManager } from './replication/replica-manager.js';
import { applyPartitionImage } from './replication/metadata-sync.js';
import { PartitionTaskPool } from './replication/partition-task-pool.js';
import { startReplication, type Replication } from './replication/replication.js';
import { createProducerStateHook } from './replication/eos.js';
import { registerTxnHandlers } from './api/register-txn.js';
import { registerShareCoordinatorHandlers } from './api/register-share.js';
import { registerTelemetryHandlers } from './api/register-telemetry.js';
import { brokerLatestOffsets } from './share/partition-end-offsets.js';
import { startShareCoordinator, type ShareCoordinatorHandle } from './share/coordinator/broker-glue.js';
import { startTxnCoordinator, type TxnCoordinatorHandle } from './txn/broker-glue.js';
import { registerDataHandlers } from './api/register-data.js';
import { sharePartitionManagerOf, startSharePartitionManager } from './share/share-partition-manager.js';
import { registerAdminHandlers } from './api/register-all.js';
import { registerGroupHandlers } from './api/register-group.js';
import { startGroupCoordinator, type GroupCoordinatorHandle } from './group/broker-glue.js';
import type { BrokerServices } from './services.js';
import type { QuorumController } from './controller/index.js';
import { defaultBrokerLoggers } from './loggers.js';
import type { Quorum } from './raft/types.js';
import { ObserverQuorum } from './raft/observer.js';
import type { Logger as RaftLogger } from './raft/logger.js';
import type { ControllerChannel } from './forwarding/controller-channel.js';
import type { BrokerLifecycleManager } from './lifecycle/broker-lifecycle-manager.js';
import { metadataLogUpkeep } from './raft/upkeep-config.js';
import { imageSnapshot, SnapshotGenerator } from './metadata/snapshot-generator.js';
import { brokerMembership } from './lifecycle/broker-membership.js';

export interface NodeLogger {
  log(level: string, msg: string): void;
}

/** What the observer of the metadata quorum is opened with. */
export interface ObserverQuorumOptions {
  readonly config: ServerConfig;
  readonly clusterId: string;
  readonly nodeId: number;
  readonly metadataLogDir: string;
  readonly directoryId: string | undefined;
  readonly logger: RaftLogger;
}

/** Opens (does not start) the observer quorum of a broker-only node (raft/observer.ts). */
export type ObserverQuorumOpener = (opts: ObserverQuorumOptions) => Promise<Quorum>;

/**
 * Log configs already computed, per server config: the one of topics without overrides, and one per
 * overrides map (an image's maps are immutable; a changed topic config is a new map). Opening or
 * leading 10,000 partitions otherwise computes the whole effective topic config 10,000 times.
 */
const logConfigCache = new WeakMap<
  ServerConfig,
  { plain?: LogConfig; byOverrides: WeakMap<ReadonlyMap<string, string>, LogConfig> }
>();

/** A topic's log config: broker defaults, cluster and per-broker dynamic configs, topic overrides. */
export function topicLogConfig(config: ServerConfig, image: MetadataImage, topic: string): LogConfig {
  let cache = logConfigCache.get(config);
  if (!cache) logConfigCache.set(config, (cache = { byOverrides: new WeakMap() }));
  const overrides = image.configs.get(`${ConfigResourceType.Topic}:${topic}`);
  const cached = overrides ? cache.byOverrides.get(overrides) : cache.plain;
  if (cached) return cached;
  const eff = effectiveTopicConfig(config, Object.fromEntries(overrides ?? []));
  const props: Record<string, string> = {};
  for (const [k, e] of eff) if (e.value !== null) props[k] = e.value;
  const computed = Object.freeze(logConfigFromProps(props));
  if (overrides) cache.byOverrides.set(overrides, computed);
  else cache.plain = computed;
  return computed;
}

/** Where the partition publisher reports a replica's log dir (AssignmentsManager, KIP-858). */
export interface DirectoryAssignmentHook {
  /** meta.properties directory.id of a log dir, undefined when it has none. */
  directoryIdOf(dir: string): string | undefined;
  onAssignment(topicId: string, partition: number, directoryId: string, reason: string): void;
}

/**
 * Partition changes of one metadata update applied at once (PartitionTaskPool): each awaits its log's
 * file operations, which overlap instead of adding up (as LogManager's LOG_LOAD_CONCURRENCY).
 */
const PARTITION_APPLY_CONCURRENCY = 16;

/** The broker side follows the metadata: partitions appear and disappear as records commit. */
export function partitionPublisher(
  config: ServerConfig,
  replicas: ReplicaManager,
  logManager: LogManager,
  log?: (level: string, msg: string) => void,
  assignments?: DirectoryAssignmentHook,
): MetadataPublisher {
  // Kafka's ReplicaManager.applyLocalLeadersDelta/FollowersDelta: a partition whose state change fails
  // (its log dir is offline, ...) is skipped with an error line and the others go on; the publisher
  // itself does not fail (a metadata publisher's failure is a fatal fault)
  const apply = async (topic: string, partition: number, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      log?.('ERROR', `Skipped the state change for ${topic}-${partition}: ${(e as Error)?.stack ?? String(e)}`);
    }
  };
  // ReplicaManager.maybeUpdateTopicAssignment (MV >= 3.7-IV2): the metadata names another dir for
  // this broker's replica than the one its log is in → an AssignReplicasToDirs through the manager
  const maybeUpdateTopicAssignment = (image: MetadataImage, topic: string, p: PartitionImage): void => {
    if (!assignments || !mv.isDirectoryAssignmentSupported(image.metadataVersion)) return;
    const i = p.replicas.indexOf(replicas.nodeId);
    if (i < 0) return;
    const dir = logManager.logDirOfPartition(topic, p.partitionId);
    const actual = dir === undefined ? undefined : assignments.directoryIdOf(dir);
    if (actual === undefined || actual === p.directories[i]) return;
    assignments.onAssignment(p.topicId, p.partitionId, actual, 'Applying metadata delta');
  };
  return {
    name: 'broker-partitions',
    onMetadataUpdate: async (u: MetadataUpdate) => {
      // one partition's changes in order, different partitions' up to PARTITION_APPLY_CONCURRENCY at once
      const pool = new PartitionTaskPool(PARTITION_APPLY_CONCURRENCY);
      const submit = (topic: string, partition: number, fn: () => Promise<void>): void =>
        pool.submit(`${topic}-${partition}`, () => apply(topic, partition, fn));
      for (const ev of u.events) {
        if (ev.type === 'partitionsCreated') {
          for (const p of ev.partitions)
            submit(ev.topic.name, p.partitionId, async () => {
              await applyPartitionImage(replicas, ev.topic.name, ev.topic.id, p, u.image.topicConfigs(ev.topic.name));
              maybeUpdateTopicAssignment(u.image, ev.topic.name, p);
            });
        } else if (ev.type === 'partitionsChanged') {
          for (const { previous, current } of ev.partitions)
            submit(ev.topic.name, current.partitionId, async () => {
              await applyPartitionImage(
                replicas,
                ev.topic.name,
                ev.topic.id,
                current,
                u.image.topicConfigs(ev.topic.name),
                previous.replicas.includes(replicas.nodeId) && !current.replicas.includes(replicas.nodeId),
              );
              maybeUpdateTopicAssignment(u.image, ev.topic.name, current);
            });
        } else if (ev.type === 'topicDeleted') {
          // overlaps no other event: a topic recreated under the same name in this update is created
          // after the old one is gone, as the replica manager's per-topic state (ids, counts) expects
          await pool.drain();
          for (const partition of ev.topic.partitions.keys())
            submit(ev.topic.name, partition, () => replicas.deletePartitions(ev.topic.name, [partition]));
          await pool.drain();
        } else if (ev.type === 'configChanged' && ev.resourceType === ConfigResourceType.Topic) {
          // applies to the partitions hosted so far: every change submitted before it first
          await pool.drain();
          logManager.updateTopicConfig(ev.resourceName, topicLogConfig(config, u.image, ev.resourceName));
          replicas.updateTopicConfig(ev.resourceName, u.image.topicConfigs(ev.resourceName));
        }
      }
      await pool.drain();
    },
  };
}

/** The observer of raft/observer.ts, configured from controller.quorum.* and controller.listener.names. */
export const openObserverQuorum: ObserverQuorumOpener = (o) =>
  ObserverQuorum.open({
    metadataLogDir: o.metadataLogDir,
    nodeId: o.nodeId,
    clusterId: o.clusterId,
    directoryId: o.directoryId,
    voters: o.config.quorumVoters,
    bootstrapServers: o.config.quorumBootstrapServers,
    listenerName: o.config.controllerListenerNames[0] ?? 'CONTROLLER',
    requestTimeoutMs: o.config.getInt('controller.quorum.request.timeout.ms'),
    retryBackoffMs: o.config.getInt('controller.quorum.retry.backoff.ms'),
    fetchTimeoutMs: o.config.getInt('controller.quorum.fetch.timeout.ms'),
    ...metadataLogUpkeep(o.config),
    logger: o.logger,
    security: nodeOutgoingSecurity(o.config).controller,
  });

export class BrokerOnlyServer {
  /** follower fetchers and ISR changes (issue 15) */
  replication: Replication | null = null;
  /** AssignReplicasToDirs sender (KIP-858) */
  assignments: AssignmentsManager | null = null;
  /** the share coordinator (__share_group_state) */
  share: ShareCoordinatorHandle | null = null;

  private constructor(
    readonly config: ServerConfig,
    readonly clusterId: string,
    readonly quorum: Quorum,
    readonly loader: MetadataLoader,
    readonly lifecycle: BrokerLifecycleManager,
    readonly channel: ControllerChannel,
    readonly logManager: LogManager,
    readonly replicas: ReplicaManager,
    readonly socketServer: SocketServer<BrokerServices>,
    readonly groups: GroupCoordinatorHandle,
    readonly txn: TxnCoordinatorHandle,
    private readonly logger: NodeLogger,
    private readonly snapshotGenerator: SnapshotGenerator,
  ) {}

  static async start(
    config: ServerConfig,
    logger: NodeLogger,
    openQuorum: ObserverQuorumOpener = openObserverQuorum,
    metrics: NodeMetrics = new NodeMetrics(),
  ): Promise<BrokerOnlyServer> {
    const dirs = [...new Set([...config.logDirs, config.metadataLogDir])];
    const found = await loadEnsemble(dirs, config.metadataLogDir);
    if (found.logDirProps.size === 0) {
      // a broker joins the controllers' cluster: only `storage format -t <their cluster id>` can say which
      throw new Error(
        `No readable meta.properties files found in ${dirs.join(', ')}: format the storage of a broker-only node with \`tkafka storage format -t <cluster id>\``,
      );
    }
    const storage = await ensureFormatted(config);
    const clusterId = storage.clusterId;
    const nodeId = config.nodeId;
    const info = (m: string) => logger.log('INFO', m);
    const warn = (m: string) => logger.log('WARN', m);
    const error = (m: string) => logger.log('ERROR', m);
    const socketLogger = { info, warn, error };
    const acceptors = await SocketServer.openAcceptors(
      acceptorListeners(config),
      config.controllerListenerNames,
      socketLogger,
    );
    // what start-up has opened, closed in reverse order if it fails (the process must be able to exit)
    const undo: (() => unknown)[] = [() => Promise.all(acceptors.map((a) => a.close()))];
    try {
      const advertised = config.effectiveAdvertisedBrokerListeners.map((e) => {
        let port = e.port;
        if (port === 0) {
          const acceptor = acceptors.find((a) => a.bound.name === e.listenerName);
          if (!acceptor)
            throw new Error(`Cannot resolve ephemeral port 0 of ${e.listenerName}: it is not in listeners`);
          info(`${e.listenerName}: resolved ephemeral port to ${acceptor.bound.port}`);
          port = acceptor.bound.port;
        }
        return {
          name: e.listenerName,
          host: e.host ?? '127.0.0.1',
          port,
          securityProtocol: String(e.securityProtocol),
        };
      });

      // the metadata, replicated from the quorum by an observer
      const raftLogger: RaftLogger = { info, warn, error: (m: string) => error(m) };
      const quorum = await openQuorum({
        config,
        clusterId,
        nodeId,
        metadataLogDir: config.metadataLogDir,
        directoryId: storage.directoryIds.get(config.metadataLogDir),
        logger: raftLogger,
      });
      // a broker-only node: faults publishing later images are logged (Kafka's LoggingFaultHandler for
      // "metadata loading" without the controller role), one on the first image is fatal
      // (initialBrokerMetadataLoadFaultHandler)
      const loader = new MetadataLoader({
        clusterId,
        logger: raftLogger,
        initialFaultHandler: processTerminatingFaultHandler(raftLogger),
      });
      quorum.register(loader);
      const upkeep = metadataLogUpkeep(config);
      const snapshotGenerator = new SnapshotGenerator({
        maxBytesSinceLastSnapshot: upkeep.snapshotMaxBytes,
        maxTimeSinceLastSnapshotMs: upkeep.snapshotIntervalMs,
        emit: async () => {
          const snapshot = imageSnapshot(loader);
          const latest = quorum.latestSnapshotId();
          if (!snapshot || (latest && latest.offset >= snapshot.id.offset)) return null;
          await quorum.createSnapshot(snapshot);
          return snapshot.id;
        },
        logger: raftLogger,
      });
      quorum.register(snapshotGenerator);
      undo.push(() => snapshotGenerator.close());
      undo.push(() => quorum.close());
      await quorum.start();

      const { channel, lifecycle, remote } = brokerMembership({
        config,
        clusterId,
        quorum,
        metadata: loader,
        listeners: advertised,
        logDirIds: config.logDirs.map((d) => storage.directoryIds.get(d)).filter((x): x is string => !!x),
        logger: { info, warn, error },
      });
      undo.push(
        () => channel.close(),
        () => lifecycle.close(),
      );
      lifecycle.start();

      // KIP-858: which of this broker's log dirs holds each replica (AssignReplicasToDirs)
      const assignments = new AssignmentsManager({
        nodeId,
        brokerEpoch: () => lifecycle.brokerEpoch,
        channel,
        image: () => loader.image,
        requestTimeoutMs: config.getInt('request.timeout.ms'),
        logger: { info, error },
      });
      undo.push(() => assignments.close());
      const dirIds = new Map([...storage.directoryIds].map(([d, id]) => [path.resolve(d), id]));
      const directoryAssignments = {
        directoryIdOf: (dir: string) => dirIds.get(path.resolve(dir)),
        onAssignment: (topicId: string, partition: number, directoryId: string, reason: string) =>
          assignments.onAssignment(topicId, partition, directoryId, reason),
      };

      const quotas: { of?: ReplicationQuotas } = {};
      const logManager = new LogManager({
        logDirs: config.logDirs,
        defaultConfig: topicLogConfig(config, loader.image, ''),
        topicConfig: (topic) => topicLogConfig(config, loader.image, topic),
        retentionCheckIntervalMs: Number(config.getLong('log.retention.check.interval.ms')),
        cleanerEnabled: config.getBoolean('log.cleaner.enable'),
        cleanerBackoffMs: Number(config.getLong('log.cleaner.backoff.ms')),
        flushCheckIntervalMs: config.getNumber('log.flush.scheduler.interval.ms'),
        recoveryPointCheckpointIntervalMs: config.getNumber('log.flush.offset.checkpoint.interval.ms'),
        logStartOffsetCheckpointIntervalMs: config.getNumber('log.flush.start.offset.checkpoint.interval.ms'),
        highWatermarkCheckpointIntervalMs: config.getNumber('replica.high.watermark.checkpoint.interval.ms'),
        initialTaskDelayMs: config.getNumber('log.initial.task.delay.ms'),
        excludeTopics: ['__cluster_metadata'],
        ...logDirFailureHooks({
          metadataLogDir: config.metadataLogDir,
          directoryIds: storage.directoryIds,
          lifecycle: lifecycle,
          failureTimeoutMs: Number(config.getLong('log.dir.failure.timeout.ms')),
          log: (level, msg) => logger.log(level, msg),
          shutdown: () => process.kill(process.pid, 'SIGTERM'),
        }),
        // LogLoader's lines (a corrupt index rebuilt, a checkpoint reset) go to the node's log
        logger: { info: (m: string) => logger.log('INFO', m), warn: (m: string) => logger.log('WARN', m) },
        // replica.alter.log.dirs.io.max.bytes.per.second, once the replica manager below exists (a move
        // resumed during startup copies its first chunks unthrottled)
        alterLogDirsChunk: async (bytes: number): Promise<void> => {
          await quotas.of?.alterLogDirsChunk(bytes);
        },
        // Kafka sends this one before the promotion and waits for the controller; here right after it
        onReplicaDirChanged: (topic, partition, dir) => {
          const topicId = loader.image.topic(topic)?.id;
          const id = directoryAssignments.directoryIdOf(dir);
          if (topicId !== undefined && id !== undefined)
            assignments.onAssignment(topicId, partition, id, 'Future replica promotion');
        },
      });
      await logManager.startup();
      undo.push(() => logManager.shutdown());
      const producerStateHook = createProducerStateHook({ config });
      const replicas = new ReplicaManager({
        logManager,
        config,
        nodeId,
        metadata: () => loader.image,
        producerState: producerStateHook,
        logger: { info, warn },
      });
      quotas.of = replicas.quotas;
      const replication = startReplication({
        config,
        replicas,
        image: () => loader.image,
        channel,
        logger: { info, warn },
      });
      undo.push(() => replication.shutdown());
      await loader.addPublisher(
        partitionPublisher(config, replicas, logManager, (l, m) => logger.log(l, m), directoryAssignments),
      );

      const listenerStores = new ListenerStores(config);
      const services: BrokerServices = {
        config,
        nodeId,
        clusterId,
        endpoints: advertised.map((e) => ({
          listenerName: e.name,
          host: e.host,
          port: e.port,
          securityProtocol: e.securityProtocol,
        })),
        get controller(): QuorumController {
          throw new Error('a broker-only node (process.roles=broker) has no controller in the process');
        },
        remote,
        replicas,
        authorizer: StandardAuthorizer.fromConfig(
          (key) => config.originals.get(key),
          () => loader.image.acls,
        ),
        loggers: defaultBrokerLoggers(),
        groupCoordinator: null,
        txnCoordinator: null,
        listenerStores,
        metrics,
      };
      const registry = new HandlerRegistry();
      registry.register(
        createApiVersionsHandler(registry, {
          finalizedFeatures: () => ({ epoch: BigInt(loader.image.provenance.offset), levels: loader.image.features }),
          controllerApiVersions: () => channel.activeControllerApiVersions,
        }),
      );
      registerDataHandlers(registry);
      registerAdminHandlers(registry, { forward: true });
      registerGroupHandlers(registry);
      const groups = await startGroupCoordinator(services, (level, msg) => logger.log(level, msg));
      const txn = await startTxnCoordinator(services, {
        logger: (level, msg) => logger.log(level, msg),
        hook: producerStateHook,
      });
      registerTxnHandlers(registry);
      const share = await startShareCoordinator(services, (level, msg) => logger.log(level, msg));
      registerShareCoordinatorHandlers(registry);
      const telemetry = registerTelemetryHandlers(registry, services);
      // share-partition state goes through the share coordinator's persister (__share_group_state); the
      // group coordinator initializes it with the same persister and tells the manager about leaving members
      const sharePartitions = startSharePartitionManager(services, {
        persister: share.persister,
        log: (level, msg) => logger.log(level.toUpperCase(), msg),
      });
      // share-group lag: the partitions' latest offsets from their leaders (NetworkPartitionMetadataClient)
      const endOffsets = brokerLatestOffsets(services);
      groups.coordinator.setShareCollaborators({
        persister: share.persister,
        listener: sharePartitions,
        latestOffsets: endOffsets.latestOffsets,
      });
      registerSaslHandlers(registry, ['broker']);
      undo.push(
        () => groups.shutdown(),
        () => txn.shutdown(),
        () => share.shutdown(),
        () => sharePartitions.close(),
        () => endOffsets.close(),
      );

      info('Waiting for the broker to catch up with the cluster metadata');
      await lifecycle.initialCatchUp;
      await loader.published();
      const requestMetrics = instrumentNode(metrics, {
        replicas,
        quorum,
        groups: () => services.groupCoordinator,
        transactions: () => services.txnCoordinator,
      });
      const socketServer = new SocketServer<BrokerServices>({
        listeners: acceptors,
        controllerListenerNames: config.controllerListenerNames,
        logger: socketLogger,
        registry,
        services,
        socketRequestMaxBytes: config.getInt('socket.request.max.bytes'),
        connectionsMaxIdleMs: Number(config.getLong('connections.max.idle.ms')),
        requestLog: config.requestLog,
        ...socketServerLimits(config),
        ipConnectionRate: (ip) => connectionRateQuotaFor(loader.image, ip),
        requestQuota: requestQuotaOf(services),
        authenticatorFor: saslAuthenticatorFactory(
          saslListenerConfigs(config),
          imageScramCredentials(() => loader.image.scramCredentials),
        ),
        onConnectionClose: (id) => {
          replicas.cancelConnection(id);
          sharePartitionManagerOf(services)?.connectionClosed(id);
          telemetry?.manager.connectionClosed(id);
        },
        requestMetrics,
      });
      instrumentSocketServer(
        metrics,
        socketServer,
        config.listeners.map((l) => l.listenerName),
      );
      undo.push(() => socketServer.close());
      // altered listener.name.<l>.ssl.* key and trust stores reload without a restart (the
      // stored ones apply before requests are served)
      await loader.addPublisher(tlsReloadPublisher(listenerStores, config, nodeId, socketServer, socketLogger));
      await loader.addPublisher(connectionLimitsPublisher(config, nodeId, socketServer, socketLogger));
      await socketServer.start();
      lifecycle.setReadyToUnfence();
      info('Waiting for the broker to be unfenced');
      await lifecycle.initialUnfence;
      const server = new BrokerOnlyServer(
        config,
        clusterId,
        quorum,
        loader,
        lifecycle,
        channel,
        logManager,
        replicas,
        socketServer,
        groups,
        txn,
        logger,
        snapshotGenerator,
      );
      server.replication = replication;
      server.assignments = assignments;
      server.share = share;
      return server;
    } catch (e) {
      for (const f of undo.reverse())
        await Promise.resolve()
          .then(f)
          .catch(() => undefined);
      throw e;
    }
  }

  /**
   * BrokerServer.shutdown with controlled.shutdown.enable: WantShutDown until the controller answers
   * ShouldShutDown, bounded here by broker.session.timeout.ms (past it the controller fences the broker
   * anyway).
   */
  private async controlledShutdown(): Promise<void> {
    this.lifecycle.beginControlledShutdown();
    const limitMs = this.config.getInt('broker.session.timeout.ms');
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      this.lifecycle.controlledShutdownComplete.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), limitMs))),
    ]);
    clearTimeout(timer);
    if (!done) this.logger.log('ERROR', 'Timed out waiting for the controller to approve controlled shutdown');
  }

  describeListeners(): string {
    return this.config.listeners
      .map((l) => `${l.listenerName}://${l.host ?? ''}:${this.socketServer.port(l.listenerName) ?? l.port}`)
      .join(',');
  }

  /** Controlled shutdown with the controller, then stop serving, flush and close the logs. */
  async shutdown(): Promise<void> {
    if (this.config.getBoolean('controlled.shutdown.enable')) await this.controlledShutdown();
    this.lifecycle.close();
    await this.socketServer.close();
    await this.share?.shutdown();
    await this.txn.shutdown();
    await this.groups.shutdown();
    await this.replication?.shutdown();
    await this.replicas.shutdown?.();
    await this.logManager.shutdown();
    this.assignments?.close();
    this.channel.close();
    this.snapshotGenerator.close();
    await this.quorum.close();
    await this.loader.close();
    this.logger.log('INFO', 'shut down completed');
  }
}
