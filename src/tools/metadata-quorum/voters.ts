// add-controller / remove-controller (KIP-853): the controller facts read from the new
// controller's properties file and meta.properties, and the AddRaftVoter / RemoveRaftVoter calls,
// with MetadataQuorumCommand's messages.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KafkaClient } from '../../client/client.js';
import { checkError } from '../../client/errors.js';
import type { Endpoint } from './quorum.js';

export class TerseError extends Error {}

const invalid = (what: string): TerseError => new TerseError(`${what} Is this a valid controller configuration file?`);

export function controllerId(props: ReadonlyMap<string, string>): number {
  const raw = props.get('node.id');
  if (raw === undefined) throw invalid('node.id not found in configuration file.');
  if (!/^[+-]?\d+$/.test(raw.trim()))
    throw new TerseError(`java.lang.NumberFormatException: For input string: "${raw}"`);
  const id = Number(raw.trim());
  if (id < 0) throw invalid('node.id was negative in configuration file.');
  if (!(props.get('process.roles') ?? '').includes('controller'))
    throw invalid("process.roles did not contain 'controller' in configuration file.");
  return id;
}

export function metadataDirectory(props: ReadonlyMap<string, string>): string {
  const m = props.get('metadata.log.dir');
  if (m !== undefined) return m;
  const dirs = props.get('log.dirs');
  if (dirs !== undefined) return dirs.trim().split(',')[0]!;
  throw invalid('Neither metadata.log.dir nor log.dirs were found.');
}

export function metadataDirectoryId(dir: string): string {
  const file = join(dir, 'meta.properties');
  if (!existsSync(file)) throw new TerseError(`Unable to read meta.properties from ${dir}`);
  const m = /^directory\.id\s*[=:]\s*(\S+)\s*$/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new TerseError(`No directory id found in ${dir}`);
  return m[1]!;
}

/** Listener list `NAME://host:port,...` (SocketServerConfigs.listenerListToEndPoints, simplified). */
function listeners(value: string): Map<string, Endpoint> {
  const out = new Map<string, Endpoint>();
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([^:]+):\/\/(\[[^\]]*\]|[^:]*):(-?\d+)$/.exec(item);
    if (!m) throw new TerseError(`Unable to parse ${item} to a broker endpoint`);
    const host = m[2]!.replace(/^\[|\]$/g, '');
    out.set(m[1]!.toUpperCase(), {
      name: m[1]!.toUpperCase(),
      host: host === '' ? 'localhost' : host,
      port: Number(m[3]),
    });
  }
  return out;
}

export function controllerEndpoints(props: ReadonlyMap<string, string>): Endpoint[] {
  const all = listeners(props.get('listeners') ?? '');
  for (const [k, v] of listeners(props.get('advertised.listeners') ?? '')) all.set(k, v);
  const names = props.get('controller.listener.names');
  if (names === undefined) throw invalid('controller.listener.names was not found.');
  const out: Endpoint[] = [];
  for (const raw of names.split(',')) {
    const name = raw.trim().toUpperCase();
    const e = all.get(name);
    if (!e) throw new TerseError(`Cannot find information about controller listener name: ${name}`);
    if (!out.some((x) => x.name === e.name && x.host === e.host && x.port === e.port)) out.push(e);
  }
  return out;
}

const endpointsText = (es: readonly Endpoint[]): string =>
  es.map((e) => `${e.name}://${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`).join(', ');

async function send(client: KafkaClient, apiName: string, body: unknown): Promise<void> {
  const { KafkaClient: K } = await import('../../client/client.js');
  await client.call(apiName, async () => {
    const conn = await client.anyConnection();
    // AddRaftVoter and RemoveRaftVoter responses both carry errorCode and errorMessage at the top
    const res = await conn.send<{ errorCode: number; errorMessage: string | null }>(K.api(apiName), body);
    checkError(res.body.errorCode, res.body.errorMessage);
  });
}

export async function addController(
  client: KafkaClient | null,
  props: ReadonlyMap<string, string>,
  dryRun: boolean,
): Promise<string> {
  const id = controllerId(props);
  const directoryId = metadataDirectoryId(metadataDirectory(props));
  const endpoints = controllerEndpoints(props);
  if (!dryRun) {
    await send(client!, 'AddRaftVoter', {
      clusterId: null,
      timeoutMs: 30000,
      voterId: id,
      voterDirectoryId: directoryId,
      listeners: endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
    });
  }
  return `${dryRun ? 'DRY RUN of adding' : 'Added'} controller ${id} with directory id ${directoryId} and endpoints: ${endpointsText(endpoints)}\n`;
}

export async function removeController(
  client: KafkaClient | null,
  id: number,
  directoryIdText: string,
  dryRun: boolean,
): Promise<string> {
  if (id < 0) throw new TerseError(`Invalid negative --controller-id: ${id}`);
  const bytes = Buffer.from(directoryIdText, 'base64url');
  if (bytes.length !== 16 || bytes.toString('base64url') !== directoryIdText) {
    throw new TerseError(
      `Failed to parse --controller-directory-id: Input string with prefix \`${directoryIdText.slice(0, 22)}\` is too long to be decoded as a base64 UUID`,
    );
  }
  if (!dryRun)
    await send(client!, 'RemoveRaftVoter', { clusterId: null, voterId: id, voterDirectoryId: directoryIdText });
  return `${dryRun ? 'DRY RUN of removing ' : 'Removed '} KRaft controller ${id} with directory id ${directoryIdText}\n`;
}
