// The authorizer engine (src/broker/authorizer/standard-authorizer.ts) on the cases of Kafka's
// StandardAuthorizerTest: super users, allow.everyone.if.no.acl.found, implied operations, principal
// and host matching, DENY before ALLOW with operation ALL, literal, prefixed and wildcard patterns,
// listing ACLs with a filter in StandardAcl order.
import test from 'node:test';
import assert from 'node:assert/strict';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType } from '../src/protocol/acl.js';
import type { AclBinding } from '../src/broker/authorizer/acl.js';
import {
  StandardAuthorizer,
  findResult,
  parseAllowEveryone,
  parseSuperUsers,
  type AuthorizationResult,
} from '../src/broker/authorizer/standard-authorizer.js';

const { TOPIC, GROUP, CLUSTER } = ResourceType;
const { LITERAL, PREFIXED } = PatternType;
const { ALLOW, DENY } = Perm;

function acl(
  resourceType: number,
  resourceName: string,
  patternType: number,
  principal: string,
  host: string,
  operation: number,
  permissionType: number,
): AclBinding {
  return { resourceType, resourceName, patternType, principal, host, operation, permissionType };
}

/** An authorizer over a mutable ACL set (replaced on change, as the metadata image's map is). */
function authorizer(
  acls: AclBinding[] = [],
  opts: { superUsers?: string; allowEveryone?: string } = {},
): { auth: StandardAuthorizer; set(acls: AclBinding[]): void } {
  let map = new Map(acls.map((a, i) => [`id${i}`, a] as const));
  const auth = new StandardAuthorizer(
    {
      superUsers: parseSuperUsers(opts.superUsers ?? 'User:superman'),
      allowEveryoneIfNoAclFound: parseAllowEveryone(opts.allowEveryone),
    },
    () => map,
  );
  return { auth, set: (a) => (map = new Map(a.map((x, i) => [`id${i}`, x] as const))) };
}

function check(
  auth: StandardAuthorizer,
  user: string,
  actions: [number, number, string][],
  host = '127.0.0.1',
): AuthorizationResult[] {
  return actions.map(([operation, resourceType, resourceName]) =>
    auth.authorize({ principal: `User:${user}`, clientAddress: host }, { operation, resourceType, resourceName }),
  );
}

const fooAcl = (op: number, perm: number): AclBinding => acl(TOPIC, 'foo_', PREFIXED, 'User:bob', '*', op, perm);
const barAcl = (op: number, perm: number): AclBinding => acl(GROUP, 'bar', LITERAL, 'User:*', '*', op, perm);

test('getConfiguredSuperUsers and getDefaultResult', () => {
  assert.deepEqual(parseSuperUsers(undefined), new Set());
  assert.deepEqual(parseSuperUsers(' '), new Set());
  assert.deepEqual(parseSuperUsers('User:bob;User:alice '), new Set(['User:bob', 'User:alice']));
  assert.deepEqual(parseSuperUsers(';  User:bob  ;  User:alice '), new Set(['User:bob', 'User:alice']));
  assert.throws(() => parseSuperUsers('bob;:alice'), {
    message: 'expected a string in format principalType:principalName but got bob',
  });
  assert.equal(parseAllowEveryone(undefined), false);
  assert.equal(parseAllowEveryone('true'), true);
  assert.equal(parseAllowEveryone('false'), false);
});

test('allow.everyone.if.no.acl.found: only resources without any ACL', () => {
  const acls = [acl(TOPIC, 'topic1', LITERAL, 'User:Alice', '*', Op.READ, ALLOW)];
  const on = authorizer(acls, { superUsers: 'User:alice;User:chris', allowEveryone: 'true' }).auth;
  assert.deepEqual(
    check(on, 'Bob', [
      [Op.READ, TOPIC, 'topic1'],
      [Op.READ, TOPIC, 'topic2'],
    ]),
    ['DENIED', 'ALLOWED'],
  );
  const off = authorizer(acls, { superUsers: 'User:alice;User:chris', allowEveryone: 'false' }).auth;
  assert.deepEqual(
    check(off, 'Bob', [
      [Op.READ, TOPIC, 'topic1'],
      [Op.READ, TOPIC, 'topic2'],
    ]),
    ['DENIED', 'DENIED'],
  );
  // super users are allowed everything, ACLs or not
  assert.deepEqual(check(off, 'alice', [[Op.ALTER, CLUSTER, 'kafka-cluster']]), ['ALLOWED']);
});

