// A minimal request/response client over one socket, using the project's codec: for tests that
// need exact protocol fields (topic ids, error codes) or malformed input.
import { connect, type Socket } from 'node:net';
import { encodeRequest, decodeResponse } from '../../src/protocol/frame.js';
import type { ApiKeyWithMessages, ApiRequest, ApiResponse } from '../../src/protocol/generated/apis.js';
import type { Input } from '../../src/protocol/codec/types.js';
import { waitFor } from './wait-for.js';

export class RawClient {
  private buf = Buffer.alloc(0);
  private waiters: ((frame: Buffer) => void)[] = [];
  private corr = 1;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4 && this.buf.length >= 4 + this.buf.readInt32BE(0)) {
        const n = this.buf.readInt32BE(0);
        const frame = this.buf.subarray(4, 4 + n);
        this.buf = this.buf.subarray(4 + n);
        this.waiters.shift()?.(frame);
      }
    });
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => undefined);
  }

  static async connect(port: number): Promise<RawClient> {
    const s = connect(port, '127.0.0.1');
    await new Promise<void>((res, rej) => {
      s.once('connect', res);
      s.once('error', rej);
    });
    return new RawClient(s);
  }

  /** One request of API `apiKey` (an `ApiKey` constant), answered with that API's decoded response. */
  async request<K extends ApiKeyWithMessages>(
    apiKey: K,
    version: number,
    body: Input<ApiRequest<K>>,
  ): Promise<ApiResponse<K>> {
    const corr = this.corr++;
    const p = new Promise<Buffer>((res) => this.waiters.push(res));
    this.socket.write(Buffer.concat(encodeRequest(apiKey, version, corr, 'raw-test', body)));
    const frame = await p;
    const r = decodeResponse(apiKey, version, frame);
    if (r.correlationId !== corr) throw new Error(`correlation id ${r.correlationId} != ${corr}`);
    return r.body as ApiResponse<K>; // read by the codec of apiKey
  }

  writeRaw(b: Buffer): void {
    this.socket.write(b);
  }

  async waitClosed(ms = 5000): Promise<boolean> {
    await waitFor(() => this.closed, { what: 'the connection to close', timeoutMs: ms }).catch(() => undefined);
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/** One RawClient to `port` for `fn`, closed afterwards. */
export async function withRawClient<T>(port: number, fn: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}
