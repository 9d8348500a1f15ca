"""Client matrix program for confluent-kafka (librdkafka): `confluent_client.py <scenario> <bootstrap>`.

See test/clients/README.md for the scenarios and the exit codes.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import confluent_kafka  # noqa: E402
from confluent_kafka import (  # noqa: E402
    OFFSET_BEGINNING,
    Consumer,
    KafkaError,
    Producer,
    TopicCollection,
    TopicPartition,
)
from confluent_kafka.admin import (  # noqa: E402
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewTopic,
    OffsetSpec,
    ResourceType,
)

from matrix_common import (  # noqa: E402
    CODECS, Deadline, Fail, check, expect_eq, expired_jws, keyed_records, main, security)

FAMILY = 'confluent-kafka'
T = 30  # seconds for one admin future / flush


def base(bootstrap):
    return {'bootstrap.servers': bootstrap, 'broker.address.family': 'v4'}


def admin(bootstrap):
    return AdminClient(base(bootstrap))


def create_topic(a, topic, partitions, config=None, dl=None):
    fs = a.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1, config=config or {})])
    fs[topic].result(T)
    # wait until the metadata has every partition with a leader
    (dl or Deadline()).wait_for(f'{topic} with {partitions} led partitions', lambda: led(a, topic, partitions))


def led(a, topic, partitions):
    md = a.list_topics(topic=topic, timeout=5)
    t = md.topics.get(topic)
    if t is None or t.error is not None or len(t.partitions) != partitions:
        return False
    return all(p.leader >= 0 for p in t.partitions.values())


def produce_all(p, dl):
    """flush() until nothing is queued; raises Fail when time runs out."""
    while len(p) > 0:
        if dl.expired():
            raise Fail(f'{len(p)} records still undelivered')
        p.flush(min(1.0, max(dl.left(), 0.1)))


def delivery_collector():
    errors = []
    offsets = []

    def cb(err, msg):
        if err is not None:
            errors.append(err)
        else:
            offsets.append((msg.partition(), msg.offset()))

    return cb, errors, offsets


def consume_n(c, n, dl, what):
    out = []
    while len(out) < n:
        if dl.expired():
            raise Fail(f'{what}: got {len(out)} of {n} records')
        m = c.poll(min(1.0, max(dl.left(), 0.1)))
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                continue
            raise Fail(f'{what}: consume error {m.error()}')
        out.append(m)
    return out


def consume_to_eof(c, partitions, dl, what):
    """Reads assigned partitions (enable.partition.eof=true) until each reports EOF; returns the records."""
    out = []
    eof = set()
    while len(eof) < partitions:
        if dl.expired():
            raise Fail(f'{what}: {len(eof)} of {partitions} partitions reached the end; {len(out)} records')
        m = c.poll(min(1.0, max(dl.left(), 0.1)))
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                eof.add(m.partition())
                continue
            raise Fail(f'{what}: consume error {m.error()}')
        eof.discard(m.partition())
        out.append(m)
    return out


# --- scenarios -------------------------------------------------------------------------------


def version(_bootstrap, _ids):
    print(f'librdkafka {confluent_kafka.libversion()[0]} (confluent-kafka {confluent_kafka.__version__})')


def metadata_named(bootstrap, ids):
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 3)
    md = a.list_topics(topic=topic, timeout=10)
    t = md.topics[topic]
    check(t.error is None, f'topic error {t.error}')
    expect_eq(sorted(t.partitions), [0, 1, 2], 'partition ids')
    brokers = set(md.brokers)
    for p in t.partitions.values():
        check(p.leader in brokers, f'partition {p.id} leader {p.leader} not among brokers {sorted(brokers)}')
        check(p.leader in p.replicas and p.leader in p.isrs, f'partition {p.id} leader not in replicas/isr')


def metadata_all(bootstrap, ids):
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1)
    md = a.list_topics(timeout=10)  # Metadata for all topics
    check(topic in md.topics, f'{topic} not listed among {len(md.topics)} topics')
    check(md.topics[topic].error is None, f'topic error {md.topics[topic].error}')
    expect_eq(len(md.topics[topic].partitions), 1, 'partitions')
    check(len(md.brokers) >= 1, 'no brokers listed')


def admin_topics(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 2, {'retention.ms': '3600000', 'cleanup.policy': 'compact'}, dl)
    desc = a.describe_topics(TopicCollection([topic]))[topic].result(T)
    expect_eq(desc.name, topic, 'described name')
    expect_eq(len(desc.partitions), 2, 'described partition count')
    check(desc.topic_id is not None, 'no topic id')
    res = ConfigResource(ResourceType.TOPIC, topic)
    cfg = a.describe_configs([res])[res].result(T)
    expect_eq(cfg['retention.ms'].value, '3600000', 'retention.ms')
    expect_eq(cfg['cleanup.policy'].value, 'compact', 'cleanup.policy')
    expect_eq(cfg['retention.ms'].source, ConfigSource.DYNAMIC_TOPIC_CONFIG.value, 'retention.ms source')
    a.delete_topics([topic])[topic].result(T)

    def gone():
        md = a.list_topics(timeout=5)
        return topic not in md.topics

    dl.wait_for(f'{topic} to disappear from metadata', gone)
    try:
        a.describe_topics(TopicCollection([topic]))[topic].result(T)
        raise Fail('describe_topics of a deleted topic succeeded')
    except confluent_kafka.KafkaException as e:
        expect_eq(e.args[0].code(), KafkaError.UNKNOWN_TOPIC_OR_PART, 'describe deleted topic error')


def await_config(a, res, key, value, dl):
    """describe_configs until `key` reads `value` (a broker applies an alteration from the metadata
    log, so right after the response it may still describe the old value); returns the configs."""
    seen = []

    def probe():
        cfg = a.describe_configs([res])[res].result(T)
        seen.append(cfg[key].value)
        return cfg if cfg[key].value == value else None

    try:
        return dl.wait_for(f'{key}={value}', probe, max_seconds=15)
    except Fail:
        raise Fail(f'{key}: expected {value!r}, describe_configs kept giving {seen[-1:]!r}') from None


def admin_configs(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1, dl=dl)
    res = ConfigResource(ResourceType.TOPIC, topic)
    cfg = a.describe_configs([res])[res].result(T)
    check('retention.ms' in cfg and 'segment.bytes' in cfg, f'configs incomplete: {sorted(cfg)[:10]}')
    expect_eq(cfg['retention.ms'].value, '604800000', 'default retention.ms')
    expect_eq(cfg['retention.ms'].is_default, True, 'retention.ms is_default')
    entry = ConfigEntry('retention.ms', '86400000', incremental_operation=AlterConfigOpType.SET)
    alter = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[entry])
    a.incremental_alter_configs([alter])[alter].result(T)
    cfg = await_config(a, res, 'retention.ms', '86400000', dl)
    expect_eq(cfg['retention.ms'].source, ConfigSource.DYNAMIC_TOPIC_CONFIG.value, 'retention.ms source after alter')
    expect_eq(cfg['segment.bytes'].value, '1073741824', 'segment.bytes untouched')
    # DELETE restores the default
    entry = ConfigEntry('retention.ms', None, incremental_operation=AlterConfigOpType.DELETE)
    alter = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[entry])
    a.incremental_alter_configs([alter])[alter].result(T)
    cfg = await_config(a, res, 'retention.ms', '604800000', dl)
    expect_eq(cfg['retention.ms'].is_default, True, 'retention.ms is_default after delete')


def produce_consume(bootstrap, ids):
    dl = Deadline(55)
    a = admin(bootstrap)
    base_ts = int(time.time() * 1000) - 3_600_000
    for codec in CODECS:
        topic = ids(codec)
        create_topic(a, topic, 1, dl=dl)
        cb, errors, _ = delivery_collector()
        p = Producer({**base(bootstrap), 'compression.type': codec, 'linger.ms': 20, 'acks': 'all'})
        for i in range(100):
            # values compress well, so the codec is really applied to the batches
            value = (f'{codec}-value-{i:03d}-' + 'abcdefgh' * 8).encode()
            headers = [('h1', f'one-{i}'.encode()), ('h2', f'two-{codec}'.encode())]
            p.produce(topic, value=value, key=f'key-{i}'.encode(), headers=headers,
                      timestamp=base_ts + i * 10, partition=0, on_delivery=cb)
        produce_all(p, dl)
        check(not errors, f'{codec}: delivery errors {errors[:3]}')
        c = Consumer({**base(bootstrap), 'group.id': ids(codec + '-g'), 'enable.auto.commit': False,
                      'enable.partition.eof': True})
        c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        got = consume_to_eof(c, 1, dl, codec)
        c.close()
        expect_eq(len(got), 100, f'{codec}: records read back')
        for i, m in enumerate(got):
            value = (f'{codec}-value-{i:03d}-' + 'abcdefgh' * 8).encode()
            expect_eq(m.offset(), i, f'{codec}: offset')
            expect_eq(m.key(), f'key-{i}'.encode(), f'{codec}: key {i}')
            expect_eq(m.value(), value, f'{codec}: value {i}')
            expect_eq(m.headers(), [('h1', f'one-{i}'.encode()), ('h2', f'two-{codec}'.encode())],
                      f'{codec}: headers {i}')
            expect_eq(m.timestamp(), (confluent_kafka.TIMESTAMP_CREATE_TIME, base_ts + i * 10), f'{codec}: ts {i}')


def idempotent(bootstrap, ids):
    dl = Deadline(55)
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1, dl=dl)
    cb, errors, offsets = delivery_collector()
    p = Producer({**base(bootstrap), 'enable.idempotence': True, 'acks': 'all', 'linger.ms': 5,
                  'max.in.flight.requests.per.connection': 5, 'batch.num.messages': 50})
    for i in range(1000):
        p.produce(topic, value=f'{i}'.encode(), key=f'k{i % 7}'.encode(), partition=0, on_delivery=cb)
        p.poll(0)
    produce_all(p, dl)
    check(not errors, f'delivery errors {errors[:3]}')
    expect_eq(sorted(o for _, o in offsets), list(range(1000)), 'delivered offsets')
    c = Consumer({**base(bootstrap), 'group.id': ids('g'), 'enable.auto.commit': False, 'enable.partition.eof': True})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = consume_to_eof(c, 1, dl, 'read back')
    c.close()
    expect_eq([m.value().decode() for m in got], [str(i) for i in range(1000)], 'values in order')
    expect_eq([m.offset() for m in got], list(range(1000)), 'offsets')


def group_scenario(bootstrap, ids, protocol):
    dl = Deadline(55)
    a = admin(bootstrap)
    topic = ids()
    group = ids('g')
    create_topic(a, topic, 4, dl=dl)
    conf = {**base(bootstrap), 'group.id': group, 'enable.auto.commit': False, 'auto.offset.reset': 'earliest',
            'group.protocol': protocol}
    if protocol == 'classic':
        conf.update({'session.timeout.ms': 10000, 'heartbeat.interval.ms': 500,
                     'partition.assignment.strategy': 'range'})
    members = [Consumer(conf), Consumer(conf)]
    for c in members:
        c.subscribe([topic])
    got = [[], []]

    def poll_all(timeout):
        for i, c in enumerate(members):
            m = c.poll(timeout)
            if m is None:
                continue
            if m.error():
                raise Fail(f'member {i}: consume error {m.error()}')
            got[i].append(m)

    def assigned():
        poll_all(0.2)
        parts = [sorted(tp.partition for tp in c.assignment()) for c in members]
        if not parts[0] or not parts[1]:
            return None
        if sorted(parts[0] + parts[1]) != [0, 1, 2, 3]:
            return None
        return parts

    parts = dl.wait_for('both members to share the 4 partitions', assigned, interval=0)
    check(not got[0] and not got[1], 'records before any were produced')
    # 10 records per partition
    p = Producer({**base(bootstrap), 'linger.ms': 5})
    for part in range(4):
        for i in range(10):
            p.produce(topic, value=f'p{part}-{i}'.encode(), partition=part)
    produce_all(p, dl)
    while len(got[0]) + len(got[1]) < 40:
        if dl.expired():
            raise Fail(f'members consumed {len(got[0])} + {len(got[1])} of 40 records')
        poll_all(0.2)
    for i in range(2):
        for m in got[i]:
            check(m.partition() in parts[i], f'member {i} got a record of partition {m.partition()} not assigned')
    seen = sorted((m.partition(), m.offset()) for m in got[0] + got[1])
    expect_eq(seen, [(pt, o) for pt in range(4) for o in range(10)], 'consumed (partition, offset)s')
    for c in members:
        c.commit(asynchronous=False)
    committed = members[0].committed([TopicPartition(topic, pt) for pt in range(4)], timeout=10)
    expect_eq(sorted((tp.partition, tp.offset) for tp in committed), [(pt, 10) for pt in range(4)],
              'committed offsets')
    for c in members:
        c.close()
    for part in range(4):
        for i in range(10, 12):
            p.produce(topic, value=f'p{part}-{i}'.encode(), partition=part)
    produce_all(p, dl)
    late = Consumer(conf)
    late.subscribe([topic])
    more = consume_n(late, 8, dl, 'new member')
    late.close()
    expect_eq(sorted((m.partition(), m.offset()) for m in more), [(pt, o) for pt in range(4) for o in (10, 11)],
              'records the new member got (no re-delivery)')


def group_classic(bootstrap, ids):
    group_scenario(bootstrap, ids, 'classic')


def group_consumer(bootstrap, ids):
    group_scenario(bootstrap, ids, 'consumer')


def transactions(bootstrap, ids):
    dl = Deadline(55)
    a = admin(bootstrap)
    src = ids('in')
    dst = ids('out')
    group = ids('g')
    create_topic(a, src, 1, dl=dl)
    create_topic(a, dst, 1, dl=dl)
    p = Producer({**base(bootstrap), 'linger.ms': 5})
    for i in range(30):
        p.produce(src, value=f'in-{i}'.encode(), key=f'k{i}'.encode(), partition=0)
    produce_all(p, dl)

    c = Consumer({**base(bootstrap), 'group.id': group, 'enable.auto.commit': False,
                  'auto.offset.reset': 'earliest', 'isolation.level': 'read_committed', 'group.protocol': 'classic'})
    c.subscribe([src])
    tp = Producer({**base(bootstrap), 'transactional.id': ids('tx'), 'linger.ms': 5,
                   'transaction.timeout.ms': 30000})
    tp.init_transactions(T)
    inputs = consume_n(c, 30, dl, 'input')
    # batches of 10; the second is first processed in a transaction that is aborted, then again
    # in one that commits
    plan = [(0, 'commit'), (1, 'abort'), (1, 'commit'), (2, 'commit')]
    expected = []
    for txn, (batch, outcome) in enumerate(plan):
        tp.begin_transaction()
        records = inputs[batch * 10:(batch + 1) * 10]
        for m in records:
            out = f'{m.value().decode()}-t{txn}'
            tp.produce(dst, value=out.encode(), key=m.key(), partition=0)
            if outcome == 'commit':
                expected.append(out)
        offsets = [TopicPartition(src, 0, records[-1].offset() + 1)]
        tp.send_offsets_to_transaction(offsets, c.consumer_group_metadata(), T)
        if txn == 0:
            unstable_while_open(c, src)
        # abort_transaction() purges what is still queued: flush so the aborted records are written
        produce_all(tp, dl)
        if outcome == 'commit':
            tp.commit_transaction(T)
        else:
            tp.abort_transaction(T)
    committed = c.committed([TopicPartition(src, 0)], timeout=10)
    expect_eq(committed[0].offset, 30, "group's committed offset of the input")
    zombie = c.consumer_group_metadata()
    c.close()
    fenced_zombie(bootstrap, ids, group, src, zombie)

    def read(isolation):
        r = Consumer({**base(bootstrap), 'group.id': ids('r'), 'enable.auto.commit': False,
                      'isolation.level': isolation, 'enable.partition.eof': True})
        r.assign([TopicPartition(dst, 0, OFFSET_BEGINNING)])
        out = consume_to_eof(r, 1, dl, isolation)
        r.close()
        return [m.value().decode() for m in out]

    expect_eq(read('read_committed'), expected, 'read_committed output')
    uncommitted = read('read_uncommitted')
    expect_eq(len(uncommitted), 40, 'read_uncommitted output count (aborted records included)')
    check(any(v.endswith('-t1') for v in uncommitted), 'the aborted transaction wrote nothing')
    lo, hi = c_watermarks(bootstrap, dst, ids)
    expect_eq((lo, hi), (0, 44), 'output watermarks (40 records + 4 markers)')


def txn_v2(bootstrap, ids):
    """Transactions on a cluster with transaction.version=2 finalized: 1,000 transactions of one
    record to each of 2 partitions, every 7th aborted (after a flush, so the aborted records are in
    the log); a read_committed consumer sees exactly the committed records, once each. (Whether
    librdkafka speaks transactions V2 - EndTxn v5, Produce v12 - shows in the broker's request log.)"""
    dl = Deadline(230)
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 2, dl=dl)
    tp = Producer({**base(bootstrap), 'transactional.id': ids('tx'), 'linger.ms': 0,
                   'transaction.timeout.ms': 60000})
    tp.init_transactions(T)
    committed = set()
    aborted = 0
    start = time.monotonic()
    for i in range(1000):
        if dl.left() < 30:
            raise Fail(f'only {i} transactions before the deadline')
        tp.begin_transaction()
        keys = [f't{i}-p0', f't{i}-p1']
        for partition, k in enumerate(keys):
            tp.produce(topic, value=k.encode(), key=k.encode(), partition=partition)
        produce_all(tp, dl)
        if i % 7 == 6:
            tp.abort_transaction(T)
            aborted += 1
        else:
            tp.commit_transaction(T)
            committed.update(keys)
    txn_s = time.monotonic() - start
    expect_eq(aborted, 1000 // 7, 'aborted transactions')
    r = Consumer({**base(bootstrap), 'group.id': ids('r'), 'enable.auto.commit': False,
                  'isolation.level': 'read_committed', 'enable.partition.eof': True})
    r.assign([TopicPartition(topic, 0, OFFSET_BEGINNING), TopicPartition(topic, 1, OFFSET_BEGINNING)])
    got = [m.value().decode() for m in consume_to_eof(r, 2, dl, 'read_committed')]
    r.close()
    expect_eq(len(got), len(committed), 'read_committed record count (duplicates or aborted records?)')
    expect_eq(sorted(got), sorted(committed), 'read_committed records')
    print(f'1000 transactions ({aborted} aborted) in {txn_s * 1000:.0f} ms; read_committed saw {len(got)} records')


def unstable_while_open(c, topic):
    """KIP-447: while a transaction's offsets are pending, a read_committed consumer's committed()
    (OffsetFetch with require_stable) gets UNSTABLE_OFFSET_COMMIT, which librdkafka retries until
    its timeout, rather than the offset committed before."""
    try:
        r = c.committed([TopicPartition(topic, 0)], timeout=2)
    except confluent_kafka.KafkaException as e:
        code = e.args[0].code()
        check(code in (KafkaError._TIMED_OUT, KafkaError.UNSTABLE_OFFSET_COMMIT), f'committed() failed with {e}')
        return
    raise Fail(f'committed() with the transaction open answered offset {r[0].offset}, not UNSTABLE_OFFSET_COMMIT')


def fenced_zombie(bootstrap, ids, group, topic, zombie):
    """KIP-447: offsets sent with the group metadata of a member that has left the group are
    refused (TxnOffsetCommit UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION) and the group's offsets stay."""
    p = Producer({**base(bootstrap), 'transactional.id': ids('zombie'), 'transaction.timeout.ms': 30000})
    p.init_transactions(T)
    p.begin_transaction()
    try:
        p.send_offsets_to_transaction([TopicPartition(topic, 0, 5)], zombie, T)
        raise Fail("send_offsets_to_transaction with a departed member's group metadata was accepted")
    except confluent_kafka.KafkaException as e:
        code = e.args[0].code()
        check(code in (KafkaError.UNKNOWN_MEMBER_ID, KafkaError.ILLEGAL_GENERATION),
              f'zombie send_offsets_to_transaction failed with {e}, not UNKNOWN_MEMBER_ID/ILLEGAL_GENERATION')
    p.abort_transaction(T)
    c = Consumer({**base(bootstrap), 'group.id': group})
    committed = c.committed([TopicPartition(topic, 0)], timeout=10)
    c.close()
    expect_eq(committed[0].offset, 30, "group's committed offset after the zombie's attempt")


def c_watermarks(bootstrap, topic, ids):
    c = Consumer({**base(bootstrap), 'group.id': ids('w')})
    lo, hi = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.close()
    return lo, hi


def list_offsets_time(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1, dl=dl)
    t = int(time.time() * 1000) - 600_000
    p = Producer({**base(bootstrap), 'linger.ms': 0})
    for i in range(3):
        p.produce(topic, value=f'v{i}'.encode(), timestamp=t + i * 1000, partition=0)
        produce_all(p, dl)
    tp = TopicPartition(topic, 0)

    def lookup(spec):
        r = a.list_offsets({tp: spec})
        return r[tp].result(T)

    r = lookup(OffsetSpec.for_timestamp(t + 1000))
    expect_eq((r.offset, r.timestamp), (1, t + 1000), 'offset for t+1000')
    r = lookup(OffsetSpec.for_timestamp(t + 1))
    expect_eq(r.offset, 1, 'offset for t+1')
    r = lookup(OffsetSpec.for_timestamp(t + 5000))
    expect_eq(r.offset, -1, 'offset for a time after the last record')
    expect_eq(lookup(OffsetSpec.earliest()).offset, 0, 'earliest')
    expect_eq(lookup(OffsetSpec.latest()).offset, 3, 'latest')
    r = lookup(OffsetSpec.max_timestamp())
    expect_eq((r.offset, r.timestamp), (2, t + 2000), 'max timestamp')
    # the consumer's offsets_for_times as well
    c = Consumer({**base(bootstrap), 'group.id': ids('g')})
    r = c.offsets_for_times([TopicPartition(topic, 0, t + 1000)], timeout=10)
    c.close()
    expect_eq(r[0].offset, 1, 'consumer offsets_for_times(t+1000)')


def delete_records(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1, dl=dl)
    p = Producer({**base(bootstrap), 'linger.ms': 0})
    for i in range(10):
        p.produce(topic, value=f'v{i}'.encode(), partition=0)
    produce_all(p, dl)
    r = a.delete_records([TopicPartition(topic, 0, 5)])
    res = r[TopicPartition(topic, 0)].result(T)
    expect_eq(res.low_watermark, 5, 'low watermark returned by DeleteRecords')
    tp = TopicPartition(topic, 0)
    expect_eq(a.list_offsets({tp: OffsetSpec.earliest()})[tp].result(T).offset, 5, 'earliest after delete')
    expect_eq(a.list_offsets({tp: OffsetSpec.latest()})[tp].result(T).offset, 10, 'latest after delete')
    c = Consumer({**base(bootstrap), 'group.id': ids('g'), 'auto.offset.reset': 'earliest',
                  'enable.partition.eof': True, 'enable.auto.commit': False})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = consume_to_eof(c, 1, dl, 'from earliest')
    c.close()
    expect_eq([(m.offset(), m.value()) for m in got], [(i, f'v{i}'.encode()) for i in range(5, 10)],
              'records from earliest')


def secured(sec, password=None, client_cert=True):
    """librdkafka properties of the runner's settings; `password` replaces the right one, and
    client_cert=False leaves the client certificate out (the negative cases)."""
    c = {'security.protocol': sec['protocol']}
    if sec['mechanism'] == 'OAUTHBEARER':
        # librdkafka's own unsecured JWS (sub = the principal, exp in an hour)
        c.update({'sasl.mechanisms': 'OAUTHBEARER', 'enable.sasl.oauthbearer.unsecure.jwt': True,
                  'sasl.oauthbearer.config': f'principal={sec["username"]}'})
    elif sec['mechanism']:
        c.update({'sasl.mechanisms': sec['mechanism'], 'sasl.username': sec['username'],
                  'sasl.password': sec['password'] if password is None else password})
    if sec['ca']:
        c['ssl.ca.location'] = sec['ca']
    if sec['cert'] and client_cert:
        c.update({'ssl.certificate.location': sec['cert'], 'ssl.key.location': sec['key']})
    return c


def sasl_scenario(bootstrap, ids):
    """Through the secured listener: create a topic, 10 keyed records there and back; a wrong password fails."""
    sec = security()
    dl = Deadline()
    conf = {**base(bootstrap), **secured(sec)}
    a = AdminClient(conf)
    topic = ids()
    fs = a.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)])
    fs[topic].result(T)
    dl.wait_for(f'{topic} led', lambda: led(a, topic, 1))
    cb, errors, _offsets = delivery_collector()
    p = Producer({**conf, 'acks': 'all'})
    for k, v in keyed_records():
        p.produce(topic, key=k, value=v, on_delivery=cb)
    produce_all(p, dl)
    expect_eq(errors, [], 'delivery errors')
    c = Consumer({**conf, 'group.id': ids('g'), 'enable.partition.eof': True, 'enable.auto.commit': False})
    c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    got = consume_to_eof(c, 1, dl, 'read back')
    c.close()
    expect_eq([(m.key(), m.value()) for m in got], keyed_records(), 'records read back')

    # a wrong password (SASL), an expired token (OAUTHBEARER) or no client certificate (mTLS) must fail
    if sec['mechanism'] == 'OAUTHBEARER':
        # the token from oauth_cb: expired 10 minutes ago by its exp claim; the lifetime given to
        # librdkafka is an hour ahead, so that the client sends it and the broker judges it
        bad_conf = {'security.protocol': sec['protocol'], 'sasl.mechanisms': 'OAUTHBEARER',
                    'oauth_cb': lambda _config: (expired_jws(sec['username']), time.time() + 3600)}
        wanted = {KafkaError._AUTHENTICATION}
    elif sec['mechanism']:
        bad_conf = secured(sec, password=sec['password'] + '-wrong')
        wanted = {KafkaError._AUTHENTICATION}
    else:
        bad_conf = secured(sec, client_cert=False)
        wanted = {KafkaError._SSL, KafkaError._TRANSPORT, KafkaError._AUTHENTICATION}
    auth_errors = []
    delivered = []
    bad = Producer({**base(bootstrap), **bad_conf, 'error_cb': lambda e: auth_errors.append(e)})
    bad.produce(topic, key=b'x', value=b'y', on_delivery=lambda err, m: delivered.append(err))
    end = time.monotonic() + 20
    while time.monotonic() < end and not any(e.code() in wanted for e in auth_errors):
        bad.poll(0.2)
    check(not any(err is None for err in delivered), 'the refused client delivered a record')
    check(any(e.code() in wanted for e in auth_errors),
          f'the refused client did not fail to authenticate within 20 s (errors: {auth_errors})')
    print(f'report: refused: {[e for e in auth_errors if e.code() in wanted][0].str()[:200]}')

if __name__ == '__main__':
    main(FAMILY, {
        'version': version,
        'metadata-named': metadata_named,
        'metadata-all': metadata_all,
        'admin-topics': admin_topics,
        'admin-configs': admin_configs,
        'produce-consume': produce_consume,
        'idempotent': idempotent,
        'group-classic': group_classic,
        'group-consumer': group_consumer,
        'transactions': transactions,
        'txn-v2': txn_v2,
        'list-offsets-time': list_offsets_time,
        'delete-records': delete_records,
        'sasl-plain': sasl_scenario,
        'sasl-scram-256': sasl_scenario,
        'sasl-scram-512': sasl_scenario,
        'sasl-ssl-scram-512': sasl_scenario,
        'ssl-mtls': sasl_scenario,
        'sasl-oauthbearer': sasl_scenario,
    })
