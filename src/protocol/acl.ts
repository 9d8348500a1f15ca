// The ACL vocabulary of Kafka's org.apache.kafka.common.acl and .resource packages, shared by the
// broker's authorizer and the client's admin calls: the enums ResourceType, PatternType, AclOperation
// and AclPermissionType as their constant names in wire-code order (the index is the code), the
// codes by name, `fromCode` (a code Kafka does not know is UNKNOWN) and the names Java's toString prints.

/** org.apache.kafka.common.resource.ResourceType, by wire code. */
export const RESOURCE_TYPES = [
  'UNKNOWN',
  'ANY',
  'TOPIC',
  'GROUP',
  'CLUSTER',
  'TRANSACTIONAL_ID',
  'DELEGATION_TOKEN',
  'USER',
] as const;
/** org.apache.kafka.common.resource.PatternType, by wire code. */
export const PATTERN_TYPES = ['UNKNOWN', 'ANY', 'MATCH', 'LITERAL', 'PREFIXED'] as const;
/** org.apache.kafka.common.acl.AclOperation, by wire code (Kafka 4.4, with TWO_PHASE_COMMIT). */
export const ACL_OPERATIONS = [
  'UNKNOWN',
  'ANY',
  'ALL',
  'READ',
  'WRITE',
  'CREATE',
  'DELETE',
  'ALTER',
  'DESCRIBE',
  'CLUSTER_ACTION',
  'DESCRIBE_CONFIGS',
  'ALTER_CONFIGS',
  'IDEMPOTENT_WRITE',
  'CREATE_TOKENS',
  'DESCRIBE_TOKENS',
  'TWO_PHASE_COMMIT',
] as const;
/** org.apache.kafka.common.acl.AclPermissionType, by wire code. */
export const PERMISSION_TYPES = ['UNKNOWN', 'ANY', 'DENY', 'ALLOW'] as const;

export type ResourceTypeName = (typeof RESOURCE_TYPES)[number];
export type PatternTypeName = (typeof PATTERN_TYPES)[number];
export type AclOperationName = (typeof ACL_OPERATIONS)[number];
export type PermissionTypeName = (typeof PERMISSION_TYPES)[number];

type Codes<T extends readonly string[]> = { readonly [K in T[number]]: number };
function codesOf<T extends readonly string[]>(names: T): Codes<T> {
  return Object.freeze(Object.fromEntries(names.map((n, i) => [n, i]))) as Codes<T>;
}

/** The wire codes by constant name: `ResourceType.TOPIC` is 2. */
export const ResourceType = codesOf(RESOURCE_TYPES);
export const PatternType = codesOf(PATTERN_TYPES);
export const AclOperation = codesOf(ACL_OPERATIONS);
export const AclPermissionType = codesOf(PERMISSION_TYPES);

/** `X.fromCode(code)`: a code Kafka does not know is UNKNOWN (0). */
export const resourceTypeFromCode = (code: number): number => (code in RESOURCE_TYPES ? code : 0);
export const patternTypeFromCode = (code: number): number => (code in PATTERN_TYPES ? code : 0);
export const operationFromCode = (code: number): number => (code in ACL_OPERATIONS ? code : 0);
export const permissionTypeFromCode = (code: number): number => (code in PERMISSION_TYPES ? code : 0);

/** The enum constant's name, as Java's toString prints it (`TOPIC`, `PREFIXED`, `READ`, `ALLOW`). */
export const resourceTypeName = (c: number): ResourceTypeName => RESOURCE_TYPES[resourceTypeFromCode(c)]!;
export const patternTypeName = (c: number): PatternTypeName => PATTERN_TYPES[patternTypeFromCode(c)]!;
export const operationName = (c: number): AclOperationName => ACL_OPERATIONS[operationFromCode(c)]!;
export const permissionTypeName = (c: number): PermissionTypeName => PERMISSION_TYPES[permissionTypeFromCode(c)]!;

/** ResourcePattern.WILDCARD_RESOURCE. */
export const WILDCARD_RESOURCE = '*';
/** StandardAuthorizerData.WILDCARD_PRINCIPAL. */
export const WILDCARD_PRINCIPAL = 'User:*';
/** Kafka's CLUSTER_NAME, the only name of the CLUSTER resource. */
export const CLUSTER_NAME = 'kafka-cluster';

/** AclEntry.supportedOperations: the operations an ACL on a concrete resource type may name (null for ANY, UNKNOWN). */
export function supportedOperations(type: ResourceTypeName): readonly AclOperationName[] | null {
  switch (type) {
    case 'TOPIC':
      return ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'];
    case 'GROUP':
      return ['READ', 'DESCRIBE', 'DELETE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'];
    case 'CLUSTER':
      return ['CREATE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'ALTER', 'DESCRIBE'];
    case 'TRANSACTIONAL_ID':
      return ['DESCRIBE', 'WRITE'];
    case 'DELEGATION_TOKEN':
      return ['DESCRIBE'];
    case 'USER':
      return ['CREATE_TOKENS', 'DESCRIBE_TOKENS'];
    default:
      return null;
  }
}

/** The wire codes of supportedOperations(type). */
export function supportedOperationCodes(type: ResourceTypeName): number[] {
  return (supportedOperations(type) ?? []).map((op) => AclOperation[op]);
}

/** Operation codes as an authorized-operations bit field (Utils.to32BitField). */
export function operationBits(codes: readonly number[]): number {
  return codes.reduce((acc, op) => acc | (1 << op), 0);
}
