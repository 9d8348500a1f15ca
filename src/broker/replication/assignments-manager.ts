// The broker side of KIP-858 directory assignments: Kafka 4.4's AssignmentsManager. A replica created
// in, or moved to, a log dir is queued as (topic id, partition) → dir id; queued assignments are sent
// to the active controller in AssignReplicasToDirs requests (at most MAX_ASSIGNMENTS_PER_REQUEST
// each, one in flight), an assignment whose partition no longer exists or no longer has this broker
// as a replica is dropped (Assignment.valid), and a failed one is queued again (unless a newer one
// for the same partition replaced it) and retried after an exponential backoff (100 ms × 2^n, at
// most 10 s: AssignmentsManager.STANDARD_BACKOFF). Kafka's error lines are kept.
//
// Hooks: ReplicaManager.maybeUpdateTopicAssignment (the metadata names another dir than the one the
// log is in) is `partitionPublisher` in broker-server.ts; a future log promoted by
// AlterReplicaLogDirs calls `onAssignment` through LogManager's `onReplicaDirChanged`.
import { apiByKey } from '../../client/apis.js';
import { ErrorCode, errorName } from '../../protocol/errors.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  AssignReplicasToDirsRequest,
  AssignReplicasToDirsResponse,
} from '../../protocol/generated/protocol/AssignReplicasToDirs.js';
import type { ControllerChannel } from '../forwarding/controller-channel.js';
import type { MetadataImage } from '../metadata/image.js';

/** AssignReplicasToDirsRequest.MAX_ASSIGNMENTS_PER_REQUEST. */
export const MAX_ASSIGNMENTS_PER_REQUEST = 2250;
/** AssignmentsManager.MIN_NOISY_FAILURE_INTERVAL_NS (2 minutes). */
const MIN_NOISY_FAILURE_INTERVAL_MS = 120_000;
const BACKOFF_INITIAL_MS = 100;
const BACKOFF_MAX_MS = 10_000;

const ASSIGN_REPLICAS_TO_DIRS = apiByKey(ApiKey.AssignReplicasToDirs)!;

export interface Assignment {
  readonly topicId: string;
  readonly partition: number;
  readonly directoryId: string;
  readonly reason: string;
  readonly submissionTimeMs: number;
  readonly onSuccess: () => void;
}

export interface AssignmentsManagerOptions {
  readonly nodeId: number;
  /** The current broker epoch (BrokerLifecycleManager.brokerEpoch); -1 before registration. */
  readonly brokerEpoch: () => bigint;
  readonly channel: Pick<ControllerChannel, 'send'>;
  readonly image: () => MetadataImage;
  /** Retry deadline of one request (the channel's request timeout). */
  readonly requestTimeoutMs: number;
  readonly logger?: { info(m: string): void; error(m: string): void };
  readonly now?: () => number;
}

const key = (topicId: string, partition: number): string => `${topicId}:${partition}`;

