// The profile file: named clusters (bootstrap servers + client properties) and the current one,
// kept in one small JSON file in the user's config directory:
//   $XDG_CONFIG_HOME/tkafka/config.json, or ~/.config/tkafka/config.json.
// It may hold credentials (sasl.jaas.config), so it is written with mode 0600.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  bootstrapServers: string;
  /** Client properties, as a `--command-config` file would give them. */
  properties: Record<string, string>;
}

export interface ProfileFile {
  version: 1;
  current: string | null;
  profiles: Record<string, Profile>;
}

export class ProfileError extends Error {
  override name = 'ProfileError';
}

export function configDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && xdg.trim() !== '') return join(xdg, 'tkafka');
  return join(env.HOME && env.HOME !== '' ? env.HOME : homedir(), '.config', 'tkafka');
}

export function profilePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

const EMPTY: ProfileFile = { version: 1, current: null, profiles: {} };

export function readProfiles(env: NodeJS.ProcessEnv): ProfileFile {
  const file = profilePath(env);
  if (!existsSync(file)) return { ...EMPTY, profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProfileError(`Cannot read the profile file ${file}: ${(e as Error).message}`);
  }
  const p = parsed as Partial<ProfileFile>;
  if (typeof p !== 'object' || p === null || typeof p.profiles !== 'object' || p.profiles === null) {
    throw new ProfileError(`The profile file ${file} is not a tkafka profile file`);
  }
  const profiles: Record<string, Profile> = {};
  for (const [name, v] of Object.entries(p.profiles)) {
    const bs = (v as Partial<Profile>)?.bootstrapServers;
    if (typeof bs !== 'string') throw new ProfileError(`Profile '${name}' in ${file} has no bootstrapServers`);
    const props: Record<string, string> = {};
    for (const [k, val] of Object.entries((v as Partial<Profile>).properties ?? {})) props[k] = String(val);
    profiles[name] = { bootstrapServers: bs, properties: props };
  }
  const current = typeof p.current === 'string' && profiles[p.current] ? p.current : null;
  return { version: 1, current, profiles };
}

export function writeProfiles(env: NodeJS.ProcessEnv, data: ProfileFile): string {
  const file = profilePath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** The profile to use for connections: $TKAFKA_PROFILE if set, else the current one. */
export function activeProfile(env: NodeJS.ProcessEnv): { name: string; profile: Profile } | null {
  const data = readProfiles(env);
  const wanted = env.TKAFKA_PROFILE && env.TKAFKA_PROFILE !== '' ? env.TKAFKA_PROFILE : data.current;
  if (!wanted) return null;
  const profile = data.profiles[wanted];
  if (!profile)
    throw new ProfileError(`Profile '${wanted}' (from TKAFKA_PROFILE) does not exist; see tkafka profile list`);
  return { name: wanted, profile };
}
