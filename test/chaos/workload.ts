// The chaos workload: test/chaos/java/ChaosWorkload.java (Apache Kafka's Java client 4.4.0, the
// jars test/clients/java/setup.sh provisions in .cache/clients/java/lib), compiled with javac
// into dist/test/chaos/classes when the source is newer, and run as child processes: `create`
// the topic, `produce` while faults happen (stopped by a line on stdin), `consume` at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { compileJava, requireJavaClient } from '../helpers/javac.js';

const SOURCE = join(REPO_ROOT, 'test', 'chaos', 'java', 'ChaosWorkload.java');
const LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const CLASSES = join(REPO_ROOT, 'dist', 'test', 'chaos', 'classes');

/** Compiles ChaosWorkload.java when its class is missing or older; throws when the client jars are missing. */
export async function ensureWorkloadCompiled(): Promise<void> {
  requireJavaClient(LIB);
  await compileJava(SOURCE, CLASSES, `${LIB}/*`);
}

const javaArgs = (args: string[]): string[] => [
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xmx256m',
  '-Djava.awt.headless=true',
  '-cp',
  `${CLASSES}:${LIB}/*`,
  'ChaosWorkload',
  ...args,
];

/** Runs one mode to its end; throws with its output when it exits non-zero. */
export async function runWorkload(args: string[], timeoutMs: number): Promise<string> {
  const r = await execa('java', javaArgs(args), { reject: false, all: true, timeout: timeoutMs });
  if (r.exitCode !== 0)
    throw new Error(
      `ChaosWorkload ${args[0]} failed (exit ${r.exitCode ?? r.signal}):\n${String(r.all ?? '').slice(-4000)}`,
    );
  return String(r.all ?? '');
}

export interface ProduceOptions {
  bootstrap: string;
  topic: string;
  partitions: number;
  seed: number;
  historyFile: string;
  idempotent: number;
  transactional: number;
  maxMs: number;
}

/** The producing workload, running until stop(). */
export class ProduceWorkload {
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private output = '';

  constructor(o: ProduceOptions) {
    this.child = spawn(
      'java',
      javaArgs([
        'produce',
        o.bootstrap,
        o.topic,
        String(o.partitions),
        String(o.seed),
        o.historyFile,
        String(o.idempotent),
        String(o.transactional),
        String(o.maxMs),
      ]),
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const keep = (b: Buffer): void => {
      this.output = (this.output + b.toString()).slice(-8000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => resolve(code));
      this.child.once('error', () => resolve(-1));
    });
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Asks it to stop, waits (bounded) for every send to complete; throws if it did not end well. */
  async stop(timeoutMs = 240_000): Promise<void> {
    if (this.running()) this.child.stdin!.end('stop\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    if (code !== 0) throw new Error(`ChaosWorkload produce ended with ${code}:\n${this.output}`);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
