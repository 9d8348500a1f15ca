// The JSON files of ReassignPartitionsCommand (Kafka 4.4): the topics-to-move file of --generate
// (parseTopicsData), the reassignment file of --execute/--verify/--cancel
// (parsePartitionReassignmentData, parseExecuteAssignmentArgs' checks) and the reassignment JSON it
// prints (formatAsReassignmentJson), with Kafka's messages (Jackson's and DecodeJson's for
// malformed input). Also the Java collection orders that show in those messages.
import { JavaHashMapOrder, javaStringHash } from '../topics/java-order.js';

/** AdminCommandFailedException / AdminOperationException / JsonMappingException: printed `Error: <message>`. */
export class ReassignCommandError extends Error {
  override name = 'ReassignCommandError';
}

/** InvalidReplicationFactorException from the placer (printed `Error: <message>`). */
export class InvalidReplicationFactorError extends Error {
  override name = 'InvalidReplicationFactorError';
  javaString(): string {
    return `org.apache.kafka.common.errors.InvalidReplicationFactorException: ${this.message}`;
  }
}

/** TerseException: printed as the bare message. */
export class TerseError extends Error {
  override name = 'TerseError';
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface PartitionTarget extends TopicPartition {
  replicas: number[];
}

export interface ReplicaLogDir extends TopicPartition {
  brokerId: number;
  logDir: string;
}

export const tpKey = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;
export const replicaKey = (r: TopicPartition & { brokerId: number }): string =>
  `${r.topic}-${r.partition}-${r.brokerId}`;

/** ReassignPartitionsCommand.compareTopicPartitions. */
export function compareTopicPartitions(a: TopicPartition, b: TopicPartition): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  return a.partition - b.partition;
}

/** ReassignPartitionsCommand.compareTopicPartitionReplicas: broker, then topic, then partition. */
export function compareReplicas(a: ReplicaLogDir, b: ReplicaLogDir): number {
  return a.brokerId !== b.brokerId ? a.brokerId - b.brokerId : compareTopicPartitions(a, b);
}

// ---- Java orders ------------------------------------------------------------------------------

/** TopicPartition.hashCode. */
export const tpHash = (tp: TopicPartition): number =>
  (Math.imul(31, (31 + tp.partition) | 0) + javaStringHash(tp.topic)) | 0;

/** Iteration order of a `new HashSet<>()` filled with `items` (deduplicated by `key`). */
export function hashSetOrder<T>(items: readonly T[], hash: (t: T) => number, key: (t: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const it of items) if (!byKey.has(key(it))) byKey.set(key(it), it);
  const m = new JavaHashMapOrder<string>((k) => hash(byKey.get(k)!));
  for (const k of byKey.keys()) m.put(k);
  return m.keys().map((k) => byKey.get(k)!);
}

export const intSetOrder = (xs: readonly number[]): number[] =>
  hashSetOrder(
    xs,
    (x) => x | 0,
    (x) => String(x),
  );
export const stringSetOrder = (xs: readonly string[]): string[] => hashSetOrder(xs, javaStringHash, (x) => x);

/** ToolsUtils.duplicates: the elements seen more than once, as a HashSet. */
function duplicates<T>(items: readonly T[], hash: (t: T) => number, key: (t: T) => string): T[] {
  const seen = new Set<string>();
  const dups: T[] = [];
  for (const it of items) {
    if (seen.has(key(it))) dups.push(it);
    else seen.add(key(it));
  }
  return hashSetOrder(dups, hash, key);
}

// ---- parsing (Kafka's Json / DecodeJson) ------------------------------------------------------

/** Jackson's JsonNode.toString, for DecodeJson's messages. */
const nodeText = (v: unknown): string => JSON.stringify(v);

function asObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ReassignCommandError(`Expected JSON object, received ${nodeText(v)}`);
  return v as Record<string, unknown>;
}

function asArray(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new ReassignCommandError(`Expected JSON array, received ${nodeText(v)}`);
  return v;
}

function asInt(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647)
    throw new ReassignCommandError(`Expected \`Integer\` value, received ${nodeText(v)}`);
  return v;
}

function asString(v: unknown): string {
  if (typeof v !== 'string') throw new ReassignCommandError(`Expected \`String\` value, received ${nodeText(v)}`);
  return v;
}

function field(o: Record<string, unknown>, name: string): unknown {
  if (!(name in o)) throw new ReassignCommandError(`No such field exists: \`${name}\``);
  return o[name];
}

function version(root: Record<string, unknown>): number {
  const v = 'version' in root ? asInt(root.version) : 1;
  if (v !== 1) throw new ReassignCommandError(`Not supported version field value ${v}`);
  return v;
}

/** parseTopicsData: the topics of a topics-to-move file, in file order. */
export function parseTopicsJson(text: string): string[] {
  let js: unknown;
  try {
    js = JSON.parse(text);
  } catch {
    throw new ReassignCommandError('The input string is not a valid JSON');
  }
  const root = asObject(js);
  version(root);
  if (!('topics' in root)) return [];
  return asArray(root.topics).map((t) => asString(field(asObject(t), 'topic')));
}

