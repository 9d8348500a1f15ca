// Requests from this broker to other brokers, as Kafka's InterBrokerSendThread sends them through its
// NetworkClient (TransactionMarkerChannelManager, AddPartitionsToTxnManager): one connection per
// destination broker on `inter.broker.listener.name`, opened on first use with the endpoint the
// latest metadata image registers for that broker (KRaftMetadataCache.getAliveBrokerNode /
// getPartitionLeaderEndpoint), reopened when that endpoint changes (a broker restarted elsewhere) and
// dropped when a request on it fails (connection refused, disconnected, timed out), so the next send
// connects again. Requests to one broker are pipelined on its connection; callers batch.
//
// `send` rejects with the client's ConnectionError / DisconnectedError / RequestTimeoutError (the
// callers answer them as Kafka's completion handlers answer a disconnected response) or
// UnsupportedApiError (Kafka's versionMismatch).
import { BrokerConnection, type Response, type SendOptions } from '../../client/connection.js';
import type { ClientApi } from '../../client/apis.js';
import { ConnectionError, DisconnectedError, RequestTimeoutError } from '../../client/errors.js';
import type { Endpoint, MetadataImage } from '../metadata/image.js';
import { nodeOutgoingSecurity, type OutgoingSecurity } from '../security/outgoing.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';

export interface InterBrokerChannelOptions {
  readonly nodeId: number;
  /** The latest metadata image this node applied. */
  readonly image: () => MetadataImage;
  /** inter.broker.listener.name */
  readonly listenerName: string;
  /** request.timeout.ms */
  readonly requestTimeoutMs: number;
  readonly connectTimeoutMs?: number;
  /** Kafka: `broker-<id>-txn-marker-sender` and the like. */
  readonly clientId: string;
  /** TLS / SASL of the inter-broker listener (security/outgoing.ts); absent: PLAINTEXT. */
  readonly security?: OutgoingSecurity;
}

/** A failure Kafka's completion handlers see as a disconnected or timed-out response. */
export function isNetworkFailure(e: unknown): boolean {
  return e instanceof ConnectionError || e instanceof DisconnectedError || e instanceof RequestTimeoutError;
}

interface Open {
  readonly address: string;
  readonly connection: Promise<BrokerConnection>;
}

export class InterBrokerChannel {
  private readonly conns = new Map<number, Open>();
  private closed = false;

  constructor(private readonly opts: InterBrokerChannelOptions) {}

  /** The broker's endpoint on the inter-broker listener, if it is registered with one. */
  endpointOf(brokerId: number): Endpoint | undefined {
    return this.opts.image().endpoint(brokerId, this.opts.listenerName);
  }

  /** Sends one request to broker `brokerId` and resolves with its response. */
  async send<T>(brokerId: number, api: ClientApi, body: unknown, opts: SendOptions = {}): Promise<Response<T>> {
    if (this.closed) throw new ConnectionError('The inter-broker channel is closed');
    const ep = this.endpointOf(brokerId);
    if (!ep) throw new ConnectionError(`Broker ${brokerId} has no endpoint on ${this.opts.listenerName}`);
    const address = `${ep.host}:${ep.port}`;
    let open = this.conns.get(brokerId);
    if (open && open.address !== address) {
      this.drop(brokerId, open);
      open = undefined;
    }
    if (open) {
      // a connection the other side closed while idle (connections.max.idle.ms) is replaced, not failed
      const c = await open.connection.catch(() => null);
      if (!c?.connected) {
        this.drop(brokerId, open);
        open = this.conns.get(brokerId);
      }
    }
    if (!open) {
      const c = new BrokerConnection({
        host: ep.host,
        port: ep.port,
        clientId: this.opts.clientId,
        requestTimeoutMs: this.opts.requestTimeoutMs,
        connectTimeoutMs: this.opts.connectTimeoutMs ?? Math.min(this.opts.requestTimeoutMs, 10_000),
        ...this.opts.security,
      });
      open = { address, connection: c.open().then(() => c) };
      this.conns.set(brokerId, open);
    }
    const mine = open;
    try {
      const connection = await mine.connection;
      return await connection.send<T>(api, body, opts);
    } catch (e) {
      this.drop(brokerId, mine);
      throw e;
    }
  }

  private drop(brokerId: number, open: Open): void {
    if (this.conns.get(brokerId) === open) this.conns.delete(brokerId);
    open.connection.then(
      (c) => c.close(),
      () => undefined,
    );
  }

  close(): void {
    this.closed = true;
    for (const [id, open] of [...this.conns]) this.drop(id, open);
  }
}

/**
 * A channel of this broker, as one of Kafka's `broker-<id>-<name>` NetworkClients: its latest metadata
 * image, `inter.broker.listener.name`, `request.timeout.ms` and that listener's TLS / SASL.
 */
export function brokerChannel(services: BrokerServices, name: string): InterBrokerChannel {
  const controller = metadataSourceOf(services);
  return new InterBrokerChannel({
    nodeId: services.nodeId,
    image: () => controller.image,
    listenerName: services.config.interBrokerListenerName,
    requestTimeoutMs: services.config.getInt('request.timeout.ms'),
    clientId: `broker-${services.nodeId}-${name}`,
    security: nodeOutgoingSecurity(services.config).interBroker,
  });
}
