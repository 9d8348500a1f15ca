// One listening socket (Kafka's Acceptor). As in Kafka, a listener on port 0 binds as soon as its
// Acceptor is opened, so the port the kernel chose is known before the node registers its
// endpoints; a listener on a fixed port binds at start(), so an open fixed port means a node that
// serves. Connections accepted before start() wait, paused, and are handed over in order at start().
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type SecureContextOptions, type Server as TlsServer } from 'node:tls';
import type { Pkcs12Certificate } from '../../client/pkcs12.js';
import type { Logger } from '../api/dispatcher.js';
import type { SslPrincipalMapper } from '../security/ssl-principal.js';
import type { ConnectionQuotas } from './connection-quotas.js';

export type SslClientAuth = 'required' | 'requested' | 'none';

/** What an SSL listener's Acceptor needs (built by tls-listener.ts from the ssl.* settings). */
export interface ListenerTls {
  readonly options: SecureContextOptions;
  readonly clientAuth: SslClientAuth;
  readonly principalMapper: SslPrincipalMapper;
  /** The certificates (with aliases) of a PKCS12 key store, for the reload checks; undefined for PEM. */
  readonly keystoreCertificates?: readonly Pkcs12Certificate[] | undefined;
}

export interface ListenerConfig {
  /** Upper-case listener name (PLAINTEXT, CONTROLLER, ...). */
  readonly name: string;
  /** '' or null binds every interface (an empty host in the listener URI). */
  readonly host: string | null;
  /** 0 picks a free port; see Acceptor.port. */
  readonly port: number;
  /** SSL / SASL_SSL listeners: served through node:tls (sockets are TLSSockets after the handshake). */
  readonly tls?: ListenerTls | undefined;
}

export interface BoundListener extends ListenerConfig {
  readonly isController: boolean;
}

export class Acceptor {
  private server: Server | null = null;
  /**
   * SSL listeners: the node:tls server the admitted TCP connections are handed to (emitted as its
   * 'connection', so the handshake starts only once the connection limits let the connection in).
   */
  private tls: TlsServer | null = null;
  private boundPort: number;
  private onSocket: ((socket: Socket) => void) | null = null;
  private readonly waiting: { socket: Socket; onError: () => void }[] = [];
  private closed = false;
  /** Connection limits (set by the socket server); null: every connection is handed over at once. */
  private quotas: ConnectionQuotas | null = null;
  /** socket.listen.backlog.size: connections accepted while no slot is free wait here, at most this many. */
  private backlog = 50;
  /** Accepted TCP connections waiting for a connection slot or for the creation-rate throttle. */
  private readonly pending: { socket: Socket; throttleUntil: number; onGone: () => void }[] = [];
  private pendingTimer: NodeJS.Timeout | undefined;
  private stopWaitingForSlot: (() => void) | undefined;

  private constructor(
    readonly listener: ListenerConfig,
    readonly isController: boolean,
    private readonly logger: Logger,
  ) {
    this.boundPort = listener.port;
  }

  /** Opens an acceptor; a port-0 listener binds now (SocketServer.openAcceptors logs the port). */
  static async open(listener: ListenerConfig, isController: boolean, logger: Logger): Promise<Acceptor> {
    const a = new Acceptor(listener, isController, logger);
    if (listener.port === 0) await a.bind();
    return a;
  }

  /** The listener with the port it is bound to (the configured port until a fixed port binds). */
  get bound(): BoundListener {
    return {
      name: this.listener.name,
      host: this.listener.host,
      port: this.boundPort,
      isController: this.isController,
    };
  }

  /**
   * Applies connection limits to this listener (ConnectionQuotas.addListener): connections are
   * admitted (or refused, or made to wait) through `quotas` as Kafka's Acceptor.accept does.
   */
  useQuotas(quotas: ConnectionQuotas, listenBacklog: number): void {
    this.quotas = quotas;
    this.backlog = listenBacklog;
    quotas.addListener(this.listener.name);
    this.stopWaitingForSlot = quotas.onSlotFreed(() => this.admitPending());
  }

  /** Connections waiting for a slot or the creation-rate throttle (for tests and metrics). */
  get pendingConnections(): number {
    return this.pending.length;
  }

  /** Binds (if not yet bound) and hands every connection, the waiting ones first, to onSocket. */
  async start(onSocket: (socket: Socket) => void): Promise<void> {
    if (this.server === null) await this.bind();
    this.onSocket = onSocket;
    for (const w of this.waiting.splice(0)) {
      w.socket.off('error', w.onError);
      this.onSocket(w.socket);
      w.socket.resume();
    }
  }

  /**
   * Kafka's SSL reconfiguration (a changed key store or trust store): new connections use the new
   * stores, open ones keep theirs. Only the stores change; ssl.client.auth and the principal
   * mapping are fixed at start-up.
   */
  updateTls(options: SecureContextOptions): void {
    if (!this.listener.tls) throw new Error(`listener ${this.listener.name} is not an SSL listener`);
    if (this.tls === null) throw new Error(`listener ${this.listener.name} is not bound yet`);
    this.tls.setSecureContext(options);
  }

