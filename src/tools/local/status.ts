// `tkafka local status`: each node's role, process, whether it serves, its place in the KRaft
// quorum (leader / follower / observer, with the leader epoch) and its lag (the leader's log end
// offset minus its own, as `metadata-quorum describe --replication` computes it), from one
// DescribeQuorum to the controllers (--bootstrap-controller, as Kafka's Admin sends it).
import { join } from 'node:path';
import type { ToolIO } from '../common/io.js';
import type { QuorumInfo } from '../metadata-quorum/quorum.js';
import { controllersOf, isBroker, isController, readState, rolesOf, type LocalState } from './layout.js';
import { alive, listening } from './processes.js';

export interface NodeQuorum {
  /** leader, follower (a voter), observer, or unknown (the quorum did not answer or does not list it). */
  state: 'leader' | 'follower' | 'observer' | 'unknown';
  epoch: number | null;
  lag: bigint | null;
}

/** DescribeQuorum through the running controllers; null when none answers in time. */
export async function fetchQuorum(state: LocalState, timeoutMs = 3000): Promise<QuorumInfo | null> {
  const controllers = controllersOf(state).filter((n) => alive(n.pid) && n.controllerPort !== 0);
  if (controllers.length === 0) return null;
  const [{ KafkaClient }, { describeQuorum }] = await Promise.all([
    import('../../client/client.js'),
    import('../metadata-quorum/quorum.js'),
  ]);
  const client = new KafkaClient({
    bootstrapServers: controllers.map((n) => `${state.host}:${n.controllerPort}`),
    connectTimeoutMs: 1000,
    requestTimeoutMs: timeoutMs,
    apiTimeoutMs: timeoutMs,
  });
  try {
    return await describeQuorum(client, 'controller');
  } catch {
    return null;
  } finally {
    client.close();
  }
}

export function quorumOf(q: QuorumInfo | null, id: number): NodeQuorum {
  if (!q) return { state: 'unknown', epoch: null, lag: null };
  const leaderEnd = q.voters.find((v) => v.replicaId === q.leaderId)?.logEndOffset ?? q.highWatermark;
  const voter = q.voters.find((v) => v.replicaId === id);
  const observer = q.observers.find((v) => v.replicaId === id);
  const r = voter ?? observer;
  const lag = r ? (leaderEnd > r.logEndOffset ? leaderEnd - r.logEndOffset : 0n) : null;
  if (id === q.leaderId) return { state: 'leader', epoch: q.leaderEpoch, lag: 0n };
  if (voter) return { state: 'follower', epoch: q.leaderEpoch, lag };
  if (observer) return { state: 'observer', epoch: q.leaderEpoch, lag };
  return { state: 'unknown', epoch: null, lag: null };
}

export async function status(json: boolean, dir: string, io: ToolIO): Promise<number> {
  const state = readState(dir);
  const quorum = state ? await fetchQuorum(state) : null;
  const nodes = await Promise.all(
    (state?.nodes ?? []).map(async (x) => {
      const running = alive(x.pid);
      const port = isBroker(x) ? x.brokerPort : x.controllerPort;
      const serving = running && (await listening(state!.host, port));
      return {
        ...x,
        roles: rolesOf(x),
        pid: running ? x.pid : null,
        state: serving ? 'running' : running ? 'starting' : 'stopped',
        quorum: running ? quorumOf(quorum, x.id) : { state: 'unknown' as const, epoch: null, lag: null },
        data: join(dir, x.dir),
      };
    }),
  );
  const up = nodes.filter((x) => x.state === 'running').length;
  const code = state === null || up === 0 ? 3 : up === nodes.length ? 0 : 1;
  const addr = (on: boolean, port: number): string | null => (on ? `${state!.host}:${port}` : null);
  if (json) {
    io.stdout.write(
      JSON.stringify({
        dir,
        clusterId: state?.clusterId ?? null,
        bootstrap: state?.bootstrap ?? null,
        running: code === 0,
        quorum: quorum ? { leaderId: quorum.leaderId, leaderEpoch: quorum.leaderEpoch } : null,
        nodes: nodes.map((x) => ({
          id: x.id,
          roles: x.roles,
          pid: x.pid,
          state: x.state,
          quorum: x.quorum.state,
          epoch: x.quorum.epoch,
          lag: x.quorum.lag === null ? null : Number(x.quorum.lag),
          broker: addr(isBroker(x), x.brokerPort),
          controller: addr(isController(x), x.controllerPort),
          data: x.data,
        })),
      }) + '\n',
    );
    return code;
  }
  if (!state) {
    io.stdout.write(`No local cluster in ${dir} (start one with: tkafka local start)\n`);
    return code;
  }
  const rows = [
    ['NODE', 'PID', 'STATE', 'ROLES', 'QUORUM', 'LAG', 'BROKER', 'CONTROLLER', 'DATA'],
    ...nodes.map((x) => [
      String(x.id),
      x.pid === null ? '-' : String(x.pid),
      x.state,
      x.roles,
      x.quorum.state === 'unknown' ? '-' : `${x.quorum.state} (epoch ${x.quorum.epoch})`,
      x.quorum.lag === null ? '-' : String(x.quorum.lag),
      addr(isBroker(x), x.brokerPort) ?? '-',
      addr(isController(x), x.controllerPort) ?? '-',
      x.data,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    io.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ') + '\n');
  io.stdout.write(`Cluster id: ${state.clusterId}\nBootstrap: ${state.bootstrap}\n`);
  return code;
}
