// One TCP connection to one broker: size-prefixed frames, pipelined requests matched by correlation
// id, a timeout per request, and ApiVersions negotiation right after connecting (the highest version
// both sides support is used for every later request).
import { connect, isIP, type Socket } from 'node:net';
import { nodeTls } from './node-tls.js';
import { Reader } from '../protocol/codec/reader.js';
import { Writer } from '../protocol/codec/writer.js';
import { writeRequestHeader } from '../protocol/generated/protocol/RequestHeader.js';
import { readResponseHeader } from '../protocol/generated/protocol/ResponseHeader.js';
import type { ApiVersionsResponse } from '../protocol/generated/protocol/ApiVersions.js';
import {
  apiByKey,
  clientMaxVersion,
  loadCodec,
  requestHeaderVersion,
  responseHeaderVersion,
  type ClientApi,
} from './apis.js';
import type { SaslConfig } from './sasl-config.js';
import {
  ApiError,
  ConnectionError,
  DisconnectedError,
  RequestTimeoutError,
  SslAuthenticationError,
  UnsupportedApiError,
} from './errors.js';
import type { ClientTlsConfig } from './tls-config.js';

export interface ConnectionOptions {
  host: string;
  port: number;
  clientId: string;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  softwareName?: string;
  softwareVersion?: string;
  /** SASL: authenticate after ApiVersions (and re-authenticate per KIP-368). */
  sasl?: SaslConfig;
  /** security.protocol=SSL: TLS settings (clientTlsConfig); absent for PLAINTEXT. */
  tls?: ClientTlsConfig | undefined;
}

export interface VersionRange {
  minVersion: number;
  maxVersion: number;
}

export interface SendOptions {
  /** Send exactly this version (must be supported by both sides). */
  version?: number;
  /** Highest/lowest version acceptable for this call (e.g. a field only exists from v4). */
  maxVersion?: number;
  minVersion?: number;
  timeoutMs?: number;
}

/** A decoded response; T is the API's generated response type (`...Response`), named by the caller. */
export interface Response<T = unknown> {
  version: number;
  body: T;
}

interface Pending {
  api: ClientApi;
  version: number;
  resolve: (frame: Buffer) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const API_VERSIONS = apiByKey(18)!;

export class BrokerConnection {
  readonly address: string;
  /** Versions the broker advertised, by API key. */
  readonly brokerVersions = new Map<number, VersionRange>();
  /** The raw ApiVersions response (features, finalized features). */
  apiVersionsResponse: (ApiVersionsResponse & { version: number }) | null = null;
  private socket: Socket | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private readonly pending = new Map<number, Pending>();
  private nextCorrelationId = 1;
  private closedError: Error | null = null;
  /** While a KIP-368 re-authentication runs, other requests wait for it. */
  private reauthenticating: Promise<void> | null = null;
  private reauthTimer: NodeJS.Timeout | null = null;
  /** Successful SASL authentications on this connection (the first one and re-authentications). */
  authentications = 0;

  constructor(readonly opts: ConnectionOptions) {
    this.address = `${opts.host}:${opts.port}`;
  }

