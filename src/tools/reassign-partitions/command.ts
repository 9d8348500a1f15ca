// The five actions of ReassignPartitionsCommand (Kafka 4.4): generate, execute, verify, cancel and
// list. Each reads the cluster through the Admin calls Kafka's tool makes (in the same order, so
// failures surface at the same point), prints Kafka's lines as it goes (text mode) and returns a
// view model (printed by main.ts for --output json).
import type { KafkaClient, Target } from '../../client/client.js';
import type { ClusterDescription } from '../../client/admin/cluster.js';
import { ApiError } from '../../client/errors.js';
import {
  compareReplicas,
  compareTopicPartitions,
  checkExecuteAssignment,
  formatReassignmentJson,
  intSetOrder,
  parseGenerateArgs,
  parseReassignmentJson,
  InvalidReplicationFactorError,
  ReassignCommandError,
  replicaKey,
  stringSetOrder,
  tpHash,
  hashSetOrder,
  tpKey,
  TerseError,
  type PartitionTarget,
  type ReplicaLogDir,
  type TopicPartition,
} from './json.js';
import {
  BROKER_LEVEL_THROTTLES,
  FOLLOWER_RATE,
  FOLLOWER_REPLICAS,
  LEADER_RATE,
  LEADER_REPLICAS,
  LOG_DIRS_RATE,
  TOPIC_LEVEL_THROTTLES,
  followerThrottles,
  leaderThrottles,
  proposedMoveMap,
  reassigningBrokers,
} from './throttles.js';

export const CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE =
  'Cannot execute because there is an existing partition assignment.  Use --additional to override this and create a new partition assignment in addition to the existing one. The --additional flag can also be used to change the throttle by resubmitting the current reassignment.';
export const YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE =
  'Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.';

/** What an action needs: the clients, where controller requests go, the text output, a clock. */
export interface ReassignContext {
  /** Bootstrapped at the brokers (or, with --bootstrap-controller, at the active controller). */
  client: KafkaClient;
  /** Where ListPartitionReassignments / AlterPartitionReassignments go. */
  controllerTarget: Target;
  /** DescribeCluster's endpoint type (controllers with --bootstrap-controller). */
  endpointType: 'broker' | 'controller';
  /** Kafka's println (text mode only). */
  println(line: string): void;
  /** Kafka's print: no newline. */
  print(text: string): void;
  now(): number;
  sleep(ms: number): Promise<void>;
}

const plural = (n: number): string => (n === 1 ? '' : 's');

// ---- Admin calls, as ReassignPartitionsCommand uses them ---------------------------------------

async function describeClusterNodes(ctx: ReassignContext): Promise<ClusterDescription['nodes']> {
  const { describeCluster } = await import('../../client/admin/cluster.js');
  return (await describeCluster(ctx.client, { endpointType: ctx.endpointType })).nodes;
}

async function listReassignments(ctx: ReassignContext, partitions: TopicPartition[] | null) {
  const { listPartitionReassignments } = await import('../../client/admin/topics.js');
  return listPartitionReassignments(ctx.client, partitions, ctx.controllerTarget);
}

/**
 * describeTopics: each topic's partitions' replicas, by partition. An unknown topic fails as `Topic foo
 * not found.`, or, for verify (`unknown: 'skip'`), is left out (its partitions count as done, with no
 * replicas).
 */
async function describeTopicReplicas(
  ctx: ReassignContext,
  topics: string[],
  unknown: 'fail' | 'skip' = 'fail',
): Promise<Map<string, { partition: number; replicas: number[] }[]>> {
  const { describeTopics } = await import('../../client/admin/topics.js');
  const results = await describeTopics(ctx.client, topics);
  const out = new Map<string, { partition: number; replicas: number[] }[]>();
  // Kafka walks the futures in HashMap order and throws the first failure.
  for (const name of stringSetOrder(topics)) {
    const r = results.get(name);
    if (!r) continue;
    if (!r.ok) {
      if (r.error instanceof ApiError && r.error.code === 3) {
        if (unknown === 'skip') continue;
        throw new ApiError(3, `Topic ${name} not found.`);
      }
      throw r.error;
    }
    out.set(
      name,
      [...r.value.partitions]
        .sort((a, b) => a.partition - b.partition)
        .map((p) => ({ partition: p.partition, replicas: p.replicas })),
    );
  }
  return out;
}

