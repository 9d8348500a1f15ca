// Kafka's StripedReplicaPlacer (org.apache.kafka.metadata.placement): rack-aware round-robin
// "striping" of replicas over the usable brokers (registered and not shutting down), unfenced brokers
// preferred; the first replica (the preferred leader) is always unfenced. One copy for the two users
// Kafka has: the controller placing new partitions (src/broker/controller/topics.ts) and
// reassign-partitions --generate (src/tools/reassign-partitions/command.ts), which Kafka 4.4 also
// runs through this class.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';

export interface UsableBroker {
  readonly id: number;
  readonly rack: string | null;
  readonly fenced: boolean;
}

export type Random = (n: number) => number; // uniform integer in [0, n)

export const defaultRandom: Random = (n) => Math.floor(Math.random() * n);

class BrokerList {
  readonly brokers: number[] = [];
  private epoch = 0;
  private index = 0;
  private offset = 0;

  initialize(random: Random): void {
    if (this.brokers.length > 0) {
      this.brokers.sort((a, b) => a - b);
      this.offset = random(this.brokers.length);
    }
  }

  shuffle(random: Random): void {
    shuffle(this.brokers, random);
  }

  next(epoch: number): number {
    if (this.brokers.length === 0) return -1;
    if (this.epoch !== epoch) {
      this.epoch = epoch;
      this.index = 0;
      this.offset = (this.offset + 1) % this.brokers.length;
    }
    if (this.index >= this.brokers.length) return -1;
    const broker = this.brokers[(this.index + this.offset) % this.brokers.length]!;
    this.index++;
    return broker;
  }
}

function shuffle<T>(a: T[], random: Random): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
}

class Rack {
  readonly fenced = new BrokerList();
  readonly unfenced = new BrokerList();
  initialize(random: Random): void {
    this.fenced.initialize(random);
    this.unfenced.initialize(random);
  }
  shuffle(random: Random): void {
    this.fenced.shuffle(random);
    this.unfenced.shuffle(random);
  }
  nextUnfenced(epoch: number): number {
    return this.unfenced.next(epoch);
  }
  next(epoch: number): number {
    const r = this.unfenced.next(epoch);
    return r >= 0 ? r : this.fenced.next(epoch);
  }
}

function invalidRf(message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, message);
}

class RackList {
  private readonly racks = new Map<string | null, Rack>();
  private readonly rackNames: (string | null)[] = [];
  readonly numTotalBrokers: number;
  readonly numUnfencedBrokers: number;
  private epoch = 0;
  private offset: number;

  constructor(
    private readonly random: Random,
    brokers: Iterable<UsableBroker>,
  ) {
    let total = 0;
    let unfenced = 0;
    for (const b of brokers) {
      let rack = this.racks.get(b.rack);
      if (!rack) {
        this.rackNames.push(b.rack);
        rack = new Rack();
        this.racks.set(b.rack, rack);
      }
      if (b.fenced) rack.fenced.brokers.push(b.id);
      else {
        rack.unfenced.brokers.push(b.id);
        unfenced++;
      }
      total++;
    }
    for (const r of this.racks.values()) r.initialize(random);
    // Optional.empty() sorts first, then names in order.
    this.rackNames.sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
    this.numTotalBrokers = total;
    this.numUnfencedBrokers = unfenced;
    this.offset = this.rackNames.length === 0 ? 0 : random(this.rackNames.length);
  }

  place(replicationFactor: number): number[] {
    checkPositive(replicationFactor);
    checkEnoughBrokers(replicationFactor, this.numTotalBrokers);
    checkSomeUnfenced(this.numUnfencedBrokers);
    if (this.epoch === this.numUnfencedBrokers && this.numUnfencedBrokers > 1) {
      shuffle(this.rackNames, this.random);
      for (const r of this.racks.values()) r.shuffle(this.random);
      this.epoch = 0;
    }
    if (this.offset === this.rackNames.length) this.offset = 0;
    const brokers: number[] = [];
    let firstRackIndex = this.offset;
    for (;;) {
      const result = this.racks.get(this.rackNames[firstRackIndex]!)!.nextUnfenced(this.epoch);
      if (result >= 0) {
        brokers.push(result);
        break;
      }
      firstRackIndex++;
      if (firstRackIndex === this.rackNames.length) firstRackIndex = 0;
    }
    let rackIndex = this.offset;
    for (let replica = 1; replica < replicationFactor; replica++) {
      let result = -1;
      do {
        if (rackIndex === firstRackIndex) {
          firstRackIndex = -1;
        } else {
          result = this.racks.get(this.rackNames[rackIndex]!)!.next(this.epoch);
        }
        rackIndex++;
        if (rackIndex === this.rackNames.length) rackIndex = 0;
      } while (result < 0);
      brokers.push(result);
    }
    this.epoch++;
    this.offset++;
    return brokers;
  }
}

function checkPositive(rf: number): void {
  if (rf <= 0) throw invalidRf(`Invalid replication factor ${rf}: the replication factor must be positive.`);
}
function checkSomeUnfenced(n: number): void {
  if (n === 0) throw invalidRf('All brokers are currently fenced, or have all their log directories cordoned.');
}
function checkEnoughBrokers(rf: number, total: number): void {
  if (rf > total) {
    throw invalidRf(
      `The target replication factor of ${rf} cannot be reached because only ${total} broker(s) are registered` +
        ' or some brokers have all their log directories cordoned.',
    );
  }
}

/**
 * Places `numPartitions` partitions with `replicationFactor` replicas each. Throws KafkaError
 * INVALID_REPLICATION_FACTOR with Kafka's messages (the caller prefixes "Unable to replicate the
 * partition N time(s): ").
 */
export function placeReplicas(
  brokers: Iterable<UsableBroker>,
  numPartitions: number,
  replicationFactor: number,
  random: Random = defaultRandom,
): number[][] {
  const list = new RackList(random, brokers);
  checkPositive(replicationFactor);
  checkSomeUnfenced(list.numUnfencedBrokers);
  checkEnoughBrokers(replicationFactor, list.numTotalBrokers);
  const out: number[][] = [];
  for (let p = 0; p < numPartitions; p++) out.push(list.place(replicationFactor));
  return out;
}
