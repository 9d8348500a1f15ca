// `tkafka reassign-partitions`: kafka-reassign-partitions.sh
// (org.apache.kafka.tools.reassign.ReassignPartitionsCommand, Kafka 4.4): generate a reassignment,
// execute it (with replication throttles), verify it (clearing the throttles when done), cancel it,
// list the ongoing ones. Usage errors: message and help on stderr, exit 1; failures after
// validation: on stdout, the message (TerseException) or `Error: <message>`, exit 1 (Kafka adds a
// Java stack trace; tkafka prints the stack with --debug, on stderr).
import { readFileSync } from 'node:fs';
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { JoptError, optionDisplay, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { helpOrVersion } from '../common/run-tool.js';
import { errorLine, writeStack } from '../common/errors.js';
import { ACTIONS, REASSIGN_SPEC, REQUIRED, permitted, type Action } from './spec.js';
import type { ReassignContext } from './command.js';

export { REASSIGN_SPEC };

const CLIENT_ID = 'reassign-partitions-tool';

/** validateAndParseArgs: the action, or the exit code after a usage message. */
export function validateArgs(opts: JoptOptions, io: ToolIO, hasEnvBootstrap: boolean): Action | number {
  const usage = (msg: string): number => printUsage(REASSIGN_SPEC, io, msg);
  const actions = ACTIONS.filter((a) => opts.has(a));
  if (actions.length !== 1)
    return usage(`Command must include exactly one action: ${ACTIONS.map((a) => `--${a}`).join(', ')}`);
  const action = actions[0]!;
  const server = opts.has('bootstrap-server');
  const controller = opts.has('bootstrap-controller');
  if (server && controller) return usage("Please don't specify both --bootstrap-server and --bootstrap-controller");
  if (!server && !controller && !hasEnvBootstrap)
    return usage('Please specify either --bootstrap-server or --bootstrap-controller');
  const required = REQUIRED[action];
  const spec = (name: string) => REASSIGN_SPEC.options.find((o) => o.names[0] === name)!;
  for (const r of required) if (!opts.has(r)) return usage(`Missing required argument "${optionDisplay(spec(r))}"`);
  const allowed = permitted(action, controller);
  for (const name of opts.givenNames()) {
    if (name === action || required.includes(name) || allowed.includes(name)) continue;
    return usage(`Option "${optionDisplay(spec(name))}" can't be used with action "${optionDisplay(spec(action))}"`);
  }
  return action;
}

/** Utils.readFileAsString: a missing file fails with NoSuchFileException, whose message is the path. */
function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new FileError(path);
    throw new FileError(`${path}: ${err.message}`);
  }
}

class FileError extends Error {
  override name = 'FileError';
}

async function openClient(
  bootstrap: string,
  profileProperties: Record<string, string> | undefined,
  commandConfig: string | undefined,
): Promise<KafkaClient> {
  const { loadPropertiesFile } = await import('../common/connection.js');
  const props = new Map<string, string>(Object.entries(profileProperties ?? {}));
  if (commandConfig) for (const [k, v] of await loadPropertiesFile(commandConfig)) props.set(k, v);
  if (!props.has('client.id')) props.set('client.id', CLIENT_ID);
  const [{ KafkaClient }, { clientConfigFromProperties, parseBootstrapServers }] = await Promise.all([
    import('../../client/client.js'),
    import('../../client/config.js'),
  ]);
  return new KafkaClient(clientConfigFromProperties(props, { bootstrapServers: parseBootstrapServers(bootstrap) }));
}

