"""Client matrix program for kafka-python: `kafka_python_client.py <scenario> <bootstrap>`.

See test/clients/README.md for the scenarios and the exit codes. snappy, lz4 and zstd need the
python-snappy, lz4 and zstandard packages (python/setup.sh installs them in the venv).
"""

import logging
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kafka  # noqa: E402
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition  # noqa: E402
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType, OffsetSpec  # noqa: E402
from kafka.codec import has_lz4, has_snappy, has_zstd  # noqa: E402
from kafka.errors import KafkaTimeoutError  # noqa: E402
from kafka.net.sasl.oauth import AbstractTokenProvider  # noqa: E402

from matrix_common import (  # noqa: E402
    CODECS, Deadline, Fail, NotApplicable, check, expect_eq, expired_jws, keyed_records, main, security,
    unsecured_jws,
)

FAMILY = 'kafka-python'
logging.basicConfig(level=os.environ.get('MATRIX_LOG_LEVEL', 'ERROR'), stream=sys.stderr)


def admin(bootstrap):
    return KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)


def create_topic(a, topic, partitions, configs=None):
    spec = {'num_partitions': partitions, 'replication_factor': 1}
    if configs:
        spec['configs'] = configs
    a.create_topics({topic: spec}, wait_for_metadata=True)


def producer(bootstrap, **kw):
    return KafkaProducer(bootstrap_servers=bootstrap, **kw)


def consumer(bootstrap, **kw):
    return KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **kw)


def subscribe(c, topic, dl):
    """subscribe() once the consumer's metadata has the topic.

    kafka-python 3.0.12 can hang otherwise (seen on Kafka 4.4.0 and tkafka alike): it joins before
    the topic's metadata arrives, assigns nothing, rejoins when the metadata comes, and then stays
    "<rebalancing>" after "performing partition assignments" for good.
    """
    dl.wait_for(f'{topic} in the consumer\'s metadata', lambda: c.partitions_for_topic(topic))
    c.subscribe([topic])


def send_all(p, sends, dl):
    """Waits for every future of `sends`; returns their RecordMetadata."""
    p.flush(timeout=max(dl.left(), 1))
    return [f.get(timeout=max(dl.left(), 1)) for f in sends]


def read_to(c, ends, dl, what):
    """Polls until the consumer's position reaches ends[tp] for every tp; returns the records in order."""
    out = []
    while True:
        if all(c.position(tp) >= end for tp, end in ends.items()):
            return out
        if dl.expired():
            pos = {tp.partition: c.position(tp) for tp in ends}
            raise Fail(f'{what}: positions {pos} short of {ends}; {len(out)} records')
        for recs in c.poll(timeout_ms=200).values():
            out.extend(recs)


# --- scenarios -------------------------------------------------------------------------------


def version(_bootstrap, _ids):
    print(f'kafka-python {kafka.__version__}')


def metadata_named(bootstrap, ids):
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 3)
    [t] = a.describe_topics([topic])  # Metadata for the named topic
    expect_eq(t['name'], topic, 'name')
    expect_eq(t['error_code'], 0, 'topic error')
    parts = sorted(t['partitions'], key=lambda p: p['partition_index'])
    expect_eq([p['partition_index'] for p in parts], [0, 1, 2], 'partition ids')
    brokers = {b['broker_id'] for b in a.describe_cluster()['brokers']}
    for p in parts:
        expect_eq(p['error_code'], 0, f'partition {p["partition_index"]} error')
        check(p['leader_id'] in brokers, f'partition {p["partition_index"]} leader {p["leader_id"]} not in {brokers}')
        check(p['leader_id'] in p['replica_nodes'], 'leader not among replicas')


def metadata_all(bootstrap, ids):
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1)
    topics = a.list_topics()  # Metadata for all topics
    check(topic in topics, f'{topic} not listed among {len(topics)} topics')
    all_md = {t['name']: t for t in a.describe_topics()}
    check(topic in all_md, f'{topic} not in describe_topics() of all topics')
    expect_eq(len(all_md[topic]['partitions']), 1, 'partitions')
    # the consumer's list of topics (also Metadata for all topics)
    c = consumer(bootstrap)
    check(topic in c.topics(), f'{topic} not in KafkaConsumer.topics()')
    c.close()


def describe_configs(a, topic):
    r = a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)], config_filter='all')
    return r['topic'][topic]


