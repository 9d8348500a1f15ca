// The controller-only node (process.roles=controller): Kafka's ControllerServer. Only the metadata
// quorum, the QuorumController and the controller listener(s) with the controller APIs
// (ControllerApis: CreateTopics, DeleteTopics, CreatePartitions, (Incremental)AlterConfigs,
// DescribeConfigs, DescribeCluster, DescribeQuorum, UpdateFeatures, AllocateProducerIds,
// UnregisterBroker, BrokerRegistration, BrokerHeartbeat, ControllerRegistration, AlterPartition, ApiVersions, and the
// raft RPCs) — no broker listener, no partition logs, no group or transaction coordinators. Brokers
// (other processes) register and heartbeat here; tools reach it with --bootstrap-controller.
//
// Start-up, as ControllerServer.startup: storage check (first-start formatting as on a combined
// node) → controller acceptors bound (ephemeral ports resolved for the advertised endpoints) →
// quorum and controller → serve.
import { StandardAuthorizer } from './authorizer/standard-authorizer.js';
import { ensureFormatted } from './storage/ensure-formatted.js';
import type { ServerConfig } from '../config/load.js';
import { QuorumController } from './controller/index.js';
import { processTerminatingFaultHandler } from './metadata/loader.js';
import { HandlerRegistry } from './api/registry.js';
import { registerSaslHandlers } from './api/sasl-authenticate.js';
import { createApiVersionsHandler } from './api/api-versions.js';
import { SocketServer } from './network/socket-server.js';
import { instrumentNode, instrumentSocketServer, NodeMetrics } from './metrics/index.js';
import { socketServerLimits } from './network/connection-limits-config.js';
import { connectionRateQuotaFor } from './quota/connection-quotas.js';
import { requestQuotaOf } from './quota/managers.js';
import { acceptorListeners } from './network/tls-listener.js';
import { nodeOutgoingSecurity } from './security/outgoing.js';
import { saslListenerConfigs } from './security/config.js';
import { saslAuthenticatorFactory } from './security/authenticator.js';
import { imageScramCredentials } from './security/scram.js';
import { registerAdminHandlers } from './api/register-all.js';
import { registerMembershipHandlers } from './api/register-membership.js';
import { registerRaftHandlers } from './api/register-raft.js';
import { createEnvelopeHandler } from './api/envelope.js';
import { handler as allocateProducerIds } from './api/allocate-producer-ids.js';
import { adminConfigSchema, adminConfigValidator } from './api/admin-support.js';
import type { BrokerServices } from './services.js';
import type { ReplicaManager } from './replication/replica-manager.js';
import { defaultBrokerLoggers } from './loggers.js';
import { metadataLogUpkeep } from './raft/upkeep-config.js';
import { controllerReplicationOptions } from './controller/replication-config.js';

export interface ControllerNodeLogger {
  log(level: string, msg: string): void;
}

export class ControllerOnlyServer {
  private constructor(
    readonly config: ServerConfig,
    readonly clusterId: string,
    readonly controller: QuorumController,
    readonly socketServer: SocketServer<BrokerServices>,
    /** The handlers this node serves (for the wiring other pieces add: raft RPCs, Envelope). */
    readonly registry: HandlerRegistry,
    private readonly logger: ControllerNodeLogger,
  ) {}

