// The latest offsets of partitions, as Kafka 4.4's NetworkPartitionMetadataClient.listLatestOffsets
// gives them to the group coordinator for share-group lag (KIP-1226): one ListOffsets request per
// partition leader (timestamp LATEST, READ_UNCOMMITTED: the high watermark), sent over the
// inter-broker listener, this broker included. A partition without a leader answers
// LEADER_NOT_AVAILABLE; a topic the image does not know, UNKNOWN_TOPIC_OR_PARTITION; a network
// failure, the partitions' NETWORK_EXCEPTION (Kafka logs "Partition end offset fetch failed" and
// answers the error for that partition).
import { apiByKey } from '../../client/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { BrokerServices } from '../services.js';
import { metadataSourceOf } from '../services.js';
import { brokerChannel, isNetworkFailure } from '../txn/inter-broker-channel.js';
import { endOffsetKey, type EndOffset, type LatestOffsets, type TopicPartitionRef } from './types.js';

interface ListOffsetsAnswer {
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number; offset: bigint }[] }[];
}

/** The broker's client: its image for the leaders, its inter-broker listener for the requests. */
export function brokerLatestOffsets(services: BrokerServices): { latestOffsets: LatestOffsets; close(): void } {
  const controller = metadataSourceOf(services);
  const channel = brokerChannel(services, 'partition-metadata-client');
  const listOffsets = apiByKey(ApiKey.ListOffsets)!;
  const latestOffsets: LatestOffsets = async (partitions) => {
    const out = new Map<string, EndOffset>();
    const byLeader = new Map<number, TopicPartitionRef[]>();
    for (const tp of partitions) {
      const p = controller.image.partition(tp.topic, tp.partition);
      if (!p)
        out.set(endOffsetKey(tp.topic, tp.partition), { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1n });
      else if (p.leader < 0)
        out.set(endOffsetKey(tp.topic, tp.partition), { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, offset: -1n });
      else byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), tp]);
    }
    await Promise.all(
      [...byLeader].map(async ([leader, tps]) => {
        const topics = new Map<string, number[]>();
        for (const tp of tps) topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), tp.partition]);
        try {
          const r = await channel.send<ListOffsetsAnswer>(leader, listOffsets, {
            replicaId: -1,
            isolationLevel: 0,
            topics: [...topics].map(([name, ps]) => ({
              name,
              partitions: ps.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })),
            })),
            timeoutMs: services.config.getInt('request.timeout.ms'),
          });
          for (const t of r.body.topics)
            for (const p of t.partitions)
              out.set(endOffsetKey(t.name, p.partitionIndex), { errorCode: p.errorCode, offset: p.offset });
        } catch (e) {
          if (!isNetworkFailure(e)) throw e;
          for (const tp of tps)
            out.set(endOffsetKey(tp.topic, tp.partition), { errorCode: ErrorCode.NETWORK_EXCEPTION, offset: -1n });
        }
      }),
    );
    return out;
  };
  return { latestOffsets, close: () => channel.close() };
}
