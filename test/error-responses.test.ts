// errorResponseFor against every request of every API at every version: the error body encodes at
// that version, carries the error code, and mirrors the request's entries.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../src/protocol/frame.js';
import { errorResponseFor } from '../src/broker/api/error-responses.js';
import type { ProduceRequest } from '../src/protocol/generated/protocol/Produce.js';
import type { FetchResponse } from '../src/protocol/generated/protocol/Fetch.js';
import type { OffsetFetchResponse } from '../src/protocol/generated/protocol/OffsetFetch.js';
import { loadModels, randomStruct, rng, specAvailable } from './helpers/spec-models.js';

const CODE = 42;

function countCode(v: unknown, depth = 0): number {
  if (depth > 12 || v === null || typeof v !== 'object' || Buffer.isBuffer(v)) return 0;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + countCode(x, depth + 1), 0);
  let n = 0;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if ((k === 'errorCode' || k === 'partitionErrorCode') && x === CODE) n++;
    else n += countCode(x, depth + 1);
  }
  return n;
}

test(
  'errorResponseFor encodes at every version of every API and carries the error',
  { skip: !specAvailable() },
  async () => {
    const models = (await loadModels()).filter((m) => m.spec.type === 'request' && m.gen.valid !== null);
    assert.ok(models.length > 80);
    const rnd = rng(511);
    const found = new Map<string, boolean>();
    for (const m of models) {
      const key = m.spec.apiKey!;
      const name = m.spec.name.replace(/Request$/, '');
      for (let v = m.gen.valid[0]; v <= m.gen.valid[1]; v++) {
        const id = `${name} v${v}`;
        found.set(id, false);
        for (let round = 0; round < 8; round++) {
          const random = randomStruct(m.gen, m.gen.root, v, rnd);
          const frame = Buffer.concat(encodeRequest(key, v, 7, 'c', random)).subarray(4);
          const request = decodeRequest(frame).body;
          const body = errorResponseFor(key, request, CODE, v);
          if (body === null) {
            assert.equal(key, ApiKey.Produce);
            assert.equal((request as ProduceRequest).acks, 0);
            continue;
          }
          const out = Buffer.concat(encodeResponse(key, v, 7, body)).subarray(4);
          if (countCode(decodeResponse(key, v, out).body) > 0) found.set(id, true);
        }
      }
    }
    // Kafka's own error responses carry no code here: DescribeLogDirs before v3 has no top-level
    // error field, and ElectLeaders v0 has none when the request names no partitions (null = all).
    const without = [...found].filter(([, ok]) => !ok).map(([id]) => id);
    assert.ok(
      without.every((id) => /^(ElectLeaders v0|DescribeLogDirs v[0-2])$/.test(id)),
      without.join(', '),
    );
  },
);

test('error responses mirror the request entries the way Kafka does', () => {
  const produce = {
    acks: -1,
    topicData: [
      {
        name: 't',
        partitionData: [
          { index: 0, records: null },
          { index: 3, records: null },
        ],
      },
    ],
  };
  assert.deepEqual(errorResponseFor(ApiKey.Produce, produce, 6, 9), {
    throttleTimeMs: 0,
    responses: [
      {
        name: 't',
        partitionResponses: [
          { index: 0, errorCode: 6, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n },
          { index: 3, errorCode: 6, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n },
        ],
      },
    ],
  });
  assert.equal(errorResponseFor(ApiKey.Produce, { ...produce, acks: 0 }, 6, 9), null);

  const fetch = {
    sessionId: 5,
    topics: [{ topic: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition: 2 }] }],
  };
  const f12 = errorResponseFor(ApiKey.Fetch, fetch, -1, 12)!;
  assert.equal(f12.errorCode, -1);
  assert.equal(f12.sessionId, 5);
  assert.deepEqual((f12.responses as FetchResponse['responses'])[0].partitions[0], {
    partitionIndex: 2,
    errorCode: -1,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
  });
  assert.equal(errorResponseFor(ApiKey.Fetch, fetch, -1, 13)!.responses, undefined);

  const v1 = errorResponseFor(
    ApiKey.OffsetFetch,
    { groupId: 'g', topics: [{ name: 't', partitionIndexes: [1, 2] }] },
    16,
    1,
  )!;
  assert.deepEqual(
    (v1.topics as OffsetFetchResponse['topics'])[0].partitions.map((p) => [
      p.partitionIndex,
      p.errorCode,
      p.committedOffset,
    ]),
    [
      [1, 16, -1n],
      [2, 16, -1n],
    ],
  );
  const v5 = errorResponseFor(
    ApiKey.OffsetFetch,
    { groupId: 'g', topics: [{ name: 't', partitionIndexes: [1] }] },
    16,
    5,
  )!;
  assert.equal(v5.errorCode, 16);
  assert.equal(v5.topics, undefined);
  const v8 = errorResponseFor(
    ApiKey.OffsetFetch,
    {
      groups: [
        { groupId: 'a', topics: null },
        { groupId: 'b', topics: null },
      ],
    },
    16,
    8,
  )!;
  assert.deepEqual(v8.groups, [
    { groupId: 'a', errorCode: 16 },
    { groupId: 'b', errorCode: 16 },
  ]);

  assert.deepEqual(errorResponseFor(ApiKey.FindCoordinator, { key: 'g', coordinatorKeys: [] }, 15, 3), {
    throttleTimeMs: 0,
    errorCode: 15,
    nodeId: -1,
    host: '',
    port: -1,
  });
  assert.deepEqual(errorResponseFor(ApiKey.FindCoordinator, { key: '', coordinatorKeys: ['a'] }, 15, 4)!.coordinators, [
    { key: 'a', errorCode: 15, nodeId: -1, host: '', port: -1 },
  ]);

  const md = errorResponseFor(ApiKey.Metadata, { topics: [{ name: null, topicId: 'x' }] }, 29, 12)!;
  assert.deepEqual(md.topics, [{ name: '', topicId: 'x', errorCode: 29 }]);
  assert.deepEqual(errorResponseFor(ApiKey.Metadata, { topics: null }, 29, 12)!.topics, []);

  // An API without a table entry gets the top-level code.
  assert.deepEqual(errorResponseFor(ApiKey.Heartbeat, { groupId: 'g' }, 27, 4), { throttleTimeMs: 0, errorCode: 27 });
});
