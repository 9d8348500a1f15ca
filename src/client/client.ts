// KafkaClient: the connection manager every tool shares. Bootstrap servers are tried in turn;
// every connection negotiates API versions; one connection per broker address carries pipelined
// requests; a metadata cache routes requests to partition leaders, group/transaction coordinators
// and the controller; `call` retries retriable failures with backoff and a metadata refresh until
// default.api.timeout.ms runs out.
import { apiByName, type ClientApi } from './apis.js';
import { BrokerConnection, type Response, type SendOptions } from './connection.js';
import type { FindCoordinatorResponse } from '../protocol/generated/protocol/FindCoordinator.js';
import type { MetadataResponse } from '../protocol/generated/protocol/Metadata.js';
import { DEFAULT_CLIENT_CONFIG, splitHostPort, type ClientConfig } from './config.js';
import {
  ApiError,
  ConnectionError,
  DisconnectedError,
  OperationTimeoutError,
  UnsupportedApiError,
  isRetriableError,
} from './errors.js';

export interface BrokerNode {
  id: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionMetadata {
  partition: number;
  errorCode: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offline: number[];
}

export interface TopicMetadata {
  name: string;
  topicId: string;
  internal: boolean;
  errorCode: number;
  partitions: PartitionMetadata[];
}

export interface ClusterMetadata {
  clusterId: string | null;
  controllerId: number;
  brokers: Map<number, BrokerNode>;
  /** Topics of the last response (all topics when fetched without a list). */
  topics: Map<string, TopicMetadata>;
}

export type Target =
  | 'any'
  | 'controller'
  | { node: number }
  | { leader: { topic: string; partition: number } }
  | { coordinator: { type: 'group' | 'transaction'; key: string } };

export type BodyBuilder = unknown | ((version: number) => unknown);

// Errors after which cached routing (leaders, controller) must be refreshed (56 KAFKA_STORAGE_ERROR:
// Kafka's KafkaStorageException is an InvalidMetadataException; the controller moves the leader away).
const METADATA_ERRORS = new Set([3, 5, 6, 9, 41, 56, 72, 74, 75, 100, 103]);
const COORDINATOR_ERRORS = new Set([14, 15, 16]);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class KafkaClient {
  readonly config: ClientConfig;
  private readonly connections = new Map<string, Promise<BrokerConnection>>();
  private cluster: ClusterMetadata | null = null;
  private metadataStale = true;
  private readonly coordinators = new Map<string, number>();
  private everConnected = false;
  private closed = false;

  constructor(config: Partial<ClientConfig> & { bootstrapServers: string[] }) {
    this.config = { ...DEFAULT_CLIENT_CONFIG, ...config };
  }

  static api(name: string): ClientApi {
    return apiByName(name);
  }

  // ---- connections -------------------------------------------------------------------------

  /** The connection to `host:port`, opened (and version-negotiated) on first use. */
  connectionTo(address: string): Promise<BrokerConnection> {
    if (this.closed) return Promise.reject(new DisconnectedError('The client is closed'));
    const existing = this.connections.get(address);
    if (existing) return existing;
    const { host, port } = splitHostPort(address);
    const conn = new BrokerConnection({
      host,
      port,
      clientId: this.config.clientId,
      requestTimeoutMs: this.config.requestTimeoutMs,
      connectTimeoutMs: this.config.connectTimeoutMs,
      ...(this.config.sasl ? { sasl: this.config.sasl } : {}),
      tls: this.config.tls,
    });
    const p = conn.open().then(
      () => {
        this.everConnected = true;
        return conn;
      },
      (e: unknown) => {
        this.connections.delete(address);
        conn.close();
        throw e;
      },
    );
    this.connections.set(address, p);
    return p;
  }

  private async live(address: string): Promise<BrokerConnection> {
    const c = await this.connectionTo(address);
    if (c.connected) return c;
    this.connections.delete(address);
    return this.connectionTo(address);
  }

  /** Any reachable broker: an open connection, else the known brokers, else the bootstrap list in turn. */
  async anyConnection(): Promise<BrokerConnection> {
    for (const p of this.connections.values()) {
      const c = await p.catch(() => null);
      if (c?.connected) return c;
    }
    const candidates: string[] = [];
    if (this.cluster) for (const b of this.cluster.brokers.values()) candidates.push(`${b.host}:${b.port}`);
    for (const b of this.config.bootstrapServers) if (!candidates.includes(b)) candidates.push(b);
    const failures: string[] = [];
    for (const address of candidates) {
      try {
        return await this.live(address);
      } catch (e) {
        if (!(e instanceof ConnectionError || e instanceof DisconnectedError)) throw e;
        failures.push(e.message);
      }
    }
    const detail = failures.map((f) => f.replace(/^Connection to /, '')).join('; ');
    const err = new ConnectionError(
      this.everConnected
        ? `Could not connect to any broker (${detail})`
        : `Could not connect to any bootstrap server (${detail})`,
    );
    if (!this.everConnected) (err as { retriable: boolean }).retriable = false;
    throw err;
  }

  async nodeConnection(id: number): Promise<BrokerConnection> {
    let node = this.cluster?.brokers.get(id);
    if (!node) {
      await this.metadata({ refresh: true });
      node = this.cluster?.brokers.get(id);
    }
    if (!node) throw new ApiError(8, `Broker ${id} is not in the cluster metadata`);
    return this.live(`${node.host}:${node.port}`);
  }

  private async resolve(target: Target): Promise<BrokerConnection> {
    if (target === 'any') return this.anyConnection();
    if (target === 'controller') {
      const md = await this.metadata({ refresh: this.metadataStale });
      return md.controllerId >= 0 && md.brokers.has(md.controllerId)
        ? this.nodeConnection(md.controllerId)
        : this.anyConnection();
    }
    if ('node' in target) return this.nodeConnection(target.node);
    if ('leader' in target)
      return this.nodeConnection(await this.leaderOf(target.leader.topic, target.leader.partition));
    return this.nodeConnection(await this.coordinatorOf(target.coordinator.type, target.coordinator.key));
  }

  // ---- sending -----------------------------------------------------------------------------

  /** One attempt: route, pick the version, build the body, send. */
  async send<T = unknown>(
    target: Target,
    apiName: string,
    body: BodyBuilder,
    opts: SendOptions = {},
  ): Promise<Response<T>> {
    const api = apiByName(apiName);
    const conn = await this.resolve(target);
    const version = conn.pickVersion(api, opts);
    const built = typeof body === 'function' ? (body as (v: number) => unknown)(version) : body;
    return conn.send<T>(api, built, { ...opts, version });
  }

  /** `send` with retries (see `call`). */
  request<T = unknown>(
    target: Target,
    apiName: string,
    body: BodyBuilder,
    opts: SendOptions = {},
  ): Promise<Response<T>> {
    return this.call(`${apiName}`, () => this.send<T>(target, apiName, body, opts));
  }

  /**
   * Runs `fn`, retrying retriable failures (retriable Kafka errors, dropped connections, request
   * timeouts) with exponential backoff until default.api.timeout.ms; routing caches are refreshed
   * before each retry. Non-retriable errors are thrown at once.
   */
  async call<T>(what: string, fn: (attempt: number) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.config.apiTimeoutMs;
    let backoff = this.config.retryBackoffMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (e) {
        if (!isRetriableError(e)) throw e;
        this.noteFailure(e);
        const wait = Math.min(backoff, this.config.retryBackoffMaxMs);
        if (Date.now() + wait >= deadline) {
          throw new OperationTimeoutError(
            `${what} timed out after ${this.config.apiTimeoutMs} ms: ${(e as Error).message}`,
            e,
          );
        }
        await sleep(wait);
        backoff *= 2;
      }
    }
  }

