// Shell completion scripts for bash, zsh and fish, rendered from the command model. Each script
// carries the command tree as data (sub-commands, flags, flags taking values, what a value is) and
// a small driver that finds the command being typed, skipping flag values. `--topic` and `--group`
// values come live from the cluster through `tkafka __complete topics|groups` (short timeouts, so
// Tab never hangs); the cluster is the one named by --bootstrap-server on the line (or
// bootstrap.servers=... in perf-test properties), else TKAFKA_BOOTSTRAP_SERVER / the profile.
//
// One module per shell: scripts-bash.ts, scripts-zsh.ts, scripts-fish.ts; scripts-common.ts holds
// what they share.
import type { CommandDoc } from './model.js';
import { bashScript } from './scripts-bash.js';
import { zshScript } from './scripts-zsh.js';
import { fishScript } from './scripts-fish.js';

export { bashScript, zshScript, fishScript };

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];
/** File names under completions/. */
export const COMPLETION_FILES: Record<Shell, string> = { bash: 'tkafka.bash', zsh: '_tkafka', fish: 'tkafka.fish' };

export function completionScript(shell: Shell, root: CommandDoc): string {
  return shell === 'bash' ? bashScript(root) : shell === 'zsh' ? zshScript(root) : fishScript(root);
}
