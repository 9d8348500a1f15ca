"""Transactions across brokers with confluent-kafka (librdkafka), for test/txn-cluster.test.ts.

    python txn_across_brokers.py '<json spec>'

The spec: bootstrap, topic (its partitions led by different brokers), partitions, txn_ids
(transactional ids whose coordinators are on different brokers), txns (transactions per id),
group and ctp_txn_id (a group and a transactional id whose coordinators are on different brokers).

1. Each transactional id runs `txns` transactions of one record to every partition; every third is
   aborted after a flush (its records are in the logs), the others committed.
2. A read_committed consumer reads every partition from the beginning up to its end: it sees exactly
   the committed records, once each.
3. send_offsets_to_transaction: the group's offsets sent in an aborted transaction are not visible
   (OffsetFetch), those of a committed one are.

Prints `report: ...` lines; exits 1 with a message on stderr when a check fails.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

T = 30


class Fail(Exception):
    pass


def check(ok, msg):
    if not ok:
        raise Fail(msg)


def producer(bootstrap, txn_id):
    return Producer({
        'bootstrap.servers': bootstrap,
        'transactional.id': txn_id,
        'transaction.timeout.ms': 60000,
        'linger.ms': 0,
        'broker.address.family': 'v4',
    })


def consumer(bootstrap, extra):
    conf = {
        'bootstrap.servers': bootstrap,
        'enable.auto.commit': False,
        'auto.offset.reset': 'earliest',
        'broker.address.family': 'v4',
    }
    conf.update(extra)
    return Consumer(conf)


def produce_transactions(spec):
    topic, parts, txns = spec['topic'], spec['partitions'], spec['txns']
    committed = []
    aborted = 0
    for txn_id in spec['txn_ids']:
        p = producer(spec['bootstrap'], txn_id)
        p.init_transactions(T)
        for i in range(txns):
            p.begin_transaction()
            values = [f'{txn_id}-{i}-{part}' for part in range(parts)]
            for part, v in enumerate(values):
                p.produce(topic, value=v.encode(), key=v.encode(), partition=part)
            if i % 3 == 2:
                p.flush(T)
                p.abort_transaction(T)
                aborted += 1
            else:
                p.commit_transaction(T)
                committed.extend(values)
    return committed, aborted


def read_committed(spec):
    topic, parts = spec['topic'], spec['partitions']
    c = consumer(spec['bootstrap'], {'group.id': spec['group'] + '-reader', 'isolation.level': 'read_committed'})
    tps = [TopicPartition(topic, p, 0) for p in range(parts)]
    try:
        c.assign(tps)
        ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), T)[1] for p in range(parts)}
        seen = []
        per_partition = {p: 0 for p in range(parts)}
        deadline = time.time() + 60
        while time.time() < deadline:
            positions = {tp.partition: tp.offset for tp in c.position(tps)}
            if all(positions[p] >= ends[p] for p in range(parts)):
                break
            for m in c.consume(500, 0.2):
                if m.error():
                    raise KafkaException(m.error())
                seen.append(m.value().decode())
                per_partition[m.partition()] += 1
        positions = {tp.partition: tp.offset for tp in c.position(tps)}
        for p in range(parts):
            check(positions[p] >= ends[p], f'read_committed position of partition {p}: {positions[p]} < end {ends[p]}')
        return seen, per_partition, ends
    finally:
        c.close()


def offsets_in_transactions(spec):
    topic, parts = spec['topic'], spec['partitions']
    group = spec['group']
    c = consumer(spec['bootstrap'], {'group.id': group, 'isolation.level': 'read_committed'})
    tps = [TopicPartition(topic, p) for p in range(parts)]
    try:
        p = producer(spec['bootstrap'], spec['ctp_txn_id'])
        p.init_transactions(T)
        # aborted: the offsets must not become the group's
        p.begin_transaction()
        p.send_offsets_to_transaction([TopicPartition(topic, q, 1) for q in range(parts)],
                                      c.consumer_group_metadata(), T)
        p.abort_transaction(T)
        after_abort = {tp.partition: tp.offset for tp in c.committed(tps, T)}
        for q in range(parts):
            check(after_abort[q] < 0, f'offset of partition {q} after an aborted transaction: {after_abort[q]}')
        # committed: they must
        p.begin_transaction()
        p.send_offsets_to_transaction([TopicPartition(topic, q, 2) for q in range(parts)],
                                      c.consumer_group_metadata(), T)
        p.commit_transaction(T)
        after_commit = {tp.partition: tp.offset for tp in c.committed(tps, T)}
        for q in range(parts):
            check(after_commit[q] == 2, f'offset of partition {q} after a committed transaction: {after_commit[q]}')
    finally:
        c.close()


def main():
    spec = json.loads(sys.argv[1])
    start = time.time()
    committed, aborted = produce_transactions(spec)
    txn_ms = int((time.time() - start) * 1000)
    seen, per_partition, ends = read_committed(spec)
    check(len(seen) == len(set(seen)), f'duplicates among the {len(seen)} read_committed records')
    check(sorted(seen) == sorted(committed),
          f'read_committed saw {len(seen)} records, {len(committed)} committed; '
          f'missing {sorted(set(committed) - set(seen))[:5]}, unexpected {sorted(set(seen) - set(committed))[:5]}')
    for p, n in per_partition.items():
        check(n > 0, f'no committed record read from partition {p}')
    offsets_in_transactions(spec)
    n_txns = spec['txns'] * len(spec['txn_ids'])
    print(f'report: {n_txns} transactions ({aborted} aborted) over {spec["partitions"]} partitions in {txn_ms} ms; '
          f'read_committed saw {len(seen)} records (log ends {ends})')


if __name__ == '__main__':
    try:
        main()
    except (Fail, KafkaException) as e:
        print(f'FAIL: {e}', file=sys.stderr)
        sys.exit(1)