/** incrementalAlterConfigs(...).all().get(): the first failure is thrown. */
async function alterConfigsAll(
  ctx: ReassignContext,
  changes: { type: 'topic' | 'broker'; name: string; ops: { name: string; value: string | null }[] }[],
): Promise<void> {
  if (changes.length === 0) return;
  const { incrementalAlterConfigs, OpType, ResourceType } = await import('../../client/admin/configs.js');
  const results = await incrementalAlterConfigs(
    ctx.client,
    changes.map((c) => ({
      resource: { type: c.type === 'topic' ? ResourceType.TOPIC : ResourceType.BROKER, name: c.name },
      ops: c.ops.map((o) => ({ name: o.name, op: o.value === null ? OpType.DELETE : OpType.SET, value: o.value })),
    })),
    false,
    ctx.endpointType === 'controller',
  );
  for (const r of results.values()) if (!r.ok) throw r.error;
}

/** getReplicaToLogDir: the current log dir of each replica on a live broker (others: "any"). */
async function replicaLogDirs(
  ctx: ReassignContext,
  parts: readonly PartitionTarget[],
  liveBrokers: ReadonlySet<number>,
): Promise<Map<string, string>> {
  const replicas = parts.flatMap((p) =>
    p.replicas
      .filter((b) => liveBrokers.has(b))
      .map((brokerId) => ({ topic: p.topic, partition: p.partition, brokerId })),
  );
  if (replicas.length === 0) return new Map();
  const { describeReplicaLogDirs } = await import('../../client/admin/reassignments.js');
  const infos = await describeReplicaLogDirs(ctx.client, replicas);
  const out = new Map<string, string>();
  for (const [key, info] of infos) if (info.current !== null) out.set(key, info.current);
  return out;
}

// ---- generate -----------------------------------------------------------------------------------

export interface GenerateView {
  current: ReassignmentDocument;
  proposed: ReassignmentDocument;
}

/** The reassignment JSON as an object (the same shape Kafka prints). */
export interface ReassignmentDocument {
  version: 1;
  partitions: { topic: string; partition: number; replicas: number[]; log_dirs: string[] }[];
}

const doc = (parts: readonly PartitionTarget[], dirs?: ReadonlyMap<string, string>): ReassignmentDocument =>
  JSON.parse(formatReassignmentJson(parts, dirs)) as ReassignmentDocument;

export async function generateAssignment(
  ctx: ReassignContext,
  topicsJson: string,
  brokerList: string,
  rackAware: boolean,
  random?: (n: number) => number,
): Promise<GenerateView> {
  const { brokers, topics } = parseGenerateArgs(topicsJson, brokerList);
  const described = await describeTopicReplicas(ctx, topics);
  const current: PartitionTarget[] = [];
  for (const [topic, ps] of described) for (const p of ps) current.push({ topic, ...p });
  const nodes = await describeClusterNodes(ctx);
  const currentDirs = await replicaLogDirs(ctx, current, new Set(nodes.map((n) => n.id)));
  const wanted = new Set(brokers);
  const usable = nodes
    .filter((n) => wanted.has(n.id))
    .map((n) => ({ id: n.id, rack: rackAware && n.rack !== null ? n.rack : null, fenced: false }));
  const rackless = usable.filter((b) => b.rack === null).length;
  if (rackAware && rackless !== 0 && rackless !== usable.length) {
    throw new ReassignCommandError(
      'Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information.',
    );
  }
  const [{ placeReplicas }, { ErrorCode, KafkaError }] = await Promise.all([
    import('../../client/admin/replica-placer.js'),
    import('../../protocol/errors.js'),
  ]);
  const proposed: PartitionTarget[] = [];
  for (const topic of stringSetOrder([...described.keys()])) {
    const ps = described.get(topic)!;
    if (ps.length === 0) continue;
    const rf = ps[0]!.replicas.length;
    let placed: number[][];
    try {
      placed = placeReplicas(usable, ps.length, rf, random);
    } catch (e) {
      if (e instanceof KafkaError && e.code === ErrorCode.INVALID_REPLICATION_FACTOR)
        throw new InvalidReplicationFactorError(e.message);
      throw e;
    }
    placed.forEach((replicas, i) => proposed.push({ topic, partition: i, replicas }));
  }
  ctx.println(`Current partition replica assignment\n${formatReassignmentJson(current, currentDirs)}\n`);
  ctx.println(`Proposed partition reassignment configuration\n${formatReassignmentJson(proposed)}`);
  return { current: doc(current, currentDirs), proposed: doc(proposed) };
}

