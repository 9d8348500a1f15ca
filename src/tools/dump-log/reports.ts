// What DumpLogSegments collects while dumping and prints on stderr after the last file: offset
// index mismatches, time index problems, non-consecutive record offsets; in the order Kafka's
// Scala mutable.HashMaps iterate them. Plus tkafka's problem lines for what Kafka would have
// thrown (a stack trace there; a clean report and exit status 1 here).
import { javaStringHash, scalaHashOrder } from './java.js';
import { jsonLine, js, type Output } from './output.js';

type Pairs = Map<string, [bigint, bigint][]>;

class ScalaMap {
  readonly entries: Pairs = new Map();
  private readonly puts: string[] = [];
  /** getOrElse + put (prepend, as `::=`) or append. */
  add(key: string, pair: [bigint, bigint], prepend: boolean, putEveryTime: boolean): void {
    let list = this.entries.get(key);
    const first = !list;
    if (!list) this.entries.set(key, (list = []));
    if (prepend) list.unshift(pair);
    else list.push(pair);
    if (putEveryTime || first) this.puts.push(key);
  }
  ordered(): [string, [bigint, bigint][]][] {
    return scalaHashOrder(this.puts, javaStringHash).map((k) => [k, this.entries.get(k)!]);
  }
}

export class Reports {
  private readonly indexMismatches = new ScalaMap();
  private readonly timeMismatches = new ScalaMap();
  private readonly outOfOrder = new ScalaMap();
  private readonly notFound = new ScalaMap();
  private readonly nonConsecutive = new ScalaMap();

  indexMismatch(absPath: string, indexOffset: bigint, logOffset: bigint): void {
    this.indexMismatches.add(absPath, [indexOffset, logOffset], true, true);
  }
  timestampMismatch(absPath: string, indexTimestamp: bigint, logTimestamp: bigint): void {
    this.timeMismatches.add(absPath, [indexTimestamp, logTimestamp], false, false);
  }
  outOfOrderTimestamp(absPath: string, indexTimestamp: bigint, previous: bigint): void {
    this.outOfOrder.add(absPath, [indexTimestamp, previous], false, false);
  }
  offsetNotFound(absPath: string, indexOffset: bigint, logOffset: bigint): void {
    this.notFound.add(absPath, [indexOffset, logOffset], false, false);
  }
  nonConsecutiveOffsets(absPath: string, first: bigint, second: bigint): void {
    this.nonConsecutive.add(absPath, [first, second], true, true);
  }

  /** Prints the reports as Kafka's main does after the loop (stderr), or as JSON events. */
  print(out: Output): void {
    const j = out.json;
    const ev = (type: string, file: string, a: string, x: bigint, b: string, y: bigint): void =>
      out.line(
        jsonLine([
          ['type', js(type)],
          ['file', js(file)],
          [a, String(x)],
          [b, String(y)],
        ]),
      );
    for (const [file, list] of this.indexMismatches.ordered()) {
      if (!j) out.errLine(`Mismatches in :${file}`);
      for (const [i, l] of list) {
        if (j) ev('index-mismatch', file, 'indexOffset', i, 'logOffset', l);
        else out.errLine(`  Index offset: ${i}, log offset: ${l}`);
      }
    }
    for (const [file, list] of this.timeMismatches.ordered()) {
      if (!j) out.errLine(`Found timestamp mismatch in :${file}`);
      for (const [i, l] of list) {
        if (j) ev('timestamp-mismatch', file, 'indexTimestamp', i, 'logTimestamp', l);
        else out.errLine(`  Index timestamp: ${i}, log timestamp: ${l}`);
      }
    }
    for (const [file, list] of this.outOfOrder.ordered()) {
      if (!j) out.errLine(`Found out of order timestamp in :${file}`);
      for (const [i, p] of list) {
        if (j) ev('timestamp-out-of-order', file, 'indexTimestamp', i, 'previousTimestamp', p);
        else out.errLine(`  Index timestamp: ${i}, Previously indexed timestamp: ${p}`);
      }
    }
    for (const [file, list] of this.notFound.ordered()) {
      if (!j) out.errLine(`The following indexed offsets are not found in :${file}`); // 4.0: "... not found in the log."
      for (const [i, l] of list) {
        if (j) ev('indexed-offset-not-found', file, 'indexOffset', i, 'logOffset', l);
        else out.errLine(`Indexed offset: ${i}, found log offset: ${l}`);
      }
    }
    for (const [file, list] of this.nonConsecutive.ordered()) {
      if (!j) out.errLine(`Non-consecutive offsets in ${file}`);
      for (const [a, b] of list) {
        if (j) ev('non-consecutive-offsets', file, 'offset', a, 'followedBy', b);
        else out.errLine(`  ${a} is followed by ${b}`);
      }
    }
  }
}

/**
 * A problem Kafka's tool would have died on (uncaught exception): reported on stderr (or as a JSON
 * `problem` event) with the file and byte position, and the run ends with exit status 1.
 */
export function problem(out: Output, file: string, position: number | null, reason: string): void {
  out.failed = true;
  if (out.json) {
    out.line(
      jsonLine([
        ['type', js('problem')],
        ['file', js(file)],
        ['position', position === null ? 'null' : String(position)],
        ['reason', js(reason)],
      ]),
    );
  } else {
    out.errLine(
      position === null ? `Error in ${file}: ${reason}` : `Error in ${file} at position ${position}: ${reason}`,
    );
  }
}
