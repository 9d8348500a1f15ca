// A generic error response: the body Kafka's AbstractRequest.getErrorResponse builds, with the
// error code at the top level (where the response has one at that version) and in every per-topic,
// per-partition, per-resource or per-group entry, mirroring the entries of the request.
// The request → response shape of each API is a small declarative table; APIs not listed only get
// the top-level error code. Special cases follow Kafka: Produce acks=0 gets no response, Fetch v13+
// and OffsetFetch v2+ carry only top-level errors, AddPartitionsToTxn v4+ only the top level.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { RequestContext } from './types.js';

/** How one request array maps onto one response array. */
interface Mirror {
  /** Request array field; "a.b" flattens b of every a (AlterReplicaLogDirs dirs[].topics[]). */
  readonly from: string;
  readonly to: string;
  /**
   * [responseField, requestField, nullToEmpty] triples; requestField "$" is the element itself
   * (arrays of scalars); nullToEmpty turns a null request value into "" (written as "field?").
   */
  readonly keys: readonly (readonly [string, string, boolean])[];
  /** Error code field of the response entry (null: the entry has none). */
  readonly errorField: string | null;
  readonly extra: ((v: number) => Record<string, unknown>) | undefined;
  readonly nested: readonly Mirror[];
}

interface Shape {
  /** Whether the top-level errorCode exists at this version (default: always). */
  readonly top?: (v: number) => boolean;
  /** Further top-level fields. */
  readonly topExtra?: (request: unknown, v: number) => Record<string, unknown>;
  readonly mirrors?: (v: number) => readonly Mirror[];
  /** A request that gets no response at all (Produce acks=0). */
  readonly noResponse?: (request: unknown) => boolean;
}

type Extra = Record<string, unknown> | ((v: number) => Record<string, unknown>);

/** m('topics', 'responses', 'name=topic,topicId', [nested...], extra): a mirror in one line. */
function m(
  from: string,
  to: string,
  keys: string,
  nested: readonly Mirror[] = [],
  extra?: Extra,
  errorField: string | null = 'errorCode',
): Mirror {
  const pairs =
    keys === ''
      ? []
      : keys.split(',').map((k) => {
          const nullToEmpty = k.endsWith('?');
          const [dst, src] = (nullToEmpty ? k.slice(0, -1) : k).split('=') as [string, string | undefined];
          return [dst, src ?? dst, nullToEmpty] as const;
        });
  const ex = extra === undefined ? undefined : typeof extra === 'function' ? extra : () => extra;
  return { from, to, keys: pairs, errorField, extra: ex, nested };
}
const always = (mirrors: readonly Mirror[]) => (): readonly Mirror[] => mirrors;
const never = (): boolean => false;
const from =
  (min: number) =>
  (v: number): boolean =>
    v >= min;

/** Partition-level entries that carry offsets Kafka sets to -1 on error. */
const NO_OFFSETS = { highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n };
const NO_NODE = { nodeId: -1, host: '', port: -1 };
const topicPartitions = (
  to: string,
  partitionsTo: string,
  topicKeys = 'name',
  partitionKeys = 'partitionIndex',
): Mirror => m('topics', to, topicKeys, [m('partitions', partitionsTo, partitionKeys)], undefined, null);