test('findResult: implied operations, DENY ACLs imply nothing', () => {
  const bob = ['User:bob', 'User:*'];
  for (const op of [Op.DESCRIBE, Op.READ, Op.WRITE, Op.DELETE, Op.ALTER])
    assert.equal(findResult(Op.DESCRIBE, bob, '127.0.0.1', fooAcl(op, ALLOW)), 'ALLOWED');
  assert.equal(findResult(Op.DESCRIBE, bob, '127.0.0.1', fooAcl(Op.CREATE, ALLOW)), null);
  for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER])
    assert.equal(findResult(Op.DESCRIBE, bob, '127.0.0.1', fooAcl(op, DENY)), null);
  assert.equal(findResult(Op.DESCRIBE, bob, '127.0.0.1', fooAcl(Op.DESCRIBE, DENY)), 'DENIED');
  for (const op of [Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS])
    assert.equal(findResult(Op.DESCRIBE_CONFIGS, bob, '127.0.0.1', fooAcl(op, ALLOW)), 'ALLOWED');
  assert.equal(findResult(Op.DESCRIBE_CONFIGS, bob, '127.0.0.1', fooAcl(Op.ALTER_CONFIGS, DENY)), null);
  assert.equal(findResult(Op.ALTER_CONFIGS, bob, '127.0.0.1', fooAcl(Op.ALTER_CONFIGS, DENY)), 'DENIED');
});

test('findResult: principal matching, User:* matches anyone', () => {
  assert.equal(findResult(Op.READ, ['User:bob', 'User:*'], '127.0.0.1', fooAcl(Op.READ, ALLOW)), 'ALLOWED');
  assert.equal(findResult(Op.READ, ['User:alice', 'User:*'], '127.0.0.1', fooAcl(Op.READ, ALLOW)), null);
  assert.equal(findResult(Op.READ, ['User:alice', 'User:*'], '127.0.0.1', barAcl(Op.READ, DENY)), 'DENIED');
});

test('listing ACLs with filters, in StandardAcl order', () => {
  const foo = [fooAcl(Op.READ, ALLOW), fooAcl(Op.WRITE, ALLOW)];
  const bar = [barAcl(Op.DESCRIBE_CONFIGS, DENY), barAcl(Op.ALTER_CONFIGS, DENY)];
  const a = authorizer([bar[1]!, foo[1]!, bar[0]!, foo[0]!]);
  const any = {
    resourceType: ResourceType.ANY,
    resourceName: null,
    patternType: PatternType.ANY,
    principal: null,
    host: null,
    operation: Op.ANY,
    permissionType: Perm.ANY,
  };
  assert.deepEqual(a.auth.matching(any), [foo[0], foo[1], bar[0], bar[1]]);
  a.set([foo[0]!, ...bar]);
  assert.deepEqual(a.auth.matching(any), [foo[0], bar[0], bar[1]]);
  assert.deepEqual(a.auth.matching({ ...any, resourceType: TOPIC }), [foo[0]]);
  // MATCH: the ACLs that would apply to a literal name (the prefixed foo_ covers foo_x)
  assert.deepEqual(
    a.auth.matching({ ...any, resourceType: TOPIC, resourceName: 'foo_x', patternType: PatternType.MATCH }),
    [foo[0]],
  );
  assert.deepEqual(a.auth.matching({ ...any, resourceName: 'foo_x', patternType: LITERAL }), []);
});

