// What changed between two metadata images, as events the broker reacts to (create partition
// logs, delete them, reload configs, ...). Computed per committed batch (or per snapshot load) by
// the ImageBuilder, delivered by the MetadataLoader after the new image is in place.

import type { BrokerRegistration, ControllerRegistration, MetadataImage, PartitionImage, TopicImage } from './image.js';

export interface TopicCreatedEvent {
  readonly type: 'topicCreated';
  /** The topic as of the new image (with all its partitions). */
  readonly topic: TopicImage;
}

export interface PartitionsCreatedEvent {
  readonly type: 'partitionsCreated';
  readonly topic: TopicImage;
  /** Partitions that did not exist before (also emitted for every partition of a new topic). */
  readonly partitions: readonly PartitionImage[];
}

export interface PartitionsChangedEvent {
  readonly type: 'partitionsChanged';
  readonly topic: TopicImage;
  /** Existing partitions whose registration changed (leader, ISR, replicas, epochs, ...). */
  readonly partitions: readonly { readonly previous: PartitionImage; readonly current: PartitionImage }[];
}

export interface TopicDeletedEvent {
  readonly type: 'topicDeleted';
  /** The topic as it was in the previous image. */
  readonly topic: TopicImage;
}

export interface ConfigChangedEvent {
  readonly type: 'configChanged';
  readonly resourceType: number;
  readonly resourceName: string;
  /** Keys set (new value) or deleted (null) in this update. */
  readonly changes: ReadonlyMap<string, string | null>;
}

export interface BrokerChangedEvent {
  readonly type: 'brokerChanged';
  readonly brokerId: number;
  readonly previous: BrokerRegistration | null;
  /** null = unregistered. */
  readonly current: BrokerRegistration | null;
}

export interface ControllerChangedEvent {
  readonly type: 'controllerRegistrationChanged';
  readonly controllerId: number;
  readonly current: ControllerRegistration | null;
}

export interface FeaturesChangedEvent {
  readonly type: 'featuresChanged';
  readonly features: ReadonlyMap<string, number>;
}

export interface ProducerIdsChangedEvent {
  readonly type: 'producerIdsChanged';
  readonly nextProducerId: bigint;
}

export type MetadataEvent =
  | TopicCreatedEvent
  | PartitionsCreatedEvent
  | PartitionsChangedEvent
  | TopicDeletedEvent
  | ConfigChangedEvent
  | BrokerChangedEvent
  | ControllerChangedEvent
  | FeaturesChangedEvent
  | ProducerIdsChangedEvent;

export type MetadataEventType = MetadataEvent['type'];
export type MetadataEventOf<T extends MetadataEventType> = Extract<MetadataEvent, { type: T }>;

/**
 * One published update. `kind`:
 *  - 'initial': delivered once to a publisher when it is added: the difference between the empty
 *    image and the current image (every topic appears as created);
 *  - 'snapshot': a snapshot was loaded (difference between the previous image and the snapshot's);
 *  - 'commit': a committed batch of the log was applied.
 */
export interface MetadataUpdate {
  readonly kind: 'initial' | 'snapshot' | 'commit';
  readonly previous: MetadataImage;
  readonly image: MetadataImage;
  readonly events: readonly MetadataEvent[];
}

/** Receives every update in order. A returned promise is awaited before the next update. */
export interface MetadataPublisher {
  readonly name: string;
  onMetadataUpdate(update: MetadataUpdate): void | Promise<void>;
  /** Called when the publisher is removed or the loader closes. */
  close?(): void | Promise<void>;
}
