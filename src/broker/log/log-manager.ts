// All partition logs of a broker across its log.dirs (Kafka's LogManager + the checkpointing
// parts of ReplicaManager and LogCleanerManager): load at startup (trusting the files after a
// clean shutdown, recovering from the recovery point otherwise), create/delete partition
// directories, retention, flushing, log cleaning and checkpoint files on a schedule, and a clean
// shutdown that leaves `.kafka_cleanshutdown` behind.

import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import {
  CLEANER_OFFSET_CHECKPOINT_FILE,
  LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE,
  REPLICATION_OFFSET_CHECKPOINT_FILE,
  deleteCleanShutdownMarker,
  hasCleanShutdownMarker,
  readOffsetCheckpointMap,
  StateFileReadError,
  tpKey,
  writeCleanShutdownMarker,
  writeOffsetCheckpoint,
  type TopicPartitionOffset,
} from '../../storage/checkpoint-file.js';
import { cleanLog, logToClean, shouldClean, type CleanerOptions } from './cleaner.js';
import { DEFAULT_LOG_CONFIG, LONG_MAX, type LogConfig } from './log-config.js';
import { KafkaStorageError, silentLogger, type LogLogger } from './log-errors.js';
import { isIOError, listDir } from '../../storage/file-ops.js';
import { FutureLogCopier } from './future-log-copier.js';
import { PartitionLog } from './partition-log.js';
import { syncLoadIO } from '../../storage/load-io.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

export interface LogManagerOptions {
  logDirs: string[];
  defaultConfig?: LogConfig;
  /** per-topic overrides (topic-level configs merged over the broker defaults) */
  topicConfig?: (topic: string) => LogConfig | undefined;
  clock?: () => number;
  logger?: LogLogger;
  /** log.retention.check.interval.ms */
  retentionCheckIntervalMs?: number;
  /** log.flush.scheduler.interval.ms */
  flushCheckIntervalMs?: number;
  /** log.flush.offset.checkpoint.interval.ms */
  recoveryPointCheckpointIntervalMs?: number;
  /** log.flush.start.offset.checkpoint.interval.ms */
  logStartOffsetCheckpointIntervalMs?: number;
  /** replica.high.watermark.checkpoint.interval.ms */
  highWatermarkCheckpointIntervalMs?: number;
  /** log.cleaner.backoff.ms */
  cleanerBackoffMs?: number;
  /** log.cleaner.enable */
  cleanerEnabled?: boolean;
  /** log.initial.task.delay.ms */
  initialTaskDelayMs?: number;
  /** topics whose directories this manager leaves alone (the KRaft metadata log) */
  excludeTopics?: string[];
  cleaner?: CleanerOptions;
  /**
   * Called by the copier of a replica moving between log dirs with each chunk's size before it is
   * written (the hook for replica.alter.log.dirs.io.max.bytes.per.second: it may wait).
   */
  alterLogDirsChunk?: (bytes: number) => Promise<void> | void;
  /** bytes the copier reads per chunk (replica.fetch.max.bytes as ReplicaAlterLogDirsThread uses it) */
  alterLogDirsChunkBytes?: number;
  /**
   * A log dir went offline (after its logs were taken offline): the broker tells the controller
   * (BrokerLifecycleManager.propagateDirectoryFailure) and halts if it held the metadata log.
   */
  onLogDirFailure?: (dir: string) => void;
  /**
   * Every log dir failed: Kafka logs FATAL "Shutdown broker because all log dirs in ... have failed"
   * and halts (Exit.halt(1)); the broker process does the same here. Default: the message is logged.
   */
  onAllLogDirsFailed?: (message: string) => void;
  /** the log lines of a directory failure (LogDirFailureChannel's ERROR, the WARNs); default: the logger's warn */
  failureLog?: (level: 'ERROR' | 'WARN', msg: string) => void;
  /**
   * A partition's current log moved to another log dir (a future log promoted): the broker tells the
   * controller (AssignmentsManager, KIP-858 directory assignments).
   */
  onReplicaDirChanged?: (topic: string, partition: number, dir: string) => void;
}

export interface TopicPartitionName {
  topic: string;
  partition: number;
  /** 'delete' | 'future' | 'stray' for suffixed directories */
  suffix?: string;
}

const SUFFIXED_DIR = /^(\S+)-(\S+)\.(\S+)-(delete|future|stray)$/;

/** LocalLog.parseTopicPartitionName: `<topic>-<partition>` or `<topic>-<partition>.<uuid>-<suffix>`. */
export function parseTopicPartitionDirName(name: string): TopicPartitionName | undefined {
  let base = name;
  let suffix: string | undefined;
  const m = /-(delete|future|stray)$/.exec(name);
  if (m) {
    if (!SUFFIXED_DIR.test(name)) return undefined;
    suffix = m[1];
    base = name.slice(0, name.lastIndexOf('.'));
  }
  const i = base.lastIndexOf('-');
  if (i <= 0 || i === base.length - 1) return undefined;
  const partStr = base.slice(i + 1);
  if (!/^\d+$/.test(partStr)) return undefined;
  return { topic: base.slice(0, i), partition: Number(partStr), ...(suffix ? { suffix } : {}) };
}

