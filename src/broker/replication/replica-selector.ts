// Fetch from the closest replica (KIP-392): Kafka's org.apache.kafka.common.replica ReplicaSelector,
// RackAwareReplicaSelector, ClientMetadata, ReplicaView (with its "most caught up" comparator) and
// PartitionView, and ReplicaManager.findPreferredReadReplica. Only the leader picks: the candidates
// are the in-sync followers whose fetch state covers the fetch offset, plus the leader itself; a
// choice of the leader (or of a replica with no endpoint on the client's listener) is no choice.
// `replica.selector.class` names the selector; tkafka implements the rack-aware one only (the
// configuration refuses any other class at start-up, src/config/validate.ts).

import { RACK_AWARE_REPLICA_SELECTOR } from '../../config/definitions.js';

/** What a v11+ Fetch says about its client (Kafka's ClientMetadata). */
export interface ClientMetadata {
  rackId: string;
  clientId: string;
  clientAddress: string;
  listenerName: string;
}

/** A replica's endpoint on the client's listener (Kafka's Node). */
export interface ReplicaNode {
  id: number;
  host: string;
  port: number;
  rack: string | null;
}

/** Kafka's ReplicaView: `endpoint` null is Node.noNode() (no endpoint on the listener, fenced, gone). */
export interface ReplicaView {
  endpoint: ReplicaNode | null;
  logEndOffset: number;
  timeSinceLastCaughtUpMs: number;
}

/** Kafka's PartitionView. */
export interface PartitionView {
  replicas: readonly ReplicaView[];
  leader: ReplicaView;
}

export interface ReplicaSelector {
  select(topic: string, partition: number, client: ClientMetadata, view: PartitionView): ReplicaView | undefined;
}

/** ReplicaView.comparator: the larger log end offset, then the shorter time since caught up. */
export function compareReplicaViews(a: ReplicaView, b: ReplicaView): number {
  if (a.logEndOffset !== b.logEndOffset) return a.logEndOffset < b.logEndOffset ? -1 : 1;
  if (a.timeSinceLastCaughtUpMs !== b.timeSinceLastCaughtUpMs)
    return a.timeSinceLastCaughtUpMs > b.timeSinceLastCaughtUpMs ? -1 : 1;
  return 0;
}

/**
 * RackAwareReplicaSelector: the leader when the client names no rack, when no replica is in its
 * rack, or when the leader is; otherwise the most caught-up replica of the client's rack.
 */
export class RackAwareReplicaSelector implements ReplicaSelector {
  select(_topic: string, _partition: number, client: ClientMetadata, view: PartitionView): ReplicaView {
    if (!client.rackId) return view.leader;
    const sameRack = view.replicas.filter((r) => r.endpoint !== null && r.endpoint.rack === client.rackId);
    if (sameRack.length === 0 || sameRack.includes(view.leader)) return view.leader;
    // Stream.max keeps the first of equals
    return sameRack.reduce((best, r) => (compareReplicaViews(r, best) > 0 ? r : best));
  }
}

/** ReplicaManager.createReplicaSelector: null (leader only) unless `replica.selector.class` is set. */
export function createReplicaSelector(className: string | null | undefined): ReplicaSelector | undefined {
  if (className === null || className === undefined) return undefined;
  if (className === RACK_AWARE_REPLICA_SELECTOR) return new RackAwareReplicaSelector();
  throw new Error(
    `replica.selector.class ${className} is not supported by tkafka (only ${RACK_AWARE_REPLICA_SELECTOR})`,
  );
}

/** The leader-side state the choice reads (a Partition). */
export interface PreferredReplicaSource {
  readonly isLeader: boolean;
  readonly localBrokerId: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly logEndOffset: number;
  replicaState(
    replicaId: number,
  ): { logEndOffset: number; logStartOffset: number; lastCaughtUpTimeMs: number } | undefined;
}

/** What the cluster metadata tells of a broker (a MetadataImage satisfies it). */
export interface ReplicaEndpointSource {
  broker(id: number): { rack: string | null; fenced: boolean } | undefined;
  endpoint(brokerId: number, listenerName: string): { host: string; port: number } | undefined;
}

/** KRaftMetadataCache.getPartitionReplicaEndpoints: unfenced replicas with an endpoint on the listener. */
export function replicaEndpoints(
  image: ReplicaEndpointSource | undefined,
  replicas: readonly number[],
  listenerName: string,
): Map<number, ReplicaNode> {
  const out = new Map<number, ReplicaNode>();
  if (!image) return out;
  for (const id of replicas) {
    const b = image.broker(id);
    if (!b || b.fenced) continue;
    const ep = image.endpoint(id, listenerName);
    if (ep) out.set(id, { id, host: ep.host, port: ep.port, rack: b.rack });
  }
  return out;
}

/**
 * ReplicaManager.findPreferredReadReplica: on the leader, for a consumer, the replica the selector
 * prefers when it is not the leader; undefined otherwise (follower fetches, no selector, a follower
 * of the partition, the leader chosen). A follower is a candidate while in the ISR with
 * logStartOffset <= fetchOffset <= logEndOffset as its last fetch told.
 */
export function findPreferredReadReplica(
  selector: ReplicaSelector | undefined,
  topic: string,
  p: PreferredReplicaSource & { readonly index: number },
  client: ClientMetadata,
  replicaId: number,
  fetchOffset: number,
  nowMs: number,
  endpoints: ReadonlyMap<number, ReplicaNode>,
): number | undefined {
  if (!p.isLeader || replicaId >= 0 || !selector) return undefined;
  const views: ReplicaView[] = [];
  for (const id of p.replicas) {
    if (id === p.localBrokerId) continue;
    const s = p.replicaState(id);
    if (!s || !p.isr.includes(id) || s.logEndOffset < fetchOffset || s.logStartOffset > fetchOffset) continue;
    views.push({
      endpoint: endpoints.get(id) ?? null,
      logEndOffset: s.logEndOffset,
      timeSinceLastCaughtUpMs: nowMs - s.lastCaughtUpTimeMs,
    });
  }
  const leader: ReplicaView = {
    endpoint: endpoints.get(p.localBrokerId) ?? null,
    logEndOffset: p.logEndOffset,
    timeSinceLastCaughtUpMs: 0,
  };
  views.push(leader);
  const selected = selector.select(topic, p.index, client, { replicas: views, leader });
  if (!selected || selected === leader || selected.endpoint === null) return undefined;
  return selected.endpoint.id;
}
