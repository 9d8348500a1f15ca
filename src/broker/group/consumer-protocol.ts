// The embedded consumer protocol of classic groups with protocol type "consumer"
// (ConsumerProtocolSubscription / ConsumerProtocolAssignment): the coordinator only needs the
// subscribed topics, read with the v0 layout every later version extends.

/** Topics of a ConsumerProtocolSubscription (version prefix, then topics as int16 strings). */
export function parseSubscriptionTopics(buf: Buffer): string[] {
  let pos = 0;
  const need = (n: number): void => {
    if (pos + n > buf.length) throw new RangeError('truncated consumer protocol subscription');
  };
  need(2);
  const version = buf.readInt16BE(pos);
  pos += 2;
  if (version < 0) throw new RangeError(`invalid consumer protocol version ${version}`);
  need(4);
  const n = buf.readInt32BE(pos);
  pos += 4;
  if (n < 0 || n > buf.length) throw new RangeError('invalid topic count');
  const topics: string[] = [];
  for (let i = 0; i < n; i++) {
    need(2);
    const len = buf.readInt16BE(pos);
    pos += 2;
    if (len < 0) throw new RangeError('null topic');
    need(len);
    topics.push(buf.toString('utf8', pos, pos + len));
    pos += len;
  }
  return topics;
}

/** Builds a v0 ConsumerProtocolSubscription (tests, tools). */
export function encodeSubscription(topics: readonly string[], userData: Buffer | null = null): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(6);
  head.writeInt16BE(0, 0);
  head.writeInt32BE(topics.length, 2);
  parts.push(head);
  for (const t of topics) {
    const b = Buffer.from(t, 'utf8');
    const l = Buffer.alloc(2);
    l.writeInt16BE(b.length, 0);
    parts.push(l, b);
  }
  const ud = Buffer.alloc(4);
  ud.writeInt32BE(userData === null ? -1 : userData.length, 0);
  parts.push(ud);
  if (userData) parts.push(userData);
  return Buffer.concat(parts);
}

/** Builds a v0 ConsumerProtocolAssignment. */
export function encodeAssignment(assignment: ReadonlyMap<string, readonly number[]>): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(6);
  head.writeInt16BE(0, 0);
  head.writeInt32BE(assignment.size, 2);
  parts.push(head);
  for (const [t, ps] of assignment) {
    const b = Buffer.from(t, 'utf8');
    const l = Buffer.alloc(2 + b.length + 4 + 4 * ps.length);
    l.writeInt16BE(b.length, 0);
    b.copy(l, 2);
    l.writeInt32BE(ps.length, 2 + b.length);
    ps.forEach((p, i) => l.writeInt32BE(p, 6 + b.length + 4 * i));
    parts.push(l);
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  return Buffer.concat(parts);
}

/** Reads a ConsumerProtocolAssignment (v0 prefix): topic → partitions. */
export function parseAssignment(buf: Buffer): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (buf.length === 0) return out;
  let pos = 2;
  const n = buf.readInt32BE(pos);
  pos += 4;
  for (let i = 0; i < n; i++) {
    const len = buf.readInt16BE(pos);
    pos += 2;
    const t = buf.toString('utf8', pos, pos + len);
    pos += len;
    const c = buf.readInt32BE(pos);
    pos += 4;
    const ps: number[] = [];
    for (let j = 0; j < c; j++, pos += 4) ps.push(buf.readInt32BE(pos));
    out.set(t, ps);
  }
  return out;
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

class ProtocolReader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new RangeError('truncated consumer protocol message');
  }
  get remaining(): number {
    return this.buf.length - this.pos;
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  nullableString(): string | null {
    const len = this.int16();
    if (len < 0) return null;
    this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }
  string(): string {
    const s = this.nullableString();
    if (s === null) throw new RangeError('null string in consumer protocol message');
    return s;
  }
  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len < 0) return null;
    this.need(len);
    const b = Buffer.from(this.buf.subarray(this.pos, this.pos + len));
    this.pos += len;
    return b;
  }
  array<T>(read: () => T): T[] {
    const n = this.int32();
    if (n < 0 || n > this.buf.length) throw new RangeError('invalid array length in consumer protocol message');
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(read());
    return out;
  }
}

/**
 * ConsumerProtocol.deserializeConsumerProtocolSubscription: a version newer than 3 is read with the
 * layout of 3 (the fields are appended), so a newer client's subscription still parses.
 */
export function parseSubscription(buf: Buffer): ConsumerSubscription {
  const r = new ProtocolReader(buf);
  const version = r.int16();
  if (version < 0) throw new RangeError(`invalid consumer protocol version ${version}`);
  const topics = r.array(() => r.string());
  const userData = r.nullableBytes();
  const out: ConsumerSubscription = { version, topics, userData, ownedPartitions: [], generationId: -1, rackId: null };
  if (version >= 1 && r.remaining > 0)
    out.ownedPartitions = r.array(() => ({ topic: r.string(), partitions: r.array(() => r.int32()) }));
  if (version >= 2 && r.remaining > 0) out.generationId = r.int32();
  if (version >= 3 && r.remaining > 0) out.rackId = r.nullableString();
  return out;
}

/** ConsumerProtocol.deserializeVersion: the int16 version prefix of an embedded protocol message. */
export function protocolVersion(buf: Buffer): number {
  if (buf.length < 2) throw new RangeError('truncated consumer protocol message');
  return buf.readInt16BE(0);
}

/**
 * ConsumerProtocol.serializeAssignment(assignment, version): the layout is the same in versions 0–3;
 * the version is capped at 3 as Kafka caps it at ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION.
 */
export function encodeAssignmentVersion(assignment: ReadonlyMap<string, readonly number[]>, version: number): Buffer {
  const b = encodeAssignment(assignment);
  b.writeInt16BE(Math.max(0, Math.min(version, 3)), 0);
  return b;
}

/** A ConsumerProtocolAssignment with its user data (null when absent). */
export function parseAssignmentWithUserData(buf: Buffer): {
  partitions: Map<string, number[]>;
  userData: Buffer | null;
} {
  const r = new ProtocolReader(buf);
  r.int16();
  const partitions = new Map<string, number[]>();
  for (const tp of r.array(() => ({ topic: r.string(), partitions: r.array(() => r.int32()) })))
    partitions.set(tp.topic, tp.partitions);
  const userData = r.remaining >= 4 ? r.nullableBytes() : null;
  return { partitions, userData };
}
