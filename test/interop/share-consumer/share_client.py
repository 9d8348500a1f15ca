# confluent-kafka 2.15's ShareConsumer (librdkafka, KIP-932) for test/interop/share-consumer.test.ts:
#
#   python share_client.py <bootstrap> <topic> <group> <records>
#
# The topic (2 partitions) exists and the group has share.auto.offset.reset=earliest. Produces <records>
# records v-0.. (alternating partitions, one batch each); two share consumers of <group> in explicit
# acknowledgement mode consume them together: v-i with i % 5 == 1 is RELEASEd on its first delivery
# (it must come back with delivery count 2), i % 5 == 3 REJECTed (never again), the rest ACCEPTed.
# Prints `obs ...` lines (the same as ShareClient.java's first scenario, without the per-consumer split,
# which depends on when each consumer joined); exit 1 with a message on stderr on failure. Bounded in time.
import sys
import time

from confluent_kafka import AcknowledgeType, Producer, ShareConsumer


def fail(msg):
    print("FAIL " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    bootstrap, topic, group, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for i in range(n):
        p.produce(topic, value=("v-%d" % i).encode(), partition=i % 2)
        p.flush(10)
    consumers = []
    for k in range(2):
        c = ShareConsumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "client.id": "py-c%d" % (k + 1),
                "share.acknowledgement.mode": "explicit",
            }
        )
        c.subscribe([topic])
        consumers.append(c)
    first = {}
    released = {}
    accepted, rejected = set(), set()
    unexpected = 0
    deadline = time.time() + 120
    while len(accepted) + len(rejected) < n:
        if time.time() > deadline:
            fail("accepted %s rejected %s released %s" % (sorted(accepted), sorted(rejected), released))
        for k, c in enumerate(consumers):
            msgs = c.poll(0.5) or []
            got = False
            for m in msgs:
                if m.error():
                    fail("poll error %s" % m.error())
                got = True
                i = int(m.value().decode()[2:])
                dc = m.delivery_count()
                if dc == 1:
                    if i in first:
                        unexpected += 1
                    first[i] = k
                if i in accepted or i in rejected:
                    unexpected += 1
                if i % 5 == 1 and dc == 1:
                    c.acknowledge(m, AcknowledgeType.RELEASE)
                elif i % 5 == 3:
                    c.acknowledge(m, AcknowledgeType.REJECT)
                    rejected.add(i)
                else:
                    if i % 5 == 1:
                        released[i] = dc
                    c.acknowledge(m, AcknowledgeType.ACCEPT)
                    accepted.add(i)
            if got:
                c.commit_sync()
    quiet = time.time() + 3
    while time.time() < quiet:
        for c in consumers:
            msgs = c.poll(0.2) or []
            for m in msgs:
                if not m.error():
                    unexpected += 1
                    c.acknowledge(m, AcknowledgeType.ACCEPT)
            if msgs:
                c.commit_sync()
    print("obs together delivered=%d unexpected=%d" % (len(first), unexpected))
    print("obs accepted=%d rejected=[%s]" % (len(accepted), ", ".join(str(x) for x in sorted(rejected))))
    print(
        "obs released-then-redelivered={%s}"
        % ", ".join("%d=%d" % (k, released[k]) for k in sorted(released))
    )
    for c in consumers:
        c.close()


main()
