// Where the replica manager gets partition logs from. The broker's LogManager (log dirs, checkpoints,
// retention and flush schedulers, clean-shutdown marker) implements LogStore; DirectoryLogStore is
// the minimal version over one directory, used by tests and embedded setups.

import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { LogConfig } from '../log/log-config.js';
import type { LogLogger } from '../log/log-errors.js';
import { PartitionLog } from '../log/partition-log.js';

export interface LogSpec {
  topic: string;
  partition: number;
  /** 22-char base64url topic id; written to partition.metadata, checked against an existing one. */
  topicId: string;
  config: LogConfig;
}

export interface LogStore {
  /**
   * Opens (creating if missing) the log of a partition. Throws InconsistentTopicIdError when an
   * existing log belongs to another incarnation of the topic.
   */
  getOrCreateLog(spec: LogSpec): Promise<PartitionLog>;
  /** Closes the log and removes its data (topic deleted, stale incarnation). No-op if absent. */
  deleteLog(topic: string, partition: number): Promise<void>;
  /** Stops using the log, data kept (leadership moved away, shutdown). */
  releaseLog(topic: string, partition: number): Promise<void>;
}

/** What LogStore needs from the broker's LogManager (src/broker/log/log-manager.ts). */
export interface LogManagerLike {
  getOrCreateLog(
    topic: string,
    partition: number,
    opts?: { topicId?: string; config?: LogConfig },
  ): Promise<PartitionLog>;
  deleteLog(topic: string, partition: number): Promise<void>;
  allLogs?(): PartitionLog[];
  /** replicas moving between log dirs (DescribeLogDirs lists them) */
  allFutureLogs?(): PartitionLog[];
}

/**
 * The LogManager as a LogStore. Releasing keeps the log open: the LogManager owns log lifetimes
 * (checkpoints, retention, cleaning) and closes them at its shutdown.
 */
export function logStoreOf(lm: LogManagerLike): LogStore {
  return {
    getOrCreateLog: (s) => lm.getOrCreateLog(s.topic, s.partition, { topicId: s.topicId, config: s.config }),
    deleteLog: (topic, partition) => lm.deleteLog(topic, partition),
    releaseLog: async () => undefined,
  };
}

export interface DirectoryLogStoreOptions {
  clock?: () => number;
  logger?: LogLogger;
}

/** Logs as `<dir>/<topic>-<partition>`, opened with full recovery, deleted at once, closed on release. */
export class DirectoryLogStore implements LogStore {
  private readonly logs = new Map<string, PartitionLog>();

  constructor(
    readonly dir: string,
    private readonly opts: DirectoryLogStoreOptions = {},
  ) {}

  async getOrCreateLog(spec: LogSpec): Promise<PartitionLog> {
    const key = `${spec.topic}-${spec.partition}`;
    const open = this.logs.get(key);
    if (open && !open.isClosed) {
      await open.assignTopicId(spec.topicId);
      return open;
    }
    const log = await PartitionLog.open({
      dir: path.join(this.dir, `${spec.topic}-${spec.partition}`),
      topic: spec.topic,
      partition: spec.partition,
      topicId: spec.topicId,
      config: spec.config,
      clock: this.opts.clock,
      logger: this.opts.logger,
    });
    this.logs.set(key, log);
    return log;
  }

  async deleteLog(topic: string, partition: number): Promise<void> {
    const key = `${topic}-${partition}`;
    const log = this.logs.get(key);
    this.logs.delete(key);
    if (!log) {
      await fsp.rm(path.join(this.dir, key), { recursive: true, force: true });
      return;
    }
    await log.close();
    // Kafka renames to `<topic>-<partition>.<uuid>-delete` first so a crash never leaves a live-looking dir
    const doomed = `${log.dir}.${randomUUID().replace(/-/g, '')}-delete`;
    await fsp.rename(log.dir, doomed).catch(() => undefined);
    await fsp.rm(doomed, { recursive: true, force: true });
  }

  async releaseLog(topic: string, partition: number): Promise<void> {
    const key = `${topic}-${partition}`;
    const log = this.logs.get(key);
    this.logs.delete(key);
    await log?.close();
  }
}
