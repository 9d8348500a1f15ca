// The socket server: one Acceptor per listener (a net.Server), a Connection per socket (the
// Processor's per-channel work), all on the event loop. Listener names in
// controller.listener.names are controller listeners: the registry serves them controller APIs.
import type { RequestQuota } from '../quota/request-time.js';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Dispatcher, stderrLogger, type Logger } from '../api/dispatcher.js';
import type { HandlerRegistry } from '../api/registry.js';
import { Acceptor, type BoundListener, type ListenerConfig } from './acceptor.js';
import { Connection, type ConnectionStats } from './connection.js';
import type { ConnectionAuthenticator } from '../security/authenticator.js';
import { requestLogWriter, type RequestLogEntry } from './request-log.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';
import { takeRemoteTime } from '../metrics/remote-time.js';
import { ANONYMOUS_PRINCIPAL, tlsPrincipal } from '../security/ssl-principal.js';
import { listenerTls } from './tls-listener.js';
import {
  ConnectionQuotas,
  RequestMemoryPool,
  connectionQuotaSettings,
  type ConnectionQuotaSettings,
} from './connection-quotas.js';

export type { BoundListener, ListenerConfig } from './acceptor.js';

export interface SocketServerOptions<Services = unknown> {
  /**
   * `listeners`: "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093", parsed entries, or
   * acceptors already opened with SocketServer.openAcceptors (to learn port-0 ports early).
   */
  readonly listeners: string | readonly ListenerConfig[] | readonly Acceptor[];
  /** `controller.listener.names` (default CONTROLLER). */
  readonly controllerListenerNames?: readonly string[];
  readonly registry: HandlerRegistry;
  /** Passed to every handler as its third argument. */
  readonly services?: Services;
  /** `socket.request.max.bytes` (default 104857600). */
  readonly socketRequestMaxBytes?: number;
  /** `connections.max.idle.ms` (default 600000); <= 0 disables. */
  readonly connectionsMaxIdleMs?: number;
  /** `tkafka.request.log`: one line per request on stderr. */
  readonly requestLog?: boolean;
  /** Called with the connection id when a connection closes (to drop its parked requests). */
  readonly onConnectionClose?: (connectionId: string) => void;
  /** Called for every request once it is answered (or closed the connection). */
  readonly onRequest?: (entry: RequestLogEntry) => void;
  readonly logger?: Logger;
  /** Per connection: stop reading while this many requests wait (default 64)... */
  readonly maxQueuedRequests?: number;
  /** ... or while waiting requests hold this many bytes (default 1 MiB). */
  readonly maxQueuedBytes?: number;
  /** How long close() lets in-flight requests finish before destroying sockets (default 5000). */
  readonly shutdownTimeoutMs?: number;
  /** SASL listeners: a new authenticator per connection (security/authenticator.ts); undefined: none. */
  readonly authenticatorFor?: (listenerName: string) => ConnectionAuthenticator | undefined;
  /**
   * Connection limits (max.connections*, max.connection.creation.rate, their listener.name.<l>.
   * forms, quota.window.*, socket.listen.backlog.size) read from these settings; undefined: none.
   */
  readonly connectionLimits?: ReadonlyMap<string, string>;
  /** inter.broker.listener.name: the listener allowed over max.connections. */
  readonly interBrokerListenerName?: string;
  /**
   * KIP-612 IP connection rate quota hook: the connection_creation_rate quota of an address (its
   * `ip` entity, else the default `ip` entity), undefined for none. Filled by the client-quota work.
   */
  readonly ipConnectionRate?: (ip: string) => number | undefined;
  /** request_percentage quotas, metered by the dispatcher (quota/request-time.ts). */
  readonly requestQuota?: RequestQuota;
  /** queued.max.request.bytes (<= 0: unbounded) across every connection. */
  readonly queuedMaxRequestBytes?: number;
  /** queued.max.requests: requests read and waiting to be handled, across every connection (default 500). */
  readonly queuedMaxRequests?: number;
  /** Kafka's RequestMetrics, recorded for every request (src/broker/metrics); undefined: none. */
  readonly requestMetrics?: RequestMetrics;
}

