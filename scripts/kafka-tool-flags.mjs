#!/usr/bin/env node
// Compares each tkafka tool's flags with its Kafka counterpart's, read from the Kafka jars at run
// time (nothing of the jars is kept): the jopt-simple options classes (`parser.accepts(...)` /
// `acceptsAll(...)`) and the argparse4j tools (`addArgument("--x")`) are disassembled with
// `javap -c -p -constants`; tkafka's flags come from the generated bash completion
// (completions/tkafka.bash, i.e. the tools' spec tables). Prints, per tool, the flags Kafka has that
// tkafka lacks and the flags tkafka has that Kafka does not (tkafka extensions or flags Kafka removed).
//
//   node scripts/kafka-tool-flags.mjs [lib-dir]     (default .cache/kafka-4.4.0/lib)
//
// Needs `unzip` and a JDK's `javap`. --help/--version (jopt's CommandDefaultOptions, argparse4j's
// -h) are left out on both sides. For tools with sub-commands the flags of all sub-commands are
// compared as one set, and their sub-command names are compared too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = process.argv[2] ?? join(root, '.cache', 'kafka-4.4.0', 'lib');
const T = 'org/apache/kafka/tools/';

/** tkafka tool → [jar, class files (globs with a trailing *)]. */
const TOOLS = {
  'broker-api-versions': ['kafka-tools', [`${T}BrokerApiVersionsCommand$BrokerVersionCommandOptions`]],
  cluster: ['kafka-tools', [`${T}ClusterTool`]],
  configs: ['kafka-tools', [`${T}ConfigCommand$ConfigCommandOptions`]],
  'console-consumer': ['kafka-tools', [`${T}consumer/ConsoleConsumerOptions`]],
  'console-producer': ['kafka-tools', [`${T}ConsoleProducer$ConsoleProducerOptions`]],
  'consumer-groups': ['kafka-tools', [`${T}consumer/group/ConsumerGroupCommandOptions`]],
  'consumer-perf-test': ['kafka-tools', [`${T}ConsumerPerformance$ConsumerPerfOptions`]],
  'delete-records': ['kafka-tools', [`${T}DeleteRecordsCommand$DeleteRecordsCommandOptions`]],
  'dump-log': ['kafka-tools', [`${T}DumpLogSegments$DumpLogSegmentsOptions`]],
  features: ['kafka-tools', [`${T}FeatureCommand`]],
  'get-offsets': ['kafka-tools', [`${T}GetOffsetShell$GetOffsetShellOptions`]],
  'leader-election': ['kafka-tools', [`${T}LeaderElectionCommand$LeaderElectionCommandOptions`]],
  'log-dirs': ['kafka-tools', [`${T}LogDirsCommand$LogDirsCommandOptions`]],
  'metadata-quorum': ['kafka-tools', [`${T}MetadataQuorumCommand`]],
  'producer-perf-test': ['kafka-tools', [`${T}ProducerPerformance`]],
  'reassign-partitions': ['kafka-tools', [`${T}reassign/ReassignPartitionsCommandOptions`]],
  'replica-verification': ['kafka-tools', [`${T}ReplicaVerificationTool$ReplicaVerificationToolOptions`]],
  storage: ['kafka_2.13', ['kafka/tools/StorageTool', 'kafka/tools/StorageTool$*']],
  topics: ['kafka-tools', [`${T}TopicCommand$TopicCommandOptions`]],
  transactions: ['kafka-tools', [`${T}TransactionsCommand`, `${T}TransactionsCommand$*Command`]],
};

const IGNORED = new Set(['help', 'version', 'h']);
/** Sub-command names share the sets with the flags, marked by this prefix. */
const SUB = 'sub:';
const NAME = /^[a-zA-Z][\w.-]*$/;

