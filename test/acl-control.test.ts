// ACLs on the controller (src/broker/controller/acls.ts) on the cases of Kafka's
// AclControlManagerTest, and the AccessControlEntryRecord / RemoveAccessControlEntryRecord path:
// serialized and read back, applied to the metadata image, written again in a snapshot.
import test from 'node:test';
import assert from 'node:assert/strict';
import { AclOperation as Op, AclPermissionType as Perm, PatternType, ResourceType } from '../src/protocol/acl.js';
import type { AclBinding } from '../src/broker/authorizer/acl.js';
import { createAcls, deleteAcls, validateNewAcl } from '../src/broker/controller/acls.js';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import { imageRecords } from '../src/broker/metadata/image-writer.js';
import {
  RecordType,
  deserializeMetadataRecord,
  metadataRecord,
  serializeMetadataRecord,
  type MetadataRecord,
} from '../src/protocol/metadata-records.js';
import { ErrorCode } from '../src/protocol/errors.js';

const { TOPIC, GROUP, CLUSTER } = ResourceType;
const { LITERAL, PREFIXED } = PatternType;

/** StandardAclTest.TEST_ACLS (the first three) and StandardAclWithIdTest's ids. */
const TEST_ACLS: { id: string; acl: AclBinding }[] = [
  {
    id: 'QZDDv-R7SyaPgetDPGd0Mw',
    acl: b(CLUSTER, 'kafka-cluster', LITERAL, 'User:*', '*', Op.ALTER, Perm.ALLOW),
  },
  { id: 'SdDjEdlbRmy2__WFKe3RMg', acl: b(TOPIC, 'foo_', PREFIXED, 'User:*', '*', Op.READ, Perm.ALLOW) },
  { id: 'wQzt5gkSTwuQNXZF5gIw7A', acl: b(GROUP, 'mygroup', LITERAL, 'User:foo', '*', Op.READ, Perm.DENY) },
];

