// A loopback TCP proxy the chaos harness controls: one listener (127.0.0.1, a port of its own)
// forwarding every connection to a target port. A node advertises the proxy's port instead of its
// own, so cutting the proxy cuts that link. `block()` is a network partition: existing connections
// are destroyed and new ones are accepted but stalled (no byte forwarded either way) until
// `heal()`, which destroys the stalled ones, so a peer sees its requests time out as across a real
// partition, then reconnects.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class LinkProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Socket>();
  private readonly stalled = new Set<Socket>();
  private blockedNow = false;
  port = 0;

  /** `target()` is asked at each connection (the node's port may change across restarts). */
  constructor(
    readonly name: string,
    private readonly target: () => number,
  ) {}

  get blocked(): boolean {
    return this.blockedNow;
  }

  async start(): Promise<number> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    return this.port;
  }

  private accept(client: Socket): void {
    client.on('error', () => client.destroy());
    if (this.blockedNow) {
      client.pause();
      this.stalled.add(client);
      client.once('close', () => this.stalled.delete(client));
      return;
    }
    const upstream = connect({ host: '127.0.0.1', port: this.target() });
    upstream.on('error', () => upstream.destroy());
    for (const s of [client, upstream]) {
      this.pairs.add(s);
      s.once('close', () => {
        this.pairs.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Cuts the link: existing connections destroyed, new ones stalled. */
  block(): void {
    this.blockedNow = true;
    for (const s of this.pairs) s.destroy();
    this.pairs.clear();
  }

  /** Restores the link; stalled connections are closed (their peers reconnect). */
  heal(): void {
    this.blockedNow = false;
    for (const s of this.stalled) s.destroy();
    this.stalled.clear();
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of [...this.pairs, ...this.stalled]) s.destroy();
    this.pairs.clear();
    this.stalled.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
