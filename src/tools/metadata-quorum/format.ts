// The text of `describe --status` and `describe --replication` exactly as MetadataQuorumCommand
// prints it (labels padded to column 25; ToolsUtils.prettyPrintTable: every cell padded and
// followed by a TAB), and tkafka's `--output json` form of the same facts.
import { type Endpoint, type QuorumInfo, type ReplicaState } from './quorum.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

/** A failure MetadataQuorumCommand reports with its message (and exit 1). */
export class QuorumCommandError extends Error {}

/** RaftVoterEndpoint.toString: `NAME://host:port`, IPv6 hosts bracketed. */
export function endpointText(e: Endpoint): string {
  return `${e.name}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
}

function leaderOf(q: QuorumInfo): ReplicaState {
  const leader = q.voters.find((v) => v.replicaId === q.leaderId);
  if (!leader) throw new QuorumCommandError('java.util.NoSuchElementException: No value present');
  return leader;
}

export interface StatusFacts {
  clusterId: string;
  leaderId: number;
  leaderEpoch: number;
  highWatermark: bigint;
  maxFollowerLag: bigint;
  maxFollowerLagTimeMs: bigint;
  voters: { id: number; directoryId: string | null; endpoints: string[] }[];
  observers: { id: number; directoryId: string | null; endpoints: string[] }[];
}

/** handleDescribeStatus's computations. */
export function statusFacts(clusterId: string, q: QuorumInfo): StatusFacts {
  const leader = leaderOf(q);
  let lagging = q.voters[0]!;
  for (const v of q.voters) if (v.logEndOffset < lagging.logEndOffset) lagging = v;
  let lagTime: bigint;
  if (leader === lagging) lagTime = 0n;
  else if (leader.lastCaughtUpTimestamp !== null && lagging.lastCaughtUpTimestamp !== null) {
    lagTime = leader.lastCaughtUpTimestamp - lagging.lastCaughtUpTimestamp;
  } else lagTime = -1n;
  const node = (r: ReplicaState): StatusFacts['voters'][number] => ({
    id: r.replicaId,
    directoryId: r.replicaDirectoryId === ZERO_UUID ? null : r.replicaDirectoryId,
    endpoints: (q.nodes.get(r.replicaId) ?? []).map(endpointText),
  });
  return {
    clusterId,
    leaderId: q.leaderId,
    leaderEpoch: q.leaderEpoch,
    highWatermark: q.highWatermark,
    maxFollowerLag: leader.logEndOffset - lagging.logEndOffset,
    maxFollowerLagTimeMs: lagTime,
    voters: q.voters.map(node),
    observers: q.observers.map(node),
  };
}

function nodeText(n: StatusFacts['voters'][number]): string {
  // MetadataQuorumCommand.Node.toString (4.4): the directory id is left out when it is the zero Uuid
  let s = `{"id": ${n.id}`;
  if (n.directoryId !== null) s += `, "directoryId": "${n.directoryId}"`;
  if (n.endpoints.length > 0) s += `, "endpoints": [${n.endpoints.map((e) => `"${e}"`).join(', ')}]`;
  return `${s}}`;
}

export function statusText(f: StatusFacts): string {
  return (
    `ClusterId:              ${f.clusterId}\n` +
    `LeaderId:               ${f.leaderId}\n` +
    `LeaderEpoch:            ${f.leaderEpoch}\n` +
    `HighWatermark:          ${f.highWatermark}\n` +
    `MaxFollowerLag:         ${f.maxFollowerLag}\n` +
    `MaxFollowerLagTimeMs:   ${f.maxFollowerLagTimeMs}\n` +
    `CurrentVoters:          [${f.voters.map(nodeText).join(', ')}]\n` +
    `CurrentObservers:       [${f.observers.map(nodeText).join(', ')}]\n`
  );
}

export function statusJson(f: StatusFacts): string {
  const nodes = (ns: StatusFacts['voters']): unknown[] =>
    ns.map((n) => ({ id: n.id, directoryId: n.directoryId, endpoints: n.endpoints }));
  return `${JSON.stringify(
    {
      clusterId: f.clusterId,
      leaderId: f.leaderId,
      leaderEpoch: f.leaderEpoch,
      highWatermark: Number(f.highWatermark),
      maxFollowerLag: Number(f.maxFollowerLag),
      maxFollowerLagTimeMs: Number(f.maxFollowerLagTimeMs),
      currentVoters: nodes(f.voters),
      currentObservers: nodes(f.observers),
    },
    null,
    2,
  )}\n`;
}

export interface ReplicationRow {
  nodeId: number;
  directoryId: string;
  logEndOffset: bigint;
  lag: bigint;
  lastFetchTimestamp: bigint | null;
  lastCaughtUpTimestamp: bigint | null;
  status: 'Leader' | 'Follower' | 'Observer';
}

/** The leader, the other voters, then the observers (handleDescribeReplication). */
export function replicationRows(q: QuorumInfo): ReplicationRow[] {
  const leader = leaderOf(q);
  const row = (r: ReplicaState, status: ReplicationRow['status']): ReplicationRow => ({
    nodeId: r.replicaId,
    directoryId: r.replicaDirectoryId,
    logEndOffset: r.logEndOffset,
    lag: leader.logEndOffset - r.logEndOffset,
    lastFetchTimestamp: r.lastFetchTimestamp,
    lastCaughtUpTimestamp: r.lastCaughtUpTimestamp,
    status,
  });
  return [
    row(leader, 'Leader'),
    ...q.voters.filter((v) => v.replicaId !== q.leaderId).map((v) => row(v, 'Follower')),
    ...q.observers.map((o) => row(o, 'Observer')),
  ];
}

/** MetadataQuorumCommand.relativeTimeMs. */
export function relativeTimeMs(ts: bigint, desc: string, now: bigint): bigint {
  if (!(ts > 0n && ts <= now)) {
    throw new QuorumCommandError(
      `org.apache.kafka.common.KafkaException: Error while computing relative time, possible drift in system clock.\n` +
        `Current timestamp is ${now}, ${desc} timestamp is ${ts}`,
    );
  }
  return now - ts;
}

export function replicationText(rows: readonly ReplicationRow[], humanReadable: boolean, now: bigint): string {
  const ts = (v: bigint | null, desc: string): string =>
    v === null ? '-1' : humanReadable ? `${relativeTimeMs(v, desc, now)} ms ago` : String(v);
  const headers = [
    'NodeId',
    'DirectoryId',
    'LogEndOffset',
    'Lag',
    'LastFetchTimestamp',
    'LastCaughtUpTimestamp',
    'Status',
  ];
  const cells = rows.map((r) => [
    String(r.nodeId),
    r.directoryId,
    String(r.logEndOffset),
    String(r.lag),
    ts(r.lastFetchTimestamp, 'last fetch'),
    ts(r.lastCaughtUpTimestamp, 'last caught up'),
    r.status,
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string => c.map((x, i) => x.padEnd(widths[i]!) + '\t').join('') + '\n';
  return line(headers) + cells.map(line).join('');
}

export function replicationJson(rows: readonly ReplicationRow[]): string {
  const n = (v: bigint | null): number | null => (v === null ? null : Number(v));
  return `${JSON.stringify(
    rows.map((r) => ({
      nodeId: r.nodeId,
      directoryId: r.directoryId,
      logEndOffset: Number(r.logEndOffset),
      lag: Number(r.lag),
      lastFetchTimestamp: n(r.lastFetchTimestamp),
      lastCaughtUpTimestamp: n(r.lastCaughtUpTimestamp),
      status: r.status,
    })),
    null,
    2,
  )}\n`;
}