export interface ReassignmentData {
  /** In file order. */
  partitions: PartitionTarget[];
  /** Replicas with a log dir other than "any". */
  logDirs: ReplicaLogDir[];
}

/** parsePartitionReassignmentData. */
export function parseReassignmentJson(text: string): ReassignmentData {
  let js: unknown;
  try {
    js = JSON.parse(text);
  } catch (e) {
    // AdminOperationException(JsonParseException): the parser's message (Jackson's wording differs).
    throw new ReassignCommandError((e as Error).message);
  }
  const root = asObject(js);
  version(root);
  const partitions: PartitionTarget[] = [];
  const logDirs = new Map<string, ReplicaLogDir>();
  if ('partitions' in root) {
    for (const p of asArray(root.partitions)) {
      const o = asObject(p);
      const topic = asString(field(o, 'topic'));
      const partition = asInt(field(o, 'partition'));
      const replicas = asArray(field(o, 'replicas')).map(asInt);
      const dirs = 'log_dirs' in o ? asArray(o.log_dirs).map(asString) : replicas.map(() => 'any');
      if (replicas.length !== dirs.length) {
        throw new ReassignCommandError(
          `Size of replicas list [${replicas.join(', ')}] is different from size of log dirs list [${dirs.join(', ')}] for partition ${topic}-${partition}`,
        );
      }
      partitions.push({ topic, partition, replicas });
      dirs.forEach((logDir, i) => {
        if (logDir === 'any') return;
        const r = { topic, partition, brokerId: replicas[i]!, logDir };
        logDirs.set(replicaKey(r), r);
      });
    }
  }
  return { partitions, logDirs: [...logDirs.values()] };
}

/** parseExecuteAssignmentArgs' checks; the partitions keyed `topic-partition` (a later duplicate wins). */
export function checkExecuteAssignment(data: ReassignmentData): Map<string, PartitionTarget> {
  const parts = data.partitions;
  if (parts.length === 0) throw new ReassignCommandError('Partition reassignment list cannot be empty');
  if (parts.some((p) => p.replicas.length === 0))
    throw new ReassignCommandError('Partition replica list cannot be empty');
  const dupParts = duplicates(parts, tpHash, tpKey);
  if (dupParts.length > 0) {
    throw new ReassignCommandError(
      `Partition reassignment contains duplicate topic partitions: ${dupParts.map(tpKey).join(',')}`,
    );
  }
  const dupEntries = parts
    .map((p) => ({ p, dups: duplicates(p.replicas, (x) => x | 0, String) }))
    .filter((d) => d.dups.length > 0);
  if (dupEntries.length > 0) {
    const msg = dupEntries.map((d) => `${tpKey(d.p)} contains multiple entries for ${d.dups.join(',')}`).join('. ');
    throw new ReassignCommandError(`Partition replica lists may not contain duplicate entries: ${msg}`);
  }
  return new Map(parts.map((p) => [tpKey(p), p]));
}

/** parseGenerateAssignmentArgs: the broker list and the topics, with Kafka's duplicate checks. */
export function parseGenerateArgs(topicsJson: string, brokerList: string): { brokers: number[]; topics: string[] } {
  const brokers = brokerList.split(',').map((s) => {
    // Integer.parseInt
    if (!/^[+-]?\d+$/.test(s) || Number(s) < -2147483648 || Number(s) > 2147483647)
      throw new ReassignCommandError(`For input string: "${s}"`);
    return Number(s);
  });
  const dupBrokers = duplicates(brokers, (x) => x | 0, String);
  if (dupBrokers.length > 0)
    throw new ReassignCommandError(`Broker list contains duplicate entries: [${dupBrokers.join(', ')}]`);
  const topics = parseTopicsJson(topicsJson);
  const dupTopics = duplicates(topics, javaStringHash, (x) => x);
  if (dupTopics.length > 0)
    throw new ReassignCommandError(`List of topics to reassign contains duplicate entries: [${dupTopics.join(', ')}]`);
  return { brokers, topics };
}

// ---- output -----------------------------------------------------------------------------------

/** formatAsReassignmentJson: compact, sorted by topic and partition, `log_dirs` always present. */
export function formatReassignmentJson(
  parts: readonly PartitionTarget[],
  logDirs: ReadonlyMap<string, string> = new Map(),
): string {
  const sorted = [...parts].sort(compareTopicPartitions);
  return JSON.stringify({
    version: 1,
    partitions: sorted.map((p) => ({
      topic: p.topic,
      partition: p.partition,
      replicas: p.replicas,
      log_dirs: p.replicas.map((b) => logDirs.get(replicaKey({ ...p, brokerId: b })) ?? 'any'),
    })),
  });
}
