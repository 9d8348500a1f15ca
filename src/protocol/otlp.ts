// A protobuf reader for the subset of OpenTelemetry's OTLP `MetricsData` (opentelemetry-proto
// metrics/v1, common/v1, resource/v1) that KIP-714 clients push: resource attributes, metrics with
// gauge, sum and histogram data points and their attributes. Hand-written (a few wire types and
// field numbers) instead of a protobuf library: no generated code or .proto files to carry, and it
// throws on malformed input, which the broker answers as INVALID_RECORD as Kafka does.

export type AttrValue = string | number | boolean | bigint;

export interface NumberPoint {
  readonly attributes: Record<string, AttrValue>;
  readonly timeUnixNano: bigint;
  readonly startTimeUnixNano: bigint;
  readonly value: number;
}

export interface HistogramPoint {
  readonly attributes: Record<string, AttrValue>;
  readonly timeUnixNano: bigint;
  readonly count: number;
  readonly sum: number | undefined;
  readonly bucketCounts: readonly number[];
  readonly explicitBounds: readonly number[];
}

export interface OtlpMetric {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly kind: 'gauge' | 'sum' | 'histogram' | 'other';
  /** Sum only. */
  readonly monotonic: boolean;
  /** Sum/histogram: 1 delta, 2 cumulative, 0 unspecified. */
  readonly temporality: number;
  readonly points: readonly NumberPoint[];
  readonly histogramPoints: readonly HistogramPoint[];
}

export interface OtlpResourceMetrics {
  readonly resource: Record<string, AttrValue>;
  readonly metrics: readonly OtlpMetric[];
}

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

class PbReader {
  pos = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly end = buf.length,
    start = 0,
  ) {
    this.pos = start;
  }
  done(): boolean {
    return this.pos >= this.end;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new OtlpDecodeError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw new OtlpDecodeError('varint too long');
    }
  }
  tag(): { field: number; wire: number } {
    const t = Number(this.varint());
    return { field: t >>> 3, wire: t & 7 };
  }
  fixed64(): Buffer {
    if (this.pos + 8 > this.end) throw new OtlpDecodeError('truncated fixed64');
    const b = this.buf.subarray(this.pos, this.pos + 8);
    this.pos += 8;
    return b;
  }
  /** A length-delimited field: a reader over its bytes. */
  sub(): PbReader {
    const len = Number(this.varint());
    if (this.pos + len > this.end) throw new OtlpDecodeError('truncated length-delimited field');
    const r = new PbReader(this.buf, this.pos + len, this.pos);
    this.pos += len;
    return r;
  }
  string(): string {
    const r = this.sub();
    return this.buf.toString('utf8', r.pos, r.end);
  }
  skip(wire: number): void {
    switch (wire) {
      case 0:
        this.varint();
        return;
      case 1:
        this.fixed64();
        return;
      case 2:
        this.sub();
        return;
      case 5:
        if (this.pos + 4 > this.end) throw new OtlpDecodeError('truncated fixed32');
        this.pos += 4;
        return;
      default:
        throw new OtlpDecodeError(`unsupported wire type ${wire}`);
    }
  }
}

function anyValue(r: PbReader): AttrValue {
  let v: AttrValue = '';
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) v = r.string();
    else if (field === 2 && wire === 0) v = r.varint() !== 0n;
    else if (field === 3 && wire === 0) v = BigInt.asIntN(64, r.varint());
    else if (field === 4 && wire === 1) v = r.fixed64().readDoubleLE(0);
    else r.skip(wire);
  }
  return v;
}

function keyValue(r: PbReader, into: Record<string, AttrValue>): void {
  let key = '';
  let value: AttrValue = '';
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) key = r.string();
    else if (field === 2 && wire === 2) value = anyValue(r.sub());
    else r.skip(wire);
  }
  into[key] = value;
}

