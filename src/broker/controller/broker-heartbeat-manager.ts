// Broker sessions and the fenced / unfenced / controlled-shutdown state machine of the active
// controller (Kafka's BrokerHeartbeatManager + BrokerHeartbeatTracker + BrokerControlState).
//
// Owned by the QuorumController and touched only from its serial queue (and the timer task it
// enqueues there). It is rebuilt from the metadata image each time this node becomes the active
// controller (ClusterControlManager.activate) and dropped when it stops being active.
//
// Times are milliseconds from `now()` (Kafka uses nanoseconds; the comparisons are the same).

/** BrokerControlState: FENCED(fenced), UNFENCED, CONTROLLED_SHUTDOWN, SHUTDOWN_NOW(fenced, shouldShutDown). */
export type BrokerControlState = 'FENCED' | 'UNFENCED' | 'CONTROLLED_SHUTDOWN' | 'SHUTDOWN_NOW';

export const controlState = {
  fenced: (s: BrokerControlState): boolean => s === 'FENCED' || s === 'SHUTDOWN_NOW',
  inControlledShutdown: (s: BrokerControlState): boolean => s === 'CONTROLLED_SHUTDOWN',
  shouldShutDown: (s: BrokerControlState): boolean => s === 'SHUTDOWN_NOW',
};

export interface BrokerControlStates {
  readonly current: BrokerControlState;
  readonly next: BrokerControlState;
}

/** What calculateNextBrokerState reads of a BrokerHeartbeat request. */
export interface HeartbeatIntent {
  readonly wantFence: boolean;
  readonly wantShutDown: boolean;
  readonly currentMetadataOffset: number;
}

interface BrokerHeartbeatState {
  readonly id: number;
  fenced: boolean;
  metadataOffset: number;
  /** -1 unless the broker is in controlled shutdown. */
  controlledShutdownOffset: number;
}

const key = (id: number, epoch: bigint): string => `${id}:${epoch}`;

export class BrokerHeartbeatManager {
  private readonly brokers = new Map<number, BrokerHeartbeatState>();
  private readonly inProcess = new Set<number>();
  /** BrokerHeartbeatTracker.contactTimes, by `${id}:${epoch}`, in insertion order. */
  private readonly contactTimes = new Map<string, { id: number; epoch: bigint; timeMs: number }>();

  constructor(
    readonly sessionTimeoutMs: number,
    private readonly now: () => number = Date.now,
    /** Where Kafka's INFO lines about granted state changes go. */
    private readonly log: (msg: string) => void = () => {},
  ) {}

  // ------------------------------------------------------------ sessions (BrokerHeartbeatTracker)

  updateContactTime(id: number, epoch: bigint, timeMs: number = this.now()): void {
    const k = key(id, epoch);
    this.contactTimes.delete(k);
    this.contactTimes.set(k, { id, epoch, timeMs });
  }

  contactTime(id: number, epoch: bigint): number | undefined {
    return this.contactTimes.get(key(id, epoch))?.timeMs;
  }

  private isExpired(timeMs: number, nowMs: number): boolean {
    return nowMs > timeMs && timeMs + this.sessionTimeoutMs < nowMs;
  }

  hasValidSession(id: number, epoch: bigint): boolean {
    const t = this.contactTimes.get(key(id, epoch));
    return t !== undefined && !this.isExpired(t.timeMs, this.now());
  }

  /** Removes and returns one expired session, if any (BrokerHeartbeatTracker.maybeRemoveExpired). */
  maybeRemoveExpired(nowMs: number = this.now()): { id: number; epoch: bigint } | null {
    for (const [k, v] of this.contactTimes) {
      if (this.isExpired(v.timeMs, nowMs)) {
        this.contactTimes.delete(k);
        return { id: v.id, epoch: v.epoch };
      }
    }
    return null;
  }

  /** The earliest time a session can expire (for the fencing timer), or null if none is tracked. */
  nextExpiryMs(): number | null {
    let min: number | null = null;
    for (const v of this.contactTimes.values()) {
      const t = v.timeMs + this.sessionTimeoutMs + 1;
      if (min === null || t < min) min = t;
    }
    return min;
  }

  // ------------------------------------------------------------ broker states

  register(brokerId: number, fenced: boolean): void {
    let broker = this.brokers.get(brokerId);
    let metadataOffset = -1;
    if (!broker) {
      broker = { id: brokerId, fenced, metadataOffset: -1, controlledShutdownOffset: -1 };
      this.brokers.set(brokerId, broker);
    } else if (broker.fenced !== fenced) {
      metadataOffset = broker.metadataOffset;
    }
    this.touch(brokerId, fenced, metadataOffset);
  }

  remove(brokerId: number): void {
    this.brokers.delete(brokerId);
  }

