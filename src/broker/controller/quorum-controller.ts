// The KRaft controller (Kafka's QuorumController) for a node whose metadata quorum it leads.
//
// Every operation runs on one serial queue: it reads the latest committed MetadataImage,
// validates, produces records, appends them to the Raft log as one atomic batch and waits until
// the batch is committed (fsynced) and applied by the MetadataLoader, which is the only code that
// changes the image. The next operation therefore always sees the effects of the previous one, and
// no two operations interleave across their awaits.

import * as path from 'node:path';
import { SerialQueue } from '../log/serial-queue.js';
import { ErrorCode } from '../../protocol/errors.js';
import { loadBootstrapMetadata } from '../metadata/bootstrap.js';
import { LATEST_PRODUCTION_METADATA_VERSION, mv, supportedFeatureRanges } from '../metadata/features.js';
import type { ControllerRegistration, Endpoint, MetadataImage, VersionRange } from '../metadata/image.js';
import { imageSnapshot, SnapshotGenerator } from '../metadata/snapshot-generator.js';
import { MetadataLoader, type MetadataFaultHandler } from '../metadata/loader.js';
import type { MetadataEventOf, MetadataEventType, MetadataPublisher, MetadataUpdate } from '../metadata/events.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { silentLogger, type Logger } from '../raft/logger.js';
import { RaftClient, type StaticVoter } from '../raft/raft-client.js';
import type { QuorumTimeouts } from '../raft/election-timer.js';
import type { OffsetAndEpoch, Quorum, QuorumDescription } from '../raft/types.js';
import type { OutgoingSecurity } from '../security/outgoing.js';
import {
  abortTransactionRecord,
  allocateProducerIds,
  fenceBroker,
  recordsForEmptyLog,
  registerBroker,
  unregisterBroker,
  unregisterController,
  registerController,
  unfenceBroker,
  type BrokerRegistrationRequest,
} from './cluster.js';
import {
  incrementalAlterConfigs,
  legacyAlterConfigs,
  type AlterableConfig,
  type ConfigResourceChange,
  type ConfigResourceResult,
  type ConfigSchema,
  type ConfigValidator,
  type IncrementalAlterableConfig,
} from './configs.js';
import { apiError, apiErrorFrom, type ApiError } from './errors.js';
import { handleAssignReplicasToDirs } from './directories.js';
import type {
  AssignReplicasToDirsRequest,
  AssignReplicasToDirsResponse,
} from '../../protocol/generated/protocol/AssignReplicasToDirs.js';
import {
  clearElrRecordsAsNeeded,
  maybeBalancePartitionLeaders,
  maybeElectUncleanLeaders,
  type TopicConfigDefaults,
} from './leader-and-isr.js';
import { alterPartition } from './alter-partition.js';
import { alterPartitionReassignments, electLeaders, listPartitionReassignments } from './reassignment.js';
import type {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
} from '../../protocol/generated/protocol/AlterPartitionReassignments.js';
import type {
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../../protocol/generated/protocol/ListPartitionReassignments.js';
import type { ElectLeadersRequest, ElectLeadersResponse } from '../../protocol/generated/protocol/ElectLeaders.js';
import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
} from '../../protocol/generated/protocol/AlterPartition.js';
import type { Random } from '../../client/admin/replica-placer.js';
import {
  createPartitions,
  createTopics,
  deleteTopics,
  type CreatableTopic,
  type CreatePartitionsResult,
  type CreatePartitionsTopic,
  type CreateTopicResult,
  type DeleteTopicResult,
  type DeleteTopicsRequest,
  type ReplicationContext,
} from './topics.js';
import { randomUuid } from './uuid.js';
import { updateFeatures, type FeatureUpdate } from './features.js';
import { alterUserScramCredentials } from './scram.js';
import { alterClientQuotas, unresolvableIpNames } from './client-quotas.js';
import type {
  AlterClientQuotasRequestEntryData,
  AlterClientQuotasResponseEntryData,
} from '../../protocol/generated/protocol/AlterClientQuotas.js';
import { createAcls, deleteAcls } from './acls.js';
import type {
  CreateAclsRequestAclCreation,
  CreateAclsResponseAclCreationResult,
} from '../../protocol/generated/protocol/CreateAcls.js';
import type {
  DeleteAclsRequestDeleteAclsFilter,
  DeleteAclsResponseDeleteAclsFilterResult,
} from '../../protocol/generated/protocol/DeleteAcls.js';
import type {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
} from '../../protocol/generated/protocol/AlterUserScramCredentials.js';
import { BrokerHeartbeatManager } from './broker-heartbeat-manager.js';
import { startupMark } from '../startup-trace.js';
import { ControllerRegistrationManager } from './controller-registration-manager.js';
import {
  MembershipReplay,
  activateHeartbeats,
  maybeFenceOneStaleBroker,
  processBrokerHeartbeat,
  type HeartbeatRequest,
} from './membership.js';

const SECURITY_PROTOCOLS: Record<string, number> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

export interface EndpointInput {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** Id (0 PLAINTEXT, 1 SSL, 2 SASL_PLAINTEXT, 3 SASL_SSL) or name; default PLAINTEXT. */
  readonly securityProtocol?: number | string;
}

export function toEndpoint(e: EndpointInput): Endpoint {
  const sp = e.securityProtocol ?? 0;
  const id = typeof sp === 'number' ? sp : SECURITY_PROTOCOLS[sp.toUpperCase()];
  if (id === undefined) throw new Error(`unknown security protocol ${String(sp)}`);
  return { name: e.name, host: e.host, port: e.port, securityProtocol: id };
}

