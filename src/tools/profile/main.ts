// `tkafka profile`: named clusters, so `--bootstrap-server` can be left out of every tool.
//   tkafka profile create NAME --bootstrap-server HOSTS [--command-config FILE] [--property k=v]...
//     [--security-protocol P --sasl-mechanism M --sasl-username U --sasl-password PW] [--use]
//   tkafka profile use NAME | list [--output text|json|table] | show [NAME] | delete NAME
// Stored in one file: $XDG_CONFIG_HOME/tkafka/config.json (or ~/.config/tkafka/config.json).
import type { ToolIO } from '../common/io.js';
import { CONNECTION_HELP, loadPropertiesFile } from '../common/connection.js';
import { ToolError, reportError, takeDebugFlag } from '../common/errors.js';
import { OUTPUT_HELP, parseOutputFormat, writeJson, writeTable } from '../common/output.js';
import { profilePath, readProfiles, writeProfiles, type ProfileFile } from './store.js';

/** Declarative spec of the sub-commands and their options (help, man pages and completions use it). */
export const PROFILE_SPEC = {
  name: 'profile',
  description:
    'Manage named cluster profiles (bootstrap servers and client properties) used when --bootstrap-server is omitted.',
  commands: [
    {
      name: 'create',
      args: 'NAME',
      description: 'Create or replace a profile.',
      options: [
        {
          name: 'bootstrap-server',
          arg: 'HOST:PORT[,HOST:PORT]',
          required: true,
          description: "The cluster's bootstrap servers.",
        },
        {
          name: 'command-config',
          arg: 'FILE',
          description: 'A client properties file whose entries are stored in the profile.',
        },
        {
          name: 'property',
          arg: 'KEY=VALUE',
          multiple: true,
          description: 'A client property to store (repeatable; wins over --command-config).',
        },
        {
          name: 'security-protocol',
          arg: 'PROTOCOL',
          description: 'security.protocol: PLAINTEXT or SASL_PLAINTEXT.',
        },
        {
          name: 'sasl-mechanism',
          arg: 'MECHANISM',
          description: 'sasl.mechanism: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER.',
        },
        {
          name: 'sasl-username',
          arg: 'USER',
          description: 'The PLAIN/SCRAM user (stored as sasl.username; becomes sasl.jaas.config).',
        },
        {
          name: 'sasl-password',
          arg: 'PASSWORD',
          description: 'The PLAIN/SCRAM password (stored as sasl.password in the 0600 profile file; never shown).',
        },
        { name: 'use', description: 'Also make it the current profile.' },
      ],
    },
    { name: 'use', args: 'NAME', description: 'Make a profile the current one.', options: [] },
    {
      name: 'list',
      args: '',
      description: 'List the profiles; the current one is marked with *.',
      options: [{ name: 'output', arg: 'FORMAT', description: OUTPUT_HELP }],
    },
    {
      name: 'show',
      args: '[NAME]',
      description: 'Show one profile (default: the current one).',
      options: [{ name: 'output', arg: 'FORMAT', description: OUTPUT_HELP }],
    },
    { name: 'delete', args: 'NAME', description: 'Delete a profile.', options: [] },
  ],
} as const;

function help(): string {
  const lines = ['Usage: tkafka profile <command> [options]', '', PROFILE_SPEC.description, '', 'Commands:'];
  for (const c of PROFILE_SPEC.commands) {
    lines.push(`  ${`${c.name} ${c.args}`.trim().padEnd(14)} ${c.description}`);
    for (const o of c.options) {
      const flag = `--${o.name}${'arg' in o && o.arg ? ` <${o.arg}>` : ''}`;
      lines.push(`      ${flag.padEnd(40)} ${o.description}`);
    }
  }
  lines.push(
    '',
    `The profiles live in $XDG_CONFIG_HOME/tkafka/config.json (default ~/.config/tkafka/config.json).`,
    '',
    CONNECTION_HELP,
  );
  return lines.join('\n') + '\n';
}

interface Parsed {
  positionals: string[];
  options: Map<string, string[]>;
}

function parse(argv: string[], allowed: Record<string, boolean>): Parsed {
  const positionals: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    if (!(name in allowed)) throw new ToolError(`${name} is not a recognized option`);
    let value = '';
    if (allowed[name]) {
      if (eq >= 0) value = a.slice(eq + 1);
      else if (i + 1 < argv.length) value = argv[++i]!;
      else throw new ToolError(`Option ${name} requires an argument`);
    } else if (eq >= 0) throw new ToolError(`Option ${name} does not take an argument`);
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { positionals, options };
}

const SECURITY_FLAGS: readonly (readonly [string, string])[] = [
  ['security-protocol', 'security.protocol'],
  ['sasl-mechanism', 'sasl.mechanism'],
  ['sasl-username', 'sasl.username'],
  ['sasl-password', 'sasl.password'],
];

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function oneName(p: Parsed, cmd: string, optional = false): string | null {
  if (p.positionals.length === 0 && optional) return null;
  if (p.positionals.length !== 1) throw new ToolError(`tkafka profile ${cmd} takes exactly one profile name`);
  const name = p.positionals[0]!;
  if (!NAME_RE.test(name)) throw new ToolError(`Invalid profile name '${name}': use letters, digits, '.', '_' and '-'`);
  return name;
}

