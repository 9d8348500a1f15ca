// Outbound requests from this node to the other members of the metadata quorum (Kafka's
// KafkaNetworkChannel over a NetworkClient, with the RequestManager's per-node backoff).
//
// Interface (used by the raft client, the follower fetcher and the observer):
//   const ch = new RaftChannel({ nodeId, listenerName, requestTimeoutMs, retryBackoffMs, voters, bootstrapServers });
//   ch.send<VoteResponse>({ voterId: 2 }, ApiKey.Vote, body)            // a voter by id
//   ch.send<FetchResponse>({ bootstrapIndex: 0 }, ApiKey.Fetch, body)   // a controller.quorum.bootstrap.servers entry
//   ch.send<FetchResponse>({ host, port }, ApiKey.Fetch, body)           // an address learnt from a response
//   ch.setVoterEndpoint(id, host, port)                                   // the voter set changed / a leader hint
//   ch.isReady(target) / ch.backoffMs(target)                             // RequestManager.isReady / remainingBackoffMs
//   ch.close()
// Each target has one BrokerConnection (host:port), opened on first use and reused; the connection
// negotiates versions with ApiVersions as a Kafka client does, and send() uses the highest version
// both sides support (or `opts.version` / `opts.maxVersion`). A connection that fails (connect error,
// disconnect, `controller.quorum.request.timeout.ms` elapsed) is dropped, and the target is in backoff
// for `controller.quorum.retry.backoff.ms`, or longer while failures repeat (the reconnect backoff
// of Kafka's raft NetworkClient: 50 ms doubling to 500 ms, 20% jitter, reset by a connection that
// opens), so a dead voter is retried twice a second, not fifty times: send() during the backoff rejects at once with a
// ConnectionError (the caller, like KafkaRaftClient, picks another node or waits). A response that
// carries an error code is not a channel failure: it is returned as data.

import { BrokerConnection, type Response, type SendOptions } from '../../client/connection.js';
import { apiByKey, type ClientApi } from '../../client/apis.js';
import { ConnectionError, UnsupportedApiError } from '../../client/errors.js';
import type { OutgoingSecurity } from '../security/outgoing.js';

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Where a request goes: a voter (by id, through the voter endpoints), a bootstrap server, or an address. */
export type RaftTarget = { readonly voterId: number } | { readonly bootstrapIndex: number } | HostPort;

export interface RaftChannelOptions {
  /** This node's id (client id `raft-client-<id>`, as KafkaRaftClient's NetworkClient). */
  readonly nodeId: number;
  /** The controller listener name requests go to (the first of `controller.listener.names`). */
  readonly listenerName: string;
  /** controller.quorum.request.timeout.ms (2000). */
  readonly requestTimeoutMs: number;
  /** controller.quorum.retry.backoff.ms (20). */
  readonly retryBackoffMs: number;
  /** Socket connect timeout (default: the request timeout). */
  readonly connectTimeoutMs?: number;
  /** Voter endpoints on the controller listener (controller.quorum.voters or the voter set). */
  readonly voters?: ReadonlyMap<number, HostPort>;
  /** controller.quorum.bootstrap.servers. */
  readonly bootstrapServers?: readonly HostPort[];
  readonly now?: () => number;
  /** TLS / SASL of the controller listener (security/outgoing.ts); absent for PLAINTEXT. */
  readonly security?: OutgoingSecurity;
}

interface Link {
  conn: BrokerConnection | null;
  opening: Promise<BrokerConnection> | null;
  /** Until when the target is in backoff after a failure. */
  backoffUntil: number;
  /** Failures since a connection last opened. */
  failures: number;
}

/** KafkaRaftManager's NetworkClient: reconnect.backoff.ms 50, reconnect.backoff.max.ms 500. */
const RECONNECT_BACKOFF_MS = 50;
const RECONNECT_BACKOFF_MAX_MS = 500;
const RECONNECT_BACKOFF_JITTER = 0.2;

/** Kafka's ExponentialBackoff(50, 2, 500, 0.2) after `failures` consecutive failures (≥ 1). */
export function reconnectBackoffMs(failures: number, random: () => number = Math.random): number {
  const exp = Math.min(RECONNECT_BACKOFF_MS * 2 ** Math.max(0, failures - 1), RECONNECT_BACKOFF_MAX_MS);
  const jitter = 1 + RECONNECT_BACKOFF_JITTER * (2 * random() - 1);
  return Math.round(exp * jitter);
}

