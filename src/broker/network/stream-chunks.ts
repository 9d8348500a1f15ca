// The buffers a response that streams record bytes from a log file (Connection.stream) reads them
// into, STREAM_CHUNK at a time. They are taken from a small process-wide free list and returned once
// the socket has written them, so a consumer's fetches reuse the same few megabytes instead of
// allocating a fresh chunk per read. Fresh 1 MiB allocations, freed in the order garbage collection
// finds them, fragment the native heap: glibc's malloc raises its mmap threshold after the first
// such free and serves later ones from an arena that seldom shrinks, so the broker's RSS grew with
// every consume although its live memory did not. At most POOLED chunks are kept; one that is not
// returned (its write failed, the connection closed) is left to the garbage collector.

/** Record bytes read from a log file per socket write when a response streams them. */
export const STREAM_CHUNK = 1024 * 1024;
/** Free chunks kept for reuse: enough for a few connections streaming at once, 8 MiB at most. */
const POOLED = 8;

const free: Buffer[] = [];

/** A STREAM_CHUNK-sized buffer: a free one if any, else a new one. */
export function takeChunk(): Buffer {
  return free.pop() ?? Buffer.allocUnsafeSlow(STREAM_CHUNK);
}

/**
 * Returns a chunk taken with takeChunk (or a view of one) once nothing refers to its bytes any more.
 */
export function returnChunk(chunk: Buffer): void {
  const whole = chunk.buffer;
  if (whole.byteLength === STREAM_CHUNK && free.length < POOLED) free.push(Buffer.from(whole));
}

/** Chunks in the free list (tests). */
export function pooledChunks(): number {
  return free.length;
}
