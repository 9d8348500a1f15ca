// The active controller seen from a broker-only node (process.roles=broker): the metadata comes from
// the quorum (the observer's loader), client controller APIs are forwarded in Envelopes
// (ForwardingManager), topics the broker creates itself go to the controller as CreateTopics
// (AutoTopicCreationManager), and producer id blocks come from AllocateProducerIds with this broker's
// id and epoch (RPCProducerIdManager). Everything travels over one ControllerChannel.
import { apiByKey } from '../../client/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { AllocateProducerIdsResponse } from '../../protocol/generated/protocol/AllocateProducerIds.js';
import type { CreateTopicsResponse } from '../../protocol/generated/protocol/CreateTopics.js';
import type { CreatableTopic } from '../controller/topics.js';
import type { AllocateProducerIdsResult } from '../controller/quorum-controller.js';
import type { MetadataSource, RemoteController } from '../services.js';
import { ControllerChannelTimeoutError, type ControllerChannel } from './controller-channel.js';
import type { ForwardingManager } from './forwarding-manager.js';

const CREATE_TOPICS = apiByKey(ApiKey.CreateTopics)!;
const ALLOCATE_PRODUCER_IDS = apiByKey(ApiKey.AllocateProducerIds)!;

export interface RemoteControllerOptions {
  readonly nodeId: number;
  /** The broker epoch of the current registration (BrokerLifecycleManager), -1 before it. */
  readonly brokerEpoch: () => bigint;
  readonly requestTimeoutMs: number;
}

export class RemoteControllerClient implements RemoteController {
  constructor(
    readonly metadata: MetadataSource,
    readonly forwarding: ForwardingManager,
    private readonly channel: ControllerChannel,
    private readonly opts: RemoteControllerOptions,
  ) {}

  async createTopics(topics: readonly CreatableTopic[]): Promise<void> {
    await this.channel.send<CreateTopicsResponse>(
      CREATE_TOPICS,
      {
        topics: topics.map((t) => ({
          name: t.name,
          numPartitions: t.numPartitions,
          replicationFactor: t.replicationFactor,
          assignments: (t.assignments ?? []).map((a) => ({
            partitionIndex: a.partitionIndex,
            brokerIds: [...a.brokerIds],
          })),
          configs: (t.configs ?? []).map((c) => ({ name: c.name, value: c.value })),
        })),
        timeoutMs: this.opts.requestTimeoutMs,
        validateOnly: false,
      },
      {
        retryTimeoutMs: this.opts.requestTimeoutMs,
        isNotController: (b) => b.topics.some((t) => t.errorCode === ErrorCode.NOT_CONTROLLER),
      },
    );
  }

  async allocateProducerIds(): Promise<AllocateProducerIdsResult> {
    try {
      const { body } = await this.channel.send<AllocateProducerIdsResponse>(
        ALLOCATE_PRODUCER_IDS,
        { brokerId: this.opts.nodeId, brokerEpoch: this.opts.brokerEpoch() },
        {
          retryTimeoutMs: this.opts.requestTimeoutMs,
          isNotController: (b) => b.errorCode === ErrorCode.NOT_CONTROLLER,
        },
      );
      return {
        errorCode: body.errorCode,
        errorMessage: null,
        producerIdStart: body.producerIdStart,
        producerIdLen: body.producerIdLen,
      };
    } catch (e) {
      if (!(e instanceof ControllerChannelTimeoutError)) throw e;
      return {
        errorCode: ErrorCode.REQUEST_TIMED_OUT,
        errorMessage: e.message,
        producerIdStart: -1n,
        producerIdLen: 0,
      };
    }
  }
}
