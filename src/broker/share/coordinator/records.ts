// The records of __share_group_state (Kafka 4.4's share-coordinator schemas): a key is an int16
// record type (0 ShareSnapshot, 1 ShareUpdate) and the key message; a value is an int16 value
// version (0) and the value message; a ShareSnapshot key with no value is the tombstone
// DeleteShareGroupState writes (ShareCoordinatorRecordHelpers).
import { Reader } from '../../../protocol/codec/reader.js';
import { Writer } from '../../../protocol/codec/writer.js';
import {
  readShareSnapshotKey,
  readShareSnapshotValue,
  writeShareSnapshotKey,
  writeShareSnapshotValue,
  type ShareSnapshotValue,
} from '../../../protocol/generated/share/ShareSnapshot.js';
import {
  readShareUpdateKey,
  readShareUpdateValue,
  writeShareUpdateKey,
  writeShareUpdateValue,
  type ShareUpdateValue,
} from '../../../protocol/generated/share/ShareUpdate.js';
import type { SharePartitionKey } from '../types.js';

export const SHARE_SNAPSHOT_RECORD_TYPE = 0;
export const SHARE_UPDATE_RECORD_TYPE = 1;

export type ShareRecord =
  | { type: 'ShareSnapshot'; key: SharePartitionKey; value: ShareSnapshotValue | null }
  | { type: 'ShareUpdate'; key: SharePartitionKey; value: ShareUpdateValue | null };

export interface EncodedShareRecord {
  key: Buffer;
  value: Buffer | null;
}

function encode(version: number, write: (w: Writer) => void): Buffer {
  const w = new Writer(64);
  w.int16(version);
  write(w);
  return w.toBuffer();
}

export function encodeShareRecord(r: ShareRecord): EncodedShareRecord {
  const k = { groupId: r.key.groupId, topicId: r.key.topicId, partition: r.key.partition };
  if (r.type === 'ShareSnapshot') {
    const value = r.value;
    return {
      key: encode(SHARE_SNAPSHOT_RECORD_TYPE, (w) => writeShareSnapshotKey(w, 0, k)),
      value: value === null ? null : encode(0, (w) => writeShareSnapshotValue(w, 0, value)),
    };
  }
  const value = r.value;
  return {
    key: encode(SHARE_UPDATE_RECORD_TYPE, (w) => writeShareUpdateKey(w, 0, k)),
    value: value === null ? null : encode(0, (w) => writeShareUpdateValue(w, 0, value)),
  };
}

/** Decodes a record of __share_group_state; null for a record type this version does not know. */
export function decodeShareRecord(key: Buffer, value: Buffer | null): ShareRecord | null {
  const kr = new Reader(key);
  const type = kr.int16();
  if (type === SHARE_SNAPSHOT_RECORD_TYPE) {
    const k = readShareSnapshotKey(kr, 0);
    let v: ShareSnapshotValue | null = null;
    if (value !== null) {
      const vr = new Reader(value);
      v = readShareSnapshotValue(vr, vr.int16());
    }
    return { type: 'ShareSnapshot', key: { groupId: k.groupId, topicId: k.topicId, partition: k.partition }, value: v };
  }
  if (type === SHARE_UPDATE_RECORD_TYPE) {
    const k = readShareUpdateKey(kr, 0);
    let v: ShareUpdateValue | null = null;
    if (value !== null) {
      const vr = new Reader(value);
      v = readShareUpdateValue(vr, vr.int16());
    }
    return { type: 'ShareUpdate', key: { groupId: k.groupId, topicId: k.topicId, partition: k.partition }, value: v };
  }
  return null;
}
