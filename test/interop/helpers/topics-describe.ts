// `topics --describe` with both tools against one cluster state: tkafka's (in this process, as
// tools-admin.test.ts runs it) and Apache Kafka's TopicCommand (kafka-topics.sh), compared as sets of
// lines (topics come in a HashMap's order in both), with the transcripts printed for the closing notes.
import assert from 'node:assert/strict';
import { runKafkaTool } from './apache-kafka.js';
import { runTkafka, type Run } from '../../helpers/tool-run.js';

export type { Run };

/** `tkafka topics <args>` in this process. */
export const tkafkaTopics = (args: string[]): Promise<Run> => runTkafka('topics', args);

/** Kafka's `kafka-topics.sh <args>` (TopicCommand). */
export async function kafkaTopics(args: string[]): Promise<Run> {
  const r = await runKafkaTool('org.apache.kafka.tools.TopicCommand', args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/** The non-empty lines of a tool's output, sorted. */
export const sortedLines = (s: string): string[] =>
  s
    .split('\n')
    .filter((l) => l.length > 0)
    .sort();

/**
 * `--describe --topic <topics> <extra>` with both tools through `bootstrap`; both must exit 0 and print
 * the same lines. The state may move between the two runs (an ISR change in flight), so a difference
 * is retried (three attempts). Returns the lines, sorted; prints both transcripts under `label`.
 */
export async function describeBoth(
  label: string,
  bootstrap: string,
  topics: readonly string[],
  extra: readonly string[] = [],
): Promise<string[]> {
  const args = ['--bootstrap-server', bootstrap, '--describe', '--topic', topics.join(','), ...extra];
  for (let attempt = 1; ; attempt++) {
    const k = await kafkaTopics(args);
    const t = await tkafkaTopics(args);
    const shown = args.join(' ');
    console.log(`--- ${label}\n$ kafka-topics.sh ${shown}\n${k.out}$ tkafka topics ${shown}\n${t.out}`);
    assert.equal(k.code, 0, `kafka-topics.sh failed: ${k.err}`);
    assert.equal(t.code, 0, `tkafka topics failed: ${t.err}`);
    if (attempt === 3 || sortedLines(k.out).join('\n') === sortedLines(t.out).join('\n')) {
      assert.deepEqual(sortedLines(t.out), sortedLines(k.out), `${label}: tkafka topics and kafka-topics.sh differ`);
      return sortedLines(t.out);
    }
  }
}

/** The line of one partition in describe output. */
export const partitionLine = (lines: readonly string[], topic: string, partition: number): string | undefined =>
  lines.find((l) => l.startsWith(`\tTopic: ${topic}\tPartition: ${partition}\t`));

/** One TAB-separated `Name: value` field of a describe line. */
export const field = (line: string, name: string): string => new RegExp(`\\t${name}: ([^\\t]*)`).exec(line)?.[1] ?? '';