// ---- execute ------------------------------------------------------------------------------------

export interface ExecuteView {
  current: ReassignmentDocument;
  interBrokerThrottle: number | null;
  logDirThrottle: number | null;
  started: string[];
  logDirMoves: { topic: string; partition: number; brokerId: number; logDir: string }[];
}

export interface ExecuteOptions {
  additional: boolean;
  interBrokerThrottle: bigint;
  logDirThrottle: bigint;
  timeoutMs: bigint;
  disallowReplicationFactorChange: boolean;
}

export async function executeAssignment(
  ctx: ReassignContext,
  reassignmentJson: string,
  opts: ExecuteOptions,
): Promise<ExecuteView> {
  const data = parseReassignmentJson(reassignmentJson);
  const proposed = checkExecuteAssignment(data);
  const ongoing = await listReassignments(ctx, null);
  if (!opts.additional && ongoing.size > 0) throw new TerseError(CANNOT_EXECUTE_BECAUSE_OF_EXISTING_MESSAGE);
  // verifyBrokerIds: the first unknown id of a HashSet.
  const nodes = await describeClusterNodes(ctx);
  const known = new Set(nodes.map((n) => n.id));
  const brokers = intSetOrder([...proposed.values()].flatMap((p) => p.replicas));
  const unknown = brokers.find((b) => !known.has(b));
  if (unknown !== undefined) throw new ReassignCommandError(`Unknown broker id ${unknown}`);
  // getReplicasForPartitions
  const described = await describeTopicReplicas(ctx, [...new Set([...proposed.values()].map((p) => p.topic))]);
  const currentParts = new Map<string, PartitionTarget>();
  for (const [topic, ps] of described) {
    for (const p of ps) {
      const key = tpKey({ topic, partition: p.partition });
      if (proposed.has(key)) currentParts.set(key, { topic, ...p });
    }
  }
  const missing = [...proposed.values()].filter((p) => !currentParts.has(tpKey(p)));
  if (missing.length > 0) {
    const names = hashSetOrder(missing, tpHash, tpKey).map(tpKey).join(', ');
    throw new ApiError(3, `Unable to find partition: ${names}`);
  }
  const current = [...currentParts.values()];
  const currentDirs = await replicaLogDirs(ctx, current, known);
  ctx.println(
    `Current partition replica assignment\n\n${formatReassignmentJson(current, currentDirs)}\n\n` +
      'Save this to use as the --reassignment-json-file option during rollback',
  );
  const interBroker = opts.interBrokerThrottle;
  const logDir = opts.logDirThrottle;
  if (interBroker >= 0n || logDir >= 0n) {
    ctx.println(YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE);
    if (interBroker >= 0n) {
      const moves = proposedMoveMap(
        [...ongoing].map(([key, r]) => ({ ...splitTp(key), replicas: r.replicas, addingReplicas: r.addingReplicas })),
        proposed.values(),
        new Map([...currentParts].map(([k, p]) => [k, p.replicas])),
      );
      const leader = leaderThrottles(moves);
      const follower = followerThrottles(moves);
      await alterConfigsAll(
        ctx,
        stringSetOrder([...leader.keys(), ...follower.keys()]).map((topic) => ({
          type: 'topic' as const,
          name: topic,
          ops: [
            ...(leader.has(topic) ? [{ name: LEADER_REPLICAS, value: leader.get(topic)! }] : []),
            ...(follower.has(topic) ? [{ name: FOLLOWER_REPLICAS, value: follower.get(topic)! }] : []),
          ],
        })),
      );
      await alterConfigsAll(
        ctx,
        reassigningBrokers(moves).map((b) => ({
          type: 'broker' as const,
          name: String(b),
          ops: [
            { name: LEADER_RATE, value: interBroker.toString() },
            { name: FOLLOWER_RATE, value: interBroker.toString() },
          ],
        })),
      );
      ctx.println(`The inter-broker throttle limit was set to ${interBroker} B/s`);
    }
    if (logDir >= 0n) {
      await alterConfigsAll(
        ctx,
        intSetOrder(data.logDirs.map((r) => r.brokerId)).map((b) => ({
          type: 'broker' as const,
          name: String(b),
          ops: [{ name: LOG_DIRS_RATE, value: logDir.toString() }],
        })),
      );
      ctx.println(`The replica-alter-dir throttle limit was set to ${logDir} B/s`);
    }
  }
  const { alterPartitionReassignments } = await import('../../client/admin/reassignments.js');
  const results = await alterPartitionReassignments(ctx.client, [...proposed.values()], {
    allowReplicationFactorChange: !opts.disallowReplicationFactorChange,
    target: ctx.controllerTarget,
  });
  const errors = [...proposed.values()]
    .filter((p) => results.get(tpKey(p))?.ok === false)
    .sort(compareTopicPartitions)
    .map((p) => {
      const r = results.get(tpKey(p))!;
      return `${tpKey(p)}: ${r.ok ? '' : r.error.message}`;
    });
  if (errors.length > 0) throw new TerseError(`Error reassigning partition(s):\n${errors.join('\n')}`);
  const started = [...proposed.values()].sort(compareTopicPartitions).map(tpKey);
  ctx.println(`Successfully started partition reassignment${plural(started.length)} for ${started.join(',')}`);
  const moved = data.logDirs.length > 0 ? await executeMoves(ctx, data.logDirs, opts.timeoutMs) : [];
  return {
    current: doc(current, currentDirs),
    interBrokerThrottle: interBroker >= 0n ? Number(interBroker) : null,
    logDirThrottle: logDir >= 0n ? Number(logDir) : null,
    started,
    logDirMoves: moved,
  };
}

