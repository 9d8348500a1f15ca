// A raw connection for the connection-limit tests and bench: opened from a chosen loopback
// address, speaking ApiVersions, telling an answered request from a connection closed without one.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { encodeRequest, decodeResponse } from '../../src/protocol/frame.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { FrameReader } from '../../src/broker/network/frame-reader.js';

/** A raw connection from `localAddress` (127.0.0.x are all loopback on Linux). */
export class Conn {
  private readonly reader = new FrameReader(1 << 30);
  private readonly frames: Buffer[] = [];
  private wake: (() => void) | undefined;
  private corr = 1;
  closed = false;
  private constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.frames.push(...this.reader.push(c));
      this.wake?.();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }
  static async open(port: number, localAddress = '127.0.0.1'): Promise<Conn> {
    const s = connect({ host: '127.0.0.1', port, localAddress });
    await new Promise<void>((res, rej) => {
      s.once('connect', res);
      s.once('error', rej);
    });
    return new Conn(s);
  }
  sendApiVersions(): number {
    const corr = this.corr++;
    for (const b of encodeRequest(ApiKey.ApiVersions, 3, corr, 'conn-limits', {
      clientSoftwareName: 'tkafka-test',
      clientSoftwareVersion: '1.0',
    }))
      this.socket.write(b);
    return corr;
  }
  /** The next response frame, or null when the connection closes first. */
  async next(timeoutMs = 10_000): Promise<Buffer | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0 && !this.closed) {
      if (Date.now() > deadline) throw new Error('no response frame in time');
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 200).unref();
      });
    }
    return this.frames.shift() ?? null;
  }
  /** ApiVersions round trip: true when answered (error NONE), false when the connection closed. */
  async ping(): Promise<boolean> {
    const corr = this.sendApiVersions();
    const f = await this.next();
    if (f === null) return false;
    const r = decodeResponse(ApiKey.ApiVersions, 3, f);
    assert.equal(r.correlationId, corr);
    assert.equal((r.body as { errorCode: number }).errorCode, 0);
    return true;
  }
  get answered(): number {
    return this.frames.length;
  }
  close(): void {
    this.socket.destroy();
  }
}
