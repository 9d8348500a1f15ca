// The broker's side of cluster membership: Kafka's BrokerLifecycleManager. It registers the broker
// with the active controller (BrokerRegistration: incarnation id, cluster id, listeners, supported
// features, rack, sorted log dir ids, IsMigratingZkBroker false, previous broker epoch), then
// heartbeats every `broker.heartbeat.interval.ms` with the highest metadata offset this broker has
// applied. States, as Kafka's BrokerState:
//   STARTING  — registered, heartbeating with WantFence until the controller says IsCaughtUp
//               (the broker's metadata offset reached its registration record) → RECOVERY;
//   RECOVERY  — the broker finishes starting; setReadyToUnfence() stops asking WantFence, and the
//               first heartbeat answered with IsFenced=false → RUNNING;
//   PENDING_CONTROLLED_SHUTDOWN — beginControlledShutdown(): heartbeats with WantShutDown (every 50 ms
//               until the controller first answers) until ShouldShutDown → SHUTTING_DOWN.
// Failures (no controller, timeouts, error codes) are retried after the heartbeat interval; a
// successful registration is followed by a heartbeat at once, a STARTING heartbeat by the next after
// 10 ms. One communication is in flight at a time; everything runs on the event loop, state changes
// only in the response handlers below.
import { apiByKey } from '../../client/apis.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  BrokerHeartbeatRequest,
  BrokerHeartbeatResponse,
} from '../../protocol/generated/protocol/BrokerHeartbeat.js';
import type {
  BrokerRegistrationRequest,
  BrokerRegistrationResponse,
} from '../../protocol/generated/protocol/BrokerRegistration.js';
import type { Input } from '../../protocol/codec/types.js';
import type { ControllerChannel } from '../forwarding/controller-channel.js';
import { randomUuid } from '../controller/uuid.js';

export type BrokerState =
  'NOT_RUNNING' | 'STARTING' | 'RECOVERY' | 'RUNNING' | 'PENDING_CONTROLLED_SHUTDOWN' | 'SHUTTING_DOWN';

export interface RegistrationListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** SecurityProtocol id (PLAINTEXT 0, SSL 1, SASL_PLAINTEXT 2, SASL_SSL 3). */
  readonly securityProtocol: number;
}

export interface LifecycleLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface BrokerLifecycleOptions {
  readonly nodeId: number;
  readonly clusterId: string;
  /** A fresh Uuid per process start (Kafka: BrokerServer's incarnation id). */
  readonly incarnationId?: string;
  readonly listeners: readonly RegistrationListener[];
  readonly features: ReadonlyMap<string, { readonly min: number; readonly max: number }>;
  readonly rack?: string | null;
  /** Directory ids of log.dirs (meta.properties directory.id). */
  readonly logDirIds: readonly string[];
  /** Broker epoch before a clean shutdown, -1 when unknown. */
  readonly previousBrokerEpoch?: bigint;
  readonly channel: ControllerChannel;
  /** `broker.heartbeat.interval.ms` */
  readonly heartbeatIntervalMs: number;
  /** Retry deadline of one registration or heartbeat (Kafka: the channel's request timeout). */
  readonly requestTimeoutMs: number;
  /**
   * `initial.broker.registration.timeout.ms`: without a successful registration by then the manager
   * gives up (RegistrationTimeoutEvent) and initialCatchUp / initialUnfence reject.
   */
  readonly initialRegistrationTimeoutMs?: number;
  /** The offset of the last metadata record this broker has applied (Kafka's highestMetadataOffsetProvider). */
  readonly metadataOffset: () => number;
  readonly logger?: LifecycleLogger;
}

const BROKER_REGISTRATION = apiByKey(ApiKey.BrokerRegistration)!;
const BROKER_HEARTBEAT = apiByKey(ApiKey.BrokerHeartbeat)!;
const STARTING_HEARTBEAT_MS = 10;
const PENDING_SHUTDOWN_HEARTBEAT_MS = 50;

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(e: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a failure is for whoever awaits it, not an unhandled rejection
  return { promise, resolve, reject };
}

const silent: LifecycleLogger = { info: () => {}, warn: () => {}, error: () => {} };

