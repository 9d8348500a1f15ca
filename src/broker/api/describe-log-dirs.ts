// DescribeLogDirs (API 35), v1-5: for each configured log directory, the partitions it holds (all,
// or those asked for) with their size on disk, and (v4) the file system's total and usable bytes
// (Kafka's KafkaApis.handleDescribeLogDirsRequest + ReplicaManager.describeLogDirs); v5's IsCordoned
// is false, as no log directory is cordoned here. A replica moving to another log dir is also listed
// in its destination dir as the future replica (IsFutureKey, offset lag = current LEO - future LEO).
import { statfs } from 'node:fs/promises';
import * as path from 'node:path';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeLogDirsRequest,
  DescribeLogDirsResponse,
  DescribeLogDirsResponseDescribeLogDirsResult,
  DescribeLogDirsResponseDescribeLogDirsTopic,
} from '../../protocol/generated/protocol/DescribeLogDirs.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, authorizeCluster } from './authz.js';

/** What this handler reads from a partition log (PartitionLog has all of it). */
export interface DescribableLog {
  readonly topic: string;
  readonly partition: number;
  /** The partition directory, `<log dir>/<topic>-<partition>`. */
  readonly dir: string;
  /** Bytes of all segments. */
  readonly size: number;
  readonly logEndOffset: number;
  readonly highWatermark?: number;
  /** set on a future replica (a replica moving to this dir): its lag behind the current replica */
  readonly futureLag?: number;
}

const LONG_MAX = 9223372036854775807n;

/** The partition logs of this broker: `replicas.logManager.allLogs()` or `replicas.allLogs()`. */
export function localLogs(services: BrokerServices): DescribableLog[] {
  const r = services.replicas as
    { logManager?: { allLogs?: () => DescribableLog[] }; allLogs?: () => DescribableLog[] } | null | undefined;
  if (r?.logManager && typeof r.logManager.allLogs === 'function') return r.logManager.allLogs();
  if (r && typeof r.allLogs === 'function') return r.allLogs();
  return [];
}

/** The future replicas of this broker (replicas moving between its log dirs), their lag filled in. */
export function futureLogs(services: BrokerServices, current: readonly DescribableLog[]): DescribableLog[] {
  const lm = (services.replicas as { logManager?: { allFutureLogs?: () => DescribableLog[] } } | null | undefined)
    ?.logManager;
  if (!lm || typeof lm.allFutureLogs !== 'function') return [];
  const leo = new Map(current.map((l) => [`${l.partition}:${l.topic}`, l.logEndOffset]));
  return lm.allFutureLogs().map((f) => ({
    topic: f.topic,
    partition: f.partition,
    dir: f.dir,
    size: f.size,
    logEndOffset: f.logEndOffset,
    futureLag: Math.max((leo.get(`${f.partition}:${f.topic}`) ?? f.logEndOffset) - f.logEndOffset, 0),
  }));
}

/** The log dirs that failed (LogManager's offline dirs; ReplicaManager.describeLogDirs answers them with 56). */
export function offlineLogDirs(services: BrokerServices): Set<string> {
  const lm = (services.replicas as { logManager?: { offlineLogDirs?: () => string[] } } | null | undefined)?.logManager;
  return new Set(lm && typeof lm.offlineLogDirs === 'function' ? lm.offlineLogDirs().map((d) => path.resolve(d)) : []);
}

async function describeDir(
  dir: string,
  logs: readonly DescribableLog[],
  wanted: (topic: string, partition: number) => boolean,
  offline: boolean,
): Promise<DescribeLogDirsResponseDescribeLogDirsResult> {
  let totalBytes: bigint;
  let usableBytes: bigint;
  try {
    if (offline) throw new Error(`${dir} is offline`);
    const s = await statfs(dir, { bigint: true });
    totalBytes = s.blocks * s.bsize;
    usableBytes = s.bavail * s.bsize;
  } catch {
    // A failed directory (or an unreadable one): Kafka's offline log dir, KAFKA_STORAGE_ERROR and nothing else.
    return {
      errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
      logDir: dir,
      topics: [],
      totalBytes: -1n,
      usableBytes: -1n,
      isCordoned: false,
    };
  }
  const byTopic = new Map<string, DescribeLogDirsResponseDescribeLogDirsTopic>();
  for (const log of logs) {
    if (!wanted(log.topic, log.partition)) continue;
    let t = byTopic.get(log.topic);
    if (!t) byTopic.set(log.topic, (t = { name: log.topic, partitions: [] }));
    // Lag of a current (non-future) replica: how far its end is behind the high watermark, never negative.
    // (a future replica's: how far it is behind the current replica)
    const lag =
      log.futureLag ?? (log.highWatermark === undefined ? 0 : Math.max(log.highWatermark - log.logEndOffset, 0));
    t.partitions.push({
      partitionIndex: log.partition,
      partitionSize: BigInt(log.size),
      offsetLag: BigInt(lag),
      isFutureKey: log.futureLag !== undefined,
    });
  }
  const topics = [...byTopic.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const t of topics)
    t.partitions.sort((a, b) => a.partitionIndex - b.partitionIndex || Number(a.isFutureKey) - Number(b.isFutureKey));
  const clamp = (n: bigint): bigint => (n < 0n || n > LONG_MAX ? LONG_MAX : n);
  return {
    errorCode: ErrorCode.NONE,
    logDir: dir,
    topics,
    totalBytes: clamp(totalBytes),
    usableBytes: clamp(usableBytes),
    isCordoned: false,
  };
}

async function handle(
  ctx: RequestContext,
  req: DescribeLogDirsRequest,
  services: BrokerServices,
): Promise<DescribeLogDirsResponse> {
  // KafkaApis.handleDescribeLogDirsRequest: DESCRIBE on the cluster, else no results and (v3+) 31
  if (!authorizeCluster(services, ctx, AclOperation.DESCRIBE))
    return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
  let wanted: (topic: string, partition: number) => boolean;
  if (req.topics === null) {
    wanted = () => true;
  } else {
    const set = new Set<string>();
    for (const t of req.topics) for (const p of t.partitions) set.add(`${p}:${t.topic}`);
    wanted = (topic, partition) => set.has(`${partition}:${topic}`);
  }
  const dirs = [...new Set(services.config.logDirs.map((d) => path.resolve(d)))];
  const offline = offlineLogDirs(services);
  const current = localLogs(services);
  const logs = [...current, ...futureLogs(services, current)];
  const results = await Promise.all(
    dirs.map((dir) =>
      describeDir(
        dir,
        logs.filter((l) => path.resolve(path.dirname(l.dir)) === dir),
        wanted,
        offline.has(dir),
      ),
    ),
  );
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results };
}

export const handler: ApiHandler<BrokerServices, DescribeLogDirsRequest, Input<DescribeLogDirsResponse>> = {
  apiKey: ApiKey.DescribeLogDirs,
  minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 5, // v5: IsCordoned (no cordoned log dirs here: always false)
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
