// Applying metadata records to an image: a pure reducer with copy-on-write (Kafka's MetadataDelta
// + the replay() methods of the control managers). An ImageBuilder starts from an image, applies
// records in order and builds the next image; the base image is never modified. Maps are copied
// at most once per builder, topics at most once per builder, so a batch creating a topic with
// thousands of partitions costs O(partitions), not O(partitions²).

import type { MetadataRecord } from '../../protocol/metadata-records.js';
import { RecordType } from '../../protocol/metadata-records.js';
import {
  MetadataImage,
  configResourceKey,
  ConfigResourceType,
  type BrokerRegistration,
  type ClientQuotaEntity,
  type ControllerRegistration,
  type ImageProvenance,
  type PartitionImage,
  type TopicImage,
  type VersionRange,
} from './image.js';
import type { MetadataEvent } from './events.js';
import {
  defaultPartitionChangeRecord,
  type PartitionChangeRecord,
  type PartitionRecord,
} from '../../protocol/generated/metadata/index.js';

export class MetadataReplayError extends Error {
  override name = 'MetadataReplayError';
}

/** DirectoryId.MIGRATING: the all-zero uuid, used when no directory is known. */
export const DIRECTORY_MIGRATING = 'AAAAAAAAAAAAAAAAAAAAAA';
/** DirectoryId.UNASSIGNED (uuid 0…01). */
export const DIRECTORY_UNASSIGNED = 'AAAAAAAAAAAAAAAAAAAAAQ';

const NO_LEADER_CHANGE = -2;

interface TopicDraft {
  name: string;
  id: string;
  partitions: Map<number, PartitionImage>;
}

function featuresOf(
  list: readonly { name: string; minSupportedVersion: number; maxSupportedVersion: number }[],
): Map<string, VersionRange> {
  return new Map(list.map((f) => [f.name, { min: f.minSupportedVersion, max: f.maxSupportedVersion }]));
}

function withDirectories(dirs: readonly string[], n: number): readonly string[] {
  return dirs.length === 0 ? new Array<string>(n).fill(DIRECTORY_MIGRATING) : dirs.slice();
}

export function partitionFromRecord(r: PartitionRecord): PartitionImage {
  return Object.freeze({
    topicId: r.topicId,
    partitionId: r.partitionId,
    replicas: r.replicas.slice(),
    isr: r.isr.slice(),
    removingReplicas: r.removingReplicas.slice(),
    addingReplicas: r.addingReplicas.slice(),
    leader: r.leader,
    leaderRecoveryState: r.leaderRecoveryState,
    leaderEpoch: r.leaderEpoch,
    partitionEpoch: r.partitionEpoch,
    directories: withDirectories(r.directories, r.replicas.length),
    eligibleLeaderReplicas: r.eligibleLeaderReplicas?.slice() ?? [],
    lastKnownElr: r.lastKnownElr?.slice() ?? [],
  });
}

/** PartitionRegistration.merge: every change bumps the partition epoch; a Leader field bumps the leader epoch. */
export function mergePartitionChange(p: PartitionImage, r: PartitionChangeRecord): PartitionImage {
  const replicas = r.replicas ?? p.replicas;
  const leaderChanged = r.leader !== NO_LEADER_CHANGE;
  return Object.freeze({
    topicId: p.topicId,
    partitionId: p.partitionId,
    replicas: replicas.slice(),
    isr: (r.isr ?? p.isr).slice(),
    removingReplicas: (r.removingReplicas ?? p.removingReplicas).slice(),
    addingReplicas: (r.addingReplicas ?? p.addingReplicas).slice(),
    leader: leaderChanged ? r.leader : p.leader,
    leaderRecoveryState: r.leaderRecoveryState === -1 ? p.leaderRecoveryState : r.leaderRecoveryState,
    leaderEpoch: leaderChanged ? p.leaderEpoch + 1 : p.leaderEpoch,
    partitionEpoch: p.partitionEpoch + 1,
    directories: withDirectories(
      r.directories ?? (replicas.length === p.directories.length ? p.directories : []),
      replicas.length,
    ),
    eligibleLeaderReplicas: (r.eligibleLeaderReplicas ?? p.eligibleLeaderReplicas).slice(),
    lastKnownElr: (r.lastKnownElr ?? p.lastKnownElr).slice(),
  });
}

