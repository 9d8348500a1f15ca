# librdkafka's (confluent-kafka 2.15) producer with KIP-714 metrics push, for
# interop/client-telemetry-kafka.test.ts: produces to `pytele` for argv[2] seconds (bounded), then flushes.
import sys
import time

from confluent_kafka import Producer

p = Producer({"bootstrap.servers": sys.argv[1], "client.id": "py-telemetry", "enable.metrics.push": True})
end = time.time() + float(sys.argv[2])
n = 0
while time.time() < end and n < 100000:
    p.produce("pytele", b"x" * 100)
    p.poll(0.1)
    n += 1
p.flush(10)
print("sent", n)
