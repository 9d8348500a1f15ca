"""The tenant scenario of issue 18 with confluent-kafka 2.15 (librdkafka), test/interop/acl-tenant.test.ts.

Users alice and bob (SASL_PLAINTEXT, SCRAM-SHA-512) try what their ACLs allow and what they do not;
one line per action: `action=<name> outcome=<librdkafka error code name|ok>[ <detail>]`.

    python tenant_client.py <bootstrap> <tag>

<tag> marks the records alice produces, so that bob's consumer (group billing, offsets committed)
can tell this run's records from another client's.
"""

import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

BOOTSTRAP = sys.argv[1]
TAG = sys.argv[2]
N = 3


class Failed(Exception):
    def __init__(self, err):
        super().__init__(str(err))
        self.err = err


def conf(user, **extra):
    c = {
        "bootstrap.servers": BOOTSTRAP,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": user,
        "sasl.password": f"{user}-secret",
        "socket.timeout.ms": 10000,
    }
    c.update(extra)
    return c


def code_name(e):
    if isinstance(e, Failed):
        e = e.err
    if isinstance(e, KafkaException) and e.args and isinstance(e.args[0], KafkaError):
        e = e.args[0]
    if isinstance(e, KafkaError):
        return e.name()
    return type(e).__name__


def action(name, fn):
    try:
        detail = fn() or ""
        line = f"action={name} outcome=ok" + (f" {detail}" if detail else "")
    except Exception as e:  # noqa: BLE001 - every failure is an outcome
        line = f"action={name} outcome={code_name(e)}"
        print(f"{name}: {e!r}", file=sys.stderr)
    print(line, flush=True)


def produce(topic, values):
    p = Producer(conf("alice", **{"message.timeout.ms": 15000, "linger.ms": 0}))
    errors = []
    for v in values:
        p.produce(topic, v.encode(), on_delivery=lambda err, _m: errors.append(err) if err else None)
    left = p.flush(20)
    if errors:
        raise Failed(errors[0])
    if left:
        raise RuntimeError(f"{left} records not delivered")


def consume(user, group, want, seconds, commit=False):
    c = Consumer(conf(user, **{"group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False}))
    try:
        c.subscribe(["orders-eu"])
        got = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and (want == 0 or got < want):
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise Failed(m.error())
            if m.value() is not None and m.value().decode().startswith(TAG):
                got += 1
        if commit:
            c.commit(asynchronous=False)
        return got
    finally:
        c.close()


def consume_billing():
    got = consume("bob", "billing", N, 30, commit=True)
    if got < N:
        raise RuntimeError(f"read {got} of {N} records")
    return f"records={got}"


def create_topic():
    a = AdminClient(conf("alice"))
    for f in a.create_topics([NewTopic("orders-us", 1, 1)], request_timeout=15).values():
        f.result(20)


def describe_configs():
    a = AdminClient(conf("alice"))
    for f in a.describe_configs([ConfigResource(ResourceType.TOPIC, "orders-eu")], request_timeout=15).values():
        f.result(20)


def transactional_id():
    p = Producer(conf("alice", **{"transactional.id": "alice-tx"}))
    p.init_transactions(20)


def metadata_all():
    a = AdminClient(conf("bob"))
    md = a.list_topics(timeout=20)
    return "topics=" + ",".join(sorted(md.topics))


action("alice-produce-orders-eu", lambda: produce("orders-eu", [f"{TAG}-{i}" for i in range(N)]))
action("alice-produce-payments", lambda: produce("payments", [f"{TAG}-x"]))
action("alice-consume-group", lambda: consume("alice", "alice-group", N, 10) and None)
action("bob-consume-group-other", lambda: consume("bob", "other", N, 10) and None)
action("alice-create-topic", create_topic)
action("alice-describe-configs-orders-eu", describe_configs)
action("alice-transactional-id", transactional_id)
action("bob-metadata-all-topics", metadata_all)
action("bob-consume-billing", consume_billing)
