// Cluster membership and other controller duties: activation records, broker/controller
// registration, fencing/unfencing with the resulting leader elections, producer id blocks
// (Kafka's ActivationRecordsGenerator, ClusterControlManager, ReplicationControlManager's
// fence/unfence paths and ProducerIdControlManager).

import {
  defaultAbortTransactionRecord,
  defaultBeginTransactionRecord,
  defaultBrokerRegistrationChangeRecord,
  defaultEndTransactionRecord,
  defaultFenceBrokerRecord,
  defaultProducerIdsRecord,
  defaultUnfenceBrokerRecord,
  defaultUnregisterBrokerRecord,
  defaultUnregisterControllerRecord,
  defaultZkMigrationStateRecord,
} from '../../protocol/generated/metadata/index.js';
import type { BootstrapMetadata } from '../metadata/bootstrap.js';
import { KRAFT_VERSION_FEATURE, METADATA_VERSION_FEATURE, mv } from '../metadata/features.js';
import type {
  BrokerRegistration,
  ControllerRegistration,
  Endpoint,
  MetadataImage,
  VersionRange,
} from '../metadata/image.js';
import { brokerRegistrationRecord, controllerRegistrationRecord } from '../metadata/image-writer.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { ErrorCode, fail } from './errors.js';
import {
  generateLeaderAndIsrUpdates,
  isElrEnabled,
  withBrokerInElr,
  withBrokerInIsr,
  withNoLeader,
  type TopicConfigDefaults,
} from './leader-and-isr.js';

/** DirectoryId.reserved: most significant bits 0 and (signed) least significant bits below 100 (UNASSIGNED, LOST, MIGRATING ...). */
function isReservedDirectoryId(id: string): boolean {
  const b = Buffer.from(id, 'base64url');
  return b.length === 16 && b.readBigInt64BE(0) === 0n && b.readBigInt64BE(8) < 100n;
}

/** ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE. */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

/** Records for the first activation on an empty log (ActivationRecordsGenerator.recordsForEmptyLog). */
export function recordsForEmptyLog(bootstrap: BootstrapMetadata): MetadataRecord[] {
  const level = bootstrap.metadataVersion;
  const out: MetadataRecord[] = [];
  const txn = mv.isMetadataTransactionSupported(level);
  if (txn)
    out.push(
      metadataRecord(RecordType.BeginTransaction, 0, { ...defaultBeginTransactionRecord(), name: 'Bootstrap records' }),
    );
  out.push(...bootstrap.records);
  if (mv.isMigrationSupported(level))
    out.push(
      metadataRecord(RecordType.ZkMigrationState, 0, { ...defaultZkMigrationStateRecord(), zkMigrationState: 0 }),
    );
  if (txn) out.push(metadataRecord(RecordType.EndTransaction, 0, defaultEndTransactionRecord()));
  return out;
}

/** Aborts a metadata transaction left open by a previous leader (recordsForNonEmptyLog). */
export function abortTransactionRecord(): MetadataRecord {
  return metadataRecord(RecordType.AbortTransaction, 0, {
    ...defaultAbortTransactionRecord(),
    reason: 'Controller failover',
  });
}

export interface BrokerRegistrationRequest {
  readonly brokerId: number;
  /** Checked against this cluster's id when given. */
  readonly clusterId?: string;
  /** Random per process start. */
  readonly incarnationId: string;
  readonly listeners: readonly Endpoint[];
  readonly features: ReadonlyMap<string, VersionRange>;
  readonly rack: string | null;
  readonly isMigratingZkBroker?: boolean;
  /** Log directory ids. */
  readonly logDirs: readonly string[];
  /** BrokerRegistrationRequest.PreviousBrokerEpoch (v3+; -1 when unknown). */
  readonly previousBrokerEpoch?: bigint;
  /** A v3+ request: its PreviousBrokerEpoch tells a clean shutdown from an unclean one (KIP-966). */
  readonly cleanShutdownDetectionEnabled?: boolean;
}

export interface RegisterBrokerOptions {
  /** BrokerHeartbeatManager.hasValidSession: a live session of another incarnation is DUPLICATE_BROKER_REGISTRATION. */
  readonly hasValidSession?: (brokerId: number, brokerEpoch: bigint) => boolean;
  /** The raft client's kraft.version, finalized alongside the image's features (QuorumController.registerBroker). */
  readonly kraftVersion?: number;
  /**
   * A registration received over the wire (BrokerRegistration RPC): Kafka's full validation (log dirs required,
   * 'metadata.version' required among the features) and, for a new incarnation, the records that take the
   * previous incarnation out of every ISR (brokerShutdownHandler). The in-process broker of a combined node
   * registers without them, as it always has.
   */
  readonly remote?: boolean;
  /** Static topic config defaults for the elections a re-registration triggers. */
  readonly defaults?: TopicConfigDefaults;
}

