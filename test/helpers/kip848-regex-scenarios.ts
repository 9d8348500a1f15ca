// Raw-protocol scenarios for issue 11 (librdkafka 2.15 and KIP-848 regex subscriptions), written
// against any broker's bootstrap port so the same requests run on tkafka and on Apache Kafka 4.4.0:
//   - a Metadata v12 request with bytes after its body (librdkafka 2.15 sends some when it asks for
//     all topics): Kafka ignores them and answers;
//   - a ConsumerGroupHeartbeat v1 join with an empty SubscribedTopicRegex (librdkafka 2.15's KIP-848
//     consumer): empty means "no regex";
//   - regex subscriptions: a member's regex resolves to the matching topics, a matching topic created
//     later is assigned, an invalid regex is INVALID_REGULAR_EXPRESSION.
import { randomBytes } from 'node:crypto';
import { encodeRequest, decodeResponse } from '../../src/protocol/frame.js';
import { ApiKey, type ApiKeyWithMessages, type ApiResponse } from '../../src/protocol/generated/apis.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';

/** A KIP-1082 member id: what a v1 client generates (Uuid.randomUuid().toString()). */
export const newMemberId = (): string => randomBytes(16).toString('base64url');

export const suffix = (): string => randomBytes(4).toString('hex');

/** Sends a request with `extra` bytes appended after its body (the size prefix counts them). */
export async function requestWithTrailingBytes<K extends ApiKeyWithMessages>(
  port: number,
  apiKey: K,
  version: number,
  body: unknown,
  extra: Buffer,
): Promise<ApiResponse<K>> {
  const c = await RawClient.connect(port);
  try {
    const frame = Buffer.concat([...encodeRequest(apiKey, version, 7, 'trailing-bytes', body), extra]);
    frame.writeInt32BE(frame.length - 4, 0);
    const answer = new Promise<Buffer>((resolve, reject) => {
      let buf = Buffer.alloc(0);
      c.socket.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) resolve(buf.subarray(4, 4 + buf.readInt32BE(0)));
      });
      c.socket.on('close', () => reject(new Error('the broker closed the connection')));
      setTimeout(() => reject(new Error('no answer in 10 s')), 10_000).unref();
    });
    c.writeRaw(frame);
    const r = decodeResponse(apiKey, version, await answer);
    if (r.correlationId !== 7) throw new Error(`correlation id ${r.correlationId}`);
    return r.body as ApiResponse<K>; // read by the codec of apiKey
  } finally {
    c.close();
  }
}

export async function createTopic(c: RawClient, name: string, partitions: number): Promise<void> {
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  const t = r.topics[0];
  if (t.errorCode !== 0) throw new Error(`CreateTopics ${name}: error ${t.errorCode} ${t.errorMessage ?? ''}`);
}

