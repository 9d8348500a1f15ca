// Public surface of the controller.
export {
  QuorumController,
  toEndpoint,
  type QuorumControllerOptions,
  type EndpointInput,
  type WriteOptions,
  type RegisterBrokerResult,
  type AllocateProducerIdsResult,
} from './quorum-controller.js';
export type {
  CreatableTopic,
  CreateTopicResult,
  DeleteTopicsRequest,
  DeleteTopicResult,
  CreatePartitionsTopic,
  CreatePartitionsResult,
} from './topics.js';
export {
  OpType,
  type ConfigValidator,
  type ConfigSchema,
  type ConfigResourceChange,
  type ConfigResourceResult,
  type AlterableConfig,
  type IncrementalAlterableConfig,
} from './configs.js';
export { PRODUCER_ID_BLOCK_SIZE } from './cluster.js';
export type { ApiError } from './errors.js';
export { invalidTopicReason, validateTopicName, isInternalTopic } from './topic-names.js';
export { randomUuid } from './uuid.js';
