// Connection flood: 5,000 connection attempts from 127.0.0.2 (at most 200 at a time, each sending
// ApiVersions) against a broker with max.connections.per.ip=50, while an established client on
// 127.0.0.1 keeps pinging. Reports, for tkafka and Apache Kafka 4.4.0: attempts served / refused,
// flood duration, the established client's slowest ping during the flood, and the broker's peak
// RSS (VmHWM of /proc/<pid>/status) before and after the flood.
//   npm run build && nice -n 19 node dist/bench/connection-flood.bench.js [--attempts N] [--only tkafka|kafka]
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startBroker } from '../test/helpers/broker-process.js';
import { startApacheKafka } from '../test/interop/helpers/apache-kafka.js';
import { Conn } from '../test/helpers/limit-conn.js';

const argi = process.argv.indexOf('--attempts');
const ATTEMPTS = argi > 0 ? Number(process.argv[argi + 1]) : 5000;
const onlyi = process.argv.indexOf('--only');
const ONLY = onlyi > 0 ? process.argv[onlyi + 1] : undefined;
const CONCURRENCY = 200;
const PER_IP = 50;
const DEADLINE_MS = 180_000;

function vmHwmMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** The pid of the JVM whose command line names `configFile` (the broker started by startApacheKafka). */
function jvmPid(configFile: string): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.includes('java') && cmd.includes(configFile)) return Number(d);
    } catch {
      // gone
    }
  }
  throw new Error(`no JVM running ${configFile}`);
}

interface Result {
  served: number;
  refused: number;
  floodMs: number;
  slowestPingMs: number;
  pingsDuringFlood: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
}

async function flood(port: number, pid: number): Promise<Result> {
  const client = await Conn.open(port);
  if (!(await client.ping())) throw new Error('the established client is not served');
  const rssBeforeMiB = vmHwmMiB(pid);
  let started = 0;
  let served = 0;
  let refused = 0;
  const held: Conn[] = [];
  const deadline = Date.now() + DEADLINE_MS;
  const worker = async (): Promise<void> => {
    while (started < ATTEMPTS && Date.now() < deadline) {
      started++;
      let c: Conn;
      try {
        c = await Conn.open(port, '127.0.0.2');
      } catch {
        refused++;
        continue;
      }
      if (await c.ping().catch(() => false)) {
        served++;
        held.push(c);
      } else {
        refused++;
        c.close();
      }
    }
  };
  let done = false;
  let slowestPingMs = 0;
  let pingsDuringFlood = 0;
  const pinger = (async () => {
    while (!done) {
      const t0 = performance.now();
      if (!(await client.ping())) throw new Error('the established client was closed during the flood');
      slowestPingMs = Math.max(slowestPingMs, performance.now() - t0);
      pingsDuringFlood++;
    }
  })();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, () => worker()));
  const floodMs = performance.now() - t0;
  done = true;
  await pinger;
  const rssPeakMiB = vmHwmMiB(pid);
  for (const c of held) c.close();
  client.close();
  return { served, refused, floodMs, slowestPingMs, pingsDuringFlood, rssBeforeMiB, rssPeakMiB };
}

function report(name: string, r: Result): void {
  console.log(
    [
      name.padEnd(12),
      `attempts ${ATTEMPTS}`,
      `served ${r.served}`,
      `refused ${r.refused}`,
      `flood ${(r.floodMs / 1000).toFixed(1)} s`,
      `pings ${r.pingsDuringFlood}, slowest ${r.slowestPingMs.toFixed(0)} ms`,
      `VmHWM before ${r.rssBeforeMiB.toFixed(0)} MiB, after ${r.rssPeakMiB.toFixed(0)} MiB`,
    ].join(' | '),
  );
}

const overrides = { 'max.connections.per.ip': PER_IP };
if (ONLY !== 'kafka') {
  const b = await startBroker({ overrides });
  try {
    report('tkafka', await flood(b.port, b.pid()!));
  } finally {
    await b.stop();
    b.cleanup();
  }
}
if (ONLY !== 'tkafka') {
  const k = await startApacheKafka({ overrides });
  try {
    report('Kafka 4.4.0', await flood(k.port, jvmPid(k.configFile)));
  } finally {
    await k.cleanup();
  }
}
