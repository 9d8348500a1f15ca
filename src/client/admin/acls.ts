// ACL administration as Kafka's Admin client does it: DescribeAcls (one binding filter per request),
// CreateAcls (bindings, one result each) and DeleteAcls (filters, the matching bindings of each),
// with the Java value classes' names and toString forms (ResourcePattern, AccessControlEntry,
// AclBinding and their filters) that kafka-acls.sh prints.
import type { KafkaClient, Target } from '../client.js';
import { ApiError } from '../errors.js';
import type { CreateAclsResponse } from '../../protocol/generated/protocol/CreateAcls.js';
import type { DeleteAclsResponse } from '../../protocol/generated/protocol/DeleteAcls.js';
import type { DescribeAclsResponse } from '../../protocol/generated/protocol/DescribeAcls.js';
import {
  ACL_OPERATIONS,
  PATTERN_TYPES,
  PERMISSION_TYPES,
  RESOURCE_TYPES,
  type AclOperationName,
  type PatternTypeName,
  type PermissionTypeName,
  type ResourceTypeName,
} from '../../protocol/acl.js';

const code = (names: readonly string[], name: string): number => {
  const i = names.indexOf(name);
  if (i < 0) throw new Error(`unknown enum name ${name}`);
  return i;
};
/** The Java enum constant of a wire code (UNKNOWN for a code this version does not know). */
const nameOf = <T extends string>(names: readonly T[], c: number): T => names[c] ?? names[0]!;

export interface ResourcePattern {
  resourceType: ResourceTypeName;
  name: string;
  patternType: PatternTypeName;
}
/** A ResourcePatternFilter: `name` null matches any name. */
export interface ResourcePatternFilter {
  resourceType: ResourceTypeName;
  name: string | null;
  patternType: PatternTypeName;
}
export interface AccessControlEntry {
  principal: string;
  host: string;
  operation: AclOperationName;
  permissionType: PermissionTypeName;
}
/** An AccessControlEntryFilter: null principal / host match any. */
export interface AccessControlEntryFilter {
  principal: string | null;
  host: string | null;
  operation: AclOperationName;
  permissionType: PermissionTypeName;
}
export interface AclBinding {
  pattern: ResourcePattern;
  entry: AccessControlEntry;
}
export interface AclBindingFilter {
  pattern: ResourcePatternFilter;
  entry: AccessControlEntryFilter;
}

/** AccessControlEntryFilter.ANY. */
export const ANY_ENTRY: AccessControlEntryFilter = {
  principal: null,
  host: null,
  operation: 'ANY',
  permissionType: 'ANY',
};
/** AclBindingFilter.ANY. */
export const ANY_BINDING: AclBindingFilter = {
  pattern: { resourceType: 'ANY', name: null, patternType: 'ANY' },
  entry: ANY_ENTRY,
};

/** ResourcePattern.toString. */
export function resourcePatternString(p: ResourcePattern): string {
  return `ResourcePattern(resourceType=${p.resourceType}, name=${p.name}, patternType=${p.patternType})`;
}
/** ResourcePatternFilter.toString (Kafka writes it as `ResourcePattern(...)` too). */
export function resourcePatternFilterString(p: ResourcePatternFilter): string {
  return `ResourcePattern(resourceType=${p.resourceType}, name=${p.name ?? '<any>'}, patternType=${p.patternType})`;
}
/** AccessControlEntry.toString (AccessControlEntryData's). */
export function entryString(e: AccessControlEntry | AccessControlEntryFilter): string {
  return `(principal=${e.principal ?? '<any>'}, host=${e.host ?? '<any>'}, operation=${e.operation}, permissionType=${e.permissionType})`;
}
/** AclBinding.toString. */
export function bindingString(b: AclBinding): string {
  return `(pattern=${resourcePatternString(b.pattern)}, entry=${entryString(b.entry)})`;
}

/** AccessControlEntry.toFilter. */
export const entryFilter = (e: AccessControlEntry): AccessControlEntryFilter => ({ ...e });

/** Equality of two patterns (ResourcePattern.equals). */
export const samePattern = (a: ResourcePattern, b: ResourcePattern): boolean =>
  a.resourceType === b.resourceType && a.name === b.name && a.patternType === b.patternType;
