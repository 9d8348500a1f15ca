// Kafka's error codes: name, code, whether the client may retry, and the default message.
// Taken from Apache Kafka's clients/.../common/protocol/Errors.java (4.0.0-SNAPSHOT, commit 1eb7644);
// 'retriable' is true where the error's exception class extends RetriableException.

export interface KafkaErrorInfo {
  readonly code: number;
  readonly name: string;
  readonly retriable: boolean;
  readonly message: string;
}

export const ERROR_TABLE: readonly KafkaErrorInfo[] = [
  {
    code: -1,
    name: 'UNKNOWN_SERVER_ERROR',
    retriable: false,
    message: 'The server experienced an unexpected error when processing the request.',
  },
  { code: 0, name: 'NONE', retriable: false, message: '' },
  {
    code: 1,
    name: 'OFFSET_OUT_OF_RANGE',
    retriable: false,
    message: 'The requested offset is not within the range of offsets maintained by the server.',
  },
  {
    code: 2,
    name: 'CORRUPT_MESSAGE',
    retriable: true,
    message:
      'This message has failed its CRC checksum, exceeds the valid size, has a null key for a compacted topic, or is otherwise corrupt.',
  },
  {
    code: 3,
    name: 'UNKNOWN_TOPIC_OR_PARTITION',
    retriable: true,
    message: 'This server does not host this topic-partition.',
  },
  { code: 4, name: 'INVALID_FETCH_SIZE', retriable: false, message: 'The requested fetch size is invalid.' },
  {
    code: 5,
    name: 'LEADER_NOT_AVAILABLE',
    retriable: true,
    message: 'There is no leader for this topic-partition as we are in the middle of a leadership election.',
  },
  {
    code: 6,
    name: 'NOT_LEADER_OR_FOLLOWER',
    retriable: true,
    message:
      'For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.',
  },
  { code: 7, name: 'REQUEST_TIMED_OUT', retriable: true, message: 'The request timed out.' },
  { code: 8, name: 'BROKER_NOT_AVAILABLE', retriable: false, message: 'The broker is not available.' },
  {
    code: 9,
    name: 'REPLICA_NOT_AVAILABLE',
    retriable: true,
    message:
      'The replica is not available for the requested topic-partition. Produce/Fetch requests and other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if the broker is not a replica of the topic-partition.',
  },
  {
    code: 10,
    name: 'MESSAGE_TOO_LARGE',
    retriable: false,
    message: 'The request included a message larger than the max message size the server will accept.',
  },
  { code: 11, name: 'STALE_CONTROLLER_EPOCH', retriable: false, message: 'The controller moved to another broker.' },
  {
    code: 12,
    name: 'OFFSET_METADATA_TOO_LARGE',
    retriable: false,
    message: 'The metadata field of the offset request was too large.',
  },
  {
    code: 13,
    name: 'NETWORK_EXCEPTION',
    retriable: true,
    message: 'The server disconnected before a response was received.',
  },
  {
    code: 14,
    name: 'COORDINATOR_LOAD_IN_PROGRESS',
    retriable: true,
    message: "The coordinator is loading and hence can't process requests.",
  },
  { code: 15, name: 'COORDINATOR_NOT_AVAILABLE', retriable: true, message: 'The coordinator is not available.' },
  { code: 16, name: 'NOT_COORDINATOR', retriable: true, message: 'This is not the correct coordinator.' },
  {
    code: 17,
    name: 'INVALID_TOPIC_EXCEPTION',
    retriable: false,
    message: 'The request attempted to perform an operation on an invalid topic.',
  },
  {
    code: 18,
    name: 'RECORD_LIST_TOO_LARGE',
    retriable: false,
    message: 'The request included message batch larger than the configured segment size on the server.',
  },
  {
    code: 19,
    name: 'NOT_ENOUGH_REPLICAS',
    retriable: true,
    message: 'Messages are rejected since there are fewer in-sync replicas than required.',
  },
  {
    code: 20,
    name: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
    retriable: true,
    message: 'Messages are written to the log, but to fewer in-sync replicas than required.',
  },
  {
    code: 21,
    name: 'INVALID_REQUIRED_ACKS',
    retriable: false,
    message: 'Produce request specified an invalid value for required acks.',
  },
  { code: 22, name: 'ILLEGAL_GENERATION', retriable: false, message: 'Specified group generation id is not valid.' },
  {
    code: 23,
    name: 'INCONSISTENT_GROUP_PROTOCOL',
    retriable: false,
    message:
      "The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.",
  },
  { code: 24, name: 'INVALID_GROUP_ID', retriable: false, message: 'The configured groupId is invalid.' },
  { code: 25, name: 'UNKNOWN_MEMBER_ID', retriable: false, message: 'The coordinator is not aware of this member.' },
  {
    code: 26,
    name: 'INVALID_SESSION_TIMEOUT',
    retriable: false,
    message:
      'The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).',
  },
  {
    code: 27,
    name: 'REBALANCE_IN_PROGRESS',
    retriable: false,
    message: 'The group is rebalancing, so a rejoin is needed.',
  },
  {
    code: 28,
    name: 'INVALID_COMMIT_OFFSET_SIZE',
    retriable: false,
    message: 'The committing offset data size is not valid.',
  },
  { code: 29, name: 'TOPIC_AUTHORIZATION_FAILED', retriable: false, message: 'Topic authorization failed.' },
  { code: 30, name: 'GROUP_AUTHORIZATION_FAILED', retriable: false, message: 'Group authorization failed.' },
  { code: 31, name: 'CLUSTER_AUTHORIZATION_FAILED', retriable: false, message: 'Cluster authorization failed.' },
  {
    code: 32,
    name: 'INVALID_TIMESTAMP',
    retriable: false,
    message: 'The timestamp of the message is out of acceptable range.',
  },
  {
    code: 33,
    name: 'UNSUPPORTED_SASL_MECHANISM',
    retriable: false,
    message: 'The broker does not support the requested SASL mechanism.',
  },
  {
    code: 34,
    name: 'ILLEGAL_SASL_STATE',
    retriable: false,
    message: 'Request is not valid given the current SASL state.',
  },
  { code: 35, name: 'UNSUPPORTED_VERSION', retriable: false, message: 'The version of API is not supported.' },
  { code: 36, name: 'TOPIC_ALREADY_EXISTS', retriable: false, message: 'Topic with this name already exists.' },
  { code: 37, name: 'INVALID_PARTITIONS', retriable: false, message: 'Number of partitions is below 1.' },
  {
    code: 38,
    name: 'INVALID_REPLICATION_FACTOR',
    retriable: false,
    message: 'Replication factor is below 1 or larger than the number of available brokers.',
  },
  { code: 39, name: 'INVALID_REPLICA_ASSIGNMENT', retriable: false, message: 'Replica assignment is invalid.' },
  { code: 40, name: 'INVALID_CONFIG', retriable: false, message: 'Configuration is invalid.' },
  {
    code: 41,
    name: 'NOT_CONTROLLER',
    retriable: true,
    message: 'This is not the correct controller for this cluster.',
  },
  {
    code: 42,
    name: 'INVALID_REQUEST',
    retriable: false,
    message:
      'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
  },
  {
    code: 43,
    name: 'UNSUPPORTED_FOR_MESSAGE_FORMAT',
    retriable: false,
    message: 'The message format version on the broker does not support the request.',
  },
  {
    code: 44,
    name: 'POLICY_VIOLATION',
    retriable: false,
    message: 'Request parameters do not satisfy the configured policy.',
  },
  {
    code: 45,
    name: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
    retriable: false,
    message: 'The broker received an out of order sequence number.',
  },
  {
    code: 46,
    name: 'DUPLICATE_SEQUENCE_NUMBER',
    retriable: false,
    message: 'The broker received a duplicate sequence number.',
  },
  {
    code: 47,
    name: 'INVALID_PRODUCER_EPOCH',
    retriable: false,
    message: 'Producer attempted to produce with an old epoch.',
  },
  {
    code: 48,
    name: 'INVALID_TXN_STATE',
    retriable: false,
    message: 'The producer attempted a transactional operation in an invalid state.',
  },
  {
    code: 49,
    name: 'INVALID_PRODUCER_ID_MAPPING',
    retriable: false,
    message: 'The producer attempted to use a producer id which is not currently assigned to its transactional id.',
  },
  {
    code: 50,
    name: 'INVALID_TRANSACTION_TIMEOUT',
    retriable: false,
    message:
      'The transaction timeout is larger than the maximum value allowed by the broker (as configured by transaction.max.timeout.ms).',
  },
  {
    code: 51,
    name: 'CONCURRENT_TRANSACTIONS',
    retriable: true,
    message:
      'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing.',
  },
  {
    code: 52,
    name: 'TRANSACTION_COORDINATOR_FENCED',
    retriable: false,
    message:
      'Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer.',
  },
  {
    code: 53,
    name: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
    retriable: false,
    message: 'Transactional Id authorization failed.',
  },
  { code: 54, name: 'SECURITY_DISABLED', retriable: false, message: 'Security features are disabled.' },
  {
    code: 55,
    name: 'OPERATION_NOT_ATTEMPTED',
    retriable: false,
    message:
      'The broker did not attempt to execute this operation. This may happen for batched RPCs where some operations in the batch failed, causing the broker to respond without trying the rest.',
  },
  {
    code: 56,
    name: 'KAFKA_STORAGE_ERROR',
    retriable: true,
    message: 'Disk error when trying to access log file on the disk.',
  },
  {
    code: 57,
    name: 'LOG_DIR_NOT_FOUND',
    retriable: false,
    message: 'The user-specified log directory is not found in the broker config.',
  },
  { code: 58, name: 'SASL_AUTHENTICATION_FAILED', retriable: false, message: 'SASL Authentication failed.' },
  {
    code: 59,
    name: 'UNKNOWN_PRODUCER_ID',
    retriable: false,
    message:
      "This exception is raised by the broker if it could not locate the producer metadata associated with the producerId in question. This could happen if, for instance, the producer's records were deleted because their retention time had elapsed. Once the last records of the producerId are removed, the producer's metadata is removed from the broker, and future appends by the producer will return this exception.",
  },
  { code: 60, name: 'REASSIGNMENT_IN_PROGRESS', retriable: false, message: 'A partition reassignment is in progress.' },
  {
    code: 61,
    name: 'DELEGATION_TOKEN_AUTH_DISABLED',
    retriable: false,
    message: 'Delegation Token feature is not enabled.',
  },
  {
    code: 62,
    name: 'DELEGATION_TOKEN_NOT_FOUND',
    retriable: false,
    message: 'Delegation Token is not found on server.',
  },
  {
    code: 63,
    name: 'DELEGATION_TOKEN_OWNER_MISMATCH',
    retriable: false,
    message: 'Specified Principal is not valid Owner/Renewer.',
  },
  {
    code: 64,
    name: 'DELEGATION_TOKEN_REQUEST_NOT_ALLOWED',
    retriable: false,
    message:
      'Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on delegation token authenticated channels.',
  },
  {
    code: 65,
    name: 'DELEGATION_TOKEN_AUTHORIZATION_FAILED',
    retriable: false,
    message: 'Delegation Token authorization failed.',
  },
  { code: 66, name: 'DELEGATION_TOKEN_EXPIRED', retriable: false, message: 'Delegation Token is expired.' },
  { code: 67, name: 'INVALID_PRINCIPAL_TYPE', retriable: false, message: 'Supplied principalType is not supported.' },
  { code: 68, name: 'NON_EMPTY_GROUP', retriable: false, message: 'The group is not empty.' },
  { code: 69, name: 'GROUP_ID_NOT_FOUND', retriable: false, message: 'The group id does not exist.' },
  { code: 70, name: 'FETCH_SESSION_ID_NOT_FOUND', retriable: true, message: 'The fetch session ID was not found.' },
  { code: 71, name: 'INVALID_FETCH_SESSION_EPOCH', retriable: true, message: 'The fetch session epoch is invalid.' },
  {
    code: 72,
    name: 'LISTENER_NOT_FOUND',
    retriable: true,
    message:
      'There is no listener on the leader broker that matches the listener on which metadata request was processed.',
  },
  { code: 73, name: 'TOPIC_DELETION_DISABLED', retriable: false, message: 'Topic deletion is disabled.' },
  {
    code: 74,
    name: 'FENCED_LEADER_EPOCH',
    retriable: true,
    message: 'The leader epoch in the request is older than the epoch on the broker.',
  },
  {
    code: 75,
    name: 'UNKNOWN_LEADER_EPOCH',
    retriable: true,
    message: 'The leader epoch in the request is newer than the epoch on the broker.',
  },
  {
    code: 76,
    name: 'UNSUPPORTED_COMPRESSION_TYPE',
    retriable: false,
    message: 'The requesting client does not support the compression type of given partition.',
  },
  { code: 77, name: 'STALE_BROKER_EPOCH', retriable: false, message: 'Broker epoch has changed.' },
  {
    code: 78,
    name: 'OFFSET_NOT_AVAILABLE',
    retriable: true,
    message:
      'The leader high watermark has not caught up from a recent leader election so the offsets cannot be guaranteed to be monotonically increasing.',
  },
  {
    code: 79,
    name: 'MEMBER_ID_REQUIRED',
    retriable: false,
    message: 'The group member needs to have a valid member id before actually entering a consumer group.',
  },
  {
    code: 80,
    name: 'PREFERRED_LEADER_NOT_AVAILABLE',
    retriable: true,
    message: 'The preferred leader was not available.',
  },
  {
    code: 81,
    name: 'GROUP_MAX_SIZE_REACHED',
    retriable: false,
    message: 'The consumer group has reached its max size.',
  },
  {
    code: 82,
    name: 'FENCED_INSTANCE_ID',
    retriable: false,
    message:
      'The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.',
  },
  {
    code: 83,
    name: 'ELIGIBLE_LEADERS_NOT_AVAILABLE',
    retriable: true,
    message: 'Eligible topic partition leaders are not available.',
  },
  {
    code: 84,
    name: 'ELECTION_NOT_NEEDED',
    retriable: true,
    message: 'Leader election not needed for topic partition.',
  },
  {
    code: 85,
    name: 'NO_REASSIGNMENT_IN_PROGRESS',
    retriable: false,
    message: 'No partition reassignment is in progress.',
  },
  {
    code: 86,
    name: 'GROUP_SUBSCRIBED_TO_TOPIC',
    retriable: false,
    message: 'Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.',
  },
  {
    code: 87,
    name: 'INVALID_RECORD',
    retriable: false,
    message: 'This record has failed the validation on broker and hence will be rejected.',
  },
  {
    code: 88,
    name: 'UNSTABLE_OFFSET_COMMIT',
    retriable: true,
    message: 'There are unstable offsets that need to be cleared.',
  },
  { code: 89, name: 'THROTTLING_QUOTA_EXCEEDED', retriable: true, message: 'The throttling quota has been exceeded.' },
  {
    code: 90,
    name: 'PRODUCER_FENCED',
    retriable: false,
    message: 'There is a newer producer with the same transactionalId which fences the current one.',
  },
  {
    code: 91,
    name: 'RESOURCE_NOT_FOUND',
    retriable: false,
    message: 'A request illegally referred to a resource that does not exist.',
  },
  {
    code: 92,
    name: 'DUPLICATE_RESOURCE',
    retriable: false,
    message: 'A request illegally referred to the same resource twice.',
  },
  {
    code: 93,
    name: 'UNACCEPTABLE_CREDENTIAL',
    retriable: false,
    message: 'Requested credential would not meet criteria for acceptability.',
  },
  {
    code: 94,
    name: 'INCONSISTENT_VOTER_SET',
    retriable: false,
    message:
      'Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters.',
  },
  { code: 95, name: 'INVALID_UPDATE_VERSION', retriable: false, message: 'The given update version was invalid.' },
  {
    code: 96,
    name: 'FEATURE_UPDATE_FAILED',
    retriable: false,
    message: 'Unable to update finalized features due to an unexpected server error.',
  },
  {
    code: 97,
    name: 'PRINCIPAL_DESERIALIZATION_FAILURE',
    retriable: false,
    message:
      'Request principal deserialization failed during forwarding. This indicates an internal error on the broker cluster security setup.',
  },
  { code: 98, name: 'SNAPSHOT_NOT_FOUND', retriable: false, message: 'Requested snapshot was not found.' },
  {
    code: 99,
    name: 'POSITION_OUT_OF_RANGE',
    retriable: false,
    message: 'Requested position is not greater than or equal to zero, and less than the size of the snapshot.',
  },
  { code: 100, name: 'UNKNOWN_TOPIC_ID', retriable: true, message: 'This server does not host this topic ID.' },
  { code: 101, name: 'DUPLICATE_BROKER_REGISTRATION', retriable: false, message: 'This broker ID is already in use.' },
  { code: 102, name: 'BROKER_ID_NOT_REGISTERED', retriable: false, message: 'The given broker ID was not registered.' },
  {
    code: 103,
    name: 'INCONSISTENT_TOPIC_ID',
    retriable: true,
    message: "The log's topic ID did not match the topic ID in the request.",
  },
  {
    code: 104,
    name: 'INCONSISTENT_CLUSTER_ID',
    retriable: false,
    message: 'The clusterId in the request does not match that found on the server.',
  },
  {
    code: 105,
    name: 'TRANSACTIONAL_ID_NOT_FOUND',
    retriable: false,
    message: 'The transactionalId could not be found.',
  },
  {
    code: 106,
    name: 'FETCH_SESSION_TOPIC_ID_ERROR',
    retriable: true,
    message: 'The fetch session encountered inconsistent topic ID usage.',
  },
  {
    code: 107,
    name: 'INELIGIBLE_REPLICA',
    retriable: false,
    message: 'The new ISR contains at least one ineligible replica.',
  },
  {
    code: 108,
    name: 'NEW_LEADER_ELECTED',
    retriable: false,
    message: 'The AlterPartition request successfully updated the partition state but the leader has changed.',
  },
  {
    code: 109,
    name: 'OFFSET_MOVED_TO_TIERED_STORAGE',
    retriable: false,
    message: 'The requested offset is moved to tiered storage.',
  },
  {
    code: 110,
    name: 'FENCED_MEMBER_EPOCH',
    retriable: false,
    message:
      'The member epoch is fenced by the group coordinator. The member must abandon all its partitions and rejoin.',
  },
  {
    code: 111,
    name: 'UNRELEASED_INSTANCE_ID',
    retriable: false,
    message: 'The instance ID is still used by another member in the consumer group. That member must leave first.',
  },
  {
    code: 112,
    name: 'UNSUPPORTED_ASSIGNOR',
    retriable: false,
    message: 'The assignor or its version range is not supported by the consumer group.',
  },
  {
    code: 113,
    name: 'STALE_MEMBER_EPOCH',
    retriable: false,
    message:
      'The member epoch is stale. The member must retry after receiving its updated member epoch via the ConsumerGroupHeartbeat API.',
  },
  {
    code: 114,
    name: 'MISMATCHED_ENDPOINT_TYPE',
    retriable: false,
    message: 'The request was sent to an endpoint of the wrong type.',
  },
  {
    code: 115,
    name: 'UNSUPPORTED_ENDPOINT_TYPE',
    retriable: false,
    message: 'This endpoint type is not supported yet.',
  },
  { code: 116, name: 'UNKNOWN_CONTROLLER_ID', retriable: false, message: 'This controller ID is not known.' },
  {
    code: 117,
    name: 'UNKNOWN_SUBSCRIPTION_ID',
    retriable: false,
    message: 'Client sent a push telemetry request with an invalid or outdated subscription ID.',
  },
  {
    code: 118,
    name: 'TELEMETRY_TOO_LARGE',
    retriable: false,
    message: 'Client sent a push telemetry request larger than the maximum size the broker will accept.',
  },
  {
    code: 119,
    name: 'INVALID_REGISTRATION',
    retriable: false,
    message: 'The controller has considered the broker registration to be invalid.',
  },
  {
    code: 120,
    name: 'TRANSACTION_ABORTABLE',
    retriable: false,
    message:
      'The server encountered an error with the transaction. The client can abort the transaction to continue using this transactional ID.',
  },
  {
    code: 121,
    name: 'INVALID_RECORD_STATE',
    retriable: false,
    message: 'The record state is invalid. The acknowledgement of delivery could not be completed.',
  },
  { code: 122, name: 'SHARE_SESSION_NOT_FOUND', retriable: true, message: 'The share session was not found.' },
  { code: 123, name: 'INVALID_SHARE_SESSION_EPOCH', retriable: true, message: 'The share session epoch is invalid.' },
  {
    code: 124,
    name: 'FENCED_STATE_EPOCH',
    retriable: false,
    message: 'The share coordinator rejected the request because the share-group state epoch did not match.',
  },
  {
    code: 125,
    name: 'INVALID_VOTER_KEY',
    retriable: false,
    message: "The voter key doesn't match the receiving replica's key.",
  },
  { code: 126, name: 'DUPLICATE_VOTER', retriable: false, message: 'The voter is already part of the set of voters.' },
  { code: 127, name: 'VOTER_NOT_FOUND', retriable: false, message: 'The voter is not part of the set of voters.' },
  { code: 128, name: 'INVALID_REGULAR_EXPRESSION', retriable: false, message: 'The regular expression is not valid.' },
];

