// The embedded consumer protocol of classic groups with protocol type "consumer"
// (ConsumerProtocolSubscription / ConsumerProtocolAssignment), read and written with the codec generated from
// Kafka's schemas, as Kafka's ConsumerProtocol does: the int16 version prefix, then the message at that
// version, a version above the highest known one read as the highest (its fields are appended).
import { Reader } from '../../protocol/codec/reader.js';
import { Writer } from '../../protocol/codec/writer.js';
import {
  readConsumerProtocolSubscription,
  writeConsumerProtocolSubscription,
  type ConsumerProtocolSubscription,
} from '../../protocol/generated/protocol/ConsumerProtocolSubscription.js';
import {
  readConsumerProtocolAssignment,
  writeConsumerProtocolAssignment,
} from '../../protocol/generated/protocol/ConsumerProtocolAssignment.js';

/** ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION (= ConsumerProtocolAssignment's). */
const HIGHEST_VERSION = 3;

/** ConsumerProtocol.deserializeVersion: the int16 version prefix of an embedded protocol message. */
export function protocolVersion(buf: Buffer): number {
  if (buf.length < 2) throw new RangeError('truncated consumer protocol message');
  return buf.readInt16BE(0);
}

/**
 * Reads the message after the version prefix at the version it declares (capped at the highest known). A
 * message that stops before the fields of its version is read at the highest version its bytes hold, as
 * the coordinator has always accepted from clients that declare a version without its fields.
 */
function readAt<T>(buf: Buffer, read: (r: Reader, v: number) => T): { version: number; message: T } {
  const version = protocolVersion(buf);
  if (version < 0) throw new RangeError(`invalid consumer protocol version ${version}`);
  for (let v = Math.min(version, HIGHEST_VERSION); ; v--) {
    try {
      return { version, message: read(new Reader(buf, 2), v) };
    } catch (e) {
      if (v === 0) throw e;
    }
  }
}

function withVersion(version: number, write: (w: Writer, v: number) => void): Buffer {
  const v = Math.max(0, Math.min(version, HIGHEST_VERSION));
  const w = new Writer();
  w.int16(v);
  write(w, v);
  return w.toBuffer();
}

/** Topics of a ConsumerProtocolSubscription. */
export function parseSubscriptionTopics(buf: Buffer): string[] {
  return parseSubscription(buf).topics;
}

/** Builds a v0 ConsumerProtocolSubscription (tests, tools). */
export function encodeSubscription(topics: readonly string[], userData: Buffer | null = null): Buffer {
  return withVersion(0, (w, v) => writeConsumerProtocolSubscription(w, v, { topics: [...topics], userData }));
}

/** Builds a v0 ConsumerProtocolAssignment. */
export function encodeAssignment(assignment: ReadonlyMap<string, readonly number[]>): Buffer {
  return encodeAssignmentVersion(assignment, 0);
}

/** Reads a ConsumerProtocolAssignment: topic → partitions (an empty buffer is no assignment). */
export function parseAssignment(buf: Buffer): Map<string, number[]> {
  if (buf.length === 0) return new Map();
  return parseAssignmentWithUserData(buf).partitions;
}

/** A ConsumerProtocolSubscription of any version (0–3), as ConsumerProtocol.deserializeSubscription reads it. */
export interface ConsumerSubscription {
  version: number;
  topics: string[];
  userData: Buffer | null;
  /** v1+ */
  ownedPartitions: { topic: string; partitions: number[] }[];
  /** v2+, -1 when absent */
  generationId: number;
  /** v3+ */
  rackId: string | null;
}

/** ConsumerProtocol.deserializeConsumerProtocolSubscription, any version. */
export function parseSubscription(buf: Buffer): ConsumerSubscription {
  const { version, message } = readAt<ConsumerProtocolSubscription>(buf, readConsumerProtocolSubscription);
  return {
    version,
    topics: message.topics,
    userData: message.userData,
    ownedPartitions: message.ownedPartitions.map((tp) => ({ topic: tp.topic, partitions: tp.partitions })),
    generationId: message.generationId,
    rackId: message.rackId,
  };
}

/**
 * ConsumerProtocol.serializeAssignment(assignment, version): the layout is the same in versions 0–3;
 * the version is capped at 3 as Kafka caps it at ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION.
 */
export function encodeAssignmentVersion(assignment: ReadonlyMap<string, readonly number[]>, version: number): Buffer {
  return withVersion(version, (w, v) =>
    writeConsumerProtocolAssignment(w, v, {
      assignedPartitions: [...assignment].map(([topic, partitions]) => ({ topic, partitions: [...partitions] })),
      userData: null,
    }),
  );
}

/** A ConsumerProtocolAssignment with its user data (null when absent). */
export function parseAssignmentWithUserData(buf: Buffer): {
  partitions: Map<string, number[]>;
  userData: Buffer | null;
} {
  const { message } = readAt(buf, readConsumerProtocolAssignment);
  return {
    partitions: new Map(message.assignedPartitions.map((tp) => [tp.topic, tp.partitions])),
    userData: message.userData,
  };
}
