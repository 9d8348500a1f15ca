// Running a tool for a test and keeping what it printed: tkafka's tools in-process (their `run(argv,
// io)` with captured streams), Kafka 4.4.0's tool classes in a JVM (apache-kafka.ts runKafkaTool).
import { Writable } from 'node:stream';
import type { ToolIO } from '../../../src/tools/common/io.js';
import { runKafkaTool } from './apache-kafka.js';

export interface Run {
  code: number;
  out: string;
  err: string;
}

/** `tkafka <tool> args` in this process: src/tools/<tool>/main.ts's run with captured stdout/stderr. */
export async function runTkafka(tool: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const mod = (await import(`../../../src/tools/${tool}/main.js`)) as {
    run(argv: string[], io: ToolIO): Promise<number>;
  };
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void): Writable =>
    new Writable({
      write(c, _e, cb) {
        add(String(c));
        cb();
      },
    });
  const code = await mod.run(args, {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: process.stdin,
    env,
  });
  return { code, out, err };
}

/** A Kafka 4.4.0 tool class (e.g. org.apache.kafka.tools.TopicCommand) with `args`. */
export async function runKafka(mainClass: string, args: string[]): Promise<Run> {
  const r = await runKafkaTool(mainClass, args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

export const REASSIGN_COMMAND = 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand';
export const ELECTION_COMMAND = 'org.apache.kafka.tools.LeaderElectionCommand';
export const TOPIC_COMMAND = 'org.apache.kafka.tools.TopicCommand';
