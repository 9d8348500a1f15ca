// The ACL vocabulary of Kafka's org.apache.kafka.common.acl / .resource packages: the wire codes of
// ResourceType, PatternType, AclOperation and AclPermissionType (fromCode: an unknown code is
// UNKNOWN), their names as Kafka prints them, and the filter matching of AclBindingFilter.matches
// (ResourcePatternFilter.matches + AccessControlEntryFilter.matches) that DescribeAcls and
// DeleteAcls apply to the ACLs of the metadata image.

/** org.apache.kafka.common.resource.ResourceType codes. */
export const ResourceType = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const;

/** org.apache.kafka.common.resource.PatternType codes. */
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;

/** org.apache.kafka.common.acl.AclOperation codes (Kafka 4.4, TWO_PHASE_COMMIT included). */
export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
  TWO_PHASE_COMMIT: 15,
} as const;

/** org.apache.kafka.common.acl.AclPermissionType codes. */
export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

function names(o: Record<string, number>): ReadonlyMap<number, string> {
  return new Map(Object.entries(o).map(([k, v]) => [v, k]));
}
const RESOURCE_TYPE_NAMES = names(ResourceType);
const PATTERN_TYPE_NAMES = names(PatternType);
const OPERATION_NAMES = names(AclOperation);
const PERMISSION_NAMES = names(AclPermissionType);

/** `X.fromCode(code)`: a code Kafka does not know is UNKNOWN (0). */
export function resourceTypeFromCode(code: number): number {
  return RESOURCE_TYPE_NAMES.has(code) ? code : ResourceType.UNKNOWN;
}
export function patternTypeFromCode(code: number): number {
  return PATTERN_TYPE_NAMES.has(code) ? code : PatternType.UNKNOWN;
}
export function operationFromCode(code: number): number {
  return OPERATION_NAMES.has(code) ? code : AclOperation.UNKNOWN;
}
export function permissionTypeFromCode(code: number): number {
  return PERMISSION_NAMES.has(code) ? code : AclPermissionType.UNKNOWN;
}

/** The enum constant's name, as Java's toString prints it (`TOPIC`, `PREFIXED`, `READ`, `ALLOW`). */
export const resourceTypeName = (c: number): string => RESOURCE_TYPE_NAMES.get(resourceTypeFromCode(c))!;
export const patternTypeName = (c: number): string => PATTERN_TYPE_NAMES.get(patternTypeFromCode(c))!;
export const operationName = (c: number): string => OPERATION_NAMES.get(operationFromCode(c))!;
export const permissionTypeName = (c: number): string => PERMISSION_NAMES.get(permissionTypeFromCode(c))!;

/** ResourcePattern.WILDCARD_RESOURCE. */
export const WILDCARD_RESOURCE = '*';
/** StandardAuthorizerData.WILDCARD_PRINCIPAL. */
export const WILDCARD_PRINCIPAL = 'User:*';
/** Kafka's CLUSTER_NAME, the only name of the CLUSTER resource. */
export const CLUSTER_NAME = 'kafka-cluster';

/** An AclBinding: a resource pattern and an access control entry (StandardAcl's fields). */
export interface AclBinding {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** An AclBindingFilter: null strings match anything, ANY codes match any value. */
export interface AclBindingFilter {
  readonly resourceType: number;
  readonly resourceName: string | null;
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

/** ResourcePatternFilter.isUnknown || AccessControlEntryFilter.isUnknown. */
export function patternFilterIsUnknown(f: AclBindingFilter): boolean {
  return resourceTypeFromCode(f.resourceType) === ResourceType.UNKNOWN || patternTypeFromCode(f.patternType) === 0;
}
export function entryFilterIsUnknown(f: AclBindingFilter): boolean {
  return operationFromCode(f.operation) === AclOperation.UNKNOWN || permissionTypeFromCode(f.permissionType) === 0;
}

/** ResourcePatternFilter.matches. */
export function patternFilterMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== acl.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== acl.patternType)
    return false;
  if (f.resourceName === null) return true;
  if (f.patternType === PatternType.ANY || f.patternType === acl.patternType)
    return f.resourceName === acl.resourceName;
  switch (acl.patternType) {
    case PatternType.LITERAL:
      return f.resourceName === acl.resourceName || acl.resourceName === WILDCARD_RESOURCE;
    case PatternType.PREFIXED:
      return f.resourceName.startsWith(acl.resourceName);
    default:
      throw new Error(`Unsupported PatternType: ${patternTypeName(acl.patternType)}`);
  }
}

/** AccessControlEntryFilter.matches. */
export function entryFilterMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  if (f.principal !== null && f.principal !== acl.principal) return false;
  if (f.host !== null && f.host !== acl.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== acl.operation) return false;
  return f.permissionType === AclPermissionType.ANY || f.permissionType === acl.permissionType;
}

/** AclBindingFilter.matches. */
export function aclFilterMatches(f: AclBindingFilter, acl: AclBinding): boolean {
  return patternFilterMatches(f, acl) && entryFilterMatches(f, acl);
}

/** A key equal for equal bindings (StandardAcl.equals): the controller's existingAcls set. */
export function aclKey(a: AclBinding): string {
  return JSON.stringify([
    a.resourceType,
    a.resourceName,
    a.patternType,
    a.principal,
    a.host,
    a.operation,
    a.permissionType,
  ]);
}

/**
 * StandardAcl.compareTo: resource type, resource name (reversed), pattern type, operation,
 * principal, host, permission type. The order ACLs are listed in.
 */
export function compareAcls(a: AclBinding, b: AclBinding): number {
  return (
    a.resourceType - b.resourceType ||
    cmp(b.resourceName, a.resourceName) ||
    a.patternType - b.patternType ||
    a.operation - b.operation ||
    cmp(a.principal, b.principal) ||
    cmp(a.host, b.host) ||
    a.permissionType - b.permissionType
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Only the binding's fields (an AccessControlEntryRecord carries its id too). */
export function bindingOf(a: AclBinding): AclBinding {
  return {
    resourceType: a.resourceType,
    resourceName: a.resourceName,
    patternType: a.patternType,
    principal: a.principal,
    host: a.host,
    operation: a.operation,
    permissionType: a.permissionType,
  };
}
