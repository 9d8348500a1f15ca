// The shape of a `tkafka local` cluster and what is written for it: the nodes (ids, roles, ports),
// the state file (cluster.json), each node's server.properties and its `storage format` arguments.
//
// Shapes: `-n N` is N combined nodes (process.roles=broker,controller), ids 1..N; `-n N
// --controllers M` is M controller-only nodes (ids 1..M) and N broker-only nodes (ids M+1..M+N),
// as Kafka's multi-node examples number them. A single combined node keeps the static voter it
// always had (controller.quorum.voters=1@host:port). `--quorum dynamic` (KIP-853) sets a cluster
// up as Kafka 4.4's quickstart and its "Provisioning Nodes" docs do: every node has
// controller.quorum.bootstrap.servers, the controllers are formatted with the same
// --initial-controllers (id@host:port:directory-id) and the brokers with --no-initial-controllers.
// It is the default for several nodes (test/local-cluster.test.ts runs both); `--quorum static`
// gives them controller.quorum.voters instead (still supported by Kafka).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const STATE_FILE = 'cluster.json';

export type NodeRoles = 'broker,controller' | 'controller' | 'broker';
export type QuorumMode = 'static' | 'dynamic';

export interface LocalNode {
  id: number;
  /** process.roles; absent in a cluster.json written before roles existed: broker,controller. */
  roles?: NodeRoles;
  /** The PLAINTEXT listener's port (0 before the first start with --port 0; unused on a controller-only node). */
  brokerPort: number;
  /** The CONTROLLER listener's port (unused on a broker-only node). */
  controllerPort: number;
  /** The metadata log directory id a dynamic quorum's controller is formatted with. */
  directoryId?: string;
  pid: number | null;
  /** Relative to the cluster folder. */
  dir: string;
}

export interface LocalState {
  version: 1;
  clusterId: string;
  host: string;
  /** Absent in a cluster.json written before dynamic quorums: static. */
  quorum?: QuorumMode;
  nodes: LocalNode[];
  bootstrap: string;
  startedAt: string | null;
}

export const rolesOf = (n: LocalNode): NodeRoles => n.roles ?? 'broker,controller';
export const isBroker = (n: LocalNode): boolean => rolesOf(n) !== 'controller';
export const isController = (n: LocalNode): boolean => rolesOf(n) !== 'broker';
export const brokersOf = (s: LocalState): LocalNode[] => s.nodes.filter(isBroker);
export const controllersOf = (s: LocalState): LocalNode[] => s.nodes.filter(isController);

export function defaultDir(env: NodeJS.ProcessEnv): string {
  if (env.TKAFKA_LOCAL_DIR) return resolve(env.TKAFKA_LOCAL_DIR);
  const state =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME.startsWith('/')
      ? env.XDG_STATE_HOME
      : join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'tkafka', 'local');
}

export function readState(dir: string): LocalState | null {
  const f = join(dir, STATE_FILE);
  if (!existsSync(f)) return null;
  try {
    const s = JSON.parse(readFileSync(f, 'utf8')) as LocalState;
    return s && Array.isArray(s.nodes) ? s : null;
  } catch {
    return null;
  }
}

export function writeState(dir: string, s: LocalState): void {
  writeFileSync(join(dir, STATE_FILE), JSON.stringify(s, null, 2) + '\n');
}

/** The bootstrap string: the brokers' client addresses. */
export const bootstrapOf = (s: LocalState): string =>
  brokersOf(s)
    .map((x) => `${s.host}:${x.brokerPort}`)
    .join(',');

/**
 * The nodes of a new cluster. With a base port P, node i (1-based, controllers first) has
 * P+2(i-1) for clients and P+2(i-1)+1 for the controller listener; with P = 0 the client ports
 * are bound as 0 and the controller ports are `pick()`ed (the quorum needs them up front), except
 * for a single node, whose controller listener binds 0 too.
 */