export const DEFAULT_SOCKET_REQUEST_MAX_BYTES = 104857600;
export const DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600000;

/** Parses Kafka's `listeners` syntax: NAME://host:port, comma separated; IPv6 hosts in brackets. */
export function parseListeners(spec: string): ListenerConfig[] {
  const out: ListenerConfig[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const m = /^([A-Za-z0-9_-]+):\/\/(\[[^\]]*\]|[^:/]*):(-?\d+)$/.exec(item);
    if (!m) throw new Error(`invalid listener "${item}": expected NAME://host:port`);
    const name = m[1]!.toUpperCase();
    const host = m[2]!.startsWith('[') ? m[2]!.slice(1, -1) : m[2]!;
    const port = Number(m[3]);
    if (port < 0 || port > 65535) throw new Error(`invalid port in listener "${item}"`);
    if (out.some((l) => l.name === name)) throw new Error(`listener name ${name} is used twice`);
    out.push({ name, host, port });
  }
  if (out.length === 0) throw new Error('no listeners configured');
  return out;
}

export class SocketServer<Services = unknown> {
  private readonly listenerConfigs: readonly ListenerConfig[];
  private readonly controllerNames: ReadonlySet<string>;
  private readonly dispatcher: Dispatcher<Services>;
  private readonly logger: Logger;
  private readonly onRequest: ((e: RequestLogEntry) => void) | undefined;
  private readonly acceptors: Acceptor[] = [];
  private readonly connections = new Set<Connection>();
  private nextConnectionIndex = 0;
  /** One quota group for the controller listeners, one for the others (Kafka's two SocketServers). */
  private readonly quotaGroups = new Map<boolean, ConnectionQuotas>();
  private readonly memoryPool: RequestMemoryPool | undefined;
  /** The settings the connection limits start from (updated by updateConnectionLimits before start). */
  private limitSettings: ReadonlyMap<string, string> | undefined;
  private state: 'new' | 'starting' | 'running' | 'closing' | 'closed' = 'new';

  /**
   * Opens one Acceptor per listener: those on port 0 bind now, so `port()` of the result gives
   * the port to advertise before the node registers (Kafka's ListenerInfo.withEphemeralPortsCorrected).
   */
  static async openAcceptors(
    listeners: string | readonly ListenerConfig[],
    controllerListenerNames: readonly string[] = ['CONTROLLER'],
    logger: Logger = stderrLogger,
  ): Promise<Acceptor[]> {
    const configs = typeof listeners === 'string' ? parseListeners(listeners) : listeners;
    const controllerNames = new Set(controllerListenerNames.map((n) => n.toUpperCase()));
    const out: Acceptor[] = [];
    try {
      for (const l of configs) {
        const name = l.name.toUpperCase();
        out.push(await Acceptor.open({ ...l, name }, controllerNames.has(name), logger));
      }
    } catch (e) {
      await Promise.all(out.map((a) => a.close()));
      throw e;
    }
    return out;
  }

  constructor(private readonly opts: SocketServerOptions<Services>) {
    const given = opts.listeners;
    if (typeof given !== 'string' && given.length > 0 && given[0] instanceof Acceptor) {
      this.acceptors = [...(given as readonly Acceptor[])];
      this.listenerConfigs = [];
    } else {
      this.listenerConfigs =
        typeof given === 'string'
          ? parseListeners(given)
          : (given as readonly ListenerConfig[]).map((l) => ({ ...l, name: l.name.toUpperCase() }));
    }
    this.controllerNames = new Set((opts.controllerListenerNames ?? ['CONTROLLER']).map((n) => n.toUpperCase()));
    this.logger = opts.logger ?? stderrLogger;
    this.dispatcher = new Dispatcher(
      opts.registry,
      opts.services as Services,
      this.logger,
      opts.requestQuota,
      opts.requestMetrics,
    );
    const sinks: ((e: RequestLogEntry) => void)[] = [];
    if (opts.requestLog) sinks.push(requestLogWriter());
    if (opts.onRequest) sinks.push(opts.onRequest);
    this.onRequest = sinks.length === 0 ? undefined : sinks.length === 1 ? sinks[0] : (e) => sinks.forEach((s) => s(e));
    this.limitSettings = opts.connectionLimits;
    const bytes = opts.queuedMaxRequestBytes ?? -1;
    const requests = opts.queuedMaxRequests ?? 500;
    this.memoryPool =
      bytes > 0 || opts.queuedMaxRequests !== undefined ? new RequestMemoryPool(bytes, requests) : undefined;
  }

