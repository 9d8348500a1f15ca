// java.util.HashMap iteration order (Java 8-21), for output Kafka's tools print in HashMap order
// (e.g. kafka-topics --describe prints topics in the order of DescribeTopicsResult's HashMap, not
// sorted). Simulates the table: bins by `(h ^ h>>>16) & (cap-1)`, insertion order inside a bin,
// order-preserving splits on resize. Treeified bins (8+ colliding keys) are not modelled.

export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

const spread = (h: number): number => h ^ (h >>> 16);

function tableSizeFor(c: number): number {
  let n = 1;
  while (n < c) n *= 2;
  return n;
}

export class JavaHashMapOrder<K> {
  private table: K[][] | null = null;
  private threshold: number;
  private size = 0;

  /** `new HashMap<>(initialCapacity)`; omit for `new HashMap<>()` (16). */
  constructor(
    private readonly hash: (k: K) => number,
    initialCapacity?: number,
  ) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(Math.max(initialCapacity, 0));
  }

  /** `new HashMap<>(otherMap)`: sized for the source, then filled in its iteration order. */
  static copyOf<K>(hash: (k: K) => number, keys: readonly K[]): JavaHashMapOrder<K> {
    const m = new JavaHashMapOrder<K>(hash);
    if (keys.length > 0) m.threshold = tableSizeFor(Math.floor(keys.length / 0.75 + 1));
    for (const k of keys) m.put(k);
    return m;
  }

  private resize(): void {
    const oldCap = this.table?.length ?? 0;
    let newCap: number;
    if (oldCap > 0) newCap = oldCap * 2;
    else if (this.threshold > 0) newCap = this.threshold;
    else newCap = 16;
    this.threshold = Math.floor(newCap * 0.75);
    const next: K[][] = Array.from({ length: newCap }, () => []);
    for (const bin of this.table ?? []) for (const k of bin) next[spread(this.hash(k)) & (newCap - 1)]!.push(k);
    this.table = next;
  }

  put(k: K): void {
    if (this.table === null) this.resize();
    const bin = this.table![spread(this.hash(k)) & (this.table!.length - 1)]!;
    if (bin.includes(k)) return;
    bin.push(k);
    if (++this.size > this.threshold) this.resize();
  }

  keys(): K[] {
    return (this.table ?? []).flat();
  }
}

/** Iteration order of `new HashMap<>(keys.length)` filled with `keys` in order. */
export function hashMapOrder(keys: readonly string[], initialCapacity = keys.length): string[] {
  const m = new JavaHashMapOrder<string>(javaStringHash, initialCapacity);
  for (const k of keys) m.put(k);
  return m.keys();
}

/**
 * The order in which kafka-topics --describe prints topics: the topic list (sorted) goes through
 * Admin.describeTopics' HashMap(n), its copy, and DescribeTopicsResult.all's HashMap(n).
 */
export function describeTopicsOrder(sortedNames: readonly string[]): string[] {
  const futures = hashMapOrder(sortedNames);
  const copy = JavaHashMapOrder.copyOf(javaStringHash, futures).keys();
  return hashMapOrder(copy);
}
