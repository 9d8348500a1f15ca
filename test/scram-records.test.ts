// The records of SCRAM credentials, on images built by replaying records: the controller's
// AlterUserScramCredentials (ScramControlManager.alterCredentials) refuses every user below
// metadata.version 3.5-IV2, derives storedKey / serverKey from the salted password, writes only the
// users that pass (a user deleted and upserted in one request writes nothing), and its
// RemoveUserScramCredentialRecord removes the credential on replay; `storage format --add-scram`
// (ScramParser) builds the same record from a salt and salted password, and from a password with
// Kafka's defaults (4096 iterations, a salt of random base-36 text).
import test from 'node:test';
import assert from 'node:assert/strict';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import { alterUserScramCredentials } from '../src/broker/controller/scram.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../src/protocol/metadata-records.js';
import { credentialFromSaltedPassword, saltedPassword, scramMechanism } from '../src/protocol/sasl/scram.js';
import { parseScramArguments } from '../src/storage/scram-parser.js';

const PROVENANCE = { offset: 0, epoch: 1, lastContainedLogTimeMs: -1 };
const SHA256 = scramMechanism('SCRAM-SHA-256')!;
const SHA512 = scramMechanism('SCRAM-SHA-512')!;

function imageAt(metadataVersion: number, records: MetadataRecord[] = []): MetadataImage {
  const b = new ImageBuilder(MetadataImage.empty());
  b.apply(metadataRecord(RecordType.FeatureLevel, 0, { name: 'metadata.version', featureLevel: metadataVersion }));
  for (const r of records) b.apply(r);
  return b.build(PROVENANCE);
}

const replay = (image: MetadataImage, records: MetadataRecord[]): MetadataImage => {
  const b = new ImageBuilder(image);
  for (const r of records) b.apply(r);
  return b.build(PROVENANCE);
};

const salt = Buffer.from('some-salt');
const salted = saltedPassword(SHA256, 'alice-secret', salt, 8192);
const aliceUpsertion = { name: 'alice', mechanism: 1, iterations: 8192, salt, saltedPassword: salted };

test('below metadata.version 3.5-IV2 every user is refused with UNSUPPORTED_VERSION and nothing is written', () => {
  const { records, response } = alterUserScramCredentials(imageAt(10), {
    deletions: [{ name: 'bob', mechanism: 1 }],
    upsertions: [aliceUpsertion],
  });
  assert.deepEqual(records, []);
  assert.deepEqual(
    response.results.map((r) => [r.user, r.errorCode, r.errorMessage]),
    [
      ['bob', ErrorCode.UNSUPPORTED_VERSION, 'The current metadata.version does not support SCRAM'],
      ['alice', ErrorCode.UNSUPPORTED_VERSION, 'The current metadata.version does not support SCRAM'],
    ],
  );
});

test('an upsertion writes storedKey and serverKey derived from the salted password; a deletion removes it', () => {
  let image = imageAt(11);
  const up = alterUserScramCredentials(image, { deletions: [], upsertions: [aliceUpsertion] });
  const cred = credentialFromSaltedPassword(SHA256, salt, salted, 8192);
  assert.deepEqual(up.records, [
    metadataRecord(RecordType.UserScramCredential, 0, {
      name: 'alice',
      mechanism: 1,
      salt,
      storedKey: cred.storedKey,
      serverKey: cred.serverKey,
      iterations: 8192,
    }),
  ]);
  assert.deepEqual(up.response.results, [{ user: 'alice', errorCode: 0, errorMessage: null }]);
  image = replay(image, up.records);
  assert.equal(image.scramCredentials.get('1:alice')?.iterations, 8192);

  // deleted and upserted in one request: DUPLICATE_RESOURCE, and the deletion is not written either
  const both = alterUserScramCredentials(image, {
    deletions: [{ name: 'alice', mechanism: 1 }],
    upsertions: [{ ...aliceUpsertion, mechanism: 2 }],
  });
  assert.deepEqual(both.records, []);
  assert.deepEqual(
    both.response.results.map((r) => [r.user, r.errorCode]),
    [['alice', ErrorCode.DUPLICATE_RESOURCE]],
  );

  const del = alterUserScramCredentials(image, { deletions: [{ name: 'alice', mechanism: 1 }], upsertions: [] });
  assert.deepEqual(del.records, [
    metadataRecord(RecordType.RemoveUserScramCredential, 0, { name: 'alice', mechanism: 1 }),
  ]);
  image = replay(image, del.records);
  assert.equal(image.scramCredentials.size, 0);
  // the SHA-512 credential of alice never existed
  const again = alterUserScramCredentials(image, { deletions: [{ name: 'alice', mechanism: 2 }], upsertions: [] });
  assert.deepEqual(
    again.response.results.map((r) => [r.user, r.errorCode, r.errorMessage]),
    [['alice', ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist']],
  );
});

test('ScramParser: a salt and salted password give the same record as the controller derives', () => {
  const s512 = saltedPassword(SHA512, 'carol-secret', salt, 4096);
  const [rec] = parseScramArguments([
    ` SCRAM-SHA-512=[name=carol,iterations=4096,salt="${salt.toString('base64')}",saltedpassword=${s512.toString('base64')}] `,
  ]);
  const cred = credentialFromSaltedPassword(SHA512, salt, s512, 4096);
  assert.deepEqual(rec, {
    name: 'carol',
    mechanism: 2,
    salt,
    storedKey: cred.storedKey,
    serverKey: cred.serverKey,
    iterations: 4096,
  });
  // a password: 4096 iterations, a salt of random base-36 text (ScramFormatter.secureRandomBytes)
  const [pw] = parseScramArguments(['SCRAM-SHA-256=[name=dan,password=dan-secret]']);
  assert.equal(pw!.iterations, 4096);
  assert.match(pw!.salt.toString('utf8'), /^[0-9a-z]{20,26}$/);
  const expected = credentialFromSaltedPassword(
    SHA256,
    pw!.salt,
    saltedPassword(SHA256, 'dan-secret', pw!.salt, 4096),
    4096,
  );
  assert.deepEqual([pw!.storedKey, pw!.serverKey], [expected.storedKey, expected.serverKey]);
});