/** The stdout text of a failure: TerseException bare, anything else `Error: <getMessage()>`. */
export async function failureText(e: unknown): Promise<string> {
  const { TerseError, ReassignCommandError } = await import('./json.js');
  if (e instanceof TerseError) return e.message;
  if (e instanceof ReassignCommandError || e instanceof FileError) return `Error: ${e.message}`;
  if ((e as Error).name === 'InvalidReplicationFactorError') return `Error: ${(e as Error).message}`;
  // A failed Admin future: ExecutionException.getMessage() is the cause's toString().
  const j = e as { javaString?: () => string };
  if (e instanceof Error && typeof j.javaString === 'function') return `Error: ${j.javaString()}`;
  return `Error: ${errorLine(e)}`;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let opts: JoptOptions;
  try {
    opts = parseJopt(REASSIGN_SPEC, argv);
  } catch (e) {
    if (e instanceof JoptError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const early = await helpOrVersion(REASSIGN_SPEC, argv, opts, io);
  if (early !== null) return early;
  const debug = opts.has('debug');
  const clients: KafkaClient[] = [];
  try {
    const { resolveBootstrap } = await import('../common/connection.js');
    const controllerMode = opts.has('bootstrap-controller');
    const flag = controllerMode ? opts.string('bootstrap-controller') : opts.string('bootstrap-server');
    const resolved = await resolveBootstrap(flag, io.env);
    const action = validateArgs(opts, io, resolved !== null);
    if (typeof action === 'number') return action;
    if (!resolved)
      return printUsage(REASSIGN_SPEC, io, 'Please specify either --bootstrap-server or --bootstrap-controller');
    const output = opts.string('output');
    const format = output === undefined ? 'text' : output.trim().toLowerCase();
    if (format !== 'text' && format !== 'json') {
      io.stderr.write(`Invalid value '${output}' for --output: expected one of text, json\n`);
      return 1;
    }
    const json = format === 'json';
    const first = await openClient(resolved.value, resolved.profileProperties, opts.string('command-config'));
    clients.push(first);
    const ctx: ReassignContext = {
      client: first,
      controllerTarget: 'controller',
      endpointType: 'broker',
      println: (l) => void (json || io.stdout.write(`${l}\n`)),
      print: (t) => void (json || io.stdout.write(t)),
      now: () => Date.now(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    };
    if (controllerMode) {
      // Admin with bootstrap.controllers: controller requests go to the active controller.
      const { describeCluster } = await import('../../client/admin/cluster.js');
      const cluster = await describeCluster(first, { endpointType: 'controller' });
      const active = cluster.nodes.find((n) => n.id === cluster.controllerId) ?? cluster.nodes[0];
      if (active) {
        const c = await openClient(
          `${active.host}:${active.port}`,
          resolved.profileProperties,
          opts.string('command-config'),
        );
        clients.push(c);
        ctx.client = c;
      }
      ctx.controllerTarget = 'any';
      ctx.endpointType = 'controller';
    }
    const cmd = await import('./command.js');
    const file = (name: string): string => readFile(opts.string(name)!);
    let view: unknown;
    switch (action) {
      case 'verify':
        view = await cmd.verifyAssignment(ctx, file('reassignment-json-file'), opts.has('preserve-throttles'));
        break;
      case 'generate':
        view = await cmd.generateAssignment(
          ctx,
          file('topics-to-move-json-file'),
          opts.string('broker-list')!,
          !opts.has('disable-rack-aware'),
        );
        break;
      case 'execute':
        view = await cmd.executeAssignment(ctx, file('reassignment-json-file'), {
          additional: opts.has('additional'),
          interBrokerThrottle: opts.valueOf('throttle') as bigint,
          logDirThrottle: opts.valueOf('replica-alter-log-dirs-throttle') as bigint,
          timeoutMs: opts.valueOf('timeout') as bigint,
          disallowReplicationFactorChange: opts.has('disallow-replication-factor-change'),
        });
        break;
      case 'cancel':
        view = await cmd.cancelAssignment(
          ctx,
          file('reassignment-json-file'),
          opts.has('preserve-throttles'),
          opts.valueOf('timeout') as bigint,
        );
        break;
      case 'list':
        if (opts.has('watch')) {
          const seconds = Number(opts.valueOf('watch'));
          if (!Number.isFinite(seconds) || seconds <= 0)
            return printUsage(REASSIGN_SPEC, io, `Cannot parse argument '${opts.string('watch')}' of option watch`);
          const { watchReassignments } = await import('./watch.js');
          return await watchReassignments(ctx, io, { intervalMs: seconds * 1000, source: resolved.value });
        }
        view = await cmd.listAssignments(ctx);
        break;
    }
    if (json) {
      const { writeJson } = await import('../common/output.js');
      writeJson(io, view);
    }
    return 0;
  } catch (e) {
    io.stdout.write(`${await failureText(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    for (const c of clients) c.close();
  }
}
