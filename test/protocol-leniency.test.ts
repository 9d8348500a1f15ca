// The decoder is as lenient as Kafka's and no more (docs/protocol-differences.md): bytes after a
// request body are ignored (AbstractRequest.parseRequest never checks what remains), and arrays are
// limited to Kafka's 1,000,000 elements (the generated *Data.read), after the remaining-bytes check.
import test from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../src/protocol/codec/errors.js';
import { MAX_COLLECTION_SIZE, Reader } from '../src/protocol/codec/reader.js';
import { decodeRequest, encodeRequest } from '../src/protocol/frame.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import type { FetchRequest } from '../src/protocol/generated/protocol/Fetch.js';

test('a request with bytes after its body decodes to the same body', () => {
  const body = { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false };
  const exact = Buffer.concat(encodeRequest(ApiKey.Metadata, 12, 5, 'rdkafka', body)).subarray(4);
  const extra = Buffer.concat([exact, Buffer.from([0, 0, 0])]);
  const a = decodeRequest(exact);
  const b = decodeRequest(extra);
  assert.deepEqual(b.body, a.body);
  assert.equal(b.correlationId, 5);
  assert.equal(b.header.clientId, 'rdkafka');
  // a body cut short is still refused
  assert.throws(() => decodeRequest(exact.subarray(0, exact.length - 1)), DecodeError);
});

test("arrays of more than 1,000,000 elements are refused with Kafka's message; 1,000,000 is fine", () => {
  const count = (n: number, compact: boolean): Reader => {
    const head = Buffer.alloc(compact ? 5 : 4);
    if (compact) {
      let v = n + 1;
      let i = 0;
      while (v >= 0x80) {
        head[i++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      head[i++] = v;
      return new Reader(Buffer.concat([head.subarray(0, i), Buffer.alloc(MAX_COLLECTION_SIZE + 1)]));
    }
    head.writeInt32BE(n, 0);
    return new Reader(Buffer.concat([head, Buffer.alloc(MAX_COLLECTION_SIZE + 1)]));
  };
  for (const compact of [false, true]) {
    const read = (r: Reader) => (compact ? r.compactArrayLength('Topics') : r.arrayLength('Topics'));
    assert.equal(read(count(MAX_COLLECTION_SIZE, compact)), MAX_COLLECTION_SIZE);
    assert.throws(() => read(count(MAX_COLLECTION_SIZE + 1, compact)), {
      name: 'DecodeError',
      message: 'Tried to read a collection of size 1000001, which exceeds the maximum allowed size of 1000000.',
    });
  }
});

test('a known tagged field is read as its field whatever size it declares, as Kafka reads it', () => {
  const body = {
    clusterId: 'ab',
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 1024,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [],
    forgottenTopicsData: [],
    rackId: '',
  };
  const frame = Buffer.concat(encodeRequest(ApiKey.Fetch, 12, 9, 'c', body)).subarray(4);
  // the body ends with its tagged fields: count 1, tag 0 (ClusterId), size 3, compact string "ab"
  assert.deepEqual([...frame.subarray(frame.length - 6)], [1, 0, 3, 3, 0x61, 0x62]);
  const wrongSize = Buffer.from(frame);
  wrongSize[wrongSize.length - 4] = 9;
  assert.equal((decodeRequest(wrongSize).body as FetchRequest).clusterId, 'ab');
});

test('tagged-field counts are checked as Kafka checks them: against the remaining bytes and at most 10,000', () => {
  const uvarint = (v: number): Buffer => {
    const out: number[] = [];
    while (v >= 0x80) {
      out.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(v);
    return Buffer.from(out);
  };
  assert.throws(() => new Reader(Buffer.concat([uvarint(3), Buffer.alloc(2)])).taggedFieldCount(), {
    message: 'Tried to read 3 tagged fields, but there are only 2 bytes remaining.',
  });
  assert.throws(() => new Reader(Buffer.concat([uvarint(10_001), Buffer.alloc(20_002)])).taggedFieldCount(), {
    message: 'Tried to read 10001 tagged fields, which exceeds the maximum allowed count of 10000.',
  });
  assert.equal(new Reader(Buffer.concat([uvarint(10_000), Buffer.alloc(20_000)])).taggedFieldCount(), 10_000);
});
