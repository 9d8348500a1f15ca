// One client connection: frames in, one request at a time through the dispatcher, responses out in
// request order (Kafka mutes a channel while its request is in flight; the same ordering is what
// idempotent producers and every client's correlation-id matching rely on). Throughput comes from
// many connections progressing at once and from reading ahead: requests that arrived are queued
// (bounded) while the current one is handled.
//
// Back-pressure: when the socket's write buffer is over its high-water mark the connection stops
// handling queued requests and stops reading until 'drain'; reading also stops while the queue of
// received requests is full. So memory per connection is bounded by roughly one response, the
// queue bound, and one frame (socket.request.max.bytes).
import type { Socket } from 'node:net';
import { apiName } from '../api/registry.js';
import {
  UNKNOWN_CLIENT_INFORMATION,
  type ConnectionInfo,
  type Dispatcher,
  type DispatchOutcome,
  type Logger,
} from '../api/dispatcher.js';
import type { AuthStep, ConnectionAuthenticator } from '../security/authenticator.js';
import { FrameReader, InvalidFrameError } from './frame-reader.js';
import type { RequestLogEntry } from './request-log.js';
import type { RequestMemoryPool } from './connection-quotas.js';
import type { RequestMetrics, RequestTimes } from '../metrics/request-metrics.js';
import { takeRemoteTime } from '../metrics/remote-time.js';
import { requestThrottleOf } from '../quota/throttle.js';
import type { FramePart } from '../../protocol/codec/types.js';
import { returnChunk, STREAM_CHUNK, takeChunk } from './stream-chunks.js';

export interface ConnectionOptions {
  readonly id: string;
  readonly listenerName: string;
  readonly isControllerListener: boolean;
  /** The authenticated principal (User:ANONYMOUS on PLAINTEXT and without a client certificate). */
  readonly principal?: string | undefined;
  readonly dispatcher: Dispatcher<unknown>;
  /** socket.request.max.bytes */
  readonly maxRequestBytes: number;
  /** connections.max.idle.ms; <= 0 disables the idle timeout. */
  readonly idleTimeoutMs: number;
  /** Stop reading while this many received requests wait to be handled. */
  readonly maxQueuedRequests: number;
  /** ... or while they hold this many bytes. */
  readonly maxQueuedBytes: number;
  readonly logger: Logger;
  readonly onRequest?: ((entry: RequestLogEntry) => void) | undefined;
  readonly onClose?: ((conn: Connection) => void) | undefined;
  /** A SASL listener's: sees every frame first and lets through only what authentication allows. */
  readonly authenticator?: ConnectionAuthenticator | undefined;
  /** queued.max.request.bytes / queued.max.requests across the socket server's connections. */
  readonly memoryPool?: RequestMemoryPool | undefined;
  /** Kafka's RequestMetrics: each request's times (src/broker/metrics). */
  readonly requestMetrics?: RequestMetrics | undefined;
}

export interface ConnectionStats {
  readonly id: string;
  readonly listenerName: string;
  readonly requests: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly queuedRequests: number;
  readonly queuedBytes: number;
  /** Bytes in the socket's user-space write buffer now, and the most ever seen. */
  readonly writableLength: number;
  readonly maxWritableLength: number;
  readonly maxQueuedBytes: number;
  readonly readingPaused: boolean;
  readonly pauses: number;
}

interface Queued {
  frame: Buffer;
  receivedAt: number;
}

/** open → (draining: shutting down) → ending: socket.end() called → closed. */
type State = 'open' | 'draining' | 'ending' | 'closed';

export class Connection {
  readonly id: string;
  private readonly info: ConnectionInfo;
  private readonly reader: FrameReader;
  private state: State = 'open';
  private queue: (Queued | undefined)[] = [];
  private head = 0;
  private queuedBytes = 0;
  private pumping = false;
  private inFlight = false;
  private writeBlocked = false;
  private paused = false;
  private readEnded = false;
  private counters = { requests: 0, bytesIn: 0, bytesOut: 0, maxWritableLength: 0, maxQueuedBytes: 0, pauses: 0 };
  private readonly closedPromise: Promise<void>;
  private drainTimer: NodeJS.Timeout | undefined;
  private authFailureTimer: NodeJS.Timeout | undefined;
  /** What this connection holds in the memory pool: bytes and queued requests. */
  private poolBytes = 0;
  private poolRequests = 0;
  private inFlightBytes = 0;
  private waitingForMemory = false;
  /** The index (FrameReader.framesCompleted) of the partial frame the pool granted, or -1. */
  private grantedFrame = -1;
  private ungrantedBytes = 0;
  private readonly memoryFreed = (): void => this.updateReading();
  /** performance.now() of the last read or write (Kafka's Selector LRU, for closing excess connections). */
  lastActiveMs = performance.now();
  /** The current request's times, reused from request to request (RequestMetrics). */
  private readonly times: RequestTimes = { received: 0, started: 0, completed: 0, sendStart: 0, sendEnd: 0 };

