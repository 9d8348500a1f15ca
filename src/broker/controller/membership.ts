// Broker membership on the active controller: the records and replies of BrokerHeartbeat, the
// fencing of brokers whose session expired, and the offsets of RegisterBrokerRecords a broker must
// reach before it is unfenced (Kafka's ReplicationControlManager.processBrokerHeartbeat /
// maybeFenceOneStaleBroker / handleBrokerFenced / handleBrokerUnfenced /
// handleBrokerInControlledShutdown, and ClusterControlManager.registerBrokerRecordOffsets).
//
// Pure functions of the image and the heartbeat manager; QuorumController runs them on its queue.

import { defaultBrokerRegistrationChangeRecord } from '../../protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { mv } from '../metadata/features.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedBatch, RaftListener, SnapshotData } from '../raft/types.js';
import { controlState, type BrokerHeartbeatManager, type HeartbeatIntent } from './broker-heartbeat-manager.js';
import { checkBrokerEpoch, fenceBroker, removeFromIsrs, unfenceBroker } from './cluster.js';
import { handleDirectoriesOffline } from './directories.js';
import type { TopicConfigDefaults } from './leader-and-isr.js';

/**
 * Replays membership records as they commit, as ClusterControlManager.replay does: the offset of
 * each broker's latest RegisterBrokerRecord (the offset a broker must reach before it is unfenced;
 * for registrations loaded from a snapshot, the snapshot's last contained offset), and, while this
 * node is the active controller, the heartbeat manager's view of each broker's fencing.
 */
export class MembershipReplay implements RaftListener {
  private readonly offsets = new Map<number, number>();
  /** The active controller's heartbeat manager, or null when this node is not active. */
  manager: BrokerHeartbeatManager | null = null;

  registerBrokerRecordOffset(brokerId: number): number | undefined {
    return this.offsets.get(brokerId);
  }

  handleLoadSnapshot(snapshot: SnapshotData): void {
    this.offsets.clear();
    for (const r of snapshot.records) {
      if (r.type === RecordType.RegisterBroker) this.offsets.set(r.data.brokerId, snapshot.id.offset - 1);
    }
  }

  handleCommit(batch: CommittedBatch): void {
    batch.records.forEach((r, i) => this.replay(r, batch.baseOffset + i));
  }

  private replay(r: MetadataRecord, offset: number): void {
    const m = this.manager;
    switch (r.type) {
      case RecordType.RegisterBroker:
        this.offsets.set(r.data.brokerId, offset);
        if (m) {
          if (m.has(r.data.brokerId)) m.remove(r.data.brokerId);
          m.register(r.data.brokerId, r.data.fenced);
        }
        break;
      case RecordType.UnregisterBroker:
        this.offsets.delete(r.data.brokerId);
        m?.remove(r.data.brokerId);
        break;
      case RecordType.FenceBroker:
        if (m?.has(r.data.id)) m.register(r.data.id, true);
        break;
      case RecordType.UnfenceBroker:
        if (m?.has(r.data.id)) m.register(r.data.id, false);
        break;
      case RecordType.BrokerRegistrationChange:
        if (m?.has(r.data.brokerId)) {
          const fenced = r.data.fenced === 1 ? true : r.data.fenced === -1 ? false : m.isFenced(r.data.brokerId);
          m.register(r.data.brokerId, fenced);
        }
        break;
      default:
        break;
    }
  }
}

/** A broker leads at least one partition (BrokersToIsrs.hasLeaderships). */
export function hasLeaderships(image: MetadataImage, brokerId: number): boolean {
  for (const t of image.topicsById.values())
    for (const p of t.partitions.values()) if (p.leader === brokerId) return true;
  return false;
}

/**
 * ClusterControlManager.activate: every registered broker is tracked; unfenced ones get a session
 * starting now. Brokers in `inProcess` (the combined node's own broker, which never heartbeats over
 * the wire) are registered but have no session to expire.
 */
export function activateHeartbeats(
  manager: BrokerHeartbeatManager,
  image: MetadataImage,
  inProcess: ReadonlySet<number>,
): void {
  for (const b of image.brokers.values()) {
    manager.register(b.id, b.fenced);
    if (inProcess.has(b.id)) manager.markInProcess(b.id);
    else if (!b.fenced) manager.updateContactTime(b.id, b.epoch);
  }
}

export interface BrokerHeartbeatReply {
  readonly isCaughtUp: boolean;
  readonly isFenced: boolean;
  readonly inControlledShutdown: boolean;
  readonly shouldShutDown: boolean;
}