/** ClusterControlManager.processRegistrationFeature. */
function checkRegistrationFeature(finalized: ReadonlyMap<string, number>, name: string, range: VersionRange): void {
  const level = finalized.get(name) ?? 0;
  if (level < range.min || level > range.max) {
    fail(
      ErrorCode.UNSUPPORTED_VERSION,
      `Unable to register because the broker does not support finalized version ${level} of ${name}. The broker wants a version between ${range.min} and ${range.max}, inclusive.`,
    );
  }
}

/**
 * ClusterControlManager.registerBroker: a new incarnation gets broker epoch = the offset at which
 * this write starts and is registered fenced; a retry of the same incarnation keeps its epoch
 * and state. Throws KafkaError on cluster id / feature / directory mismatches, and
 * DUPLICATE_BROKER_REGISTRATION while another incarnation of the id still has a live session.
 */
export function registerBroker(
  image: MetadataImage,
  req: BrokerRegistrationRequest,
  nextOffset: number,
  options: RegisterBrokerOptions = {},
): { records: MetadataRecord[]; brokerEpoch: bigint } {
  if (req.clusterId !== undefined && req.clusterId !== image.clusterId) {
    fail(
      ErrorCode.INCONSISTENT_CLUSTER_ID,
      `Expected cluster ID ${image.clusterId}, but got cluster ID ${req.clusterId}`,
    );
  }
  const existing = image.brokers.get(req.brokerId);
  if (
    existing !== undefined &&
    existing.incarnationId !== req.incarnationId &&
    options.hasValidSession?.(req.brokerId, existing.epoch)
  ) {
    fail(
      ErrorCode.DUPLICATE_BROKER_REGISTRATION,
      "Another broker is registered with that broker id. If the broker was recently restarted this should self-resolve once the heartbeat manager expires the broker's session.",
    );
  }
  if (req.isMigratingZkBroker)
    fail(ErrorCode.BROKER_ID_NOT_REGISTERED, 'Controller does not support registering ZK brokers.');
  if (mv.isDirectoryAssignmentSupported(image.metadataVersion)) {
    if (options.remote && req.logDirs.length === 0)
      fail(ErrorCode.INVALID_REGISTRATION, 'No directories specified in request');
    if (req.logDirs.some(isReservedDirectoryId))
      fail(ErrorCode.INVALID_REGISTRATION, 'Reserved directory ID in request');
    if (new Set(req.logDirs).size !== req.logDirs.length)
      fail(ErrorCode.INVALID_REGISTRATION, 'Duplicate directory ID in request');
    for (const d of req.logDirs) {
      const owner = [...image.brokers.values()].find((b) => b.id !== req.brokerId && b.directories.includes(d));
      if (owner !== undefined)
        fail(ErrorCode.INVALID_REGISTRATION, `Broker ${owner.id} is already registered with directory ${d}`);
    }
  }
  const finalized = new Map(image.features);
  if (options.kraftVersion !== undefined) finalized.set(KRAFT_VERSION_FEATURE, options.kraftVersion);
  if (!finalized.has(METADATA_VERSION_FEATURE)) finalized.set(METADATA_VERSION_FEATURE, image.metadataVersion);
  for (const [name, range] of req.features) checkRegistrationFeature(finalized, name, range);
  if (!req.features.has(METADATA_VERSION_FEATURE)) {
    if (options.remote) fail(ErrorCode.INVALID_REGISTRATION, "Request features do not contain 'metadata.version'");
    // the in-process registration has always been checked against 1..1 when it names no metadata.version
    checkRegistrationFeature(finalized, METADATA_VERSION_FEATURE, { min: 1, max: 1 });
  }
  for (const [name, level] of finalized) {
    if (level !== 0 && !req.features.has(name) && name !== METADATA_VERSION_FEATURE)
      checkRegistrationFeature(finalized, name, { min: 0, max: 0 });
  }
  const sameIncarnation = existing !== undefined && existing.incarnationId === req.incarnationId;
  const reg: BrokerRegistration = {
    id: req.brokerId,
    epoch: sameIncarnation ? existing.epoch : BigInt(nextOffset),
    incarnationId: req.incarnationId,
    endpoints: req.listeners.slice(),
    supportedFeatures: req.features,
    rack: req.rack,
    fenced: sameIncarnation ? existing.fenced : true,
    inControlledShutdown: sameIncarnation ? existing.inControlledShutdown : false,
    isMigratingZkBroker: req.isMigratingZkBroker ?? false,
    directories: req.logDirs.slice(),
  };
  const records: MetadataRecord[] = [];
  if (options.remote && !sameIncarnation) {
    // ClusterControlManager.registerBroker → brokerShutdownHandler.addRecordsForShutdown
    const isCleanShutdown =
      (req.cleanShutdownDetectionEnabled ?? false) && (existing?.epoch ?? -2n) === (req.previousBrokerEpoch ?? -1n);
    records.push(...brokerShutdownRecords(image, req.brokerId, isCleanShutdown, options.defaults));
  }
  records.push(brokerRegistrationRecord(reg, image.metadataVersion));
  return { records, brokerEpoch: reg.epoch };
}

