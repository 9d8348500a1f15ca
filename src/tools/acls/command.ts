// What `tkafka acls` computes from its flags before it talks to the cluster, as Kafka 4.4's
// AclCommand does: the option checks (AclCommandOptions.checkArgs), the resource patterns or
// filters of the command line and the access control entries for each
// (getResourceFilterToAcls, with the --producer / --consumer conveniences), and the checks on them.
//
// Kafka keeps these in HashMaps and HashSets of objects whose hash codes include enum identity
// hashes, so its order changes from one JVM run to the next; tkafka keeps a stable order: resources
// in the order Kafka builds them (topics, cluster, groups, transactional ids, delegation tokens,
// users; each in the order given), entries by principal, operation, host, then ALLOW before DENY.
import type { JoptOptions } from '../common/jopt.js';
import type { AccessControlEntry, ResourcePatternFilter } from '../../client/admin/acls.js';
import {
  ACL_OPERATIONS,
  PATTERN_TYPES,
  supportedOperations as supportedOperationsOf,
  type AclOperationName,
  type PatternTypeName,
  type PermissionTypeName,
  type ResourceTypeName,
} from '../../protocol/acl.js';
import { pascalCase } from './spec.js';

/** A usage failure: Kafka's CommandLineUtils.printUsageAndExit (message + help on stderr, exit 1). */
export class AclUsageError extends Error {
  override name = 'AclUsageError';
}

/** A failure inside Kafka's `try` in main: `Error while executing ACL command: <message>` (exit 1). */
export class AclCommandError extends Error {
  override name = 'AclCommandError';
  constructor(
    message: string,
    /** The Java exception class Kafka's stack trace starts with. */
    readonly javaClass: string,
  ) {
    super(message);
  }
  javaString(): string {
    return `${this.javaClass}: ${this.message}`;
  }
}

/** AclCommandOptions.checkArgs (after --help / --version): the first failed rule's message, or null. */
export function checkArgs(o: JoptOptions, hasDefaultBootstrap: boolean): string | null {
  if (o.has('bootstrap-server') && o.has('bootstrap-controller'))
    return 'Only one of --bootstrap-server or --bootstrap-controller must be specified';
  if (!o.has('bootstrap-server') && !o.has('bootstrap-controller') && !hasDefaultBootstrap)
    return 'One of --bootstrap-server or --bootstrap-controller must be specified';
  if (['add', 'remove', 'list'].filter((a) => o.has(a)).length !== 1)
    return 'Command must include exactly one action: --list, --add, --remove. ';
  const invalid = (used: string, others: string[]): string | null => {
    if (!o.has(used)) return null;
    for (const other of others) if (o.has(other)) return `Option "[${used}]" can't be used with option "[${other}]"`;
    return null;
  };
  const problem =
    invalid('list', ['producer', 'consumer', 'allow-host', 'allow-principal', 'deny-host', 'deny-principal']) ??
    invalid('producer', ['operation', 'deny-principal', 'deny-host']) ??
    invalid('consumer', ['operation', 'deny-principal', 'deny-host']);
  if (problem !== null) return problem;
  if (o.has('principal') && !o.has('list')) return 'The --principal option is only available if --list is set';
  if (o.has('producer') && !o.has('topic')) return 'With --producer you must specify a --topic';
  if (o.has('idempotent') && !o.has('producer'))
    return 'The --idempotent option is only available if --producer is set';
  if (
    o.has('consumer') &&
    (!o.has('topic') || !o.has('group') || (!o.has('producer') && (o.has('cluster') || o.has('transactional-id'))))
  )
    return 'With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.';
  return null;
}

/** opts.valueOf(resourcePatternType) through Kafka's PatternTypeConverter (jopt's EnumConverter). */
export function patternTypeOf(o: JoptOptions): PatternTypeName {
  const values = o.valuesOf('resource-pattern-type').map(String);
  if (values.length > 1)
    throw new AclCommandError(
      'Found multiple arguments for option resource-pattern-type, but you asked for only one',
      'joptsimple.MultipleArgumentsForOptionException',
    );
  const raw = values[0] ?? 'LITERAL';
  const found = PATTERN_TYPES.find((p) => p.toLowerCase() === raw.toLowerCase());
  if (found === undefined || found === 'UNKNOWN')
    throw new AclCommandError(
      `Cannot parse argument '${raw}' of option resource-pattern-type`,
      'joptsimple.OptionArgumentConversionException',
    );
  return found;
}

/** PatternType.isSpecific: LITERAL or PREFIXED. */
export const isSpecific = (p: PatternTypeName): boolean => p === 'LITERAL' || p === 'PREFIXED';

