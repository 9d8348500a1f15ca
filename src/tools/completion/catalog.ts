// The whole command tree of `tkafka`, as the CLI declares it (the commander program of
// tools/program.ts and the tool registry with each tool's spec), turned into CommandDoc models.
import type { Command } from 'commander';
import type { CliDescription, ToolDescriptor } from '../common/io.js';
import { VERSION } from '../common/version.js';
import { ArgumentParser } from '../common/argparse.js';
import type { JoptToolSpec } from '../common/jopt.js';
import {
  fromArgparse,
  fromCommander,
  fromJopt,
  fromSubcommandSpec,
  type CommandDoc,
  type OptionDoc,
  type SubcommandSpec,
  type ToolSpec,
} from './model.js';

export interface Catalog {
  /** `tkafka` itself: global options, and every visible command as a sub-command. */
  readonly root: CommandDoc;
  readonly version: string;
  /** Registry tools that have no `spec()` (documented by name and summary only). */
  readonly missingSpecs: readonly string[];
}

const KAFKA_SCRIPT = /\((kafka-[a-z-]+\.sh)\)\s*$/;

function toolDoc(tool: ToolDescriptor, spec: ToolSpec): CommandDoc {
  const kafka = tool.kafka.endsWith('.sh') ? tool.kafka : undefined;
  const base = { name: tool.name, summary: tool.summary, ...(kafka ? { kafka } : {}) };
  if (spec instanceof ArgumentParser) return fromArgparse(spec, base);
  if ('commands' in spec) return fromSubcommandSpec(spec as SubcommandSpec, base, '');
  return fromJopt(spec as JoptToolSpec, base);
}

function summaryOf(cmd: Command): string {
  return cmd.description().replace(KAFKA_SCRIPT, '').trim();
}

/** Loads every tool's spec and builds the tree. */
export async function loadCatalog(cli: CliDescription): Promise<Catalog> {
  const program = cli.program();
  const byName = new Map(cli.tools.map((t) => [t.name, t]));
  const commands: CommandDoc[] = [];
  const missingSpecs: string[] = [];
  for (const cmd of program.commands) {
    if ((cmd as unknown as { _hidden?: boolean })._hidden) continue;
    const tool = byName.get(cmd.name());
    if (tool?.hidden) continue;
    if (tool && tool.spec) {
      commands.push(toolDoc(tool, await tool.spec()));
    } else if (tool) {
      missingSpecs.push(tool.name);
      const kafka = tool.kafka.endsWith('.sh') ? tool.kafka : undefined;
      commands.push({
        name: tool.name,
        path: [tool.name],
        summary: tool.summary,
        description: tool.summary,
        ...(kafka ? { kafka } : {}),
        style: 'tkafka',
        usage: [`tkafka ${tool.name} [ARG]...`],
        positionals: [],
        options: [],
        subcommands: [],
        help: '',
      });
    } else {
      const kafka = KAFKA_SCRIPT.exec(cmd.description())?.[1];
      const doc = fromCommander(cmd, [cmd.name()], kafka ? { kafka } : {});
      commands.push({ ...doc, summary: summaryOf(cmd), description: summaryOf(cmd) });
    }
  }
  const globals: OptionDoc[] = program.options.map((o) => ({
    flags: [o.long, o.short].filter((f): f is string => !!f),
    description: o.description,
    complete: 'none' as const,
  }));
  globals.push({ flags: ['--help', '-h'], description: 'display help for command', complete: 'none' });
  const root: CommandDoc = {
    name: 'tkafka',
    path: [],
    summary: program.description(),
    description: program.description(),
    style: 'commander',
    usage: ['tkafka [--no-tty] <command> [ARG]...', 'tkafka --version', 'tkafka --help'],
    positionals: [],
    options: globals,
    subcommands: commands,
    help: program.helpInformation(),
  };
  return { root, version: VERSION, missingSpecs };
}
