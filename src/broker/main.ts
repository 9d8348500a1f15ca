// `tkafka server start [server.properties] [--override k=v ...]`: load the configuration, start
// the node, and shut it down cleanly on SIGTERM/SIGINT.
import { loadServerConfig, ConfigError } from '../config/load.js';
import { checkConfigSupport } from '../config/support.js';
import { startNode, type RunningNode } from './server.js';
import { startupMark } from './startup-trace.js';

export interface StartOptions {
  file: string | undefined;
  overrides: string[];
  /** Where the node's log lines go (the process's stderr). */
  io: { stderr: NodeJS.WritableStream };
  /** Called once the node serves (load-bundle.ts writes its code cache then). */
  onStarted?: () => void;
}

const ts = () => new Date().toISOString().replace('T', ' ').replace('Z', '');

export async function startServer(opts: StartOptions): Promise<number> {
  const { io } = opts;
  const log = (level: string, msg: string) => io.stderr.write(`[${ts()}] ${level} ${msg}\n`);
  let loaded;
  let unsupported: string[];
  try {
    loaded = loadServerConfig({ file: opts.file, overrides: opts.overrides });
    // known keys tkafka does not act on: refused (ConfigError) or one WARN each (docs/config-support.md)
    unsupported = checkConfigSupport(loaded.config);
  } catch (e) {
    if (e instanceof ConfigError || (e as NodeJS.ErrnoException).code === 'ENOENT') {
      log('ERROR', `Exiting Kafka due to fatal exception: ${(e as Error).message}`);
      return 1;
    }
    throw e;
  }
  for (const w of [...loaded.warnings, ...unsupported]) log('WARN', w);
  startupMark('config parsed');

  let server: RunningNode;
  try {
    server = await startNode(loaded.config, { log });
  } catch (e) {
    log('ERROR', `Fatal error during startup: ${(e as Error).message}`);
    if (process.env.TKAFKA_DEBUG) io.stderr.write(`${(e as Error).stack}\n`);
    return 1;
  }
  startupMark('node started');
  log(
    'INFO',
    `[KafkaRaftServer nodeId=${loaded.config.nodeId}] Kafka Server started (cluster id ${server.clusterId}, listening on ${server.describeListeners()})`,
  );
  opts.onStarted?.();

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log('INFO', `Terminating process due to signal ${signal}`);
      server
        .shutdown()
        .then(() => resolve(0))
        .catch((e) => {
          log('ERROR', `error during shutdown: ${(e as Error).stack}`);
          resolve(1);
        });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