export interface QuorumControllerOptions {
  /** the metadata loader's fault handler (default: logged); server processes pass processTerminatingFaultHandler */
  metadataFaultHandler?: MetadataFaultHandler;
  /** `metadata.log.dir`: holds `__cluster_metadata-0/` (and usually `bootstrap.checkpoint`). */
  readonly metadataLogDir: string;
  readonly nodeId: number;
  readonly clusterId: string;
  /** `directory.id` of the metadata log dir (meta.properties). */
  readonly directoryId?: string;
  /** Advertised broker listeners of this node; if set, the local broker is registered and unfenced at start. */
  readonly brokerListeners?: readonly EndpointInput[];
  /** Controller listeners of this node (VotersRecord, RegisterControllerRecord, DescribeQuorum). */
  readonly controllerListeners?: readonly EndpointInput[];
  readonly rack?: string | null;
  /** `directory.id`s of the broker's log dirs (RegisterBrokerRecord.logDirs). */
  readonly logDirIds?: readonly string[];
  /** Random per process if absent. */
  readonly incarnationId?: string;
  /** num.partitions (default 1). */
  readonly defaultNumPartitions?: number;
  /** default.replication.factor (default 1). */
  readonly defaultReplicationFactor?: number;
  /** Static min.insync.replicas / unclean.leader.election.enable behind topic and dynamic broker configs. */
  readonly topicDefaults?: TopicConfigDefaults;
  /**
   * The electPreferred task's period (leader.imbalance.check.interval.seconds, when
   * auto.leader.rebalance.enable): 0 disables it; default 300 s.
   */
  readonly leaderImbalanceCheckIntervalMs?: number;
  /** The electUnclean task's period (unclean.leader.election.interval.ms, default 5 minutes; 0 disables it). */
  readonly uncleanLeaderElectionIntervalMs?: number;
  readonly configValidator?: ConfigValidator;
  readonly configSchema?: ConfigSchema;
  /** Where bootstrap.checkpoint is read from (default metadataLogDir). */
  readonly bootstrapDir?: string;
  /** metadata.version to bootstrap with when there is no bootstrap.checkpoint (default latest production, 22). */
  readonly bootstrapMetadataVersion?: number;
  /** Also snapshot after this many records (tkafka's library option; no default: Kafka has no such rule). */
  readonly snapshotMaxRecords?: number;
  /** metadata.log.max.record.bytes.between.snapshots (default 20 MiB). */
  readonly snapshotMaxBytes?: number;
  /** metadata.log.max.snapshot.interval.ms (default 1 hour; 0 disables). */
  readonly snapshotIntervalMs?: number;
  /** metadata.max.idle.interval.ms: the active controller writes a NoOpRecord this often (default 500; 0 disables). */
  readonly maxIdleIntervalMs?: number;
  /** Write a snapshot on close() if anything changed since the last one (default true). */
  readonly snapshotOnClose?: boolean;
  readonly kraftVersion?: 0 | 1;
  /** controller.quorum.voters: with more than one voter the quorum elects its leader (RaftClient). */
  readonly quorumVoters?: readonly StaticVoter[];
  /** controller.quorum.bootstrap.servers (a dynamic quorum: how an observer or unattached voter finds the leader). */
  readonly quorumBootstrapServers?: readonly { readonly host: string; readonly port: number }[];
  /** controller.quorum.* timeouts of the elections (defaults: Kafka's). */
  readonly quorumTimeouts?: Partial<QuorumTimeouts>;
  /** TLS / SASL of connections to the controller listener (security/outgoing.ts); absent: PLAINTEXT. */
  readonly security?: OutgoingSecurity;
  readonly segmentBytes?: number;
  /** metadata.log.segment.ms */
  readonly segmentMs?: number;
  /** metadata.max.retention.bytes / metadata.max.retention.ms (raft/log-cleaner.ts). */
  readonly retentionBytes?: number;
  readonly retentionMs?: number;
  /** How often the metadata log cleaner runs (Kafka: 60 s). */
  readonly cleanerIntervalMs?: number;
  /** broker.session.timeout.ms: a broker that has not heartbeated for this long is fenced (default 9000). */
  readonly sessionTimeoutMs?: number;
  readonly random?: Random;
  readonly now?: () => number;
  readonly logger?: Logger;
}

export interface WriteOptions {
  readonly validateOnly?: boolean;
  /** controller_mutation_rate of the request's client (ReplicationContext.applyPartitionChangeQuota). */
  readonly applyPartitionChangeQuota?: (partitions: number) => ApiError | null;
}

export interface RegisterBrokerResult extends ApiError {
  readonly brokerEpoch: bigint;
}

export interface BrokerHeartbeatResult extends ApiError {
  readonly isCaughtUp: boolean;
  readonly isFenced: boolean;
  readonly shouldShutDown: boolean;
}

/** ClusterControlManager.DEFAULT_SESSION_TIMEOUT_NS, in ms (broker.session.timeout.ms's default). */
export const DEFAULT_SESSION_TIMEOUT_MS = 9000;

export interface AllocateProducerIdsResult extends ApiError {
  readonly producerIdStart: bigint;
  readonly producerIdLen: number;
}

export class QuorumController {
  private readonly queue = new SerialQueue();
  private readonly logger: Logger;
  private closed = false;
  private localBrokerEpoch = -1n;
  readonly incarnationId: string;
  /** Registration offsets and (while active) the heartbeat manager, fed by committed records. */
  private readonly membershipReplay = new MembershipReplay();
  private fenceTimer: NodeJS.Timeout | null = null;
  private noOpTimer: NodeJS.Timeout | null = null;
  /** PeriodicTaskControlManager's deferred tasks, by name. */
  private readonly periodicTimers = new Map<string, NodeJS.Timeout>();
  /** close() has begun: periodic tasks are not rescheduled. */
  private stopping = false;
  private writingNoOp = false;
  private readonly snapshotGenerator: SnapshotGenerator;
  /** Registers this controller with the active one when that is another node. */
  private readonly registrationManager: ControllerRegistrationManager | null = null;
  private fencing = false;

