// DescribeClientQuotas answered from an image built by replaying ClientQuotaRecords
// (ClientQuotasImage.describe): exact, default and "specified" filter components, strict matching,
// and the filter errors with Kafka's messages.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import { describeClientQuotas } from '../src/broker/api/describe-client-quotas.js';
import { ErrorCode, KafkaError } from '../src/protocol/errors.js';
import { metadataRecord, RecordType } from '../src/protocol/metadata-records.js';

const quota = (entity: [string, string | null][], key: string, value: number) =>
  metadataRecord(RecordType.ClientQuota, 0, {
    entity: entity.map(([entityType, entityName]) => ({ entityType, entityName })),
    key,
    value,
    remove: false,
  });

function image(): MetadataImage {
  const b = new ImageBuilder(MetadataImage.empty());
  b.apply(quota([['user', 'alice']], 'producer_byte_rate', 1000));
  b.apply(quota([['user', null]], 'consumer_byte_rate', 2000));
  b.apply(
    quota(
      [
        ['user', 'alice'],
        ['client-id', 'app'],
      ],
      'request_percentage',
      50,
    ),
  );
  return b.build({ offset: 0, epoch: 1, lastContainedLogTimeMs: -1 });
}

const names = (r: ReturnType<typeof describeClientQuotas>): string[] =>
  r.map((e) => e.entity.map((x) => `${x.entityType}=${x.entityName ?? '<default>'}`).join('&')).sort();

test('DescribeClientQuotas filters as ClientQuotasImage.describe', () => {
  const img = image();
  const c = (entityType: string, matchType: number, match: string | null) => ({ entityType, matchType, match });
  assert.deepEqual(names(describeClientQuotas(img, { components: [c('user', 0, 'alice')], strict: false })), [
    'user=alice',
    'user=alice&client-id=app',
  ]);
  assert.deepEqual(names(describeClientQuotas(img, { components: [c('user', 0, 'alice')], strict: true })), [
    'user=alice',
  ]);
  assert.deepEqual(names(describeClientQuotas(img, { components: [c('user', 1, null)], strict: false })), [
    'user=<default>',
  ]);
  assert.deepEqual(names(describeClientQuotas(img, { components: [c('client-id', 2, null)], strict: false })), [
    'user=alice&client-id=app',
  ]);
  assert.equal(describeClientQuotas(img, { components: [], strict: false }).length, 3);
  const [alice] = describeClientQuotas(img, { components: [c('user', 0, 'alice')], strict: true });
  assert.deepEqual(alice!.values, [{ key: 'producer_byte_rate', value: 1000 }]);

  const refused = (components: ReturnType<typeof c>[]): [number, string] => {
    try {
      describeClientQuotas(img, { components, strict: false });
    } catch (e) {
      assert.ok(e instanceof KafkaError);
      return [e.code, e.message];
    }
    return assert.fail('no error');
  };
  assert.deepEqual(refused([c('', 0, 'x')]), [ErrorCode.INVALID_REQUEST, 'Invalid empty entity type.']);
  assert.deepEqual(refused([c('user', 0, 'a'), c('user', 2, null)]), [
    ErrorCode.INVALID_REQUEST,
    'Entity type user cannot appear more than once in the filter.',
  ]);
  assert.deepEqual(refused([c('group', 0, 'g')]), [ErrorCode.UNSUPPORTED_VERSION, 'Unsupported entity type group']);
  assert.deepEqual(refused([c('user', 0, null)]), [
    ErrorCode.INVALID_REQUEST,
    'Request specified MATCH_TYPE_EXACT, but set match string to null.',
  ]);
  assert.deepEqual(refused([c('user', 1, 'x')]), [
    ErrorCode.INVALID_REQUEST,
    'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.',
  ]);
  assert.deepEqual(refused([c('user', 7, null)]), [ErrorCode.INVALID_REQUEST, 'Unknown match type 7']);
  assert.deepEqual(refused([c('ip', 2, null), c('user', 2, null)]), [
    ErrorCode.INVALID_REQUEST,
    'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
  ]);
});
