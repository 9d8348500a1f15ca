// One tkafka node: storage check → KRaft controller (metadata log) → partition logs → handlers →
// listeners. Metadata changes flow one way: the controller publishes, the broker side reacts.
import { StandardAuthorizer } from './authorizer/standard-authorizer.js';
import { ensureFormatted } from './storage/ensure-formatted.js';
import type { ServerConfig } from '../config/load.js';
import { QuorumController } from './controller/index.js';
import { processTerminatingFaultHandler } from './metadata/loader.js';
import { ControllerOnlyServer } from './controller-server.js';
import { controllerReplicationOptions } from './controller/replication-config.js';
import { BrokerOnlyServer, partitionPublisher, topicLogConfig } from './broker-server.js';
import { LogManager } from './log/log-manager.js';
import { logDirFailureHooks } from './log/log-dir-failure.js';
import { HandlerRegistry } from './api/registry.js';
import { registerSaslHandlers } from './api/sasl-authenticate.js';
import { loadJwksKeySources, saslListenerConfigs } from './security/config.js';
import { nodeOutgoingSecurity } from './security/outgoing.js';
import { saslAuthenticatorFactory } from './security/authenticator.js';
import { imageScramCredentials } from './security/scram.js';
import { createApiVersionsHandler } from './api/api-versions.js';
import { SocketServer } from './network/socket-server.js';
import { connectionLimitsPublisher, socketServerLimits } from './network/connection-limits-config.js';
import { connectionRateQuotaFor } from './quota/connection-quotas.js';
import { requestQuotaOf } from './quota/managers.js';
import { acceptorListeners, ListenerStores, tlsReloadPublisher } from './network/tls-listener.js';
import type { ReplicationQuotas } from './replication/replication-quotas.js';
import { ReplicaManager } from './replication/replica-manager.js';
import { createProducerStateHook } from './replication/eos.js';
import { registerTxnHandlers } from './api/register-txn.js';
import { registerShareCoordinatorHandlers } from './api/register-share.js';
import { registerTelemetryHandlers } from './api/register-telemetry.js';
import { brokerLatestOffsets } from './share/partition-end-offsets.js';
import { startShareCoordinator, type ShareCoordinatorHandle } from './share/coordinator/broker-glue.js';
import { startTxnCoordinator, type TxnCoordinatorHandle } from './txn/broker-glue.js';
import { registerDataHandlers } from './api/register-data.js';
import {
  sharePartitionManagerOf,
  startSharePartitionManager,
  type SharePartitionManager,
} from './share/share-partition-manager.js';
import { registerAdminHandlers } from './api/register-all.js';
import { registerRaftHandlers } from './api/register-raft.js';
import { registerMembershipHandlers } from './api/register-membership.js';
import { createEnvelopeHandler } from './api/envelope.js';
import { registerGroupHandlers } from './api/register-group.js';
import { startGroupCoordinator, type GroupCoordinatorHandle } from './group/broker-glue.js';
import { adminConfigSchema, adminConfigValidator } from './api/admin-support.js';
import type { BrokerServices } from './services.js';
import { defaultBrokerLoggers } from './loggers.js';
import { metadataLogUpkeep } from './raft/upkeep-config.js';
import {
  brokerMembership,
  controllerNodeProvider,
  hasOtherVoters,
  type BrokerMembership,
} from './lifecycle/broker-membership.js';
import { startReplication, type Replication } from './replication/replication.js';
import { ControllerChannel } from './forwarding/controller-channel.js';
import { instrumentNode, instrumentSocketServer, NodeMetrics } from './metrics/index.js';
import { startupMark } from './startup-trace.js';

export interface ServerLogger {
  log(level: string, msg: string): void;
}

/** A running node, whatever its roles: what `tkafka server start` needs of it. */
export interface RunningNode {
  readonly clusterId: string;
  describeListeners(): string;
  shutdown(): Promise<void>;
}

/**
 * Composes the roles of `process.roles` (KafkaRaftServer): a controller-only node runs the
 * ControllerServer alone (src/broker/controller-server.ts); a broker-only node the BrokerServer with
 * its metadata from the quorum and its controller requests sent to the active controller
 * (src/broker/broker-server.ts); otherwise the broker with its in-process controller, as before.
 */