  /** Invalidates what a failure makes doubtful. */
  noteFailure(e: unknown): void {
    if (e instanceof ApiError) {
      if (METADATA_ERRORS.has(e.code)) this.metadataStale = true;
      if (COORDINATOR_ERRORS.has(e.code)) this.coordinators.clear();
    } else {
      this.metadataStale = true;
      this.coordinators.clear();
    }
  }

  // ---- metadata ----------------------------------------------------------------------------

  get cachedMetadata(): ClusterMetadata | null {
    return this.cluster;
  }

  /**
   * Cluster metadata. Without `topics`, all topics; with a list, those topics (merged into the
   * cache). Uses the cache unless `refresh`, the cache is stale, or a requested topic is missing.
   */
  async metadata(opts: { topics?: string[] | null; refresh?: boolean } = {}): Promise<ClusterMetadata> {
    const topics = opts.topics ?? null;
    const cached = this.cluster;
    if (cached && !opts.refresh && !this.metadataStale && topics !== null && topics.every((t) => cached.topics.has(t)))
      return cached;
    const resp = await this.send<MetadataResponse>('any', 'Metadata', (v: number) => ({
      topics: topics === null ? (v === 0 ? [] : null) : topics.map((name) => ({ name })),
      allowAutoTopicCreation: false,
    }));
    const body = resp.body;
    const brokers = new Map<number, BrokerNode>();
    for (const b of body.brokers)
      brokers.set(b.nodeId, { id: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null });
    const topicMap = new Map<string, TopicMetadata>(topics === null || !cached ? [] : cached.topics);
    for (const t of body.topics) {
      if (t.name == null) continue;
      topicMap.set(t.name, {
        name: t.name,
        topicId: t.topicId,
        internal: t.isInternal,
        errorCode: t.errorCode,
        partitions: t.partitions
          .map((p) => ({
            partition: p.partitionIndex,
            errorCode: p.errorCode,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
            offline: p.offlineReplicas,
          }))
          .sort((a, b) => a.partition - b.partition),
      });
    }
    this.cluster = {
      clusterId: body.clusterId ?? null,
      controllerId: body.controllerId ?? -1,
      brokers,
      topics: topicMap,
    };
    this.metadataStale = false;
    return this.cluster;
  }

