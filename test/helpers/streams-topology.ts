// A word-count topology as Kafka Streams sends it in StreamsGroupHeartbeat (two subtopologies: the
// source topic words-in, a repartition topic, a compacted changelog), shared by the raw streams tests.

/** A TopicInfo of the topology (partitions and replication factor 0: the broker decides). */
export const topicInfo = (name: string, configs: { key: string; value: string }[] = []) => ({
  name,
  partitions: 0,
  replicationFactor: 0,
  topicConfigs: configs,
});

/** The word count's topology, epoch 0. */
export const WORDCOUNT_TOPOLOGY = {
  epoch: 0,
  subtopologies: [
    {
      subtopologyId: '0',
      sourceTopics: ['words-in'],
      sourceTopicRegex: [],
      stateChangelogTopics: [],
      repartitionSinkTopics: ['wc-repartition'],
      repartitionSourceTopics: [],
      copartitionGroups: [],
    },
    {
      subtopologyId: '1',
      sourceTopics: [],
      sourceTopicRegex: [],
      stateChangelogTopics: [topicInfo('wc-changelog', [{ key: 'cleanup.policy', value: 'compact' }])],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [topicInfo('wc-repartition')],
      copartitionGroups: [],
    },
  ],
};
