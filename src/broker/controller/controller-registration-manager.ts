// Registers this controller with the active controller when another node is active (Kafka's
// ControllerRegistrationManager): once the metadata this node has applied supports controller
// registrations (metadata.version 3.7-IV0+) and does not hold a registration of this incarnation,
// a ControllerRegistration request goes to the quorum leader's controller listener; on an error or
// a lost connection it is retried after a backoff, and it stops once the RegisterControllerRecord
// of this incarnation is in the image. When this node is the active controller it registers itself
// directly as it activates (QuorumController.activate), so nothing is sent.
//
// Driven by a timer (bounded work per tick: at most one request in flight), unref'd, stopped by close().

import { ApiKey } from '../../protocol/generated/apis.js';
import type { ControllerRegistrationResponse } from '../../protocol/generated/protocol/ControllerRegistration.js';
import { mv } from '../metadata/features.js';
import type { Endpoint, MetadataImage, VersionRange } from '../metadata/image.js';
import { RaftChannel } from '../raft/channel.js';
import type { Quorum } from '../raft/types.js';
import type { OutgoingSecurity } from '../security/outgoing.js';

export interface ControllerRegistrationManagerOptions {
  readonly nodeId: number;
  readonly incarnationId: string;
  /** This controller's advertised controller listeners (the first one's name is where requests go). */
  readonly listeners: readonly Endpoint[];
  readonly features: ReadonlyMap<string, VersionRange>;
  readonly quorum: Quorum;
  readonly image: () => MetadataImage;
  /** controller.quorum.request.timeout.ms. */
  readonly requestTimeoutMs: number;
  /** Pause after a failed attempt (Kafka's ControllerRegistrationManager backs off similarly). */
  readonly retryBackoffMs: number;
  readonly log: (level: 'INFO' | 'WARN', msg: string) => void;
  /** TLS / SASL of connections to the controller listener (security/outgoing.ts); absent: PLAINTEXT. */
  readonly security?: OutgoingSecurity;
}

/** How often the manager looks at the image and the leader. */
const TICK_MS = 200;

export class ControllerRegistrationManager {
  private readonly channel: RaftChannel;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;
  private notBefore = 0;
  private closed = false;

  constructor(private readonly opts: ControllerRegistrationManagerOptions) {
    this.channel = new RaftChannel({
      nodeId: opts.nodeId,
      listenerName: opts.listeners[0]?.name ?? 'CONTROLLER',
      requestTimeoutMs: opts.requestTimeoutMs,
      retryBackoffMs: opts.retryBackoffMs,
      security: opts.security,
    });
  }

  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  /** The image holds this incarnation's registration. */
  registered(): boolean {
    return this.opts.image().controllers.get(this.opts.nodeId)?.incarnationId === this.opts.incarnationId;
  }

  private tick(): void {
    if (this.closed || this.inFlight || Date.now() < this.notBefore) return;
    const q = this.opts.quorum;
    const leaderId = q.leaderAndEpoch.leaderId;
    if (leaderId < 0 || leaderId === this.opts.nodeId) return;
    const image = this.opts.image();
    if (!mv.isControllerRegistrationSupported(image.metadataVersion) || this.registered()) return;
    const voter = q.voters.find((v) => v.id === leaderId);
    const listener = this.opts.listeners[0]?.name.toUpperCase();
    const e = voter?.endpoints.find((x) => x.name.toUpperCase() === listener) ?? voter?.endpoints[0];
    if (!e) return;
    this.inFlight = true;
    void this.send(leaderId, e.host, e.port).finally(() => {
      this.inFlight = false;
    });
  }

  private async send(leaderId: number, host: string, port: number): Promise<void> {
    const body = {
      controllerId: this.opts.nodeId,
      incarnationId: this.opts.incarnationId,
      zkMigrationReady: false,
      listeners: this.opts.listeners.map((l) => ({
        name: l.name,
        host: l.host,
        port: l.port,
        securityProtocol: l.securityProtocol,
      })),
      features: [...this.opts.features].map(([name, r]) => ({
        name,
        minSupportedVersion: r.min,
        maxSupportedVersion: r.max,
      })),
    };
    try {
      const r = await this.channel.send<ControllerRegistrationResponse>(
        { host, port },
        ApiKey.ControllerRegistration,
        body,
      );
      if (r.body.errorCode !== 0) {
        this.opts.log(
          'WARN',
          `RegistrationResponseHandler: failed to register with controller ${leaderId}: error ${r.body.errorCode} ${r.body.errorMessage ?? ''}`.trim(),
        );
        this.notBefore = Date.now() + this.opts.retryBackoffMs;
        return;
      }
      this.opts.log('INFO', `Our registration has been persisted to the metadata log by controller ${leaderId}.`);
      // wait for the record to reach this node's image before asking again
      this.notBefore = Date.now() + Math.max(this.opts.requestTimeoutMs, 1000);
    } catch (e) {
      this.notBefore = Date.now() + this.opts.retryBackoffMs;
      if (!this.closed)
        this.opts.log('WARN', `Unable to register with controller ${leaderId}: ${(e as Error).message}`);
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.channel.close();
  }
}