  /**
   * The broker of a combined node shares the controller's image: it has always applied every
   * committed record, so it never holds back a controlled shutdown (lowestActiveOffset).
   */
  markInProcess(brokerId: number): void {
    this.inProcess.add(brokerId);
  }

  has(brokerId: number): boolean {
    return this.brokers.has(brokerId);
  }

  isFenced(brokerId: number): boolean {
    return this.stateOrThrow(brokerId).fenced;
  }

  fence(brokerId: number): void {
    const b = this.brokers.get(brokerId);
    if (b) b.fenced = true;
  }

  touch(brokerId: number, fenced: boolean, metadataOffset: number): void {
    const b = this.stateOrThrow(brokerId);
    b.fenced = fenced;
    b.metadataOffset = metadataOffset;
    if (fenced) b.controlledShutdownOffset = -1;
  }

  private static shuttingDown(b: BrokerHeartbeatState): boolean {
    return b.controlledShutdownOffset >= 0;
  }

  /** The lowest metadata offset of the active (unfenced, not shutting down) brokers; +Infinity if none. */
  lowestActiveOffset(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const b of this.brokers.values()) {
      if (this.inProcess.has(b.id) || b.fenced || BrokerHeartbeatManager.shuttingDown(b)) continue;
      if (b.metadataOffset < min) min = b.metadataOffset;
    }
    return min;
  }

  controlledShutdownOffset(brokerId: number): number | null {
    const b = this.brokers.get(brokerId);
    return b && b.controlledShutdownOffset !== -1 ? b.controlledShutdownOffset : null;
  }

  maybeUpdateControlledShutdownOffset(brokerId: number, offset: number): void {
    const b = this.stateOrThrow(brokerId);
    if (b.fenced) throw new Error('Fenced brokers cannot enter controlled shutdown.');
    if (b.controlledShutdownOffset < 0) b.controlledShutdownOffset = offset;
  }

  currentBrokerState(brokerId: number): BrokerControlState {
    const b = this.stateOrThrow(brokerId);
    if (BrokerHeartbeatManager.shuttingDown(b)) return 'CONTROLLED_SHUTDOWN';
    return b.fenced ? 'FENCED' : 'UNFENCED';
  }

  /** BrokerHeartbeatManager.calculateNextBrokerState. */
  calculateNextBrokerState(
    brokerId: number,
    request: HeartbeatIntent,
    registerBrokerRecordOffset: number,
    hasLeaderships: () => boolean,
  ): BrokerControlStates {
    const b = this.stateOrThrow(brokerId);
    const current = this.currentBrokerState(brokerId);
    const to = (next: BrokerControlState): BrokerControlStates => ({ current, next });
    switch (current) {
      case 'FENCED':
        if (request.wantShutDown) {
          this.log(`Fenced broker ${brokerId} has requested and been granted an immediate shutdown.`);
          return to('SHUTDOWN_NOW');
        }
        if (!request.wantFence && request.currentMetadataOffset >= registerBrokerRecordOffset) {
          this.log(
            `The request from broker ${brokerId} to unfence has been granted because it has caught up with the offset of its register broker record ${registerBrokerRecordOffset}.`,
          );
          return to('UNFENCED');
        }
        return to('FENCED');
      case 'UNFENCED':
        if (request.wantFence) {
          if (request.wantShutDown) {
            this.log(`Unfenced broker ${brokerId} has requested and been granted an immediate shutdown.`);
            return to('SHUTDOWN_NOW');
          }
          this.log(`Unfenced broker ${brokerId} has requested and been granted fencing`);
          return to('FENCED');
        }
        if (request.wantShutDown) {
          if (hasLeaderships()) {
            this.log(`Unfenced broker ${brokerId} has requested and been granted a controlled shutdown.`);
            return to('CONTROLLED_SHUTDOWN');
          }
          this.log(`Unfenced broker ${brokerId} has requested and been granted an immediate shutdown.`);
          return to('SHUTDOWN_NOW');
        }
        return to('UNFENCED');
      case 'CONTROLLED_SHUTDOWN': {
        if (hasLeaderships()) return to('CONTROLLED_SHUTDOWN');
        const lowest = this.lowestActiveOffset();
        if (b.controlledShutdownOffset <= lowest) {
          this.log(
            `The request from broker ${brokerId} to shut down has been granted since the lowest active offset ${lowest === Number.POSITIVE_INFINITY ? '9223372036854775807' : lowest} is now greater than the broker's controlled shutdown offset ${b.controlledShutdownOffset}.`,
          );
          return to('SHUTDOWN_NOW');
        }
        return to('CONTROLLED_SHUTDOWN');
      }
      default:
        return to('SHUTDOWN_NOW');
    }
  }

  private stateOrThrow(brokerId: number): BrokerHeartbeatState {
    const b = this.brokers.get(brokerId);
    if (!b) throw new Error(`Broker ${brokerId} is not registered.`);
    return b;
  }
}
