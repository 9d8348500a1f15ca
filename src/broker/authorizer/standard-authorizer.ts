// Kafka's StandardAuthorizer (org.apache.kafka.metadata.authorizer): the ACLs are the
// AccessControlEntryRecords of the metadata image, and StandardAuthorizerData.authorize decides:
// a super user (`super.users`, `;`-separated principals) is allowed everything; otherwise the ACLs
// of the action's resource type whose pattern matches the resource (LITERAL equal name, LITERAL `*`,
// PREFIXED a prefix of the name) are checked for the principal (or `User:*`) and host (or `*`): a
// matching DENY wins, then a matching ALLOW; DESCRIBE is implied by an ALLOW of READ, WRITE,
// DELETE or ALTER, DESCRIBE_CONFIGS by ALTER_CONFIGS, and ALL is every operation. With no ACL at
// all on the resource the answer is `allow.everyone.if.no.acl.found` (default false); with ACLs on
// it but none matching, DENIED. The authorizer is enabled by
// authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer (config/support.ts
// refuses any other class).
import { STANDARD_AUTHORIZER_CLASS } from '../../config/support.js';
import {
  AclOperation,
  AclPermissionType,
  PatternType,
  ResourceType,
  WILDCARD_PRINCIPAL,
  WILDCARD_RESOURCE,
} from '../../protocol/acl.js';
import { bindingOf, compareAcls, aclFilterMatches, type AclBinding, type AclBindingFilter } from './acl.js';

export { STANDARD_AUTHORIZER_CLASS };

export type AuthorizationResult = 'ALLOWED' | 'DENIED';

/** What the authorizer needs of a request (AuthorizableRequestContext). */
export interface AuthorizableContext {
  /** `Type:name`, e.g. `User:alice`. */
  readonly principal: string;
  /** The client's address (InetAddress.getHostAddress()). */
  readonly clientAddress: string;
}

/** An Action: the operation on a LITERAL resource. */
export interface AuthorizerAction {
  readonly operation: number;
  readonly resourceType: number;
  readonly resourceName: string;
  /** Only LITERAL is supported (as Kafka's: IllegalArgumentException otherwise). */
  readonly patternType?: number;
}

const IMPLIES_DESCRIBE: ReadonlySet<number> = new Set([
  AclOperation.DESCRIBE,
  AclOperation.READ,
  AclOperation.WRITE,
  AclOperation.DELETE,
  AclOperation.ALTER,
]);
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<number> = new Set([
  AclOperation.DESCRIBE_CONFIGS,
  AclOperation.ALTER_CONFIGS,
]);

/** StandardAuthorizer.getConfiguredSuperUsers: `;`-separated, trimmed, empty entries dropped. */
export function parseSuperUsers(value: string | undefined | null): Set<string> {
  const out = new Set<string>();
  if (value === undefined || value === null) return out;
  for (const part of value.split(';')) {
    const v = part.trim();
    if (v === '') continue;
    parsePrincipal(v); // SecurityUtils.parseKafkaPrincipal: throws on a malformed one
    out.add(v);
  }
  return out;
}

/** SecurityUtils.parseKafkaPrincipal. */
export function parsePrincipal(s: string): { type: string; name: string } {
  const i = s.indexOf(':');
  if (i === -1) throw new Error(`expected a string in format principalType:principalName but got ${s}`);
  return { type: s.slice(0, i), name: s.slice(i + 1) };
}

/** StandardAuthorizer.getDefaultResult: Boolean.parseBoolean of allow.everyone.if.no.acl.found. */
export function parseAllowEveryone(value: string | undefined | null): boolean {
  return value !== undefined && value !== null && value.trim().toLowerCase() === 'true';
}

/** The host as getHostAddress() gives it: an IPv4-mapped IPv6 address is its IPv4 form. */
export function hostAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

