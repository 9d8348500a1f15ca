// The chaos checker: judges a workload history (history.ts) after the faults, per partition.
//  - lost: an acknowledged record (idempotent, or of a committed transaction) is not at the
//    offset it was acknowledged at in what read_committed read;
//  - duplicated: a value read more than once (acknowledged or not);
//  - reordered: one producer's acknowledged records of a partition whose offsets do not grow with
//    the order it sent them in;
//  - phantom: a value read that no producer wrote;
//  - aborted_visible: a record of an aborted transaction read with read_committed;
//  - partial_txns: a committed transaction not entirely visible, or one of unknown outcome partly
//    visible (all or nothing).
// The summary line is what a run prints; `ok` is false when any count is not zero.
import type { Ack, History } from './history.js';

export interface FaultCounts {
  kill: number;
  pause: number;
  partition: number;
}

export interface CheckResult {
  ok: boolean;
  acked: number;
  lost: number;
  duplicated: number;
  reordered: number;
  phantom: number;
  abortedVisible: number;
  partialTxns: number;
  txns: { committed: number; aborted: number; unknown: number };
  read: number;
  /** The first problems in detail (at most 50), for the failure message. */
  problems: string[];
}

const MAX_PROBLEMS = 50;

export function check(h: History): CheckResult {
  const problems: string[] = [];
  const problem = (s: string): void => {
    if (problems.length < MAX_PROBLEMS) problems.push(s);
  };
  const at = new Map<string, string>(); // "p@offset" -> value
  const positions = new Map<string, string[]>(); // value -> ["p@offset", ...]
  for (const r of h.reads) {
    const pos = `${r.partition}@${r.offset}`;
    if (at.has(pos)) problem(`offset ${pos} read twice (${at.get(pos)}, ${r.value})`);
    at.set(pos, r.value);
    const list = positions.get(r.value);
    if (list) list.push(pos);
    else positions.set(r.value, [pos]);
  }

  // Acknowledged records: idempotent ones, and those of committed transactions.
  const acks: Ack[] = [...h.acks];
  for (const t of h.txns.values()) if (t.outcome === 'commit') acks.push(...t.acks);
  let lost = 0;
  for (const a of acks) {
    const pos = `${a.partition}@${a.offset}`;
    const found = at.get(pos);
    if (found !== a.value) {
      lost++;
      const elsewhere = positions.get(a.value);
      problem(
        `lost: ${a.value} acknowledged at partition ${a.partition} offset ${a.offset}, read there: ${found ?? 'nothing'}` +
          (elsewhere ? ` (read at ${elsewhere.join(', ')})` : ''),
      );
    }
  }

  let duplicated = 0;
  for (const [value, list] of positions)
    if (list.length > 1) {
      duplicated++;
      problem(`duplicated: ${value} read at ${list.join(', ')}`);
    }

  // Acknowledgement order: per producer instance and partition, offsets grow with the sequence.
  let reordered = 0;
  const byProducerPartition = new Map<string, Ack[]>();
  for (const a of h.acks) {
    const k = `${a.label}/${a.partition}`;
    const list = byProducerPartition.get(k);
    if (list) list.push(a);
    else byProducerPartition.set(k, [a]);
  }
  for (const [k, list] of byProducerPartition) {
    list.sort((x, y) => x.seq - y.seq);
    for (let i = 1; i < list.length; i++)
      if (list[i]!.offset <= list[i - 1]!.offset) {
        reordered++;
        problem(
          `reordered: ${k}: ${list[i]!.value} acknowledged at offset ${list[i]!.offset}, after ${list[i - 1]!.value} at ${list[i - 1]!.offset}`,
        );
      }
  }

  // Which values were written: idempotent (acknowledged or failed) and transactional (label-txn-k).
  const written = new Set<string>([...h.acks.map((a) => a.value), ...h.failed]);
  let abortedVisible = 0;
  let partialTxns = 0;
  const txns = { committed: 0, aborted: 0, unknown: 0 };
  for (const t of h.txns.values()) {
    let visible = 0;
    for (let k = 0; k < t.count; k++) {
      const v = `${t.label}-${t.txn}-${k}`;
      written.add(v);
      if (positions.has(v)) visible++;
    }
    if (t.outcome === 'commit') {
      txns.committed++;
      if (visible !== t.count) {
        partialTxns++;
        problem(`partial transaction: committed ${t.key} has ${visible} of ${t.count} records visible`);
      }
    } else if (t.outcome === 'abort') {
      txns.aborted++;
      if (visible > 0) {
        abortedVisible += visible;
        problem(`aborted visible: ${visible} of ${t.count} records of aborted ${t.key} read with read_committed`);
      }
    } else {
      txns.unknown++;
      if (visible !== 0 && visible !== t.count) {
        partialTxns++;
        problem(`partial transaction: ${t.key} (outcome unknown) has ${visible} of ${t.count} records visible`);
      }
    }
  }
  let phantom = 0;
  for (const value of positions.keys())
    if (!written.has(value)) {
      phantom++;
      problem(`phantom: ${value} read (at ${positions.get(value)!.join(', ')}) but never written`);
    }

  const ok =
    lost === 0 && duplicated === 0 && reordered === 0 && phantom === 0 && abortedVisible === 0 && partialTxns === 0;
  return {
    ok,
    acked: acks.length,
    lost,
    duplicated,
    reordered,
    phantom,
    abortedVisible,
    partialTxns,
    txns,
    read: h.reads.length,
    problems,
  };
}

/** `chaos: seed=… faults=… (kill=… pause=… partition=…) acked=… lost=0 duplicated=0 …` */
export function summaryLine(seed: number | string, faults: FaultCounts, r: CheckResult): string {
  const total = faults.kill + faults.pause + faults.partition;
  return (
    `chaos: seed=${seed} faults=${total} (kill=${faults.kill} pause=${faults.pause} partition=${faults.partition}) ` +
    `acked=${r.acked} lost=${r.lost} duplicated=${r.duplicated} reordered=${r.reordered} phantom=${r.phantom} ` +
    `txns=${r.txns.committed}c/${r.txns.aborted}a/${r.txns.unknown}u aborted_visible=${r.abortedVisible} ` +
    `partial_txns=${r.partialTxns} read=${r.read} ${r.ok ? 'OK' : 'FAILED'}`
  );
}