function splitTp(key: string): TopicPartition {
  const i = key.lastIndexOf('-');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}

/**
 * executeMoves: AlterReplicaLogDirs until every replica's move has started (a replica the broker
 * does not host yet answers REPLICA_NOT_AVAILABLE: retried every 100 ms until the timeout).
 */
async function executeMoves(
  ctx: ReassignContext,
  moves: readonly ReplicaLogDir[],
  timeoutMs: bigint,
): Promise<ReplicaLogDir[]> {
  const { alterReplicaLogDirs } = await import('../../client/admin/reassignments.js');
  const start = ctx.now();
  const pending = new Map(moves.map((m) => [replicaKey(m), m]));
  const done: ReplicaLogDir[] = [];
  for (;;) {
    const results = await alterReplicaLogDirs(ctx.client, [...pending.values()]);
    const completed: ReplicaLogDir[] = [];
    for (const [key, m] of pending) {
      const r = results.get(key);
      if (r?.ok) completed.push(m);
      else if (!(r && r.error instanceof ApiError && r.error.code === 9))
        throw new ReassignCommandError(`Failed to alter dir for ${key}`);
    }
    completed.sort(compareReplicas);
    for (const m of completed) {
      ctx.println(
        `Successfully started moving log directory to ${m.logDir} for replica ${m.topic}-${m.partition} with broker ${m.brokerId} `,
      );
      pending.delete(replicaKey(m));
      done.push(m);
    }
    if (pending.size === 0) return done;
    if (ctx.now() >= start + Number(timeoutMs)) {
      const left = [...pending.values()].sort(compareReplicas).map(replicaKey);
      throw new TerseError(
        `Timed out before log directory move${plural(left.length)} could be started for: ${left.join(',')}`,
      );
    }
    await ctx.sleep(100);
  }
}

