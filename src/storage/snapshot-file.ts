// KRaft snapshot files of `__cluster_metadata-0`: `<20-digit endOffset>-<10-digit epoch>.checkpoint`
// (Kafka's Snapshots, FileRawSnapshotWriter, RecordsSnapshotWriter), written to
// `<stem>-<random>.checkpoint.part`, fsynced and renamed; and `bootstrap.checkpoint` in the metadata
// log directory (BootstrapDirectory, BatchFileWriter), written through `bootstrap.checkpoint.tmp`.
// Both hold v2 batches with base offsets starting at 0 inside the file and partitionLeaderEpoch =
// the snapshot epoch: first a control batch with SnapshotHeaderRecord (+ KRaftVersionRecord and
// VotersRecord when kraft.version >= 1), then data batches of framed metadata records, then a
// control batch with SnapshotFooterRecord.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { VotersRecord } from '../protocol/generated/protocol/VotersRecord.js';
import { defaultFeatureLevelRecord } from '../protocol/generated/metadata/FeatureLevelRecord.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../protocol/metadata-records.js';
import {
  buildControlBatch,
  buildDataBatch,
  ControlRecordType,
  decodeMetadataBatch,
  type ControlRecord,
} from '../protocol/records/metadata-batches.js';
import { atomicWriteFile, listDir } from './file-ops.js';
import { filenamePrefixFromOffset } from './log-file-names.js';
import { CLUSTER_METADATA_DIR } from './meta-properties.js';
import { readBatches } from './segment-io.js';

export const SNAPSHOT_SUFFIX = '.checkpoint';
export const PARTIAL_SUFFIX = '.checkpoint.part';
export const DELETED_SUFFIX = '.checkpoint.deleted';
export const BOOTSTRAP_CHECKPOINT_FILE = 'bootstrap.checkpoint';

/** A snapshot id: the end offset (exclusive) and the epoch of its last record. */
export interface SnapshotId {
  readonly offset: number;
  readonly epoch: number;
}

export function snapshotFileName(id: SnapshotId): string {
  return `${filenamePrefixFromOffset(id.offset)}-${String(id.epoch).padStart(10, '0')}${SNAPSHOT_SUFFIX}`;
}

export function parseSnapshotFileName(name: string): SnapshotId | null {
  const m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(name);
  return m ? { offset: Number(m[1]), epoch: Number(m[2]) } : null;
}

/** Completed snapshots in the directory, oldest first; removes stale partial/deleted files. */
export async function listSnapshots(dir: string): Promise<SnapshotId[]> {
  const out: SnapshotId[] = [];
  for (const n of await listDir(dir)) {
    if (n.endsWith(PARTIAL_SUFFIX) || n.endsWith(DELETED_SUFFIX)) {
      await fsp.rm(path.join(dir, n), { force: true });
      continue;
    }
    const id = parseSnapshotFileName(n);
    if (id) out.push(id);
  }
  return out.sort((a, b) => a.offset - b.offset || a.epoch - b.epoch);
}

export function bootstrapCheckpointFile(dir: string): string {
  return path.join(dir, BOOTSTRAP_CHECKPOINT_FILE);
}

/** Records per data batch (SnapshotEmitter's default batch size). */
export const SNAPSHOT_RECORDS_PER_BATCH = 1024;

export function compareOffsetAndEpoch(a: SnapshotId, b: SnapshotId): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.offset - b.offset;
}

export interface SnapshotContent {
  /** Epoch stamped on every batch (the snapshot id's epoch; 0 for bootstrap files). */
  readonly epoch: number;
  readonly lastContainedLogTimestamp: number;
  readonly records: readonly MetadataRecord[];
  /** kraft.version >= 1 adds KRaftVersionRecord (+ VotersRecord if given) to the header batch. */
  readonly kraftVersion?: number;
  readonly voters?: VotersRecord | null;
  /** Append time stamped on the batches (default now). */
  readonly now?: number;
}

/** Encodes a snapshot/bootstrap file in memory. */
export function encodeSnapshot(c: SnapshotContent): Buffer {
  const now = c.now ?? Date.now();
  const parts: Buffer[] = [];
  let offset = 0;
  const header: ControlRecord[] = [
    {
      type: ControlRecordType.SnapshotHeader,
      data: { version: 0, lastContainedLogTimestamp: BigInt(c.lastContainedLogTimestamp) },
    },
  ];
  if ((c.kraftVersion ?? 0) >= 1) {
    header.push({ type: ControlRecordType.KRaftVersion, data: { version: 0, kRaftVersion: c.kraftVersion! } });
    if (c.voters) header.push({ type: ControlRecordType.KRaftVoters, data: c.voters });
  }
  parts.push(buildControlBatch({ baseOffset: offset, epoch: c.epoch, timestamp: now }, header));
  offset += header.length;
  for (let i = 0; i < c.records.length; i += SNAPSHOT_RECORDS_PER_BATCH) {
    const chunk = c.records.slice(i, i + SNAPSHOT_RECORDS_PER_BATCH);
    parts.push(buildDataBatch({ baseOffset: offset, epoch: c.epoch, timestamp: now }, chunk));
    offset += chunk.length;
  }
  parts.push(
    buildControlBatch({ baseOffset: offset, epoch: c.epoch, timestamp: now }, [
      { type: ControlRecordType.SnapshotFooter, data: { version: 0 } },
    ]),
  );
  return Buffer.concat(parts);
}