export class AssignmentsManager {
  private readonly ready = new Map<string, Assignment>();
  private inflight = new Map<string, Assignment>();
  private previousGlobalFailures = 0;
  private timer: NodeJS.Timeout | null = null;
  private sending = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly opts: AssignmentsManagerOptions) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** AssignmentsManager.onAssignment: queues (replacing a queued one for the same partition) and sends soon. */
  onAssignment(
    topicId: string,
    partition: number,
    directoryId: string,
    reason: string,
    onSuccess = (): void => {},
  ): void {
    if (this.closed) return;
    this.ready.set(key(topicId, partition), {
      topicId,
      partition,
      directoryId,
      reason,
      submissionTimeMs: this.now(),
      onSuccess,
    });
    this.schedule(0);
  }

  /** Queued plus in-flight assignments (Kafka's QueuedReplicaToDirAssignments metric). */
  get numPending(): number {
    return this.ready.size + this.inflight.size;
  }

  /** Resolves once nothing is queued or in flight. Tests. */
  idle(): Promise<void> {
    if (this.numPending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.sending) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.maybeSend();
    }, delayMs);
    this.timer.unref();
  }

  /** AssignmentsManagerDeadlineFunction: 0 after success, else the backoff of the consecutive global failures. */
  private nextDelayMs(): number {
    if (this.previousGlobalFailures === 0) return 0;
    return Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** (this.previousGlobalFailures - 1));
  }

  private async maybeSend(): Promise<void> {
    if (this.closed || this.sending) return;
    const brokerEpoch = this.opts.brokerEpoch();
    if (brokerEpoch < 0n) {
      if (this.ready.size > 0) this.schedule(BACKOFF_INITIAL_MS);
      return;
    }
    const image = this.opts.image();
    const batch = new Map<string, Assignment>();
    for (const [k, a] of this.ready) {
      if (batch.size >= MAX_ASSIGNMENTS_PER_REQUEST) break;
      this.ready.delete(k);
      if (this.valid(a, image)) batch.set(k, a);
      else
        this.opts.logger?.info(
          `Dropping assignment ${a.topicId}:${a.partition} to ${a.directoryId} because it is no longer valid.`,
        );
    }
    if (batch.size === 0) return this.notifyIdle();
    this.inflight = batch;
    this.sending = true;
    let res: AssignReplicasToDirsResponse | null = null;
    let globalError: string | null = null;
    try {
      res = (
        await this.opts.channel.send<AssignReplicasToDirsResponse>(
          ASSIGN_REPLICAS_TO_DIRS,
          buildRequest(this.opts.nodeId, brokerEpoch, batch),
          {
            retryTimeoutMs: this.opts.requestTimeoutMs,
            isNotController: (b) => b.errorCode === ErrorCode.NOT_CONTROLLER,
          },
        )
      ).body;
      if (res.errorCode !== ErrorCode.NONE) globalError = errorName(res.errorCode);
    } catch (e) {
      globalError = (e as Error).message;
    }
    this.sending = false;
    this.inflight = new Map();
    if (this.closed) return;
    if (globalError !== null || !res) {
      this.opts.logger?.error(
        `handleResponse: ${batch.size} assignments failed; global error: ${globalError}. Retrying.`,
      );
      for (const [k, a] of batch) if (!this.ready.has(k)) this.ready.set(k, a);
      this.previousGlobalFailures++;
    } else {
      this.previousGlobalFailures = 0;
      this.handleResponse(batch, res);
    }
    if (this.ready.size > 0) this.schedule(this.nextDelayMs());
    else this.notifyIdle();
  }

  private handleResponse(sent: Map<string, Assignment>, res: AssignReplicasToDirsResponse): void {
    const seen = new Set<string>();
    for (const dir of res.directories) {
      for (const t of dir.topics) {
        for (const p of t.partitions) {
          const k = key(t.topicId, p.partitionIndex);
          seen.add(k);
          const a = sent.get(k);
          if (!a) {
            this.opts.logger?.error(
              `handleResponse: response contained topicIdPartition ${k}, but this was not in the request.`,
            );
          } else if (p.errorCode === ErrorCode.NONE) {
            try {
              a.onSuccess();
            } catch (e) {
              this.opts.logger?.error(`handleResponse: unexpected callback exception ${(e as Error).message}`);
            }
          } else {
            if (!this.ready.has(k)) this.ready.set(k, a);
            if (this.now() > a.submissionTimeMs + MIN_NOISY_FAILURE_INTERVAL_MS)
              this.opts.logger?.error(`handleResponse: error assigning ${k}: ${errorName(p.errorCode)}.`);
          }
        }
      }
    }
    for (const [k, a] of sent) {
      if (seen.has(k)) continue;
      this.opts.logger?.error(`handleResponse: no result in response for partition ${k}.`);
      if (!this.ready.has(k)) this.ready.set(k, a);
    }
  }

  /** Assignment.valid: the topic and partition exist and this broker is one of its replicas. */
  private valid(a: Assignment, image: MetadataImage): boolean {
    const p = image.topicsById.get(a.topicId)?.partitions.get(a.partition);
    return p !== undefined && p.replicas.includes(this.opts.nodeId);
  }

  private notifyIdle(): void {
    if (this.numPending > 0) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }
}

/** AssignmentsManager.buildRequestData: grouped by directory, then topic. */
function buildRequest(
  brokerId: number,
  brokerEpoch: bigint,
  assignments: ReadonlyMap<string, Assignment>,
): AssignReplicasToDirsRequest {
  const dirs = new Map<string, Map<string, number[]>>();
  for (const a of assignments.values()) {
    const topics = dirs.get(a.directoryId) ?? new Map<string, number[]>();
    dirs.set(a.directoryId, topics);
    const parts = topics.get(a.topicId) ?? [];
    topics.set(a.topicId, parts);
    parts.push(a.partition);
  }
  return {
    brokerId,
    brokerEpoch,
    directories: [...dirs].map(([id, topics]) => ({
      id,
      topics: [...topics].map(([topicId, parts]) => ({
        topicId,
        partitions: parts.map((partitionIndex) => ({ partitionIndex })),
      })),
    })),
  };
}