// ---- verify -------------------------------------------------------------------------------------

export type PartitionState = 'completed' | 'in-progress' | 'mismatch';

export interface VerifyView {
  partitions: {
    topic: string;
    partition: number;
    state: PartitionState;
    currentReplicas: number[];
    targetReplicas: number[];
  }[];
  replicas: {
    topic: string;
    partition: number;
    brokerId: number;
    state: MoveStateName;
    currentLogDir: string | null;
    targetLogDir: string;
    futureLogDir: string | null;
  }[];
  /** The throttles cleared, or null when they were kept. */
  throttlesCleared: { brokers: number[]; topics: string[] } | null;
}

export type MoveStateName = 'missing-replica' | 'missing-log-dir' | 'active' | 'cancelled' | 'completed';

export interface MoveState {
  replica: ReplicaLogDir;
  state: MoveStateName;
  current: string | null;
  future: string | null;
}

const moveDone = (s: MoveState): boolean => s.state === 'completed' || s.state === 'cancelled';

/** findLogDirMoveStates. */
async function findLogDirMoveStates(ctx: ReassignContext, targets: readonly ReplicaLogDir[]): Promise<MoveState[]> {
  if (targets.length === 0) return [];
  const { describeReplicaLogDirs } = await import('../../client/admin/reassignments.js');
  const infos = await describeReplicaLogDirs(ctx.client, targets);
  return targets.map((replica) => {
    const info = infos.get(replicaKey(replica));
    if (!info) return { replica, state: 'missing-replica', current: null, future: null };
    if (info.current === null) return { replica, state: 'missing-log-dir', current: null, future: null };
    if (info.future === null)
      return {
        replica,
        state: info.current === replica.logDir ? 'completed' : 'cancelled',
        current: info.current,
        future: null,
      };
    return { replica, state: 'active', current: info.current, future: info.future };
  });
}

/** replicaMoveStatesToString. */
export function replicaMoveStatesText(states: readonly MoveState[]): string {
  return [...states]
    .sort((a, b) => compareReplicas(a.replica, b.replica))
    .map((s) => {
      const r = s.replica;
      const tp = `${r.topic}-${r.partition}`;
      switch (s.state) {
        case 'missing-log-dir':
          return `Partition ${tp} is not found in any live log dir on broker ${r.brokerId}. There is likely an offline log directory on the broker.`;
        case 'missing-replica':
          return `Partition ${tp} cannot be found in any live log directory on broker ${r.brokerId}.`;
        case 'active':
          return s.future === r.logDir
            ? `Reassignment of replica ${replicaKey(r)} is still in progress.`
            : `Partition ${tp} on broker ${r.brokerId} is being moved to log dir ${s.future} instead of ${r.logDir}.`;
        case 'cancelled':
          return `Partition ${tp} on broker ${r.brokerId} is not being moved from log dir ${s.current} to ${r.logDir}.`;
        case 'completed':
          return `Reassignment of replica ${replicaKey(r)} completed successfully.`;
      }
    })
    .join('\n');
}