  private constructor(
    private readonly opts: QuorumControllerOptions,
    readonly quorum: Quorum,
    readonly loader: MetadataLoader,
  ) {
    this.logger = opts.logger ?? silentLogger;
    this.incarnationId = opts.incarnationId ?? randomUuid();
    this.snapshotGenerator = new SnapshotGenerator({
      maxBytesSinceLastSnapshot: opts.snapshotMaxBytes,
      maxTimeSinceLastSnapshotMs: opts.snapshotIntervalMs,
      maxRecordsSinceLastSnapshot: opts.snapshotMaxRecords,
      emit: async () => {
        const before = this.quorum.latestSnapshotId();
        const id = await this.snapshot();
        return id && (!before || id.offset > before.offset) ? id : null;
      },
      now: opts.now,
      logger: this.logger,
    });
    quorum.register(this.snapshotGenerator);
    if (opts.controllerListeners && opts.controllerListeners.length > 0) {
      this.registrationManager = new ControllerRegistrationManager({
        nodeId: opts.nodeId,
        incarnationId: this.incarnationId,
        listeners: opts.controllerListeners.map(toEndpoint),
        features: supportedFeatureRanges(),
        quorum,
        image: () => this.loader.image,
        requestTimeoutMs: opts.quorumTimeouts?.requestTimeoutMs ?? 2000,
        retryBackoffMs: 500,
        security: opts.security,
        log: (level, msg) => (level === 'WARN' ? this.logger.warn(msg) : this.logger.info(msg)),
      });
      this.registrationManager.start();
    }
  }

  /**
   * Opens the metadata log under `metadataLogDir`, recovers it, loads the latest snapshot and the
   * log tail, becomes the (single-voter) leader, writes the bootstrap records on an empty log and
   * registers this node. Resolves when the controller is active.
   */
  static async open(opts: QuorumControllerOptions): Promise<QuorumController> {
    const logger = opts.logger ?? silentLogger;
    const quorumOptions = {
      metadataLogDir: opts.metadataLogDir,
      nodeId: opts.nodeId,
      directoryId: opts.directoryId,
      controllerListeners: (opts.controllerListeners ?? []).map((e) => ({ name: e.name, host: e.host, port: e.port })),
      kraftVersion: opts.kraftVersion,
      segmentBytes: opts.segmentBytes,
      segmentMs: opts.segmentMs,
      retentionBytes: opts.retentionBytes,
      retentionMs: opts.retentionMs,
      cleanerIntervalMs: opts.cleanerIntervalMs,
      now: opts.now,
      logger,
    };
    // The quorum elects its leader (one voter elects itself during start()); this node's controller
    // activates whenever it is elected.
    const quorum = await RaftClient.open({
      ...quorumOptions,
      clusterId: opts.clusterId,
      staticVoters: opts.quorumVoters,
      bootstrapServers: opts.quorumBootstrapServers,
      timeouts: opts.quorumTimeouts,
      security: opts.security,
    });
    startupMark('metadata log opened');
    // a server process with the controller role passes a fatal handler (Kafka's SharedServer)
    const loader = new MetadataLoader({ clusterId: opts.clusterId, logger, faultHandler: opts.metadataFaultHandler });
    quorum.register(loader);
    const controller = new QuorumController(opts, quorum, loader);
    quorum.register(controller.membershipReplay);
    try {
      // Elected during start() (a single voter): open() resolves once the controller is active and
      // fails if activation fails; elected later: activation runs on its own and logs a failure.
      let starting = true;
      let firstActivation: Promise<void> | null = null;
      quorum.register({
        handleCommit: () => undefined,
        handleLeaderChange: (l) => {
          if (l.leaderId !== opts.nodeId || l.epoch !== quorum.leaderEpoch) return;
          const activation = controller.activate();
          if (starting) {
            firstActivation = activation;
            activation.catch(() => undefined);
          } else activation.catch((e) => logger.error(`Controller activation in epoch ${l.epoch} failed`, e));
        },
      });
      await quorum.start();
      startupMark('raft started');
      starting = false;
      if (firstActivation) await firstActivation;
    } catch (e) {
      await quorum.close().catch(() => undefined);
      throw e;
    }
    return controller;
  }

  private async activate(): Promise<void> {
    await this.queue.run(async () => {
      const image = this.loader.image;
      if (image.metadataVersion === 0 && image.topicsById.size === 0 && image.brokers.size === 0) {
        const bootstrap = await loadBootstrapMetadata(
          this.opts.bootstrapDir ?? this.opts.metadataLogDir,
          this.opts.bootstrapMetadataVersion ?? LATEST_PRODUCTION_METADATA_VERSION,
        );
        this.logger.info(
          `The metadata log appears to be empty. Appending ${bootstrap.records.length} bootstrap record(s) from ${bootstrap.source}.`,
        );
        const records = recordsForEmptyLog(bootstrap);
        if (this.loader.transactionStartOffset >= 0) records.unshift(abortTransactionRecord());
        await this.appendAndWait(records);
      } else if (this.loader.transactionStartOffset >= 0) {
        this.logger.warn(`Aborting in-progress metadata transaction at offset ${this.loader.transactionStartOffset}.`);
        await this.appendAndWait([abortTransactionRecord()]);
      }
      startupMark('controller activating');
      const features = supportedFeatureRanges();
      if (
        this.opts.controllerListeners &&
        this.opts.controllerListeners.length > 0 &&
        mv.isControllerRegistrationSupported(this.loader.image.metadataVersion)
      ) {
        const reg: ControllerRegistration = {
          id: this.opts.nodeId,
          incarnationId: this.incarnationId,
          zkMigrationReady: false,
          endpoints: this.opts.controllerListeners.map(toEndpoint),
          supportedFeatures: features,
        };
        await this.appendAndWait([registerController(reg)]);
        startupMark('controller registered');
      }
      if (this.opts.brokerListeners && this.opts.brokerListeners.length > 0) {
        const logDirs = this.opts.logDirIds ?? (this.opts.directoryId ? [this.opts.directoryId] : []);
        const { records, brokerEpoch } = registerBroker(
          this.loader.image,
          {
            brokerId: this.opts.nodeId,
            incarnationId: this.incarnationId,
            listeners: this.opts.brokerListeners.map(toEndpoint),
            features,
            rack: this.opts.rack ?? null,
            logDirs,
          },
          this.quorum.logEndOffset,
        );
        await this.appendAndWait(records);
        startupMark('broker registered');
        await this.appendAndWait(
          unfenceBroker(this.loader.image, this.opts.nodeId, brokerEpoch, this.opts.topicDefaults),
        );
        startupMark('broker unfenced');
        this.localBrokerEpoch = brokerEpoch;
      }
      this.membership();
    });
    this.startFenceTimer();
    this.startNoOpTimer();
    const s = (image: MetadataImage) => ({ image, defaults: this.opts.topicDefaults });
    this.registerPeriodicTask('electPreferred', this.opts.leaderImbalanceCheckIntervalMs ?? 300_000, (image) =>
      maybeBalancePartitionLeaders(s(image)),
    );
    this.registerPeriodicTask('electUnclean', this.opts.uncleanLeaderElectionIntervalMs ?? 300_000, (image) =>
      maybeElectUncleanLeaders(s(image), undefined, (m) => this.logger.info(m)),
    );
  }

