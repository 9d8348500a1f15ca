// A voter's UpdateRaftVoter to the leader it follows (KafkaRaftClient.pollFollowerAsVoter and
// shouldSendUpdateVoteRequest): once the update period (controller.quorum.fetch.timeout.ms) of the
// epoch has passed, a voter sends its controller endpoints and supported kraft.version range
//   - with kraft.version 0, once per epoch (the leader keeps them in memory);
//   - with kraft.version 1, whenever the latest VotersRecord holds other endpoints or another range
//     for it (a controller restarted on another address), so the leader writes a new VotersRecord.
// An answer of NONE or UNSUPPORTED_VERSION ends it for the epoch (FollowerState.setHasUpdatedLeader);
// any other answer or a transport failure is retried after the period. Runs beside the follower's
// fetches and never blocks them.

import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import type { RaftChannel } from './channel.js';
import type { RaftEndpoint } from './types.js';
import type { Logger } from './logger.js';

/** The kraft.version range this node supports (KRaftVersion 0 and 1). */
export const SUPPORTED_KRAFT_VERSIONS = { minSupportedVersion: 0, maxSupportedVersion: 1 } as const;

export interface LocalVoter {
  readonly id: number;
  readonly directoryId: string;
  readonly endpoints: readonly RaftEndpoint[];
}

/** VoterSet.voterNodeNeedsUpdate: the record has this voter (same directory id) with other endpoints or range. */
export function voterNodeNeedsUpdate(record: VotersRecord | null, local: LocalVoter): boolean {
  const v = record?.voters.find((x) => x.voterId === local.id);
  if (!v || v.voterDirectoryId !== local.directoryId) return false;
  const sameEndpoints =
    v.endpoints.length === local.endpoints.length &&
    local.endpoints.every((e) => v.endpoints.some((x) => x.name === e.name && x.host === e.host && x.port === e.port));
  const sameRange =
    v.kRaftVersionFeature.minSupportedVersion === SUPPORTED_KRAFT_VERSIONS.minSupportedVersion &&
    v.kRaftVersionFeature.maxSupportedVersion === SUPPORTED_KRAFT_VERSIONS.maxSupportedVersion;
  return !sameEndpoints || !sameRange;
}

export interface VoterUpdaterOptions {
  readonly channel: RaftChannel;
  readonly clusterId: string;
  readonly local: () => LocalVoter;
  /** controller.quorum.fetch.timeout.ms (FollowerState.updateVoterPeriodMs). */
  readonly periodMs: number;
  readonly now: () => number;
  readonly logger: Logger;
}

/** The state of the current epoch: whether the leader has this voter's details, and when to try next. */
export class VoterUpdater {
  private epoch = -1;
  private updated = false;
  private nextAt = 0;
  private inFlight = false;

  constructor(private readonly opts: VoterUpdaterOptions) {}

  /** After a successful fetch from `leaderId` in `epoch`, as a voter. */
  onFetched(leaderId: number, epoch: number, kraftVersion: number, record: VotersRecord | null): void {
    const now = this.opts.now();
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.updated = false;
      this.nextAt = now + this.opts.periodMs;
    }
    if (this.inFlight || now < this.nextAt) return;
    this.nextAt = now + this.opts.periodMs;
    const local = this.opts.local();
    const should = kraftVersion >= 1 ? voterNodeNeedsUpdate(record, local) : !this.updated;
    if (should) void this.send(leaderId, epoch, local);
  }

  private async send(leaderId: number, epoch: number, local: LocalVoter): Promise<void> {
    this.inFlight = true;
    try {
      const r = await this.opts.channel.send<{ errorCode: number }>({ voterId: leaderId }, ApiKey.UpdateRaftVoter, {
        clusterId: this.opts.clusterId,
        currentLeaderEpoch: epoch,
        voterId: local.id,
        voterDirectoryId: local.directoryId,
        listeners: local.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
        kRaftVersionFeature: { ...SUPPORTED_KRAFT_VERSIONS },
      });
      const code = r.body.errorCode;
      // UNSUPPORTED_VERSION: a leader that cannot change voters (KafkaRaftClient.handleUpdateVoterResponse)
      if (code === ErrorCode.NONE || code === ErrorCode.UNSUPPORTED_VERSION) {
        if (epoch === this.epoch) this.updated = true;
      } else this.opts.logger.info(`UpdateRaftVoter to leader ${leaderId} in epoch ${epoch}: error ${code}`);
    } catch (e) {
      this.opts.logger.info(`UpdateRaftVoter to leader ${leaderId} failed: ${(e as Error).message}`);
    } finally {
      this.inFlight = false;
    }
  }
}
