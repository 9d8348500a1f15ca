// Client-side errors. An ApiError carries a Kafka error code and the Java exception class Kafka's
// own clients raise for it (tools print those class names: log-dirs' "error" field, ExecutionException
// texts); the other classes describe failures that happen before or around a response.
import { errorInfo } from '../protocol/errors.js';

// Simple names of the exceptions Kafka's Errors.java maps each code to (all in
// org.apache.kafka.common.errors except InvalidRecordException).
// prettier-ignore
const JAVA_CLASS: Record<number, string> = {
  [-1]: 'UnknownServerException', 1: 'OffsetOutOfRangeException', 2: 'CorruptRecordException', 3: 'UnknownTopicOrPartitionException',
  4: 'InvalidFetchSizeException', 5: 'LeaderNotAvailableException', 6: 'NotLeaderOrFollowerException', 7: 'TimeoutException',
  8: 'BrokerNotAvailableException', 9: 'ReplicaNotAvailableException', 10: 'RecordTooLargeException', 11: 'ControllerMovedException',
  12: 'OffsetMetadataTooLarge', 13: 'NetworkException', 14: 'CoordinatorLoadInProgressException', 15: 'CoordinatorNotAvailableException',
  16: 'NotCoordinatorException', 17: 'InvalidTopicException', 18: 'RecordBatchTooLargeException', 19: 'NotEnoughReplicasException',
  20: 'NotEnoughReplicasAfterAppendException', 21: 'InvalidRequiredAcksException', 22: 'IllegalGenerationException',
  23: 'InconsistentGroupProtocolException', 24: 'InvalidGroupIdException', 25: 'UnknownMemberIdException', 26: 'InvalidSessionTimeoutException',
  27: 'RebalanceInProgressException', 28: 'InvalidCommitOffsetSizeException', 29: 'TopicAuthorizationException', 30: 'GroupAuthorizationException',
  31: 'ClusterAuthorizationException', 32: 'InvalidTimestampException', 33: 'UnsupportedSaslMechanismException', 34: 'IllegalSaslStateException',
  35: 'UnsupportedVersionException', 36: 'TopicExistsException', 37: 'InvalidPartitionsException', 38: 'InvalidReplicationFactorException',
  39: 'InvalidReplicaAssignmentException', 40: 'InvalidConfigurationException', 41: 'NotControllerException', 42: 'InvalidRequestException',
  43: 'UnsupportedForMessageFormatException', 44: 'PolicyViolationException', 45: 'OutOfOrderSequenceException', 46: 'DuplicateSequenceException',
  47: 'InvalidProducerEpochException', 48: 'InvalidTxnStateException', 49: 'InvalidPidMappingException', 50: 'InvalidTxnTimeoutException',
  51: 'ConcurrentTransactionsException', 52: 'TransactionCoordinatorFencedException', 53: 'TransactionalIdAuthorizationException',
  54: 'SecurityDisabledException', 55: 'OperationNotAttemptedException', 56: 'KafkaStorageException', 57: 'LogDirNotFoundException',
  58: 'SaslAuthenticationException', 59: 'UnknownProducerIdException', 60: 'ReassignmentInProgressException', 61: 'DelegationTokenDisabledException',
  62: 'DelegationTokenNotFoundException', 63: 'DelegationTokenOwnerMismatchException', 64: 'UnsupportedByAuthenticationException',
  65: 'DelegationTokenAuthorizationException', 66: 'DelegationTokenExpiredException', 67: 'InvalidPrincipalTypeException', 68: 'GroupNotEmptyException',
  69: 'GroupIdNotFoundException', 70: 'FetchSessionIdNotFoundException', 71: 'InvalidFetchSessionEpochException', 72: 'ListenerNotFoundException',
  73: 'TopicDeletionDisabledException', 74: 'FencedLeaderEpochException', 75: 'UnknownLeaderEpochException', 76: 'UnsupportedCompressionTypeException',
  77: 'StaleBrokerEpochException', 78: 'OffsetNotAvailableException', 79: 'MemberIdRequiredException', 80: 'PreferredLeaderNotAvailableException',
  81: 'GroupMaxSizeReachedException', 82: 'FencedInstanceIdException', 83: 'EligibleLeadersNotAvailableException', 84: 'ElectionNotNeededException',
  85: 'NoReassignmentInProgressException', 86: 'GroupSubscribedToTopicException', 87: 'InvalidRecordException', 88: 'UnstableOffsetCommitException',
  89: 'ThrottlingQuotaExceededException', 90: 'ProducerFencedException', 91: 'ResourceNotFoundException', 92: 'DuplicateResourceException',
  93: 'UnacceptableCredentialException', 94: 'InconsistentVoterSetException', 95: 'InvalidUpdateVersionException', 96: 'FeatureUpdateFailedException',
  97: 'PrincipalDeserializationException', 98: 'SnapshotNotFoundException', 99: 'PositionOutOfRangeException', 100: 'UnknownTopicIdException',
  101: 'DuplicateBrokerRegistrationException', 102: 'BrokerIdNotRegisteredException', 103: 'InconsistentTopicIdException',
  104: 'InconsistentClusterIdException', 105: 'TransactionalIdNotFoundException', 106: 'FetchSessionTopicIdException', 107: 'IneligibleReplicaException',
  108: 'NewLeaderElectedException', 109: 'OffsetMovedToTieredStorageException', 110: 'FencedMemberEpochException', 111: 'UnreleasedInstanceIdException',
  112: 'UnsupportedAssignorException', 113: 'StaleMemberEpochException', 114: 'MismatchedEndpointTypeException', 115: 'UnsupportedEndpointTypeException',
  116: 'UnknownControllerIdException', 117: 'UnknownSubscriptionIdException', 118: 'TelemetryTooLargeException', 119: 'InvalidRegistrationException',
  120: 'TransactionAbortableException', 121: 'InvalidRecordStateException', 122: 'ShareSessionNotFoundException', 123: 'InvalidShareSessionEpochException',
  124: 'FencedStateEpochException', 125: 'InvalidVoterKeyException', 126: 'DuplicateVoterException', 127: 'VoterNotFoundException',
  128: 'InvalidRegularExpression', 129: 'RebootstrapRequiredException', 130: 'StreamsInvalidTopologyException',
  131: 'StreamsInvalidTopologyEpochException', 132: 'StreamsTopologyFencedException', 133: 'ShareSessionLimitReachedException',
  134: 'GroupDeletionFailedException', 135: 'StreamsTopologyDescriptionUpdateFailedException', 136: 'ControllerIdNotRegisteredException',
};