export function registerController(reg: ControllerRegistration): MetadataRecord {
  return controllerRegistrationRecord(reg);
}

/**
 * UnregisterController (QuorumController.unregisterController → ClusterControlManager.unregisterController,
 * KIP-1201): an UnregisterControllerRecord removes a controller's registration. INVALID_REQUEST for the
 * active controller itself, UNSUPPORTED_VERSION below metadata.version 4.4-IV2,
 * CONTROLLER_ID_NOT_REGISTERED when the id has no registration — with Kafka's messages.
 */
export function unregisterController(image: MetadataImage, activeId: number, controllerId: number): MetadataRecord[] {
  if (controllerId === activeId) {
    fail(ErrorCode.INVALID_REQUEST, 'Controller cannot unregister itself while it is active.');
  }
  if (!mv.isControllerUnregistrationSupported(image.metadataVersion)) {
    fail(ErrorCode.UNSUPPORTED_VERSION, 'The current MetadataVersion is too old to support controller unregistration.');
  }
  if (!image.controllers.has(controllerId)) {
    fail(ErrorCode.CONTROLLER_ID_NOT_REGISTERED, `Controller ID ${controllerId} is not currently registered.`);
  }
  return [metadataRecord(RecordType.UnregisterController, 0, { ...defaultUnregisterControllerRecord(), controllerId })];
}

export function checkBrokerEpoch(image: MetadataImage, brokerId: number, brokerEpoch: bigint): BrokerRegistration {
  const b = image.brokers.get(brokerId);
  if (!b) fail(ErrorCode.STALE_BROKER_EPOCH, `No broker registration found for broker ${brokerId}`);
  if (b.epoch !== brokerEpoch)
    fail(ErrorCode.STALE_BROKER_EPOCH, `Expected broker epoch ${b.epoch}, but got broker epoch ${brokerEpoch}`);
  return b;
}

/**
 * Unfencing (BrokerRegistrationChangeRecord fenced=-1, or UnfenceBrokerRecord before 3.3-IV2), then
 * elections for the leaderless partitions it can lead (handleBrokerUnfenced).
 */
export function unfenceBroker(
  image: MetadataImage,
  brokerId: number,
  brokerEpoch: bigint,
  defaults?: TopicConfigDefaults,
): MetadataRecord[] {
  checkBrokerEpoch(image, brokerId, brokerEpoch);
  const out: MetadataRecord[] = [];
  if (mv.isBrokerRegistrationChangeRecordSupported(image.metadataVersion)) {
    out.push(
      metadataRecord(RecordType.BrokerRegistrationChange, 0, {
        ...defaultBrokerRegistrationChangeRecord(),
        brokerId,
        brokerEpoch,
        fenced: -1,
      }),
    );
  } else {
    out.push(
      metadataRecord(RecordType.UnfenceBroker, 0, {
        ...defaultUnfenceBrokerRecord(),
        id: brokerId,
        epoch: brokerEpoch,
      }),
    );
  }
  out.push(...generateLeaderAndIsrUpdates({ image, defaults }, -1, brokerId, -1, withNoLeader));
  return out;
}

/**
 * ReplicationControlManager.generateLeaderAndIsrUpdates for a broker going away (fenced, in
 * controlled shutdown, unregistered, or re-registered after a clean shutdown): the
 * PartitionChangeBuilder takes it out of every ISR it is in and elects another leader where it
 * led. Without ELR an ISR never becomes empty (its last member stays and the partition becomes
 * leaderless); with ELR the ISR may empty and the member moves to the ELR.
 */
export function removeFromIsrs(
  image: MetadataImage,
  brokerId: number,
  defaults?: TopicConfigDefaults,
): MetadataRecord[] {
  return generateLeaderAndIsrUpdates({ image, defaults }, brokerId, -1, -1, withBrokerInIsr(brokerId));
}

/**
 * ReplicationControlManager.handleBrokerShutdown for a new incarnation of a registered broker:
 * a clean shutdown (its previous broker epoch matches the registration) leaves every ISR as a
 * fenced broker does; an unclean one with ELR enabled also leaves every ELR (KIP-966: its log may
 * have lost acknowledged records).
 */