/** `<topic>-<partition>.<uuid32hex>-delete`, topic truncated to keep the name within 255 chars. */
export function logDeleteDirName(topic: string, partition: number): string {
  const full = `-${partition}.${randomUUID().replace(/-/g, '')}-delete`;
  return topic.slice(0, Math.min(topic.length, 255 - full.length)) + full;
}

/** UnifiedLog.logFutureDirName: `<topic>-<partition>.<uuid32hex>-future` (not truncated: callers check 255). */
export function logFutureDirName(topic: string, partition: number): string {
  return `${topic}-${partition}.${randomUUID().replace(/-/g, '')}-future`;
}

/** What moving a replica to another log dir answers (ReplicaManager.alterReplicaLogDirs's errors). */
export type AlterLogDirOutcome =
  'NONE' | 'LOG_DIR_NOT_FOUND' | 'KAFKA_STORAGE_ERROR' | 'REPLICA_NOT_AVAILABLE' | 'INVALID_TOPIC_EXCEPTION';

interface Task {
  timer?: ReturnType<typeof setTimeout>;
  running?: Promise<unknown>;
}

/** Partition logs opened at once while a log dir loads (LogManager.loadLogDir). */
const LOG_LOAD_CONCURRENCY = 16;

/**
 * Runs the tasks with at most `limit` in flight, none started after one failed; resolves once
 * every task started has settled, with each task's outcome in order (undefined: not started).
 */
