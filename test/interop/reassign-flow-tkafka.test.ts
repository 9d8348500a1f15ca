// An operator's reassignment and leader elections on a tkafka cluster, with tkafka's tools and Kafka
// 4.4.0's TopicCommand as the independent view (the scenario: helpers/reassign-flow-scenario.ts; the
// same on the other implementation: reassign-flow.test.ts).
//
//   npm run build && nice -n 19 node --test dist/test/interop/reassign-flow-tkafka.test.js
import { reassignFlowSuite } from './helpers/reassign-flow-scenario.js';

reassignFlowSuite('tkafka');