export function brokerShutdownRecords(
  image: MetadataImage,
  brokerId: number,
  isCleanShutdown: boolean,
  defaults?: TopicConfigDefaults,
): MetadataRecord[] {
  const s = { image, defaults };
  if (isElrEnabled(image) && !isCleanShutdown) {
    return [
      ...generateLeaderAndIsrUpdates(s, -1, -1, brokerId, withBrokerInIsr(brokerId)),
      ...generateLeaderAndIsrUpdates(s, -1, -1, brokerId, withBrokerInElr(brokerId)),
    ];
  }
  return generateLeaderAndIsrUpdates(s, brokerId, -1, -1, withBrokerInIsr(brokerId));
}

/**
 * UnregisterBroker (QuorumController.unregisterBroker, ReplicationControlManager.handleBrokerUnregistered):
 * the broker leaves every ISR as when fenced, then every ELR, then an UnregisterBrokerRecord with its epoch removes
 * the registration. BROKER_ID_NOT_REGISTERED when there is none.
 */
export function unregisterBroker(
  image: MetadataImage,
  brokerId: number,
  defaults?: TopicConfigDefaults,
): MetadataRecord[] {
  const b = image.brokers.get(brokerId);
  if (!b) fail(ErrorCode.BROKER_ID_NOT_REGISTERED, `Broker ID ${brokerId} is not currently registered`);
  const s = { image, defaults };
  return [
    ...generateLeaderAndIsrUpdates(s, brokerId, -1, -1, withBrokerInIsr(brokerId)),
    ...generateLeaderAndIsrUpdates(s, brokerId, -1, -1, withBrokerInElr(brokerId)),
    metadataRecord(RecordType.UnregisterBroker, 0, {
      ...defaultUnregisterBrokerRecord(),
      brokerId,
      brokerEpoch: b.epoch,
    }),
  ];
}

/**
 * Fencing or controlled shutdown of a broker (handleBrokerFenced): remove it from every ISR and
 * move its leaderships (removeFromIsrs), then mark it fenced (or in controlled shutdown).
 */
export function fenceBroker(
  image: MetadataImage,
  brokerId: number,
  brokerEpoch: bigint,
  controlledShutdown: boolean,
  defaults?: TopicConfigDefaults,
): MetadataRecord[] {
  checkBrokerEpoch(image, brokerId, brokerEpoch);
  const out = removeFromIsrs(image, brokerId, defaults);
  if (controlledShutdown && mv.isInControlledShutdownStateSupported(image.metadataVersion)) {
    out.push(
      metadataRecord(RecordType.BrokerRegistrationChange, 1, {
        ...defaultBrokerRegistrationChangeRecord(),
        brokerId,
        brokerEpoch,
        inControlledShutdown: 1,
      }),
    );
  } else if (mv.isBrokerRegistrationChangeRecordSupported(image.metadataVersion)) {
    out.push(
      metadataRecord(RecordType.BrokerRegistrationChange, 0, {
        ...defaultBrokerRegistrationChangeRecord(),
        brokerId,
        brokerEpoch,
        fenced: 1,
      }),
    );
  } else {
    out.push(
      metadataRecord(RecordType.FenceBroker, 0, { ...defaultFenceBrokerRecord(), id: brokerId, epoch: brokerEpoch }),
    );
  }
  return out;
}

export interface ProducerIdsBlock {
  readonly assignedBrokerId: number;
  readonly firstProducerId: bigint;
  readonly size: number;
}

/** ProducerIdControlManager.generateNextProducerId. */
export function allocateProducerIds(
  image: MetadataImage,
  brokerId: number,
  brokerEpoch: bigint,
): { records: MetadataRecord[]; block: ProducerIdsBlock } {
  checkBrokerEpoch(image, brokerId, brokerEpoch);
  const first = image.nextProducerId < 0n ? 0n : image.nextProducerId;
  if (first > 0x7fffffffffffffffn - BigInt(PRODUCER_ID_BLOCK_SIZE)) {
    fail(
      ErrorCode.UNKNOWN_SERVER_ERROR,
      "Exhausted all producerIds as the next block's end producerId has exceeded the int64 type limit",
    );
  }
  const records = [
    metadataRecord(RecordType.ProducerIds, 0, {
      ...defaultProducerIdsRecord(),
      brokerId,
      brokerEpoch,
      nextProducerId: first + BigInt(PRODUCER_ID_BLOCK_SIZE),
    }),
  ];
  return { records, block: { assignedBrokerId: brokerId, firstProducerId: first, size: PRODUCER_ID_BLOCK_SIZE } };
}
