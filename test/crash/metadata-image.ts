// The metadata image check of the crash-point driver: what a running tkafka serves about topics
// (Metadata v12: topic ids, partitions, leader, leader epoch, replicas, ISR; DescribeConfigs: the
// topic configs set on the topic) must equal the image Apache Kafka's own tooling gets from the
// node's metadata log: Kafka 4.4.0's DumpLogSegments --cluster-metadata-decoder (the kafka-tools
// jar; the MetadataShell's kafka-shell jar is not among the provisioned jars) decodes the latest
// snapshot and the log records after it, and the records are replayed here with the rules of
// Kafka's image classes: TopicRecord, PartitionRecord, PartitionChangeRecord
// (PartitionRegistration.merge: a field absent keeps its value, a leader change (leader != -2)
// bumps the leader epoch), RemoveTopicRecord, ConfigRecord (a null value removes the key).
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKey } from '../../src/protocol/frame.js';
import { RawClient } from '../helpers/raw-client.js';
import { runKafkaTool } from '../interop/helpers/apache-kafka.js';

export interface PartitionImage {
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
}

export interface TopicImage {
  id: string;
  partitions: PartitionImage[];
  configs: Record<string, string>;
}

/** Topic name → image; only user topics (names not starting with "__"). */
export type MetadataImage = Record<string, TopicImage>;

const TOPIC_CONFIG_SOURCE = 1; // DescribeConfigs' TOPIC_CONFIG (DYNAMIC_TOPIC_CONFIG)
const TOPIC_RESOURCE = 2;
const NO_LEADER_CHANGE = -2;

/** The image as tkafka serves it (null when the broker does not answer). */
export async function servedImage(port: number): Promise<MetadataImage | null> {
  let c: RawClient | null = null;
  try {
    c = await RawClient.connect(port);
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const out: MetadataImage = {};
    for (const t of md.topics) {
      if (t.name === null || t.name.startsWith('__')) continue;
      if (t.errorCode !== 0) return null;
      out[t.name] = {
        id: t.topicId,
        partitions: [...t.partitions]
          .sort((a, b) => a.partitionIndex - b.partitionIndex)
          .map((p) => ({
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: [...p.replicaNodes],
            isr: [...p.isrNodes],
          })),
        configs: {},
      };
    }
    const names = Object.keys(out).sort();
    if (names.length > 0) {
      const dc = await c.request(ApiKey.DescribeConfigs, 4, {
        resources: names.map((n) => ({ resourceType: TOPIC_RESOURCE, resourceName: n, configurationKeys: null })),
        includeSynonyms: false,
        includeDocumentation: false,
      });
      for (const r of dc.results) {
        if (r.errorCode !== 0) return null;
        for (const e of r.configs)
          if (e.configSource === TOPIC_CONFIG_SOURCE && e.value !== null)
            out[r.resourceName]!.configs[e.name] = e.value;
      }
    }
    return out;
  } catch {
    return null;
  } finally {
    c?.close();
  }
}

interface Payload {
  type: string;
  data: Record<string, unknown>;
}

/** One metadata record line of DumpLogSegments' output: its offset and decoded payload. */
const RECORD_LINE = /^\| offset: (\d+) .* payload: (\{.*\})$/;

/**
 * The image Kafka's DumpLogSegments decodes from a copy of the metadata log folder
 * (`__cluster_metadata-0`): the latest snapshot, then the log's records from its end offset on.
 */