test('simple authorizations, DENY precedence with operation ALL', () => {
  const simple = authorizer([fooAcl(Op.READ, ALLOW), fooAcl(Op.WRITE, ALLOW), barAcl(Op.DESCRIBE_CONFIGS, ALLOW)]);
  assert.deepEqual(check(simple.auth, 'bob', [[Op.READ, TOPIC, 'foo_']]), ['ALLOWED']);
  assert.deepEqual(check(simple.auth, 'fred', [[Op.DESCRIBE_CONFIGS, GROUP, 'bar']]), ['ALLOWED']);

  const { auth } = authorizer([
    acl(TOPIC, 'foo', LITERAL, 'User:alice', '*', Op.ALL, DENY),
    acl(TOPIC, 'foo', PREFIXED, 'User:alice', '*', Op.READ, ALLOW),
    acl(TOPIC, 'foo', LITERAL, 'User:*', '*', Op.ALL, DENY),
    acl(TOPIC, 'foo', PREFIXED, 'User:*', '*', Op.DESCRIBE, ALLOW),
  ]);
  assert.deepEqual(
    check(auth, 'alice', [
      [Op.WRITE, TOPIC, 'foo'],
      [Op.READ, TOPIC, 'foo'],
      [Op.DESCRIBE, TOPIC, 'foo'],
      [Op.READ, TOPIC, 'foobar'],
    ]),
    ['DENIED', 'DENIED', 'DENIED', 'ALLOWED'],
  );
  assert.deepEqual(
    check(auth, 'bob', [
      [Op.DESCRIBE, TOPIC, 'foo'],
      [Op.READ, TOPIC, 'foo'],
      [Op.WRITE, TOPIC, 'foo'],
      [Op.DESCRIBE, TOPIC, 'foobaz'],
      [Op.READ, TOPIC, 'foobaz'],
    ]),
    ['DENIED', 'DENIED', 'DENIED', 'ALLOWED', 'DENIED'],
  );
});

test('topic ACLs with operation ALL', () => {
  const { auth } = authorizer([
    acl(TOPIC, 'foo', LITERAL, 'User:*', '*', Op.ALL, ALLOW),
    acl(TOPIC, 'bar', PREFIXED, 'User:alice', '*', Op.ALL, ALLOW),
    acl(TOPIC, 'baz', LITERAL, 'User:bob', '*', Op.ALL, ALLOW),
  ]);
  const actions = (a: number, b: number, c: number): [number, number, string][] => [
    [a, TOPIC, 'foo'],
    [b, TOPIC, 'bar'],
    [c, TOPIC, 'baz'],
  ];
  assert.deepEqual(check(auth, 'alice', actions(Op.WRITE, Op.DESCRIBE_CONFIGS, Op.DESCRIBE)), [
    'ALLOWED',
    'ALLOWED',
    'DENIED',
  ]);
  assert.deepEqual(check(auth, 'bob', actions(Op.WRITE, Op.READ, Op.DESCRIBE)), ['ALLOWED', 'DENIED', 'ALLOWED']);
  assert.deepEqual(check(auth, 'malory', actions(Op.DESCRIBE, Op.WRITE, Op.READ)), ['ALLOWED', 'DENIED', 'DENIED']);
});

test('host matching: an ACL names a host or *', () => {
  const host1 = '192.168.1.1';
  const host2 = '192.168.1.2';
  const local = '127.0.0.1';
  const { auth } = authorizer([
    acl(TOPIC, 'foo', LITERAL, 'User:alice', host1, Op.READ, DENY),
    acl(TOPIC, 'foo', LITERAL, 'User:alice', '*', Op.READ, ALLOW),
    acl(TOPIC, 'bar', LITERAL, 'User:bob', host2, Op.READ, ALLOW),
    acl(TOPIC, 'bar', LITERAL, 'User:*', local, Op.DESCRIBE, ALLOW),
  ]);
  const actions: [number, number, string][] = [
    [Op.READ, TOPIC, 'foo'],
    [Op.READ, TOPIC, 'bar'],
    [Op.DESCRIBE, TOPIC, 'bar'],
  ];
  assert.deepEqual(check(auth, 'alice', actions, local), ['ALLOWED', 'DENIED', 'ALLOWED']);
  assert.deepEqual(check(auth, 'alice', actions, host1), ['DENIED', 'DENIED', 'DENIED']);
  assert.deepEqual(check(auth, 'alice', actions, host2), ['ALLOWED', 'DENIED', 'DENIED']);
  assert.deepEqual(check(auth, 'bob', actions, local), ['DENIED', 'DENIED', 'ALLOWED']);
  assert.deepEqual(check(auth, 'bob', actions, host1), ['DENIED', 'DENIED', 'DENIED']);
  assert.deepEqual(check(auth, 'bob', actions, host2), ['DENIED', 'ALLOWED', 'ALLOWED']);
  // an IPv4-mapped IPv6 peer address is its IPv4 form (InetAddress.getHostAddress)
  assert.deepEqual(check(auth, 'alice', actions, `::ffff:${host1}`), ['DENIED', 'DENIED', 'DENIED']);
});

