// KIP-853 pieces that need no cluster: the leader-side voter-change state machine of
// raft/voter-changes.ts driven through its VoterChangeLeader seam (one change at a time, the
// ApiVersions probe, caught-up check, commit by the high watermark, a leader removing itself, the
// epoch ending), `metadata-quorum remove-controller`'s argument checks and --unregister dry run, and
// UpdateFeatures of kraft.version. The real-process comparisons with Apache Kafka 4.4.0 are in
// test/interop/dynamic-quorum*.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ErrorCode } from '../src/protocol/errors.js';
import { ZERO_UUID } from '../src/protocol/uuid.js';
import type { VotersRecord } from '../src/protocol/generated/protocol/VotersRecord.js';
import {
  fromVotersRecord,
  VoterChanges,
  type VersionRange,
  type VoterChangeLeader,
  type VoterNode,
  type VoterSetEntry,
} from '../src/broker/raft/voter-changes.js';
import { parseUuid } from '../src/tools/metadata-quorum/voters.js';
import { run } from '../src/tools/metadata-quorum/main.js';
import { updateFeatures, UpgradeType } from '../src/broker/controller/features.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import { RecordType } from '../src/protocol/metadata-records.js';

const DIR1 = 'gcQzmUrRR4WwfY3u9NbTSg';
const DIR2 = 'EoKt9INyv_71JPpwZGI7rg';
const DIR3 = 'JgDwk01JC5TcSaQB5klV1A';
const ep = (port: number) => [{ name: 'CONTROLLER', host: '127.0.0.1', port }];
const node = (id: number, directoryId: string): VoterNode => ({
  key: { id, directoryId },
  endpoints: ep(9000 + id),
  kraftVersion: { min: 0, max: 1 },
});

/** A leader whose log is an array of voter sets; the test moves the high watermark. */
class TestLeader implements VoterChangeLeader {
  readonly localKey = { id: 1, directoryId: DIR1 };
  readonly listenerName = 'CONTROLLER';
  readonly requestTimeoutMs = 60_000;
  hwm: number | null = 10;
  kraft = 1;
  entry: VoterSetEntry = { offset: 5, voters: [node(1, DIR1)] };
  leo = 10;
  caughtUp = true;
  probe: { errorCode: number; kraftVersion: VersionRange | null } = {
    errorCode: 0,
    kraftVersion: { min: 0, max: 1 },
  };
  appended: VotersRecord[] = [];
  resigned = false;
  epoch = () => 3;
  isLeader = () => true;
  isShuttingDown = () => false;
  highWatermark = () => this.hwm;
  lastKraftVersion = () => this.kraft;
  lastVoterSetEntry = () => this.entry;
  volatileVoters = () => null;
  setVolatileVoters = () => false;
  isReplicaCaughtUp = () => this.caughtUp;
  appendVotersRecord = async (r: VotersRecord) => {
    this.appended.push(r);
    this.entry = { offset: this.leo, voters: fromVotersRecord(r) };
    return this.leo++;
  };
  requestResign = () => {
    this.resigned = true;
  };
  leaderEndpoints = () => ep(9001);
  apiVersions = async () => this.probe;
}

const add = (id: number, dir: string, ackWhenCommitted = true) => ({
  voterId: id,
  voterDirectoryId: dir,
  listeners: ep(9000 + id),
  ackWhenCommitted,
});

/** Resolves with whether `p` settled within the current turn of the event loop and a few ticks. */
async function settled<T>(p: Promise<T>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise((r) => setImmediate(r));
  return done;
}

test('AddRaftVoter: probe, append, answered once the new majority commits the VotersRecord', async () => {
  const leader = new TestLeader();
  const changes = new VoterChanges(leader);
  const answer = changes.addVoter(add(2, DIR2));
  assert.equal(await settled(answer), false, 'waits for the commit');
  assert.deepEqual(
    leader.appended.map((r) => r.voters.map((v) => [v.voterId, v.voterDirectoryId])),
    [
      [
        [1, DIR1],
        [2, DIR2],
      ],
    ],
  );
  // a second change while the first is pending
  assert.deepEqual(await changes.removeVoter({ voterId: 1, voterDirectoryId: DIR1 }), {
    errorCode: ErrorCode.REQUEST_TIMED_OUT,
    errorMessage: 'Request timed out waiting for leader to handle previous voter change request',
  });
  changes.highWatermarkUpdated(10); // not past the VotersRecord at 10
  assert.equal(await settled(answer), false);
  changes.highWatermarkUpdated(11);
  assert.deepEqual(await answer, { errorCode: 0, errorMessage: null });
  // the new set is not committed yet in the leader's view (offset 10 >= HWM 10)
  const r = await changes.addVoter(add(3, DIR3));
  assert.deepEqual(r, {
    errorCode: ErrorCode.REQUEST_TIMED_OUT,
    errorMessage: 'Request timed out waiting for voters to commit the latest voter change at Optional[10] with HWM 10',
  });
});

