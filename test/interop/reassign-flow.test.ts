// An operator's reassignment and leader elections on an Apache Kafka 4.4.0 cluster, with tkafka's tools and Kafka
// 4.4.0's TopicCommand as the independent view (the scenario: helpers/reassign-flow-scenario.ts; the
// same on the other implementation: reassign-flow-tkafka.test.ts).
//
//   npm run build && nice -n 19 node --test dist/test/interop/reassign-flow.test.js
import { reassignFlowSuite } from './helpers/reassign-flow-scenario.js';

reassignFlowSuite('kafka');
