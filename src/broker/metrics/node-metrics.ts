// One prom-client Registry per server process (broker and/or controller roles) and the HTTP endpoint
// that serves it (tkafka.metrics.listener): GET /metrics → registry.metrics() in the registry's
// content type, anything else 404. Other modules register their metrics and collectors on
// `registry` (reached through BrokerServices.metrics); names follow what the Prometheus JMX exporter
// makes of Kafka's MBeans (docs/metrics.md). Node's process metrics are registered at creation.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';

export interface MetricsListener {
  readonly host: string;
  readonly port: number;
}

export class NodeMetrics {
  readonly registry = new Registry();
  private server: Server | null = null;
  /** Called when the node stops (collectors holding timers or hooks). */
  private readonly closers: (() => void)[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Runs `fn` when the node stops (a collector's timer, an event-loop monitor). */
  onClose(fn: () => void): void {
    this.closers.push(fn);
  }

  /**
   * Serves the registry on `listener`; rejects (the node does not start) when the address cannot be
   * bound: the port in use, an address not on this host.
   */
  async listen(listener: MetricsListener): Promise<void> {
    const server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      const fail = (e: NodeJS.ErrnoException): void =>
        reject(
          new Error(
            `tkafka.metrics.listener: cannot listen on http://${hostPort(listener.host, listener.port)}: ${
              e.code === 'EADDRINUSE' ? 'the address is already in use' : e.message
            }`,
          ),
        );
      server.once('error', fail);
      server.listen(listener.port, listener.host, () => {
        server.off('error', fail);
        resolve();
      });
    });
    // a scraper's keep-alive connection must not hold the node's shutdown
    server.keepAliveTimeout = 5000;
    this.server = server;
  }

  /** The bound address (port 0 resolved), or null without an endpoint. */
  get address(): { host: string; port: number } | null {
    const a = this.server?.address() as AddressInfo | null | undefined;
    return a ? { host: a.address, port: a.port } : null;
  }

  async close(): Promise<void> {
    for (const fn of this.closers.splice(0)) fn();
    const server = this.server;
    this.server = null;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Not Found\n');
      return;
    }
    try {
      const body = await this.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.registry.contentType });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (e) {
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`${e instanceof Error ? e.message : String(e)}\n`);
    }
  }
}

const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
