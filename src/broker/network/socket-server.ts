// The socket server: one net.Server per listener (Kafka's Acceptor), a Connection per socket (the
// Processor's per-channel work), all on the event loop. Listener names in
// controller.listener.names are controller listeners: the registry serves them controller APIs.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Dispatcher, stderrLogger, type Logger } from '../api/dispatcher.js';
import type { HandlerRegistry } from '../api/registry.js';
import { Connection, type ConnectionStats } from './connection.js';
import { requestLogWriter, type RequestLogEntry } from './request-log.js';

export interface ListenerConfig {
  /** Upper-case listener name (PLAINTEXT, CONTROLLER, ...). */
  readonly name: string;
  /** '' or null binds every interface (an empty host in the listener URI). */
  readonly host: string | null;
  /** 0 picks a free port; see SocketServer.port(). */
  readonly port: number;
}

export interface BoundListener extends ListenerConfig {
  readonly isController: boolean;
}

export interface SocketServerOptions<Services = unknown> {
  /** `listeners`: "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093" or parsed entries. */
  readonly listeners: string | readonly ListenerConfig[];
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
  private readonly servers: { server: Server; bound: BoundListener }[] = [];
  private readonly connections = new Set<Connection>();
  private nextConnectionIndex = 0;
  private state: 'new' | 'starting' | 'running' | 'closing' | 'closed' = 'new';

  constructor(private readonly opts: SocketServerOptions<Services>) {
    this.listenerConfigs =
      typeof opts.listeners === 'string'
        ? parseListeners(opts.listeners)
        : opts.listeners.map((l) => ({ ...l, name: l.name.toUpperCase() }));
    this.controllerNames = new Set((opts.controllerListenerNames ?? ['CONTROLLER']).map((n) => n.toUpperCase()));
    this.logger = opts.logger ?? stderrLogger;
    this.dispatcher = new Dispatcher(opts.registry, opts.services as Services, this.logger);
    const sinks: ((e: RequestLogEntry) => void)[] = [];
    if (opts.requestLog) sinks.push(requestLogWriter());
    if (opts.onRequest) sinks.push(opts.onRequest);
    this.onRequest = sinks.length === 0 ? undefined : sinks.length === 1 ? sinks[0] : (e) => sinks.forEach((s) => s(e));
  }

  /** Binds every listener; resolves with the bound addresses (actual ports when 0 was asked). */
  async start(): Promise<readonly BoundListener[]> {
    if (this.state !== 'new') throw new Error(`socket server already ${this.state}`);
    this.state = 'starting';
    try {
      for (const l of this.listenerConfigs) await this.bind(l);
    } catch (e) {
      await this.close();
      throw e;
    }
    this.state = 'running';
    return this.boundListeners;
  }

  get boundListeners(): readonly BoundListener[] {
    return this.servers.map((s) => s.bound);
  }

  /** The bound port of a listener (by name). */
  port(listenerName: string): number {
    const s = this.servers.find((x) => x.bound.name === listenerName.toUpperCase());
    if (!s) throw new Error(`no bound listener ${listenerName}`);
    return s.bound.port;
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
    const serversClosed = this.servers.map(
      ({ server }) => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    const timeout = this.opts.shutdownTimeoutMs ?? 5000;
    await Promise.all([...this.connections].map((c) => c.drainAndClose(timeout)));
    await Promise.all(serversClosed);
    this.state = 'closed';
  }

  private async bind(l: ListenerConfig): Promise<void> {
    const isController = this.controllerNames.has(l.name);
    const server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket, l.name, isController));
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error): void =>
        reject(new Error(`cannot bind listener ${l.name} to ${l.host || '*'}:${l.port}: ${e.message}`));
      server.once('error', onError);
      server.listen({ host: l.host || undefined, port: l.port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', (e) => this.logger.error(`listener ${l.name}: ${e.message}`));
    const port = (server.address() as AddressInfo).port;
    this.servers.push({ server, bound: { name: l.name, host: l.host, port, isController } });
    const host = l.host ?? '';
    this.logger.info(
      `listening on ${l.name}://${host.includes(':') ? `[${host}]` : host}:${port}${isController ? ' (controller)' : ''}`,
    );
  }

  private accept(socket: Socket, listenerName: string, isController: boolean): void {
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
      dispatcher: this.dispatcher,
      maxRequestBytes,
      idleTimeoutMs: this.opts.connectionsMaxIdleMs ?? DEFAULT_CONNECTIONS_MAX_IDLE_MS,
      maxQueuedRequests: this.opts.maxQueuedRequests ?? 64,
      maxQueuedBytes: this.opts.maxQueuedBytes ?? 1 << 20,
      logger: this.logger,
      onRequest: this.onRequest,
      onClose: (c) => {
        this.connections.delete(c);
        this.opts.onConnectionClose?.(id);
      },
    });
    this.connections.add(conn);
  }
}