/** Fully qualified Java exception class for an error code (UnknownServerException for unknown codes). */
export function javaExceptionClass(code: number): string {
  const simple = JAVA_CLASS[code] ?? 'UnknownServerException';
  return simple === 'InvalidRecordException'
    ? 'org.apache.kafka.common.InvalidRecordException'
    : `org.apache.kafka.common.errors.${simple}`;
}

/** A Kafka error code returned by a broker, with the broker's message or Kafka's default text. */
export class ApiError extends Error {
  readonly code: number;
  readonly errorName: string;
  readonly retriable: boolean;
  constructor(
    code: number,
    serverMessage?: string | null,
    readonly context?: string,
  ) {
    const info = errorInfo(code);
    // Kafka's Errors.exception(message): only a null message falls back to the default text.
    super(serverMessage != null ? serverMessage : info.message);
    this.name = 'ApiError';
    this.code = code;
    this.errorName = info.name;
    this.retriable = info.retriable;
  }
  /** e.g. `org.apache.kafka.common.errors.TopicExistsException`. */
  get javaClass(): string {
    return javaExceptionClass(this.code);
  }
  /** Java's Throwable.toString(): `<class>: <message>`. */
  javaString(): string {
    return `${this.javaClass}: ${this.message}`;
  }
}

/** Throws an ApiError when `code` is not NONE. */
export function checkError(code: number, message?: string | null, context?: string): void {
  if (code !== 0) throw new ApiError(code, message, context);
}

/** No bootstrap server (or broker) could be reached. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  readonly retriable = true;
}

/** The connection dropped with requests in flight. */
export class DisconnectedError extends Error {
  override name = 'DisconnectedError';
  readonly retriable = true;
}

/** No response within request.timeout.ms. */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  readonly retriable = true;
}

/** An operation gave up after default.api.timeout.ms of retries. */
export class OperationTimeoutError extends Error {
  override name = 'OperationTimeoutError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** The broker does not offer any version of an API that this client can speak. */
export class UnsupportedApiError extends Error {
  override name = 'UnsupportedApiError';
  constructor(
    message: string,
    readonly apiName: string,
  ) {
    super(message);
  }
}

/** A configuration the client cannot honour (e.g. security.protocol=SSL). */
/**
 * The TLS handshake with a broker failed (Kafka's SslAuthenticationException, not retriable): the
 * message keeps Kafka's text and adds Node's reason.
 */
export class SslAuthenticationError extends Error {
  override name = 'SslAuthenticationError';
  readonly retriable = false;
  constructor(reason: string) {
    super(`org.apache.kafka.common.errors.SslAuthenticationException: SSL handshake failed: ${reason}`);
  }
}

export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}

export function isRetriableError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { retriable?: unknown }).retriable === true;
}

/**
 * SASL authentication failed (Kafka's SaslAuthenticationException, error 58): bad credentials, a
 * wrong SCRAM server signature, an unreachable token endpoint. Fatal: never retried.
 */
export class SaslAuthenticationError extends ApiError {
  readonly fatal = true;
  constructor(message: string | null) {
    super(58, message);
  }
}
