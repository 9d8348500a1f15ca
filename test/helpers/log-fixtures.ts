// Shared fixtures for the partition-log tests (test/log-*.test.ts).

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { buildRecordBatchSync, type RecordInput } from '../../src/protocol/records/batch.js';
import { makeLogConfig, type LogConfig } from '../../src/broker/log/log-config.js';
import { PartitionLog, type PartitionLogOptions } from '../../src/broker/log/partition-log.js';

export async function tempDir(prefix = 'tkafka-log-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export async function ls(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** A manually advanced clock. */
export class ManualClock {
  constructor(public ms = 1_700_000_000_000) {}
  readonly now = (): number => this.ms;
  advance(d: number): void {
    this.ms += d;
  }
}

/** A producer-style v2 batch: baseOffset 0, leader epoch -1. */
export function batch(
  records: readonly RecordInput[],
  opts: { producerId?: number; producerEpoch?: number; baseSequence?: number; transactional?: boolean } = {},
): Buffer {
  return buildRecordBatchSync({ records, ...opts });
}

/** n records "k<i>" = "v<i>" with the given timestamp. */
export function simpleBatch(n: number, timestamp: number, prefix = ''): Buffer {
  const recs: RecordInput[] = [];
  for (let i = 0; i < n; i++) recs.push({ key: `${prefix}k${i}`, value: `${prefix}v${i}`, timestamp });
  return batch(recs);
}

export function testConfig(o: Partial<LogConfig> = {}): LogConfig {
  return makeLogConfig({ fileDeleteDelayMs: 0, segmentIndexBytes: 1024 * 1024, ...o });
}

export async function openLog(dir: string, o: Partial<PartitionLogOptions> = {}): Promise<PartitionLog> {
  return PartitionLog.open({
    dir: path.join(dir, 'topic-0'),
    topic: 'topic',
    partition: 0,
    config: testConfig(),
    ...o,
  });
}

/** Splits a buffer of complete v2 batches into [baseOffset, lastOffset, size] triples. */
export function batchOffsets(buf: Buffer): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  let pos = 0;
  while (pos + 61 <= buf.length) {
    const size = 12 + buf.readInt32BE(pos + 8);
    if (pos + size > buf.length) break;
    const base = Number(buf.readBigInt64BE(pos));
    out.push([base, base + buf.readInt32BE(pos + 23), size]);
    pos += size;
  }
  return out;
}
