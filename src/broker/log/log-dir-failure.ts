// What the broker does when a log directory fails (Kafka's ReplicaManager.handleLogDirFailure after
// LogManager.handleLogDirFailure took the directory's logs offline): the metadata log's directory
// failing halts the process; otherwise the directory's id is propagated to the controller in every
// broker heartbeat's OfflineLogDirs (BrokerLifecycleManager.propagateDirectoryFailure, KIP-858),
// and a directory without an id cannot be reported, which halts the process too. When every
// directory failed, LogManager's "Shutdown broker because all log dirs in ... have failed" halts it
// (Kafka: fatal + Exit.halt(1): no shutdown hooks, so no `.kafka_cleanshutdown`).
import * as path from 'node:path';
import type { LogManagerOptions } from './log-manager.js';

export interface DirectoryFailurePropagator {
  propagateDirectoryFailure(directoryId: string, timeoutMs: number, onFailure: () => void): void;
}

export interface LogDirFailureHooksOptions {
  /** metadata.log.dir (log.dirs' first when unset) */
  readonly metadataLogDir: string;
  /** meta.properties directory.id of each log dir, by configured path */
  readonly directoryIds: ReadonlyMap<string, string>;
  /** the broker's lifecycle manager; null when no heartbeat is sent (a single combined node) */
  readonly lifecycle: DirectoryFailurePropagator | null;
  /** log.dir.failure.timeout.ms */
  readonly failureTimeoutMs: number;
  readonly log: (level: 'FATAL' | 'ERROR' | 'WARN', msg: string) => void;
  /** Kafka's Exit.halt (default process.exit): no clean shutdown */
  readonly halt?: (code: number) => void;
  /** the broker's controlled shutdown (Kafka's shutdownHook when the controller never heard of the failure) */
  readonly shutdown?: () => void;
}

export function logDirFailureHooks(
  o: LogDirFailureHooksOptions,
): Pick<LogManagerOptions, 'onLogDirFailure' | 'onAllLogDirsFailed' | 'failureLog'> {
  const halt = o.halt ?? ((code: number) => process.exit(code));
  const ids = new Map([...o.directoryIds].map(([d, id]) => [path.resolve(d), id]));
  const fatal = (msg: string): void => {
    o.log('FATAL', msg);
    halt(1);
  };
  return {
    failureLog: (level, msg) => o.log(level, msg),
    onAllLogDirsFailed: fatal,
    onLogDirFailure: (dir) => {
      const d = path.resolve(dir);
      const uuid = ids.get(d);
      o.log(
        'WARN',
        `Stopping serving replicas in dir ${d} with uuid ${uuid ?? 'None'} because the log directory has failed.`,
      );
      if (d === path.resolve(o.metadataLogDir))
        return fatal(`Shutdown broker because the metadata log dir ${d} has failed`);
      if (uuid === undefined)
        return fatal(`Unable to propagate directory failure disabled because directory ${d} has no UUID`);
      o.lifecycle?.propagateDirectoryFailure(uuid, o.failureTimeoutMs, () => (o.shutdown ?? (() => halt(1)))());
    },
  };
}