export class RaftChannel {
  private readonly voters = new Map<number, HostPort>();
  private readonly bootstrap: HostPort[];
  private readonly links = new Map<string, Link>();
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly opts: RaftChannelOptions) {
    for (const [id, hp] of opts.voters ?? []) this.voters.set(id, hp);
    this.bootstrap = [...(opts.bootstrapServers ?? [])];
    this.now = opts.now ?? Date.now;
  }

  get listenerName(): string {
    return this.opts.listenerName;
  }

  get bootstrapServers(): readonly HostPort[] {
    return this.bootstrap;
  }

  voterEndpoint(id: number): HostPort | undefined {
    return this.voters.get(id);
  }

  /** Records (or replaces) the endpoint of a voter, e.g. from a VotersRecord or a leader's NodeEndpoints. */
  setVoterEndpoint(id: number, host: string, port: number): void {
    const old = this.voters.get(id);
    if (old && old.host === host && old.port === port) return;
    this.voters.set(id, { host, port });
  }

  removeVoter(id: number): void {
    this.voters.delete(id);
  }

  /** The address a target resolves to, or undefined (an unknown voter or bootstrap index). */
  resolve(target: RaftTarget): HostPort | undefined {
    if ('voterId' in target) return this.voters.get(target.voterId);
    if ('bootstrapIndex' in target) return this.bootstrap[target.bootstrapIndex];
    return target;
  }

  /** Milliseconds left of the target's backoff (0 when a request may be sent now). */
  backoffMs(target: RaftTarget): number {
    const hp = this.resolve(target);
    if (!hp) return this.opts.retryBackoffMs;
    const link = this.links.get(key(hp));
    return link ? Math.max(0, link.backoffUntil - this.now()) : 0;
  }

  isReady(target: RaftTarget): boolean {
    return this.backoffMs(target) === 0;
  }

  /**
   * Sends one request and resolves with the decoded response. Rejects with a ConnectionError when
   * the target is unknown or in backoff, and with the client's errors (DisconnectedError,
   * RequestTimeoutError, UnsupportedApiError) when the request fails; the target then backs off.
   */
  async send<T>(target: RaftTarget, apiKey: number, body: unknown, opts: SendOptions = {}): Promise<Response<T>> {
    if (this.closed) throw new ConnectionError('The raft channel is closed');
    const api = clientApi(apiKey);
    const hp = this.resolve(target);
    if (!hp) throw new ConnectionError(`No endpoint known for ${describeTarget(target)}`);
    const k = key(hp);
    let link = this.links.get(k);
    if (!link) {
      link = { conn: null, opening: null, backoffUntil: 0, failures: 0 };
      this.links.set(k, link);
    }
    const wait = link.backoffUntil - this.now();
    if (wait > 0) throw new ConnectionError(`${k} is in backoff for another ${wait} ms`);
    let conn: BrokerConnection;
    try {
      conn = await this.connection(link, hp);
    } catch (e) {
      this.failed(link, null);
      throw e;
    }
    try {
      return await conn.send<T>(api, body, { timeoutMs: this.opts.requestTimeoutMs, ...opts });
    } catch (e) {
      // errors in the response are data; only transport failures and unusable versions get here
      if (!(e instanceof UnsupportedApiError)) this.failed(link, conn);
      throw e;
    }
  }

  private connection(link: Link, hp: HostPort): Promise<BrokerConnection> {
    if (link.conn && link.conn.connected) return Promise.resolve(link.conn);
    if (link.opening) return link.opening;
    const conn = new BrokerConnection({
      host: hp.host,
      port: hp.port,
      clientId: `raft-client-${this.opts.nodeId}`,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? this.opts.requestTimeoutMs,
      ...this.opts.security,
    });
    link.conn = null;
    link.opening = conn.open().then(
      () => {
        link.opening = null;
        if (this.closed) {
          conn.close();
          throw new ConnectionError('The raft channel is closed');
        }
        link.conn = conn;
        link.failures = 0;
        return conn;
      },
      (e: unknown) => {
        link.opening = null;
        conn.close();
        throw e;
      },
    );
    return link.opening;
  }

  /** A transport failure: the connection is dropped (failing what else is in flight on it) and the target backs off. */
  private failed(link: Link, conn: BrokerConnection | null): void {
    if (conn && link.conn === conn) {
      conn.close();
      link.conn = null;
    }
    link.failures++;
    link.backoffUntil = this.now() + Math.max(this.opts.retryBackoffMs, reconnectBackoffMs(link.failures));
  }

  /** Closes every connection; requests in flight reject with DisconnectedError. */
  close(): void {
    this.closed = true;
    for (const link of this.links.values()) {
      link.conn?.close();
      link.conn = null;
    }
    this.links.clear();
  }
}

function key(hp: HostPort): string {
  return `${hp.host}:${hp.port}`;
}

function describeTarget(t: RaftTarget): string {
  if ('voterId' in t) return `voter ${t.voterId}`;
  if ('bootstrapIndex' in t) return `bootstrap server #${t.bootstrapIndex}`;
  return key(t);
}

function clientApi(apiKey: number): ClientApi {
  const api = apiByKey(apiKey);
  if (!api) throw new RangeError(`unknown API key ${apiKey}`);
  return api;
}