def admin_topics(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 2, {'retention.ms': '3600000', 'cleanup.policy': 'compact'})
    [t] = a.describe_topics([topic])
    expect_eq(len(t['partitions']), 2, 'described partition count')
    cfg = describe_configs(a, topic)
    expect_eq(cfg['retention.ms']['value'], '3600000', 'retention.ms')
    expect_eq(cfg['cleanup.policy']['value'], 'compact', 'cleanup.policy')
    expect_eq(cfg['retention.ms']['config_source'], 'DYNAMIC_TOPIC_CONFIG', 'retention.ms source')
    expect_eq(cfg['segment.bytes']['config_source'], 'DEFAULT_CONFIG', 'segment.bytes source')
    a.delete_topics([topic])
    dl.wait_for(f'{topic} to disappear from metadata', lambda: topic not in a.list_topics())


def await_config(a, topic, key, value, dl):
    """describe_configs until `key` reads `value` (a broker applies an alteration from the metadata
    log, so right after the response it may still describe the old value); returns the configs."""
    seen = []

    def probe():
        cfg = describe_configs(a, topic)
        seen.append(cfg[key]['value'])
        return cfg if cfg[key]['value'] == value else None

    try:
        return dl.wait_for(f'{key}={value}', probe, max_seconds=15)
    except Fail:
        raise Fail(f'{key}: expected {value!r}, describe_configs kept giving {seen[-1:]!r}') from None


def admin_configs(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1)
    cfg = describe_configs(a, topic)
    expect_eq(cfg['retention.ms']['value'], '604800000', 'default retention.ms')
    expect_eq(cfg['retention.ms']['config_source'], 'DEFAULT_CONFIG', 'retention.ms source')
    modified = a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])['topic'][topic]
    expect_eq(sorted(modified), [], 'modified configs of a new topic')
    change = {'retention.ms': (AlterConfigOp.SET, '86400000')}
    a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, change)], incremental=True)
    cfg = await_config(a, topic, 'retention.ms', '86400000', dl)
    expect_eq(cfg['retention.ms']['config_source'], 'DYNAMIC_TOPIC_CONFIG', 'retention.ms source after alter')
    # the legacy AlterConfigs (replaces the whole set)
    a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, {'retention.ms': '7200000'})], incremental=False)
    cfg = await_config(a, topic, 'retention.ms', '7200000', dl)
    change = {'retention.ms': (AlterConfigOp.DELETE, None)}
    a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, change)], incremental=True)
    cfg = await_config(a, topic, 'retention.ms', '604800000', dl)
    expect_eq(cfg['retention.ms']['config_source'], 'DEFAULT_CONFIG', 'retention.ms source after delete')


def produce_consume(bootstrap, ids):
    missing = [c for c, ok in (('snappy', has_snappy()), ('lz4', has_lz4()), ('zstd', has_zstd())) if not ok]
    if missing:
        raise Fail(f'codec libraries missing in the venv: {missing} (run test/clients/python/setup.sh)')
    dl = Deadline(55)
    a = admin(bootstrap)
    base_ts = int(time.time() * 1000) - 3_600_000
    for codec in CODECS:
        topic = ids(codec)
        create_topic(a, topic, 1)
        p = producer(bootstrap, compression_type=None if codec == 'none' else codec, linger_ms=20, acks='all')
        sends = []
        for i in range(100):
            value = (f'{codec}-value-{i:03d}-' + 'abcdefgh' * 8).encode()
            headers = [('h1', f'one-{i}'.encode()), ('h2', f'two-{codec}'.encode())]
            sends.append(p.send(topic, value=value, key=f'key-{i}'.encode(), headers=headers, partition=0,
                                timestamp_ms=base_ts + i * 10))
        md = send_all(p, sends, dl)
        p.close()
        expect_eq([m.offset for m in md], list(range(100)), f'{codec}: produced offsets')
        c = consumer(bootstrap)
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = read_to(c, {tp: 100}, dl, codec)
        c.close()
        expect_eq(len(got), 100, f'{codec}: records read back')
        for i, r in enumerate(got):
            value = (f'{codec}-value-{i:03d}-' + 'abcdefgh' * 8).encode()
            expect_eq(r.offset, i, f'{codec}: offset')
            expect_eq(r.key, f'key-{i}'.encode(), f'{codec}: key {i}')
            expect_eq(r.value, value, f'{codec}: value {i}')
            expect_eq(list(r.headers), [('h1', f'one-{i}'.encode()), ('h2', f'two-{codec}'.encode())],
                      f'{codec}: headers {i}')
            expect_eq((r.timestamp_type, r.timestamp), (0, base_ts + i * 10), f'{codec}: timestamp {i}')