/** StandardAuthorizerData.findResult: the ACL's verdict on the action, or null when it does not apply. */
export function findResult(
  operation: number,
  principals: readonly string[],
  host: string,
  acl: AclBinding,
): AuthorizationResult | null {
  if (!principals.includes(acl.principal)) return null;
  if (acl.host !== WILDCARD_RESOURCE && acl.host !== host) return null;
  if (acl.operation !== AclOperation.ALL) {
    if (acl.permissionType === AclPermissionType.ALLOW) {
      switch (operation) {
        case AclOperation.DESCRIBE:
          if (!IMPLIES_DESCRIBE.has(acl.operation)) return null;
          break;
        case AclOperation.DESCRIBE_CONFIGS:
          if (!IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return null;
          break;
        default:
          if (operation !== acl.operation) return null;
      }
    } else if (operation !== acl.operation) return null;
  }
  return acl.permissionType === AclPermissionType.ALLOW ? 'ALLOWED' : 'DENIED';
}

/** Whether an ACL's pattern covers a LITERAL resource name (the sections checkSection walks). */
function patternCovers(acl: AclBinding, name: string): boolean {
  if (acl.patternType === PatternType.LITERAL)
    return acl.resourceName === name || acl.resourceName === WILDCARD_RESOURCE;
  if (acl.patternType === PatternType.PREFIXED) return name.startsWith(acl.resourceName);
  return false;
}

export interface StandardAuthorizerOptions {
  readonly superUsers: ReadonlySet<string>;
  readonly allowEveryoneIfNoAclFound: boolean;
}

/**
 * The decision engine over one ACL set. ACLs are grouped by resource type once per set (the image's
 * acls map is replaced, never mutated, so its identity says when to regroup).
 */
export class StandardAuthorizer {
  private source: ReadonlyMap<string, AclBinding> | null = null;
  private byType = new Map<number, AclBinding[]>();

  constructor(
    readonly options: StandardAuthorizerOptions,
    private readonly acls: () => ReadonlyMap<string, AclBinding>,
  ) {}

  static fromConfig(
    get: (key: string) => string | undefined,
    acls: () => ReadonlyMap<string, AclBinding>,
  ): StandardAuthorizer | null {
    if ((get('authorizer.class.name') ?? '').trim() !== STANDARD_AUTHORIZER_CLASS) return null;
    return new StandardAuthorizer(
      {
        superUsers: parseSuperUsers(get('super.users')),
        allowEveryoneIfNoAclFound: parseAllowEveryone(get('allow.everyone.if.no.acl.found')),
      },
      acls,
    );
  }

  private aclsOfType(resourceType: number): readonly AclBinding[] {
    const current = this.acls();
    if (current !== this.source) {
      const byType = new Map<number, AclBinding[]>();
      for (const a of current.values()) {
        let list = byType.get(a.resourceType);
        if (!list) byType.set(a.resourceType, (list = []));
        list.push(a);
      }
      this.byType = byType;
      this.source = current;
    }
    return this.byType.get(resourceType) ?? [];
  }

  /** StandardAuthorizerData.authorize for one action. */
  authorize(ctx: AuthorizableContext, action: AuthorizerAction): AuthorizationResult {
    const patternType = action.patternType ?? PatternType.LITERAL;
    if (patternType !== PatternType.LITERAL)
      throw new Error(`Only literal resources are supported. Got: ${patternType}`);
    if (this.options.superUsers.has(ctx.principal)) return 'ALLOWED';
    const principals = [ctx.principal, WILDCARD_PRINCIPAL];
    const host = hostAddress(ctx.clientAddress);
    let hasResourceAcls = false;
    let allowed = false;
    for (const acl of this.aclsOfType(action.resourceType)) {
      if (!patternCovers(acl, action.resourceName)) continue;
      hasResourceAcls = true;
      const r = findResult(action.operation, principals, host, acl);
      if (r === 'DENIED') return 'DENIED';
      if (r === 'ALLOWED') allowed = true;
    }
    if (allowed) return 'ALLOWED';
    if (!hasResourceAcls) return this.options.allowEveryoneIfNoAclFound ? 'ALLOWED' : 'DENIED';
    return 'DENIED';
  }

  /**
   * Authorizer.authorizeByResourceType (the interface default StandardAuthorizer inherits, KIP-679):
   * whether the principal may do `operation` on at least one resource of the type. ALLOWED when the
   * action on a made-up literal name is (super users, allow.everyone.if.no.acl.found); DENIED by a
   * matching LITERAL `*` DENY; else ALLOWED by a matching LITERAL `*` ALLOW, or by a matching ALLOW
   * whose name no matching DENY covers (the same literal, or a prefixed deny on a prefix of it).
   * Only the exact operation or ALL counts: there is no implication here.
   */
  authorizeByResourceType(ctx: AuthorizableContext, operation: number, resourceType: number): AuthorizationResult {
    // SecurityUtils.authorizeByResourceTypeCheckArgs
    if (resourceType === ResourceType.ANY)
      throw new Error('Must specify a non-filter resource type for authorizeByResourceType');
    if (resourceType === ResourceType.UNKNOWN) throw new Error('Unknown resource type');
    if (operation === AclOperation.ANY)
      throw new Error('Must specify a non-filter operation type for authorizeByResourceType');
    if (operation === AclOperation.UNKNOWN) throw new Error('Unknown operation type');
    if (this.authorize(ctx, { operation, resourceType, resourceName: 'hardcode' }) === 'ALLOWED') return 'ALLOWED';
    const host = hostAddress(ctx.clientAddress);
    const deny = { literal: new Set<string>(), prefixed: new Set<string>() };
    const allow = { literal: new Set<string>(), prefixed: new Set<string>() };
    let wildcardAllow = false;
    for (const acl of this.aclsOfType(resourceType)) {
      if (acl.host !== host && acl.host !== WILDCARD_RESOURCE) continue;
      if (acl.principal !== ctx.principal && acl.principal !== WILDCARD_PRINCIPAL) continue;
      if (acl.operation !== operation && acl.operation !== AclOperation.ALL) continue;
      const literal = acl.patternType === PatternType.LITERAL;
      const prefixed = acl.patternType === PatternType.PREFIXED;
      if (acl.permissionType === AclPermissionType.DENY) {
        if (literal && acl.resourceName === WILDCARD_RESOURCE) return 'DENIED';
        if (literal) deny.literal.add(acl.resourceName);
        else if (prefixed) deny.prefixed.add(acl.resourceName);
        continue;
      }
      if (acl.permissionType !== AclPermissionType.ALLOW) continue;
      if (literal && acl.resourceName === WILDCARD_RESOURCE) wildcardAllow = true;
      else if (literal) allow.literal.add(acl.resourceName);
      else if (prefixed) allow.prefixed.add(acl.resourceName);
    }
    if (wildcardAllow) return 'ALLOWED';
    const dominated = (name: string): boolean => {
      for (let i = 1; i <= name.length; i++) if (deny.prefixed.has(name.slice(0, i))) return true;
      return false;
    };
    for (const name of allow.literal) if (!deny.literal.has(name) && !dominated(name)) return 'ALLOWED';
    for (const name of allow.prefixed) if (!dominated(name)) return 'ALLOWED';
    return 'DENIED';
  }

  /** The ACL bindings a filter matches (AclCache.acls), in StandardAcl order. */
  matching(filter: AclBindingFilter): AclBinding[] {
    return [...this.acls().values()]
      .filter((a) => aclFilterMatches(filter, a))
      .map(bindingOf)
      .sort(compareAcls);
  }
}
