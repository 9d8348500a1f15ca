// An operator's reassignment and leader elections on an Apache Kafka 4.4.0 cluster, with tkafka's tools and
// Kafka 4.4.0's TopicCommand as the independent view (the scenario: helpers/reassign-flow-scenario.ts;
// the same on tkafka: reassign-flow-tkafka.test.ts).
//
//   npm run build && nice -n 19 node --test dist/test/interop/reassign-flow.test.js
import { after, before, test } from 'node:test';
import type { Cluster } from '../helpers/cluster.js';
import {
  cancelInTheMiddle,
  preferredElectionAfterRestart,
  reassignWhileProducing,
  startReassignCluster,
  uncleanOnlyWhenAsked,
} from './helpers/reassign-flow-scenario.js';

let cluster: Cluster;
before(async () => {
  cluster = await startReassignCluster('kafka');
});
after(async () => {
  await cluster?.cleanup();
});

test('generate → execute with a throttle → verify, while producing: every record on the new replicas', async () => {
  const f = await reassignWhileProducing(cluster);
  console.log(`Kafka 4.4.0: 3 MB moved at 500 KB/s in ${f.reassignMs} ms, ${f.acked} records produced meanwhile`);
});
test('cancel in the middle leaves the old assignment', () => cancelInTheMiddle(cluster));
test('preferred leader election after a broker restart', () => preferredElectionAfterRestart(cluster));
test('unclean election only when asked', () => uncleanOnlyWhenAsked(cluster));
