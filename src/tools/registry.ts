// The tools behind `tkafka <name> ...`. Each entry is cheap to list; its module is imported only
// when the tool runs, so a tool never pays for loading the broker or other tools.
import type { ToolModule } from '../cli.js';

export interface ToolDescriptor {
  /** The subcommand: `tkafka <name>`. */
  readonly name: string;
  readonly summary: string;
  /** The Apache Kafka script this tool replaces. */
  readonly kafka: string;
  readonly load: () => Promise<ToolModule>;
}

export const TOOLS: readonly ToolDescriptor[] = [
  { name: 'storage', summary: 'Format and inspect storage directories', kafka: 'kafka-storage.sh', load: () => import('./storage/main.js') },
];
