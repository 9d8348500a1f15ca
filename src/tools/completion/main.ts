// `tkafka completion bash|zsh|fish`: prints the completion script for a shell. The scripts are
// rendered from the same command model as the man pages (and are committed under completions/).
import type { CliDescription, ToolIO } from '../common/io.js';
import { ArgumentParser, parseOrExit } from '../common/argparse.js';
import { SHELLS, completionScript, type Shell } from './scripts.js';

const INSTALL =
  'Install: bash: eval "$(tkafka completion bash)" in ~/.bashrc (or copy completions/tkafka.bash to ' +
  '/usr/share/bash-completion/completions/tkafka); zsh: source <(tkafka completion zsh) after compinit (or put ' +
  'completions/_tkafka in a directory of $fpath); fish: tkafka completion fish | source (or copy completions/tkafka.fish to ' +
  '~/.config/fish/completions/). Values of --topic and --group complete live from the cluster named by --bootstrap-server ' +
  '(or TKAFKA_BOOTSTRAP_SERVER, or the active profile), with a timeout of about a second.';

export function buildParser(): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'tkafka completion',
    description:
      'Print the shell completion script for bash, zsh or fish: sub-commands, flags, flag values, and live topic and group names.',
    epilog: INSTALL,
  });
  parser.addArgument({ flags: ['shell'], choices: [...SHELLS], help: 'The shell to print the completion script for.' });
  return parser;
}

export async function run(argv: string[], io: ToolIO, cli: CliDescription): Promise<number> {
  const parsed = parseOrExit(buildParser(), argv, io);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { loadCatalog } = await import('./catalog.js');
  const { root } = await loadCatalog(cli);
  io.stdout.write(completionScript(parsed.ns.shell as Shell, root));
  return 0;
}
