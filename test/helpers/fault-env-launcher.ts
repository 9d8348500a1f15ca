// tkafka's NodeLauncher with the test-only file-fault seam switched on: each start of the node runs
// with TKAFKA_TEST_FAULTS set to what `faults(nodeDir)` says at that moment (undefined: no faults),
// so one test can start a node with faults, then again without. Formatting, logs and everything
// else are tkafkaLauncher's; the exit code of the last start is kept (Kafka's halt is status 1).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { tkafkaLauncher, type NodeLauncher } from './cluster.js';
import { REPO_ROOT } from './spec-models.js';

export interface FaultEnvLauncher extends NodeLauncher {
  /** Resolves with the last started process's exit code (null: killed by a signal). */
  exited(): Promise<number | null>;
}

export function faultEnvLauncher(faults: (nodeDir: string) => string | undefined): FaultEnvLauncher {
  let last: Promise<number | null> = Promise.resolve(null);
  return {
    ...tkafkaLauncher,
    spawn(configFile, nodeDir) {
      const spec = faults(nodeDir);
      const env = { ...process.env };
      if (spec === undefined) delete env['TKAFKA_TEST_FAULTS'];
      else env['TKAFKA_TEST_FAULTS'] = spec;
      // the same output file tkafkaLauncher writes and reads (`server.log` in the node dir)
      const out = openSync(join(nodeDir, 'server.log'), 'a');
      let c: ChildProcess;
      try {
        c = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'tkafka'), 'server', 'start', configFile], {
          cwd: nodeDir,
          stdio: ['ignore', out, out],
          env,
        });
      } finally {
        closeSync(out);
      }
      last = new Promise((resolve) => c.once('exit', (code) => resolve(code)));
      return c;
    },
    exited: () => last,
  };
}
