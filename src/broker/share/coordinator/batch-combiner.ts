// Kafka's PersisterStateBatchCombiner (share coordinator): merges the state batches stored so far
// with the batches of a write into one sorted list of non-overlapping batches. Batches before the
// start offset are dropped (or cut at it); where batches overlap, the one with the higher delivery
// count, then the higher delivery state, wins; contiguous or overlapping batches of the same
// delivery count and state become one.
import type { PersisterStateBatch } from '../types.js';

type Batch = PersisterStateBatch;

const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** PersisterStateBatch.compareTo: first offset, last offset, delivery count, delivery state. */
export function compareBatches(a: Batch, b: Batch): number {
  return (
    cmpBig(a.firstOffset, b.firstOffset) ||
    cmpBig(a.lastOffset, b.lastOffset) ||
    a.deliveryCount - b.deliveryCount ||
    a.deliveryState - b.deliveryState
  );
}

/** compareBatchDeliveryInfo: delivery count, then delivery state (0: same). */
function deliveryInfo(a: Batch, b: Batch): number {
  return Math.sign(a.deliveryCount - b.deliveryCount) || Math.sign(a.deliveryState - b.deliveryState);
}

const copy = (b: Batch, firstOffset: bigint, lastOffset: bigint): Batch => ({
  firstOffset,
  lastOffset,
  deliveryState: b.deliveryState,
  deliveryCount: b.deliveryCount,
});

/** A sorted set of batches (TreeSet semantics: equal by compareBatches means the same element). */
class SortedBatches {
  items: Batch[] = [];

  add(b: Batch): void {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareBatches(this.items[mid]!, b) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.items.length && compareBatches(this.items[lo]!, b) === 0) return;
    this.items.splice(lo, 0, b);
  }
}

export function combineStateBatches(
  soFar: readonly Batch[],
  newBatches: readonly Batch[],
  startOffset: bigint,
): Batch[] {
  let combined: Batch[] = [...soFar, ...newBatches];
  // pruneBatches
  if (startOffset !== -1n) {
    const kept: Batch[] = [];
    for (const b of combined) {
      if (b.lastOffset < startOffset) continue;
      kept.push(b.firstOffset >= startOffset ? b : copy(b, startOffset, b.lastOffset));
    }
    combined = kept;
  }
  if (combined.length < 2) return combined;

  const sorted = new SortedBatches();
  for (const b of combined) sorted.add(b);
  const final: Batch[] = [];

  // getMergeCandidatePair: moves the non-mergeable prefix to `final`, returns the first mergeable pair
  const nextPair = (): [Batch, Batch] | null => {
    const items = sorted.items;
    if (items.length === 0) return null;
    let prevIdx = 0;
    for (let i = 1; i < items.length; i++) {
      const prev = items[prevIdx]!;
      const cand = items[i]!;
      if (
        cand.firstOffset <= prev.lastOffset ||
        (prev.lastOffset + 1n === cand.firstOffset && deliveryInfo(prev, cand) === 0)
      ) {
        final.push(...items.splice(0, prevIdx));
        return [prev, cand];
      }
      prevIdx = i;
    }
    final.push(...items.splice(0, prevIdx));
    return null;
  };

  const remove = (b: Batch): void => {
    const i = sorted.items.indexOf(b);
    if (i >= 0) sorted.items.splice(i, 1);
  };

  for (let pair = nextPair(); pair; pair = nextPair()) {
    const [prev, cand] = pair;
    remove(prev);
    remove(cand);
    if (deliveryInfo(cand, prev) === 0) {
      sorted.add({
        firstOffset: prev.firstOffset,
        lastOffset: cand.lastOffset > prev.lastOffset ? cand.lastOffset : prev.lastOffset,
        deliveryState: prev.deliveryState,
        deliveryCount: prev.deliveryCount,
      });
    } else if (cand.firstOffset === prev.firstOffset) {
      if (cand.lastOffset === prev.lastOffset) sorted.add(cand);
      else if (deliveryInfo(cand, prev) < 0) {
        sorted.add(prev);
        sorted.add(copy(cand, prev.lastOffset + 1n, cand.lastOffset));
      } else sorted.add(cand);
    } else if (cand.lastOffset < prev.lastOffset) {
      if (deliveryInfo(cand, prev) < 0) sorted.add(prev);
      else {
        sorted.add(copy(prev, prev.firstOffset, cand.firstOffset - 1n));
        sorted.add(cand);
        sorted.add(copy(prev, cand.lastOffset + 1n, prev.lastOffset));
      }
    } else if (cand.lastOffset === prev.lastOffset) {
      if (deliveryInfo(cand, prev) < 0) sorted.add(prev);
      else {
        sorted.add(copy(prev, prev.firstOffset, cand.firstOffset - 1n));
        sorted.add(cand);
      }
    } else if (deliveryInfo(cand, prev) < 0) {
      sorted.add(prev);
      sorted.add(copy(cand, prev.lastOffset + 1n, cand.lastOffset));
    } else {
      sorted.add(copy(prev, prev.firstOffset, cand.firstOffset - 1n));
      sorted.add(cand);
    }
  }
  final.push(...sorted.items);
  return final;
}
