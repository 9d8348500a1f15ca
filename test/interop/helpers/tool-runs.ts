// Running a tool for a test and keeping what it printed: tkafka's tools in-process (their `run(argv,
// io)` with captured streams), Kafka 4.4.0's tool classes in a JVM (apache-kafka.ts runKafkaTool).
import { runKafkaTool } from './apache-kafka.js';
import type { Run } from '../../helpers/tool-run.js';

export { runTkafka, type Run } from '../../helpers/tool-run.js';

/** A Kafka 4.4.0 tool class (e.g. org.apache.kafka.tools.TopicCommand) with `args`. */
export async function runKafka(mainClass: string, args: string[]): Promise<Run> {
  const r = await runKafkaTool(mainClass, args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

export const REASSIGN_COMMAND = 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand';
export const ELECTION_COMMAND = 'org.apache.kafka.tools.LeaderElectionCommand';
export const TOPIC_COMMAND = 'org.apache.kafka.tools.TopicCommand';
