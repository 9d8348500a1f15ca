// add-controller / remove-controller (KIP-853): the controller facts read from the new
// controller's properties file and meta.properties, and the AddRaftVoter / RemoveRaftVoter calls,
// with MetadataQuorumCommand's messages.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KafkaClient } from '../../client/client.js';
import { ApiError, checkError } from '../../client/errors.js';
import { activeTarget, type BootstrapMode, type Endpoint } from './quorum.js';

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

/**
 * One call as KafkaAdminClient makes addRaftVoter / removeRaftVoter / unregisterController: to the
 * least loaded broker or, with --bootstrap-controller, the active controller
 * (LeastLoadedBrokerOrActiveKController); connection failures are retried until
 * default.api.timeout.ms, but an error code in the response fails the call at once (handleResponse
 * completes the future exceptionally, no retry), except REQUEST_TIMED_OUT for unregisterController.
 */
async function send(
  client: KafkaClient,
  mode: BootstrapMode,
  apiName: string,
  body: (remainingMs: number) => unknown,
  retryTimedOut = false,
): Promise<void> {
  const { KafkaClient: K } = await import('../../client/client.js');
  const deadline = Date.now() + client.config.apiTimeoutMs;
  const res = await client.call(apiName, async () => {
    const conn = await activeTarget(client, mode);
    // the responses of these three APIs all start with errorCode and errorMessage
    const r = await conn.send<{ errorCode: number; errorMessage?: string | null }>(
      K.api(apiName),
      body(Math.max(0, deadline - Date.now())),
    );
    if (retryTimedOut && r.body.errorCode === REQUEST_TIMED_OUT) checkError(r.body.errorCode, r.body.errorMessage);
    return r.body;
  });
  checkError(res.errorCode, res.errorMessage ?? null);
}

const REQUEST_TIMED_OUT = 7;
const UNSUPPORTED_VERSION = 35;
const VOTER_NOT_FOUND = 127;

export async function addController(
  client: KafkaClient | null,
  mode: BootstrapMode,
  props: ReadonlyMap<string, string>,
  dryRun: boolean,
): Promise<string> {
  const id = controllerId(props);
  const directoryId = metadataDirectoryId(metadataDirectory(props));
  const endpoints = controllerEndpoints(props);
  if (!dryRun) {
    await send(client!, mode, 'AddRaftVoter', (timeoutMs) => ({
      clusterId: null,
      timeoutMs,
      voterId: id,
      voterDirectoryId: directoryId,
      listeners: endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
      ackWhenCommitted: true,
    }));
  }
  return `${dryRun ? 'DRY RUN of adding' : 'Added'} controller ${id} with directory id ${directoryId} and endpoints: ${endpointsText(endpoints)}\n`;
}

const URL_ALPHABET = /^[A-Za-z0-9_-]*$/;

/** Uuid.fromString: its checks and IllegalArgumentException messages (Base64.getUrlDecoder's included). */
export function parseUuid(text: string): string {
  if (text.length > 24)
    throw new Error(`Input string with prefix \`${text.slice(0, 24)}\` is too long to be decoded as a base64 UUID`);
  const body = text.replace(/={1,2}$/, '');
  for (const ch of body) {
    if (!URL_ALPHABET.test(ch)) throw new Error(`Illegal base64 character ${ch.charCodeAt(0).toString(16)}`);
  }
  if (body.length % 4 === 1) throw new Error('Last unit does not have enough valid bits');
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length !== 16) {
    throw new Error(
      `Input string \`${text}\` decoded as ${bytes.length} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID`,
    );
  }
  return bytes.toString('base64url');
}

/** Admin.unregisterController (KIP-1201), as `remove-controller --unregister` and `cluster unregister-controller` call it. */
export async function unregisterController(client: KafkaClient, mode: BootstrapMode, id: number): Promise<void> {
  await send(client, mode, 'UnregisterController', () => ({ controllerId: id }), true);
}

export async function removeController(
  client: KafkaClient | null,
  mode: BootstrapMode,
  id: number,
  directoryIdText: string,
  dryRun: boolean,
  unregister: boolean,
): Promise<string> {
  if (id < 0) throw new TerseError(`Invalid negative --controller-id: ${id}`);
  let directoryId: string;
  try {
    directoryId = parseUuid(directoryIdText);
  } catch (e) {
    throw new TerseError(`Failed to parse --controller-directory-id: ${(e as Error).message}`);
  }
  if (!dryRun) {
    try {
      await send(client!, mode, 'RemoveRaftVoter', () => ({
        clusterId: null,
        voterId: id,
        voterDirectoryId: directoryId,
      }));
    } catch (e) {
      if (unregister && e instanceof ApiError && (e.code === UNSUPPORTED_VERSION || e.code === VOTER_NOT_FOUND)) {
        throw new TerseError(
          `Failed to remove KRaft voter ${id}: ${e.message}. To unregister the controller from the cluster, run \`kafka-cluster.sh unregister-controller --id ${id}\`.`,
        );
      }
      throw e;
    }
  }
  let out = `${dryRun ? 'DRY RUN of removing ' : 'Removed '}KRaft controller ${id} with directory id ${directoryId}\n`;
  if (unregister) {
    if (!dryRun) {
      try {
        await unregisterController(client!, mode, id);
      } catch (e) {
        throw new TerseError(
          `Failed to unregister controller ${id}: ${(e as Error).message}. To unregister the controller from the cluster, run \`kafka-cluster.sh unregister-controller --id ${id}\`.`,
        );
      }
    }
    out += `${dryRun ? 'DRY RUN of unregistering ' : 'Unregistered '}KRaft controller ${id}\n`;
  }
  return out;
}
