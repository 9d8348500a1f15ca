// The follower fetchers of a broker (Kafka's ReplicaFetcherManager / AbstractFetcherManager): one
// ReplicaFetcher per source broker, i.e. num.replica.fetchers is honoured only as 1 (a single event
// loop gains nothing from more connections per leader). The replica manager tells it which hosted
// partitions follow whom (FollowerListener); a partition moves between fetchers when its leader
// changes, and a fetcher left without partitions is shut down.
import type { ServerConfig } from '../../config/load.js';
import type { MetadataImage } from '../metadata/image.js';
import type { Partition } from './partition.js';
import { ReplicaFetcher, type ReplicaFetcherConfig } from './replica-fetcher.js';
import type { FollowerListener, ReplicaManager } from './replica-manager.js';
import type { ReplicaLogger } from './types.js';

/** The replica.fetch.* settings of a broker configuration. */
export function replicaFetcherConfig(config: Pick<ServerConfig, 'getInt'>): ReplicaFetcherConfig {
  return {
    waitMaxMs: config.getInt('replica.fetch.wait.max.ms'),
    minBytes: config.getInt('replica.fetch.min.bytes'),
    maxBytes: config.getInt('replica.fetch.max.bytes'),
    responseMaxBytes: config.getInt('replica.fetch.response.max.bytes'),
    backoffMs: config.getInt('replica.fetch.backoff.ms'),
    socketTimeoutMs: config.getInt('replica.socket.timeout.ms'),
  };
}

export class ReplicaFetcherManager implements FollowerListener {
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  /** which fetcher follows each partition, by partition key */
  private readonly sourceOf = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly rm: ReplicaManager,
    private readonly image: () => MetadataImage | undefined,
    /** inter.broker.listener.name: where leaders are reached */
    private readonly listenerName: string,
    private readonly config: ReplicaFetcherConfig,
    private readonly logger: ReplicaLogger,
  ) {}

  /** The fetcher of each source broker and how many partitions it follows (tests, logs). */
  describe(): Map<number, number> {
    return new Map([...this.fetchers].map(([id, f]) => [id, f.size]));
  }

  fetcher(sourceBrokerId: number): ReplicaFetcher | undefined {
    return this.fetchers.get(sourceBrokerId);
  }

  addFollowers(partitions: readonly Partition[]): void {
    if (this.closed) return;
    for (const p of partitions) {
      const previous = this.sourceOf.get(p.key);
      if (previous !== undefined && previous !== p.leaderId) this.detach(p, previous);
      if (p.leaderId < 0 || p.isLeader || p.closed) {
        this.sourceOf.delete(p.key);
        continue;
      }
      let f = this.fetchers.get(p.leaderId);
      if (!f) {
        const id = p.leaderId;
        f = new ReplicaFetcher(id, this.rm, () => this.endpoint(id), this.config, this.logger);
        this.fetchers.set(id, f);
        this.logger.info(`Added fetcher to broker ${id} for follower partitions`);
      }
      this.sourceOf.set(p.key, p.leaderId);
      f.add(p);
    }
  }

  removeFollowers(partitions: readonly Partition[]): void {
    for (const p of partitions) {
      const source = this.sourceOf.get(p.key);
      if (source !== undefined) this.detach(p, source);
      this.sourceOf.delete(p.key);
    }
  }

  private detach(p: Partition, source: number): void {
    const f = this.fetchers.get(source);
    if (!f) return;
    f.remove(p);
    if (f.size === 0) {
      this.fetchers.delete(source);
      void f.shutdown();
    }
  }

  private endpoint(brokerId: number): { host: string; port: number } | undefined {
    const ep = this.image()?.endpoint(brokerId, this.listenerName);
    return ep ? { host: ep.host, port: ep.port } : undefined;
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    const all = [...this.fetchers.values()];
    this.fetchers.clear();
    this.sourceOf.clear();
    await Promise.all(all.map((f) => f.shutdown()));
  }
}
