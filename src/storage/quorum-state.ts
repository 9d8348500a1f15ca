// The `quorum-state` file of `__cluster_metadata-0` (Kafka's FileQuorumStateStore): one line of
// JSON, the QuorumStateData fields in schema order (lower camel case) followed by "data_version".
// Version 0 (kraft.version 0, static quorum):
//   {"clusterId":"","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}
// Version 1 (kraft.version 1):
//   {"leaderId":1,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}
// Written to quorum-state.tmp, fsynced and renamed on every durable state transition.

import { ZERO_UUID } from '../protocol/uuid.js';
import { atomicWriteFile, readTextIfExists } from './file-ops.js';

export const QUORUM_STATE_FILE = 'quorum-state';

export interface ElectionState {
  readonly leaderEpoch: number;
  /** -1 if no leader is known. */
  readonly leaderId: number;
  /** -1 if not voted. */
  readonly votedId: number;
  /** Directory id of the voted replica (v1); ZERO_UUID when unknown. */
  readonly votedDirectoryId: string;
  /** Static voter ids (v0 only). */
  readonly currentVoters: readonly number[];
}

export interface StoredQuorumState {
  readonly state: ElectionState;
  readonly dataVersion: number;
}

export function formatQuorumState(s: ElectionState, dataVersion: number): string {
  if (dataVersion === 0) {
    return JSON.stringify({
      clusterId: '',
      leaderId: s.leaderId,
      leaderEpoch: s.leaderEpoch,
      votedId: s.votedId,
      appliedOffset: 0,
      currentVoters: s.currentVoters.map((voterId) => ({ voterId })),
      data_version: 0,
    });
  }
  if (dataVersion === 1) {
    return JSON.stringify({
      leaderId: s.leaderId,
      leaderEpoch: s.leaderEpoch,
      votedId: s.votedId,
      votedDirectoryId: s.votedDirectoryId,
      data_version: 1,
    });
  }
  throw new RangeError(`Quorum state data version (${dataVersion}) is greater than the supported version (1)`);
}

const int = (v: unknown, d: number): number => (typeof v === 'number' && Number.isInteger(v) ? v : d);

/** Parses the first line of a quorum-state file. Throws on malformed content or unknown versions. */
export function parseQuorumState(text: string): StoredQuorumState {
  const line = text.split('\n', 1)[0]!.trim();
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`Error while reading the Quorum status: ${(e as Error).message}`, { cause: e });
  }
  if (obj === null || typeof obj !== 'object')
    throw new Error('Error while reading the Quorum status: not a JSON object');
  const dataVersion = obj['data_version'];
  if (dataVersion !== 0 && dataVersion !== 1) {
    throw new Error(`Unknown quorum state data version ${String(dataVersion)}`);
  }
  const voters = Array.isArray(obj['currentVoters'])
    ? (obj['currentVoters'] as unknown[]).map((v) => int((v as Record<string, unknown> | null)?.['voterId'], -1))
    : [];
  return {
    dataVersion,
    state: {
      leaderEpoch: int(obj['leaderEpoch'], -1),
      leaderId: int(obj['leaderId'], -1),
      votedId: int(obj['votedId'], -1),
      votedDirectoryId: typeof obj['votedDirectoryId'] === 'string' ? obj['votedDirectoryId'] : ZERO_UUID,
      currentVoters: voters,
    },
  };
}

export async function readQuorumState(file: string): Promise<StoredQuorumState | null> {
  const text = await readTextIfExists(file);
  if (text === undefined) return null;
  try {
    return parseQuorumState(text);
  } catch (e) {
    // FileQuorumStateStore.readElectionState: fatal, naming the file
    throw new Error(`Error while reading the Quorum status from the file ${file}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

export async function writeQuorumState(file: string, state: ElectionState, dataVersion: number): Promise<void> {
  await atomicWriteFile(file, formatQuorumState(state, dataVersion));
}