  /** The leader of a partition; refreshes metadata when unknown. Throws a retriable ApiError when leaderless. */
  async leaderOf(topic: string, partition: number): Promise<number> {
    const find = (md: ClusterMetadata | null): PartitionMetadata | undefined =>
      md?.topics.get(topic)?.partitions.find((p) => p.partition === partition);
    let p = this.metadataStale ? undefined : find(this.cluster);
    if (!p || p.leader < 0) {
      const md = await this.metadata({ topics: [topic], refresh: true });
      const t = md.topics.get(topic);
      if (t && t.errorCode !== 0) throw new ApiError(t.errorCode, null, topic);
      p = find(md);
    }
    if (!p) throw new ApiError(3, `This server does not host this topic-partition.`, `${topic}-${partition}`);
    if (p.leader < 0) throw new ApiError(5, null, `${topic}-${partition}`);
    return p.leader;
  }

  /** The coordinator for a group or transactional id (FindCoordinator, cached). */
  async coordinatorOf(type: 'group' | 'transaction', key: string): Promise<number> {
    const cacheKey = `${type}:${key}`;
    const known = this.coordinators.get(cacheKey);
    if (known !== undefined) return known;
    const keyType = type === 'group' ? 0 : 1;
    const resp = await this.send<FindCoordinatorResponse>('any', 'FindCoordinator', (v: number) =>
      v >= 4 ? { keyType, coordinatorKeys: [key] } : { key, keyType },
    );
    const b = resp.body;
    const entry = resp.version >= 4 ? b.coordinators[0] : b;
    if (!entry) throw new ApiError(15, null, cacheKey);
    if (entry.errorCode !== 0) throw new ApiError(entry.errorCode, entry.errorMessage, cacheKey);
    if (this.cluster && !this.cluster.brokers.has(entry.nodeId)) {
      this.cluster.brokers.set(entry.nodeId, { id: entry.nodeId, host: entry.host, port: entry.port, rack: null });
    } else if (!this.cluster) {
      this.cluster = {
        clusterId: null,
        controllerId: -1,
        brokers: new Map([[entry.nodeId, { id: entry.nodeId, host: entry.host, port: entry.port, rack: null }]]),
        topics: new Map(),
      };
      this.metadataStale = true;
    }
    this.coordinators.set(cacheKey, entry.nodeId);
    return entry.nodeId;
  }

  /** True when the broker behind `target` supports `apiName` at `minVersion` or later. */
  async supports(target: Target, apiName: string, minVersion = 0): Promise<boolean> {
    const conn = await this.resolve(target);
    return conn.supports(apiByName(apiName), minVersion);
  }

  close(): void {
    this.closed = true;
    for (const p of this.connections.values())
      p.then(
        (c) => c.close(),
        () => undefined,
      );
    this.connections.clear();
  }
}

export { UnsupportedApiError };