test('AddRaftVoter: AckWhenCommitted=false answers at the append; the change stays pending until committed', async () => {
  const leader = new TestLeader();
  const changes = new VoterChanges(leader);
  assert.deepEqual(await changes.addVoter(add(2, DIR2, false)), { errorCode: 0, errorMessage: null });
  assert.equal((await changes.addVoter(add(3, DIR3))).errorCode, ErrorCode.REQUEST_TIMED_OUT);
  leader.hwm = 11;
  changes.highWatermarkUpdated(11);
  const third = changes.addVoter(add(3, DIR3));
  assert.equal(await settled(third), false);
  changes.highWatermarkUpdated(12);
  assert.equal((await third).errorCode, 0);
});

test('AddRaftVoter refusals: kraft.version 0, no HWM, duplicate id, lagging observer, kraft.version range, probe error', async () => {
  const cases: [string, (l: TestLeader) => void, ReturnType<typeof add>, number, string][] = [
    [
      'kraft.version 0',
      (l) => (l.kraft = 0),
      add(2, DIR2),
      ErrorCode.UNSUPPORTED_VERSION,
      "Cluster doesn't support adding voter because the kraft.version feature is 0",
    ],
    [
      'no high watermark',
      (l) => (l.hwm = null),
      add(2, DIR2),
      ErrorCode.REQUEST_TIMED_OUT,
      'Request timed out waiting for leader to establish HWM and fence previous voter changes',
    ],
    [
      'duplicate id',
      () => {},
      add(1, DIR2),
      ErrorCode.DUPLICATE_VOTER,
      `The voter id for ReplicaKey(id=1, directoryId=${DIR2}) is already part of the set of voters [ReplicaKey(id=1, directoryId=${DIR1})].`,
    ],
    [
      'lagging',
      (l) => (l.caughtUp = false),
      add(2, DIR2),
      ErrorCode.REQUEST_TIMED_OUT,
      `Aborted add voter operation for ReplicaKey(id=2, directoryId=${DIR2}) since it is lagging behind`,
    ],
    [
      'kraft.version range',
      (l) => (l.probe = { errorCode: 0, kraftVersion: { min: 0, max: 0 } }),
      add(2, DIR2),
      ErrorCode.INVALID_REQUEST,
      `Aborted add voter operation for ReplicaKey(id=2, directoryId=${DIR2}) since the kraft.version range (min: 0, max: 0 doesn't support the finalized version 1`,
    ],
    [
      'probe error',
      (l) => (l.probe = { errorCode: ErrorCode.UNSUPPORTED_VERSION, kraftVersion: null }),
      add(2, DIR2),
      ErrorCode.REQUEST_TIMED_OUT,
      'Aborted add voter operation for since API_VERSIONS returned an error UNSUPPORTED_VERSION',
    ],
    [
      'no directory id',
      () => {},
      add(2, ZERO_UUID),
      ErrorCode.INVALID_REQUEST,
      "Add voter request didn't include a valid voter",
    ],
  ];
  for (const [what, setUp, req, code, message] of cases) {
    const leader = new TestLeader();
    setUp(leader);
    assert.deepEqual(await new VoterChanges(leader).addVoter(req), { errorCode: code, errorMessage: message }, what);
    assert.deepEqual(leader.appended, [], what);
  }
});

test('RemoveRaftVoter: the leader removing itself resigns once committed; VOTER_NOT_FOUND for the last voter', async () => {
  const leader = new TestLeader();
  leader.entry = { offset: 5, voters: [node(1, DIR1), node(2, DIR2)] };
  const changes = new VoterChanges(leader);
  const answer = changes.removeVoter({ voterId: 1, voterDirectoryId: DIR1 });
  await settled(answer);
  assert.deepEqual(
    leader.appended.map((r) => r.voters.map((v) => v.voterId)),
    [[2]],
  );
  changes.highWatermarkUpdated(11);
  assert.deepEqual(await answer, { errorCode: 0, errorMessage: null });
  assert.equal(leader.resigned, true);

  const single = new TestLeader();
  assert.deepEqual(await new VoterChanges(single).removeVoter({ voterId: 1, voterDirectoryId: DIR1 }), {
    errorCode: ErrorCode.VOTER_NOT_FOUND,
    errorMessage: `Cannot remove voter ReplicaKey(id=1, directoryId=${DIR1}) from the set of voters [ReplicaKey(id=1, directoryId=${DIR1})]`,
  });
});

