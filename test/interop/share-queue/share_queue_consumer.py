# confluent-kafka 2.15's ShareConsumer (librdkafka, KIP-932) for test/interop/share-queue-kafka.test.ts:
#
#   python share_queue_consumer.py <bootstrap> <topic> <group> <client-id>
#
# One share consumer (explicit acknowledgement) of <group> ACCEPTs every record it gets; after each
# commit_sync it prints one `r <i> <delivery count>` line per record of that poll (value v-<i>). It stops
# when its stdin closes (or after 300 s), closes and prints `obs closed`; exit 1 with a message on stderr
# on failure. The same contract as ShareQueueClient.java's consume mode.
import sys
import threading
import time

from confluent_kafka import AcknowledgeType, ShareConsumer


def fail(msg):
    print("FAIL " + msg, file=sys.stderr)
    sys.stdout.flush()
    sys.exit(1)


def main():
    bootstrap, topic, group, client_id = sys.argv[1:5]
    stop = threading.Event()

    def watch_stdin():
        sys.stdin.buffer.read()
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    c = ShareConsumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "client.id": client_id,
            "share.acknowledgement.mode": "explicit",
        }
    )
    c.subscribe([topic])
    deadline = time.time() + 300
    while not stop.is_set():
        if time.time() > deadline:
            fail("%s: stdin not closed within 300 s" % client_id)
        msgs = c.poll(0.2) or []
        lines = []
        for m in msgs:
            if m.error():
                fail("%s: poll error %s" % (client_id, m.error()))
            c.acknowledge(m, AcknowledgeType.ACCEPT)
            lines.append("r %s %d\n" % (m.value().decode()[2:], m.delivery_count()))
        if lines:
            for tp, err in c.commit_sync().items():
                if err is not None:
                    fail("%s: acknowledgement failed on %s: %s" % (client_id, tp, err))
            sys.stdout.write("".join(lines))
            sys.stdout.flush()
    c.close()
    print("obs closed")
    sys.stdout.flush()


main()