def idempotent(bootstrap, ids):
    dl = Deadline(55)
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1)
    p = producer(bootstrap, enable_idempotence=True, acks='all', linger_ms=5, batch_size=2048,
                 max_in_flight_requests_per_connection=5)
    sends = [p.send(topic, value=f'{i}'.encode(), key=f'k{i % 7}'.encode(), partition=0) for i in range(1000)]
    md = send_all(p, sends, dl)
    p.close()
    expect_eq([m.offset for m in md], list(range(1000)), 'produced offsets')
    c = consumer(bootstrap)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = read_to(c, {tp: 1000}, dl, 'read back')
    c.close()
    expect_eq([r.value.decode() for r in got], [str(i) for i in range(1000)], 'values in order')
    expect_eq([r.offset for r in got], list(range(1000)), 'offsets')


def group_classic(bootstrap, ids):
    dl = Deadline(55)
    a = admin(bootstrap)
    topic = ids()
    group = ids('g')
    create_topic(a, topic, 4)
    conf = {'group_id': group, 'auto_offset_reset': 'earliest', 'session_timeout_ms': 10000,
            'heartbeat_interval_ms': 500}
    members = [consumer(bootstrap, **conf), consumer(bootstrap, **conf)]
    for c in members:
        subscribe(c, topic, dl)
    got = [[], []]

    def poll_all(timeout_ms):
        for i, c in enumerate(members):
            for recs in c.poll(timeout_ms=timeout_ms).values():
                got[i].extend(recs)

    def assigned():
        poll_all(100)
        parts = [sorted(tp.partition for tp in c.assignment()) for c in members]
        if not parts[0] or not parts[1] or sorted(parts[0] + parts[1]) != [0, 1, 2, 3]:
            return None
        return parts

    try:
        parts = dl.wait_for('both members to share the 4 partitions', assigned, interval=0)
    except Fail as e:
        states = [(sorted(tp.partition for tp in c.assignment()), c.group_metadata()) for c in members]
        raise Fail(f'{e}; members: {states}') from None
    check(not got[0] and not got[1], 'records before any were produced')
    p = producer(bootstrap, linger_ms=5)
    sends = [p.send(topic, value=f'p{pt}-{i}'.encode(), partition=pt) for pt in range(4) for i in range(10)]
    send_all(p, sends, dl)
    while len(got[0]) + len(got[1]) < 40:
        if dl.expired():
            raise Fail(f'members consumed {len(got[0])} + {len(got[1])} of 40 records')
        poll_all(100)
    for i in range(2):
        for r in got[i]:
            check(r.partition in parts[i], f'member {i} got a record of partition {r.partition} not assigned')
    seen = sorted((r.partition, r.offset) for r in got[0] + got[1])
    expect_eq(seen, [(pt, o) for pt in range(4) for o in range(10)], 'consumed (partition, offset)s')
    for c in members:
        c.commit()
    committed = {pt: members[0].committed(TopicPartition(topic, pt)) for pt in range(4)}
    expect_eq(committed, {pt: 10 for pt in range(4)}, 'committed offsets')
    for c in members:
        c.close(autocommit=False)
    sends = [p.send(topic, value=f'p{pt}-{i}'.encode(), partition=pt) for pt in range(4) for i in (10, 11)]
    send_all(p, sends, dl)
    p.close()
    late = consumer(bootstrap, **conf)
    subscribe(late, topic, dl)
    more = []
    while len(more) < 8:
        if dl.expired():
            raise Fail(f'new member got {len(more)} of 8 records')
        for recs in late.poll(timeout_ms=200).values():
            more.extend(recs)
    late.close(autocommit=False)
    expect_eq(sorted((r.partition, r.offset) for r in more), [(pt, o) for pt in range(4) for o in (10, 11)],
              'records the new member got (no re-delivery)')


def group_consumer(_bootstrap, _ids):
    raise NotApplicable(f'kafka-python {kafka.__version__} has no KIP-848 (group.protocol=consumer) consumer')


