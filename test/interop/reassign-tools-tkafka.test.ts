// `tkafka reassign-partitions` and `tkafka leader-election` on a tkafka cluster, line by line with
// Kafka 4.4.0's own tools run against the same tkafka cluster (the suite: helpers/reassign-tools-suite.ts).
//
//   npm run build && nice -n 19 node --test dist/test/interop/reassign-tools-tkafka.test.js
import { reassignToolsSuite } from './helpers/reassign-tools-suite.js';

reassignToolsSuite('tkafka');