  /**
   * PeriodicTaskControlManager: `task` runs on the controller queue every `periodMs` while this node
   * is the active controller and its records are committed; a run that reports more work runs again
   * at once, a failed one after 5 minutes.
   */
  private registerPeriodicTask(
    name: string,
    periodMs: number,
    task: (image: MetadataImage) => { records: MetadataRecord[]; more: boolean },
  ): void {
    if (periodMs <= 0 || this.periodicTimers.has(name)) return;
    const schedule = (delayMs: number): void => {
      if (this.closed || this.stopping) return;
      const timer = setTimeout(() => {
        this.queue
          .run(async () => {
            if (this.closed || !this.quorum.isLeader()) return false;
            const { records, more } = task(this.loader.image);
            await this.appendAndWait(records);
            return more;
          })
          .then(
            (more) => schedule(more ? 0 : periodMs),
            (e: unknown) => {
              this.logger.error(`Periodic task ${name} failed`, e);
              schedule(5 * 60_000);
            },
          );
      }, delayMs);
      timer.unref();
      this.periodicTimers.set(name, timer);
    };
    schedule(periodMs);
  }

  /**
   * QuorumController's writeNoOpRecord periodic task: while active, a NoOpRecord every
   * metadata.max.idle.interval.ms, so the high watermark (and every node's snapshot clock) moves
   * on an idle cluster. 0 disables it; a metadata.version without NoOpRecord skips it.
   */
  private startNoOpTimer(): void {
    const period = this.opts.maxIdleIntervalMs ?? 500;
    if (this.noOpTimer || period <= 0) return;
    this.noOpTimer = setInterval(() => {
      if (this.writingNoOp || this.closed || !this.quorum.isLeader()) return;
      if (!mv.isNoOpRecordSupported(this.loader.image.metadataVersion)) return;
      this.writingNoOp = true;
      void this.write(
        () => ({ records: [metadataRecord(RecordType.NoOp, 0, {})], result: null }),
        () => null,
      ).finally(() => {
        this.writingNoOp = false;
      });
    }, period);
    this.noOpTimer.unref();
  }

  // ---------------------------------------------------------------- membership (heartbeats, fencing)

  private get sessionTimeoutMs(): number {
    return this.opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  }

  /**
   * The heartbeat manager while this node is the active controller, built from the image the first
   * time it is needed after becoming active (ClusterControlManager.activate); null otherwise.
   */
  private membership(): BrokerHeartbeatManager | null {
    if (this.closed || !this.quorum.isLeader()) {
      this.membershipReplay.manager = null;
      return null;
    }
    if (!this.membershipReplay.manager) {
      const m = new BrokerHeartbeatManager(this.sessionTimeoutMs, this.opts.now ?? Date.now, (msg) =>
        this.logger.info(msg),
      );
      const inProcess = new Set<number>(this.opts.brokerListeners?.length ? [this.opts.nodeId] : []);
      activateHeartbeats(m, this.loader.image, inProcess);
      this.membershipReplay.manager = m;
    }
    return this.membershipReplay.manager;
  }

  /** QuorumController.registerMaybeFenceStaleBroker: every session timeout / 8, fence the expired sessions. */
  private startFenceTimer(): void {
    if (this.fenceTimer) return;
    const period = Math.max(1, Math.floor(this.sessionTimeoutMs / 8));
    this.fenceTimer = setInterval(() => {
      if (this.fencing || this.closed) return;
      this.fencing = true;
      void this.queue
        .run(() => this.fenceStaleBrokers())
        .catch((e: unknown) => this.logger.error('Fencing stale brokers failed', e))
        .finally(() => {
          this.fencing = false;
        });
    }, period);
    this.fenceTimer.unref();
  }

  private async fenceStaleBrokers(): Promise<void> {
    // bounded: one expired session per round, at most one round per registered broker and then some
    for (let i = 0; i <= this.loader.image.brokers.size + 16; i++) {
      const m = this.membership();
      if (!m) return;
      const r = maybeFenceOneStaleBroker(this.loader.image, m, this.opts.topicDefaults);
      if (!r.found) return;
      if (r.message) this.logger.info(r.message);
      if (r.records.length > 0) await this.appendAndWait(r.records);
    }
  }

