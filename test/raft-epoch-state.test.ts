// QuorumStateMachine (Kafka's QuorumState): the vote a replica cast in an epoch survives every
// transition within that epoch, Prospective (KIP-996 pre-vote) included, so it never votes twice.
// Ported from Kafka's QuorumStateTest cases for a candidate falling back to prospective.
import test from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { QuorumStateMachine } from '../src/broker/raft/epoch-state.js';
import { readQuorumState } from '../src/storage/quorum-state.js';
import { ZERO_UUID } from '../src/protocol/uuid.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';

const other = { id: 2, directoryId: ZERO_UUID };

async function machine(dir: string): Promise<QuorumStateMachine> {
  const m = new QuorumStateMachine({
    file: join(dir, 'quorum-state'),
    localId: 1,
    localDirectoryId: ZERO_UUID,
    dataVersion: () => 0,
    voterIds: () => [1, 2, 3],
  });
  await m.initialize(null, { epoch: 0, offset: 0 });
  return m;
}

// no standard vote for another replica in the epoch it voted in
test('a candidate that falls back to prospective keeps its vote for itself', async () => {
  const dir = await tempDir('tkafka-quorum-');
  try {
    const m = await machine(dir);
    await m.toCandidate();
    assert.equal(m.epoch, 1);
    await m.toProspective();
    assert.equal(m.state.name, 'Prospective');
    assert.deepEqual(m.state.votedKey, { id: 1, directoryId: ZERO_UUID });
    assert.equal(m.canGrantVote(other, true, false), false, 'a second standard vote in epoch 1');
    assert.equal(m.canGrantVote(other, true, true), true, 'a pre-vote is no vote');
    assert.equal(m.canGrantVote(m.localKey, true, false), true, 'the vote it cast');
    const stored = await readQuorumState(join(dir, 'quorum-state'));
    assert.equal(stored?.state.leaderEpoch, 1);
    assert.equal(stored?.state.votedId, 1, 'the file still holds the vote');
  } finally {
    await removeDir(dir);
  }
});

test('an unattached replica that voted keeps that vote when it turns prospective; one that did not may vote', async () => {
  const dir = await tempDir('tkafka-quorum-');
  try {
    const m = await machine(dir);
    await m.toUnattached(3);
    await m.toProspective();
    assert.equal(m.canGrantVote(other, true, false), true, 'no vote cast in epoch 3 yet');
    await m.addVotedState(3, { id: 3, directoryId: ZERO_UUID });
    assert.equal(m.state.name, 'Prospective');
    assert.equal(m.canGrantVote(other, true, false), false, 'voted for 3 in epoch 3');
  } finally {
    await removeDir(dir);
  }
});