test('many ACLs: prefixes, wildcard resource, deny on a shorter prefix', () => {
  const { auth } = authorizer([
    acl(TOPIC, 'green2', LITERAL, 'User:*', '*', Op.READ, ALLOW),
    acl(TOPIC, 'green', PREFIXED, 'User:bob', '*', Op.READ, ALLOW),
    acl(TOPIC, 'betamax4', LITERAL, 'User:bob', '*', Op.READ, ALLOW),
    acl(TOPIC, 'betamax', LITERAL, 'User:bob', '*', Op.READ, ALLOW),
    acl(TOPIC, 'beta', PREFIXED, 'User:*', '*', Op.READ, ALLOW),
    acl(TOPIC, 'alpha', PREFIXED, 'User:*', '*', Op.READ, ALLOW),
    acl(TOPIC, 'alp', PREFIXED, 'User:bob', '*', Op.READ, DENY),
    acl(GROUP, '*', LITERAL, 'User:bob', '*', Op.WRITE, ALLOW),
    acl(GROUP, 'wheel', LITERAL, 'User:*', '*', Op.WRITE, DENY),
  ]);
  assert.deepEqual(
    check(auth, 'bob', [
      [Op.READ, TOPIC, 'green1'],
      [Op.WRITE, GROUP, 'wheel'],
    ]),
    ['ALLOWED', 'DENIED'],
  );
  assert.deepEqual(
    check(auth, 'bob', [
      [Op.READ, TOPIC, 'alpha'],
      [Op.WRITE, GROUP, 'arbitrary'],
      [Op.READ, TOPIC, 'ala'],
    ]),
    ['DENIED', 'ALLOWED', 'DENIED'],
  );
});

test('prefix ACLs', () => {
  const { auth } = authorizer([
    acl(TOPIC, 'fooa', PREFIXED, 'User:alice', '*', Op.ALL, ALLOW),
    acl(TOPIC, 'foobar', LITERAL, 'User:bob', '*', Op.ALL, ALLOW),
    acl(TOPIC, 'f', PREFIXED, 'User:bob', '*', Op.ALL, ALLOW),
  ]);
  assert.deepEqual(
    check(auth, 'bob', [
      [Op.WRITE, TOPIC, 'foobarr'],
      [Op.READ, TOPIC, 'goobar'],
      [Op.READ, TOPIC, 'fooa'],
    ]),
    ['ALLOWED', 'DENIED', 'ALLOWED'],
  );
  assert.deepEqual(
    check(auth, 'alice', [
      [Op.DESCRIBE, TOPIC, 'fooa'],
      [Op.WRITE, TOPIC, 'bar'],
      [Op.READ, TOPIC, 'baz'],
    ]),
    ['ALLOWED', 'DENIED', 'DENIED'],
  );
});

test('only LITERAL actions; a changed ACL set is seen at once', () => {
  const a = authorizer();
  assert.throws(() =>
    a.auth.authorize(
      { principal: 'User:bob', clientAddress: '127.0.0.1' },
      { operation: Op.READ, resourceType: TOPIC, resourceName: 'x', patternType: PREFIXED },
    ),
  );
  assert.deepEqual(check(a.auth, 'bob', [[Op.READ, TOPIC, 'x']]), ['DENIED']);
  a.set([acl(TOPIC, '*', LITERAL, 'User:bob', '*', Op.READ, ALLOW)]);
  assert.deepEqual(check(a.auth, 'bob', [[Op.READ, TOPIC, 'x']]), ['ALLOWED']);
  assert.deepEqual(check(a.auth, 'superman', [[Op.ALTER, CLUSTER, 'kafka-cluster']]), ['ALLOWED']);
});

/** An ACL set to add to and remove from, as BaseAuthorizerTest's addAcls/removeAcls. */
function mutable(superUsers = 'User:superuser1; User:superuser2') {
  const acls = new Map<string, AclBinding>();
  const key = (a: AclBinding): string => JSON.stringify(a);
  let snapshot = new Map(acls);
  const auth = new StandardAuthorizer(
    { superUsers: parseSuperUsers(superUsers), allowEveryoneIfNoAclFound: false },
    () => snapshot,
  );
  const entry = (principal: string, host: string, operation: number, permissionType: number) => ({
    principal,
    host,
    operation,
    permissionType,
  });
  type Entry = ReturnType<typeof entry>;
  type Pattern = [number, string, number];
  return {
    entry,
    add(entries: Entry[], [resourceType, resourceName, patternType]: Pattern): void {
      for (const e of entries) {
        const a = { resourceType, resourceName, patternType, ...e };
        acls.set(key(a), a);
      }
      snapshot = new Map(acls);
    },
    remove(entries: Entry[], [resourceType, resourceName, patternType]: Pattern): void {
      for (const e of entries) acls.delete(key({ resourceType, resourceName, patternType, ...e }));
      snapshot = new Map(acls);
    },
    byType(user: string, host: string, op: number, type: number): boolean {
      return auth.authorizeByResourceType({ principal: `User:${user}`, clientAddress: host }, op, type) === 'ALLOWED';
    },
  };
}