export function quotaEntityKey(entries: readonly { entityType: string; entityName: string | null }[]): string {
  return entries
    .map((e) => `${e.entityType}=${e.entityName === null ? '<default>' : e.entityName}`)
    .sort()
    .join(',');
}

/** What a builder touched, to limit the diff to those keys. */
export interface DiffScope {
  topicIds: Set<string>;
  configKeys: Set<string>;
  brokerIds: Set<number>;
  controllerIds: Set<number>;
  features: boolean;
  producerIds: boolean;
}

export class ImageBuilder {
  private features: Map<string, number> | null = null;
  private brokers: Map<number, BrokerRegistration> | null = null;
  private controllers: Map<number, ControllerRegistration> | null = null;
  private topicsById: Map<string, TopicImage> | null = null;
  private topicsByName: Map<string, TopicImage> | null = null;
  private readonly drafts = new Map<string, TopicDraft>();
  private configs: Map<string, ReadonlyMap<string, string>> | null = null;
  private readonly configDrafts = new Map<string, Map<string, string>>();
  private clientQuotas: Map<string, ClientQuotaEntity> | null = null;
  private acls: Map<string, MetadataImage['acls'] extends ReadonlyMap<string, infer V> ? V : never> | null = null;
  private scram: Map<
    string,
    MetadataImage['scramCredentials'] extends ReadonlyMap<string, infer V> ? V : never
  > | null = null;
  private tokens: Map<
    string,
    MetadataImage['delegationTokens'] extends ReadonlyMap<string, infer V> ? V : never
  > | null = null;
  private nextProducerId: bigint;
  private zkMigrationState: number;
  readonly scope: DiffScope = {
    topicIds: new Set(),
    configKeys: new Set(),
    brokerIds: new Set(),
    controllerIds: new Set(),
    features: false,
    producerIds: false,
  };
  private count = 0;

  constructor(readonly base: MetadataImage) {
    this.nextProducerId = base.nextProducerId;
    this.zkMigrationState = base.zkMigrationState;
  }

  /** Number of records applied so far. */
  get recordCount(): number {
    return this.count;
  }

  private topicMaps(): [Map<string, TopicImage>, Map<string, TopicImage>] {
    this.topicsById ??= new Map(this.base.topicsById);
    this.topicsByName ??= new Map(this.base.topicsByName);
    return [this.topicsById, this.topicsByName];
  }

  private draft(topicId: string, what: string): TopicDraft {
    let d = this.drafts.get(topicId);
    if (d) return d;
    const t = (this.topicsById ?? this.base.topicsById).get(topicId);
    if (!t) throw new MetadataReplayError(`${what}: no topic with ID ${topicId} was found`);
    d = { name: t.name, id: t.id, partitions: new Map(t.partitions) };
    this.drafts.set(topicId, d);
    return d;
  }

  private brokerMap(id: number): Map<number, BrokerRegistration> {
    this.scope.brokerIds.add(id);
    return (this.brokers ??= new Map(this.base.brokers));
  }

  private updateBroker(
    id: number,
    epoch: bigint,
    what: string,
    f: (b: BrokerRegistration) => Partial<BrokerRegistration>,
  ): void {
    const m = this.brokerMap(id);
    const b = m.get(id);
    if (!b) throw new MetadataReplayError(`${what}: broker ${id} is not registered`);
    if (b.epoch !== epoch) throw new MetadataReplayError(`${what}: broker ${id} has epoch ${b.epoch}, not ${epoch}`);
    m.set(id, Object.freeze({ ...b, ...f(b) }));
  }