export class BrokerLifecycleManager {
  readonly incarnationId: string;
  private stateValue: BrokerState = 'NOT_RUNNING';
  private brokerEpochValue = -1n;
  private registered = false;
  private readyToUnfence = false;
  private gotControlledShutdownResponse = false;
  private communicationInFlight = false;
  private nextSchedulingShouldBeImmediate = false;
  private timer: NodeJS.Timeout | null = null;
  private registrationTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** failed log dirs by id, true once a heartbeat carrying it was answered (Kafka's offlineDirs) */
  private readonly offlineDirs = new Map<string, boolean>();
  private readonly offlineDirTimers = new Set<NodeJS.Timeout>();
  private readonly catchUp = deferred();
  private readonly unfence = deferred();
  private readonly shutdown = deferred();
  private readonly logger: LifecycleLogger;

  constructor(private readonly opts: BrokerLifecycleOptions) {
    this.incarnationId = opts.incarnationId ?? randomUuid();
    this.logger = opts.logger ?? silent;
  }

  get state(): BrokerState {
    return this.stateValue;
  }

  /** The epoch the controller gave this registration, -1 before it registered. */
  get brokerEpoch(): bigint {
    return this.brokerEpochValue;
  }

  /** Resolves when the controller says the broker caught up with the metadata (STARTING → RECOVERY). */
  get initialCatchUp(): Promise<void> {
    return this.catchUp.promise;
  }

  /** Resolves when the controller unfenced the broker (RECOVERY → RUNNING). */
  get initialUnfence(): Promise<void> {
    return this.unfence.promise;
  }

  /** Resolves when the controller let the broker shut down (ShouldShutDown). */
  get controlledShutdownComplete(): Promise<void> {
    return this.shutdown.promise;
  }

  /** Starts registering (Kafka: StartupEvent). */
  start(): void {
    if (this.stateValue !== 'NOT_RUNNING') return;
    this.stateValue = 'STARTING';
    const timeoutMs = this.opts.initialRegistrationTimeoutMs;
    if (timeoutMs !== undefined) {
      this.registrationTimer = setTimeout(() => {
        this.registrationTimer = null;
        if (this.brokerEpochValue >= 0n || this.closed) return;
        this.logger.error('Shutting down because we were unable to register with the controller quorum.');
        const e = new Error(`Unable to register with the controller quorum within ${timeoutMs} ms`);
        this.catchUp.reject(e);
        this.unfence.reject(e);
        this.close();
      }, timeoutMs);
    }
    this.schedule(0);
  }

  /** The broker has finished starting: stop asking to stay fenced (Kafka: setReadyToUnfence). */
  setReadyToUnfence(): void {
    this.readyToUnfence = true;
    this.schedule(0);
  }

  /** Asks the controller to move leadership away and let the broker go (WantShutDown). */
  beginControlledShutdown(): void {
    if (this.stateValue === 'SHUTTING_DOWN' || this.stateValue === 'NOT_RUNNING') {
      this.shutdown.resolve();
      return;
    }
    this.logger.info('Beginning controlled shutdown.');
    this.stateValue = 'PENDING_CONTROLLED_SHUTDOWN';
    this.schedule(0);
  }

  /**
   * Kafka's propagateDirectoryFailure: the failed directory's id goes into every heartbeat's
   * OfflineLogDirs from now on, the next heartbeat is sent at once; if no heartbeat carrying it was
   * answered within `timeoutMs` (log.dir.failure.timeout.ms), "Shutting down because couldn't
   * communicate offline log dir ... with controllers" and `onFailure` (Kafka: the shutdown hook).
   */
  propagateDirectoryFailure(directoryId: string, timeoutMs: number, onFailure: () => void): void {
    if (this.closed) return;
    if (!this.offlineDirs.has(directoryId)) this.offlineDirs.set(directoryId, false);
    if (this.registered) this.schedule(0);
    const t = setTimeout(() => {
      this.offlineDirTimers.delete(t);
      if (this.closed || this.offlineDirs.get(directoryId)) return;
      this.logger.error(`Shutting down because couldn't communicate offline log dir ${directoryId} with controllers`);
      onFailure();
    }, timeoutMs);
    t.unref?.();
    this.offlineDirTimers.add(t);
  }

  /** Stops communicating; pending promises other than shutdown stay unresolved. */
  close(): void {
    for (const t of this.offlineDirTimers) clearTimeout(t);
    this.offlineDirTimers.clear();
    this.closed = true;
    this.stateValue = 'SHUTTING_DOWN';
    if (this.timer) clearTimeout(this.timer);
    if (this.registrationTimer) clearTimeout(this.registrationTimer);
    this.timer = null;
    this.registrationTimer = null;
    this.shutdown.resolve();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    const ms = this.nextSchedulingShouldBeImmediate ? 0 : delayMs;
    this.nextSchedulingShouldBeImmediate = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.communicate();
    }, ms);
  }

  private communicate(): void {
    if (this.closed || this.stateValue === 'SHUTTING_DOWN') return;
    if (this.communicationInFlight) {
      this.nextSchedulingShouldBeImmediate = true;
      return;
    }
    this.communicationInFlight = true;
    const done = (): void => {
      this.communicationInFlight = false;
    };
    if (this.registered) void this.sendHeartbeat().finally(done);
    else void this.sendRegistration().finally(done);
  }

  private afterFailure(): void {
    this.nextSchedulingShouldBeImmediate = false;
    this.schedule(this.opts.heartbeatIntervalMs);
  }

  private async sendRegistration(): Promise<void> {
    const request: Input<BrokerRegistrationRequest> = {
      brokerId: this.opts.nodeId,
      clusterId: this.opts.clusterId,
      incarnationId: this.incarnationId,
      listeners: this.opts.listeners.map((l) => ({ ...l })),
      features: [...this.opts.features].map(([name, r]) => ({
        name,
        minSupportedVersion: r.min,
        maxSupportedVersion: r.max,
      })),
      rack: this.opts.rack ?? null,
      isMigratingZkBroker: false,
      logDirs: [...this.opts.logDirIds].sort(compareUuids),
      previousBrokerEpoch: this.opts.previousBrokerEpoch ?? -1n,
    };
    let res: BrokerRegistrationResponse;
    try {
      res = (
        await this.opts.channel.send<BrokerRegistrationResponse>(BROKER_REGISTRATION, request, {
          retryTimeoutMs: this.opts.requestTimeoutMs,
          isNotController: (b) => b.errorCode === ErrorCode.NOT_CONTROLLER,
        })
      ).body;
    } catch (e) {
      if (this.closed) return;
      this.logger.info(`Unable to register broker ${this.opts.nodeId}: ${(e as Error).message}`);
      this.communicationInFlight = false;
      this.afterFailure();
      return;
    }
    if (this.closed) return;
    this.communicationInFlight = false;
    if (res.errorCode !== ErrorCode.NONE) {
      this.logger.info(
        `Unable to register broker ${this.opts.nodeId} because the controller returned error ${errorName(res.errorCode)}`,
      );
      this.afterFailure();
      return;
    }
    this.brokerEpochValue = res.brokerEpoch;
    this.registered = true;
    this.logger.info(`Successfully registered broker ${this.opts.nodeId} with broker epoch ${res.brokerEpoch}`);
    this.schedule(0);
  }

  private async sendHeartbeat(): Promise<void> {
    const request: Input<BrokerHeartbeatRequest> = {
      brokerId: this.opts.nodeId,
      brokerEpoch: this.brokerEpochValue,
      currentMetadataOffset: BigInt(this.opts.metadataOffset()),
      wantFence: !this.readyToUnfence,
      wantShutDown: this.stateValue === 'PENDING_CONTROLLED_SHUTDOWN',
      offlineLogDirs: [...this.offlineDirs.keys()],
    };
    const sentOffline = [...this.offlineDirs.keys()];
    let res: BrokerHeartbeatResponse;
    try {
      res = (
        await this.opts.channel.send<BrokerHeartbeatResponse>(BROKER_HEARTBEAT, request, {
          retryTimeoutMs: this.opts.requestTimeoutMs,
          isNotController: (b) => b.errorCode === ErrorCode.NOT_CONTROLLER,
        })
      ).body;
    } catch (e) {
      if (this.closed) return;
      this.logger.warn(`Unable to send broker heartbeat for ${this.opts.nodeId}: ${(e as Error).message}. Retrying.`);
      this.communicationInFlight = false;
      this.afterFailure();
      return;
    }
    if (this.closed) return;
    this.communicationInFlight = false;
    if (res.errorCode !== ErrorCode.NONE) {
      this.logger.warn(
        `Broker ${this.opts.nodeId} sent a heartbeat request but received error ${errorName(res.errorCode)}.`,
      );
      this.afterFailure();
      return;
    }
    for (const d of sentOffline) this.offlineDirs.set(d, true);
    switch (this.stateValue) {
      case 'PENDING_CONTROLLED_SHUTDOWN':
        if (!res.shouldShutDown) {
          this.logger.info(
            'The broker is in PENDING_CONTROLLED_SHUTDOWN state, still waiting for the active controller.',
          );
          this.schedule(
            this.gotControlledShutdownResponse ? this.opts.heartbeatIntervalMs : PENDING_SHUTDOWN_HEARTBEAT_MS,
          );
        } else {
          this.logger.info('The controller has asked us to exit controlled shutdown.');
          this.stateValue = 'SHUTTING_DOWN';
          this.shutdown.resolve();
        }
        this.gotControlledShutdownResponse = true;
        break;
      case 'RUNNING':
        this.schedule(this.opts.heartbeatIntervalMs);
        break;
      case 'STARTING':
        if (res.isCaughtUp) {
          this.logger.info('The broker has caught up. Transitioning from STARTING to RECOVERY.');
          this.stateValue = 'RECOVERY';
          this.catchUp.resolve();
        }
        this.schedule(STARTING_HEARTBEAT_MS);
        break;
      case 'RECOVERY':
        if (!res.isFenced) {
          this.logger.info('The broker has been unfenced. Transitioning from RECOVERY to RUNNING.');
          this.stateValue = 'RUNNING';
          this.unfence.resolve();
        } else {
          this.logger.info('The broker is in RECOVERY.');
        }
        this.schedule(this.opts.heartbeatIntervalMs);
        break;
      default:
        break;
    }
  }
}

/** Uuid.compareTo: by most significant, then least significant 64 bits, both signed. */
function compareUuids(a: string, b: string): number {
  const bits = (u: string): [bigint, bigint] => {
    const buf = Buffer.from(u, 'base64url');
    return [buf.readBigInt64BE(0), buf.readBigInt64BE(8)];
  };
  const [am, al] = bits(a);
  const [bm, bl] = bits(b);
  return am !== bm ? (am < bm ? -1 : 1) : al === bl ? 0 : al < bl ? -1 : 1;
}
