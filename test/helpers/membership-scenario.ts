// A broker that exists only as forged requests: BrokerRegistration / BrokerHeartbeat /
// ControllerRegistration sent with RawClient to a controller listener, the way a broker's
// BrokerLifecycleManager would, with each step's answer recorded in a transcript. The same
// scenario runs against a tkafka node and an Apache Kafka 4.4.0 node, and the transcripts must be
// equal: the error codes and the IsCaughtUp / IsFenced / ShouldShutDown flags Kafka answers.
import { randomBytes } from 'node:crypto';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import type { BrokerHeartbeatResponse } from '../../src/protocol/generated/protocol/BrokerHeartbeat.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';

export interface MembershipTarget {
  /** The node's PLAINTEXT (broker) listener: Metadata, DescribeCluster, CreateTopics. */
  readonly port: number;
  /** The node's controller listener, where the registration RPCs go. */
  readonly controllerPort: number;
  /** broker.session.timeout.ms the node runs with. */
  readonly sessionTimeoutMs: number;
}

export interface MembershipResult {
  /** One line per step: what was sent and what came back (no epochs or offsets: they differ). */
  readonly transcript: string[];
  /** Milliseconds from the last heartbeat to the broker being listed as fenced. */
  readonly fencedAfterMs: number;
}

const uuid = (): string => randomBytes(16).toString('base64url');

type Hb = BrokerHeartbeatResponse;
const hbLine = (what: string, r: Hb): string =>
  `${what}: error=${r.errorCode} caughtUp=${r.isCaughtUp} fenced=${r.isFenced} shutDown=${r.shouldShutDown}`;