  constructor(
    private readonly socket: Socket,
    private readonly opts: ConnectionOptions,
  ) {
    this.id = opts.id;
    this.info = {
      connectionId: opts.id,
      listenerName: opts.listenerName,
      isControllerListener: opts.isControllerListener,
      clientAddress: socket.remoteAddress ?? '',
      clientInformation: UNKNOWN_CLIENT_INFORMATION,
      principal: opts.principal,
    };
    // Kafka's SaslServerAuthenticator reads with sasl.server.max.receive.size until authenticated
    const saslMax = opts.authenticator?.maxReceiveSize;
    this.reader = new FrameReader(
      saslMax === undefined ? opts.maxRequestBytes : Math.min(saslMax, opts.maxRequestBytes),
    );
    this.closedPromise = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.onEnd());
    socket.on('drain', () => this.onDrain());
    socket.on('error', (e) => this.opts.logger.info(`connection ${this.id}: ${e.message}`));
    socket.on('close', () => this.onSocketClose());
    if (opts.idleTimeoutMs > 0) {
      socket.setTimeout(opts.idleTimeoutMs);
      socket.on('timeout', () => this.onIdle());
    }
  }

  get listenerName(): string {
    return this.opts.listenerName;
  }

  /** Resolves when the socket has closed. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  get isClosed(): boolean {
    return this.state === 'closed' || this.state === 'ending';
  }

  stats(): ConnectionStats {
    return {
      id: this.id,
      listenerName: this.opts.listenerName,
      ...this.counters,
      queuedRequests: this.queue.length - this.head,
      queuedBytes: this.queuedBytes,
      writableLength: this.socket.writableLength,
      readingPaused: this.paused,
    };
  }

  /** Closes now: pending requests and unsent responses are dropped (Kafka's Selector.close). */
  close(reason?: string): void {
    if (this.state === 'closed') return;
    if (reason) this.opts.logger.info(`closing connection ${this.id}: ${reason}`);
    this.state = 'closed';
    this.dropQueue();
    this.socket.destroy();
  }

  /**
   * Graceful close for shutdown: stop reading, drop requests not yet started, finish the one in
   * flight and flush its response, then close; destroy after `timeoutMs` at the latest.
   */
  drainAndClose(timeoutMs: number): Promise<void> {
    if (this.state === 'open') {
      this.state = 'draining';
      this.dropQueue();
      this.updateReading();
      this.drainTimer = setTimeout(() => this.close(), timeoutMs);
      this.drainTimer.unref();
      this.maybeFinish();
    }
    return this.closedPromise;
  }

  private onData(chunk: Buffer): void {
    if (this.state !== 'open') return;
    this.lastActiveMs = performance.now();
    this.counters.bytesIn += chunk.length;
    let frames: Buffer[];
    const exhaustedBefore = this.opts.memoryPool?.exhausted ?? false;
    try {
      frames = this.reader.push(chunk);
      // a frame begun while memory was left has its memory (Kafka allocates at the size prefix)
      if (!exhaustedBefore && this.reader.reservedBytes > 0) this.grantedFrame = this.reader.framesCompleted;
    } catch (e) {
      const why = e instanceof InvalidFrameError ? e.message : `frame reader failure: ${String(e)}`;
      this.opts.logger.warn(`connection ${this.id} from ${this.info.clientAddress}: ${why}; closing it`);
      this.close();
      return;
    }
    if (frames.length === 0) {
      this.syncPool();
      return;
    }
    const now = performance.now();
    for (const frame of frames) {
      this.queue.push({ frame, receivedAt: now });
      this.queuedBytes += frame.length;
    }
    if (this.queuedBytes > this.counters.maxQueuedBytes) this.counters.maxQueuedBytes = this.queuedBytes;
    this.updateReading();
    void this.pump();
  }

  private onEnd(): void {
    // The client will send nothing more: answer what it sent, then close (the server runs with
    // allowHalfOpen so those answers can still be written).
    this.readEnded = true;
    this.maybeFinish();
  }

  private onDrain(): void {
    this.writeBlocked = false;
    this.updateReading();
    void this.pump();
  }

  /**
   * No byte read or written for connections.max.idle.ms. A request being handled (a long poll)
   * is not idleness; a response the client has not read for that long is, as in Kafka.
   */
  private onIdle(): void {
    if (this.state === 'closed') return;
    if (this.inFlight) {
      this.socket.setTimeout(this.opts.idleTimeoutMs); // re-arm
      return;
    }
    this.close(`idle for more than ${this.opts.idleTimeoutMs} ms (connections.max.idle.ms)`);
  }

  private onSocketClose(): void {
    this.state = 'closed';
    this.dropQueue();
    this.inFlightBytes = 0;
    this.syncPool(true);
    if (this.drainTimer) clearTimeout(this.drainTimer);
    if (this.authFailureTimer) clearTimeout(this.authFailureTimer);
    this.opts.onClose?.(this);
  }

  /** Reading is paused while writes are blocked, the queue is full, or the connection is closing. */
  private updateReading(): void {
    this.syncPool();
    const pool = this.opts.memoryPool;
    // the pool is reached: stop at the next frame boundary (a frame begun has its memory)
    if (pool && !pool.exhausted && this.reader.reservedBytes > 0) this.grantedFrame = this.reader.framesCompleted;
    const poolFull = pool !== undefined && this.state === 'open' && pool.exhausted && !this.partialGranted();
    if (poolFull !== this.waitingForMemory && pool) {
      this.waitingForMemory = poolFull;
      if (poolFull) pool.waitForMemory(this.memoryFreed);
      else pool.stopWaiting(this.memoryFreed);
    }
    const pause =
      this.state !== 'open' ||
      this.writeBlocked ||
      poolFull ||
      this.queue.length - this.head >= this.opts.maxQueuedRequests ||
      this.queuedBytes >= this.opts.maxQueuedBytes;
    if (pause && !this.paused) {
      this.paused = true;
      this.counters.pauses++;
      this.socket.pause();
    } else if (!pause && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (
        (this.state === 'open' || this.state === 'draining') &&
        !this.writeBlocked &&
        this.head < this.queue.length
      ) {
        const item = this.dequeue();
        if (this.state === 'open') this.updateReading();
        const auth = this.opts.authenticator;
        if (auth) {
          const step = auth.onFrame(item.frame, performance.now());
          if (auth.principal !== undefined && this.info.principal === undefined)
            this.reader.maxFrameBytes = this.opts.maxRequestBytes;
          this.info.principal = auth.principal;
          if (step.kind !== 'dispatch') {
            if (this.authStep(item, step)) continue;
            return;
          }
        }
        this.inFlight = true;
        this.inFlightBytes = item.frame.length;
        this.syncPool();
        let outcome: DispatchOutcome;
        this.times.received = item.receivedAt;
        this.times.started = performance.now();
        try {
          outcome = await this.opts.dispatcher.dispatch(item.frame, this.info);
        } catch (e) {
          this.opts.logger.error(
            `unexpected dispatcher failure on ${this.id}: ${e instanceof Error ? e.stack : String(e)}`,
          );
          this.inFlight = false;
          this.inFlightBytes = 0;
          this.close();
          return;
        }
        this.times.completed = performance.now();
        this.inFlight = false;
        this.inFlightBytes = 0;
        this.counters.requests++;
        const sending = this.complete(item, outcome);
        if (sending) await sending;
        this.syncPool();
      }
    } finally {
      this.pumping = false;
    }
    this.updateReading();
    this.maybeFinish();
  }

  /**
   * A frame the SASL authenticator answered itself; false when the connection is closing. A failed
   * authentication closes after connection.failed.authentication.delay.ms, its error response (if
   * any) written just before (Kafka's Selector delays the close, then sends the failure response).
   */
  private authStep(item: Queued, step: Exclude<AuthStep, { kind: 'dispatch' }>): boolean {
    const header = peekHeader(item.frame);
    if (step.kind === 'respond') {
      const size = step.frame.reduce((n, b) => n + b.length, 0);
      this.write(step.frame, size);
      this.counters.requests++;
      this.log(item, header, null, size, 'response');
      return true;
    }
    if (step.kind === 'close') {
      this.log(item, header, null, -1, 'closed');
      this.close(step.reason);
      return false;
    }
    this.opts.logger.info(
      `Failed authentication with ${this.info.clientAddress} (channelId=${this.id}) (${step.reason})`,
    );
    this.log(item, header, null, -1, 'closed');
    this.state = 'ending';
    this.dropQueue();
    this.updateReading();
    const finish = (): void => {
      if (this.socket.destroyed) return;
      if (step.frame)
        this.write(
          step.frame,
          step.frame.reduce((n, b) => n + b.length, 0),
        );
      this.socket.end();
      const t = setTimeout(() => this.socket.destroy(), 5000);
      t.unref();
    };
    if (step.delayMs > 0) this.authFailureTimer = setTimeout(finish, step.delayMs);
    else finish();
    return false;
  }

  /** Writes one response (`size` bytes in all), pausing reads while the socket's buffer is full. */
  private write(frame: readonly Buffer[], size: number): void {
    const s = this.socket;
    s.cork();
    for (const b of frame) s.write(b);
    s.uncork();
    this.lastActiveMs = performance.now();
    this.counters.bytesOut += size;
    if (s.writableLength > this.counters.maxWritableLength) this.counters.maxWritableLength = s.writableLength;
    if (s.writableNeedDrain) {
      this.writeBlocked = true;
      this.updateReading();
    }
  }

  /** Writes the outcome's response and records it; a promise while record bytes are still being read and sent. */
  private complete(item: Queued, outcome: DispatchOutcome): Promise<void> | undefined {
    if (outcome.kind === 'close') {
      this.opts.logger.warn(`closing connection ${this.id} from ${this.info.clientAddress}: ${outcome.reason}`);
      this.log(item, outcome.header, null, -1, 'closed');
      this.close();
      return undefined;
    }
    this.times.sendStart = performance.now();
    if (outcome.kind === 'response' && (this.state === 'open' || this.state === 'draining')) {
      const frame = outcome.frame;
      if (!frame.every((p) => Buffer.isBuffer(p))) {
        return this.stream(frame, outcome.size).then(() => this.sent(item, outcome));
      }
      this.write(frame as Buffer[], outcome.size);
    }
    this.sent(item, outcome);
    return undefined;
  }

  /**
   * Writes a frame whose record bytes are still in a log file: reads them STREAM_CHUNK at a time,
   * one chunk ahead, as the socket takes them (what Kafka's FileRecords.writeTo does with
   * transferTo), so a response holds a chunk or two in memory, not its whole size. A range that
   * can no longer be read whole (the file was truncated or closed under the response) closes the
   * connection, as Kafka's write of a FileRecords that shrank does: the size was already sent.
   */
  private async stream(frame: readonly FramePart[], size: number): Promise<void> {
    const s = this.socket;
    let next: Promise<Buffer> | null = null;
    try {
      for (const part of frame) {
        if (this.state === 'closed') return;
        if (Buffer.isBuffer(part)) {
          s.write(part);
          continue;
        }
        const read = async (from: number): Promise<Buffer> => {
          const n = Math.min(STREAM_CHUNK, part.length - from);
          const buf = takeChunk();
          const got = await part.readInto(buf, 0, n, from);
          if (got < n) {
            returnChunk(buf);
            throw new Error(`the log ended ${part.length - from - got} bytes short of the response's size`);
          }
          return n === buf.length ? buf : buf.subarray(0, n);
        };
        let from = 0;
        next = read(0);
        while (next) {
          const chunk: Buffer = await next;
          from += chunk.length;
          next = from < part.length ? read(from) : null;
          // closed while the chunk was read (TypeScript keeps the narrowing from before the await)
          if ((this.state as State) === 'closed') return;
          // back to the pool once the socket no longer needs its bytes
          const written = (err?: Error | null): void => {
            if (!err) returnChunk(chunk);
          };
          if (!s.write(chunk, written)) await this.drained();
        }
      }
    } catch (e) {
      if (this.state !== 'closed') {
        this.opts.logger.warn(
          `connection ${this.id} from ${this.info.clientAddress}: records could not be read while sending them (${(e as Error).message}); closing it`,
        );
        this.close();
      }
      return;
    } finally {
      // a read ahead of a response that was abandoned must not reject unobserved
      void next?.catch(() => undefined);
    }
    this.lastActiveMs = performance.now();
    this.counters.bytesOut += size;
    if (s.writableLength > this.counters.maxWritableLength) this.counters.maxWritableLength = s.writableLength;
  }

  /** Resolves when the socket's buffer has drained, or the socket closed. */
  private drained(): Promise<void> {
    const s = this.socket;
    if (s.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        s.off('drain', done);
        s.off('close', done);
        resolve();
      };
      s.once('drain', done);
      s.once('close', done);
    });
  }

  /** Request metrics and the request log for a request answered (or not) and written. */
  private sent(item: Queued, outcome: Exclude<DispatchOutcome, { kind: 'close' }>): void {
    const t = this.times;
    const c = outcome.ctx;
    const metrics = this.opts.requestMetrics;
    if (metrics) {
      t.sendEnd = performance.now();
      const remote = takeRemoteTime(this.id);
      metrics.record(
        c.apiKey,
        c.apiVersion,
        item.frame.length,
        t,
        remote,
        requestThrottleOf(c),
        c.fetchFromFollower === true,
      );
    }
    const header = { apiKey: c.apiKey, apiVersion: c.header.requestApiVersion, correlationId: c.correlationId };
    this.log(item, header, c.clientId, outcome.kind === 'response' ? outcome.size : -1, outcome.kind);
  }

  private log(
    item: Queued,
    header: { apiKey: number; apiVersion: number; correlationId: number } | null,
    clientId: string | null,
    responseSize: number,
    outcome: RequestLogEntry['outcome'],
  ): void {
    const sink = this.opts.onRequest;
    if (!sink) return;
    sink({
      connectionId: this.id,
      listenerName: this.opts.listenerName,
      clientAddress: this.info.clientAddress,
      clientId,
      clientSoftware: this.info.clientInformation,
      apiKey: header?.apiKey ?? -1,
      apiName: header ? apiName(header.apiKey) : 'Unknown',
      apiVersion: header?.apiVersion ?? -1,
      correlationId: header?.correlationId ?? -1,
      requestSize: item.frame.length,
      responseSize,
      latencyMs: performance.now() - item.receivedAt,
      outcome,
      principal: this.info.principal,
    });
  }

  /** Ends the socket once nothing is left to answer, when the client half-closed or we drain. */
  private maybeFinish(): void {
    if (this.state === 'closed' || this.state === 'ending' || this.inFlight || this.pumping) return;
    if (this.state === 'draining' || (this.readEnded && this.head >= this.queue.length)) {
      this.state = 'ending';
      this.socket.end();
      // A peer that never reads must not keep the socket (and its buffers) forever.
      const t = setTimeout(() => this.socket.destroy(), 5000);
      t.unref();
    }
  }

  /**
   * Brings this connection's share of the memory pool up to date: the requests queued, the one in
   * flight and the frame being read (its whole size once its size prefix is read); all of it is
   * released when the connection closes.
   */
  private syncPool(release = false): void {
    const pool = this.opts.memoryPool;
    if (!pool) return;
    const granted = this.partialGranted();
    const partial = this.reader.reservedBytes;
    const bytes = release ? 0 : this.queuedBytes + this.inFlightBytes + (granted ? partial : 0);
    const ungranted = release || granted ? 0 : partial;
    const requests = release ? 0 : this.queue.length - this.head;
    if (release && this.waitingForMemory) {
      this.waitingForMemory = false;
      pool.stopWaiting(this.memoryFreed);
    }
    if (bytes === this.poolBytes && requests === this.poolRequests && ungranted === this.ungrantedBytes) return;
    const db = bytes - this.poolBytes;
    const dr = requests - this.poolRequests;
    const du = ungranted - this.ungrantedBytes;
    this.poolBytes = bytes;
    this.poolRequests = requests;
    this.ungrantedBytes = ungranted;
    pool.adjust(db, dr, du);
  }

  /** Whether the frame being read (if any) has its memory from the pool. */
  private partialGranted(): boolean {
    return this.reader.reservedBytes > 0 && this.grantedFrame === this.reader.framesCompleted;
  }

  private dequeue(): Queued {
    const item = this.queue[this.head]!;
    this.queue[this.head++] = undefined;
    this.queuedBytes -= item.frame.length;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  private dropQueue(): void {
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
  }
}

function peekHeader(frame: Buffer): { apiKey: number; apiVersion: number; correlationId: number } | null {
  return frame.length >= 8
    ? { apiKey: frame.readInt16BE(0), apiVersion: frame.readInt16BE(2), correlationId: frame.readInt32BE(4) }
    : null;
}