/** Error codes by name: `ErrorCode.NOT_LEADER_OR_FOLLOWER === 6`. */
export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  BROKER_NOT_AVAILABLE: 8,
  REPLICA_NOT_AVAILABLE: 9,
  MESSAGE_TOO_LARGE: 10,
  STALE_CONTROLLER_EPOCH: 11,
  OFFSET_METADATA_TOO_LARGE: 12,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  INVALID_REQUIRED_ACKS: 21,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  NOT_CONTROLLER: 41,
  INVALID_REQUEST: 42,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  POLICY_VIOLATION: 44,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  CONCURRENT_TRANSACTIONS: 51,
  TRANSACTION_COORDINATOR_FENCED: 52,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  SECURITY_DISABLED: 54,
  OPERATION_NOT_ATTEMPTED: 55,
  KAFKA_STORAGE_ERROR: 56,
  LOG_DIR_NOT_FOUND: 57,
  SASL_AUTHENTICATION_FAILED: 58,
  UNKNOWN_PRODUCER_ID: 59,
  REASSIGNMENT_IN_PROGRESS: 60,
  DELEGATION_TOKEN_AUTH_DISABLED: 61,
  DELEGATION_TOKEN_NOT_FOUND: 62,
  DELEGATION_TOKEN_OWNER_MISMATCH: 63,
  DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: 64,
  DELEGATION_TOKEN_AUTHORIZATION_FAILED: 65,
  DELEGATION_TOKEN_EXPIRED: 66,
  INVALID_PRINCIPAL_TYPE: 67,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  FETCH_SESSION_ID_NOT_FOUND: 70,
  INVALID_FETCH_SESSION_EPOCH: 71,
  LISTENER_NOT_FOUND: 72,
  TOPIC_DELETION_DISABLED: 73,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  STALE_BROKER_EPOCH: 77,
  OFFSET_NOT_AVAILABLE: 78,
  MEMBER_ID_REQUIRED: 79,
  PREFERRED_LEADER_NOT_AVAILABLE: 80,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  ELIGIBLE_LEADERS_NOT_AVAILABLE: 83,
  ELECTION_NOT_NEEDED: 84,
  NO_REASSIGNMENT_IN_PROGRESS: 85,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
  INVALID_RECORD: 87,
  UNSTABLE_OFFSET_COMMIT: 88,
  THROTTLING_QUOTA_EXCEEDED: 89,
  PRODUCER_FENCED: 90,
  RESOURCE_NOT_FOUND: 91,
  DUPLICATE_RESOURCE: 92,
  UNACCEPTABLE_CREDENTIAL: 93,
  INCONSISTENT_VOTER_SET: 94,
  INVALID_UPDATE_VERSION: 95,
  FEATURE_UPDATE_FAILED: 96,
  PRINCIPAL_DESERIALIZATION_FAILURE: 97,
  SNAPSHOT_NOT_FOUND: 98,
  POSITION_OUT_OF_RANGE: 99,
  UNKNOWN_TOPIC_ID: 100,
  DUPLICATE_BROKER_REGISTRATION: 101,
  BROKER_ID_NOT_REGISTERED: 102,
  INCONSISTENT_TOPIC_ID: 103,
  INCONSISTENT_CLUSTER_ID: 104,
  TRANSACTIONAL_ID_NOT_FOUND: 105,
  FETCH_SESSION_TOPIC_ID_ERROR: 106,
  INELIGIBLE_REPLICA: 107,
  NEW_LEADER_ELECTED: 108,
  OFFSET_MOVED_TO_TIERED_STORAGE: 109,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113,
  MISMATCHED_ENDPOINT_TYPE: 114,
  UNSUPPORTED_ENDPOINT_TYPE: 115,
  UNKNOWN_CONTROLLER_ID: 116,
  UNKNOWN_SUBSCRIPTION_ID: 117,
  TELEMETRY_TOO_LARGE: 118,
  INVALID_REGISTRATION: 119,
  TRANSACTION_ABORTABLE: 120,
  INVALID_RECORD_STATE: 121,
  SHARE_SESSION_NOT_FOUND: 122,
  INVALID_SHARE_SESSION_EPOCH: 123,
  FENCED_STATE_EPOCH: 124,
  INVALID_VOTER_KEY: 125,
  DUPLICATE_VOTER: 126,
  VOTER_NOT_FOUND: 127,
  INVALID_REGULAR_EXPRESSION: 128,
} as const;
export type ErrorName = keyof typeof ErrorCode;

const BY_CODE = new Map<number, KafkaErrorInfo>(ERROR_TABLE.map((e) => [e.code, e]));

/** The table entry for a code; an unknown code keeps its number. */
export function errorInfo(code: number): KafkaErrorInfo {
  return (
    BY_CODE.get(code) ?? {
      code,
      name: `UNKNOWN_ERROR_CODE_${code}`,
      retriable: false,
      message: `Unknown error code ${code}`,
    }
  );
}

export function errorName(code: number): string {
  return errorInfo(code).name;
}
export function isRetriable(code: number): boolean {
  return errorInfo(code).retriable;
}

/** An error that carries a Kafka error code; handlers turn it into the code in their response. */
export class KafkaError extends Error {
  readonly code: number;
  constructor(code: number, message?: string) {
    super(message ?? errorInfo(code).message);
    this.code = code;
    this.name = errorInfo(code).name;
  }
  get retriable(): boolean {
    return isRetriable(this.code);
  }
}
