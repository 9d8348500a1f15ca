// Kafka's LogFlushStats (kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs): the time of each
// log flush that wrote something, process-wide as Kafka's object is (a node is one process).
import { Reservoir } from './reservoir.js';

export const logFlushTimes = new Reservoir();
