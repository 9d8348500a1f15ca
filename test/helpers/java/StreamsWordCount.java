// A small Kafka Streams 4.4.0 application for the streams-group interop test (KIP-1071): a word
// count with one repartition (groupBy word) and one changelogged store (in-memory, so no RocksDB),
// run with group.protocol=streams (or classic). Modes:
//   produce <bootstrap> <topic> <records> [first]
//                                             writes the deterministic input lines first..first+records-1
//   run <bootstrap> <appId> <in> <out> <stateDir> <tag> [eos] [classic]
//                                             (eos: processing.guarantee=exactly_once_v2;
//                                             classic: group.protocol=classic, a consumer group with
//                                             the StreamsPartitionAssignor, session.timeout.ms 10 s)
//                                             runs the application, prints "state=<STATE>" lines,
//                                             closes (leaving the group) on "stop" or end of stdin
//   counts <bootstrap> <topic> <total> <timeoutMs>
//                                             reads the output topic until the latest counts add
//                                             up to <total>, prints "count <word>=<n>" sorted
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

public class StreamsWordCount {
  /** The words of input line i (the test computes the same counts). */
  static String line(int i) {
    return "w" + (i % 7) + " w" + (i % 5) + " w" + (i % 3);
  }

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "produce" -> produce(args[1], args[2], Integer.parseInt(args[3]), args.length > 4 ? Integer.parseInt(args[4]) : 0);
      case "run" -> {
        List<String> flags = List.of(args).subList(7, args.length);
        run(args[1], args[2], args[3], args[4], args[5], args[6], flags.contains("eos"), flags.contains("classic"));
      }
      case "counts" -> counts(args[1], args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  static void produce(String bootstrap, String topic, int n, int first) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = first; i < first + n; i++) producer.send(new ProducerRecord<>(topic, "k" + i, line(i)));
      producer.flush();
    }
    System.out.println("produced " + n);
  }

  static void run(
      String bootstrap, String appId, String in, String out, String stateDir, String tag, boolean eos, boolean classic)
      throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, classic ? "classic" : "streams");
    // classic: a member killed leaves the group when its session expires (Kafka Streams' default
    // 45 s; the broker's group.min.session.timeout.ms is 6 s)
    if (classic) p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10000);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "localhost:" + (tag.equals("a") ? 7001 : 7002));
    p.put(StreamsConfig.CLIENT_ID_CONFIG, "wordcount-" + tag);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    if (eos) p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    StreamsBuilder b = new StreamsBuilder();
    b.stream(in, org.apache.kafka.streams.kstream.Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(v -> List.of(v.split(" ")))
        .groupBy((k, w) -> w, Grouped.with("words", Serdes.String(), Serdes.String()))
        .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts")).withValueSerde(Serdes.Long()))
        .toStream()
        .to(out, Produced.with(Serdes.String(), Serdes.Long()));
    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.setStateListener((now, before) -> {
      System.out.println("state=" + now);
      System.out.flush();
    });
    streams.start();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
    for (String l = stdin.readLine(); l != null && !l.equals("stop"); l = stdin.readLine()) {}
    streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
        .withTimeout(Duration.ofSeconds(30)));
    System.out.println("closed");
    System.out.flush();
  }

  static void counts(String bootstrap, String topic, long total, long timeoutMs) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "wordcount-check-" + System.nanoTime());
    Map<String, Long> latest = new TreeMap<>();
    long deadline = System.currentTimeMillis() + timeoutMs;
    try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(p)) {
      c.subscribe(List.of(topic));
      while (System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, Long> r : c.poll(Duration.ofMillis(500))) latest.put(r.key(), r.value());
        long sum = latest.values().stream().mapToLong(Long::longValue).sum();
        if (sum >= total) break;
      }
    }
    for (Map.Entry<String, Long> e : latest.entrySet()) System.out.println("count " + e.getKey() + "=" + e.getValue());
  }
}
