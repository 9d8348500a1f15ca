// TKAFKA_STARTUP_TRACE=1: `tkafka server start` writes one stderr line per start-up phase with the
// milliseconds since the process started (performance.now(), whose origin is the process's start)
// and the process's CPU time (user + system) so far, e.g. `[startup-trace] 212.4 ms (cpu 190.3 ms)
// raft: leader`. Off, a mark is one property read. README, Start-up, has a traced restart.
import { performance } from 'node:perf_hooks';

const enabled = !!process.env.TKAFKA_STARTUP_TRACE;

export function startupMark(phase: string): void {
  if (!enabled) return;
  const cpu = process.cpuUsage();
  const cpuMs = ((cpu.user + cpu.system) / 1000).toFixed(1);
  process.stderr.write(`[startup-trace] ${performance.now().toFixed(1)} ms (cpu ${cpuMs} ms) ${phase}\n`);
}