/** Encodes the snapshot and writes it atomically as `file` (via a `.checkpoint.part` file). */
export async function writeSnapshotFile(file: string, c: SnapshotContent): Promise<void> {
  const stem = file.endsWith(SNAPSHOT_SUFFIX) ? file.slice(0, -SNAPSHOT_SUFFIX.length) : file;
  await atomicWriteFile(file, encodeSnapshot(c), `${stem}-${randomBytes(8).toString('hex')}${PARTIAL_SUFFIX}`);
}

export interface LoadedSnapshot {
  readonly lastContainedLogTimestamp: number;
  readonly records: MetadataRecord[];
  readonly kraftVersion: number;
  readonly voters: VotersRecord | null;
  readonly epoch: number;
}

/** Reads and validates a snapshot (header first, footer last, CRCs, record framing). */
export async function readSnapshotFile(file: string): Promise<LoadedSnapshot> {
  const records: MetadataRecord[] = [];
  let lastContainedLogTimestamp = -1;
  let kraftVersion = 0;
  let voters: VotersRecord | null = null;
  let sawHeader = false;
  let sawFooter = false;
  let epoch = -1;
  let error: Error | null = null;
  const res = await readBatches(
    file,
    0,
    (_info, buf) => {
      const b = decodeMetadataBatch(buf, 0);
      epoch = b.epoch;
      if (sawFooter) {
        error = new Error(`snapshot ${file} has data after its footer`);
        return false;
      }
      if (b.isControl) {
        for (const c of b.controls) {
          if (c.type === ControlRecordType.SnapshotHeader && c.data) {
            sawHeader = true;
            lastContainedLogTimestamp = Number(c.data.lastContainedLogTimestamp);
          } else if (c.type === ControlRecordType.SnapshotFooter) {
            sawFooter = true;
          } else if (c.type === ControlRecordType.KRaftVersion && c.data) {
            kraftVersion = c.data.kRaftVersion;
          } else if (c.type === ControlRecordType.KRaftVoters && c.data) {
            voters = c.data;
          }
        }
      } else {
        if (!sawHeader) {
          error = new Error(`snapshot ${file} does not start with a SnapshotHeaderRecord`);
          return false;
        }
        records.push(...b.records);
      }
      return true;
    },
    { verifyCrc: true, stopOnError: false },
  );
  if (error) throw error;
  if (res.error) throw res.error;
  if (!sawHeader || !sawFooter)
    throw new Error(`snapshot ${file} is incomplete (header ${sawHeader}, footer ${sawFooter})`);
  return { lastContainedLogTimestamp, records, kraftVersion, voters, epoch };
}

/**
 * The FeatureLevelRecords of a bootstrap.checkpoint, in the order Kafka's formatter writes them:
 * metadata.version first, then the other features by name; never kraft.version, no zero levels.
 */
export function featureLevelRecords(
  metadataVersion: number,
  levels: Iterable<readonly [string, number]>,
): MetadataRecord[] {
  const others = new Map<string, number>(levels);
  others.delete('metadata.version');
  others.delete('kraft.version');
  const record = (name: string, featureLevel: number): MetadataRecord =>
    metadataRecord(RecordType.FeatureLevel, 0, { ...defaultFeatureLevelRecord(), name, featureLevel });
  const out = [record('metadata.version', metadataVersion)];
  for (const [name, level] of [...others].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    if (level !== 0) out.push(record(name, level));
  return out;
}

/**
 * Writes `<dir>/bootstrap.checkpoint` (epoch 0, LastContainedLogTimestamp 0) via
 * `bootstrap.checkpoint.tmp` + fsync + rename + directory fsync.
 */
export async function writeBootstrapCheckpointFile(dir: string, records: readonly MetadataRecord[]): Promise<void> {
  await atomicWriteFile(
    bootstrapCheckpointFile(dir),
    encodeSnapshot({ epoch: 0, lastContainedLogTimestamp: 0, records }),
  );
}

export interface DynamicQuorumVoter {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly directoryId: string;
}

/**
 * Writes the KIP-853 bootstrap snapshot `<dir>/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`
 * holding KRaftVersionRecord + VotersRecord (for `format --standalone/--initial-controllers`).
 */
export async function writeDynamicQuorumSnapshot(
  dir: string,
  info: {
    readonly voters: readonly DynamicQuorumVoter[];
    readonly kraftVersion: number;
    readonly controllerListenerName: string;
  },
): Promise<void> {
  const metaDir = path.join(dir, CLUSTER_METADATA_DIR);
  await fsp.mkdir(metaDir, { recursive: true });
  await writeSnapshotFile(path.join(metaDir, snapshotFileName({ offset: 0, epoch: 0 })), {
    epoch: 0,
    lastContainedLogTimestamp: Date.now(),
    records: [],
    kraftVersion: Math.max(1, info.kraftVersion),
    voters: {
      version: 0,
      voters: info.voters.map((v) => ({
        voterId: v.nodeId,
        voterDirectoryId: v.directoryId,
        endpoints: [{ name: info.controllerListenerName, host: v.host, port: v.port }],
        kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
      })),
    },
  });
}