export async function replayedImage(
  metadataDir: string,
): Promise<{ image: MetadataImage; records: number; snapshot: string | null }> {
  const copy = mkdtempSync(join(tmpdir(), 'tkafka-crash-meta-'));
  try {
    // a snapshot being written (.part) or deleted may vanish while the folder is copied
    cpSync(metadataDir, copy, {
      recursive: true,
      filter: (src) => !src.endsWith('.part') && !src.endsWith('.deleted'),
    });
    const files = readdirSync(copy);
    const snapshots = files.filter((f) => /^\d{20}-\d{10}\.checkpoint$/.test(f)).sort();
    const snapshot = snapshots[snapshots.length - 1] ?? null;
    const from = snapshot ? BigInt(snapshot.slice(0, 20)) : 0n;
    const logs = files.filter((f) => /^\d{20}\.log$/.test(f)).sort();
    const args = [
      '--cluster-metadata-decoder',
      '--files',
      [...(snapshot ? [snapshot] : []), ...logs].map((f) => join(copy, f)).join(','),
    ];
    const r = await runKafkaTool('org.apache.kafka.tools.DumpLogSegments', args, { timeoutMs: 120_000 });
    if (r.exitCode !== 0)
      throw new Error(`DumpLogSegments ${args.join(' ')}: exit ${r.exitCode}\n${r.stderr.slice(-2000)}`);
    const image: MetadataImage = {};
    const byId = new Map<string, string>(); // topic id -> name
    let records = 0;
    let inSnapshot = snapshot !== null;
    for (const line of r.stdout.split('\n')) {
      if (line.startsWith('Dumping ')) {
        inSnapshot = line.endsWith('.checkpoint');
        continue;
      }
      const m = RECORD_LINE.exec(line);
      if (!m) continue;
      if (!inSnapshot && BigInt(m[1]!) < from) continue;
      records++;
      apply(image, byId, JSON.parse(m[2]!) as Payload);
    }
    return { image, records, snapshot };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function apply(image: MetadataImage, byId: Map<string, string>, p: Payload): void {
  const d = p.data;
  const topicOf = (id: unknown): TopicImage | undefined => {
    const name = byId.get(String(id));
    return name === undefined ? undefined : image[name];
  };
  switch (p.type) {
    case 'TOPIC_RECORD': {
      const name = String(d.name);
      byId.set(String(d.topicId), name);
      image[name] = { id: String(d.topicId), partitions: [], configs: image[name]?.configs ?? {} };
      return;
    }
    case 'REMOVE_TOPIC_RECORD': {
      const name = byId.get(String(d.topicId));
      if (name !== undefined) {
        delete image[name];
        byId.delete(String(d.topicId));
      }
      return;
    }
    case 'PARTITION_RECORD': {
      const t = topicOf(d.topicId);
      if (!t) return;
      t.partitions[Number(d.partitionId)] = {
        leader: Number(d.leader),
        leaderEpoch: Number(d.leaderEpoch),
        replicas: (d.replicas as number[]).slice(),
        isr: (d.isr as number[]).slice(),
      };
      return;
    }
    case 'PARTITION_CHANGE_RECORD': {
      const t = topicOf(d.topicId);
      const prev = t?.partitions[Number(d.partitionId)];
      if (!t || !prev) return;
      const leader = d.leader === undefined ? NO_LEADER_CHANGE : Number(d.leader);
      t.partitions[Number(d.partitionId)] = {
        leader: leader === NO_LEADER_CHANGE ? prev.leader : leader,
        leaderEpoch: leader === NO_LEADER_CHANGE ? prev.leaderEpoch : prev.leaderEpoch + 1,
        replicas: d.replicas == null ? prev.replicas : (d.replicas as number[]).slice(),
        isr: d.isr == null ? prev.isr : (d.isr as number[]).slice(),
      };
      return;
    }
    case 'CONFIG_RECORD': {
      if (Number(d.resourceType) !== TOPIC_RESOURCE) return;
      const name = String(d.resourceName);
      // a topic's configs may be written before its TopicRecord (CreateTopics writes them first)
      const t = (image[name] ??= { id: '', partitions: [], configs: {} });
      if (d.value === null || d.value === undefined) delete t.configs[String(d.name)];
      else t.configs[String(d.name)] = String(d.value);
      return;
    }
    default:
      return;
  }
}

/** Normalized for comparison: user topics with an id, sorted keys, ISR sorted. */
export function normalize(image: MetadataImage): string {
  const names = Object.keys(image)
    .filter((n) => !n.startsWith('__') && image[n]!.id !== '')
    .sort();
  return JSON.stringify(
    names.map((n) => {
      const t = image[n]!;
      return {
        name: n,
        id: t.id,
        partitions: t.partitions.map((p) => ({ ...p, isr: [...p.isr].sort((a, b) => a - b) })),
        configs: Object.fromEntries(Object.entries(t.configs).sort(([a], [b]) => a.localeCompare(b))),
      };
    }),
  );
}

/** What differs between two images, one line per topic (empty when equal). */
export function diffImages(served: MetadataImage, replayed: MetadataImage): string[] {
  const a = JSON.parse(normalize(served)) as { name: string }[];
  const b = JSON.parse(normalize(replayed)) as { name: string }[];
  const out: string[] = [];
  const names = new Set([...a.map((t) => t.name), ...b.map((t) => t.name)]);
  for (const n of names) {
    const x = JSON.stringify(a.find((t) => t.name === n) ?? null);
    const y = JSON.stringify(b.find((t) => t.name === n) ?? null);
    if (x !== y) out.push(`${n}: served ${x} replayed ${y}`);
  }
  return out;
}