def transactions(bootstrap, ids):
    dl = Deadline(55)
    a = admin(bootstrap)
    src = ids('in')
    dst = ids('out')
    group = ids('g')
    create_topic(a, src, 1)
    create_topic(a, dst, 1)
    p = producer(bootstrap, linger_ms=5)
    send_all(p, [p.send(src, value=f'in-{i}'.encode(), key=f'k{i}'.encode(), partition=0) for i in range(30)], dl)
    p.close()

    c = consumer(bootstrap, group_id=group, auto_offset_reset='earliest', isolation_level='read_committed')
    subscribe(c, src, dl)
    tp_src = TopicPartition(src, 0)
    inputs = []
    while len(inputs) < 30:
        if dl.expired():
            raise Fail(f'input: got {len(inputs)} of 30 records; assignment {c.assignment()}, {c.group_metadata()}')
        for recs in c.poll(timeout_ms=200).values():
            inputs.extend(recs)
    tp = producer(bootstrap, transactional_id=ids('tx'), linger_ms=5, transaction_timeout_ms=30000)
    tp.init_transactions()
    # batches of 10; the second is first processed in a transaction that is aborted, then again
    # in one that commits
    plan = [(0, 'commit'), (1, 'abort'), (1, 'commit'), (2, 'commit')]
    expected = []
    for txn, (batch, outcome) in enumerate(plan):
        tp.begin_transaction()
        records = inputs[batch * 10:(batch + 1) * 10]
        sends = []
        for r in records:
            out = f'{r.value.decode()}-t{txn}'
            sends.append(tp.send(dst, value=out.encode(), key=r.key, partition=0))
            if outcome == 'commit':
                expected.append(out)
        tp.send_offsets_to_transaction({tp_src: OffsetAndMetadata(records[-1].offset + 1, '', -1)},
                                       c.group_metadata())
        if txn == 0:
            # KIP-447: with the offsets pending, a read_committed consumer's committed() (OffsetFetch
            # require_stable) gets UNSTABLE_OFFSET_COMMIT, retried until the time-out
            try:
                r = c.committed(tp_src, timeout_ms=2000)
                raise Fail(f'committed() with the transaction open answered {r}, not UNSTABLE_OFFSET_COMMIT')
            except KafkaTimeoutError:
                pass
        send_all(tp, sends, dl)
        if outcome == 'commit':
            tp.commit_transaction()
        else:
            tp.abort_transaction()
    tp.close()
    expect_eq(c.committed(tp_src), 30, "group's committed offset of the input")
    c.close(autocommit=False)

    tp_dst = TopicPartition(dst, 0)

    def read(isolation):
        r = consumer(bootstrap, isolation_level=isolation)
        r.assign([tp_dst])
        r.seek_to_beginning(tp_dst)
        end = r.end_offsets([tp_dst])[tp_dst]
        out = read_to(r, {tp_dst: end}, dl, isolation)
        r.close()
        return end, [x.value.decode() for x in out]

    end, committed = read('read_committed')
    expect_eq(committed, expected, 'read_committed output')
    expect_eq(end, 44, 'end offset of the output (40 records + 4 markers)')
    _, uncommitted = read('read_uncommitted')
    expect_eq(len(uncommitted), 40, 'read_uncommitted output count (aborted records included)')


def list_offsets_time(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1)
    t = int(time.time() * 1000) - 600_000
    p = producer(bootstrap, linger_ms=0)
    for i in range(3):
        send_all(p, [p.send(topic, value=f'v{i}'.encode(), partition=0, timestamp_ms=t + i * 1000)], dl)
    p.close()
    tp = TopicPartition(topic, 0)

    def lookup(spec):
        return a.list_partition_offsets({tp: spec})[tp]

    r = lookup(t + 1000)
    expect_eq((r.offset, r.timestamp), (1, t + 1000), 'offset for t+1000')
    expect_eq(lookup(t + 1).offset, 1, 'offset for t+1')
    expect_eq(lookup(OffsetSpec.EARLIEST).offset, 0, 'earliest')
    expect_eq(lookup(OffsetSpec.LATEST).offset, 3, 'latest')
    r = lookup(OffsetSpec.MAX_TIMESTAMP)
    expect_eq((r.offset, r.timestamp), (2, t + 2000), 'max timestamp')
    c = consumer(bootstrap)
    r = c.offsets_for_times({tp: t + 1000})[tp]
    expect_eq((r.offset, r.timestamp), (1, t + 1000), 'consumer offsets_for_times(t+1000)')
    expect_eq(c.offsets_for_times({tp: t + 5000})[tp], None, 'offsets_for_times after the last record')
    expect_eq(c.beginning_offsets([tp])[tp], 0, 'beginning_offsets')
    expect_eq(c.end_offsets([tp])[tp], 3, 'end_offsets')
    c.close()


def delete_records(bootstrap, ids):
    dl = Deadline()
    a = admin(bootstrap)
    topic = ids()
    create_topic(a, topic, 1)
    p = producer(bootstrap, linger_ms=0)
    send_all(p, [p.send(topic, value=f'v{i}'.encode(), partition=0) for i in range(10)], dl)
    p.close()
    tp = TopicPartition(topic, 0)
    res = a.delete_records({tp: 5})
    expect_eq(res[tp]['low_watermark'], 5, 'low watermark returned by DeleteRecords')
    expect_eq(a.list_partition_offsets({tp: OffsetSpec.EARLIEST})[tp].offset, 5, 'earliest after delete')
    expect_eq(a.list_partition_offsets({tp: OffsetSpec.LATEST})[tp].offset, 10, 'latest after delete')
    c = consumer(bootstrap, auto_offset_reset='earliest')
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = read_to(c, {tp: 10}, dl, 'from earliest')
    c.close()
    expect_eq([(r.offset, r.value) for r in got], [(i, f'v{i}'.encode()) for i in range(5, 10)],
              'records from earliest')


