// ApiVersions on a node that forwards to a remote active controller (Kafka's
// ApiVersionsResponse.intersectForwardableApis): forwardable APIs at the intersection of both ranges,
// left out without one; the others as the node serves them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { intersectForwardableApis } from '../src/broker/api/api-versions.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

test('forwardable APIs are advertised at the intersection with the controller, others as served', () => {
  const own = [
    { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 13 },
    { apiKey: ApiKey.CreateTopics, minVersion: 2, maxVersion: 7 },
    { apiKey: ApiKey.DeleteTopics, minVersion: 1, maxVersion: 6 },
    { apiKey: ApiKey.CreatePartitions, minVersion: 0, maxVersion: 3 },
    { apiKey: ApiKey.UpdateFeatures, minVersion: 0, maxVersion: 2 },
  ];
  const controller = new Map([
    [ApiKey.CreateTopics, { minVersion: 0, maxVersion: 5 }],
    [ApiKey.DeleteTopics, { minVersion: 3, maxVersion: 9 }],
    [ApiKey.UpdateFeatures, { minVersion: 3, maxVersion: 4 }],
  ]);
  assert.deepEqual(intersectForwardableApis(own, controller), [
    { apiKey: ApiKey.Produce, minVersion: 3, maxVersion: 13 },
    { apiKey: ApiKey.CreateTopics, minVersion: 2, maxVersion: 5 },
    { apiKey: ApiKey.DeleteTopics, minVersion: 3, maxVersion: 6 },
    // CreatePartitions: the controller does not serve it; UpdateFeatures: disjoint ranges
  ]);
});