/** clearAllThrottles: every live broker and every broker of the file; every topic of the file. */
async function clearAllThrottles(
  ctx: ReassignContext,
  targets: readonly PartitionTarget[],
): Promise<{ brokers: number[]; topics: string[] }> {
  const nodes = await describeClusterNodes(ctx);
  const brokers = intSetOrder([...nodes.map((n) => n.id), ...targets.flatMap((t) => t.replicas)]);
  ctx.println(`Clearing broker-level throttles on broker${plural(brokers.length)} ${brokers.join(',')}`);
  await alterConfigsAll(
    ctx,
    brokers.map((b) => ({
      type: 'broker' as const,
      name: String(b),
      ops: BROKER_LEVEL_THROTTLES.map((name) => ({ name, value: null })),
    })),
  );
  const topics = stringSetOrder(targets.map((t) => t.topic));
  ctx.println(`Clearing topic-level throttles on topic${plural(topics.length)} ${topics.join(',')}`);
  await alterConfigsAll(
    ctx,
    topics.map((t) => ({
      type: 'topic' as const,
      name: t,
      ops: TOPIC_LEVEL_THROTTLES.map((name) => ({ name, value: null })),
    })),
  );
  return { brokers, topics };
}

/** partitionReassignmentStatesToString (the partitions already sorted). */
export function partitionStatesText(partitions: VerifyView['partitions']): string {
  const lines = ['Status of partition reassignment:'];
  for (const p of partitions) {
    const tp = `${p.topic}-${p.partition}`;
    if (p.state === 'completed') lines.push(`Reassignment of partition ${tp} is completed.`);
    else if (p.state === 'in-progress') lines.push(`Reassignment of partition ${tp} is still in progress.`);
    else
      lines.push(
        `There is no active reassignment of partition ${tp}, but replica set is ${p.currentReplicas.join(',')} rather than ${p.targetReplicas.join(',')}.`,
      );
  }
  return lines.join('\n');
}

export async function verifyAssignment(
  ctx: ReassignContext,
  reassignmentJson: string,
  preserveThrottles: boolean,
): Promise<VerifyView> {
  const data = parseReassignmentJson(reassignmentJson);
  // findPartitionReassignmentStates
  const ongoing = await listReassignments(ctx, null);
  const notFound = data.partitions.filter((p) => !ongoing.has(tpKey(p)));
  const topics =
    notFound.length > 0
      ? await describeTopicReplicas(ctx, [...new Set(notFound.map((p) => p.topic))], 'skip')
      : new Map();
  const states = new Map<string, { tp: PartitionTarget; current: number[]; done: boolean }>();
  for (const p of data.partitions) {
    const r = ongoing.get(tpKey(p));
    if (r) {
      states.set(tpKey(p), { tp: p, current: r.replicas, done: false });
      continue;
    }
    const t = topics.get(p.topic);
    if (!t) {
      states.set(tpKey(p), { tp: p, current: [], done: true });
      continue;
    }
    // Kafka checks `size < partition` (then `get(partition)` may run past the end).
    if (t.length < p.partition) states.set(tpKey(p), { tp: p, current: [], done: true });
    else if (t.length === p.partition)
      throw new ReassignCommandError(`Index ${p.partition} out of bounds for length ${t.length}`);
    else states.set(tpKey(p), { tp: p, current: t[p.partition]!.replicas, done: true });
  }
  const sorted = [...states.values()].sort((a, b) => compareTopicPartitions(a.tp, b.tp));
  const partitions = sorted.map((s) => {
    const same = s.current.length === s.tp.replicas.length && s.current.every((b, i) => b === s.tp.replicas[i]);
    const state: PartitionState = !s.done ? 'in-progress' : same ? 'completed' : 'mismatch';
    return {
      topic: s.tp.topic,
      partition: s.tp.partition,
      state,
      currentReplicas: s.current,
      targetReplicas: s.tp.replicas,
    };
  });
  ctx.println(partitionStatesText(partitions));
  const partsOngoing = ongoing.size > 0;
  const moves = await findLogDirMoveStates(ctx, data.logDirs);
  ctx.println(replicaMoveStatesText(moves));
  const movesOngoing = !moves.every(moveDone);
  const cleared =
    !partsOngoing && !movesOngoing && !preserveThrottles ? await clearAllThrottles(ctx, data.partitions) : null;
  return {
    partitions,
    replicas: [...moves]
      .sort((a, b) => compareReplicas(a.replica, b.replica))
      .map((m) => ({
        topic: m.replica.topic,
        partition: m.replica.partition,
        brokerId: m.replica.brokerId,
        state: m.state,
        currentLogDir: m.current,
        targetLogDir: m.replica.logDir,
        futureLogDir: m.future,
      })),
    throttlesCleared: cleared,
  };
}

