// What `tkafka configs` parsed (main.ts) and hands to describe.ts and alter.ts, and the error they
// all throw for a usage problem.
import type { JoptOptions } from '../common/jopt.js';
import type { OutputFormat } from '../common/output.js';

/** IllegalArgumentException / InvalidConfigurationException: message only on stderr. */
export class ConfigCommandError extends Error {}

export interface ConfigCommand {
  opts: JoptOptions;
  argv: string[];
  entityTypes: string[];
  entityNames: string[];
  format: OutputFormat;
}