  get connected(): boolean {
    return this.socket !== null && this.closedError === null;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  /** Opens the socket and negotiates API versions. */
  async open(): Promise<void> {
    await this.openSocket();
    await this.negotiate();
    if (this.opts.sasl) await this.authenticateSasl(this.opts.sasl);
  }

  private async authenticateSasl(sasl: SaslConfig): Promise<void> {
    const { authenticate, reauthDelayMs } = await import('./sasl/exchange.js');
    const lifetimeMs = await authenticate(this, sasl);
    this.authentications++;
    if (lifetimeMs > 0 && this.closedError === null) {
      this.reauthTimer = setTimeout(() => {
        this.reauthTimer = null;
        this.reauthenticating = this.authenticateSasl(sasl).then(
          () => {
            this.reauthenticating = null;
          },
          (e: unknown) => {
            this.reauthenticating = null;
            this.fail(e instanceof Error ? e : new Error(String(e)));
          },
        );
      }, reauthDelayMs(lifetimeMs));
      this.reauthTimer.unref();
    }
  }

  private openSocket(): Promise<void> {
    const { host, port, connectTimeoutMs, tls } = this.opts;
    return new Promise<void>((resolve, reject) => {
      const s = tls
        ? nodeTls().connect({
            host,
            port,
            ...tls.options,
            servername: isIP(host) === 0 ? host : undefined,
            rejectUnauthorized: true,
            checkServerIdentity: tls.verifyHostname ? nodeTls().checkServerIdentity : () => undefined,
          })
        : connect({ host, port });
      s.setNoDelay(true);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new ConnectionError(`Connection to ${this.address} timed out after ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      s.once(tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        this.attach(s);
        resolve();
      });
      s.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        s.destroy();
        const ssl = tls ? sslFailure(e, this.address) : null;
        reject(ssl ?? new ConnectionError(`Connection to ${this.address} failed: ${describeSocketError(e)}`));
      });
    });
  }

  private attach(s: Socket): void {
    this.socket = s;
    s.on('data', (d: Buffer) => this.onData(d));
    s.on('error', (e: NodeJS.ErrnoException) =>
      this.fail(
        (this.opts.tls ? sslFailure(e, this.address) : null) ??
          new DisconnectedError(`Connection to ${this.address} failed: ${describeSocketError(e)}`),
      ),
    );
    s.on('close', () =>
      this.fail(
        // Node brokers close without an alert when they reject a client certificate after the
        // handshake; a TLS connection closed before ApiVersions was answered is reported as such.
        this.opts.tls && this.apiVersionsResponse === null
          ? new SslAuthenticationError(
              `the broker closed the connection right after the TLS handshake (does it trust the client certificate?) (broker ${this.address})`,
            )
          : new DisconnectedError(`Connection to ${this.address} was closed by the broker`),
      ),
    );
  }

  private async negotiate(): Promise<void> {
    const body = {
      clientSoftwareName: this.opts.softwareName ?? 'tkafka',
      clientSoftwareVersion: this.opts.softwareVersion ?? '0.1.0',
    };
    let version = clientMaxVersion(API_VERSIONS);
    for (let attempt = 0; attempt < 3; attempt++) {
      const frame = await this.sendFrame(API_VERSIONS, version, version >= 3 ? body : {});
      let resp: ApiVersionsResponse | null;
      try {
        resp = (await this.decode<ApiVersionsResponse>(API_VERSIONS, version, frame)).body;
      } catch {
        resp = null;
      }
      if (resp === null || resp.errorCode === 35) {
        // The broker answered at v0 because it does not know our version; retry with its highest.
        const v0 = (await this.decode<ApiVersionsResponse>(API_VERSIONS, 0, frame)).body;
        const own = v0.apiKeys.find((k) => k.apiKey === 18);
        const next = own ? Math.min(own.maxVersion, version - 1) : 0;
        if (next < 0 || next >= version)
          throw new ApiError(35, 'The broker does not support any ApiVersions version this client can send');
        version = next;
        continue;
      }
      if (resp.errorCode !== 0) throw new ApiError(resp.errorCode, null, 'ApiVersions');
      for (const k of resp.apiKeys)
        this.brokerVersions.set(k.apiKey, { minVersion: k.minVersion, maxVersion: k.maxVersion });
      this.apiVersionsResponse = { ...resp, version };
      return;
    }
    throw new ApiError(35, 'ApiVersions negotiation failed');
  }

  /** The version to use for `api`: the highest both sides support within the caller's limits. */
  pickVersion(api: ClientApi, opts: SendOptions = {}): number {
    const broker = this.brokerVersions.get(api.key);
    if (!broker) {
      throw new UnsupportedApiError(
        `The broker at ${this.address} does not support the ${api.name} API (key ${api.key})`,
        api.name,
      );
    }
    const lo = Math.max(api.minVersion, broker.minVersion, opts.minVersion ?? 0);
    const hi = Math.min(clientMaxVersion(api), broker.maxVersion, opts.maxVersion ?? Number.MAX_SAFE_INTEGER);
    if (opts.version !== undefined) {
      if (opts.version < lo || opts.version > hi) {
        throw new UnsupportedApiError(
          `The broker at ${this.address} does not support ${api.name} version ${opts.version} (it supports ${broker.minVersion} to ${broker.maxVersion})`,
          api.name,
        );
      }
      return opts.version;
    }
    if (lo > hi) {
      const want =
        opts.minVersion !== undefined || opts.maxVersion !== undefined
          ? `${Math.max(api.minVersion, opts.minVersion ?? 0)} to ${Math.min(clientMaxVersion(api), opts.maxVersion ?? 99)}`
          : `${api.minVersion} to ${clientMaxVersion(api)}`;
      throw new UnsupportedApiError(
        `The broker at ${this.address} does not support a usable version of ${api.name}: it supports ${broker.minVersion} to ${broker.maxVersion}, tkafka needs ${want}`,
        api.name,
      );
    }
    return hi;
  }

  supports(api: ClientApi, minVersion = 0): boolean {
    const b = this.brokerVersions.get(api.key);
    return (
      b !== undefined &&
      Math.min(b.maxVersion, clientMaxVersion(api)) >= Math.max(minVersion, b.minVersion, api.minVersion)
    );
  }

  /** Sends one request and waits for its response. */
  async send<T = unknown>(api: ClientApi, body: unknown, opts: SendOptions = {}): Promise<Response<T>> {
    const version = this.pickVersion(api, opts);
    const frame = await this.sendFrame(api, version, body, opts.timeoutMs);
    return this.decode<T>(api, version, frame);
  }

  /** Reads the response with `api`'s generated reader: T, the caller's name for that API's response type. */
  private async decode<T>(api: ClientApi, version: number, frame: Buffer): Promise<Response<T>> {
    const codec = await loadCodec(api);
    const r = new Reader(frame);
    readResponseHeader(r, responseHeaderVersion(api, version));
    return { version, body: codec.readResponse(r, version) as T };
  }

  private async sendFrame(api: ClientApi, version: number, body: unknown, timeoutMs?: number): Promise<Buffer> {
    const codec = await loadCodec(api);
    if (this.reauthenticating && api.key !== 17 && api.key !== 36) await this.reauthenticating;
    if (this.closedError) throw this.closedError;
    const socket = this.socket;
    if (!socket) throw new DisconnectedError(`Not connected to ${this.address}`);
    const correlationId = this.nextCorrelationId++;
    if (this.nextCorrelationId > 0x7fffffff) this.nextCorrelationId = 1;
    const w = new Writer(256);
    w.int32(0);
    writeRequestHeader(w, requestHeaderVersion(api, version), {
      requestApiKey: api.key,
      requestApiVersion: version,
      correlationId,
      clientId: this.opts.clientId,
    });
    codec.writeRequest(w, version, body);
    const parts = w.toBuffers();
    parts[0]!.writeInt32BE(w.length - 4, 0);
    const ms = timeoutMs ?? this.opts.requestTimeoutMs;
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new RequestTimeoutError(`${api.name} request to ${this.address} timed out after ${ms} ms`));
        // Kafka's client drops a connection whose request timed out: later responses are unusable.
        this.fail(new DisconnectedError(`Connection to ${this.address} was dropped after a request timed out`));
      }, ms);
      this.pending.set(correlationId, { api, version, resolve, reject, timer });
      for (const p of parts) socket.write(p);
    });
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.buffered += d.length;
    for (;;) {
      if (this.buffered < 4) return;
      let head = this.chunks[0]!;
      if (head.length < 4) head = this.compact();
      const size = head.readInt32BE(0);
      if (size < 0) {
        this.fail(new DisconnectedError(`Invalid frame size ${size} from ${this.address}`));
        return;
      }
      if (this.buffered < 4 + size) return;
      if (head.length < 4 + size) head = this.compact();
      const frame = head.subarray(4, 4 + size);
      const rest = head.subarray(4 + size);
      if (rest.length > 0) this.chunks[0] = rest;
      else this.chunks.shift();
      this.buffered -= 4 + size;
      this.dispatch(frame);
    }
  }

  private compact(): Buffer {
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    return all;
  }

  private dispatch(frame: Buffer): void {
    if (frame.length < 4) return;
    const correlationId = frame.readInt32BE(0);
    const p = this.pending.get(correlationId);
    if (!p) return; // a response to a request we gave up on
    this.pending.delete(correlationId);
    clearTimeout(p.timer);
    p.resolve(frame);
  }

  private fail(e: Error): void {
    if (this.closedError) return;
    this.closedError = e;
    if (this.reauthTimer) clearTimeout(this.reauthTimer);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    this.pending.clear();
    this.socket?.destroy();
  }

  close(): void {
    this.fail(new DisconnectedError(`Connection to ${this.address} was closed`));
  }
}

/**
 * A TLS failure as Kafka's SslAuthenticationException with Node's reason: the broker's certificate
 * (untrusted, expired, wrong host name) or, after the handshake in TLS 1.3, the broker's alert
 * (it requires a client certificate, or does not trust ours). Null for other socket errors.
 */
function sslFailure(e: NodeJS.ErrnoException, address: string): SslAuthenticationError | null {
  const code = e.code ?? '';
  const alert = /alert (.*)$/.exec(e.message.split('\n')[0] ?? '')?.[1];
  let reason: string | null = null;
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' || code === 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE') {
    reason = `the broker requires a client certificate (set ssl.keystore.location or ssl.keystore.key) (${alert ?? code})`;
  } else if (/^ERR_SSL_.*ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|CERTIFICATE_EXPIRED)$/.test(code)) {
    reason = `the broker did not accept the client certificate (${alert ?? code})`;
  } else if (
    code.startsWith('ERR_SSL_') ||
    code === 'ERR_TLS_CERT_ALTNAME_INVALID' ||
    /CERT|SIGNATURE|ISSUER/.test(code)
  ) {
    reason = e.message.split('\n')[0]!;
  } else if (code === 'ECONNRESET' && /socket disconnected before secure TLS connection/.test(e.message)) {
    reason = 'the connection was closed during the handshake (is the listener an SSL listener?)';
  }
  return reason === null ? null : new SslAuthenticationError(`${reason} (broker ${address})`);
}

function describeSocketError(e: NodeJS.ErrnoException): string {
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'host not found';
  if (e.code === 'ECONNRESET') return 'connection reset';
  if (e.code === 'EHOSTUNREACH' || e.code === 'ENETUNREACH') return 'host unreachable';
  return e.message;
}
