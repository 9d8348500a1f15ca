// Requests from this node to the active controller: Kafka's NodeToControllerChannelManagerImpl with
// its RaftControllerNodeProvider. The active controller is found by a `ControllerNodeProvider` (on a
// broker-only node: the raft leader id from the metadata quorum, and that voter's endpoint on the
// first `controller.listener.names` listener); one connection to it is kept and reopened when the
// controller moves. A request is retried (after `retryBackoffMs`) while its retry deadline allows when
// the connection fails, no controller is known, or the answer says NOT_CONTROLLER (the caller's
// `isNotController` reads that from the response, as NodeToControllerRequestThread checks
// `response.errorCounts` for NOT_CONTROLLER): the controller address is then forgotten and found again.
//
// Interface: `send(api, body, { retryTimeoutMs, isNotController })` resolves with the decoded response of
// the active controller, or rejects with ControllerChannelTimeoutError when the deadline passes first.
import { BrokerConnection, type Response } from '../../client/connection.js';
import type { ClientApi } from '../../client/apis.js';
import { ConnectionError, DisconnectedError, RequestTimeoutError } from '../../client/errors.js';
import type { OutgoingSecurity } from '../security/outgoing.js';

export interface ControllerNode {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

/** The active controller as this node currently knows it, or null while unknown. */
export type ControllerNodeProvider = () => ControllerNode | null;

export interface ControllerChannelLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface ControllerChannelOptions {
  /** Used in the client id: `<prefix><channelName>` (Kafka: `broker-<id>-forwarding`). */
  readonly clientId: string;
  readonly provider: ControllerNodeProvider;
  /** Per request on the wire (`request.timeout.ms`, Kafka's controller channels use it too). */
  readonly requestTimeoutMs: number;
  /** Wait before retrying after a failure (`controller.quorum.retry.backoff.ms`-like; Kafka: 50 ms reconnect backoff). */
  readonly retryBackoffMs: number;
  readonly connectTimeoutMs?: number;
  readonly logger?: ControllerChannelLogger;
  /** TLS / SASL of the controller listener (security/outgoing.ts); absent: PLAINTEXT. */
  readonly security?: OutgoingSecurity;
}

export interface ControllerSendOptions<T> {
  /** How long the request may be retried in all (Kafka's retryTimeoutMs of the channel). */
  readonly retryTimeoutMs: number;
  /** The response says the node is not (or no longer) the active controller: rediscover and retry. */
  readonly isNotController?: (body: T) => boolean;
  /** Send exactly this version. */
  readonly version?: number;
}

/** The retry deadline of a controller request passed (Kafka: the completion handler's onTimeout). */
export class ControllerChannelTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControllerChannelTimeoutError';
  }
}

export class ControllerChannelClosedError extends Error {
  constructor() {
    super('The controller channel is closed');
    this.name = 'ControllerChannelClosedError';
  }
}

function sameNode(a: ControllerNode, b: ControllerNode): boolean {
  return a.id === b.id && a.host === b.host && a.port === b.port;
}

export class ControllerChannel {
  private conn: { node: ControllerNode; connection: Promise<BrokerConnection> } | null = null;
  private closed = false;
  private readonly waits = new Set<() => void>();
  /** What the controller of the current connection advertised in ApiVersions, once connected. */
  private versions: ReadonlyMap<number, { minVersion: number; maxVersion: number }> | null = null;

  constructor(private readonly opts: ControllerChannelOptions) {}

  /** The controller this channel is connected to, if any. */
  get connectedNode(): ControllerNode | null {
    return this.conn?.node ?? null;
  }

  /**
   * The API versions the controller this channel is connected to advertised, by API key; null while
   * not connected (Kafka: NodeToControllerChannelManager.controllerApiVersions).
   */
  get activeControllerApiVersions(): ReadonlyMap<number, { minVersion: number; maxVersion: number }> | null {
    return this.conn ? this.versions : null;
  }

  /** The API versions the active controller advertised (after a first request), by API key. */
  async controllerApiVersions(): Promise<ReadonlyMap<number, { minVersion: number; maxVersion: number }> | null> {
    if (!this.conn) return null;
    try {
      return (await this.conn.connection).brokerVersions;
    } catch {
      return null;
    }
  }

  async send<T>(api: ClientApi, body: unknown, opts: ControllerSendOptions<T>): Promise<Response<T>> {
    const deadline = Date.now() + opts.retryTimeoutMs;
    let lastProblem = 'no active controller is known';
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new ControllerChannelClosedError();
      if (attempt > 1) {
        if (Date.now() + this.opts.retryBackoffMs >= deadline) break;
        await this.backoff();
        if (this.closed) throw new ControllerChannelClosedError();
      }
      const node = this.opts.provider();
      if (!node) {
        lastProblem = 'no active controller is known';
        continue;
      }
      let connection: BrokerConnection;
      try {
        connection = await this.connectionTo(node);
      } catch (e) {
        lastProblem = (e as Error).message;
        this.forget(node);
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      try {
        const res = await connection.send<T>(api, body, {
          version: opts.version,
          timeoutMs: Math.min(this.opts.requestTimeoutMs, left),
        });
        if (opts.isNotController?.(res.body)) {
          lastProblem = `node ${node.id} answered NOT_CONTROLLER`;
          this.opts.logger?.info(
            `${api.name} to controller ${node.id}: NOT_CONTROLLER; looking for the active controller`,
          );
          this.forget(node);
          continue;
        }
        return res;
      } catch (e) {
        if (e instanceof ConnectionError || e instanceof DisconnectedError || e instanceof RequestTimeoutError) {
          lastProblem = e.message;
          this.forget(node);
          continue;
        }
        throw e;
      }
    }
    throw new ControllerChannelTimeoutError(
      `${api.name} to the active controller timed out after ${opts.retryTimeoutMs} ms (${lastProblem})`,
    );
  }

  private connectionTo(node: ControllerNode): Promise<BrokerConnection> {
    if (this.conn && sameNode(this.conn.node, node)) {
      const current = this.conn;
      return current.connection.then((c) => {
        if (c.connected) return c;
        if (this.conn === current) this.conn = null;
        return this.connectionTo(node);
      });
    }
    this.forget(null);
    const c = new BrokerConnection({
      host: node.host,
      port: node.port,
      clientId: this.opts.clientId,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? this.opts.requestTimeoutMs,
      ...this.opts.security,
    });
    const connection = c.open().then(
      () => {
        if (this.conn?.connection === connection) this.versions = c.brokerVersions;
        return c;
      },
      (e: unknown) => {
        c.close();
        throw e;
      },
    );
    this.conn = { node, connection };
    return connection;
  }

  /** Drops the connection (to `node`, or whatever it is when null). */
  private forget(node: ControllerNode | null): void {
    const current = this.conn;
    if (!current || (node && !sameNode(current.node, node))) return;
    this.conn = null;
    this.versions = null;
    current.connection.then(
      (c) => c.close(),
      () => undefined,
    );
  }

  private backoff(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waits.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.opts.retryBackoffMs);
      this.waits.add(done);
    });
  }

  close(): void {
    this.closed = true;
    for (const w of [...this.waits]) w();
    this.forget(null);
  }
}
