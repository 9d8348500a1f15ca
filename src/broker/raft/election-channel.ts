// Outbound election RPCs (Vote, BeginQuorumEpoch, EndQuorumEpoch) as the raft client sends them:
// RaftSender is the seam the client codes against (tests can give their own); ChannelRaftSender
// sends over A2's RaftChannel (raft/channel.ts: one BrokerConnection per node, ApiVersions
// negotiation, `controller.quorum.request.timeout.ms`, retry backoff) and turns failures into data.

import { UnsupportedApiError } from '../../client/errors.js';
import type { RaftChannel } from './channel.js';

export interface RaftDestination {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

/** The outcome of one request: the decoded response, or why there is none. */
export type RaftSendResult<T> =
  | { readonly ok: true; readonly version: number; readonly body: T }
  | { readonly ok: false; readonly unsupportedVersion: boolean; readonly error: string };

export interface RaftSender {
  /** Sends with the highest version both sides support, at least `minVersion`. */
  send<T>(to: RaftDestination, apiKey: number, body: unknown, minVersion?: number): Promise<RaftSendResult<T>>;
  close(): void;
}

export class ChannelRaftSender implements RaftSender {
  constructor(private readonly channel: RaftChannel) {}

  async send<T>(to: RaftDestination, apiKey: number, body: unknown, minVersion = 0): Promise<RaftSendResult<T>> {
    try {
      const r = await this.channel.send<T>({ host: to.host, port: to.port }, apiKey, body, { minVersion });
      return { ok: true, version: r.version, body: r.body };
    } catch (e) {
      return { ok: false, unsupportedVersion: e instanceof UnsupportedApiError, error: (e as Error).message };
    }
  }

  close(): void {
    this.channel.close();
  }
}
