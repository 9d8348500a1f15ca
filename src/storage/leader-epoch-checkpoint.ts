// `leader-epoch-checkpoint` (Kafka's LeaderEpochCheckpointFile): a checkpoint file of version 0 whose
// entries are "epoch startOffset" lines — "epoch E began at offset S". Used by every partition log
// and by the metadata log `__cluster_metadata-0`.

import * as path from 'node:path';
import { asyncLoadIO, type LoadIO } from './load-io.js';
import {
  StateFileReadError,
  parseCheckpoint,
  parseJavaInt,
  writeCheckpointFile,
  type EntryFormatter,
} from './checkpoint-file.js';

export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const LEADER_EPOCH_CHECKPOINT_VERSION = 0;

export interface EpochEntry {
  readonly epoch: number;
  readonly startOffset: number;
}

export const epochEntryFormatter: EntryFormatter<EpochEntry> = {
  toString: (e) => `${e.epoch} ${e.startOffset}`,
  fromString: (line) => {
    const parts = line.split(/\s+/);
    if (parts.length !== 2) return undefined;
    const epoch = parseJavaInt(parts[0]!, 32);
    const startOffset = parseJavaInt(parts[1]!, 64);
    if (epoch === undefined || startOffset === undefined) return undefined;
    return { epoch, startOffset };
  },
};

export function leaderEpochCheckpointFile(dir: string): string {
  return path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE);
}

/** The entries of `<dir>/leader-epoch-checkpoint`; null when the file does not exist. Throws on bad content. */
export async function readLeaderEpochCheckpoint(dir: string, io: LoadIO = asyncLoadIO): Promise<EpochEntry[] | null> {
  const file = leaderEpochCheckpointFile(dir);
  const text = (await io.readIfExists(file))?.toString('utf8');
  if (text === undefined) return null;
  try {
    return parseCheckpoint(text, LEADER_EPOCH_CHECKPOINT_VERSION, epochEntryFormatter, file);
  } catch (e) {
    // CheckpointFileWithFailureHandler.read: KafkaStorageException, the log directory goes offline
    throw new StateFileReadError(`Error while reading checkpoint file ${file}`, file, e as Error);
  }
}

/** Replaces `<dir>/leader-epoch-checkpoint` atomically. */
export async function writeLeaderEpochCheckpoint(dir: string, entries: readonly EpochEntry[]): Promise<void> {
  await writeCheckpointFile(
    leaderEpochCheckpointFile(dir),
    LEADER_EPOCH_CHECKPOINT_VERSION,
    entries,
    epochEntryFormatter,
  );
}