class TokenProvider(AbstractTokenProvider):
    """kafka-python's OAUTHBEARER token source: an unsecured JWS of `sub`, valid for an hour, or
    expired 10 minutes ago (expired=True, the refused client)."""

    def __init__(self, sub, expired=False):
        super().__init__()
        self.sub = sub
        self.expired = expired

    def token(self):
        if self.expired:
            return expired_jws(self.sub)
        now = int(time.time())
        return unsecured_jws({'sub': self.sub, 'iat': now, 'exp': now + 3600})


def secured(sec, password=None, client_cert=True):
    """kafka-python options of the runner's settings; `password` replaces the right one, and
    client_cert=False leaves the client certificate out (the negative cases)."""
    c = {'security_protocol': sec['protocol']}
    if sec['mechanism'] == 'OAUTHBEARER':
        # a token provider of our own: an unsecured JWS with sub = the user, exp in an hour
        c.update({'sasl_mechanism': 'OAUTHBEARER', 'sasl_oauth_token_provider': TokenProvider(sec['username'])})
    elif sec['mechanism']:
        c.update({'sasl_mechanism': sec['mechanism'], 'sasl_plain_username': sec['username'],
                  'sasl_plain_password': sec['password'] if password is None else password})
    if sec['ca']:
        c['ssl_cafile'] = sec['ca']
    if sec['cert'] and client_cert:
        c.update({'ssl_certfile': sec['cert'], 'ssl_keyfile': sec['key']})
    return c


def sasl_scenario(bootstrap, ids):
    """Through the secured listener: create a topic, 10 keyed records there and back; a wrong password fails."""
    sec = security()
    dl = Deadline()
    a = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000, **secured(sec))
    topic = ids()
    create_topic(a, topic, 1)
    p = producer(bootstrap, linger_ms=0, acks='all', **secured(sec))
    send_all(p, [p.send(topic, key=k, value=v, partition=0) for k, v in keyed_records()], dl)
    p.close()
    tp = TopicPartition(topic, 0)
    c = consumer(bootstrap, **secured(sec))
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = read_to(c, {tp: 10}, dl, 'read back')
    c.close()
    expect_eq([(r.key, r.value) for r in got], keyed_records(), 'records read back')

    # kafka-python reports the failed authentication as a connection error it logs (the bootstrap
    # then times out): the check reads the kafka loggers' records
    seen = []

    class Collect(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    handler = Collect(level=logging.DEBUG)
    logging.getLogger('kafka').addHandler(handler)
    t0 = time.monotonic()
    try:
        if sec['mechanism'] == 'OAUTHBEARER':
            bad_conf = {**secured(sec), 'sasl_oauth_token_provider': TokenProvider(sec['username'], expired=True)}
        elif sec['mechanism']:
            bad_conf = secured(sec, sec['password'] + '-wrong')
        else:
            bad_conf = secured(sec, client_cert=False)
        bad = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000,
                               bootstrap_timeout_ms=8000, **bad_conf)
        bad.list_topics()
    except Exception as e:  # noqa: BLE001 - the failure is the expected outcome, checked below
        marker = 'SaslAuthenticationFailedError' if sec['mechanism'] else 'SSL'
        auth = [m for m in seen if marker in m] + \
            ([repr(e)] if 'Authentication' in type(e).__name__ else [])
        check(time.monotonic() - t0 < 45, f'a wrong password took {time.monotonic() - t0:.1f} s to fail')
        # the broker closing the connection is sometimes all kafka-python sees (it then logs no
        # authentication error and the bootstrap times out): still refused, which is the check
        print(f'report: refused: {(auth[0] if auth else "no connection: " + repr(e))[-200:]}')
        return
    finally:
        logging.getLogger('kafka').removeHandler(handler)
    raise Fail('the refused client (wrong password / expired token / no client certificate) listed the topics')


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
        'list-offsets-time': list_offsets_time,
        'delete-records': delete_records,
        'sasl-plain': sasl_scenario,
        'sasl-scram-256': sasl_scenario,
        'sasl-scram-512': sasl_scenario,
        'sasl-ssl-scram-512': sasl_scenario,
        'ssl-mtls': sasl_scenario,
        'sasl-oauthbearer': sasl_scenario,
    })
