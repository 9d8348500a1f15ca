// Test-side access to the codec generator's view of Kafka's JSON specs, and a seeded value
// generator that fills every field of a message at a given version with non-default values.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const SPEC_DIR = process.env.TKAFKA_SPEC_DIR ?? resolve(REPO_ROOT, 'spec', 'kafka-4.4');

export interface FieldModel {
  name: string;
  prop: string;
  isArray: boolean;
  elem: string;
  isStruct: boolean;
  versions: [number, number] | null;
  nullable: [number, number] | null;
  tagged: [number, number] | null;
  tag: number | null;
  ignorable: boolean;
  default: string | null;
}
export interface StructModel {
  name: string | null;
  tsName: string;
  fields: FieldModel[];
}
export interface GenModel {
  name: string;
  valid: [number, number];
  flexible: [number, number] | null;
  root: StructModel;
  struct(name: string): StructModel;
}
export interface SpecModel {
  group: string;
  file: string;
  spec: { name: string; type: string; apiKey?: number; validVersions: string };
  gen: GenModel;
}

export function specAvailable(): boolean {
  return existsSync(SPEC_DIR);
}

export async function loadModels(): Promise<SpecModel[]> {
  const mod = await import(new URL('../../../scripts/generate-codec.mjs', import.meta.url).href);
  return mod.loadModels(SPEC_DIR) as SpecModel[];
}

export async function generateInto(outDir: string): Promise<string[]> {
  const mod = await import(new URL('../../../scripts/generate-codec.mjs', import.meta.url).href);
  return mod.generate(SPEC_DIR, outDir) as string[];
}

export const inRange = (r: [number, number] | null, v: number): boolean => r !== null && v >= r[0] && v <= r[1];

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function parseIntDefault(d: string | null, big: boolean): number | bigint {
  if (d === null || d === '') return big ? 0n : 0;
  const neg = d.startsWith('-');
  const body = neg ? d.slice(1) : d;
  const v = neg ? -BigInt(body) : BigInt(body);
  return big ? v : Number(v);
}

/** The value a decoder produces for a field absent from the version. */
export function defaultValue(g: GenModel, f: FieldModel): unknown {
  const d = f.default;
  if (f.isArray) return d === 'null' ? null : [];
  if (f.isStruct) return d === 'null' ? null : defaultStruct(g, g.struct(f.elem));
  switch (f.elem) {
    case 'bool':
      return d === 'true';
    case 'float64':
      return d ? Number(d) : 0;
    case 'string':
      return d === 'null' ? null : (d ?? '');
    case 'uuid':
      return 'AAAAAAAAAAAAAAAAAAAAAA';
    case 'bytes':
      return d === 'null' ? null : Buffer.alloc(0);
    case 'records':
      return null;
    case 'int64':
      return parseIntDefault(d, true);
    default:
      return parseIntDefault(d, false);
  }
}

export function defaultStruct(g: GenModel, st: StructModel): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const f of st.fields) o[f.prop] = defaultValue(g, f);
  return o;
}

const TEXT = 'abcdefghijklmnopqrstuvwxyz-_.ABCXYZ0123456789é€😀';

function randomScalar(t: string, rnd: () => number): unknown {
  const int = (bits: number, signed: boolean): number => {
    const span = 2 ** bits;
    const u = Math.floor(rnd() * span);
    return signed ? u - span / 2 : u;
  };
  switch (t) {
    case 'bool':
      return rnd() < 0.5;
    case 'int8':
      return int(8, true);
    case 'int16':
      return int(16, true);
    case 'uint16':
      return int(16, false);
    case 'int32':
      return int(32, true);
    case 'uint32':
      return int(32, false);
    case 'int64':
      return (BigInt(int(32, true)) << 32n) | BigInt(int(32, false));
    case 'float64':
      return (rnd() - 0.5) * 1e6;
    case 'uuid': {
      const b = Buffer.alloc(16);
      for (let i = 0; i < 16; i++) b[i] = int(8, false);
      return b.toString('base64url');
    }
    case 'string': {
      const n = Math.floor(rnd() * 12);
      let s = '';
      for (let i = 0; i < n; i++) s += [...TEXT][Math.floor(rnd() * [...TEXT].length)];
      return s;
    }
    case 'bytes':
    case 'records': {
      const n = Math.floor(rnd() * 24);
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = int(8, false);
      return b;
    }
  }
  throw new Error('unknown type ' + t);
}

export interface Filled {
  /** What to encode. */
  input: Record<string, unknown>;
}

/**
 * A value for struct `st` at version `v` with every present field set (nullable ones null now
 * and then), absent fields at their default, and unknown tagged fields in flexible versions.
 */
export function randomStruct(
  g: GenModel,
  st: StructModel,
  v: number,
  rnd: () => number,
  depth = 0,
): Record<string, unknown> {
  const flexible = inRange(g.flexible, v);
  const o: Record<string, unknown> = {};
  for (const f of st.fields) {
    if (!inRange(f.versions, v)) {
      o[f.prop] = defaultValue(g, f);
      continue;
    }
    if (inRange(f.nullable, v) && rnd() < 0.2) {
      o[f.prop] = null;
      continue;
    }
    if (f.isArray) {
      const n = depth > 3 ? 0 : 1 + Math.floor(rnd() * 3);
      const a: unknown[] = [];
      for (let i = 0; i < n; i++)
        a.push(f.isStruct ? randomStruct(g, g.struct(f.elem), v, rnd, depth + 1) : randomScalar(f.elem, rnd));
      o[f.prop] = a;
    } else if (f.isStruct) {
      o[f.prop] = randomStruct(g, g.struct(f.elem), v, rnd, depth + 1);
    } else {
      o[f.prop] = randomScalar(f.elem, rnd);
    }
  }
  if (flexible && rnd() < 0.5) {
    const n = 1 + Math.floor(rnd() * 2);
    const unknown = [];
    for (let i = 0; i < n; i++) unknown.push({ tag: 1000 + i * 7, data: randomScalar('bytes', rnd) as Buffer });
    o._unknownTaggedFields = unknown;
  }
  return o;
}
