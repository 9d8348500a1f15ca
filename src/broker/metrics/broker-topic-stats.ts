// Kafka's BrokerTopicStats (kafka.server:type=BrokerTopicMetrics): per-topic meters and the
// all-topics ones, as plain running totals owned by the replica manager that counts them. The JMX
// exporter renders a meter's Count as `kafka_server_brokertopicmetrics_<name>_total`, with a
// `topic` label for the per-topic MBeans and without it for the all-topics one.
import type { Registry } from 'prom-client';
import { counters } from './families.js';

export class TopicStats {
  messagesIn = 0;
  bytesIn = 0;
  bytesOut = 0;
  bytesRejected = 0;
  replicationBytesIn = 0;
  replicationBytesOut = 0;
  totalProduceRequests = 0;
  totalFetchRequests = 0;
  failedProduceRequests = 0;
  failedFetchRequests = 0;
  /** Kafka 4 converts no message formats (v0/v1 are gone): these stay 0, as they do on Kafka 4. */
  produceMessageConversions = 0;
  fetchMessageConversions = 0;
}

/** [field, MBean name without PerSec]: the meters rendered, in Kafka's order. */
const METERS: readonly (readonly [keyof TopicStats, string])[] = [
  ['messagesIn', 'MessagesIn'],
  ['bytesIn', 'BytesIn'],
  ['bytesOut', 'BytesOut'],
  ['bytesRejected', 'BytesRejected'],
  ['replicationBytesIn', 'ReplicationBytesIn'],
  ['replicationBytesOut', 'ReplicationBytesOut'],
  ['failedProduceRequests', 'FailedProduceRequests'],
  ['failedFetchRequests', 'FailedFetchRequests'],
  ['totalProduceRequests', 'TotalProduceRequests'],
  ['totalFetchRequests', 'TotalFetchRequests'],
  ['produceMessageConversions', 'ProduceMessageConversions'],
  ['fetchMessageConversions', 'FetchMessageConversions'],
];

export class BrokerTopicStats {
  readonly all = new TopicStats();
  private readonly topics = new Map<string, TopicStats>();

  /** The topic's stats (created on its first count). Callers count into it and into `all`. */
  topic(name: string): TopicStats {
    let s = this.topics.get(name);
    if (!s) this.topics.set(name, (s = new TopicStats()));
    return s;
  }

  /** BrokerTopicStats.removeMetrics: a topic no longer hosted here. */
  removeTopic(name: string): void {
    this.topics.delete(name);
  }

  register(registry: Registry): void {
    for (const [field, mbean] of METERS) {
      counters(
        registry,
        `kafka_server_brokertopicmetrics_${mbean.toLowerCase()}_total`,
        `kafka.server:type=BrokerTopicMetrics,name=${mbean}PerSec[,topic=*] (Count)`,
        ['topic'],
        (emit) => {
          emit({}, this.all[field]);
          for (const [topic, s] of this.topics) emit({ topic }, s[field]);
        },
      );
    }
  }
}
