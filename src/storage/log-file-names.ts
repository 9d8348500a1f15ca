// File names of a partition directory (Kafka's LogFileUtils): every segment file is named by its
// base offset as 20 zero-padded digits plus a suffix; `.deleted`, `.cleaned` and `.swap` are added
// to a file that is being deleted, cleaned or swapped in.

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