  /**
   * BrokerRegistration from another node (ControllerApis.handleBrokerRegistration →
   * QuorumController.registerBroker): NOT_CONTROLLER unless active; Kafka's validation, including
   * DUPLICATE_BROKER_REGISTRATION while another incarnation's session is live.
   */
  registerRemoteBroker(req: BrokerRegistrationRequest): Promise<RegisterBrokerResult> {
    const failed = (e: ApiError): RegisterBrokerResult => ({ ...e, brokerEpoch: -1n });
    return this.queue.run(async () => {
      const m = this.membership();
      if (!m) return failed(apiError(ErrorCode.NOT_CONTROLLER));
      let out: { records: MetadataRecord[]; brokerEpoch: bigint };
      try {
        out = registerBroker(this.loader.image, req, this.quorum.logEndOffset, {
          hasValidSession: (id, epoch) => m.hasValidSession(id, epoch),
          kraftVersion: this.quorum.kraftVersion,
          remote: true,
          defaults: this.opts.topicDefaults,
        });
      } catch (e) {
        const err = apiErrorFrom(e);
        this.logger.info(`Registration of broker ${req.brokerId} refused: ${err.errorMessage ?? err.errorCode}`);
        return failed(err);
      }
      try {
        await this.appendAndWait(out.records);
      } catch (e) {
        this.logger.error('Metadata append failed', e);
        return failed(apiErrorFrom(e));
      }
      this.logger.info(
        `Registered broker ${req.brokerId} (incarnation ${req.incarnationId}) at epoch ${out.brokerEpoch}.`,
      );
      return { ...apiError(ErrorCode.NONE), brokerEpoch: out.brokerEpoch };
    });
  }

  /**
   * BrokerHeartbeat (QuorumController.processBrokerHeartbeat): the session is renewed on receipt,
   * then the broker's next state is decided and written on the controller queue.
   */
  brokerHeartbeat(req: HeartbeatRequest): Promise<BrokerHeartbeatResult> {
    const failed = (e: ApiError): BrokerHeartbeatResult => ({
      ...e,
      isCaughtUp: false,
      isFenced: true,
      shouldShutDown: false,
    });
    const tracked = this.membership();
    if (!tracked) return Promise.resolve(failed(apiError(ErrorCode.NOT_CONTROLLER)));
    tracked.updateContactTime(req.brokerId, req.brokerEpoch);
    return this.queue.run(async () => {
      const m = this.membership();
      if (!m) return failed(apiError(ErrorCode.NOT_CONTROLLER));
      const registerOffset = this.membershipReplay.registerBrokerRecordOffset(req.brokerId);
      if (registerOffset === undefined) {
        return failed(
          apiError(ErrorCode.STALE_BROKER_EPOCH, `Receive a heartbeat from broker ${req.brokerId} before registration`),
        );
      }
      let out: ReturnType<typeof processBrokerHeartbeat>;
      try {
        out = processBrokerHeartbeat(this.loader.image, m, req, registerOffset, this.opts.topicDefaults, (msg) =>
          this.logger.warn(msg),
        );
      } catch (e) {
        return failed(apiErrorFrom(e));
      }
      let batchEndOffset = this.quorum.logEndOffset - 1;
      if (out.records.length > 0) {
        try {
          batchEndOffset = await this.quorum.append(out.records);
          await this.loader.published();
        } catch (e) {
          this.logger.error('Metadata append failed', e);
          return failed(apiErrorFrom(e));
        }
      }
      if (out.reply.inControlledShutdown) m.maybeUpdateControlledShutdownOffset(req.brokerId, batchEndOffset);
      return {
        ...apiError(ErrorCode.NONE),
        isCaughtUp: out.reply.isCaughtUp,
        isFenced: out.reply.isFenced,
        shouldShutDown: out.reply.shouldShutDown,
      };
    });
  }

  /** ControllerRegistration (ClusterControlManager.registerController): a RegisterControllerRecord. */
  registerRemoteController(reg: ControllerRegistration): Promise<ApiError> {
    return this.queue.run(async () => {
      if (!this.membership()) return apiError(ErrorCode.NOT_CONTROLLER);
      if (!mv.isControllerRegistrationSupported(this.loader.image.metadataVersion)) {
        return apiError(
          ErrorCode.UNSUPPORTED_VERSION,
          'The current MetadataVersion is too old to support controller registrations.',
        );
      }
      try {
        await this.appendAndWait([registerController({ ...reg, zkMigrationReady: false })]);
      } catch (e) {
        this.logger.error('Metadata append failed', e);
        return apiErrorFrom(e);
      }
      return apiError(ErrorCode.NONE);
    });
  }

  private async appendAndWait(records: readonly MetadataRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.quorum.append(records);
    await this.loader.published();
  }

  /**
   * Runs one write operation on the controller queue: `build` computes records and a result from
   * the current image; the records are committed before the result is returned. If the append
   * fails, `onError` turns the error into the operation's result.
   */
  private write<T>(
    build: (image: MetadataImage) => { records: MetadataRecord[]; result: T },
    onError: (e: ApiError) => T,
    validateOnly = false,
  ): Promise<T> {
    return this.queue.run(async () => {
      if (this.closed) return onError(apiError(ErrorCode.NOT_CONTROLLER, 'The controller is shutting down.'));
      // QuorumController.appendWriteEvent: an inactive controller refuses before validating anything
      if (!this.quorum.isLeader()) return onError(apiError(ErrorCode.NOT_CONTROLLER));
      const { records, result } = build(this.loader.image);
      if (validateOnly || records.length === 0) return result;
      try {
        await this.appendAndWait(records);
      } catch (e) {
        this.logger.error('Metadata append failed', e);
        return onError(apiErrorFrom(e));
      }
      return result;
    });
  }

  private replicationContext(image: MetadataImage): ReplicationContext {
    return {
      image,
      defaultNumPartitions: this.opts.defaultNumPartitions ?? 1,
      defaultReplicationFactor: this.opts.defaultReplicationFactor ?? 1,
      validator: this.opts.configValidator,
      schema: this.opts.configSchema,
      controllerIds: [this.opts.nodeId],
      random: this.opts.random,
    };
  }

  // ---------------------------------------------------------------- reads

  /** The latest committed metadata image. */
  get image(): MetadataImage {
    return this.loader.image;
  }

  get nodeId(): number {
    return this.opts.nodeId;
  }