export async function startNode(config: ServerConfig, logger: ServerLogger): Promise<RunningNode> {
  // refuses SASL settings tkafka cannot honour before anything starts
  const sasl = saslListenerConfigs(config, (m) => logger.log('WARN', m));
  // and the TLS / SASL of the node's own connections (raft, controller channel, replica fetchers)
  nodeOutgoingSecurity(config);
  await loadJwksKeySources(sasl, (level, m) => logger.log(level, m));
  // the metrics endpoint binds first: an address it cannot have stops start-up before anything runs
  startupMark('security checked');
  const metrics = new NodeMetrics();
  startupMark('metrics registry created');
  const listener = config.metricsListener;
  if (listener) {
    await metrics.listen(listener);
    const a = metrics.address!;
    logger.log(
      'INFO',
      `Metrics endpoint serving on http://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}/metrics`,
    );
  }
  let node: RunningNode;
  try {
    if (config.isController && !config.isBroker) node = await ControllerOnlyServer.start(config, logger, metrics);
    else if (config.isBroker && !config.isController)
      node = await BrokerOnlyServer.start(config, logger, undefined, metrics);
    else node = await BrokerServer.start(config, logger, metrics);
  } catch (e) {
    await metrics.close();
    throw e;
  }
  return {
    clusterId: node.clusterId,
    describeListeners: () => node.describeListeners(),
    shutdown: async () => {
      try {
        await node.shutdown();
      } finally {
        await metrics.close();
      }
    },
  };
}

export class BrokerServer {
  groups: GroupCoordinatorHandle | null = null;
  txn: TxnCoordinatorHandle | null = null;
  share: ShareCoordinatorHandle | null = null;
  sharePartitions: SharePartitionManager | null = null;
  endOffsets: { close(): void } | null = null;
  /** With other voters: the broker registers with the active controller (null: a single voter). */
  membership: BrokerMembership | null = null;
  /** follower fetchers and ISR changes (issue 15); a single voter sends AlterPartition to itself */
  replication: Replication | null = null;
  private ownChannel: ControllerChannel | null = null;

  private constructor(
    readonly config: ServerConfig,
    readonly clusterId: string,
    readonly controller: QuorumController,
    readonly logManager: LogManager,
    readonly replicas: ReplicaManager,
    readonly socketServer: SocketServer<BrokerServices>,
    private readonly logger: ServerLogger,
  ) {}