export interface HeartbeatRequest extends HeartbeatIntent {
  readonly brokerId: number;
  readonly brokerEpoch: bigint;
  /** BrokerHeartbeatRequest.OfflineLogDirs (v1+): the ids of the broker's failed log dirs (KIP-858). */
  readonly offlineLogDirs?: readonly string[];
}

/** ReplicationControlManager.handleBrokerInControlledShutdown: the change record first, then leadership moves. */
function enterControlledShutdown(
  image: MetadataImage,
  brokerId: number,
  brokerEpoch: bigint,
  defaults?: TopicConfigDefaults,
): MetadataRecord[] {
  const out: MetadataRecord[] = [];
  const reg = image.brokers.get(brokerId);
  if (reg && !reg.inControlledShutdown && mv.isInControlledShutdownStateSupported(image.metadataVersion)) {
    out.push(
      metadataRecord(RecordType.BrokerRegistrationChange, 1, {
        ...defaultBrokerRegistrationChangeRecord(),
        brokerId,
        brokerEpoch,
        inControlledShutdown: 1,
      }),
    );
  }
  out.push(...removeFromIsrs(image, brokerId, defaults));
  return out;
}

/**
 * ReplicationControlManager.processBrokerHeartbeat: checks the epoch (STALE_BROKER_EPOCH), moves
 * the broker to its next state, writes what that takes, and touches its heartbeat state.
 */
export function processBrokerHeartbeat(
  image: MetadataImage,
  manager: BrokerHeartbeatManager,
  req: HeartbeatRequest,
  registerBrokerRecordOffset: number,
  defaults?: TopicConfigDefaults,
  warn?: (message: string) => void,
): { records: MetadataRecord[]; reply: BrokerHeartbeatReply } {
  const { brokerId, brokerEpoch } = req;
  checkBrokerEpoch(image, brokerId, brokerEpoch);
  const states = manager.calculateNextBrokerState(brokerId, req, registerBrokerRecordOffset, () =>
    hasLeaderships(image, brokerId),
  );
  let records: MetadataRecord[] = [];
  if (states.current !== states.next) {
    switch (states.next) {
      case 'FENCED':
      case 'SHUTDOWN_NOW':
        records = fenceBroker(image, brokerId, brokerEpoch, false, defaults);
        break;
      case 'UNFENCED':
        records = unfenceBroker(image, brokerId, brokerEpoch, defaults);
        break;
      case 'CONTROLLED_SHUTDOWN':
        records = enterControlledShutdown(image, brokerId, brokerEpoch, defaults);
        break;
    }
  }
  manager.touch(brokerId, controlState.fenced(states.next), req.currentMetadataOffset);
  if (mv.isDirectoryAssignmentSupported(image.metadataVersion)) {
    records.push(...handleDirectoriesOffline(image, brokerId, brokerEpoch, req.offlineLogDirs ?? [], defaults, warn));
  }
  return {
    records,
    reply: {
      isCaughtUp: req.currentMetadataOffset >= registerBrokerRecordOffset,
      isFenced: controlState.fenced(states.next),
      inControlledShutdown: controlState.inControlledShutdown(states.next),
      shouldShutDown: controlState.shouldShutDown(states.next),
    },
  };
}

/**
 * ReplicationControlManager.maybeFenceOneStaleBroker: removes one expired session; fences the
 * broker if that session is its current registration's. `found` is false when no session expired.
 */
export function maybeFenceOneStaleBroker(
  image: MetadataImage,
  manager: BrokerHeartbeatManager,
  defaults?: TopicConfigDefaults,
): { found: boolean; records: MetadataRecord[]; message?: string } {
  const expired = manager.maybeRemoveExpired();
  if (!expired) return { found: false, records: [] };
  const { id, epoch } = expired;
  const reg = image.brokers.get(id);
  if (!reg) {
    manager.remove(id);
    return {
      found: true,
      records: [],
      message: `Removing heartbeat tracker entry for unknown broker ${id} at epoch ${epoch}.`,
    };
  }
  if (reg.epoch !== epoch) {
    return {
      found: true,
      records: [],
      message: `Removing heartbeat tracker entry for broker ${id} at previous epoch ${epoch}. Current epoch is ${reg.epoch}`,
    };
  }
  const records = fenceBroker(image, id, epoch, false, defaults);
  manager.fence(id);
  return { found: true, records, message: `Fencing broker ${id} at epoch ${epoch} because its session has timed out.` };
}