  private configMap(type: number, name: string): Map<string, string> {
    const key = configResourceKey(type, name);
    this.scope.configKeys.add(key);
    let d = this.configDrafts.get(key);
    if (!d) {
      d = new Map((this.configs ?? this.base.configs).get(key) ?? []);
      this.configDrafts.set(key, d);
    }
    return d;
  }

  /** Applies one record. Transaction markers and NoOp records are accepted and ignored here. */
  apply(rec: MetadataRecord): void {
    this.count++;
    switch (rec.type) {
      case RecordType.RegisterBroker: {
        const r = rec.data;
        this.brokerMap(r.brokerId).set(
          r.brokerId,
          Object.freeze({
            id: r.brokerId,
            epoch: r.brokerEpoch,
            incarnationId: r.incarnationId,
            endpoints: r.endPoints.map((e) =>
              Object.freeze({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol }),
            ),
            supportedFeatures: featuresOf(r.features),
            rack: r.rack,
            fenced: r.fenced,
            inControlledShutdown: r.inControlledShutdown,
            isMigratingZkBroker: r.isMigratingZkBroker,
            directories: r.logDirs.slice(),
          }),
        );
        return;
      }
      case RecordType.UnregisterBroker:
        this.brokerMap(rec.data.brokerId).delete(rec.data.brokerId);
        return;
      case RecordType.FenceBroker:
        this.updateBroker(rec.data.id, rec.data.epoch, 'FenceBrokerRecord', () => ({ fenced: true }));
        return;
      case RecordType.UnfenceBroker:
        this.updateBroker(rec.data.id, rec.data.epoch, 'UnfenceBrokerRecord', () => ({ fenced: false }));
        return;
      case RecordType.BrokerRegistrationChange: {
        const r = rec.data;
        this.updateBroker(r.brokerId, r.brokerEpoch, 'BrokerRegistrationChangeRecord', (b) => ({
          fenced: r.fenced === 1 ? true : r.fenced === -1 ? false : b.fenced,
          inControlledShutdown: r.inControlledShutdown === 1 ? true : b.inControlledShutdown,
          directories: r.logDirs.length > 0 ? r.logDirs.slice() : b.directories,
        }));
        return;
      }
      case RecordType.RegisterController: {
        const r = rec.data;
        this.scope.controllerIds.add(r.controllerId);
        (this.controllers ??= new Map(this.base.controllers)).set(
          r.controllerId,
          Object.freeze({
            id: r.controllerId,
            incarnationId: r.incarnationId,
            zkMigrationReady: r.zkMigrationReady,
            endpoints: r.endPoints.map((e) =>
              Object.freeze({ name: e.name, host: e.host, port: e.port, securityProtocol: e.securityProtocol }),
            ),
            supportedFeatures: featuresOf(r.features),
          }),
        );
        return;
      }
      case RecordType.UnregisterController:
        // ClusterDelta.replay(UnregisterControllerRecord): the registration is gone (no check here,
        // as Kafka's image; ClusterControlManager refuses to write it for an unknown id)
        this.scope.controllerIds.add(rec.data.controllerId);
        (this.controllers ??= new Map(this.base.controllers)).delete(rec.data.controllerId);
        return;
      case RecordType.Topic: {
        const [byId, byName] = this.topicMaps();
        const { name, topicId } = rec.data;
        const existing = byName.get(name);
        if (existing) {
          throw new MetadataReplayError(
            existing.id === topicId
              ? `Found duplicate TopicRecord for ${name} with topic ID ${topicId}`
              : `Found duplicate TopicRecord for ${name} with a different ID than before. Previous ID was ${existing.id} and new ID is ${topicId}`,
          );
        }
        if (byId.has(topicId)) throw new MetadataReplayError(`Found duplicate topic ID ${topicId} for ${name}`);
        const t: TopicImage = { name, id: topicId, partitions: new Map() };
        byId.set(topicId, t);
        byName.set(name, t);
        this.drafts.set(topicId, { name, id: topicId, partitions: new Map() });
        this.scope.topicIds.add(topicId);
        return;
      }
      case RecordType.Partition: {
        const d = this.draft(rec.data.topicId, `PartitionRecord ${rec.data.topicId}:${rec.data.partitionId}`);
        d.partitions.set(rec.data.partitionId, partitionFromRecord(rec.data));
        this.scope.topicIds.add(d.id);
        return;
      }
      case RecordType.PartitionChange: {
        const r = rec.data;
        const d = this.draft(r.topicId, `PartitionChangeRecord ${r.topicId}:${r.partitionId}`);
        const p = d.partitions.get(r.partitionId);
        if (!p) throw new MetadataReplayError(`PartitionChangeRecord: unknown partition ${d.name}-${r.partitionId}`);
        d.partitions.set(r.partitionId, mergePartitionChange(p, r));
        this.scope.topicIds.add(d.id);
        return;
      }
      case RecordType.ClearElr: {
        // TopicsDelta.replay(ClearElrRecord): every partition of the topic (of all topics for "")
        // with an ELR or last known ELR loses both, as a PartitionChangeRecord would (partition epoch + 1)
        const name = rec.data.topicName;
        const ids: string[] = [];
        if (name !== '') {
          const t = (this.topicsByName ?? this.base.topicsByName).get(name);
          if (!t)
            throw new MetadataReplayError(`Unable to clear elr for topic with name ${name}: no such topic found.`);
          ids.push(t.id);
        } else ids.push(...(this.topicsById ?? this.base.topicsById).keys());
        for (const id of ids) {
          const d = this.draft(id, 'ClearElrRecord');
          for (const [pid, p] of d.partitions) {
            if (p.eligibleLeaderReplicas.length === 0 && p.lastKnownElr.length === 0) continue;
            d.partitions.set(
              pid,
              mergePartitionChange(p, {
                ...defaultPartitionChangeRecord(),
                topicId: p.topicId,
                partitionId: pid,
                eligibleLeaderReplicas: [],
                lastKnownElr: [],
              }),
            );
            this.scope.topicIds.add(id);
          }
        }
        return;
      }
      case RecordType.RemoveTopic: {
        const [byId, byName] = this.topicMaps();
        const t = byId.get(rec.data.topicId);
        if (!t) throw new MetadataReplayError(`Can't find topic with ID ${rec.data.topicId} to remove.`);
        byId.delete(t.id);
        byName.delete(t.name);
        this.drafts.delete(t.id);
        this.scope.topicIds.add(t.id);
        // Deleting a topic deletes its configurations (ConfigurationControlManager.deleteTopicConfigs).
        const key = configResourceKey(ConfigResourceType.Topic, t.name);
        this.configDrafts.set(key, new Map());
        this.scope.configKeys.add(key);
        return;
      }
      case RecordType.Config: {
        const r = rec.data;
        const m = this.configMap(r.resourceType, r.resourceName);
        if (r.value === null) m.delete(r.name);
        else m.set(r.name, r.value);
        return;
      }
      case RecordType.FeatureLevel: {
        const f = (this.features ??= new Map(this.base.features));
        if (rec.data.featureLevel === 0) f.delete(rec.data.name);
        else f.set(rec.data.name, rec.data.featureLevel);
        this.scope.features = true;
        return;
      }
      case RecordType.ZkMigrationState:
        this.zkMigrationState = rec.data.zkMigrationState;
        return;
      case RecordType.ProducerIds: {
        const r = rec.data;
        if (this.nextProducerId >= 0n && r.nextProducerId <= this.nextProducerId) {
          throw new MetadataReplayError(
            `Next Producer ID from replayed record (${r.nextProducerId}) is not greater than current next Producer ID (${this.nextProducerId})`,
          );
        }
        this.nextProducerId = r.nextProducerId;
        this.scope.producerIds = true;
        return;
      }
      case RecordType.ClientQuota: {
        const r = rec.data;
        const key = quotaEntityKey(r.entity);
        const m = (this.clientQuotas ??= new Map(this.base.clientQuotas));
        const quotas = new Map(m.get(key)?.quotas ?? []);
        if (r.remove) quotas.delete(r.key);
        else quotas.set(r.key, r.value);
        if (quotas.size === 0) m.delete(key);
        else m.set(key, Object.freeze({ entries: r.entity.map((e) => ({ ...e })), quotas }));
        return;
      }
      case RecordType.AccessControlEntry:
        (this.acls ??= new Map(this.base.acls)).set(rec.data.id, rec.data);
        return;
      case RecordType.RemoveAccessControlEntry:
        (this.acls ??= new Map(this.base.acls)).delete(rec.data.id);
        return;
      case RecordType.UserScramCredential:
        (this.scram ??= new Map(this.base.scramCredentials)).set(`${rec.data.mechanism}:${rec.data.name}`, rec.data);
        return;
      case RecordType.RemoveUserScramCredential:
        (this.scram ??= new Map(this.base.scramCredentials)).delete(`${rec.data.mechanism}:${rec.data.name}`);
        return;
      case RecordType.DelegationToken:
        (this.tokens ??= new Map(this.base.delegationTokens)).set(rec.data.tokenId, rec.data);
        return;
      case RecordType.RemoveDelegationToken:
        (this.tokens ??= new Map(this.base.delegationTokens)).delete(rec.data.tokenId);
        return;
      case RecordType.NoOp:
      case RecordType.BeginTransaction:
      case RecordType.EndTransaction:
      case RecordType.AbortTransaction:
        return;
    }
  }

