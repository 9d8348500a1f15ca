// Topic name rules (Kafka's org.apache.kafka.common.internals.Topic).

import { ErrorCode, fail } from './errors.js';

export const MAX_TOPIC_NAME_LENGTH = 249;
export const CLUSTER_METADATA_TOPIC_NAME = '__cluster_metadata';
export const GROUP_METADATA_TOPIC_NAME = '__consumer_offsets';
export const TRANSACTION_STATE_TOPIC_NAME = '__transaction_state';
export const SHARE_GROUP_STATE_TOPIC_NAME = '__share_group_state';
const INTERNAL_TOPICS = new Set([
  GROUP_METADATA_TOPIC_NAME,
  TRANSACTION_STATE_TOPIC_NAME,
  SHARE_GROUP_STATE_TOPIC_NAME,
]);

/** Topic.detectInvalidTopic: the reason a name is invalid, or null. */
export function invalidTopicReason(name: string): string | null {
  if (name.length === 0) return 'the empty string is not allowed';
  if (name === '.') return "'.' is not allowed";
  if (name === '..') return "'..' is not allowed";
  if (name.length > MAX_TOPIC_NAME_LENGTH)
    return `the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`;
  if (!/^[a-zA-Z0-9._-]+$/.test(name))
    return `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  return null;
}

/** Topic.validate: throws INVALID_TOPIC_EXCEPTION "Topic name is invalid: ...". */
export function validateTopicName(name: string): void {
  const reason = invalidTopicReason(name);
  if (reason !== null) fail(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic name is invalid: ${reason}`);
}

export function isInternalTopic(name: string): boolean {
  return INTERNAL_TOPICS.has(name);
}

/** Names with '.' or '_' may collide in metric names. */
export function hasCollisionChars(name: string): boolean {
  return name.includes('_') || name.includes('.');
}

export function unifyCollisionChars(name: string): string {
  return name.replace(/\./g, '_');
}