// ---- cancel -------------------------------------------------------------------------------------

export interface CancelView {
  cancelled: string[];
  logDirMoves: { topic: string; partition: number; brokerId: number; logDir: string }[];
  throttlesCleared: { brokers: number[]; topics: string[] } | null;
}

export async function cancelAssignment(
  ctx: ReassignContext,
  reassignmentJson: string,
  preserveThrottles: boolean,
  timeoutMs: bigint,
): Promise<CancelView> {
  const data = parseReassignmentJson(reassignmentJson);
  const targets = [
    ...new Map(data.partitions.map((p) => [tpKey(p), { topic: p.topic, partition: p.partition }])).values(),
  ];
  const ongoing = await listReassignments(ctx, targets);
  const reassigning = [...ongoing]
    .filter(([, r]) => r.addingReplicas.length > 0 || r.removingReplicas.length > 0)
    .map(([key]) => splitTp(key))
    .sort(compareTopicPartitions);
  if (reassigning.length > 0) {
    const { alterPartitionReassignments } = await import('../../client/admin/reassignments.js');
    const results = await alterPartitionReassignments(
      ctx.client,
      reassigning.map((tp) => ({ ...tp, replicas: null })),
      { target: ctx.controllerTarget },
    );
    const errors = reassigning.filter((tp) => results.get(tpKey(tp))?.ok === false);
    if (errors.length > 0) {
      const lines = errors.map((tp) => {
        const r = results.get(tpKey(tp))!;
        return `${tpKey(tp)}: ${r.ok ? '' : r.error.message}`;
      });
      throw new TerseError(`Error cancelling partition reassignment${plural(errors.length)} for:\n${lines.join('\n')}`);
    }
    ctx.println(
      `Successfully cancelled partition reassignment${plural(reassigning.length)} for: ${reassigning.map(tpKey).join(',')}`,
    );
  } else ctx.println('None of the specified partition reassignments are active.');
  const active = (await findLogDirMoveStates(ctx, data.logDirs))
    .filter((s) => s.state === 'active')
    .map((s) => ({ ...s.replica, logDir: s.current! }));
  let moved: ReplicaLogDir[] = [];
  if (active.length === 0) ctx.print('None of the specified partition moves are active.');
  else moved = await executeMoves(ctx, active, timeoutMs);
  const cleared = preserveThrottles ? null : await clearAllThrottles(ctx, data.partitions);
  return { cancelled: reassigning.map(tpKey), logDirMoves: moved, throttlesCleared: cleared };
}

// ---- list ---------------------------------------------------------------------------------------

export interface ListView {
  reassignments: {
    topic: string;
    partition: number;
    replicas: number[];
    addingReplicas: number[];
    removingReplicas: number[];
  }[];
}

export async function listAssignments(ctx: ReassignContext): Promise<ListView> {
  const ongoing = await listReassignments(ctx, null);
  const rows = [...ongoing]
    .map(([key, r]) => ({
      ...splitTp(key),
      replicas: r.replicas,
      addingReplicas: r.addingReplicas,
      removingReplicas: r.removingReplicas,
    }))
    .sort(compareTopicPartitions);
  const text = rows
    .map(
      (r) =>
        `${r.topic}-${r.partition}: replicas: ${r.replicas.join(',')}.` +
        (r.addingReplicas.length > 0 ? ` adding: ${r.addingReplicas.join(',')}.` : '') +
        (r.removingReplicas.length > 0 ? ` removing: ${r.removingReplicas.join(',')}.` : ''),
    )
    .join('\n');
  ctx.println(text === '' ? 'No partition reassignments found.' : `Current partition reassignments:\n${text}`);
  return { reassignments: rows };
}