/** Topic name → id, from Metadata v12 for the named topics (waits until each has a leader everywhere). */
export async function topicIds(c: RawClient, names: string[]): Promise<Map<string, string>> {
  const what = `topics ${names.join(', ')} to have leaders`;
  return waitFor(
    async () => {
      const r = await c.request(ApiKey.Metadata, 12, {
        topics: names.map((name) => ({ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name })),
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const ready = r.topics.every((t) => t.errorCode === 0 && t.partitions.every((p) => p.leaderId >= 0));
      return ready ? new Map(r.topics.map((t) => [t.name ?? '', t.topicId] as const)) : null;
    },
    { what, timeoutMs: 10_000 },
  );
}

/** Polls FindCoordinator until the group's coordinator is known (creates __consumer_offsets on Kafka). */
export async function findCoordinator(c: RawClient, groupId: string): Promise<void> {
  await waitFor(
    async () => {
      const r = await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
      return r.coordinators[0].errorCode === 0;
    },
    { what: `a coordinator for ${groupId}`, timeoutMs: 30_000 },
  );
}

export interface HeartbeatAnswer {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: { topicId: string; partitions: number[] }[] } | null;
}

export function joinRequest(
  groupId: string,
  memberId: string,
  o: { names?: string[] | null; regex?: string | null },
): Record<string, unknown> {
  return {
    groupId,
    memberId,
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 45_000,
    subscribedTopicNames: o.names ?? null,
    subscribedTopicRegex: o.regex ?? null,
    serverAssignor: null,
    topicPartitions: [],
  };
}

/** COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: the coordinator is still loading. */
const LOADING = new Set([14, 15, 16]);

/** ConsumerGroupHeartbeat v1, retried (every 200 ms, at most 30 s) while the coordinator loads. */
export async function heartbeat(c: RawClient, req: Record<string, unknown>): Promise<HeartbeatAnswer> {
  let r: HeartbeatAnswer = await c.request(ApiKey.ConsumerGroupHeartbeat, 1, req);
  if (!LOADING.has(r.errorCode)) return r;
  await waitFor(
    async () => {
      r = await c.request(ApiKey.ConsumerGroupHeartbeat, 1, req);
      return !LOADING.has(r.errorCode);
    },
    { what: 'the group coordinator to load', timeoutMs: 30_000, intervalMs: 200 },
  ).catch(() => undefined); // still loading after 30 s: the caller sees the error code
  return r;
}

/** A KIP-848 member driven by hand: joins, then heartbeats with its epoch and what it owns. */
export class Member {
  epoch = 0;
  owned = new Map<string, number[]>();
  last: HeartbeatAnswer | null = null;

  constructor(
    private readonly c: RawClient,
    readonly groupId: string,
    readonly memberId = newMemberId(),
  ) {}

  async join(o: { names?: string[] | null; regex?: string | null }): Promise<HeartbeatAnswer> {
    return this.apply(await heartbeat(this.c, joinRequest(this.groupId, this.memberId, o)));
  }

  async beat(): Promise<HeartbeatAnswer> {
    return this.apply(
      await heartbeat(this.c, {
        groupId: this.groupId,
        memberId: this.memberId,
        memberEpoch: this.epoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: -1,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [...this.owned].map(([topicId, partitions]) => ({ topicId, partitions })),
      }),
    );
  }

  async leave(): Promise<void> {
    await heartbeat(this.c, {
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: -1,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: null,
    });
  }

  private apply(r: HeartbeatAnswer): HeartbeatAnswer {
    this.last = r;
    if (r.errorCode !== 0) throw new Error(`ConsumerGroupHeartbeat: error ${r.errorCode} ${r.errorMessage ?? ''}`);
    this.epoch = r.memberEpoch;
    if (r.assignment) {
      const sorted = (ps: number[]) => [...ps].sort((x, y) => x - y);
      this.owned = new Map(r.assignment.topicPartitions.map((tp) => [tp.topicId, sorted(tp.partitions)]));
    }
    return r;
  }

  /** What the member owns as "topic-partition" names, sorted. */
  ownedNames(idToName: Map<string, string>): string[] {
    const out: string[] = [];
    for (const [id, ps] of this.owned) for (const p of ps) out.push(`${idToName.get(id) ?? id}-${p}`);
    return out.sort();
  }

  /** Heartbeats (every 250 ms, at most `ms`) until `done` holds; returns whether it did. */
  async beatUntil(done: () => boolean, ms: number): Promise<boolean> {
    // a member heartbeats at an interval (the protocol's, here 250 ms) until the condition holds
    return waitFor(
      async () => {
        if (done()) return true;
        await this.beat();
        return done();
      },
      { what: 'the member condition', timeoutMs: ms, intervalMs: 250 },
    ).catch(() => done());
  }
}

export async function describeGroup(
  c: RawClient,
  groupId: string,
): Promise<ApiResponse<typeof ApiKey.ConsumerGroupDescribe>['groups'][number]> {
  const r = await c.request(ApiKey.ConsumerGroupDescribe, 0, {
    groupIds: [groupId],
    includeAuthorizedOperations: false,
  });
  return r.groups[0];
}

/** What the scenarios saw on one broker; the tests assert these, and the interop test compares brokers. */
export interface RegexObservations {
  trailingBytes: { errorlessTopics: boolean; brokers: number; listsTopic: boolean };
  emptyRegex: {
    errorCode: number;
    sameMemberId: boolean;
    epochAtLeast1: boolean;
    owned: string[];
    describedRegex: string | null;
    /** SubscribedTopicRegex that ConsumerGroupDescribe shows for a member that never sent one */
    namesOnlyDescribedRegex: string | null;
  };
  regex: {
    owned: string[];
    ownedAfterCreate: string[];
    describedRegex: string | null;
    describedNames: string[] | null;
    ownedAfterDelete: string[];
  };
  invalid: { errorCode: number; errorMessage: string | null };
  internal: { owned: string[] };
}

/** Runs every scenario against the broker on `port` (topics and groups get a random suffix). */
export async function runRegexScenarios(
  port: number,
  log: (m: string) => void = () => undefined,
): Promise<RegexObservations> {
  const id = suffix();
  const c = await RawClient.connect(port);
  try {
    const plain = `plain-${id}`;
    const [a, b, other] = [`rx-${id}-a`, `rx-${id}-b`, `other-${id}`];
    await createTopic(c, plain, 1);
    await createTopic(c, a, 2);
    await createTopic(c, b, 1);
    await createTopic(c, other, 1);
    const ids = await topicIds(c, [plain, a, b, other]);
    const names = new Map([...ids].map(([n, i]) => [i, n]));

    // 1. Metadata v12 for all topics with 3 bytes after the body
    const md = await requestWithTrailingBytes(
      port,
      ApiKey.Metadata,
      12,
      { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false },
      Buffer.from([0, 0, 0]),
    );
    const trailingBytes = {
      errorlessTopics: md.topics.every((t) => t.errorCode === 0),
      brokers: md.brokers.length,
      listsTopic: md.topics.some((t) => t.name === plain),
    };
    log(`metadata with trailing bytes: ${JSON.stringify(trailingBytes)}`);

    // 2. a join with topic names and an empty regex
    const g1 = `g-empty-${id}`;
    await findCoordinator(c, g1);
    const m1 = new Member(c, g1);
    const first = await heartbeat(c, joinRequest(g1, m1.memberId, { names: [plain], regex: '' }));
    const emptyRegex = {
      errorCode: first.errorCode,
      sameMemberId: first.memberId === m1.memberId,
      epochAtLeast1: first.memberEpoch >= 1,
      owned: [] as string[],
      describedRegex: null as string | null,
      namesOnlyDescribedRegex: null as string | null,
    };
    if (first.errorCode === 0) {
      m1.epoch = first.memberEpoch;
      if (first.assignment) {
        m1.owned = new Map(first.assignment.topicPartitions.map((tp) => [tp.topicId, tp.partitions]));
      }
      await m1.beatUntil(() => m1.owned.size > 0, 15_000);
      emptyRegex.owned = m1.ownedNames(names);
      emptyRegex.describedRegex = (await describeGroup(c, g1)).members[0]?.subscribedTopicRegex ?? null;
      await m1.leave();
    }
    const g1b = `g-names-${id}`;
    await findCoordinator(c, g1b);
    const m1b = new Member(c, g1b);
    await m1b.join({ names: [plain] });
    emptyRegex.namesOnlyDescribedRegex = (await describeGroup(c, g1b)).members[0]?.subscribedTopicRegex ?? null;
    await m1b.leave();
    log(`empty regex: ${JSON.stringify(emptyRegex)}`);

    // 3. a regex subscription; a matching topic created later; a matching topic deleted
    const g2 = `g-regex-${id}`;
    const regexText = `rx-${id}-.*`;
    await findCoordinator(c, g2);
    const m2 = new Member(c, g2);
    await m2.join({ regex: regexText });
    const want = [`${a}-0`, `${a}-1`, `${b}-0`];
    await m2.beatUntil(() => m2.ownedNames(names).join() === want.join(), 30_000);
    const owned = m2.ownedNames(names);
    const cName = `rx-${id}-c`;
    await createTopic(c, cName, 1);
    for (const [n, i] of await topicIds(c, [cName])) {
      ids.set(n, i);
      names.set(i, n);
    }
    await m2.beatUntil(() => m2.ownedNames(names).includes(`${cName}-0`), 40_000);
    const ownedAfterCreate = m2.ownedNames(names);
    const described = (await describeGroup(c, g2)).members[0];
    const deleted = await c.request(ApiKey.DeleteTopics, 6, {
      topics: [{ name: b, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      topicNames: [],
      timeoutMs: 30_000,
    });
    const deleteError = deleted.responses[0].errorCode;
    if (deleteError !== 0) throw new Error(`DeleteTopics ${b}: error ${deleteError}`);
    await m2.beatUntil(() => !m2.ownedNames(names).includes(`${b}-0`), 40_000);
    const regex = {
      owned,
      ownedAfterCreate,
      describedRegex: described?.subscribedTopicRegex ?? null,
      describedNames: described?.subscribedTopicNames ?? null,
      ownedAfterDelete: m2.ownedNames(names),
    };
    await m2.leave();
    log(`regex: ${JSON.stringify(regex)}`);

    // 4. an invalid regex
    const g3 = `g-invalid-${id}`;
    await findCoordinator(c, g3);
    const bad = await heartbeat(c, joinRequest(g3, newMemberId(), { regex: '[' }));
    const invalid = { errorCode: bad.errorCode, errorMessage: bad.errorMessage };
    log(`invalid regex: ${JSON.stringify(invalid)}`);

    // 5. a regex that only matches the internal __consumer_offsets topic
    const g4 = `g-internal-${id}`;
    await findCoordinator(c, g4);
    const m4 = new Member(c, g4);
    await m4.join({ regex: '__consumer_offsets' });
    await m4.beatUntil(() => m4.owned.size > 0, 8_000);
    const allNames = new Map([...names, ...(await internalIds(c))]);
    const internal = { owned: [...new Set(m4.ownedNames(allNames).map((tp) => tp.replace(/-\d+$/, '')))] };
    await m4.leave();
    log(`internal topic regex: ${JSON.stringify(internal)}`);

    return { trailingBytes, emptyRegex, regex, invalid, internal };
  } finally {
    c.close();
  }
}

async function internalIds(c: RawClient): Promise<Map<string, string>> {
  const r = await c.request(ApiKey.Metadata, 12, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: '__consumer_offsets' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  return new Map(r.topics.map((t) => [t.topicId, t.name ?? ''] as const));
}