/** Broker `id` joins, is unfenced, is fenced on session expiry, comes back, shuts down in a controlled way. */
export async function membershipScenario(target: MembershipTarget, id = 2): Promise<MembershipResult> {
  const t: string[] = [];
  const broker = await RawClient.connect(target.port);
  const ctl = await RawClient.connect(target.controllerPort);
  try {
    const md = await broker.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
    const clusterId = md.clusterId ?? '';
    const av = await broker.request(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'membership-test',
      clientSoftwareVersion: '1',
    });
    // what the node supports, and every finalized feature it does not list (tkafka lists only metadata.version)
    const features = av.supportedFeatures.map((f) => ({
      name: f.name,
      minSupportedVersion: f.minVersion,
      maxSupportedVersion: f.maxVersion,
    }));
    // a broker always names kraft.version (tkafka's ApiVersions does not list it)
    if (!features.some((x) => x.name === 'kraft.version'))
      features.push({ name: 'kraft.version', minSupportedVersion: 0, maxSupportedVersion: 1 });
    for (const f of av.finalizedFeatures) {
      if (!features.some((x) => x.name === f.name))
        features.push({ name: f.name, minSupportedVersion: 0, maxSupportedVersion: f.maxVersionLevel });
    }
    const logDir = uuid();
    const incarnation = uuid();
    const registration = (over: Record<string, unknown> = {}) => ({
      brokerId: id,
      clusterId,
      incarnationId: incarnation,
      listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 1, securityProtocol: 0 }],
      features,
      rack: null,
      isMigratingZkBroker: false,
      logDirs: [logDir],
      previousBrokerEpoch: -1n,
      ...over,
    });
    const register = async (what: string, over: Record<string, unknown> = {}) => {
      const r = await ctl.request(ApiKey.BrokerRegistration, 4, registration(over));
      t.push(`${what}: error=${r.errorCode}${r.errorCode === 0 ? '' : ` epoch=${r.brokerEpoch}`}`);
      return r;
    };
    await register('register with another cluster id', { clusterId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    await register('register without metadata.version', {
      features: features.filter((f) => f.name !== 'metadata.version'),
    });
    await register('register without log dirs', { logDirs: [] });
    await register('register with a reserved log dir', { logDirs: ['AAAAAAAAAAAAAAAAAAAAAA'] });
    await register('register with an unsupported metadata.version', {
      features: features.map((f) =>
        f.name === 'metadata.version' ? { ...f, minSupportedVersion: 7, maxSupportedVersion: 7 } : f,
      ),
    });
    const reg = await register('register');
    if (reg.errorCode !== 0) throw new Error(`the registration failed: error ${reg.errorCode}`);
    const epoch = reg.brokerEpoch;
    const again = await register('register again (same incarnation)');
    t.push(`same incarnation keeps its epoch: ${again.brokerEpoch === epoch}`);

    // an offset past everything written here (the registration record's offset moves with every re-registration)
    const offset = epoch + 1_000_000n;
    const heartbeat = (over: Record<string, unknown> = {}) =>
      ctl.request(ApiKey.BrokerHeartbeat, 1, {
        brokerId: id,
        brokerEpoch: epoch,
        currentMetadataOffset: 0n,
        wantFence: false,
        wantShutDown: false,
        offlineLogDirs: [],
        ...over,
      });
    t.push(hbLine('heartbeat of an unregistered broker', await heartbeat({ brokerId: id + 100 })));
    t.push(hbLine('heartbeat with a stale epoch', await heartbeat({ brokerEpoch: epoch - 1n })));
    t.push(hbLine('heartbeat behind the registration', await heartbeat({ currentMetadataOffset: epoch - 1n })));
    t.push(hbLine('heartbeat wanting fence', await heartbeat({ currentMetadataOffset: offset, wantFence: true })));
    t.push(hbLine('heartbeat caught up', await heartbeat({ currentMetadataOffset: offset })));
    t.push(hbLine('heartbeat again', await heartbeat({ currentMetadataOffset: offset })));
    await register('register another incarnation during the session', { incarnationId: uuid() });

    const describeBroker = async () => {
      const d = await broker.request(ApiKey.DescribeCluster, 2, {
        includeClusterAuthorizedOperations: false,
        endpointType: 1,
        includeFencedBrokers: true,
      });
      return d.brokers.find((b) => b.brokerId === id);
    };
    // The broker lists what its metadata image holds, which follows the controller's by a moment
    // (longer on a loaded machine): whether it lists `fenced` within 15 s.
    const listedAs = (fenced: boolean): Promise<boolean> =>
      waitFor(async () => (await describeBroker())?.isFenced === fenced, {
        what: `broker ${id} listed ${fenced ? 'fenced' : 'unfenced'}`,
        timeoutMs: 15_000,
        intervalMs: 50,
      }).then(
        () => true,
        () => false,
      );
    t.push(`listed unfenced: ${await listedAs(false)}`);

    // no more heartbeats: the session expires and the controller fences the broker by itself
    const lastHeartbeat = Date.now();
    await waitFor(async () => (await describeBroker())?.isFenced === true, {
      what: `broker ${id} to be fenced after its session timed out`,
      timeoutMs: target.sessionTimeoutMs * 4 + 10_000,
      intervalMs: 50,
    });
    const fencedAfterMs = Date.now() - lastHeartbeat;
    t.push(`fenced after the session timeout: ${fencedAfterMs > target.sessionTimeoutMs}`);

    t.push(hbLine('heartbeat after the fencing', await heartbeat({ currentMetadataOffset: offset })));
    t.push(`listed unfenced again: ${await listedAs(false)}`);

    // a partition only this broker holds; controlled shutdown moves its leadership away (to none)
    const topic = `membership-${id}-${Date.now()}`;
    const created = await broker.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: topic,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [id] }],
          configs: [],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    t.push(`topic on broker ${id}: error=${created.topics[0]?.errorCode}`);
    const leaderOf = async () => {
      const m = await broker.request(ApiKey.Metadata, 12, {
        topics: [{ topicId: ZERO_UUID, name: topic }],
        allowAutoTopicCreation: false,
      });
      return m.topics[0]?.partitions[0]?.leaderId ?? -2;
    };
    await waitFor(
      async () => {
        await heartbeat({ currentMetadataOffset: offset }); // keep the session alive meanwhile
        return (await leaderOf()) === id;
      },
      { what: `broker ${id} to lead ${topic}-0`, intervalMs: 200 },
    );
    t.push(
      hbLine('heartbeat wanting shutdown', await heartbeat({ currentMetadataOffset: offset, wantShutDown: true })),
    );
    const leaderless = await waitFor(async () => ((await leaderOf()) === -1 ? 'none' : ''), {
      what: `${topic}-0 to have no leader`,
    });
    t.push(`leader after controlled shutdown: ${leaderless}`);
    const done = await waitFor(
      async () => {
        const r = await heartbeat({ currentMetadataOffset: offset, wantShutDown: true });
        return r.shouldShutDown ? r : null;
      },
      { what: 'ShouldShutDown', timeoutMs: 30_000, intervalMs: 200 },
    );
    t.push(hbLine('heartbeat until ShouldShutDown', done));
    t.push(`listed fenced after shutdown: ${await listedAs(true)}`);

    const ctlReg = await ctl.request(ApiKey.ControllerRegistration, 0, {
      controllerId: 3000 + id,
      incarnationId: uuid(),
      zkMigrationReady: false,
      listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 2, securityProtocol: 0 }],
      features: features.filter((f) => f.name === 'metadata.version' || f.name === 'kraft.version'),
    });
    t.push(`controller registration: error=${ctlReg.errorCode}`);
    return { transcript: t, fencedAfterMs };
  } catch (e) {
    throw new Error(`${(e as Error).message}\ntranscript so far:\n${t.join('\n')}`, { cause: e });
  } finally {
    broker.close();
    ctl.close();
  }
}