const SHAPES: ReadonlyMap<number, Shape> = new Map<number, Shape>([
  [
    ApiKey.Produce,
    {
      top: never,
      noResponse: (req) => (req as { acks?: number } | null)?.acks === 0,
      mirrors: always([
        m(
          'topicData',
          'responses',
          'name',
          [
            m('partitionData', 'partitionResponses', 'index', [], {
              baseOffset: -1n,
              logAppendTimeMs: -1n,
              logStartOffset: -1n,
            }),
          ],
          undefined,
          null,
        ),
      ]),
    },
  ],
  [
    ApiKey.Fetch,
    {
      top: from(7),
      topExtra: (req) => ({ sessionId: (req as { sessionId?: number } | null)?.sessionId ?? 0 }),
      // v13+: the top-level error is enough and no partitions are returned.
      mirrors: (v) =>
        v >= 13
          ? []
          : [
              m(
                'topics',
                'responses',
                'topic,topicId',
                [m('partitions', 'partitions', 'partitionIndex=partition', [], NO_OFFSETS)],
                undefined,
                null,
              ),
            ],
    },
  ],
  [
    ApiKey.ListOffsets,
    {
      top: never,
      mirrors: always([
        m(
          'topics',
          'topics',
          'name',
          [
            m('partitions', 'partitions', 'partitionIndex', [], (v) =>
              v === 0 ? {} : { offset: -1n, timestamp: -1n },
            ),
          ],
          undefined,
          null,
        ),
      ]),
    },
  ],
  [ApiKey.Metadata, { top: never, mirrors: always([m('topics', 'topics', 'name?,topicId')]) }],
  [ApiKey.OffsetCommit, { top: never, mirrors: always([topicPartitions('topics', 'partitions')]) }],
  [
    ApiKey.OffsetFetch,
    {
      top: (v) => v >= 2 && v <= 7,
      mirrors: (v) =>
        v < 2
          ? [
              m(
                'topics',
                'topics',
                'name',
                [m('partitionIndexes', 'partitions', 'partitionIndex=$', [], { committedOffset: -1n, metadata: '' })],
                undefined,
                null,
              ),
            ]
          : v >= 8
            ? [m('groups', 'groups', 'groupId')]
            : [],
    },
  ],
  [
    ApiKey.FindCoordinator,
    {
      top: (v) => v < 4,
      topExtra: (_req, v) => (v < 4 ? NO_NODE : {}),
      mirrors: (v) => (v >= 4 ? [m('coordinatorKeys', 'coordinators', 'key=$', [], NO_NODE)] : []),
    },
  ],
  [
    ApiKey.JoinGroup,
    {
      topExtra: (_req, v) => ({ generationId: -1, leader: '', memberId: '', protocolName: v >= 7 ? null : '' }),
    },
  ],
  [ApiKey.LeaveGroup, { mirrors: always([m('members', 'members', 'memberId,groupInstanceId')]) }],
  [ApiKey.DescribeGroups, { top: never, mirrors: always([m('groups', 'groups', 'groupId=$')]) }],
  [ApiKey.CreateTopics, { top: never, mirrors: always([m('topics', 'topics', 'name')]) }],
  [
    ApiKey.DeleteTopics,
    {
      top: never,
      mirrors: always([m('topicNames', 'responses', 'name=$'), m('topics', 'responses', 'name,topicId')]),
    },
  ],
  [
    ApiKey.DeleteRecords,
    {
      top: never,
      mirrors: always([
        m(
          'topics',
          'topics',
          'name',
          [m('partitions', 'partitions', 'partitionIndex', [], { lowWatermark: -1n })],
          undefined,
          null,
        ),
      ]),
    },
  ],
  [ApiKey.InitProducerId, { topExtra: () => ({ producerId: -1n, producerEpoch: -1 }) }],
  [
    ApiKey.OffsetForLeaderEpoch,
    { top: never, mirrors: always([topicPartitions('topics', 'partitions', 'topic', 'partition')]) },
  ],
  [
    ApiKey.AddPartitionsToTxn,
    {
      top: from(4),
      mirrors: (v) =>
        v >= 4
          ? []
          : [
              m(
                'v3AndBelowTopics',
                'resultsByTopicV3AndBelow',
                'name',
                [m('partitions', 'resultsByPartition', 'partitionIndex=$', [], undefined, 'partitionErrorCode')],
                undefined,
                null,
              ),
            ],
    },
  ],
  [
    ApiKey.WriteTxnMarkers,
    {
      top: never,
      mirrors: always([
        m(
          'markers',
          'markers',
          'producerId',
          [m('topics', 'topics', 'name', [m('partitionIndexes', 'partitions', 'partitionIndex=$')], undefined, null)],
          undefined,
          null,
        ),
      ]),
    },
  ],
  [ApiKey.TxnOffsetCommit, { top: never, mirrors: always([topicPartitions('topics', 'partitions')]) }],
  [ApiKey.CreateAcls, { top: never, mirrors: always([m('creations', 'results', '')]) }],
  [ApiKey.DeleteAcls, { top: never, mirrors: always([m('filters', 'filterResults', '')]) }],
  [ApiKey.DescribeConfigs, { top: never, mirrors: always([m('resources', 'results', 'resourceType,resourceName')]) }],
  [ApiKey.AlterConfigs, { top: never, mirrors: always([m('resources', 'responses', 'resourceType,resourceName')]) }],
  [
    ApiKey.IncrementalAlterConfigs,
    { top: never, mirrors: always([m('resources', 'responses', 'resourceType,resourceName')]) },
  ],
  [
    ApiKey.AlterReplicaLogDirs,
    {
      top: never,
      mirrors: always([
        m(
          'dirs.topics',
          'results',
          'topicName=name',
          [m('partitions', 'partitions', 'partitionIndex=$')],
          undefined,
          null,
        ),
      ]),
    },
  ],
  [ApiKey.DescribeLogDirs, { top: from(3) }],
  [ApiKey.CreatePartitions, { top: never, mirrors: always([m('topics', 'results', 'name')]) }],
  [ApiKey.DeleteGroups, { top: never, mirrors: always([m('groupsNames', 'results', 'groupId=$')]) }],
  [
    ApiKey.ElectLeaders,
    {
      top: from(1),
      mirrors: always([
        m(
          'topicPartitions',
          'replicaElectionResults',
          'topic',
          [m('partitions', 'partitionResult', 'partitionId=$')],
          undefined,
          null,
        ),
      ]),
    },
  ],
  [
    ApiKey.AlterPartitionReassignments,
    {
      mirrors: always([
        m('topics', 'responses', 'name', [m('partitions', 'partitions', 'partitionIndex')], undefined, null),
      ]),
    },
  ],
  [ApiKey.OffsetDelete, { mirrors: always([topicPartitions('topics', 'partitions')]) }],
  [ApiKey.AlterClientQuotas, { top: never, mirrors: always([m('entries', 'entries', 'entity')]) }],
  [ApiKey.DescribeUserScramCredentials, { mirrors: always([m('users', 'results', 'user=name')]) }],
  [
    ApiKey.AlterUserScramCredentials,
    {
      top: never,
      mirrors: always([m('deletions', 'results', 'user=name'), m('upsertions', 'results', 'user=name')]),
    },
  ],
  [
    ApiKey.DescribeProducers,
    {
      top: never,
      mirrors: always([
        m('topics', 'topics', 'name', [m('partitionIndexes', 'partitions', 'partitionIndex=$')], undefined, null),
      ]),
    },
  ],
  [
    ApiKey.DescribeTransactions,
    { top: never, mirrors: always([m('transactionalIds', 'transactionStates', 'transactionalId=$')]) },
  ],
  [ApiKey.ConsumerGroupDescribe, { top: never, mirrors: always([m('groupIds', 'groups', 'groupId=$')]) }],
  [ApiKey.ShareGroupDescribe, { top: never, mirrors: always([m('groupIds', 'groups', 'groupId=$')]) }],
  [ApiKey.StreamsGroupDescribe, { top: never, mirrors: always([m('groupIds', 'groups', 'groupId=$')]) }],
  [ApiKey.DescribeShareGroupOffsets, { top: never, mirrors: always([m('groups', 'groups', 'groupId')]) }],
  [ApiKey.DescribeTopicPartitions, { top: never, mirrors: always([m('topics', 'topics', 'name')]) }],
  ...[
    ApiKey.InitializeShareGroupState,
    ApiKey.ReadShareGroupState,
    ApiKey.WriteShareGroupState,
    ApiKey.DeleteShareGroupState,
    ApiKey.ReadShareGroupStateSummary,
  ].map((k): [number, Shape] => [
    k,
    {
      top: never,
      mirrors: always([
        m('topics', 'results', 'topicId', [m('partitions', 'partitions', 'partition')], undefined, null),
      ]),
    },
  ]),
]);

