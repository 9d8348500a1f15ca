// Shared pieces of the ACL checks of the group, offset, coordinator and transaction APIs
// (KafkaApis / AuthHelper, Kafka 4.4): the group's authorized operations, the error entries Kafka
// builds for a denied group or partition, and the split of a list by an ACL. Which API checks what
// is listed in docs/notes/i18-authz.md.
import type { BrokerServices } from '../services.js';
import type { RequestContext } from './types.js';
import { AclOperation, ResourceType, authorize, authorizedOperations, authorizerOf } from './authz.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';

type Services = Pick<BrokerServices, 'authorizer'>;
type Ctx = Pick<RequestContext, 'principal' | 'clientAddress'>;

/** AclEntry.supportedOperations(GROUP): READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS. */
const GROUP_OPERATIONS = [
  AclOperation.READ,
  AclOperation.DESCRIBE,
  AclOperation.DELETE,
  AclOperation.DESCRIBE_CONFIGS,
  AclOperation.ALTER_CONFIGS,
];

/** AuthHelper.authorizedOperations(request, GROUP resource): all supported without an authorizer. */
export function groupAuthorizedOperations(services: Services, ctx: Ctx, groupId: string): number {
  if (!authorizerOf(services)) {
    let bits = 0;
    for (const op of GROUP_OPERATIONS) bits |= 1 << op;
    return bits;
  }
  return authorizedOperations(services, ctx, ResourceType.GROUP, groupId, GROUP_OPERATIONS);
}

/** DescribeGroupsResponse.groupError(groupId, error): empty state, protocol type and protocol. */
export function describeGroupsError(groupId: string, errorCode: number) {
  return {
    groupId,
    errorCode,
    errorMessage: null,
    groupState: '',
    protocolType: '',
    protocolData: '',
    members: [],
    authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}

/** AuthHelper.partitionSeqByAuthorized: the items whose resource the principal may act on, and the others. */
export function partitionByAuthorized<T>(
  services: Services,
  ctx: Ctx,
  operation: number,
  resourceType: number,
  items: readonly T[],
  nameOf: (item: T) => string,
): { authorized: T[]; unauthorized: T[] } {
  const verdicts = new Map<string, boolean>();
  const authorized: T[] = [];
  const unauthorized: T[] = [];
  for (const item of items) {
    const name = nameOf(item);
    let ok = verdicts.get(name);
    if (ok === undefined) {
      ok = authorize(services, ctx, operation, resourceType, name);
      verdicts.set(name, ok);
    }
    (ok ? authorized : unauthorized).push(item);
  }
  return { authorized, unauthorized };
}

/** Whether the principal may DESCRIBE the topic (listings leave out the others). */
export function canDescribeTopic(services: Services, ctx: Ctx, topic: string): boolean {
  return authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
}