const H1 = '192.168.1.1';
const H2 = '192.168.1.2';

test('authorizeByResourceType: adding and removing ACLs, deny takes precedence', () => {
  const m = mutable();
  const r1: [number, string, number] = [TOPIC, 'sb1-x', LITERAL];
  const denyRead = m.entry('User:user1', H1, Op.READ, DENY);
  const allowRead = m.entry('User:user1', H1, Op.READ, ALLOW);
  for (let i = 0; i < 3; i++) {
    assert.equal(m.byType('user1', H1, Op.READ, TOPIC), false);
    m.add([allowRead], r1);
    assert.equal(m.byType('user1', H1, Op.READ, TOPIC), true);
    for (let j = 0; j < 3; j++) {
      m.add([denyRead], r1);
      assert.equal(m.byType('user1', H1, Op.READ, TOPIC), false);
      m.remove([denyRead], r1);
      m.add([allowRead], r1);
      assert.equal(m.byType('user1', H1, Op.READ, TOPIC), true);
    }
    m.remove([allowRead], r1);
    assert.equal(m.byType('user1', H1, Op.READ, TOPIC), false);
  }
  const w = mutable();
  w.add([w.entry('User:user1', H1, Op.WRITE, ALLOW)], r1);
  assert.equal(w.byType('user1', H1, Op.WRITE, TOPIC), true);
  w.add([w.entry('User:user1', H1, Op.WRITE, DENY)], r1);
  assert.equal(w.byType('user1', H1, Op.WRITE, TOPIC), false);
});

test('authorizeByResourceType: unrelated denies do not dominate an allow', () => {
  const m = mutable();
  m.add(
    [
      m.entry('User:user1', H1, Op.READ, DENY),
      m.entry('User:user2', H1, Op.READ, DENY),
      m.entry('User:user1', H2, Op.WRITE, DENY),
      m.entry('User:user2', H2, Op.READ, DENY),
      m.entry('User:user1', H2, Op.READ, ALLOW),
    ],
    [TOPIC, 'sb1-x', LITERAL],
  );
  m.add([m.entry('User:user1', H2, Op.READ, DENY)], [TOPIC, 'sb2-x', LITERAL]);
  m.add([m.entry('User:user1', H2, Op.READ, DENY)], [GROUP, 's', PREFIXED]);
  assert.equal(m.byType('user1', H1, Op.READ, TOPIC), false);
  assert.equal(m.byType('user1', H1, Op.READ, GROUP), false);
  assert.equal(m.byType('user1', H1, Op.READ, ResourceType.TRANSACTIONAL_ID), false);
  assert.equal(m.byType('user1', H1, Op.READ, CLUSTER), false);
  assert.equal(m.byType('user1', H2, Op.READ, TOPIC), true);
});

test('authorizeByResourceType: prefixed and wildcard denies dominate', () => {
  const m = mutable();
  const allow = m.entry('User:user1', H1, Op.READ, ALLOW);
  const deny = m.entry('User:user1', H1, Op.READ, DENY);
  const g = (name: string): [number, string, number] => [GROUP, name, PREFIXED];
  m.add([allow], g('abcde'));
  assert.equal(m.byType('user1', H1, Op.READ, GROUP), true);
  m.add([deny], g('abcd'));
  assert.equal(m.byType('user1', H1, Op.READ, GROUP), false);
  m.add([allow], g('abc'));
  assert.equal(m.byType('user1', H1, Op.READ, GROUP), true);
  m.add([deny], g('a'));
  assert.equal(m.byType('user1', H1, Op.READ, GROUP), false);
  m.add([allow], g('ab'));
  assert.equal(m.byType('user1', H1, Op.READ, GROUP), false);

  const w = mutable();
  const allowW = w.entry('User:user1', H1, Op.WRITE, ALLOW);
  const denyW = w.entry('User:user1', H1, Op.WRITE, DENY);
  w.add([allowW], [GROUP, 'hello', PREFIXED]);
  assert.equal(w.byType('user1', H1, Op.WRITE, GROUP), true);
  w.add([denyW], [GROUP, '*', LITERAL]);
  assert.equal(w.byType('user1', H1, Op.WRITE, GROUP), false);
  w.add([allowW], [GROUP, '*', LITERAL]);
  assert.equal(w.byType('user1', H1, Op.WRITE, GROUP), false);
  w.add([allowW], [GROUP, 'aloha', LITERAL]);
  assert.equal(w.byType('user1', H1, Op.WRITE, GROUP), false);
});