  /** Binds every listener; resolves with the bound addresses (actual ports when 0 was asked). */
  async start(): Promise<readonly BoundListener[]> {
    if (this.state !== 'new') throw new Error(`socket server already ${this.state}`);
    this.state = 'starting';
    try {
      if (this.listenerConfigs.length > 0) {
        const names = [...this.controllerNames];
        this.acceptors.push(...(await SocketServer.openAcceptors(this.listenerConfigs, names, this.logger)));
      }
      if (this.limitSettings) await this.setUpConnectionQuotas(this.limitSettings);
      for (const a of this.acceptors) {
        const tls = a.listener.tls;
        await a.start((socket) => {
          // SSL listeners: the principal of the client certificate (User:ANONYMOUS without one)
          let principal: string | undefined;
          if (tls && socket instanceof TLSSocket) {
            try {
              principal = tlsPrincipal(socket, tls.principalMapper);
            } catch (e) {
              this.logger.info(`Failed authentication with /${socket.remoteAddress ?? ''} (${(e as Error).message})`);
              socket.destroy();
              return;
            }
          }
          this.accept(socket, a.bound.name, a.bound.isController, principal ?? ANONYMOUS_PRINCIPAL);
        });
      }
    } catch (e) {
      await this.close();
      throw e;
    }
    this.state = 'running';
    return this.boundListeners;
  }

  get boundListeners(): readonly BoundListener[] {
    return this.acceptors.map((a) => a.bound);
  }

  /** The bound port of a listener (by name). */
  port(listenerName: string): number {
    const a = this.acceptors.find((x) => x.bound.name === listenerName.toUpperCase());
    if (!a) throw new Error(`no bound listener ${listenerName}`);
    return a.bound.port;
  }

  /**
   * Reloads the key and trust stores of an SSL listener from `originals` (the node's settings with
   * the changed listener.name.<l>.ssl.* / ssl.* values), as Kafka does when they are altered
   * dynamically. Throws (ConfigError naming the key) when the new stores cannot be used; the
   * listener then keeps its current ones.
   */
  reloadListenerTls(listenerName: string, originals: ReadonlyMap<string, string>): void {
    const a = this.acceptors.find((x) => x.bound.name === listenerName.toUpperCase());
    if (!a) throw new Error(`no bound listener ${listenerName}`);
    a.updateTls(listenerTls(originals, a.bound.name).options);
  }

  /**
   * New connection limits (dynamic max.connections*, max.connection.creation.rate): waiting
   * acceptors re-check, and connections over a lowered max.connections are closed, least recently
   * active first (Kafka's Processor.closeExcessConnections). A server started without limits keeps none.
   */
  async updateConnectionLimits(settings: ReadonlyMap<string, string>): Promise<void> {
    if (this.limitSettings === undefined) return;
    this.limitSettings = settings;
    for (const [isController, quotas] of this.quotaGroups) {
      const names = this.acceptors.filter((a) => a.isController === isController).map((a) => a.bound.name);
      quotas.update(await connectionQuotaSettings(settings, names));
    }
  }

  /** Connections counted by the connection limits (all quota groups), and those waiting for a slot. */
  connectionCounts(): { counted: number; pending: number } {
    let counted = 0;
    for (const q of this.quotaGroups.values()) counted += q.total;
    return { counted, pending: this.acceptors.reduce((n, a) => n + a.pendingConnections, 0) };
  }