  static async start(
    config: ServerConfig,
    logger: ServerLogger,
    metrics: NodeMetrics = new NodeMetrics(),
  ): Promise<BrokerServer> {
    const storage = await ensureFormatted(config);
    if (storage.formatted) logger.log('INFO', `Formatted storage with cluster id ${storage.clusterId}`);
    const clusterId = storage.clusterId;
    const nodeId = config.nodeId;
    startupMark('storage checked (meta.properties)');
    const socketLogger = {
      info: (m: string) => logger.log('INFO', m),
      warn: (m: string) => logger.log('WARN', m),
      error: (m: string) => logger.log('ERROR', m),
    };
    // As Kafka's BrokerServer and ControllerServer: the acceptors of port-0 listeners bind first, and
    // every advertised endpoint on port 0 (explicit, or derived from `listeners`) gets the bound port.
    const acceptors = await SocketServer.openAcceptors(
      acceptorListeners(config),
      config.controllerListenerNames,
      socketLogger,
    );
    const boundPort = (e: { listenerName: string; port: number }): number => {
      if (e.port !== 0) return e.port;
      const acceptor = acceptors.find((a) => a.bound.name === e.listenerName);
      if (!acceptor) throw new Error(`Cannot resolve ephemeral port 0 of ${e.listenerName}: it is not in listeners`);
      // Kafka's ListenerInfo.withEphemeralPortsCorrected line
      logger.log('INFO', `${e.listenerName}: resolved ephemeral port to ${acceptor.bound.port}`);
      return acceptor.bound.port;
    };
    const advertised = config.effectiveAdvertisedBrokerListeners.map((e) => ({
      name: e.listenerName,
      host: e.host ?? '127.0.0.1',
      port: boundPort(e),
      securityProtocol: e.securityProtocol,
    }));
    const controllerEps = config.effectiveAdvertisedControllerListeners.map((e) => ({
      name: e.listenerName,
      host: e.host ?? '127.0.0.1',
      port: boundPort(e),
      securityProtocol: e.securityProtocol,
    }));
    // Kafka's combined node: the broker registers and heartbeats with the active controller through its
    // lifecycle manager, wherever that controller runs. A single voter registers its broker itself.
    startupMark('acceptors bound');
    const multiVoter = hasOtherVoters(config);
    const logDirIds = config.logDirs.map((d) => storage.directoryIds.get(d)).filter((x): x is string => !!x);
    const controller = await QuorumController.open({
      metadataLogDir: config.metadataLogDir,
      nodeId,
      clusterId,
      directoryId: storage.directoryIds.get(config.metadataLogDir),
      metadataFaultHandler: processTerminatingFaultHandler({
        info: (m) => logger.log('INFO', m),
        warn: (m) => logger.log('WARN', m),
        error: (m, e) => logger.log('ERROR', e === undefined ? m : `${m}: ${(e as Error)?.stack ?? String(e)}`),
      }),
      brokerListeners: multiVoter ? undefined : advertised,
      controllerListeners: controllerEps,
      quorumVoters: config.quorumVoters,
      quorumBootstrapServers: config.quorumBootstrapServers,
      security: nodeOutgoingSecurity(config).controller,
      quorumTimeouts: {
        electionTimeoutMs: config.getInt('controller.quorum.election.timeout.ms'),
        fetchTimeoutMs: config.getInt('controller.quorum.fetch.timeout.ms'),
        electionBackoffMaxMs: config.getInt('controller.quorum.election.backoff.max.ms'),
        requestTimeoutMs: config.getInt('controller.quorum.request.timeout.ms'),
        retryBackoffMs: config.getInt('controller.quorum.retry.backoff.ms'),
      },
      logDirIds,
      defaultNumPartitions: config.getInt('num.partitions'),
      defaultReplicationFactor: config.getInt('default.replication.factor'),
      ...controllerReplicationOptions(config),
      sessionTimeoutMs: config.getInt('broker.session.timeout.ms'),
      ...metadataLogUpkeep(config),
      configValidator: adminConfigValidator(config),
      configSchema: adminConfigSchema,
      logger: {
        info: (m: string) => logger.log('INFO', m),
        warn: (m: string) => logger.log('WARN', m),
        error: (m: string) => logger.log('ERROR', m),
        debug: () => {},
      } as never,
    });

    startupMark('controller open (raft leader, broker registered and unfenced)');
    const quotas: { of?: ReplicationQuotas } = {};
    const logManager = new LogManager({
      logDirs: config.logDirs,
      defaultConfig: topicLogConfig(config, controller.image, ''),
      topicConfig: (topic) => topicLogConfig(config, controller.image, topic),
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
        // a node of a multi-voter quorum heartbeats like a broker; a single combined node has no heartbeat
        lifecycle: {
          propagateDirectoryFailure: (id, timeoutMs, onFailure) =>
            membership?.lifecycle.propagateDirectoryFailure(id, timeoutMs, onFailure),
        },
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
    });
    await logManager.startup();
    startupMark('logs loaded');
    const producerStateHook = createProducerStateHook({ config });
    const replicas = new ReplicaManager({
      logManager,
      config,
      nodeId,
      metadata: () => controller.image,
      producerState: producerStateHook,
      logger: socketLogger,
    });
    quotas.of = replicas.quotas;

    const membership = multiVoter
      ? brokerMembership({
          config,
          clusterId,
          quorum: controller.quorum,
          metadata: controller,
          listeners: advertised.map((e) => ({ ...e, securityProtocol: String(e.securityProtocol) })),
          logDirIds,
          logger: socketLogger,
        })
      : null;
    const ownChannel = membership
      ? null
      : new ControllerChannel({
          clientId: `broker-${nodeId}-alter-partition`,
          provider: controllerNodeProvider(controller.quorum, config),
          requestTimeoutMs: config.getInt('request.timeout.ms'),
          retryBackoffMs: config.getInt('controller.quorum.retry.backoff.ms'),
          security: nodeOutgoingSecurity(config).controller,
        });
    const replication = startReplication({
      config,
      replicas,
      image: () => controller.image,
      channel: membership?.channel ?? ownChannel!,
      logger: socketLogger,
    });
    // The broker side follows the metadata: partitions appear and disappear as records commit.
    await controller.addPublisher(partitionPublisher(config, replicas, logManager, (l, m) => logger.log(l, m)));

    startupMark('partition publisher run');
    const listenerStores = new ListenerStores(config);
    const services: BrokerServices = {
      config,
      nodeId,
      clusterId,
      endpoints: advertised.map((e) => ({
        listenerName: e.name,
        host: e.host,
        port: e.port,
        securityProtocol: String(e.securityProtocol),
      })),
      controller,
      ...(membership ? { remote: membership.remote } : {}),
      replicas,
      authorizer: StandardAuthorizer.fromConfig(
        (key) => config.originals.get(key),
        () => controller.image.acls,
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
        // finalized features are what the metadata log says, at the image's offset
        finalizedFeatures: () => ({
          epoch: BigInt(controller.image.provenance.offset),
          levels: controller.image.features,
        }),
        // forwarding to the active controller (another voter, or this one over its listener)
        ...(membership ? { controllerApiVersions: () => membership.channel.activeControllerApiVersions } : {}),
      }),
    );
    registerDataHandlers(registry);
    registerAdminHandlers(registry, { forward: multiVoter, controller: true });
    registerRaftHandlers(registry);
    registerMembershipHandlers(registry);
    // requests brokers forward for their clients (KIP-590), served on the controller listener
    registry.register(createEnvelopeHandler<BrokerServices>(registry));
    registerGroupHandlers(registry);
    // after the partition publisher, so __consumer_offsets partitions exist before their shards load
    startupMark('handlers registered');
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
    startupMark('coordinators started');
    registerSaslHandlers(registry, ['broker', 'controller']);
    const requestMetrics = instrumentNode(metrics, {
      replicas,
      controller,
      quorum: controller.quorum,
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
      ipConnectionRate: (ip) => connectionRateQuotaFor(controller.image, ip),
      requestQuota: requestQuotaOf(services),
      authenticatorFor: saslAuthenticatorFactory(
        saslListenerConfigs(config),
        imageScramCredentials(() => controller.image.scramCredentials),
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
    // altered listener.name.<l>.ssl.* key and trust stores reload without a restart (the
    // stored ones apply before requests are served)
    await controller.addPublisher(tlsReloadPublisher(listenerStores, config, nodeId, socketServer, socketLogger));
    await controller.addPublisher(connectionLimitsPublisher(config, nodeId, socketServer, socketLogger));
    startupMark('publishers added, serving');
    await socketServer.start();
    startupMark('socket server started');
    const server = new BrokerServer(config, clusterId, controller, logManager, replicas, socketServer, logger);
    server.groups = groups;
    server.txn = txn;
    server.share = share;
    server.sharePartitions = sharePartitions;
    server.endOffsets = endOffsets;
    server.replication = replication;
    server.ownChannel = ownChannel;
    if (membership) {
      // the controller listener serves already: the active controller may be this node
      server.membership = membership;
      membership.lifecycle.start();
      try {
        logger.log('INFO', 'Waiting for the broker to catch up with the cluster metadata');
        await membership.lifecycle.initialCatchUp;
        await controller.loader.published();
        membership.lifecycle.setReadyToUnfence();
        logger.log('INFO', 'Waiting for the broker to be unfenced');
        await membership.lifecycle.initialUnfence;
      } catch (e) {
        await server.shutdown().catch(() => undefined);
        throw e;
      }
    }
    return server;
  }

  /** As BrokerOnlyServer's: WantShutDown until ShouldShutDown, bounded by broker.session.timeout.ms. */
  private async controlledShutdown(m: BrokerMembership): Promise<void> {
    m.lifecycle.beginControlledShutdown();
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      m.lifecycle.controlledShutdownComplete.then(() => true),
      new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(false), this.config.getInt('broker.session.timeout.ms'))),
      ),
    ]);
    clearTimeout(timer);
    if (!done) this.logger.log('ERROR', 'Timed out waiting for the controller to approve controlled shutdown');
  }

  describeListeners(): string {
    return this.config.listeners
      .map((l) => `${l.listenerName}://${l.host ?? ''}:${this.socketServer.port(l.listenerName) ?? l.port}`)
      .join(',');
  }

  /**
   * Clean shutdown: controlled shutdown with the active controller (a multi-voter node, with
   * controlled.shutdown.enable), stop serving, flush and checkpoint the logs, snapshot the metadata.
   */
  async shutdown(): Promise<void> {
    const m = this.membership;
    if (m) {
      if (this.config.getBoolean('controlled.shutdown.enable') && m.lifecycle.state !== 'NOT_RUNNING')
        await this.controlledShutdown(m);
      m.lifecycle.close();
      m.channel.close();
    }
    await this.socketServer.close();
    this.sharePartitions?.close();
    this.endOffsets?.close();
    await this.share?.shutdown();
    await this.txn?.shutdown();
    await this.groups?.shutdown();
    await this.replication?.shutdown();
    this.ownChannel?.close();
    await this.replicas.shutdown?.();
    await this.logManager.shutdown();
    await this.controller.close();
    this.logger.log('INFO', 'shut down completed');
  }
}
