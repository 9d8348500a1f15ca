// File names of a partition directory (Kafka's LogFileUtils): every segment file is named by its
// base offset as 20 zero-padded digits plus a suffix; `.deleted`, `.cleaned` and `.swap` are added
// to a file that is being deleted, cleaned or swapped in.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
export const TXN_INDEX_FILE_SUFFIX = '.txnindex';
export const DELETED_FILE_SUFFIX = '.deleted';
export const CLEANED_FILE_SUFFIX = '.cleaned';
export const SWAP_FILE_SUFFIX = '.swap';

/** 20-digit zero-padded decimal (LogFileUtils.filenamePrefixFromOffset). */
export function filenamePrefixFromOffset(offset: number): string {
  return String(offset).padStart(20, '0');
}

/** Base offset from a segment-ish file name (`00000000000000000123.log.deleted` → 123). */
export function offsetFromFileName(name: string): number {
  const dot = name.indexOf('.');
  const prefix = dot < 0 ? name : name.slice(0, dot);
  if (!/^\d+$/.test(prefix)) return NaN;
  return Number(prefix);
}

export function segmentFile(dir: string, baseOffset: number, ext: string, suffix = ''): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + ext + suffix);
}

/** The four files of a segment: `.log`, `.index`, `.timeindex`, `.txnindex`. */
export const SEGMENT_FILE_SUFFIXES = [
  LOG_FILE_SUFFIX,
  INDEX_FILE_SUFFIX,
  TIME_INDEX_FILE_SUFFIX,
  TXN_INDEX_FILE_SUFFIX,
];

/** Whether a file name is one of a segment's index files. */
export function isIndexFileName(name: string): boolean {
  return (
    name.endsWith(INDEX_FILE_SUFFIX) || name.endsWith(TIME_INDEX_FILE_SUFFIX) || name.endsWith(TXN_INDEX_FILE_SUFFIX)
  );
}

/** Removes whatever files of the segment at `baseOffset` exist (with `suffix` appended, e.g. `.cleaned`). */
export async function removeSegmentFiles(dir: string, baseOffset: number, suffix = ''): Promise<void> {
  for (const ext of SEGMENT_FILE_SUFFIXES) await fsp.rm(segmentFile(dir, baseOffset, ext, suffix), { force: true });
}