test('a pending change ends with NOT_LEADER_OR_FOLLOWER when the epoch ends; later requests too', async () => {
  const leader = new TestLeader();
  const changes = new VoterChanges(leader);
  const answer = changes.addVoter(add(2, DIR2));
  await settled(answer);
  changes.close();
  assert.deepEqual(await answer, { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage: null });
  assert.equal((await changes.addVoter(add(3, DIR3))).errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
});

test('UpdateRaftVoter: epochs, the voter key, the kraft.version range', async () => {
  const leader = new TestLeader();
  leader.entry = { offset: 5, voters: [node(1, DIR1), node(2, DIR2)] };
  const changes = new VoterChanges(leader);
  const req = {
    currentLeaderEpoch: 3,
    voterId: 2,
    voterDirectoryId: DIR2,
    listeners: ep(9102),
    kraftVersion: { min: 0, max: 1 },
    requestListener: 'CONTROLLER',
  };
  const leaderFields = { leaderId: 1, leaderEpoch: 3, leaderEndpoint: { host: '127.0.0.1', port: 9001 } };
  assert.deepEqual(await changes.updateVoter({ ...req, currentLeaderEpoch: 2 }), {
    errorCode: ErrorCode.FENCED_LEADER_EPOCH,
    ...leaderFields,
  });
  assert.equal(
    (await changes.updateVoter({ ...req, currentLeaderEpoch: 4 })).errorCode,
    ErrorCode.UNKNOWN_LEADER_EPOCH,
  );
  assert.equal((await changes.updateVoter({ ...req, voterDirectoryId: DIR3 })).errorCode, ErrorCode.VOTER_NOT_FOUND);
  assert.equal(
    (await changes.updateVoter({ ...req, kraftVersion: { min: 0, max: 0 } })).errorCode,
    ErrorCode.INVALID_REQUEST,
  );
  assert.deepEqual(await changes.updateVoter(req), { errorCode: 0, ...leaderFields });
  assert.deepEqual(
    leader.appended.map((r) => r.voters.map((v) => [v.voterId, v.endpoints[0]!.port])),
    [
      [
        [1, 9001],
        [2, 9102],
      ],
    ],
  );
});

async function mq(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d: Buffer) => (o += d));
  stderr.on('data', (d: Buffer) => (e += d));
  const code = await run(args, { stdout, stderr, stdin: new PassThrough(), env: {} });
  return { code, stdout: o, stderr: e };
}

test('remove-controller: Uuid.fromString errors and the --unregister dry run, as MetadataQuorumCommand prints them', async () => {
  assert.equal(parseUuid('J8aAPcfLQt2bqs1JT_rMgQ'), 'J8aAPcfLQt2bqs1JT_rMgQ');
  assert.throws(() => parseUuid('J8aAPcfLQt2bqs1JT_rMgQAAAA'), {
    message: 'Input string with prefix `J8aAPcfLQt2bqs1JT_rMgQAA` is too long to be decoded as a base64 UUID',
  });
  assert.throws(() => parseUuid('abcd'), {
    message:
      'Input string `abcd` decoded as 3 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID',
  });
  assert.throws(() => parseUuid('ab+d'), { message: 'Illegal base64 character 2b' });
  const base = ['--bootstrap-controller', 'x:1', 'remove-controller', '-i', '3', '-d'];
  let r = await mq([...base, 'abcd', '--dry-run']);
  assert.deepEqual(
    [r.code, r.stderr],
    [
      1,
      'Failed to parse --controller-directory-id: Input string `abcd` decoded as 3 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID\n',
    ],
  );
  r = await mq([...base, 'J8aAPcfLQt2bqs1JT_rMgQ', '--dry-run', '--unregister']);
  assert.deepEqual(
    [r.code, r.stdout],
    [
      0,
      'DRY RUN of removing KRaft controller 3 with directory id J8aAPcfLQt2bqs1JT_rMgQ\nDRY RUN of unregistering KRaft controller 3\n',
    ],
  );
});

test('UpdateFeatures of kraft.version: an UPGRADE to the current level writes a NoOpRecord, as FeatureControlManager does', () => {
  const image = MetadataImage.empty('c', 1);
  const upgrade = (level: number, upgradeType: number = UpgradeType.UPGRADE) =>
    updateFeatures(image, 1, 1, [{ feature: 'kraft.version', level, upgradeType }]);
  const same = upgrade(1);
  assert.equal(same.error.errorCode, 0);
  assert.deepEqual(
    same.records.map((r) => r.type),
    [RecordType.NoOp],
  );
  // a downgrade at the same level writes nothing; a lower level is refused
  assert.deepEqual(
    [upgrade(1, UpgradeType.SAFE_DOWNGRADE).records, upgrade(1, UpgradeType.SAFE_DOWNGRADE).error.errorCode],
    [[], 0],
  );
  assert.equal(
    upgrade(0, UpgradeType.SAFE_DOWNGRADE).error.errorMessage,
    "Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature.",
  );
});
