// ISR changes to the active controller (Kafka's DefaultAlterPartitionManager): the leader's proposed
// ISRs (Partition.prepareIsrExpand / prepareIsrShrink) are queued, one per partition, and sent in
// one AlterPartition (one request in flight at a time) (API 56; v3: each ISR member with its broker epoch, KIP-903) at a time over the
// broker's ControllerChannel (NOT_CONTROLLER and connection failures are retried there). Each
// partition's answer goes back to the replica manager, which commits the ISR (the answered partition
// epoch) or handles the error as Partition.handleAlterPartitionError; an unexpected error, a
// top-level error or a partition missing from the response sends the change again after a backoff.
import { apiByKey } from '../../client/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
} from '../../protocol/generated/protocol/AlterPartition.js';
import type { ControllerChannel } from '../forwarding/controller-channel.js';
import { UnsupportedApiError } from '../../client/errors.js';
import type { Partition, PendingIsrChange } from './partition.js';
import type { IsrChangeSender, ReplicaManager } from './replica-manager.js';
import type { ReplicaLogger } from './types.js';

const ALTER_PARTITION = apiByKey(56)!;
const MAX_BACKOFF_MS = 10_000;

interface Item {
  partition: Partition;
  change: PendingIsrChange;
}

export interface AlterPartitionManagerOptions {
  /** wait before sending again after a failure */
  retryBackoffMs?: number;
  /** how long one send may be retried by the channel */
  retryTimeoutMs?: number;
}

export class AlterPartitionManager implements IsrChangeSender {
  /** changes waiting to be sent, by partition key (one per partition) */
  private readonly unsent = new Map<string, Item>();
  private sending = false;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly retryBackoffMs: number;
  /** sends failed in a row: the retry backoff doubles with them (up to MAX_BACKOFF_MS) */
  private failures = 0;
  private readonly retryTimeoutMs: number;
  /** requests sent (tests, logs) */
  requestsSent = 0;

  constructor(
    private readonly rm: ReplicaManager,
    private readonly channel: ControllerChannel,
    private readonly logger: ReplicaLogger,
    opts: AlterPartitionManagerOptions = {},
  ) {
    this.retryBackoffMs = opts.retryBackoffMs ?? 100;
    this.retryTimeoutMs = opts.retryTimeoutMs ?? 30_000;
  }

  /** Queues a partition's change; a newer one replaces a queued one, and waits for one in flight. */
  submit(p: Partition, change: PendingIsrChange): void {
    if (this.closed) return;
    this.unsent.set(p.key, { partition: p, change });
    this.maybeSend();
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.unsent.clear();
  }

  private maybeSend(): void {
    if (this.sending || this.closed || this.unsent.size === 0 || this.timer !== undefined) return;
    const items = [...this.unsent.values()].filter((i) => i.partition.pendingIsr === i.change && !i.partition.closed);
    this.unsent.clear();
    if (items.length === 0) return;
    this.sending = true;
    void this.send(items).finally(() => {
      this.sending = false;
      this.maybeSend();
    });
  }

  private retryLater(items: readonly Item[]): void {
    for (const i of items) if (!this.unsent.has(i.partition.key)) this.unsent.set(i.partition.key, i);
    if (this.timer !== undefined || this.closed) return;
    const backoff = Math.min(MAX_BACKOFF_MS, this.retryBackoffMs * 2 ** Math.min(this.failures, 20));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.maybeSend();
    }, backoff);
    this.timer.unref?.();
  }

  /** v3 (ISR members with broker epochs) unless the controller is known to stop at v2 (newIsr). */
  private version(): number {
    const range = this.channel.activeControllerApiVersions?.get(ALTER_PARTITION.key);
    return range !== undefined && range.maxVersion < 3 ? 2 : 3;
  }

  private request(items: readonly Item[], version: number): Input<AlterPartitionRequest> {
    const byTopic = new Map<string, Item[]>();
    for (const i of items) byTopic.set(i.partition.topicId, [...(byTopic.get(i.partition.topicId) ?? []), i]);
    return {
      brokerId: this.rm.nodeId,
      brokerEpoch: BigInt(this.rm.localBrokerEpoch()),
      topics: [...byTopic].map(([topicId, list]) => ({
        topicId,
        partitions: list.map(({ partition, change }) => ({
          partitionIndex: partition.index,
          leaderEpoch: change.leaderEpoch,
          newIsr: version < 3 ? change.sent.map((m) => m.brokerId) : [],
          newIsrWithEpochs:
            version >= 3 ? change.sent.map((m) => ({ brokerId: m.brokerId, brokerEpoch: BigInt(m.brokerEpoch) })) : [],
          leaderRecoveryState: 0,
          partitionEpoch: change.partitionEpoch,
        })),
      })),
    };
  }

  private async send(items: readonly Item[]): Promise<void> {
    let res;
    try {
      this.requestsSent++;
      const version = this.version();
      res = await this.channel.send<AlterPartitionResponse>(ALTER_PARTITION, this.request(items, version), {
        version,
        retryTimeoutMs: this.retryTimeoutMs,
        isNotController: (b) => b.errorCode === ErrorCode.NOT_CONTROLLER,
      });
    } catch (e) {
      if (this.closed) return;
      this.failures++;
      if (this.failures === 1 || this.failures % 20 === 0)
        this.logger.warn(
          `AlterPartition for ${items.length} partition(s) failed (${this.failures} in a row): ${(e as Error)?.message ?? String(e)}`,
        );
      if (e instanceof UnsupportedApiError) {
        // a controller without AlterPartition: the changes were not attempted, the ISR stays as committed
        for (const i of items)
          this.rm.completeIsrChange(i.partition, i.change, { errorCode: ErrorCode.OPERATION_NOT_ATTEMPTED }, true);
        return;
      }
      this.retryLater(items);
      return;
    }
    const body = res.body;
    if (body.errorCode !== ErrorCode.NONE) {
      this.failures++;
      this.logger.warn(`AlterPartition failed with error ${body.errorCode}: sending again`);
      this.retryLater(items);
      return;
    }
    this.failures = 0;
    const answers = new Map<string, AlterPartitionResponse['topics'][number]['partitions'][number]>();
    for (const t of body.topics) for (const pd of t.partitions) answers.set(`${t.topicId}:${pd.partitionIndex}`, pd);
    const again: Item[] = [];
    for (const i of items) {
      const pd = answers.get(`${i.partition.topicId}:${i.partition.index}`);
      const retry = this.rm.completeIsrChange(
        i.partition,
        i.change,
        pd
          ? {
              errorCode: pd.errorCode,
              leaderEpoch: pd.leaderEpoch,
              partitionEpoch: pd.partitionEpoch,
              isr: pd.isr,
            }
          : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR },
      );
      if (retry) again.push(i);
    }
    if (again.length > 0) this.retryLater(again);
  }
}
