// PartitionTaskPool (a metadata update's partition changes applied several at once): one
// partition's tasks run one at a time in submission order, different partitions' run together up
// to the limit and no further, and a failure is reported by drain() without stopping what follows.
import test from 'node:test';
import assert from 'node:assert/strict';
import { PartitionTaskPool } from '../src/broker/replication/partition-task-pool.js';

interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}
function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** Lets every settled promise's reactions run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

test('tasks of one partition run one at a time, in submission order', async () => {
  const pool = new PartitionTaskPool(8);
  const events: string[] = [];
  const gates = [gate(), gate(), gate()];
  gates.forEach((g, i) =>
    pool.submit('t-0', async () => {
      events.push(`start ${i}`);
      await g.opened;
      events.push(`end ${i}`);
    }),
  );
  await settle();
  assert.deepEqual(events, ['start 0']);
  // the later ones finish first if allowed; they must still wait their turn
  gates[2]!.open();
  gates[1]!.open();
  await settle();
  assert.deepEqual(events, ['start 0']);
  gates[0]!.open();
  await pool.drain();
  assert.deepEqual(events, ['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  assert.equal(pool.peakConcurrency, 1);
});

test('different partitions run together up to the limit, and the rest start as slots free', async () => {
  const pool = new PartitionTaskPool(3);
  const g = gate();
  let running = 0;
  let started = 0;
  for (let i = 0; i < 10; i++)
    pool.submit(`t-${i}`, async () => {
      started++;
      running++;
      await g.opened;
      running--;
    });
  await settle();
  assert.equal(started, 3);
  assert.equal(running, 3);
  g.open();
  await pool.drain();
  assert.equal(started, 10);
  assert.equal(pool.peakConcurrency, 3);
});

test('a task waiting for its partition holds no slot', async () => {
  const pool = new PartitionTaskPool(2);
  const first = gate();
  const order: string[] = [];
  pool.submit('a-0', async () => {
    order.push('a-0 #1');
    await first.opened;
  });
  pool.submit('a-0', async () => {
    order.push('a-0 #2');
  });
  pool.submit('b-0', async () => {
    order.push('b-0');
  });
  await settle();
  // b-0 ran although a-0's second task was submitted before it
  assert.deepEqual(order, ['a-0 #1', 'b-0']);
  first.open();
  await pool.drain();
  assert.deepEqual(order, ['a-0 #1', 'b-0', 'a-0 #2']);
});

test("a failing task is reported by drain and does not stop its partition's next task", async () => {
  const pool = new PartitionTaskPool(2);
  const ran: string[] = [];
  pool.submit('t-0', async () => {
    await Promise.resolve();
    throw new Error('disk gone');
  });
  pool.submit('t-0', async () => {
    ran.push('next');
  });
  pool.submit('t-1', async () => {
    ran.push('other');
  });
  await assert.rejects(pool.drain(), /disk gone/);
  assert.deepEqual(ran.sort(), ['next', 'other']);
  // reported once
  await pool.drain();
});

test('the limit must be at least 1', () => {
  assert.throws(() => new PartitionTaskPool(0), RangeError);
});
