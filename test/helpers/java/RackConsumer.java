// A kafka-clients 4.4.0 consumer with client.rack, for test/kip392-cluster.test.ts (KIP-392).
//
//   java -cp <classes>:<lib>/* RackConsumer <bootstrap> <topic> <rack> <client.id> <expect> <timeoutMs>
//
// Reads partition 0 from the beginning (assign, no group) until <expect> records arrived; checks
// offsets 0..expect-1 in order and prints `values <first> <last>`; exit 1 with a message on stderr
// when it times out or sees a gap.
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

public class RackConsumer {
  public static void main(String[] args) {
    String bootstrap = args[0], topic = args[1], rack = args[2], clientId = args[3];
    int expect = Integer.parseInt(args[4]);
    long deadline = System.currentTimeMillis() + Long.parseLong(args[5]);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ConsumerConfig.CLIENT_RACK_CONFIG, rack);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    TopicPartition tp = new TopicPartition(topic, 0);
    String first = null, last = null;
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long next = 0;
      while (next < expect && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
          if (r.offset() != next) {
            System.err.println("expected offset " + next + ", got " + r.offset());
            System.exit(1);
          }
          if (first == null) first = r.value();
          last = r.value();
          next++;
        }
      }
      if (next < expect) {
        System.err.println("read " + next + " of " + expect + " records before the deadline");
        System.exit(1);
      }
    }
    System.out.println("values " + first.substring(0, first.indexOf('-', 6)) + " " + last.substring(0, last.indexOf('-', 6)));
  }
}