/** Option names in one class's bytecode. */
function kafkaFlags(classFile) {
  const text = execFileSync('javap', ['-c', '-p', '-constants', classFile], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const names = new Set();
  let strings = [];
  /** The string constant of the instruction just before, if it was one. */
  let previous = null;
  let naming = false;
  for (const line of text.split('\n')) {
    const ldc = /\bldc(?:_w)?\s+#\d+\s+\/\/ String (.*)$/.exec(line);
    // TransactionsCommand's sub-commands name themselves: `String name() { return "list"; }`.
    if (/ java\.lang\.String name\(\);$/.test(line)) naming = true;
    if (naming && /^\s+\d+: /.test(line)) {
      if (ldc && /^\s+0: /.test(line)) names.add(`${SUB}${ldc[1]}`);
      naming = false;
    }
    if (ldc) {
      strings.push(ldc[1]);
      previous = ldc[1];
      continue;
    }
    const literal = previous;
    previous = null;
    const call = /invoke\w+\s+#\d+(?:,\s+\d+)?\s+\/\/ (?:Interface)?Method (\S+?)\.(\w+):\(([^)]*)\)/.exec(line);
    if (!call) continue;
    const [, owner, method] = call;
    if (owner === 'joptsimple/OptionParser' && (method === 'accepts' || method === 'acceptsAll')) {
      const found = method === 'accepts' ? strings.slice(0, 1) : strings.filter((s) => NAME.test(s));
      for (const n of found) names.add(n);
    } else if (owner.startsWith('net/sourceforge/argparse4j/') && method === 'addArgument') {
      for (const s of strings) if (/^--?[a-zA-Z]/.test(s)) names.add(s.replace(/^--?/, ''));
    } else if (owner.startsWith('net/sourceforge/argparse4j/') && method === 'addParser' && literal !== null) {
      names.add(`${SUB}${literal}`);
    }
    if (owner.startsWith('joptsimple/') || owner.startsWith('net/sourceforge/argparse4j/')) strings = [];
  }
  return names;
}

/** tkafka's flags per tool (all sub-commands together), from the bash completion. */
function tkafkaFlags() {
  const bash = readFileSync(join(root, 'completions', 'tkafka.bash'), 'utf8');
  const start = bash.indexOf('__tkafka_flags()');
  const body = bash.slice(start, bash.indexOf('\n}', start));
  const out = new Map();
  for (const m of body.matchAll(/^\s*'([^']+)'\) REPLY='([^']*)'/gm)) {
    const [tool, sub] = m[1].split(' ');
    const set = out.get(tool) ?? new Set();
    if (sub) set.add(`${SUB}${sub}`);
    for (const f of m[2].split(/\s+/)) if (f) set.add(f.replace(/^--?/, ''));
    out.set(tool, set);
  }
  return out;
}

/** A class glob (`*` within one name) as a regular expression over the jar's entries. */
const glob = (c) => new RegExp(`^${c.replace(/[.$]/g, '\\$&').replace(/\*/g, '[^/]*')}\\.class$`);
const flag = (n) => (n.startsWith(SUB) ? `(sub-command ${n.slice(SUB.length)})` : n.length === 1 ? `-${n}` : `--${n}`);
const show = (names) => (names.length ? names.map(flag).join(' ') : '-');

const tmp = mkdtempSync(join(tmpdir(), 'kafka-tool-flags-'));
try {
  const tk = tkafkaFlags();
  const unpacked = new Set();
  let differences = 0;
  for (const [tool, [jar, classes]] of Object.entries(TOOLS)) {
    const dir = join(tmp, jar);
    const jarPath = join(lib, `${jar}-4.4.0.jar`);
    if (!unpacked.has(jar)) {
      execFileSync('unzip', ['-q', '-o', jarPath, '*.class', '-d', dir]);
      unpacked.add(jar);
    }
    const files = execFileSync('unzip', ['-Z1', jarPath], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => classes.some((c) => glob(c).test(f)));
    const kafka = new Set();
    for (const f of files) for (const n of kafkaFlags(join(dir, f))) kafka.add(n);
    const ours = tk.get(tool) ?? new Set();
    const lacks = [...kafka].filter((n) => !ours.has(n) && !IGNORED.has(n)).sort();
    const extra = [...ours].filter((n) => !kafka.has(n) && !IGNORED.has(n)).sort();
    if (lacks.length || extra.length) differences++;
    console.log(
      `${tool}  (${files
        .map((f) =>
          f
            .replace(/\.class$/, '')
            .split('/')
            .pop(),
        )
        .join(', ')})`,
    );
    console.log(`  Kafka 4.4 has, tkafka lacks: ${show(lacks)}`);
    console.log(`  tkafka has, Kafka 4.4 not:   ${show(extra)}`);
  }
  console.log(`\n${differences} of ${Object.keys(TOOLS).length} tools differ.`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
