// `partition.metadata` (PartitionMetadataFile.java): "version: 0\ntopic_id: <base64url uuid>"
// with no trailing newline, written atomically.

import * as path from 'node:path';
import { ZERO_UUID } from '../protocol/uuid.js';
import { atomicWriteFile } from './file-ops.js';
import { asyncLoadIO, type LoadIO } from './load-io.js';
import { StateFileReadError } from './checkpoint-file.js';

export const PARTITION_METADATA_FILE = 'partition.metadata';
export const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** Kafka's Uuid.toString: 16 bytes → URL-safe base64 without padding (22 chars). */
export function uuidToBase64(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError('a UUID has 16 bytes');
  return Buffer.from(bytes).toString('base64url');
}

export function uuidFromBase64(s: string): Buffer {
  const b = Buffer.from(s, 'base64url');
  if (b.length !== 16 || b.toString('base64url') !== s) throw new RangeError(`invalid topic id ${s}`);
  return b;
}

export function formatPartitionMetadata(topicId: string): string {
  return `version: 0\ntopic_id: ${topicId}`;
}

export function parsePartitionMetadata(
  text: string,
  location = PARTITION_METADATA_FILE,
): { version: number; topicId: string } {
  const lines = text.split(/\r\n|\r|\n/);
  const fields: string[] = [];
  for (let i = 0; i < 2; i++) {
    const line = lines[i];
    const parts = line === undefined ? [] : line.split(/\s+/);
    if (parts.length !== 2) throw new Error(`Malformed line in checkpoint file [${location}]: ${line ?? ''}`);
    fields.push(parts[1]!);
  }
  if (!lines[0]!.startsWith('version:') || !lines[1]!.startsWith('topic_id:')) {
    throw new Error(`Malformed partition metadata file [${location}]`);
  }
  const version = Number(fields[0]);
  if (!Number.isInteger(version) || version < 0)
    throw new Error(`Unrecognized version ${fields[0]} in partition metadata file [${location}]`);
  const topicId = fields[1]!;
  uuidFromBase64(topicId);
  if (topicId === ZERO_UUID) throw new Error(`Invalid topic ID in partition metadata file [${location}]`);
  return { version, topicId };
}

export async function writePartitionMetadata(dir: string, topicId: string): Promise<void> {
  uuidFromBase64(topicId);
  await atomicWriteFile(path.join(dir, PARTITION_METADATA_FILE), formatPartitionMetadata(topicId));
}

/** The topic id stored in `<dir>/partition.metadata`, or undefined when the file is absent. */
export async function readPartitionMetadata(dir: string, io: LoadIO = asyncLoadIO): Promise<string | undefined> {
  const file = path.join(dir, PARTITION_METADATA_FILE);
  const text = (await io.readIfExists(file))?.toString('utf8');
  if (text === undefined) return undefined;
  try {
    return parsePartitionMetadata(text, file).topicId;
  } catch (e) {
    // PartitionMetadataFile.read: a KafkaStorageException that takes the log directory offline
    throw new StateFileReadError(`Error while reading partition metadata file ${file}`, file, e as Error);
  }
}
