// `tkafka top` (tkafka only): a live view of a cluster (tkafka or Apache Kafka): brokers and their
// state, the active controller, per-topic produce and consume rates, partitions that are offline,
// under min ISR or under-replicated, and the consumer groups by lag with their lag rate.
//
//   tkafka top --bootstrap-server HOST:PORT [--command-config FILE] [--interval SECONDS]
//              [--iterations N] [--topic T]... [--group G]... [--output json]
//
// collect.ts samples the cluster, model.ts turns samples into frames (rates need two samples),
// view.ts draws a frame with ink on a terminal (q or Ctrl-C quits), model.ts plainLines prints it as
// logfmt lines otherwise, and --output json prints one frame (after --iterations samples, default 2
// so that the rates are known) and exits. The refresh loop is common/live/watch-loop.ts.
import type { ToolIO } from '../common/io.js';
import {
  COMMAND_CONFIG_OPTION,
  JoptError,
  parseJopt,
  printUsage,
  type JoptOptions,
  type JoptToolSpec,
} from '../common/jopt.js';
import { CONNECTION_HELP, openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, writeStack } from '../common/errors.js';
import { isLive } from '../common/tty.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';
import type { KafkaClient } from '../../client/client.js';
import type { TopSample } from './model.js';
import { importSrc } from '../common/import-src.js';

export const DEFAULT_INTERVAL_SECONDS = 3;

export const TOP_SPEC: JoptToolSpec = {
  name: 'top',
  description:
    'A live view of a cluster: brokers and their state, the active controller, produce and consume rates per topic, ' +
    'offline, under-min-ISR and under-replicated partitions, and consumer groups by lag with their lag rate. ' +
    'On a terminal the view refreshes in place (q or Ctrl-C quits); otherwise every refresh prints logfmt lines. ' +
    CONNECTION_HELP,
  options: [
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED: The server(s) to connect to.' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'server to connect to' },
      complete: 'host:port',
    },
    COMMAND_CONFIG_OPTION,
    {
      names: ['interval'],
      description: 'Seconds between refreshes; rates are measured over the last 10 s (at least one interval).',
      arg: { name: 'seconds', type: 'Double', defaults: [DEFAULT_INTERVAL_SECONDS] },
    },
    {
      names: ['iterations'],
      description:
        'Stop after this many refreshes (default: until q or Ctrl-C; with --output json: 2, so that the rates are known).',
      arg: { name: 'count', type: 'Integer' },
    },
    {
      names: ['topic'],
      description:
        'Only this topic (repeatable). Default: every topic (internal topics count in the partition problems only).',
      arg: { name: 'topic' },
    },
    {
      names: ['group'],
      description:
        'Only this group (repeatable). Default: every consumer group (classic and consumer) and share group.',
      arg: { name: 'consumer group' },
    },
    {
      names: ['output'],
      description: 'text (the live view, or logfmt lines when not a terminal) or json (one snapshot, then exit).',
      arg: { name: 'text|json' },
      complete: ['text', 'json'],
    },
    DEBUG_OPTION,
  ],
};

/** The options as values, or a usage message. */
export interface TopOptions {
  intervalMs: number;
  iterations: number | undefined;
  json: boolean;
  topics: string[] | undefined;
  groups: string[] | undefined;
}