  static async start(
    config: ServerConfig,
    logger: ControllerNodeLogger,
    metrics: NodeMetrics = new NodeMetrics(),
  ): Promise<ControllerOnlyServer> {
    const storage = await ensureFormatted(config);
    if (storage.formatted) logger.log('INFO', `Formatted storage with cluster id ${storage.clusterId}`);
    const clusterId = storage.clusterId;
    const nodeId = config.nodeId;
    const nodeLogger = {
      info: (m: string) => logger.log('INFO', m),
      warn: (m: string) => logger.log('WARN', m),
      error: (m: string, e?: unknown) => logger.log('ERROR', e === undefined ? m : `${m}: ${String(e)}`),
    };
    const acceptors = await SocketServer.openAcceptors(
      acceptorListeners(config),
      config.controllerListenerNames,
      nodeLogger,
    );
    const boundPort = (e: { listenerName: string; port: number }): number => {
      if (e.port !== 0) return e.port;
      const acceptor = acceptors.find((a) => a.bound.name === e.listenerName);
      if (!acceptor) throw new Error(`Cannot resolve ephemeral port 0 of ${e.listenerName}: it is not in listeners`);
      logger.log('INFO', `${e.listenerName}: resolved ephemeral port to ${acceptor.bound.port}`);
      return acceptor.bound.port;
    };
    const controllerEps = config.effectiveAdvertisedControllerListeners.map((e) => ({
      name: e.listenerName,
      host: e.host ?? '127.0.0.1',
      port: boundPort(e),
      securityProtocol: e.securityProtocol,
    }));
    let controller: QuorumController;
    try {
      controller = await QuorumController.open({
        metadataLogDir: config.metadataLogDir,
        nodeId,
        clusterId,
        directoryId: storage.directoryIds.get(config.metadataLogDir),
        metadataFaultHandler: processTerminatingFaultHandler(nodeLogger),
        controllerListeners: controllerEps,
        defaultNumPartitions: config.getInt('num.partitions'),
        defaultReplicationFactor: config.getInt('default.replication.factor'),
        ...controllerReplicationOptions(config),
        sessionTimeoutMs: config.getInt('broker.session.timeout.ms'),
        ...metadataLogUpkeep(config),
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
        configValidator: adminConfigValidator(config),
        configSchema: adminConfigSchema,
        logger: nodeLogger,
      });
    } catch (e) {
      for (const a of acceptors) await a.close().catch(() => undefined);
      throw e;
    }

    const services: BrokerServices = {
      config,
      nodeId,
      clusterId,
      endpoints: controllerEps.map((e) => ({
        listenerName: e.name,
        host: e.host,
        port: e.port,
        securityProtocol: String(e.securityProtocol),
      })),
      controller,
      get replicas(): ReplicaManager {
        throw new Error('a controller-only node (process.roles=controller) has no partition logs');
      },
      authorizer: StandardAuthorizer.fromConfig(
        (key) => config.originals.get(key),
        () => controller.image.acls,
      ),
      loggers: defaultBrokerLoggers(),
      groupCoordinator: null,
      txnCoordinator: null,
      metrics,
    };
    const registry = new HandlerRegistry();
    registry.register(
      createApiVersionsHandler(registry, {
        finalizedFeatures: () => ({
          epoch: BigInt(controller.image.provenance.offset),
          levels: controller.image.features,
        }),
      }),
    );
    // every handler registers for the listener types it serves; only controller listeners exist here
    registerAdminHandlers(registry);
    registerMembershipHandlers(registry);
    registerRaftHandlers(registry);
    registerSaslHandlers(registry, ['controller']);
    registry.register(allocateProducerIds);
    // requests brokers forward for their clients (KIP-590)
    registry.register(createEnvelopeHandler<BrokerServices>(registry));
    const requestMetrics = instrumentNode(metrics, { controller, quorum: controller.quorum });
    const socketServer = new SocketServer<BrokerServices>({
      listeners: acceptors,
      controllerListenerNames: config.controllerListenerNames,
      logger: nodeLogger,
      registry,
      services,
      socketRequestMaxBytes: config.getInt('socket.request.max.bytes'),
      connectionsMaxIdleMs: Number(config.getLong('connections.max.idle.ms')),
      requestLog: config.requestLog,
      ...socketServerLimits(config),
      ipConnectionRate: (ip) => connectionRateQuotaFor(controller.image, ip),
      requestQuota: requestQuotaOf(services),
      // a SASL controller listener authenticates the other controllers and the brokers
      authenticatorFor: saslAuthenticatorFactory(
        saslListenerConfigs(config),
        imageScramCredentials(() => controller.image.scramCredentials),
      ),
      requestMetrics,
    });
    instrumentSocketServer(
      metrics,
      socketServer,
      config.listeners.map((l) => l.listenerName),
    );
    await socketServer.start();
    return new ControllerOnlyServer(config, clusterId, controller, socketServer, registry, logger);
  }

  describeListeners(): string {
    return this.config.listeners
      .map((l) => `${l.listenerName}://${l.host ?? ''}:${this.socketServer.port(l.listenerName) ?? l.port}`)
      .join(',');
  }

  /** Clean shutdown: stop serving, snapshot the metadata, close the log. */
  async shutdown(): Promise<void> {
    await this.socketServer.close();
    await this.controller.close();
    this.logger.log('INFO', 'shut down completed');
  }
}