function numberPoint(r: PbReader): NumberPoint {
  const attributes: Record<string, AttrValue> = {};
  let timeUnixNano = 0n;
  let startTimeUnixNano = 0n;
  let value = 0;
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 7 && wire === 2) keyValue(r.sub(), attributes);
    else if (field === 2 && wire === 1) startTimeUnixNano = r.fixed64().readBigUInt64LE(0);
    else if (field === 3 && wire === 1) timeUnixNano = r.fixed64().readBigUInt64LE(0);
    else if (field === 4 && wire === 1) value = r.fixed64().readDoubleLE(0);
    else if (field === 6 && wire === 1) value = Number(r.fixed64().readBigInt64LE(0));
    else r.skip(wire);
  }
  return { attributes, timeUnixNano, startTimeUnixNano, value };
}

function packedOrOne(r: PbReader, wire: number, read: (b: Buffer) => number, out: number[]): void {
  if (wire === 1) {
    out.push(read(r.fixed64()));
    return;
  }
  if (wire !== 2) throw new OtlpDecodeError('bad packed field');
  const s = r.sub();
  while (!s.done()) out.push(read(s.fixed64()));
}

function histogramPoint(r: PbReader): HistogramPoint {
  const attributes: Record<string, AttrValue> = {};
  let timeUnixNano = 0n;
  let count = 0;
  let sum: number | undefined;
  const bucketCounts: number[] = [];
  const explicitBounds: number[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 9 && wire === 2) keyValue(r.sub(), attributes);
    else if (field === 3 && wire === 1) timeUnixNano = r.fixed64().readBigUInt64LE(0);
    else if (field === 4 && wire === 1) count = Number(r.fixed64().readBigUInt64LE(0));
    else if (field === 5 && wire === 1) sum = r.fixed64().readDoubleLE(0);
    else if (field === 6) packedOrOne(r, wire, (b) => Number(b.readBigUInt64LE(0)), bucketCounts);
    else if (field === 7) packedOrOne(r, wire, (b) => b.readDoubleLE(0), explicitBounds);
    else r.skip(wire);
  }
  return { attributes, timeUnixNano, count, sum, bucketCounts, explicitBounds };
}

function metric(r: PbReader): OtlpMetric {
  let name = '';
  let description = '';
  let unit = '';
  let kind: OtlpMetric['kind'] = 'other';
  let monotonic = false;
  let temporality = 0;
  const points: NumberPoint[] = [];
  const histogramPoints: HistogramPoint[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === 2) name = r.string();
    else if (field === 2 && wire === 2) description = r.string();
    else if (field === 3 && wire === 2) unit = r.string();
    else if ((field === 5 || field === 7 || field === 9) && wire === 2) {
      kind = field === 5 ? 'gauge' : field === 7 ? 'sum' : 'histogram';
      const d = r.sub();
      while (!d.done()) {
        const t = d.tag();
        if (t.field === 1 && t.wire === 2) {
          if (field === 9) histogramPoints.push(histogramPoint(d.sub()));
          else points.push(numberPoint(d.sub()));
        } else if (t.field === 2 && t.wire === 0 && field !== 5) temporality = Number(d.varint());
        else if (t.field === 3 && t.wire === 0 && field === 7) monotonic = d.varint() !== 0n;
        else d.skip(t.wire);
      }
    } else r.skip(wire);
  }
  return { name, description, unit, kind, monotonic, temporality, points, histogramPoints };
}

/** Decodes an uncompressed OTLP MetricsData message. Throws OtlpDecodeError on malformed input. */
export function decodeMetricsData(buf: Buffer): OtlpResourceMetrics[] {
  const out: OtlpResourceMetrics[] = [];
  const r = new PbReader(buf);
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field !== 1 || wire !== 2) {
      r.skip(wire);
      continue;
    }
    const rm = r.sub();
    const resource: Record<string, AttrValue> = {};
    const metrics: OtlpMetric[] = [];
    while (!rm.done()) {
      const t = rm.tag();
      if (t.field === 1 && t.wire === 2) {
        const res = rm.sub();
        while (!res.done()) {
          const u = res.tag();
          if (u.field === 1 && u.wire === 2) keyValue(res.sub(), resource);
          else res.skip(u.wire);
        }
      } else if (t.field === 2 && t.wire === 2) {
        const sm = rm.sub();
        while (!sm.done()) {
          const u = sm.tag();
          if (u.field === 2 && u.wire === 2) metrics.push(metric(sm.sub()));
          else sm.skip(u.wire);
        }
      } else rm.skip(t.wire);
    }
    out.push({ resource, metrics });
  }
  return out;
}
