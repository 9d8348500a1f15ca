// The chaos workload's history (test/chaos/java/ChaosWorkload.java writes it, one event a line):
// what the client was told (acknowledgements, failures, transaction outcomes) and what a
// read_committed consumer read at the end. Parsed here into the structures the checker judges.

export interface Ack {
  /** The producer instance ("i0g1" idempotent, "t0g2" transactional). */
  label: string;
  /** The value written (unique across the run). */
  value: string;
  partition: number;
  offset: bigint;
  /** Idempotent: the producer's sequence number; transactional: the record's index in its transaction. */
  seq: number;
  /** The transaction's key (`label/txn`) for transactional records. */
  txn?: string;
}

export type TxnOutcome = 'commit' | 'abort' | 'unknown';

export interface Txn {
  key: string;
  label: string;
  txn: number;
  count: number;
  /** No outcome line (the workload ended mid-transaction) is 'unknown'. */
  outcome: TxnOutcome;
  acks: Ack[];
}

export interface ReadRecord {
  partition: number;
  offset: bigint;
  value: string;
}

export interface History {
  /** Idempotent records acknowledged, in callback order. */
  acks: Ack[];
  /** Idempotent values whose send failed (they may or may not be in the log, at most once). */
  failed: Set<string>;
  txns: Map<string, Txn>;
  reads: ReadRecord[];
}

export function emptyHistory(): History {
  return { acks: [], failed: new Set(), txns: new Map(), reads: [] };
}

const txnKey = (label: string, txn: string | number): string => `${label}/${txn}`;

/** Parses history text (several files may be concatenated); throws on a malformed line. */
export function parseHistory(text: string, into: History = emptyHistory()): History {
  const h = into;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const f = line.split(' ');
    const bad = (): Error => new Error(`history line ${i + 1} is malformed: ${line}`);
    const txnOf = (label: string, txn: string): Txn => {
      const t = h.txns.get(txnKey(label, txn));
      if (!t) throw new Error(`history line ${i + 1}: transaction ${txnKey(label, txn)} was never begun`);
      return t;
    };
    switch (f[0]) {
      case 'A':
        if (f.length !== 5) throw bad();
        h.acks.push({
          label: f[1]!,
          seq: Number(f[2]),
          value: `${f[1]}-${f[2]}`,
          partition: Number(f[3]),
          offset: BigInt(f[4]!),
        });
        break;
      case 'F':
        if (f.length < 4) throw bad();
        h.failed.add(`${f[1]}-${f[2]}`);
        break;
      case 'T':
        if (f.length !== 4) throw bad();
        h.txns.set(txnKey(f[1]!, f[2]!), {
          key: txnKey(f[1]!, f[2]!),
          label: f[1]!,
          txn: Number(f[2]),
          count: Number(f[3]),
          outcome: 'unknown',
          acks: [],
        });
        break;
      case 'TA': {
        if (f.length !== 6) throw bad();
        const t = txnOf(f[1]!, f[2]!);
        t.acks.push({
          label: f[1]!,
          seq: Number(f[3]),
          value: `${f[1]}-${f[2]}-${f[3]}`,
          partition: Number(f[4]),
          offset: BigInt(f[5]!),
          txn: t.key,
        });
        break;
      }
      case 'C':
      case 'X':
      case 'U':
        if (f.length < 3) throw bad();
        txnOf(f[1]!, f[2]!).outcome = f[0] === 'C' ? 'commit' : f[0] === 'X' ? 'abort' : 'unknown';
        break;
      case 'R':
        if (f.length !== 4) throw bad();
        h.reads.push({ partition: Number(f[1]), offset: BigInt(f[2]!), value: f[3]! });
        break;
      default:
        throw bad();
    }
  }
  return h;
}
