// `tkafka reassign-partitions` and `tkafka leader-election` against an Apache Kafka 4.4.0 cluster,
// line by line with Kafka's own tools (the suite: helpers/reassign-tools-suite.ts).
//
//   npm run build && nice -n 19 node --test dist/test/interop/reassign-tools.test.js
import { reassignToolsSuite } from './helpers/reassign-tools-suite.js';

reassignToolsSuite('kafka');