  /** The request memory pool (queued.max.request.bytes), if bounded. */
  get requestMemory(): RequestMemoryPool | undefined {
    return this.memoryPool;
  }

  private async setUpConnectionQuotas(limits: ReadonlyMap<string, string>): Promise<void> {
    const backlog = Number(limits.get('socket.listen.backlog.size') ?? 50);
    for (const isController of [false, true]) {
      const group = this.acceptors.filter((a) => a.isController === isController);
      if (group.length === 0) continue;
      const settings: ConnectionQuotaSettings = await connectionQuotaSettings(
        limits,
        group.map((a) => a.bound.name),
      );
      const names = new Set(group.map((a) => a.bound.name));
      const quotas = new ConnectionQuotas(
        settings,
        isController ? undefined : this.opts.interBrokerListenerName?.toUpperCase(),
        this.opts.ipConnectionRate,
        (protectedName, excess) => this.closeLeastRecentlyActive(names, protectedName, excess),
      );
      for (const a of group) a.useQuotas(quotas, Number.isInteger(backlog) && backlog > 0 ? backlog : 50);
      this.quotaGroups.set(isController, quotas);
    }
  }

  /**
   * Closes connections on `names` other than `protectedName`, least recently active first, until
   * `excess` are closed or closing (a closed socket is uncounted when its 'close' event comes).
   */
  private closeLeastRecentlyActive(
    names: ReadonlySet<string>,
    protectedName: string | undefined,
    excess: number,
  ): void {
    const open: Connection[] = [];
    let closing = 0;
    for (const c of this.connections) {
      if (!names.has(c.listenerName)) continue;
      if (c.isClosed) closing++;
      else if (c.listenerName !== protectedName) open.push(c);
    }
    open.sort((a, b) => a.lastActiveMs - b.lastActiveMs);
    for (const c of open.slice(0, Math.max(0, excess - closing))) c.close('the broker is over max.connections');
  }

  /** Per-connection counters (queue and write-buffer sizes), for metrics and tests. */
  connectionStats(): ConnectionStats[] {
    return [...this.connections].map((c) => c.stats());
  }

  /**
   * Stops accepting, lets each connection finish its in-flight request and flush the response,
   * then closes every socket (destroying those still busy after shutdownTimeoutMs).
   */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.state === 'closing') return;
    this.state = 'closing';
    const serversClosed = this.acceptors.map((a) => a.close());
    const timeout = this.opts.shutdownTimeoutMs ?? 5000;
    await Promise.all([...this.connections].map((c) => c.drainAndClose(timeout)));
    await Promise.all(serversClosed);
    this.state = 'closed';
  }

  private accept(socket: Socket, listenerName: string, isController: boolean, principal: string): void {
    if (this.state === 'closing' || this.state === 'closed') {
      socket.destroy();
      return;
    }
    const local = `${socket.localAddress ?? ''}:${socket.localPort ?? 0}`;
    const remote = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`;
    const maxRequestBytes = this.opts.socketRequestMaxBytes ?? DEFAULT_SOCKET_REQUEST_MAX_BYTES;
    const id = `${local}-${remote}-${this.nextConnectionIndex++}`;
    const conn = new Connection(socket, {
      id,
      listenerName,
      isControllerListener: isController,
      principal,
      dispatcher: this.dispatcher,
      maxRequestBytes,
      idleTimeoutMs: this.opts.connectionsMaxIdleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS,
      maxQueuedRequests: this.opts.maxQueuedRequests ?? 64,
      maxQueuedBytes: this.opts.maxQueuedBytes ?? 1 << 20,
      logger: this.logger,
      onRequest: this.onRequest,
      authenticator: this.opts.authenticatorFor?.(listenerName),
      memoryPool: this.memoryPool,
      requestMetrics: this.opts.requestMetrics,
      onClose: (c) => {
        this.connections.delete(c);
        this.opts.onConnectionClose?.(id);
        // the parked time of a request cancelled with its connection has no request left to go to
        takeRemoteTime(id);
      },
    });
    this.connections.add(conn);
  }
}