function sourceArray(request: unknown, path: string): unknown[] {
  const parts = path.split('.');
  let items: unknown[] = [request];
  for (const p of parts) {
    const next: unknown[] = [];
    for (const it of items) {
      const a = (it as Record<string, unknown> | null | undefined)?.[p];
      if (Array.isArray(a)) for (const x of a) next.push(x);
    }
    items = next;
  }
  return items;
}

function applyMirrors(
  request: unknown,
  mirrors: readonly Mirror[],
  errorCode: number,
  v: number,
  out: Record<string, unknown>,
): void {
  for (const mi of mirrors) {
    const entries = sourceArray(request, mi.from).map((e) => {
      const o: Record<string, unknown> = {};
      for (const [dst, src, nullToEmpty] of mi.keys) {
        const value = src === '$' ? e : (e as Record<string, unknown>)[src];
        o[dst] = nullToEmpty && value === null ? '' : value;
      }
      if (mi.errorField !== null) o[mi.errorField] = errorCode;
      if (mi.extra) Object.assign(o, mi.extra(v));
      applyMirrors(e, mi.nested, errorCode, v, o);
      return o;
    });
    const prev = out[mi.to];
    out[mi.to] = Array.isArray(prev) ? prev.concat(entries) : entries;
  }
}

/**
 * The error response for `request` (a decoded request body of `apiKey` at `version`): Kafka's
 * getErrorResponse. Returns null when the request must not be answered (Produce acks=0).
 * `version` defaults to the newest, which only matters for the few version-dependent shapes.
 */
export function errorResponseFor(
  apiKey: number,
  request: unknown,
  errorCode: number,
  version = Number.MAX_SAFE_INTEGER,
): Record<string, unknown> | null {
  const shape = SHAPES.get(apiKey) ?? {};
  if (shape.noResponse?.(request)) return null;
  const out: Record<string, unknown> = { throttleTimeMs: 0 };
  if (shape.top?.(version) ?? true) out.errorCode = errorCode;
  if (shape.topExtra) Object.assign(out, shape.topExtra(request, version));
  if (shape.mirrors) applyMirrors(request, shape.mirrors(version), errorCode, version, out);
  return out;
}

/**
 * errorResponseFor, typed as the response of the API, for a handler that answers an error itself (an
 * API that always has a response). The shape table mirrors Kafka's response schemas, and
 * test/error-responses.test.ts encodes its result for every API at every version.
 */
export function errorResponseAs<Res>(apiKey: number, request: unknown, errorCode: number, version: number): Res {
  const body = errorResponseFor(apiKey, request, errorCode, version);
  if (body === null) throw new Error(`API ${apiKey} has no response for this request`);
  return body as Res;
}

/** An `ApiHandler.errorResponse` for handlers that have no better one. */
export function genericErrorResponse(
  ctx: RequestContext,
  request: unknown,
  errorCode: number,
): Record<string, unknown> | null {
  return errorResponseFor(ctx.apiKey, request, errorCode, ctx.apiVersion);
}
