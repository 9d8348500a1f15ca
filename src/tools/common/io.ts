// The contract between the dispatcher (src/tools/program.ts) and a tool: the streams and
// environment a tool reads and writes (the process's own, or a test's), the module shape the
// registry loads (`run(args, io)`), and the description of the command tree for the tools that
// document it (completion scripts, man pages).
import type { Command } from 'commander';
import type { ToolSpec } from '../completion/model.js';

export interface ToolIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

/** A tool module: `run(args, io)` computes and prints; returns the exit code. */
export interface ToolModule {
  /**
   * `cli` describes the whole command tree, for the tools that document it. The dispatcher passes
   * it in, so that no tool imports the registry (which imports every tool).
   */
  run(argv: string[], io: ToolIO, cli: CliDescription): Promise<number>;
}

/** One `tkafka <name>` tool, as the registry lists it. */
export interface ToolDescriptor {
  /** The subcommand: `tkafka <name>`. */
  readonly name: string;
  readonly summary: string;
  /** The Apache Kafka script this tool replaces. */
  readonly kafka: string;
  readonly load: () => Promise<ToolModule>;
  /** The flag definitions behind the tool's `--help`; man pages and completions are generated from them (npm run docs). */
  readonly spec?: () => Promise<ToolSpec>;
  /** Left out of `tkafka --help`, man pages and completions (internal helpers). */
  readonly hidden?: boolean;
}

/** The command tree as data. */
export interface CliDescription {
  /** A fresh commander program of `tkafka`: every command declared, nothing run. */
  program(): Command;
  /** Every registered tool, in the registry's order. */
  readonly tools: readonly ToolDescriptor[];
}
