// `tkafka reassign-partitions --list --watch [seconds]` (a tkafka extension): the ongoing
// reassignments refreshed live — for every replica being added, the bytes it holds against the
// existing replicas' bytes (DescribeLogDirs on the brokers of the partition), the rate, the ETA —
// until no reassignment is left. The numbers: common/live/reassign-model.ts; the loop:
// common/live/watch-loop.ts.
import type { TtyIO } from '../common/tty.js';
import type { LogDirDescription } from '../../client/admin/cluster.js';
import type { ReassignPartitionSample, ReassignSample } from '../common/live/reassign-model.js';
import type { ReassignContext } from './command.js';
import { importSrc } from '../common/import-src.js';

/** Bytes of each replica of the asked partitions on one broker, keyed `topic\0partition` (futures left out). */
function replicaBytes(dirs: readonly LogDirDescription[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of dirs)
    for (const r of d.replicas) {
      if (r.isFuture) continue;
      const key = `${r.topic}\u0000${r.partition}`;
      out.set(key, (out.get(key) ?? 0) + Number(r.size));
    }
  return out;
}

/** One sample: ListPartitionReassignments, then DescribeLogDirs on every broker of those partitions. */
export async function sampleReassignments(ctx: ReassignContext): Promise<ReassignSample> {
  const [{ listPartitionReassignments }, { describeLogDirs }] = await Promise.all([
    import('../../client/admin/topics.js'),
    import('../../client/admin/cluster.js'),
  ]);
  const ongoing = await listPartitionReassignments(ctx.client, null, ctx.controllerTarget);
  const at = Date.now();
  const parts = [...ongoing].map(([key, r]) => {
    const dash = key.lastIndexOf('-');
    return { topic: key.slice(0, dash), partition: Number(key.slice(dash + 1)), ...r };
  });
  const byTopic = new Map<string, number[]>();
  for (const p of parts) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  const topics = [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
  const brokers = [...new Set(parts.flatMap((p) => p.replicas))];
  // A broker that does not answer (down, restarting) leaves its replicas unknown, not the sample failed.
  const sizes = new Map<number, Map<string, number>>();
  await Promise.all(
    brokers.map(async (b) => {
      try {
        const dirs = (await describeLogDirs(ctx.client, [b], topics)).get(b) ?? [];
        sizes.set(b, replicaBytes(dirs));
      } catch {
        /* unknown this time */
      }
    }),
  );
  const size = (broker: number, key: string): number | null => {
    const m = sizes.get(broker);
    return m ? (m.get(key) ?? null) : null;
  };
  const partitions: ReassignPartitionSample[] = parts.map((p) => {
    const key = `${p.topic}\u0000${p.partition}`;
    const existing = p.replicas
      .filter((b) => !p.addingReplicas.includes(b))
      .map((b) => size(b, key))
      .filter((s): s is number => s !== null);
    return {
      topic: p.topic,
      partition: p.partition,
      replicas: p.replicas,
      adding: p.addingReplicas,
      removing: p.removingReplicas,
      sourceBytes: existing.length > 0 ? Math.max(...existing) : null,
      addingBytes: new Map(p.addingReplicas.map((b) => [b, size(b, key)])),
    };
  });
  return { at, partitions };
}

/** Runs the watch; resolves with the exit status. */
export async function watchReassignments(
  ctx: ReassignContext,
  io: TtyIO,
  opts: { intervalMs: number; source: string },
): Promise<number> {
  const [{ runWatch }, { ReassignTracker, plainLines }] = await Promise.all([
    import('../common/live/watch-loop.js'),
    import('../common/live/reassign-model.js'),
  ]);
  const tracker = new ReassignTracker(Math.max(10_000, 5 * opts.intervalMs));
  return runWatch(
    {
      sample: () => sampleReassignments(ctx),
      failed: (at, error) => ({ at, partitions: [], error }),
      frame: (s) => tracker.add(s),
      plainLines,
      mountView: async (stream) =>
        (
          (await importSrc('tools/common/live/reassign-view.js')) as typeof import('../common/live/reassign-view.js')
        ).mountReassignView(stream),
      isFinal: (f) => f.done,
    },
    io,
    opts,
  );
}