async function settleAll<T>(
  tasks: readonly (() => Promise<T>)[],
  limit: number,
): Promise<(PromiseSettledResult<T> | undefined)[]> {
  const results: (PromiseSettledResult<T> | undefined)[] = new Array(tasks.length).fill(undefined);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && !failed) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await tasks[i]!() };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export class LogManager {
  readonly logDirs: string[];
  private readonly opts: LogManagerOptions;
  private readonly clock: () => number;
  private readonly logger: LogLogger;
  private readonly logs = new Map<string, PartitionLog>();
  private readonly logDirOf = new Map<string, string>();
  /** future logs (a replica moving to another log dir) and their dirs, by `<topic>-<partition>` */
  private readonly futureLogs = new Map<string, PartitionLog>();
  private readonly futureDirOf = new Map<string, string>();
  /** the copy task of each future log */
  private readonly copiers = new Map<string, FutureLogCopier>();
  /** where a replica not hosted yet is to be created (Kafka's preferredLogDirs) */
  private readonly preferredDirs = new Map<string, string>();
  private readonly hadCleanShutdown = new Map<string, boolean>();
  private readonly loadCompleted = new Map<string, boolean>();
  private readonly cleanerCheckpoints = new Map<string, Map<string, number>>();
  private readonly tasks: Task[] = [];
  private readonly creating = new Map<string, Promise<PartitionLog>>();
  /** per checkpoint file: the last write queued, and the one not started yet (writeCheckpoint) */
  private readonly checkpointWrites = new Map<string, { tail: Promise<void>; waiting?: Promise<void> }>();
  /** the log dir of each log in `creating` (counted by nextLogDir) */
  private readonly creatingDirOf = new Map<string, string>();
  private cleaning: Promise<number> | undefined;
  private stopped = false;
  /** failed log dirs (Kafka: the dirs no longer in _liveLogDirs) */
  private readonly offline = new Set<string>();
  /** partitions of a dir that failed while loading, before their logs were opened */
  private readonly unloadedOffline = new Set<string>();

  constructor(opts: LogManagerOptions) {
    if (opts.logDirs.length === 0) throw new Error('at least one log dir is required');
    this.opts = opts;
    this.logDirs = opts.logDirs.map((d) => path.resolve(d));
    this.clock = opts.clock ?? Date.now;
    this.logger = opts.logger ?? silentLogger;
  }

  configFor(topic: string): LogConfig {
    return this.opts.topicConfig?.(topic) ?? this.opts.defaultConfig ?? DEFAULT_LOG_CONFIG;
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(tpKey(topic, partition));
  }

  /** The log dir holding a partition's current log (LogManager.getLog(tp).dir.getParent). */
  logDirOfPartition(topic: string, partition: number): string | undefined {
    return this.logDirOf.get(tpKey(topic, partition));
  }

  /** The logs in online log dirs (a log of a failed dir is no longer Kafka's currentLogs). */
  allLogs(): PartitionLog[] {
    return [...this.logs.values()].filter((l) => !l.isOffline);
  }

  /** Whether `dir` is one of log.dirs and has not failed (LogManager.isLogDirOnline). */
  isLogDirOnline(dir: string): boolean {
    const d = path.resolve(dir);
    return this.logDirs.includes(d) && !this.offline.has(d);
  }

  /** The failed log dirs, in log.dirs order. */
  offlineLogDirs(): string[] {
    return this.logDirs.filter((d) => this.offline.has(d));
  }

  /**
   * Kafka's LogDirFailureChannel.maybeAddOfflineLogDir + ReplicaManager/LogManager.handleLogDirFailure:
   * logs the error once per dir, takes every current and future log in the dir offline (handles
   * released, no clean close; their partitions answer KAFKA_STORAGE_ERROR), drops the dir from the
   * checkpoints and the clean-shutdown marker, tells the broker; when no dir is left, the broker
   * shuts down. `partitionOrLogDir` may be a partition directory or a log dir.
   */
  private allFailedReported = false;

  handleLogDirFailure(partitionOrLogDir: string, message: string, e: Error): void {
    const p = path.resolve(partitionOrLogDir);
    const dir = this.logDirs.includes(p) ? p : path.dirname(p);
    if (!this.logDirs.includes(dir) || this.offline.has(dir)) return;
    const log = this.opts.failureLog ?? ((_level: string, msg: string) => this.logger.warn(msg));
    log('ERROR', `${message}: ${e.stack ?? e.message}`);
    this.offline.add(dir);
    log('WARN', `Stopping serving logs in dir ${dir}`);
    const current: string[] = [];
    const future: string[] = [];
    for (const [key, log] of this.logs) {
      if (this.logDirOf.get(key) !== dir) continue;
      current.push(key);
      void log.markOffline();
    }
    for (const [key, log] of [...this.futureLogs]) {
      if (this.futureDirOf.get(key) !== dir) continue;
      future.push(key);
      this.copiers.get(key)?.stop();
      this.futureLogs.delete(key);
      this.futureDirOf.delete(key);
      void log.markOffline();
    }
    log(
      'WARN',
      `Logs for partitions ${current.join(',')} are offline and logs for future partitions ${future.join(',')} are offline due to failure on log directory ${dir}`,
    );
    // the broker's reaction runs after the failed operation answered (Kafka's LogDirFailureHandler
    // thread takes the dir from the channel's queue): the request in flight still gets its error
    setImmediate(() => {
      if (!this.reportAllLogDirsFailed()) this.opts.onLogDirFailure?.(dir);
    });
  }

  /** When no log dir is left: "Shutdown broker because all log dirs ... have failed", once. */
  private reportAllLogDirsFailed(): boolean {
    if (this.offline.size !== this.logDirs.length) return false;
    if (this.allFailedReported) return true;
    this.allFailedReported = true;
    const msg = `Shutdown broker because all log dirs in ${this.logDirs.join(', ')} have failed`;
    if (this.opts.onAllLogDirsFailed) this.opts.onAllLogDirsFailed(msg);
    else (this.opts.failureLog ?? ((_level: string, m: string) => this.logger.warn(m)))('ERROR', msg);
    return true;
  }

  /** Runs a log-dir operation; an I/O error takes the dir offline and is rethrown. */
  private async onDir<T>(dir: string, message: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (isIOError(e)) this.handleLogDirFailure(dir, message, e);
      throw e;
    }
  }

  private readonly failureHandler = (partitionDir: string, message: string, e: Error): void =>
    this.handleLogDirFailure(partitionDir, message, e);

  /** Whether `dir` had `.kafka_cleanshutdown` when it was loaded. */
  wasCleanShutdown(dir: string): boolean {
    return this.hadCleanShutdown.get(path.resolve(dir)) ?? false;
  }

  /** Loads every log and starts the background tasks. */
  async startup(): Promise<void> {
    await this.loadLogs();
    // a restart in the middle of a move resumes it (ReplicaManager starts the alter-log-dirs fetcher)
    for (const key of this.futureLogs.keys()) this.startCopier(key);
    const o = this.opts;
    const initial = o.initialTaskDelayMs ?? 30_000;
    this.schedule(() => this.cleanupLogs(), initial, o.retentionCheckIntervalMs ?? 300_000);
    this.schedule(() => this.flushDirtyLogs(), initial, o.flushCheckIntervalMs ?? LONG_MAX);
    this.schedule(() => this.checkpointRecoveryOffsets(), initial, o.recoveryPointCheckpointIntervalMs ?? 60_000);
    this.schedule(() => this.checkpointLogStartOffsets(), initial, o.logStartOffsetCheckpointIntervalMs ?? 60_000);
    this.schedule(() => this.checkpointHighWatermarks(), initial, o.highWatermarkCheckpointIntervalMs ?? 5_000);
    if (o.cleanerEnabled ?? true) this.schedule(() => this.runCleaner(), initial, o.cleanerBackoffMs ?? 15_000);
  }

  private schedule(fn: () => Promise<unknown>, initialDelayMs: number, periodMs: number): void {
    if (periodMs >= LONG_MAX) return;
    const task: Task = {};
    const tick = (): void => {
      if (this.stopped) return;
      task.running = fn()
        .catch((e: unknown) => this.logger.warn(`log manager task failed: ${(e as Error).message}`))
        .finally(() => {
          task.running = undefined;
          if (!this.stopped) {
            task.timer = setTimeout(tick, periodMs);
            task.timer.unref?.();
          }
        });
    };
    task.timer = setTimeout(tick, initialDelayMs);
    task.timer.unref?.();
    this.tasks.push(task);
  }

  /**
   * Kafka's loadLogs: per log dir, consume the clean shutdown marker, read checkpoints, open every
   * partition. An I/O error loading a dir takes it offline (Kafka's handleIOException: "Error while
   * loading log dir"); the partitions found there are not created in another dir meanwhile.
   */
  async loadLogs(): Promise<void> {
    for (const dir of this.logDirs) {
      try {
        await this.loadLogDir(dir);
      } catch (e) {
        if (!isIOError(e) && !(e instanceof StateFileReadError)) throw e;
        for (const name of await listDir(dir)) {
          const tp = parseTopicPartitionDirName(name);
          const key = tp && !tp.suffix ? tpKey(tp.topic, tp.partition) : undefined;
          if (key !== undefined && this.logDirOf.get(key) !== dir) this.unloadedOffline.add(key);
        }
        // a state file that does not parse: Kafka's CheckpointFileWithFailureHandler names the file
        const message = e instanceof StateFileReadError ? e.headline : `Error while loading log dir ${dir}`;
        this.handleLogDirFailure(dir, message, e);
      }
    }
    await this.dropOrphanFutureLogs();
    // every dir failed while loading: stop before the broker serves anything
    this.reportAllLogDirsFailed();
  }

  private async loadLogDir(dir: string): Promise<void> {
    await fsp.mkdir(dir, { recursive: true });
    const clean = await hasCleanShutdownMarker(dir);
    // deleted up front so that a crash while loading counts as unclean next time (KAFKA-10471)
    if (clean) await deleteCleanShutdownMarker(dir);
    this.hadCleanShutdown.set(dir, clean);
    // Kafka reads these through CheckpointFileWithFailureHandler: an unreadable one reports the
    // directory to the LogDirFailureChannel ("Error while reading checkpoint file <file>"), which
    // takes it offline, even where LogManager.loadLogs then catches and warns (recovery point,
    // log start offset). Here: the warnings, then the directory's load fails with that error.
    let failed: StateFileReadError | undefined;
    const read = async (f: string, what?: string) => {
      const file = path.join(dir, f);
      try {
        return await readOffsetCheckpointMap(file);
      } catch (e) {
        failed ??= new StateFileReadError(`Error while reading checkpoint file ${file}`, file, e as Error);
        if (what) this.logger.warn(`Error occurred while reading ${f} file of directory ${dir}, ${what}`);
        return new Map<string, number>();
      }
    };
    const recoveryPoints = await read(RECOVERY_POINT_CHECKPOINT_FILE, 'resetting the recovery checkpoint to 0');
    const logStartOffsets = await read(
      LOG_START_OFFSET_CHECKPOINT_FILE,
      'resetting to the base offset of the first segment',
    );
    const highWatermarks = await read(REPLICATION_OFFSET_CHECKPOINT_FILE);
    this.cleanerCheckpoints.set(dir, await read(CLEANER_OFFSET_CHECKPOINT_FILE));
    if (failed) throw failed;
    const excluded = new Set(this.opts.excludeTopics ?? ['__cluster_metadata']);
    const toOpen: { key: string; isFuture: boolean; open: () => Promise<PartitionLog> }[] = [];
    const found = new Set<string>();
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const tp = parseTopicPartitionDirName(e.name);
      if (!tp || excluded.has(tp.topic)) continue;
      const full = path.join(dir, e.name);
      if (tp.suffix === 'delete') {
        await fsp.rm(full, { recursive: true, force: true });
        continue;
      }
      if (tp.suffix && tp.suffix !== 'future') {
        this.logger.warn(`Skipping ${tp.suffix} replica directory ${full}`);
        continue;
      }
      const key = tpKey(tp.topic, tp.partition);
      const isFuture = tp.suffix === 'future';
      const seen = isFuture ? this.futureDirOf : this.logDirOf;
      if (seen.has(key) || found.has(`${isFuture}:${key}`))
        throw new Error(
          `Duplicate ${isFuture ? 'future ' : ''}log directories for ${key} are found in both ${seen.get(key) ?? dir} and ${dir}. ` +
            'It is likely because log directory failure happened while broker was replacing current replica with future replica. ' +
            'Recover broker from this failure by manually deleting one of the two directories for this partition. ' +
            'It is recommended to delete the partition in the log directory that is known to have failed recently.',
        );
      found.add(`${isFuture}:${key}`);
      toOpen.push({
        key,
        isFuture,
        // after a turn of the event loop: the timers due (raft, heartbeats) run between two logs
        open: async () => {
          await yieldToEventLoop();
          return PartitionLog.open({
            dir: full,
            topic: tp.topic,
            partition: tp.partition,
            config: this.configFor(tp.topic),
            clock: this.clock,
            logger: this.logger,
            hadCleanShutdown: clean,
            onLogDirFailure: this.failureHandler,
            recoveryPoint: recoveryPoints.get(key) ?? 0,
            logStartOffset: logStartOffsets.get(key) ?? 0,
            highWatermark: highWatermarks.get(key),
            io: syncLoadIO,
          });
        },
      });
    }
    // Kafka loads a dir's logs on num.recovery.threads.per.data.dir threads; here the small files
    // are read synchronously (syncLoadIO: nothing is served yet) and the rest of the file operations
    // wait on libuv's thread pool, so LOG_LOAD_CONCURRENCY opens are kept in flight.
    // Each log is its own (its own files, its own queue); they are registered in directory order,
    // and the first failure is thrown once the opens in flight have settled (the logs opened stay
    // registered, in the dir that then goes offline, as those opened before a failure did when
    // they were opened one by one).
    const outcomes = await settleAll(
      toOpen.map((t) => t.open),
      LOG_LOAD_CONCURRENCY,
    );
    let failure: PromiseRejectedResult | undefined;
    for (let i = 0; i < toOpen.length; i++) {
      const { key, isFuture } = toOpen[i]!;
      const o = outcomes[i];
      if (o?.status === 'rejected') failure ??= o;
      if (o?.status !== 'fulfilled') continue;
      (isFuture ? this.futureLogs : this.logs).set(key, o.value);
      (isFuture ? this.futureDirOf : this.logDirOf).set(key, dir);
    }
    if (failure) throw failure.reason;
    this.loadCompleted.set(dir, true);
  }

  private async dropOrphanFutureLogs(): Promise<void> {
    // a future log without its current log is of nothing (Kafka drops it too)
    for (const [key, future] of [...this.futureLogs]) {
      if (this.logs.has(key)) continue;
      this.logger.warn(`Deleting future log ${future.dir}: ${key} has no current log`);
      this.futureLogs.delete(key);
      this.futureDirOf.delete(key);
      await future.close();
      await fsp.rm(future.dir, { recursive: true, force: true });
    }
  }

  /** The log dir holding the fewest partitions, future logs counted (Kafka's nextLogDirs). */
  private nextLogDir(): string {
    const counts = new Map(this.logDirs.filter((d) => !this.offline.has(d)).map((d) => [d, 0]));
    // one dir online: no need to count its 10,000 logs for every partition created
    if (counts.size === 1) return counts.keys().next().value!;
    // logs still being created count too (partitions are created several at a time)
    for (const dirs of [this.logDirOf.values(), this.futureDirOf.values(), this.creatingDirOf.values()])
      for (const d of dirs) counts.set(d, (counts.get(d) ?? 0) + 1);
    return [...counts].sort((a, b) => a[1] - b[1])[0]![0];
  }

  /** Returns the partition's log, creating `<dir>/<topic>-<partition>` if it does not exist. */
  async getOrCreateLog(
    topic: string,
    partition: number,
    opts: { topicId?: string; config?: LogConfig } = {},
  ): Promise<PartitionLog> {
    const key = tpKey(topic, partition);
    const existing = this.logs.get(key) ?? (await this.creating.get(key));
    if (existing) {
      if (opts.topicId !== undefined) await existing.assignTopicId(opts.topicId);
      return existing;
    }
    // LogManager.getOrCreateLog: not created anew while its own dir is offline
    if (this.unloadedOffline.has(key))
      throw new KafkaStorageError(
        `Can not create log for ${key} because log directories ${this.offlineLogDirs().join(',')} are offline`,
      );
    const preferred = this.preferredDirs.get(key);
    const dir = preferred !== undefined && !this.offline.has(preferred) ? preferred : this.nextLogDir();
    const creation = PartitionLog.open({
      dir: path.join(dir, key),
      topic,
      partition,
      config: opts.config ?? this.configFor(topic),
      clock: this.clock,
      logger: this.logger,
      hadCleanShutdown: false,
      topicId: opts.topicId,
      onLogDirFailure: this.failureHandler,
    });
    this.creating.set(key, creation);
    this.creatingDirOf.set(key, dir);
    try {
      const log = await creation;
      this.logs.set(key, log);
      this.logDirOf.set(key, dir);
      if (preferred !== undefined) this.preferredDirs.delete(key);
      return log;
    } finally {
      this.creating.delete(key);
      this.creatingDirOf.delete(key);
    }
  }

  /** Applies a (new) configuration to every log of a topic. */
  updateTopicConfig(topic: string, config: LogConfig): void {
    for (const log of this.logs.values()) if (log.topic === topic) log.updateConfig(config);
  }

  /**
   * Deletes a partition like Kafka's asyncDelete: close the log, rename its directory to
   * `<topic>-<partition>.<uuid>-delete`, remove it after file.delete.delay.ms.
   */
  async deleteLog(topic: string, partition: number): Promise<void> {
    const key = tpKey(topic, partition);
    await this.abortFutureLog(key);
    const log = this.logs.get(key);
    if (!log) return;
    this.logs.delete(key);
    const dir = this.logDirOf.get(key)!;
    this.logDirOf.delete(key);
    this.cleanerCheckpoints.get(dir)?.delete(key);
    await log.close();
    const target = path.join(dir, logDeleteDirName(topic, partition));
    await fsp.rename(log.dir, target);
    const remove = () => fsp.rm(target, { recursive: true, force: true });
    const delay = log.config.fileDeleteDelayMs;
    if (delay <= 0) await remove();
    else {
      const t = setTimeout(() => {
        remove().catch(() => undefined);
      }, delay);
      t.unref?.();
    }
    await this.checkpointAll();
  }

  /** The current and future logs in a log dir (a partition has at most one of them per dir). */
  private logsIn(dir: string): Array<[string, PartitionLog]> {
    return [
      ...[...this.logs].filter(([k]) => this.logDirOf.get(k) === dir),
      ...[...this.futureLogs].filter(([k]) => this.futureDirOf.get(k) === dir),
    ];
  }

  // ---- moving replicas between log dirs (KIP-113) ----

  /** The log dir of a partition's current log. */
  logDir(topic: string, partition: number): string | undefined {
    return this.logDirOf.get(tpKey(topic, partition));
  }

  getFutureLog(topic: string, partition: number): PartitionLog | undefined {
    return this.futureLogs.get(tpKey(topic, partition));
  }

  /** Future logs: the replicas on their way to another log dir. */
  allFutureLogs(): PartitionLog[] {
    return [...this.futureLogs.values()];
  }

  /**
   * ReplicaManager.alterReplicaLogDirs for one partition: `destDir` must be one of log.dirs, as given
   * (LOG_DIR_NOT_FOUND) and usable (KAFKA_STORAGE_ERROR). A partition without a log here is created in
   * `destDir` later (REPLICA_NOT_AVAILABLE now). A future log elsewhere is dropped; one is created in
   * `destDir` unless the current log is there, and the copier fills it and swaps it in.
   */
  async alterReplicaLogDir(topic: string, partition: number, destDir: string): Promise<AlterLogDirOutcome> {
    const key = tpKey(topic, partition);
    if (`${key}.${'0'.repeat(32)}-future`.length > 255) return 'INVALID_TOPIC_EXCEPTION';
    if (!this.logDirs.includes(destDir)) return 'LOG_DIR_NOT_FOUND';
    if (this.offline.has(destDir)) return 'KAFKA_STORAGE_ERROR';
    try {
      await fsp.access(destDir, fsp.constants.W_OK);
    } catch {
      return 'KAFKA_STORAGE_ERROR';
    }
    if (this.futureDirOf.has(key) && this.futureDirOf.get(key) !== destDir) await this.abortFutureLog(key);
    const current = this.logs.get(key);
    if (!current) {
      this.preferredDirs.set(key, destDir);
      return 'REPLICA_NOT_AVAILABLE';
    }
    if (this.logDirOf.get(key) === destDir) return 'NONE';
    if (this.futureLogs.has(key)) {
      this.startCopier(key); // again, should an earlier copy have failed
      return 'NONE';
    }
    const future = await PartitionLog.open({
      dir: path.join(destDir, logFutureDirName(topic, partition)),
      topic,
      partition,
      config: current.config,
      clock: this.clock,
      logger: this.logger,
      hadCleanShutdown: false,
      topicId: current.topicId,
      onLogDirFailure: this.failureHandler,
    });
    this.futureLogs.set(key, future);
    this.futureDirOf.set(key, destDir);
    this.logger.info(`Created future log of ${key} in ${destDir}`);
    this.startCopier(key);
    return 'NONE';
  }

  private startCopier(key: string): void {
    const current = this.logs.get(key);
    const future = this.futureLogs.get(key);
    if (!current || !future || this.copiers.has(key) || this.stopped) return;
    const copier = new FutureLogCopier({
      current,
      future,
      logger: this.logger,
      chunkBytes: this.opts.alterLogDirsChunkBytes,
      beforeChunk: this.opts.alterLogDirsChunk,
      swap: () => this.replaceCurrentWithFutureLocked(key, current, future),
    });
    this.copiers.set(key, copier);
    copier
      .run()
      .catch((e: unknown) => this.logger.warn(`Moving ${key} to another log dir failed: ${(e as Error).message}`))
      .finally(() => {
        if (this.copiers.get(key) === copier) this.copiers.delete(key);
      });
  }

  /** Waits for the copy of a partition's future log to end (swapped, aborted or failed). Tests. */
  async awaitFutureLog(topic: string, partition: number): Promise<void> {
    await this.copiers.get(tpKey(topic, partition))?.done;
  }

  /**
   * LogManager.replaceCurrentWithFutureLog, on the current log's queue (the copier checked the future
   * caught up there): the current log takes the future's place and directory; the old directory
   * becomes `-delete` and goes after file.delete.delay.ms.
   */
  private async replaceCurrentWithFutureLocked(
    key: string,
    current: PartitionLog,
    future: PartitionLog,
  ): Promise<void> {
    const destDir = this.futureDirOf.get(key)!;
    const srcDir = this.logDirOf.get(key)!;
    await current.replaceWithFutureLocked(
      future,
      path.join(srcDir, logDeleteDirName(current.topic, current.partition)),
      path.join(destDir, key),
    );
    this.futureLogs.delete(key);
    this.futureDirOf.delete(key);
    this.logDirOf.set(key, destDir);
    const cps = this.cleanerCheckpoints.get(srcDir);
    const cleaned = cps?.get(key);
    cps?.delete(key);
    if (cleaned !== undefined) {
      const dest = this.cleanerCheckpoints.get(destDir) ?? new Map<string, number>();
      dest.set(key, cleaned);
      this.cleanerCheckpoints.set(destDir, dest);
    }
    this.logger.info(`The current replica of ${key} in ${srcDir} was replaced by its future replica in ${destDir}`);
    this.opts.onReplicaDirChanged?.(current.topic, current.partition, destDir);
  }

  /** Stops a partition's move: its copier ends and its future log is closed and deleted. */
  private async abortFutureLog(key: string): Promise<void> {
    const future = this.futureLogs.get(key);
    if (!future) return;
    const copier = this.copiers.get(key);
    copier?.stop();
    await copier?.done;
    if (this.futureLogs.get(key) !== future) return; // swapped in meanwhile
    this.futureLogs.delete(key);
    this.futureDirOf.delete(key);
    await future.close();
    await fsp.rm(future.dir, { recursive: true, force: true });
    this.logger.info(`Removed future log of ${key}`);
  }

  /**
   * Writes a checkpoint file of an online dir; an I/O error takes the dir offline (Kafka's
   * CheckpointFile). One write at a time per file (CheckpointFile writes under its lock): logs
   * deleted together (a topic's partitions, 16 at a time) each checkpoint, and two atomic replaces of
   * one file at once share its `.tmp`. The entries are listed when the write starts; a request made
   * while another write of the file waits to start shares that write.
   */
  private writeCheckpoint(dir: string, file: string, entries: () => TopicPartitionOffset[]): Promise<void> {
    if (this.offline.has(dir)) return Promise.resolve();
    const f = path.join(dir, file);
    let slot = this.checkpointWrites.get(f);
    if (!slot) this.checkpointWrites.set(f, (slot = { tail: Promise.resolve() }));
    if (slot.waiting) return slot.waiting;
    const s = slot;
    const write = s.tail.then(async () => {
      s.waiting = undefined;
      if (this.offline.has(dir)) return;
      try {
        await this.onDir(dir, `Error while writing to checkpoint file ${f}`, () => writeOffsetCheckpoint(f, entries()));
      } catch (e) {
        // the dir is offline now; the other dirs' checkpoints are still written (Kafka logs "Disk error ...")
        if (!isIOError(e)) throw e;
        this.logger.warn(`Disk error while writing ${file} in directory ${dir}: ${e.message}`);
      }
    });
    s.waiting = write;
    s.tail = write.catch(() => undefined);
    return write;
  }

  async checkpointRecoveryOffsets(): Promise<void> {
    for (const dir of this.logDirs) {
      await this.writeCheckpoint(dir, RECOVERY_POINT_CHECKPOINT_FILE, () =>
        this.logsIn(dir).map(([, l]) => ({ topic: l.topic, partition: l.partition, offset: l.recoveryPoint })),
      );
    }
  }

  /** Only logs whose start offset is past their first segment's base offset are listed (as Kafka does). */
  async checkpointLogStartOffsets(): Promise<void> {
    for (const dir of this.logDirs) {
      await this.writeCheckpoint(dir, LOG_START_OFFSET_CHECKPOINT_FILE, () =>
        this.logsIn(dir)
          .filter(([, l]) => l.logStartOffset > l.segments[0]!.baseOffset)
          .map(([, l]) => ({ topic: l.topic, partition: l.partition, offset: l.logStartOffset })),
      );
    }
  }

  async checkpointHighWatermarks(): Promise<void> {
    for (const dir of this.logDirs) {
      await this.writeCheckpoint(dir, REPLICATION_OFFSET_CHECKPOINT_FILE, () =>
        this.logsIn(dir).map(([, l]) => ({ topic: l.topic, partition: l.partition, offset: l.highWatermark })),
      );
    }
  }

  async checkpointCleanerOffsets(): Promise<void> {
    for (const dir of this.logDirs) {
      await this.writeCheckpoint(dir, CLEANER_OFFSET_CHECKPOINT_FILE, () => {
        const cp = this.cleanerCheckpoints.get(dir) ?? new Map<string, number>();
        return this.logsIn(dir)
          .filter(([k]) => cp.has(k))
          .map(([k, l]) => ({ topic: l.topic, partition: l.partition, offset: cp.get(k)! }));
      });
    }
  }

  async checkpointAll(): Promise<void> {
    await this.checkpointRecoveryOffsets();
    await this.checkpointLogStartOffsets();
    await this.checkpointHighWatermarks();
    await this.checkpointCleanerOffsets();
  }

  /** Retention for every log (segments past retention.ms / retention.bytes or below the log start offset). */
  async cleanupLogs(): Promise<number> {
    let total = 0;
    for (const log of this.allLogs()) total += await log.deleteOldSegments();
    return total;
  }

  /** Flushes logs whose flush.ms has elapsed since their last flush. */
  async flushDirtyLogs(): Promise<void> {
    const now = this.clock();
    for (const log of this.allLogs()) {
      if (now - log.lastFlushTime >= log.config.flushMs) await log.flush(false);
    }
  }

  /** The cleaner checkpoint ("cleaned up to") of a partition, if any. */
  cleanerCheckpoint(topic: string, partition: number): number | undefined {
    const key = tpKey(topic, partition);
    const dir = this.logDirOf.get(key);
    return dir === undefined ? undefined : this.cleanerCheckpoints.get(dir)?.get(key);
  }

  /** One cleaner pass: compacts every compacted log that is dirty enough. Returns the logs cleaned. */
  async runCleaner(force = false): Promise<number> {
    while (this.cleaning) await this.cleaning.catch(() => undefined);
    this.cleaning = this.cleanOnce(force);
    try {
      return await this.cleaning;
    } finally {
      this.cleaning = undefined;
    }
  }

  private async cleanOnce(force: boolean): Promise<number> {
    let cleaned = 0;
    for (const [key, log] of [...this.logs]) {
      // Kafka pauses cleaning of a partition while it moves between log dirs
      if (!log.config.compact || log.isClosed || log.isOffline || this.futureLogs.has(key)) continue;
      const dir = this.logDirOf.get(key)!;
      const cps = this.cleanerCheckpoints.get(dir) ?? new Map<string, number>();
      this.cleanerCheckpoints.set(dir, cps);
      const last = cps.get(key);
      if (!force && !shouldClean(log, await logToClean(log, last, this.clock()))) continue;
      const res = await this.onDir(dir, `Error while cleaning ${key} in dir ${dir}`, () =>
        cleanLog(log, last, { clock: this.clock, ...this.opts.cleaner }),
      );
      if (!res) continue;
      cps.set(key, res.endOffset);
      await this.checkpointCleanerOffsets();
      cleaned++;
    }
    return cleaned;
  }

  /**
   * Kafka's shutdown: stop the tasks, flush and close every log, write the recovery-point,
   * log-start-offset, high-watermark and cleaner checkpoints, then `.kafka_cleanshutdown` in each
   * dir whose logs were all loaded.
   */
  async shutdown(brokerEpoch = -1): Promise<void> {
    this.stopped = true;
    for (const t of this.tasks) {
      if (t.timer) clearTimeout(t.timer);
      await t.running;
    }
    for (const c of this.copiers.values()) c.stop();
    for (const c of [...this.copiers.values()]) await c.done;
    for (const log of [...this.allLogs(), ...this.allFutureLogs()]) {
      // a failure here takes the log's dir offline (guarded in the log): that dir gets no marker
      await log.flush(true).catch((e: unknown) => this.logger.warn(`${(e as Error).message}`));
      await log.close().catch((e: unknown) => this.logger.warn(`${(e as Error).message}`));
    }
    await this.checkpointAll().catch((e: unknown) => this.logger.warn(`${(e as Error).message}`));
    for (const dir of this.logDirs) {
      // no `.kafka_cleanshutdown` for a dir that failed: the next start runs recovery there
      if (this.offline.has(dir)) continue;
      if (this.hadCleanShutdown.get(dir) || this.loadCompleted.get(dir))
        await this.onDir(dir, `Error while writing the clean shutdown file in dir ${dir}`, () =>
          writeCleanShutdownMarker(dir, brokerEpoch),
        ).catch(() => undefined);
    }
  }
}