/**
 * What Apache Kafka 4.4.0 answers (recorded from a Kafka 4.4.0 combined node; the interop test
 * checks it again against a real one). 104 INCONSISTENT_CLUSTER_ID, 119 INVALID_REGISTRATION,
 * 35 UNSUPPORTED_VERSION, 77 STALE_BROKER_EPOCH, 101 DUPLICATE_BROKER_REGISTRATION.
 */
export const EXPECTED_TRANSCRIPT: readonly string[] = [
  'register with another cluster id: error=104 epoch=-1',
  'register without metadata.version: error=119 epoch=-1',
  'register without log dirs: error=119 epoch=-1',
  'register with a reserved log dir: error=119 epoch=-1',
  'register with an unsupported metadata.version: error=35 epoch=-1',
  'register: error=0',
  'register again (same incarnation): error=0',
  'same incarnation keeps its epoch: true',
  'heartbeat of an unregistered broker: error=77 caughtUp=false fenced=true shutDown=false',
  'heartbeat with a stale epoch: error=77 caughtUp=false fenced=true shutDown=false',
  'heartbeat behind the registration: error=0 caughtUp=false fenced=true shutDown=false',
  'heartbeat wanting fence: error=0 caughtUp=true fenced=true shutDown=false',
  'heartbeat caught up: error=0 caughtUp=true fenced=false shutDown=false',
  'heartbeat again: error=0 caughtUp=true fenced=false shutDown=false',
  'register another incarnation during the session: error=101 epoch=-1',
  'listed unfenced: true',
  'fenced after the session timeout: true',
  'heartbeat after the fencing: error=0 caughtUp=true fenced=false shutDown=false',
  'listed unfenced again: true',
  'topic on broker 2: error=0',
  'heartbeat wanting shutdown: error=0 caughtUp=true fenced=false shutDown=false',
  'leader after controlled shutdown: none',
  'heartbeat until ShouldShutDown: error=0 caughtUp=true fenced=true shutDown=true',
  'listed fenced after shutdown: true',
  'controller registration: error=0',
];