/** SecurityUtils.parseKafkaPrincipal, as the principal's toString (`type:name`). */
export function parsePrincipal(s: string): string {
  const i = s.indexOf(':');
  if (s === '' || i < 0)
    throw new AclCommandError(
      `expected a string in format principalType:principalName but got ${s}`,
      'java.lang.IllegalArgumentException',
    );
  return s;
}

/** SecurityUtils.operation: `Write` or `WRITE` (PascalCase or its upper case), else UNKNOWN. */
export function parseOperation(s: string): AclOperationName {
  for (const op of ACL_OPERATIONS) {
    const p = pascalCase(op);
    if (s === p || s === p.toUpperCase()) return op;
  }
  return 'UNKNOWN';
}

/** AclEntry.supportedOperations; an IllegalArgumentException for ANY and UNKNOWN, as Kafka's. */
export function supportedOperations(type: ResourceTypeName): AclOperationName[] {
  const ops = supportedOperationsOf(type);
  if (ops === null) throw new AclCommandError('Not a concrete resource type', 'java.lang.IllegalArgumentException');
  return [...ops];
}

const enumOrder = (op: AclOperationName): number => ACL_OPERATIONS.indexOf(op);

export function compareEntries(a: AccessControlEntry, b: AccessControlEntry): number {
  const s = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  return (
    s(a.principal, b.principal) ||
    enumOrder(a.operation) - enumOrder(b.operation) ||
    s(a.host, b.host) ||
    (a.permissionType === b.permissionType ? 0 : a.permissionType === 'ALLOW' ? -1 : 1)
  );
}

const entryKey = (e: AccessControlEntry): string =>
  JSON.stringify([e.principal, e.host, e.operation, e.permissionType]);
const filterKey = (f: ResourcePatternFilter): string => JSON.stringify([f.resourceType, f.name, f.patternType]);