/** Equality of two entries (AccessControlEntry.equals). */
export const sameEntry = (a: AccessControlEntry, b: AccessControlEntry): boolean =>
  a.principal === b.principal &&
  a.host === b.host &&
  a.operation === b.operation &&
  a.permissionType === b.permissionType;

const filterWire = (f: AclBindingFilter) => ({
  resourceTypeFilter: code(RESOURCE_TYPES, f.pattern.resourceType),
  resourceNameFilter: f.pattern.name,
  patternTypeFilter: code(PATTERN_TYPES, f.pattern.patternType),
  principalFilter: f.entry.principal,
  hostFilter: f.entry.host,
  operation: code(ACL_OPERATIONS, f.entry.operation),
  permissionType: code(PERMISSION_TYPES, f.entry.permissionType),
});

/** Admin.describeAcls(filter).values(): the matching bindings, or the response's error thrown. */
export async function describeAcls(
  client: KafkaClient,
  filter: AclBindingFilter,
  target: Target = 'any',
): Promise<AclBinding[]> {
  const resp = await client.request<DescribeAclsResponse>(target, 'DescribeAcls', filterWire(filter));
  const body = resp.body;
  if (body.errorCode !== 0) throw new ApiError(body.errorCode, body.errorMessage);
  const out: AclBinding[] = [];
  for (const r of body.resources) {
    const pattern: ResourcePattern = {
      resourceType: nameOf(RESOURCE_TYPES, r.resourceType),
      name: r.resourceName,
      patternType: nameOf(PATTERN_TYPES, r.patternType),
    };
    for (const a of r.acls) {
      out.push({
        pattern,
        entry: {
          principal: a.principal,
          host: a.host,
          operation: nameOf(ACL_OPERATIONS, a.operation),
          permissionType: nameOf(PERMISSION_TYPES, a.permissionType),
        },
      });
    }
  }
  return out;
}

/** Admin.createAcls(bindings).all(): throws the first binding's error, as all().get() does. */
export async function createAcls(client: KafkaClient, bindings: AclBinding[], target: Target = 'any'): Promise<void> {
  if (bindings.length === 0) return;
  const resp = await client.request<CreateAclsResponse>(target, 'CreateAcls', {
    creations: bindings.map((b) => ({
      resourceType: code(RESOURCE_TYPES, b.pattern.resourceType),
      resourceName: b.pattern.name,
      resourcePatternType: code(PATTERN_TYPES, b.pattern.patternType),
      principal: b.entry.principal,
      host: b.entry.host,
      operation: code(ACL_OPERATIONS, b.entry.operation),
      permissionType: code(PERMISSION_TYPES, b.entry.permissionType),
    })),
  });
  const results = resp.body.results;
  for (let i = 0; i < bindings.length; i++) {
    const r = results[i];
    if (!r)
      throw new ApiError(
        -1,
        'The broker reported no creation result for the given ACL: ' + bindingString(bindings[i]!),
      );
    if (r.errorCode !== 0) throw new ApiError(r.errorCode, r.errorMessage);
  }
}

/**
 * Admin.deleteAcls(filters).all(): the deleted bindings; throws a filter's error, or the first error
 * of a matching binding, as all().get() does.
 */
export async function deleteAcls(
  client: KafkaClient,
  filters: AclBindingFilter[],
  target: Target = 'any',
): Promise<AclBinding[]> {
  if (filters.length === 0) return [];
  const resp = await client.request<DeleteAclsResponse>(target, 'DeleteAcls', { filters: filters.map(filterWire) });
  const out: AclBinding[] = [];
  const results = resp.body.filterResults;
  for (let i = 0; i < filters.length; i++) {
    const r = results[i];
    if (!r) throw new ApiError(-1, 'The broker reported no deletion result for the given filter.');
    if (r.errorCode !== 0) throw new ApiError(r.errorCode, r.errorMessage);
    for (const m of r.matchingAcls) {
      if (m.errorCode !== 0) throw new ApiError(m.errorCode, m.errorMessage);
      out.push({
        pattern: {
          resourceType: nameOf(RESOURCE_TYPES, m.resourceType),
          name: m.resourceName,
          patternType: nameOf(PATTERN_TYPES, m.patternType),
        },
        entry: {
          principal: m.principal,
          host: m.host,
          operation: nameOf(ACL_OPERATIONS, m.operation),
          permissionType: nameOf(PERMISSION_TYPES, m.permissionType),
        },
      });
    }
  }
  return out;
}