export function topOptions(opts: JoptOptions): TopOptions | string {
  const interval = opts.number('interval') ?? DEFAULT_INTERVAL_SECONDS;
  if (!Number.isFinite(interval) || interval <= 0) return `--interval must be a positive number of seconds`;
  const iterations = opts.number('iterations');
  if (iterations !== undefined && (!Number.isInteger(iterations) || iterations < 1))
    return '--iterations must be at least 1';
  const output = (opts.string('output') ?? 'text').toLowerCase();
  if (output !== 'text' && output !== 'json')
    return `Invalid value '${opts.string('output')}' for --output: expected text or json`;
  const list = (name: string): string[] | undefined => (opts.has(name) ? opts.valuesOf(name).map(String) : undefined);
  return {
    intervalMs: interval * 1000,
    iterations,
    json: output === 'json',
    topics: list('topic'),
    groups: list('group'),
  };
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let opts: JoptOptions;
  try {
    opts = parseJopt(TOP_SPEC, argv);
  } catch (e) {
    if (e instanceof JoptError) return printUsage(TOP_SPEC, io, e.message);
    throw e;
  }
  if (opts.has('help')) return printUsage(TOP_SPEC, io, TOP_SPEC.description);
  if (opts.has('version')) {
    io.stdout.write(`${(await import('../common/version.js')).VERSION}\n`);
    return 0;
  }
  const debug = opts.has('debug');
  const o = topOptions(opts);
  if (typeof o === 'string') return printUsage(TOP_SPEC, io, o);
  let client: KafkaClient | null = null;
  try {
    const bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    if (!bootstrap) return printUsage(TOP_SPEC, io, 'Missing required argument "[bootstrap-server]"');
    client = await openClient({
      bootstrap,
      commandConfig: opts.string('command-config'),
      // a refresh waits for an unavailable partition or coordinator this long at most
      overrides: { clientId: 'tkafka-top', apiTimeoutMs: Math.max(5_000, 2 * o.intervalMs) },
    });
    const c = client;
    const [{ collectSample }, { TopTracker, plainLines, jsonFrame }] = await Promise.all([
      import('./collect.js'),
      import('./model.js'),
    ]);
    const sample = (): Promise<TopSample> => collectSample(c, opts, io, { topics: o.topics, groups: o.groups });
    const tracker = new TopTracker(Math.max(10_000, o.intervalMs));
    if (o.json) {
      const n = o.iterations ?? 2;
      let frame = tracker.add(await sample());
      for (let i = 1; i < n; i++) {
        await new Promise((r) => setTimeout(r, o.intervalMs));
        frame = tracker.add(await sample());
      }
      const { writeJson } = await import('../common/output.js');
      writeJson(io, jsonFrame(frame));
      return 0;
    }
    const { runWatch } = await import('../common/live/watch-loop.js');
    const quit = new AbortController();
    const releaseKeys = isLive(io) ? quitKeys(io.stdin, () => quit.abort()) : () => undefined;
    try {
      return await runWatch(
        {
          sample,
          failed: (at, error) => ({
            at,
            error,
            clusterId: null,
            controllerId: -1,
            quorumLeader: null,
            quorumEpoch: null,
            brokers: [],
            topics: [],
            groups: [],
          }),
          frame: (s) => tracker.add(s),
          plainLines,
          mountView: async (stream) =>
            ((await importSrc('tools/top/view.js')) as typeof import('./view.js')).mountTopView(stream),
        },
        io,
        { intervalMs: o.intervalMs, maxRefreshes: o.iterations, source: bootstrap.value, signal: quit.signal },
      );
    } finally {
      releaseKeys();
    }
  } catch (e) {
    io.stderr.write(`Error: ${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}

/**
 * On a terminal: raw keys, `q` or Ctrl-C quits (raw mode turns Ctrl-C into a byte instead of SIGINT).
 * Returns the function that restores the terminal.
 */
function quitKeys(stdin: NodeJS.ReadableStream, quit: () => void): () => void {
  const tty = stdin as NodeJS.ReadStream;
  if (tty.isTTY !== true || typeof tty.setRawMode !== 'function') return () => undefined;
  const onData = (d: Buffer | string): void => {
    const s = String(d);
    if (s.includes('q') || s.includes('Q') || s.includes('\u0003')) quit();
  };
  tty.setRawMode(true);
  tty.on('data', onData);
  tty.resume();
  return () => {
    tty.off('data', onData);
    tty.setRawMode(false);
    tty.pause();
  };
}
