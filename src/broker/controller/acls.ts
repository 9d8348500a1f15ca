// ACLs on the controller, as Kafka's AclControlManager and the AclApis checks before it:
// CreateAcls checks each binding (AclApis: a CLUSTER resource must be named kafka-cluster, a name
// must not be empty; AclControlManager.validateNewAcl: resource type, pattern type, operation and
// permission type must be concrete) and writes one AccessControlEntryRecord with a fresh id per new
// binding (an ACL already present succeeds without a record); DeleteAcls writes a
// RemoveAccessControlEntryRecord per ACL a filter matches (each once, all or nothing) and answers the
// matched bindings per filter.
import type {
  CreateAclsRequestAclCreation as AclCreation,
  CreateAclsResponseAclCreationResult as AclCreationResult,
} from '../../protocol/generated/protocol/CreateAcls.js';
import type {
  DeleteAclsRequestDeleteAclsFilter as DeleteFilter,
  DeleteAclsResponseDeleteAclsFilterResult as FilterResult,
} from '../../protocol/generated/protocol/DeleteAcls.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import {
  AclOperation,
  AclPermissionType,
  CLUSTER_NAME,
  PatternType,
  ResourceType,
  operationFromCode,
  operationName,
  patternTypeFromCode,
  patternTypeName,
  permissionTypeFromCode,
  permissionTypeName,
  resourceTypeFromCode,
  resourceTypeName,
} from '../../protocol/acl.js';
import {
  aclFilterMatches,
  aclKey,
  entryFilterIsUnknown,
  patternFilterIsUnknown,
  type AclBinding,
  type AclBindingFilter,
} from '../authorizer/acl.js';
import type { MetadataImage } from '../metadata/image.js';
import { ErrorCode } from './errors.js';
import { randomUuid } from './uuid.js';

/** QuorumController's MAX_RECORDS_PER_USER_OP. */
export const MAX_RECORDS_PER_USER_OP = 10000;

class InvalidRequest extends Error {}

/** CreateAclsRequest.aclBinding: the codes read with fromCode (an unknown code is UNKNOWN). */
export function aclBindingOf(c: AclCreation): AclBinding {
  return {
    resourceType: resourceTypeFromCode(c.resourceType),
    resourceName: c.resourceName,
    patternType: patternTypeFromCode(c.resourcePatternType),
    principal: c.principal,
    host: c.host,
    operation: operationFromCode(c.operation),
    permissionType: permissionTypeFromCode(c.permissionType),
  };
}

/** DeleteAclsRequest.aclBindingFilter. */
export function aclFilterOf(f: DeleteFilter): AclBindingFilter {
  return {
    resourceType: resourceTypeFromCode(f.resourceTypeFilter),
    resourceName: f.resourceNameFilter,
    patternType: patternTypeFromCode(f.patternTypeFilter),
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: operationFromCode(f.operation),
    permissionType: permissionTypeFromCode(f.permissionType),
  };
}

/** AclApis.handleCreateAcls's checks before the authorizer sees a binding. */
function validateInAclApis(acl: AclBinding): void {
  if (acl.resourceType === ResourceType.CLUSTER && acl.resourceName !== CLUSTER_NAME)
    throw new InvalidRequest(`The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`);
  if (acl.resourceName === '') throw new InvalidRequest('Invalid empty resource name');
}

/** AclControlManager.validateNewAcl. */
export function validateNewAcl(acl: AclBinding): void {
  if (acl.resourceType === ResourceType.UNKNOWN || acl.resourceType === ResourceType.ANY)
    throw new InvalidRequest(`Invalid resourceType ${resourceTypeName(acl.resourceType)}`);
  if (acl.patternType !== PatternType.LITERAL && acl.patternType !== PatternType.PREFIXED)
    throw new InvalidRequest(`Invalid patternType ${patternTypeName(acl.patternType)}`);
  if (acl.operation === AclOperation.UNKNOWN || acl.operation === AclOperation.ANY)
    throw new InvalidRequest(`Invalid operation ${operationName(acl.operation)}`);
  if (acl.permissionType !== AclPermissionType.DENY && acl.permissionType !== AclPermissionType.ALLOW)
    throw new InvalidRequest(`Invalid permissionType ${permissionTypeName(acl.permissionType)}`);
  if (acl.resourceName === '') throw new InvalidRequest('Resource name should not be empty');
}

function failure(e: unknown): { errorCode: number; errorMessage: string | null } {
  if (e instanceof InvalidRequest) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: e.message };
  return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'Unknown error while trying to create ACL' };
}

/** AclApis.handleCreateAcls + AclControlManager.createAcls: one result per creation, in order. */
export function createAcls(
  image: MetadataImage,
  creations: readonly AclCreation[],
  newId: () => string = randomUuid,
): { records: MetadataRecord[]; results: AclCreationResult[] } {
  const existing = new Set([...image.acls.values()].map(aclKey));
  const ids = new Set(image.acls.keys());
  const records: MetadataRecord[] = [];
  const results: AclCreationResult[] = [];
  for (const c of creations) {
    const acl = aclBindingOf(c);
    try {
      validateInAclApis(acl);
      validateNewAcl(acl);
    } catch (e) {
      results.push(failure(e));
      continue;
    }
    const key = aclKey(acl);
    if (!existing.has(key)) {
      existing.add(key);
      let id: string;
      do id = newId();
      while (ids.has(id));
      ids.add(id);
      records.push(metadataRecord(RecordType.AccessControlEntry, 0, { id, ...acl }));
    }
    results.push({ errorCode: ErrorCode.NONE, errorMessage: null });
  }
  if (records.length > MAX_RECORDS_PER_USER_OP)
    return {
      records: [],
      results: creations.map(() => ({
        errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
        errorMessage: `Cannot create more than ${MAX_RECORDS_PER_USER_OP} acls in a single operation.`,
      })),
    };
  return { records, results };
}

/** AclControlManager.deleteAcls: one result per filter; records are all written or none. */
export function deleteAcls(
  image: MetadataImage,
  filters: readonly DeleteFilter[],
): { records: MetadataRecord[]; results: FilterResult[] } {
  const removed = new Set<string>();
  const results: FilterResult[] = [];
  for (const raw of filters) {
    const filter = aclFilterOf(raw);
    if (patternFilterIsUnknown(filter)) {
      results.push({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unknown patternFilter.', matchingAcls: [] });
      continue;
    }
    if (entryFilterIsUnknown(filter)) {
      results.push({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unknown entryFilter.', matchingAcls: [] });
      continue;
    }
    const matchingAcls: FilterResult['matchingAcls'] = [];
    let tooMany = false;
    for (const [id, acl] of image.acls) {
      if (!aclFilterMatches(filter, acl)) continue;
      matchingAcls.push({
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        resourceType: acl.resourceType,
        resourceName: acl.resourceName,
        patternType: acl.patternType,
        principal: acl.principal,
        host: acl.host,
        operation: acl.operation,
        permissionType: acl.permissionType,
      });
      removed.add(id);
      if (removed.size > MAX_RECORDS_PER_USER_OP) {
        tooMany = true;
        break;
      }
    }
    if (tooMany)
      results.push({
        errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
        errorMessage: `Cannot remove more than ${MAX_RECORDS_PER_USER_OP} acls in a single delete operation.`,
        matchingAcls: [],
      });
    else results.push({ errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls });
  }
  const records = [...removed].map((id) => metadataRecord(RecordType.RemoveAccessControlEntry, 0, { id }));
  return { records, results };
}
