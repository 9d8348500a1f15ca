// kafka-acls.sh's text (AclCommand, Kafka 4.4): the `Adding ACLs for resource` and `Current ACLs for
// resource` blocks, the --remove questions, and the rows of --output json / table.
//
// Kafka groups the bindings in a HashMap<ResourcePattern, Set<AccessControlEntry>>, whose order
// changes from one JVM run to the next (the hash codes include enum identity hashes); tkafka prints
// the resources by type, pattern type and name, and the entries in compareEntries' order.
import { PATTERN_TYPES, RESOURCE_TYPES } from '../../protocol/acl.js';
import {
  entryString,
  resourcePatternFilterString,
  resourcePatternString,
  type AccessControlEntry,
  type AclBinding,
  type ResourcePattern,
  type ResourcePatternFilter,
} from '../../client/admin/acls.js';
import { compareEntries } from './command.js';

const NL = '\n';

const entryLines = (entries: readonly AccessControlEntry[]): string =>
  entries.map((e) => '\t' + entryString(e)).join(NL);

/** addAcls' line (println adds the last newline). */
export function addingLines(pattern: ResourcePattern, entries: readonly AccessControlEntry[]): string {
  return `Adding ACLs for resource \`${resourcePatternString(pattern)}\`: ${NL} ${entryLines(entries)}${NL}`;
}

/** removeAcls' question for a filter with entries. */
export function removePrompt(filter: ResourcePatternFilter, entries: readonly AccessControlEntry[]): string {
  return `Are you sure you want to remove ACLs: ${NL} ${entryLines(entries)}${NL} from resource filter \`${resourcePatternFilterString(filter)}\`? (y/n)`;
}

/** removeAcls' question for a filter without entries (every ACL of the resource). */
export function removeAllPrompt(filter: ResourcePatternFilter): string {
  return `Are you sure you want to delete all ACLs for resource filter \`${resourcePatternFilterString(filter)}\`? (y/n)`;
}

export interface PatternAcls {
  pattern: ResourcePattern;
  acls: AccessControlEntry[];
}

const patternKey = (p: ResourcePattern): string => JSON.stringify([p.resourceType, p.name, p.patternType]);
const entryKey = (e: AccessControlEntry): string =>
  JSON.stringify([e.principal, e.host, e.operation, e.permissionType]);

/** getAcls: the bindings by resource pattern, each entry once. */
export function groupByPattern(bindings: readonly AclBinding[]): PatternAcls[] {
  const m = new Map<string, { pattern: ResourcePattern; acls: Map<string, AccessControlEntry> }>();
  for (const b of bindings) {
    const k = patternKey(b.pattern);
    if (!m.has(k)) m.set(k, { pattern: b.pattern, acls: new Map() });
    m.get(k)!.acls.set(entryKey(b.entry), b.entry);
  }
  const order = (p: ResourcePattern): [number, number, string] => [
    RESOURCE_TYPES.indexOf(p.resourceType),
    PATTERN_TYPES.indexOf(p.patternType),
    p.name,
  ];
  return [...m.values()]
    .map((v) => ({ pattern: v.pattern, acls: [...v.acls.values()].sort(compareEntries) }))
    .sort((a, b) => {
      const [at, ap, an] = order(a.pattern);
      const [bt, bp, bn] = order(b.pattern);
      return at - bt || ap - bp || (an < bn ? -1 : an > bn ? 1 : 0);
    });
}

/** printResourceAcls: one `Current ACLs for resource` block per pattern (each ends with a blank line). */
function currentLines(blocks: readonly PatternAcls[]): string {
  return blocks
    .map(
      (b) => `Current ACLs for resource \`${resourcePatternString(b.pattern)}\`:${NL}${entryLines(b.acls)}${NL}${NL}`,
    )
    .join('');
}

/** listAcls' output: every block, or per --principal its header and its own entries' blocks. */
export function listLines(blocks: readonly PatternAcls[], principals: readonly string[]): string {
  if (principals.length === 0) return currentLines(blocks);
  return principals
    .map((p) => {
      const own = blocks
        .map((b) => ({ pattern: b.pattern, acls: b.acls.filter((a) => a.principal === p) }))
        .filter((b) => b.acls.length > 0);
      return `ACLs for principal \`${p}\`${NL}${currentLines(own)}`;
    })
    .join('');
}

export interface BindingRow {
  resourceType: string;
  name: string;
  patternType: string;
  principal: string;
  host: string;
  operation: string;
  permissionType: string;
}

/** The bindings for --output json / table, flat, in the text output's order. */
export function bindingRows(bindings: readonly AclBinding[]): BindingRow[] {
  return groupByPattern(bindings).flatMap((b) =>
    b.acls.map((e) => ({
      resourceType: b.pattern.resourceType,
      name: b.pattern.name,
      patternType: b.pattern.patternType,
      principal: e.principal,
      host: e.host,
      operation: e.operation,
      permissionType: e.permissionType,
    })),
  );
}