  /** Stops accepting; connections that never reached start() are closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopWaitingForSlot?.();
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    for (const p of this.pending.splice(0)) p.socket.destroy();
    for (const w of this.waiting.splice(0)) w.socket.destroy();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async bind(): Promise<void> {
    const l = this.listener;
    if (l.tls) this.tls = this.tlsServer(l.tls);
    // (SSL: not half-open, see tlsServer)
    const server = createServer({ allowHalfOpen: !l.tls, pauseOnConnect: true }, (s) => this.tcpAccepted(s));
    await new Promise<void>((resolve, reject) => {
      // Kafka: "Socket server failed to bind to host:port: <reason>."
      const onError = (e: Error): void =>
        reject(new Error(`Socket server failed to bind to ${l.host || '0.0.0.0'}:${l.port}: ${e.message}.`));
      server.once('error', onError);
      server.listen({ host: l.host || undefined, port: l.port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', (e) => this.logger.error(`listener ${l.name}: ${e.message}`));
    this.server = server;
    this.boundPort = (server.address() as AddressInfo).port;
    // Kafka's Acceptor.openServerSocket, word for word (the host as configured, the bound port).
    this.logger.info(`Awaiting socket connections on ${l.host || '0.0.0.0'}:${this.boundPort}.`);
  }

  /**
   * A TLS server: connections reach accepted() after a successful handshake. ssl.client.auth=
   * required rejects a missing or untrusted client certificate in the handshake; requested asks
   * for one and rejects only an untrusted one (as Java's wantClientAuth does).
   */
  private tlsServer(tls: ListenerTls): TlsServer {
    const server = createTlsServer(
      {
        ...tls.options,
        // Not half-open: with allowHalfOpen a client that closes during the handshake leaves a
        // TLSSocket that never ends (nor lets server.close() finish). TLS has no half-close anyway:
        // a client's close_notify ends the connection, as in Kafka's SslTransportLayer.
        allowHalfOpen: false,
        requestCert: tls.clientAuth !== 'none',
        rejectUnauthorized: tls.clientAuth === 'required',
      },
      (socket) => {
        if (tls.clientAuth === 'requested' && !socket.authorized && socket.getPeerCertificate().subject) {
          this.logger.info(
            `Failed authentication with /${socket.remoteAddress ?? ''} (SSL handshake failed: ${String(socket.authorizationError)})`,
          );
          socket.destroy();
          return;
        }
        this.accepted(socket);
      },
    );
    // Kafka's Selector logs a failed TLS handshake at INFO and closes the channel.
    server.on('tlsClientError', (e, socket) => {
      // (node:tls closes the socket after sending its alert)
      this.logger.info(
        `Failed authentication with /${socket.remoteAddress ?? ''} (SSL handshake failed: ${e.message})`,
      );
    });
    return server;
  }

  /**
   * Kafka's Acceptor.accept: ConnectionQuotas.inc waits for a connection slot and the creation-rate
   * throttle (the connections behind wait too, in order), then counts the connection; one over its
   * address's limit is closed at once. On SSL listeners this comes before the TLS handshake, as in Kafka.
   */
  private tcpAccepted(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    if (this.quotas === null) {
      this.handOver(socket);
      return;
    }
    const entry = {
      socket,
      throttleUntil: -1,
      onGone: (): void => {
        const i = this.pending.indexOf(entry);
        if (i >= 0) this.pending.splice(i, 1);
        socket.destroy();
      },
    };
    socket.on('error', entry.onGone);
    socket.once('close', entry.onGone);
    this.pending.push(entry);
    // the kernel's accept queue (socket.listen.backlog.size) is full: the connection is dropped
    if (this.pending.length > this.backlog + 1) entry.onGone();
    this.admitPending();
  }

  private admitPending(): void {
    const quotas = this.quotas;
    if (quotas === null || this.closed) return;
    const name = this.listener.name;
    while (this.pending.length > 0) {
      const head = this.pending[0]!;
      const now = Date.now();
      if (head.throttleUntil < 0) head.throttleUntil = now + quotas.recordConnectionAndGetThrottleTimeMs(name, now);
      if (now < head.throttleUntil) {
        if (this.pendingTimer === undefined) {
          this.pendingTimer = setTimeout(() => {
            this.pendingTimer = undefined;
            this.admitPending();
          }, head.throttleUntil - now);
        }
        return;
      }
      if (!quotas.connectionSlotAvailable(name)) return;
      this.pending.shift();
      const socket = head.socket;
      socket.off('error', head.onGone);
      socket.off('close', head.onGone);
      const address = socket.remoteAddress;
      if (address === undefined || socket.destroyed) {
        socket.destroy();
        continue;
      }
      const result = quotas.inc(name, address, now);
      if (result.kind === 'throttled') {
        // Kafka's DelayedCloseSocket: not accepted, closed when the IP throttle ends
        socket.on('error', () => socket.destroy());
        setTimeout(() => socket.destroy(), result.throttleMs).unref();
        continue;
      }
      let counted = true;
      const release = (): void => {
        if (!counted) return;
        counted = false;
        quotas.dec(name, address);
      };
      if (result.kind === 'tooMany') {
        this.logger.info(
          `Rejected connection from /${result.ip}, address already has the configured maximum of ${result.count} connections.`,
        );
        socket.destroy();
        release();
        continue;
      }
      socket.once('close', release);
      this.handOver(socket);
    }
  }

  /** An admitted TCP connection: to the TLS server for its handshake, or served. */
  private handOver(socket: Socket): void {
    if (this.tls === null) {
      this.accepted(socket);
      return;
    }
    this.tls.emit('connection', socket);
  }

  private accepted(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    if (this.onSocket === null) {
      socket.pause();
      const onError = (): void => {
        const i = this.waiting.findIndex((w) => w.socket === socket);
        if (i >= 0) this.waiting.splice(i, 1);
        socket.destroy();
      };
      socket.on('error', onError);
      this.waiting.push({ socket, onError });
      return;
    }
    this.onSocket(socket);
    socket.resume();
  }
}