function mask(key: string, value: string): string {
  return /password|secret|jaas|token/i.test(key) ? '[hidden]' : value;
}

export async function run(argvIn: string[], io: ToolIO): Promise<number> {
  const { argv, debug } = takeDebugFlag(argvIn);
  const out = (s: string): void => void io.stdout.write(s + '\n');
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.stdout.write(help());
    return cmd === undefined ? 1 : 0;
  }
  try {
    const data = readProfiles(io.env);
    switch (cmd) {
      case 'create': {
        const p = parse(rest, {
          'bootstrap-server': true,
          'command-config': true,
          property: true,
          'security-protocol': true,
          'sasl-mechanism': true,
          'sasl-username': true,
          'sasl-password': true,
          use: false,
        });
        const name = oneName(p, cmd)!;
        const bs = p.options.get('bootstrap-server')?.at(-1);
        if (!bs) throw new ToolError('Missing required argument "[bootstrap-server]"');
        const { parseBootstrapServers, clientConfigFromProperties } = await import('../../client/config.js');
        parseBootstrapServers(bs);
        const properties: Record<string, string> = {};
        const file = p.options.get('command-config')?.at(-1);
        if (file) for (const [k, v] of await loadPropertiesFile(file)) properties[k] = v;
        for (const kv of p.options.get('property') ?? []) {
          const i = kv.indexOf('=');
          if (i <= 0) throw new ToolError(`Invalid property '${kv}': expected key=value`);
          properties[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
        }
        for (const [flag, key] of SECURITY_FLAGS) {
          const v = p.options.get(flag)?.at(-1);
          if (v !== undefined) properties[key] = v;
        }
        // Refuse now what every tool would refuse later (GSSAPI, a missing password, ...).
        clientConfigFromProperties(new Map(Object.entries(properties)), { bootstrapServers: [] });
        const existed = name in data.profiles;
        data.profiles[name] = { bootstrapServers: bs, properties };
        if (p.options.has('use') || data.current === null) data.current = name;
        const path = writeProfiles(io.env, data);
        out(
          `${existed ? 'Updated' : 'Created'} profile ${name}${data.current === name ? ' (current)' : ''} in ${path}.`,
        );
        return 0;
      }
      case 'use': {
        const name = oneName(parse(rest, {}), cmd)!;
        if (!(name in data.profiles)) throw new ToolError(`Profile '${name}' does not exist`);
        data.current = name;
        writeProfiles(io.env, data);
        out(`Using profile ${name}.`);
        return 0;
      }
      case 'delete': {
        const name = oneName(parse(rest, {}), cmd)!;
        if (!(name in data.profiles)) throw new ToolError(`Profile '${name}' does not exist`);
        delete data.profiles[name];
        if (data.current === name) data.current = null;
        writeProfiles(io.env, data);
        out(`Deleted profile ${name}.`);
        return 0;
      }
      case 'list':
        return await list(io, data, parse(rest, { output: true }));
      case 'show': {
        const p = parse(rest, { output: true });
        const name = oneName(p, cmd, true) ?? data.current;
        if (!name) throw new ToolError('No current profile; name one or run tkafka profile use NAME');
        const prof = data.profiles[name];
        if (!prof) throw new ToolError(`Profile '${name}' does not exist`);
        const format = parseOutputFormat(p.options.get('output')?.at(-1));
        const props = Object.fromEntries(Object.entries(prof.properties).map(([k, v]) => [k, mask(k, v)]));
        if (format === 'json')
          writeJson(io, {
            name,
            current: name === data.current,
            bootstrapServers: prof.bootstrapServers,
            properties: props,
          });
        else if (format === 'table')
          await writeTable(
            io,
            ['KEY', 'VALUE'],
            [['bootstrap.servers', prof.bootstrapServers], ...Object.entries(props)],
          );
        else {
          out(`bootstrap.servers=${prof.bootstrapServers}`);
          for (const [k, v] of Object.entries(props)) out(`${k}=${v}`);
        }
        return 0;
      }
      default:
        throw new ToolError(
          `Unknown profile command '${cmd}'; expected create, use, list, show or delete (see tkafka profile --help)`,
        );
    }
  } catch (e) {
    return reportError(io, e, { debug });
  }
}

async function list(io: ToolIO, data: ProfileFile, p: Parsed): Promise<number> {
  const format = parseOutputFormat(p.options.get('output')?.at(-1));
  const names = Object.keys(data.profiles).sort();
  if (format === 'json') {
    writeJson(io, {
      file: profilePath(io.env),
      current: data.current,
      profiles: names.map((n) => ({
        name: n,
        current: n === data.current,
        bootstrapServers: data.profiles[n]!.bootstrapServers,
        properties: Object.keys(data.profiles[n]!.properties).length,
      })),
    });
  } else if (format === 'table') {
    await writeTable(
      io,
      ['CURRENT', 'NAME', 'BOOTSTRAP SERVERS', 'PROPERTIES'],
      names.map((n) => [
        n === data.current ? '*' : '',
        n,
        data.profiles[n]!.bootstrapServers,
        Object.keys(data.profiles[n]!.properties).length,
      ]),
    );
  } else {
    for (const n of names)
      io.stdout.write(`${n === data.current ? '*' : ' '} ${n}\t${data.profiles[n]!.bootstrapServers}\n`);
  }
  return 0;
}