  /** The resulting image (the builder must not be used afterwards). */
  build(provenance: ImageProvenance, context?: { clusterId?: string; controllerId?: number }): MetadataImage {
    let topicsById: ReadonlyMap<string, TopicImage> = this.base.topicsById;
    let topicsByName: ReadonlyMap<string, TopicImage> = this.base.topicsByName;
    if (this.topicsById || this.drafts.size > 0) {
      const [byId, byName] = this.topicMaps();
      for (const d of this.drafts.values()) {
        const t: TopicImage = Object.freeze({ name: d.name, id: d.id, partitions: d.partitions });
        byId.set(d.id, t);
        byName.set(d.name, t);
      }
      topicsById = byId;
      topicsByName = byName;
    }
    let configs: ReadonlyMap<string, ReadonlyMap<string, string>> = this.configs ?? this.base.configs;
    if (this.configDrafts.size > 0) {
      const c = new Map(configs);
      for (const [k, m] of this.configDrafts) {
        if (m.size === 0) c.delete(k);
        else c.set(k, m);
      }
      configs = c;
    }
    return new MetadataImage({
      provenance,
      clusterId: context?.clusterId ?? this.base.clusterId,
      controllerId: context?.controllerId ?? this.base.controllerId,
      features: this.features ?? this.base.features,
      zkMigrationState: this.zkMigrationState,
      brokers: this.brokers ?? this.base.brokers,
      controllers: this.controllers ?? this.base.controllers,
      topicsByName,
      topicsById,
      configs,
      nextProducerId: this.nextProducerId,
      clientQuotas: this.clientQuotas ?? this.base.clientQuotas,
      acls: this.acls ?? this.base.acls,
      scramCredentials: this.scram ?? this.base.scramCredentials,
      delegationTokens: this.tokens ?? this.base.delegationTokens,
    });
  }
}

