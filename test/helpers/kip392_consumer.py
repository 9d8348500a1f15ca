"""A confluent-kafka (librdkafka) consumer with client.rack, for test/kip392-cluster.test.ts (KIP-392).

    python kip392_consumer.py '<json spec>'

The spec: bootstrap, topic, rack (client.rack), client_id, expect (records in partition 0),
timeout_s. Reads partition 0 from the beginning (assign, no group) until `expect` records arrived;
prints one JSON line {"values": [...], "offsets": [...]} and `report: ...` lines (librdkafka's
fetch-from-follower debug lines it saw); exits 1 with a message on stderr when it times out.
"""
import json
import logging
import sys
import time

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


def main():
    spec = json.loads(sys.argv[1])
    preferred = []

    class Handler(logging.Handler):
        # librdkafka's debug=fetch lines that name a preferred replica
        def emit(self, record):
            msg = record.getMessage()
            if 'preferred' in msg.lower():
                preferred.append(msg)

    logger = logging.getLogger('kip392')
    logger.setLevel(logging.DEBUG)
    logger.addHandler(Handler())
    c = Consumer(
        {
            'bootstrap.servers': spec['bootstrap'],
            'group.id': spec['client_id'],
            'client.id': spec['client_id'],
            'client.rack': spec['rack'],
            'enable.auto.commit': False,
            'debug': 'fetch',
            'fetch.wait.max.ms': 200,
        },
        logger=logger,
    )
    try:
        c.assign([TopicPartition(spec['topic'], 0, OFFSET_BEGINNING)])
        values, offsets = [], []
        deadline = time.monotonic() + spec['timeout_s']
        while len(values) < spec['expect'] and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                print(f'consumer error: {m.error()}', file=sys.stderr)
                continue
            values.append(m.value().decode())
            offsets.append(m.offset())
        if len(values) < spec['expect']:
            print(f'read {len(values)} of {spec["expect"]} records in {spec["timeout_s"]} s', file=sys.stderr)
            for line in preferred[-5:]:
                print(line, file=sys.stderr)
            return 1
        print(json.dumps({'values': values, 'offsets': offsets}))
        for line in preferred[:3]:
            print(f'report: {line}')
        return 0
    finally:
        c.close()


if __name__ == '__main__':
    sys.exit(main())
