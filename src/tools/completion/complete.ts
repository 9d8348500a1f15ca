// `tkafka __complete topics|groups [--bootstrap-server HOST:PORT]` (hidden): live names for the
// shell completion scripts, one per line. The cluster is the flag's, else TKAFKA_BOOTSTRAP_SERVER,
// else the active profile. Everything is bounded by one deadline (TKAFKA_COMPLETE_TIMEOUT_MS,
// default 1000 ms): on timeout or any error it prints nothing and exits 0, so Tab never hangs and
// never prints noise.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';

export const DEFAULT_TIMEOUT_MS = 1000;

function parse(argv: readonly string[]): { kind: string; bootstrap?: string; prefix: string } | null {
  let kind = '';
  let bootstrap: string | undefined;
  let prefix = '';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--bootstrap-server' || a === '-b') bootstrap = argv[++i];
    else if (a.startsWith('--bootstrap-server=')) bootstrap = a.slice('--bootstrap-server='.length);
    else if (a === '--prefix') prefix = argv[++i] ?? '';
    else if (!kind) kind = a;
    else return null;
  }
  return kind === 'topics' || kind === 'groups' ? { kind, ...(bootstrap ? { bootstrap } : {}), prefix } : null;
}

async function names(kind: string, client: KafkaClient): Promise<string[]> {
  if (kind === 'topics') {
    const { listTopics } = await import('../../client/admin/topics.js');
    return (await listTopics(client, { listInternal: false })).map((t) => t.name);
  }
  const { listConsumerGroups } = await import('../../client/admin/groups.js');
  return (await listConsumerGroups(client)).map((g) => g.groupId);
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const req = parse(argv);
  if (!req) {
    io.stderr.write('usage: tkafka __complete topics|groups [--bootstrap-server HOST:PORT] [--prefix P]\n');
    return 1;
  }
  const budget = Math.max(50, Number(io.env.TKAFKA_COMPLETE_TIMEOUT_MS ?? DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS);
  // Run as the real CLI: make sure the process ends soon after the deadline whatever is pending.
  if (io.stdout === process.stdout) setTimeout(() => process.exit(0), budget + 500).unref();
  let client: KafkaClient | null = null;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), budget);
  });
  const work = (async (): Promise<string[] | null> => {
    const { resolveBootstrap, openClient } = await import('../common/connection.js');
    const bootstrap = await resolveBootstrap(req.bootstrap, io.env);
    if (!bootstrap) return null;
    const t = Math.max(50, budget - 50);
    client = await openClient({
      bootstrap,
      overrides: {
        clientId: 'tkafka-complete',
        connectTimeoutMs: t,
        requestTimeoutMs: t,
        apiTimeoutMs: t,
        retryBackoffMs: 50,
        retryBackoffMaxMs: 100,
      },
    });
    return names(req.kind, client);
  })().catch(() => null);
  try {
    const got = await Promise.race([work, deadline]);
    if (got) {
      const shown = [...new Set(got)].filter((n) => n.startsWith(req.prefix) && !n.includes('\n')).sort();
      if (shown.length) io.stdout.write(shown.join('\n') + '\n');
    }
    return 0;
  } finally {
    clearTimeout(timer);
    (client as KafkaClient | null)?.close();
    void work.then(() => (client as KafkaClient | null)?.close());
  }
}