/** A Set<AccessControlEntry>: no duplicates, sorted for printing. */
function entrySet(entries: AccessControlEntry[]): AccessControlEntry[] {
  const m = new Map<string, AccessControlEntry>();
  for (const e of entries) m.set(entryKey(e), e);
  return [...m.values()].sort(compareEntries);
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

/** getPrincipals: the principals of a flag (trimmed, parsed). */
export function principalsOf(o: JoptOptions, flag: string): string[] {
  return o.has(flag) ? unique(o.valuesOf(flag).map((v) => parsePrincipal(String(v).trim()))) : [];
}

/** getHosts: the hosts of a flag, else `*` when the matching principal flag is given. */
function hostsOf(o: JoptOptions, hostFlag: string, principalFlag: string): string[] {
  if (o.has(hostFlag)) return unique(o.valuesOf(hostFlag).map((v) => String(v).trim()));
  if (o.has(principalFlag)) return ['*'];
  return [];
}

/** getAcl(opts, operations): every principal × operation × host, ALLOW then DENY. */
function aclsFor(o: JoptOptions, operations: AclOperationName[]): AccessControlEntry[] {
  const allowed = principalsOf(o, 'allow-principal');
  const denied = principalsOf(o, 'deny-principal');
  const allowedHosts = hostsOf(o, 'allow-host', 'allow-principal');
  const deniedHosts = hostsOf(o, 'deny-host', 'deny-principal');
  const out: AccessControlEntry[] = [];
  const add = (principals: string[], permissionType: PermissionTypeName, hosts: string[]): void => {
    for (const principal of principals)
      for (const operation of operations)
        for (const host of hosts) {
          if (operation === 'ANY')
            throw new AclCommandError('operation must not be ANY', 'java.lang.IllegalArgumentException');
          out.push({ principal, host, operation, permissionType });
        }
  };
  if (allowedHosts.length > 0 && allowed.length > 0) add(allowed, 'ALLOW', allowedHosts);
  if (deniedHosts.length > 0 && denied.length > 0) add(denied, 'DENY', deniedHosts);
  return entrySet(out);
}

/** getAcl(opts): the --operation values (default All). */
function cliAcls(o: JoptOptions): AccessControlEntry[] {
  return aclsFor(o, unique(o.valuesOf('operation').map((v) => parseOperation(String(v).trim()))));
}

export const CLUSTER_FILTER: ResourcePatternFilter = {
  resourceType: 'CLUSTER',
  name: 'kafka-cluster',
  patternType: 'LITERAL',
};

/** getResourceFilter: the resources of the command line; Kafka's usage message when none and `dieIfNone`. */
export function resourceFilters(o: JoptOptions, dieIfNone = true): ResourcePatternFilter[] {
  const patternType = patternTypeOf(o);
  const out = new Map<string, ResourcePatternFilter>();
  const add = (resourceType: ResourceTypeName, name: string): void => {
    const f = { resourceType, name, patternType };
    if (!out.has(filterKey(f))) out.set(filterKey(f), f);
  };
  for (const t of o.has('topic') ? o.valuesOf('topic') : []) add('TOPIC', String(t).trim());
  if (patternType === 'LITERAL' && (o.has('cluster') || o.has('idempotent')))
    out.set(filterKey(CLUSTER_FILTER), CLUSTER_FILTER);
  for (const g of o.has('group') ? o.valuesOf('group') : []) add('GROUP', String(g).trim());
  // Kafka does not trim transactional ids.
  for (const t of o.has('transactional-id') ? o.valuesOf('transactional-id') : []) add('TRANSACTIONAL_ID', String(t));
  for (const t of o.has('delegation-token') ? o.valuesOf('delegation-token') : [])
    add('DELEGATION_TOKEN', String(t).trim());
  for (const u of o.has('user-principal') ? o.valuesOf('user-principal') : []) add('USER', String(u).trim());
  if (out.size === 0 && dieIfNone)
    throw new AclUsageError(
      'You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>',
    );
  return [...out.values()];
}

export interface FilterAcls {
  filter: ResourcePatternFilter;
  acls: AccessControlEntry[];
}

/** A LinkedHashMap<ResourcePatternFilter, Set<AccessControlEntry>>. */
class FilterMap {
  private readonly m = new Map<string, FilterAcls>();
  put(filter: ResourcePatternFilter, acls: AccessControlEntry[]): void {
    this.m.set(filterKey(filter), { filter, acls });
  }
  get(filter: ResourcePatternFilter): AccessControlEntry[] | undefined {
    return this.m.get(filterKey(filter))?.acls;
  }
  entries(): FilterAcls[] {
    return [...this.m.values()];
  }
}

function producerAcls(o: JoptOptions, map: FilterMap): void {
  const filters = resourceFilters(o);
  const topics = filters.filter((f) => f.resourceType === 'TOPIC');
  const txnIds = filters.filter((f) => f.resourceType === 'TRANSACTIONAL_ID');
  const topicAcls = aclsFor(o, ['WRITE', 'DESCRIBE', 'CREATE']);
  const txnAcls = aclsFor(o, ['WRITE', 'DESCRIBE']);
  for (const t of topics) map.put(t, topicAcls);
  for (const t of txnIds) map.put(t, txnAcls);
  if (o.has('idempotent')) map.put(CLUSTER_FILTER, aclsFor(o, ['IDEMPOTENT_WRITE']));
}

function consumerAcls(o: JoptOptions, map: FilterMap): void {
  const filters = resourceFilters(o);
  const acls = aclsFor(o, ['READ', 'DESCRIBE']);
  const groupAcls = aclsFor(o, ['READ']);
  for (const f of filters) {
    const own = f.resourceType === 'TOPIC' ? acls : f.resourceType === 'GROUP' ? groupAcls : null;
    if (own === null) continue;
    map.put(f, entrySet([...own, ...(map.get(f) ?? [])]));
  }
}

/** validateOperation: every entry's operation must be supported by its resource type (or ALL). */
function validateOperations(entries: FilterAcls[]): void {
  for (const { filter, acls } of entries) {
    const valid = [...supportedOperations(filter.resourceType), 'ALL'] as AclOperationName[];
    if (acls.some((a) => !valid.includes(a.operation))) {
      const shown = [...valid].sort((a, b) => enumOrder(a) - enumOrder(b));
      throw new AclUsageError(`ResourceType ${filter.resourceType} only supports operations [${shown.join(', ')}]`);
    }
  }
}

/** getResourceFilterToAcls. */
export function resourceFilterToAcls(o: JoptOptions): FilterAcls[] {
  const map = new FilterMap();
  if (!o.has('producer') && !o.has('consumer')) {
    const acls = cliAcls(o);
    for (const f of resourceFilters(o)) map.put(f, acls);
  }
  if (o.has('producer')) producerAcls(o, map);
  if (o.has('consumer')) consumerAcls(o, map);
  const entries = map.entries();
  validateOperations(entries);
  return entries;
}

/** getResourceToAcls (for --add): specific pattern type, and at least one entry per resource. */
export function resourceToAcls(o: JoptOptions): FilterAcls[] {
  const patternType = patternTypeOf(o);
  if (!isSpecific(patternType))
    throw new AclUsageError(`A '--resource-pattern-type' value of '${patternType}' is not valid when adding acls.`);
  const entries = resourceFilterToAcls(o);
  if (entries.some((e) => e.acls.length === 0))
    throw new AclUsageError('You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.');
  return entries;
}