test('authorizeByResourceType: ALL operation, any host, any principal, super users', () => {
  const m = mutable();
  const r1: [number, string, number] = [TOPIC, 'sb1-x', LITERAL];
  const r2: [number, string, number] = [TOPIC, 'sb2-x', LITERAL];
  assert.equal(m.byType('user1', H1, Op.READ, TOPIC), false);
  m.add([m.entry('User:user1', H1, Op.WRITE, DENY), m.entry('User:user1', H1, Op.ALL, ALLOW)], r1);
  assert.equal(m.byType('user1', H1, Op.READ, TOPIC), true);
  m.add([m.entry('User:user1', H1, Op.ALL, DENY)], r1);
  assert.equal(m.byType('user1', H1, Op.READ, TOPIC), false);

  const h = mutable();
  h.add([h.entry('User:user1', H1, Op.READ, ALLOW)], r1);
  assert.equal(h.byType('user1', H1, Op.READ, TOPIC), true);
  h.add([h.entry('User:user1', '*', Op.READ, DENY)], r1);
  assert.equal(h.byType('user1', H1, Op.READ, TOPIC), false);
  h.add([h.entry('User:user1', H1, Op.READ, DENY)], r2);
  assert.equal(h.byType('user1', H1, Op.READ, TOPIC), false);
  assert.equal(h.byType('user1', H2, Op.READ, TOPIC), false);
  h.add([h.entry('User:user1', '*', Op.READ, ALLOW)], r2);
  assert.equal(h.byType('user1', H2, Op.READ, TOPIC), true);
  h.add([h.entry('User:user1', '*', Op.READ, DENY)], r2);
  assert.equal(h.byType('user1', H2, Op.READ, TOPIC), false);

  const p = mutable();
  p.add([p.entry('User:user1', H1, Op.READ, ALLOW)], r1);
  assert.equal(p.byType('user1', H1, Op.READ, TOPIC), true);
  p.add([p.entry('User:*', H1, Op.READ, DENY)], r1);
  assert.equal(p.byType('user1', H1, Op.READ, TOPIC), false);
  p.add([p.entry('User:user1', H1, Op.READ, DENY)], r2);
  assert.equal(p.byType('user1', H1, Op.READ, TOPIC), false);
  assert.equal(p.byType('user2', H1, Op.READ, TOPIC), false);
  p.add([p.entry('User:*', H1, Op.READ, ALLOW)], r2);
  assert.equal(p.byType('user2', H1, Op.READ, TOPIC), true);
  p.add([p.entry('User:*', H1, Op.READ, DENY)], r2);
  assert.equal(p.byType('user2', H1, Op.READ, TOPIC), false);

  const s = mutable();
  const denyAll = s.entry('User:*', '*', Op.ALL, DENY);
  for (const t of [TOPIC, CLUSTER, GROUP, ResourceType.TRANSACTIONAL_ID]) s.add([denyAll], [t, '*', LITERAL]);
  for (const t of [TOPIC, CLUSTER, GROUP, ResourceType.TRANSACTIONAL_ID])
    assert.equal(s.byType('superuser1', '192.0.4.4', Op.READ, t), true);
  assert.throws(() => s.byType('u', H1, Op.ANY, TOPIC), {
    message: 'Must specify a non-filter operation type for authorizeByResourceType',
  });
  assert.throws(() => s.byType('u', H1, Op.READ, ResourceType.ANY), {
    message: 'Must specify a non-filter resource type for authorizeByResourceType',
  });
});
