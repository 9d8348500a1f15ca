// ACL bindings as the broker holds them (StandardAcl's fields, by wire code) and the filter matching
// of AclBindingFilter.matches (ResourcePatternFilter.matches + AccessControlEntryFilter.matches) that
// DescribeAcls and DeleteAcls apply to the ACLs of the metadata image. The vocabulary (the enums'
// codes and names) is src/protocol/acl.ts, shared with the client.
import {
  AclOperation,
  AclPermissionType,
  PatternType,
  ResourceType,
  WILDCARD_RESOURCE,
  operationFromCode,
  patternTypeFromCode,
  patternTypeName,
  permissionTypeFromCode,
  resourceTypeFromCode,
} from '../../protocol/acl.js';

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