export async function planNodes(opts: {
  brokers: number;
  controllers: number;
  basePort: number;
  pick: () => Promise<number>;
  directoryId: () => string;
}): Promise<LocalNode[]> {
  const roles: NodeRoles[] =
    opts.controllers === 0
      ? Array<NodeRoles>(opts.brokers).fill('broker,controller')
      : [...Array<NodeRoles>(opts.controllers).fill('controller'), ...Array<NodeRoles>(opts.brokers).fill('broker')];
  const single = roles.length === 1;
  const nodes: LocalNode[] = [];
  for (let i = 1; i <= roles.length; i++) {
    const r = roles[i - 1]!;
    const controller = r !== 'broker';
    const broker = r !== 'controller';
    const node: LocalNode = {
      id: i,
      roles: r,
      brokerPort: !broker || opts.basePort === 0 ? 0 : opts.basePort + 2 * (i - 1),
      controllerPort: !controller
        ? 0
        : opts.basePort !== 0
          ? opts.basePort + 2 * (i - 1) + 1
          : single
            ? 0
            : await opts.pick(),
      pid: null,
      dir: `node-${i}`,
    };
    if (controller && !single) node.directoryId = opts.directoryId();
    nodes.push(node);
  }
  return nodes;
}

/** Ports a start must find free (0 = bound by the node itself). */
export function portsOf(n: LocalNode): number[] {
  return [...(isBroker(n) ? [n.brokerPort] : []), ...(isController(n) ? [n.controllerPort] : [])].filter(
    (p) => p !== 0,
  );
}

/** A node's server.properties. */
export function nodeProperties(dir: string, state: LocalState, node: LocalNode, overrides: readonly string[]): string {
  const h = state.host;
  const controllers = controllersOf(state);
  const brokerCount = brokersOf(state).length;
  const rf = Math.min(brokerCount, 3);
  const broker = isBroker(node);
  const controller = isController(node);
  const single = state.nodes.length === 1;
  const listeners = [
    ...(broker ? [`PLAINTEXT://${h}:${node.brokerPort}`] : []),
    ...(controller ? [`CONTROLLER://${h}:${node.controllerPort}`] : []),
  ].join(',');
  // A single node advertises its client listener only, as it always has; in a cluster the
  // controllers advertise their CONTROLLER listener too (a dynamic quorum's voter endpoints).
  const advertised = single
    ? `PLAINTEXT://${h}:${node.brokerPort}`
    : [
        ...(broker ? [`PLAINTEXT://${h}:${node.brokerPort}`] : []),
        ...(controller ? [`CONTROLLER://${h}:${node.controllerPort}`] : []),
      ].join(',');
  const quorum =
    (state.quorum ?? 'static') === 'static'
      ? `controller.quorum.voters=${controllers.map((x) => `${x.id}@${h}:${x.controllerPort}`).join(',')}`
      : `controller.quorum.bootstrap.servers=${controllers.map((x) => `${h}:${x.controllerPort}`).join(',')}`;
  const lines = [
    '# Written by `tkafka local start`; edits are kept until the next start with different settings.',
    `process.roles=${rolesOf(node)}`,
    `node.id=${node.id}`,
    `listeners=${listeners}`,
    `advertised.listeners=${advertised}`,
    'controller.listener.names=CONTROLLER',
    ...(broker ? ['inter.broker.listener.name=PLAINTEXT'] : []),
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    quorum,
    `log.dirs=${join(dir, node.dir, 'data')}`,
    ...(broker
      ? [
          'num.partitions=1',
          `offsets.topic.replication.factor=${rf}`,
          `transaction.state.log.replication.factor=${rf}`,
          `transaction.state.log.min.isr=${Math.min(rf, 2)}`,
          `share.coordinator.state.topic.replication.factor=${rf}`,
          `share.coordinator.state.topic.min.isr=${Math.min(rf, 2)}`,
          'group.initial.rebalance.delay.ms=0',
        ]
      : []),
    ...overrides,
  ];
  if (single) lines.splice(lines.indexOf('inter.broker.listener.name=PLAINTEXT'), 1);
  return lines.join('\n') + '\n';
}

/** `storage format` arguments for a node (after `format -t <id> -c <props>`). */
export function formatArgs(state: LocalState, node: LocalNode): string[] {
  const args = ['--ignore-formatted'];
  if ((state.quorum ?? 'static') === 'dynamic') {
    if (isController(node))
      args.push(
        '--initial-controllers',
        controllersOf(state)
          .map((x) => `${x.id}@${state.host}:${x.controllerPort}:${x.directoryId}`)
          .join(','),
      );
    else args.push('--no-initial-controllers');
  }
  return args;
}