  get clusterId(): string {
    return this.opts.clusterId;
  }

  /** Broker epoch of the local broker registration (-1 if this node is not a broker). */
  get brokerEpoch(): bigint {
    return this.localBrokerEpoch;
  }

  isActive(): boolean {
    return !this.closed && this.quorum.isLeader();
  }

  describeQuorum(): QuorumDescription {
    return this.quorum.describe();
  }

  addPublisher(publisher: MetadataPublisher): Promise<void> {
    return this.loader.addPublisher(publisher);
  }

  removePublisher(publisher: MetadataPublisher): Promise<void> {
    return this.loader.removePublisher(publisher);
  }

  on<T extends MetadataEventType>(
    type: T,
    handler: (event: MetadataEventOf<T>, update: MetadataUpdate) => void,
  ): () => void {
    return this.loader.on(type, handler);
  }

  // ---------------------------------------------------------------- writes

  createTopics(topics: readonly CreatableTopic[], options: WriteOptions = {}): Promise<CreateTopicResult[]> {
    return this.write(
      (image) => {
        const { records, results } = createTopics(
          { ...this.replicationContext(image), applyPartitionChangeQuota: options.applyPartitionChangeQuota },
          topics,
        );
        return { records, result: results };
      },
      (e) =>
        topics.map((t) => ({
          name: t.name,
          topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
          numPartitions: -1,
          replicationFactor: -1,
          configs: [],
          ...e,
        })),
      options.validateOnly,
    );
  }

  deleteTopics(request: DeleteTopicsRequest, options: WriteOptions = {}): Promise<DeleteTopicResult[]> {
    let last: DeleteTopicResult[] = [];
    return this.write(
      (image) => {
        const { records, results } = deleteTopics(image, request, options.applyPartitionChangeQuota);
        last = results;
        return { records, result: results };
      },
      (e) => last.map((r) => (r.errorCode === ErrorCode.NONE ? { ...r, ...e } : r)),
    );
  }

  createPartitions(
    topics: readonly CreatePartitionsTopic[],
    options: WriteOptions = {},
  ): Promise<CreatePartitionsResult[]> {
    return this.write(
      (image) => {
        const { records, results } = createPartitions(
          { ...this.replicationContext(image), applyPartitionChangeQuota: options.applyPartitionChangeQuota },
          topics,
        );
        return { records, result: results };
      },
      (e) => topics.map((t) => ({ name: t.name, ...e })),
      options.validateOnly,
    );
  }

  /** IncrementalAlterConfigs on TOPIC/BROKER/GROUP/CLIENT_METRICS resources (BROKER_LOGGER is the broker's business). */
  incrementalAlterConfigs(
    changes: readonly ConfigResourceChange<IncrementalAlterableConfig>[],
    options: WriteOptions = {},
  ): Promise<ConfigResourceResult[]> {
    return this.write(
      (image) => {
        const { records, results } = incrementalAlterConfigs(this.replicationContext(image), changes);
        return { records: [...records, ...clearElrRecordsAsNeeded(image, records)], result: results };
      },
      (e) => changes.map((c) => ({ resourceType: c.resourceType, resourceName: c.resourceName, ...e })),
      options.validateOnly,
    );
  }

  /** Legacy AlterConfigs: replaces each resource's dynamic configs with the given set. */
  alterConfigs(
    changes: readonly ConfigResourceChange<AlterableConfig>[],
    options: WriteOptions = {},
  ): Promise<ConfigResourceResult[]> {
    return this.write(
      (image) => {
        const { records, results } = legacyAlterConfigs(this.replicationContext(image), changes);
        return { records: [...records, ...clearElrRecordsAsNeeded(image, records)], result: results };
      },
      (e) => changes.map((c) => ({ resourceType: c.resourceType, resourceName: c.resourceName, ...e })),
      options.validateOnly,
    );
  }

  /** UpdateFeatures: all updates or none; validateOnly checks without writing. */
  updateFeatures(updates: readonly FeatureUpdate[], options: WriteOptions = {}): Promise<ApiError> {
    return this.write(
      (image) => {
        const { records, error } = updateFeatures(image, this.opts.nodeId, this.quorum.kraftVersion, updates);
        if (error.errorCode === ErrorCode.NONE)
          for (const u of updates) this.logger.info(`Updating feature ${u.feature} to level ${u.level}.`);
        return { records, result: error };
      },
      (e) => e,
      options.validateOnly,
    );
  }

  /** AlterUserScramCredentials (ScramControlManager.alterCredentials): all records or none. */
  alterUserScramCredentials(req: AlterUserScramCredentialsRequest): Promise<AlterUserScramCredentialsResponse> {
    const names = [...new Set([...req.deletions, ...req.upsertions].map((x) => x.name))];
    return this.write(
      (image) => {
        const { records, response } = alterUserScramCredentials(image, req);
        return { records, result: response };
      },
      (e) => ({ throttleTimeMs: 0, results: names.map((user) => ({ user, ...e })) }),
    );
  }

  /**
   * AlterClientQuotas (ClientQuotaControlManager.alterClientQuotas): one result per entity, the records
   * of the valid ones; validateOnly checks without writing. IP host names are resolved first.
   */
  async alterClientQuotas(
    entries: readonly AlterClientQuotasRequestEntryData[],
    validateOnly = false,
  ): Promise<AlterClientQuotasResponseEntryData[]> {
    if (entries.length === 0) return [];
    const unresolvable = await unresolvableIpNames(entries);
    return this.write(
      (image) => {
        const { records, results } = alterClientQuotas(image, entries, unresolvable);
        return { records, result: results };
      },
      (e) =>
        entries.map((x) => ({
          errorCode: e.errorCode,
          errorMessage: e.errorMessage,
          entity: x.entity.map((c) => ({ entityType: c.entityType, entityName: c.entityName })),
        })),
      validateOnly,
    );
  }