function b(
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

function creation(a: AclBinding): {
  resourceType: number;
  resourceName: string;
  resourcePatternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
} {
  return { ...a, resourcePatternType: a.patternType };
}

function filter(
  f: Partial<{
    resourceTypeFilter: number;
    resourceNameFilter: string | null;
    patternTypeFilter: number;
    principalFilter: string | null;
    hostFilter: string | null;
    operation: number;
    permissionType: number;
  }>,
): {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  patternTypeFilter: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
} {
  return {
    resourceTypeFilter: ResourceType.ANY,
    resourceNameFilter: null,
    patternTypeFilter: PatternType.ANY,
    principalFilter: null,
    hostFilter: null,
    operation: Op.ANY,
    permissionType: Perm.ANY,
    ...f,
  };
}

function replay(image: MetadataImage, records: MetadataRecord[]): MetadataImage {
  const builder = new ImageBuilder(image);
  for (const r of records) builder.apply(deserializeMetadataRecord(serializeMetadataRecord(r)));
  return builder.build({ offset: image.offset + records.length, epoch: 1, lastContainedLogTimeMs: -1 });
}

test('validateNewAcl: the messages of AclControlManager', () => {
  validateNewAcl(b(TOPIC, '*', LITERAL, 'User:*', '*', Op.ALTER, Perm.ALLOW));
  const msg = (a: AclBinding): string => {
    try {
      validateNewAcl(a);
    } catch (e) {
      return (e as Error).message;
    }
    return 'no error';
  };
  assert.equal(
    msg(b(TOPIC, '*', PatternType.UNKNOWN, 'User:*', '*', Op.ALTER, Perm.ALLOW)),
    'Invalid patternType UNKNOWN',
  );
  assert.equal(msg(b(TOPIC, '*', PatternType.MATCH, 'User:*', '*', Op.ALTER, Perm.ALLOW)), 'Invalid patternType MATCH');
  assert.equal(
    msg(b(ResourceType.UNKNOWN, '*', LITERAL, 'User:*', '*', Op.ALTER, Perm.ALLOW)),
    'Invalid resourceType UNKNOWN',
  );
  assert.equal(msg(b(ResourceType.ANY, '*', LITERAL, 'User:*', '*', Op.ALTER, Perm.ALLOW)), 'Invalid resourceType ANY');
  assert.equal(msg(b(TOPIC, '*', LITERAL, 'User:*', '*', Op.UNKNOWN, Perm.ALLOW)), 'Invalid operation UNKNOWN');
  assert.equal(msg(b(TOPIC, '*', LITERAL, 'User:*', '*', Op.ANY, Perm.ALLOW)), 'Invalid operation ANY');
  assert.equal(msg(b(TOPIC, '*', LITERAL, 'User:*', '*', Op.ALTER, Perm.ANY)), 'Invalid permissionType ANY');
});

test('createAcls then deleteAcls (testCreateAclDeleteAcl), records through the image and a snapshot', () => {
  let image = MetadataImage.empty('cluster');
  let n = 0;
  const ids = TEST_ACLS.map((t) => t.id);
  const created = createAcls(
    image,
    [
      ...TEST_ACLS.map((t) => creation(t.acl)),
      creation(b(TOPIC, '*', PatternType.UNKNOWN, 'User:*', '*', Op.ALTER, Perm.ALLOW)),
      // AclApis' own checks before the controller's
      creation(b(CLUSTER, 'other', LITERAL, 'User:*', '*', Op.ALTER, Perm.ALLOW)),
      creation(b(TOPIC, '', LITERAL, 'User:*', '*', Op.ALTER, Perm.ALLOW)),
      // the same binding twice: one record, two successes
      creation(TEST_ACLS[0]!.acl),
    ],
    () => ids[n++]!,
  );
  assert.deepEqual(created.results, [
    { errorCode: 0, errorMessage: null },
    { errorCode: 0, errorMessage: null },
    { errorCode: 0, errorMessage: null },
    { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Invalid patternType UNKNOWN' },
    {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'The only valid name for the CLUSTER resource is kafka-cluster',
    },
    { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Invalid empty resource name' },
    { errorCode: 0, errorMessage: null },
  ]);
  assert.deepEqual(
    created.records,
    TEST_ACLS.map((t) => metadataRecord(RecordType.AccessControlEntry, 0, { id: t.id, ...t.acl })),
  );
  image = replay(image, created.records);
  assert.deepEqual([...image.acls.keys()], ids);

  // an ACL already there: success, no record
  assert.deepEqual(createAcls(image, [creation(TEST_ACLS[1]!.acl)]).records, []);

  // a snapshot of the image holds the same AccessControlEntryRecords
  const snapshot = imageRecords(image).filter((r) => r.type === RecordType.AccessControlEntry);
  assert.deepEqual(snapshot, created.records);
  assert.deepEqual(replay(MetadataImage.empty('cluster'), snapshot).acls, image.acls);

  const deleted = deleteAcls(image, [
    filter({ resourceTypeFilter: ResourceType.ANY, patternTypeFilter: LITERAL }),
    filter({ resourceTypeFilter: ResourceType.UNKNOWN, patternTypeFilter: LITERAL }),
    filter({ operation: Op.UNKNOWN }),
  ]);
  assert.equal(deleted.results.length, 3);
  assert.equal(deleted.results[0]!.errorCode, 0);
  assert.deepEqual(
    deleted.results[0]!.matchingAcls.map((m) => ({
      resourceType: m.resourceType,
      resourceName: m.resourceName,
      patternType: m.patternType,
      principal: m.principal,
      host: m.host,
      operation: m.operation,
      permissionType: m.permissionType,
    })),
    [TEST_ACLS[0]!.acl, TEST_ACLS[2]!.acl],
  );
  assert.deepEqual(deleted.results[1], {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorMessage: 'Unknown patternFilter.',
    matchingAcls: [],
  });
  assert.deepEqual(deleted.results[2], {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorMessage: 'Unknown entryFilter.',
    matchingAcls: [],
  });
  image = replay(image, deleted.records);
  assert.deepEqual(
    [...image.acls.values()].map((a) => a.id),
    [TEST_ACLS[1]!.id],
  );
});

test('deleteAcls removes an ACL once however many filters match it (testDeleteDedupe)', () => {
  const acl = b(TOPIC, 'topic-1', LITERAL, 'User:user', '10.0.0.1', Op.ALL, Perm.ALLOW);
  const created = createAcls(MetadataImage.empty('c'), [creation(acl)]);
  assert.equal(created.records.length, 1);
  const id = (created.records[0]!.data as { id: string }).id;
  assert.match(id, /^[A-Za-z0-9_-]{22}$/);
  const image = replay(MetadataImage.empty('c'), created.records);
  const exact = filter({
    resourceTypeFilter: TOPIC,
    resourceNameFilter: 'topic-1',
    patternTypeFilter: LITERAL,
    principalFilter: 'User:user',
    hostFilter: '10.0.0.1',
    operation: Op.ALL,
    permissionType: Perm.ALLOW,
  });
  for (const filters of [[filter({})], [exact], [filter({}), exact]]) {
    const r = deleteAcls(image, filters);
    assert.deepEqual(r.records, [metadataRecord(RecordType.RemoveAccessControlEntry, 0, { id })]);
    assert.equal(r.results.length, filters.length);
    for (const res of r.results) assert.equal(res.matchingAcls.length, 1);
  }
  // MATCH: a literal name covered by a prefixed ACL; a prefixed filter does not match a literal ACL
  const prefixed = replay(
    image,
    createAcls(image, [creation(b(TOPIC, 'topic', PREFIXED, 'User:u', '*', Op.READ, Perm.ALLOW))]).records,
  );
  const match = deleteAcls(prefixed, [
    filter({ resourceTypeFilter: TOPIC, resourceNameFilter: 'topic-1', patternTypeFilter: PatternType.MATCH }),
  ]);
  assert.equal(match.records.length, 2);
  const pre = deleteAcls(prefixed, [
    filter({ resourceTypeFilter: TOPIC, resourceNameFilter: 'topic', patternTypeFilter: PREFIXED }),
  ]);
  assert.equal(pre.records.length, 1);
});