function sameMap<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!b.has(k) || b.get(k) !== v) return false;
  return true;
}

function union<T>(a: Iterable<T>, b: Iterable<T>): Set<T> {
  const s = new Set(a);
  for (const x of b) s.add(x);
  return s;
}

/**
 * The events that turn `prev` into `next`. With a scope, only the touched keys are compared
 * (commits); without, everything is (snapshot loads, new publishers).
 */
export function diffImages(prev: MetadataImage, next: MetadataImage, scope?: DiffScope): MetadataEvent[] {
  const deleted: MetadataEvent[] = [];
  const created: MetadataEvent[] = [];
  const changed: MetadataEvent[] = [];
  const touchedTopicNames = new Set<string>();
  const topicIds = scope ? scope.topicIds : union(prev.topicsById.keys(), next.topicsById.keys());
  for (const id of topicIds) {
    const p = prev.topicsById.get(id);
    const n = next.topicsById.get(id);
    if (p === n) continue;
    if (p && !n) {
      deleted.push({ type: 'topicDeleted', topic: p });
      touchedTopicNames.add(p.name);
    } else if (!p && n) {
      created.push({ type: 'topicCreated', topic: n });
      const parts = [...n.partitions.values()].sort((a, b) => a.partitionId - b.partitionId);
      if (parts.length > 0) created.push({ type: 'partitionsCreated', topic: n, partitions: parts });
      touchedTopicNames.add(n.name);
    } else if (p && n) {
      const added: PartitionImage[] = [];
      const mod: { previous: PartitionImage; current: PartitionImage }[] = [];
      for (const [pid, cur] of n.partitions) {
        const old = p.partitions.get(pid);
        if (!old) added.push(cur);
        else if (old !== cur) mod.push({ previous: old, current: cur });
      }
      added.sort((a, b) => a.partitionId - b.partitionId);
      mod.sort((a, b) => a.current.partitionId - b.current.partitionId);
      if (added.length > 0) changed.push({ type: 'partitionsCreated', topic: n, partitions: added });
      if (mod.length > 0) changed.push({ type: 'partitionsChanged', topic: n, partitions: mod });
    }
  }
  const events: MetadataEvent[] = [...deleted, ...created, ...changed];

  const configKeys = scope ? scope.configKeys : union(prev.configs.keys(), next.configs.keys());
  for (const key of configKeys) {
    const sep = key.indexOf(':');
    const type = Number(key.slice(0, sep));
    const name = key.slice(sep + 1);
    // Configs of topics created or deleted here travel with topicCreated/topicDeleted.
    if (type === ConfigResourceType.Topic && touchedTopicNames.has(name)) continue;
    const a = prev.configs.get(key) ?? new Map<string, string>();
    const b = next.configs.get(key) ?? new Map<string, string>();
    const changes = new Map<string, string | null>();
    for (const [k, v] of b) if (a.get(k) !== v) changes.set(k, v);
    for (const k of a.keys()) if (!b.has(k)) changes.set(k, null);
    // A BROKER ConfigRecord that sets a value again still counts (DynamicConfigPublisher reloads a
    // re-set key store file): its event may have no changes.
    if (changes.size > 0 || (scope && type === ConfigResourceType.Broker))
      events.push({ type: 'configChanged', resourceType: type, resourceName: name, changes });
  }

  const brokerIds = scope ? scope.brokerIds : union(prev.brokers.keys(), next.brokers.keys());
  for (const id of brokerIds) {
    const p = prev.brokers.get(id) ?? null;
    const n = next.brokers.get(id) ?? null;
    if (p !== n) events.push({ type: 'brokerChanged', brokerId: id, previous: p, current: n });
  }
  const controllerIds = scope ? scope.controllerIds : union(prev.controllers.keys(), next.controllers.keys());
  for (const id of controllerIds) {
    const p = prev.controllers.get(id) ?? null;
    const n = next.controllers.get(id) ?? null;
    if (p !== n) events.push({ type: 'controllerRegistrationChanged', controllerId: id, current: n });
  }
  if ((!scope || scope.features) && !sameMap(prev.features, next.features)) {
    events.push({ type: 'featuresChanged', features: next.features });
  }
  if ((!scope || scope.producerIds) && prev.nextProducerId !== next.nextProducerId) {
    events.push({ type: 'producerIdsChanged', nextProducerId: next.nextProducerId });
  }
  return events;
}