  /** CreateAcls (AclControlManager.createAcls): one result per creation; the records of the valid ones. */
  createAcls(creations: readonly CreateAclsRequestAclCreation[]): Promise<CreateAclsResponseAclCreationResult[]> {
    return this.write(
      (image) => {
        const { records, results } = createAcls(image, creations);
        return { records, result: results };
      },
      (e) => creations.map(() => ({ errorCode: e.errorCode, errorMessage: e.errorMessage })),
    );
  }

  /** DeleteAcls (AclControlManager.deleteAcls): one result per filter, all records or none. */
  deleteAcls(
    filters: readonly DeleteAclsRequestDeleteAclsFilter[],
  ): Promise<DeleteAclsResponseDeleteAclsFilterResult[]> {
    return this.write(
      (image) => {
        const { records, results } = deleteAcls(image, filters);
        return { records, result: results };
      },
      (e) => filters.map(() => ({ errorCode: e.errorCode, errorMessage: e.errorMessage, matchingAcls: [] })),
    );
  }

  /**
   * AssignReplicasToDirs (QuorumController.assignReplicasToDirs →
   * ReplicationControlManager.handleAssignReplicasToDirs): a top-level error (NOT_CONTROLLER,
   * UNSUPPORTED_VERSION, STALE_BROKER_EPOCH) answers with no directories; otherwise per-partition errors.
   */
  assignReplicasToDirs(req: AssignReplicasToDirsRequest): Promise<AssignReplicasToDirsResponse> {
    const failed = (e: ApiError): AssignReplicasToDirsResponse => ({
      throttleTimeMs: 0,
      errorCode: e.errorCode,
      directories: [],
    });
    return this.write((image) => {
      try {
        const { records, response } = handleAssignReplicasToDirs(image, req, this.opts.topicDefaults, (m) =>
          this.logger.warn(m),
        );
        return { records, result: response };
      } catch (e) {
        return { records: [], result: failed(apiErrorFrom(e)) };
      }
    }, failed);
  }

  /** AllocateProducerIds: the next block of 1000 ids. brokerEpoch defaults to the local broker's. */
  allocateProducerIds(brokerId: number = this.opts.nodeId, brokerEpoch?: bigint): Promise<AllocateProducerIdsResult> {
    const failed = (e: ApiError): AllocateProducerIdsResult => ({ ...e, producerIdStart: -1n, producerIdLen: 0 });
    return this.write((image) => {
      try {
        const epoch = brokerEpoch ?? image.brokers.get(brokerId)?.epoch ?? -1n;
        const { records, block } = allocateProducerIds(image, brokerId, epoch);
        return {
          records,
          result: { ...apiError(ErrorCode.NONE), producerIdStart: block.firstProducerId, producerIdLen: block.size },
        };
      } catch (e) {
        return { records: [], result: failed(apiErrorFrom(e)) };
      }
    }, failed);
  }

  /** BrokerRegistration (for other brokers; the local one registers itself at start). */
  registerBroker(
    req: Omit<BrokerRegistrationRequest, 'features'> & { features?: ReadonlyMap<string, VersionRange> },
  ): Promise<RegisterBrokerResult> {
    const failed = (e: ApiError): RegisterBrokerResult => ({ ...e, brokerEpoch: -1n });
    return this.write((image) => {
      try {
        const { records, brokerEpoch } = registerBroker(
          image,
          { ...req, clusterId: req.clusterId ?? image.clusterId, features: req.features ?? new Map() },
          this.quorum.logEndOffset,
        );
        return { records, result: { ...apiError(ErrorCode.NONE), brokerEpoch } };
      } catch (e) {
        return { records: [], result: failed(apiErrorFrom(e)) };
      }
    }, failed);
  }

  /** Unfences a registered broker and elects it where partitions are leaderless. */
  unfenceBroker(brokerId: number, brokerEpoch: bigint): Promise<ApiError> {
    return this.write(
      (image) => {
        try {
          return {
            records: unfenceBroker(image, brokerId, brokerEpoch, this.opts.topicDefaults),
            result: apiError(ErrorCode.NONE),
          };
        } catch (e) {
          return { records: [], result: apiErrorFrom(e) };
        }
      },
      (e) => e,
    );
  }

  /** UnregisterBroker: removes a broker's registration (after taking it out of every ISR). */
  unregisterBroker(brokerId: number): Promise<ApiError> {
    return this.write(
      (image) => {
        try {
          return {
            records: unregisterBroker(image, brokerId, this.opts.topicDefaults),
            result: apiError(ErrorCode.NONE),
          };
        } catch (e) {
          return { records: [], result: apiErrorFrom(e) };
        }
      },
      (e) => e,
    );
  }

  /** UnregisterController (KIP-1201): an UnregisterControllerRecord removes another controller's registration. */
  unregisterController(controllerId: number): Promise<ApiError> {
    return this.write(
      (image) => {
        try {
          return {
            records: unregisterController(image, this.opts.nodeId, controllerId),
            result: apiError(ErrorCode.NONE),
          };
        } catch (e) {
          return { records: [], result: apiErrorFrom(e) };
        }
      },
      (e) => e,
    );
  }

  /** Fences a broker (or puts it in controlled shutdown), moving leadership and shrinking ISRs. */
  fenceBroker(brokerId: number, brokerEpoch: bigint, controlledShutdown = false): Promise<ApiError> {
    return this.write(
      (image) => {
        try {
          return {
            records: fenceBroker(image, brokerId, brokerEpoch, controlledShutdown, this.opts.topicDefaults),
            result: apiError(ErrorCode.NONE),
          };
        } catch (e) {
          return { records: [], result: apiErrorFrom(e) };
        }
      },
      (e) => e,
    );
  }

  /**
   * AlterPartition (QuorumController.alterPartition → ReplicationControlManager.alterPartition): an
   * empty request is answered at once; STALE_BROKER_EPOCH / NOT_CONTROLLER are the whole response's
   * error, the rest per partition.
   */
  alterPartition(req: AlterPartitionRequest, apiVersion: number): Promise<AlterPartitionResponse> {
    if (req.topics.length === 0) return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics: [] });
    const failed = (e: ApiError): AlterPartitionResponse => ({ throttleTimeMs: 0, errorCode: e.errorCode, topics: [] });
    return this.write((image) => {
      try {
        const { records, response } = alterPartition(image, req, apiVersion, this.opts.topicDefaults, (m) =>
          this.logger.info(m),
        );
        return { records, result: response };
      } catch (e) {
        return { records: [], result: failed(apiErrorFrom(e)) };
      }
    }, failed);
  }

  /**
   * AlterPartitionReassignments (QuorumController.alterPartitionReassignments): an empty request is
   * answered at once; otherwise the records of every partition are appended atomically. A controller
   * error (NOT_CONTROLLER, a failed append) is the top-level error and every partition's
   * (AlterPartitionReassignmentsRequest.getErrorResponse).
   */
  alterPartitionReassignments(req: AlterPartitionReassignmentsRequest): Promise<AlterPartitionReassignmentsResponse> {
    if (req.topics.length === 0) {
      return Promise.resolve({
        throttleTimeMs: 0,
        allowReplicationFactorChange: true,
        errorCode: ErrorCode.NONE,
        errorMessage: '',
        responses: [],
      });
    }
    const failed = (e: ApiError): AlterPartitionReassignmentsResponse => ({
      throttleTimeMs: 0,
      allowReplicationFactorChange: req.allowReplicationFactorChange,
      errorCode: e.errorCode,
      errorMessage: e.errorMessage,
      responses: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: e.errorCode,
          errorMessage: e.errorMessage,
        })),
      })),
    });
    return this.write((image) => {
      const { records, response } = alterPartitionReassignments(this.replicationSettings(image), req, (m) =>
        this.logger.info(m),
      );
      return { records, result: response };
    }, failed);
  }

  /**
   * ListPartitionReassignments (QuorumController.listPartitionReassignments, a read event on the
   * controller's queue): an empty topic list is answered at once.
   */
  listPartitionReassignments(req: ListPartitionReassignmentsRequest): Promise<ListPartitionReassignmentsResponse> {
    const answer = (e: ApiError): ListPartitionReassignmentsResponse => ({
      throttleTimeMs: 0,
      errorCode: e.errorCode,
      errorMessage: e.errorMessage,
      topics: [],
    });
    if (req.topics !== null && req.topics.length === 0) return Promise.resolve(answer(apiError(ErrorCode.NONE)));
    return this.queue.run(() => {
      if (this.closed) return answer(apiError(ErrorCode.NOT_CONTROLLER, 'The controller is shutting down.'));
      if (!this.quorum.isLeader()) return answer(apiError(ErrorCode.NOT_CONTROLLER));
      return listPartitionReassignments({ image: this.loader.image }, req.topics);
    });
  }

  /**
   * ElectLeaders (QuorumController.electLeaders): an empty topic list is answered at once. A request
   * error (an unknown election type, NOT_CONTROLLER, a failed append) is the top-level error and every
   * named partition's (ElectLeadersRequest.getErrorResponse).
   */
  electLeaders(req: ElectLeadersRequest): Promise<ElectLeadersResponse> {
    if (req.topicPartitions !== null && req.topicPartitions.length === 0)
      return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: [] });
    const failed = (e: ApiError): ElectLeadersResponse => ({
      throttleTimeMs: 0,
      errorCode: e.errorCode,
      replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((partitionId) => ({
          partitionId,
          errorCode: e.errorCode,
          errorMessage: e.errorMessage,
        })),
      })),
    });
    return this.write((image) => {
      try {
        const { records, response } = electLeaders(this.replicationSettings(image), req);
        return { records, result: response };
      } catch (e) {
        return { records: [], result: failed(apiErrorFrom(e)) };
      }
    }, failed);
  }

  private replicationSettings(image: MetadataImage): {
    image: MetadataImage;
    controllerId: number;
    defaults?: TopicConfigDefaults;
  } {
    return { image, controllerId: this.opts.nodeId, defaults: this.opts.topicDefaults };
  }

  // ---------------------------------------------------------------- snapshots

  private async writeSnapshot(): Promise<OffsetAndEpoch | null> {
    const snapshot = imageSnapshot(this.loader);
    if (!snapshot) return null;
    const latest = this.quorum.latestSnapshotId();
    if (latest && latest.offset >= snapshot.id.offset) return latest;
    try {
      await this.quorum.createSnapshot(snapshot);
      this.loader.markSnapshotTaken();
      return snapshot.id;
    } catch (e) {
      this.logger.error('Failed to write a metadata snapshot', e);
      return null;
    }
  }

  /** Writes a snapshot of the current image now (no-op if the latest snapshot is current). */
  snapshot(): Promise<OffsetAndEpoch | null> {
    return this.queue.run(() => this.writeSnapshot());
  }

  /** Directory of the metadata partition (`<metadata.log.dir>/__cluster_metadata-0`). */
  get metadataPartitionDir(): string {
    return path.join(this.opts.metadataLogDir, '__cluster_metadata-0');
  }

  /** Clean shutdown: waits for queued operations, snapshots (unless disabled), closes the log. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.fenceTimer) clearInterval(this.fenceTimer);
    this.fenceTimer = null;
    if (this.noOpTimer) clearInterval(this.noOpTimer);
    this.noOpTimer = null;
    this.stopping = true;
    for (const t of this.periodicTimers.values()) clearTimeout(t);
    this.periodicTimers.clear();
    this.snapshotGenerator.close();
    this.registrationManager?.close();
    await this.queue.run(async () => {
      this.closed = true;
      if (this.opts.snapshotOnClose !== false && this.loader.recordsSinceSnapshot > 0) await this.writeSnapshot();
    });
    await this.quorum.close();
    await this.loader.close();
  }
}
