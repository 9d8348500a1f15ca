// The tenant scenario of issue 18 with Kafka's Java client 4.4.0 (test/interop/acl-tenant.test.ts):
// users alice and bob (SASL_PLAINTEXT, SCRAM-SHA-512) try what their ACLs allow and what they do not,
// and one line per action is printed: `action=<name> outcome=<exception class|ok>[ <detail>]`.
//
//   java -cp <classes>:<kafka-clients 4.4.0 jars> TenantClient <bootstrap> <tag>
//
// <tag> marks the records alice produces, so that bob's consumer (group billing, offsets committed)
// can tell this run's records from another client's.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class TenantClient {
  static String bootstrap;

  interface Action {
    String run() throws Exception;
  }

  static Properties props(String user) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "SCRAM-SHA-512");
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + user
            + "\" password=\""
            + user
            + "-secret\";");
    p.put("request.timeout.ms", "10000");
    p.put("default.api.timeout.ms", "15000");
    return p;
  }

  static KafkaProducer<String, String> producer(String user, String transactionalId) {
    Properties p = props(user);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("max.block.ms", "15000");
    p.put("delivery.timeout.ms", "20000");
    p.put("linger.ms", "0");
    if (transactionalId != null) p.put("transactional.id", transactionalId);
    return new KafkaProducer<>(p);
  }

  static KafkaConsumer<String, String> consumer(String user, String group) {
    Properties p = props(user);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("group.id", group);
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    return new KafkaConsumer<>(p);
  }

  /** The exception an action ended with, unwrapped from the futures' ExecutionException. */
  static String outcome(Throwable t) {
    while ((t instanceof ExecutionException || t.getClass() == org.apache.kafka.common.KafkaException.class)
        && t.getCause() != null) t = t.getCause();
    return t.getClass().getSimpleName();
  }

  static void action(String name, Action a) {
    String line;
    try {
      String detail = a.run();
      line = "action=" + name + " outcome=ok" + (detail.isEmpty() ? "" : " " + detail);
    } catch (Throwable t) {
      line = "action=" + name + " outcome=" + outcome(t);
      System.err.println(name + ": " + t);
    }
    System.out.println(line);
    System.out.flush();
  }

  /** Polls a consumer subscribed to `topic` for up to `ms`: an exception, or the records read. */
  static List<ConsumerRecord<String, String>> pollFor(KafkaConsumer<String, String> c, long ms, String prefix, int want) {
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    while (System.nanoTime() < deadline) {
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500))) {
        if (r.value() != null && r.value().startsWith(prefix)) got.add(r);
      }
      if (want > 0 && got.size() >= want) break;
    }
    return got;
  }

  public static void main(String[] args) {
    bootstrap = args[0];
    String tag = args[1];
    int n = 3;

    action(
        "alice-produce-orders-eu",
        () -> {
          try (KafkaProducer<String, String> p = producer("alice", null)) {
            for (int i = 0; i < n; i++) p.send(new ProducerRecord<>("orders-eu", tag + "-" + i)).get(20, TimeUnit.SECONDS);
          }
          return "";
        });
    action(
        "alice-produce-payments",
        () -> {
          try (KafkaProducer<String, String> p = producer("alice", null)) {
            p.send(new ProducerRecord<>("payments", tag + "-x")).get(20, TimeUnit.SECONDS);
          }
          return "";
        });
    action(
        "alice-consume-group",
        () -> {
          try (KafkaConsumer<String, String> c = consumer("alice", "alice-group")) {
            c.subscribe(Collections.singletonList("orders-eu"));
            pollFor(c, 10_000, tag, n);
          }
          return "";
        });
    action(
        "bob-consume-group-other",
        () -> {
          try (KafkaConsumer<String, String> c = consumer("bob", "other")) {
            c.subscribe(Collections.singletonList("orders-eu"));
            pollFor(c, 10_000, tag, n);
          }
          return "";
        });
    action(
        "alice-create-topic",
        () -> {
          try (Admin a = Admin.create(props("alice"))) {
            a.createTopics(Collections.singletonList(new NewTopic("orders-us", 1, (short) 1))).all().get(20, TimeUnit.SECONDS);
          }
          return "";
        });
    action(
        "alice-describe-configs-orders-eu",
        () -> {
          try (Admin a = Admin.create(props("alice"))) {
            a.describeConfigs(Collections.singletonList(new ConfigResource(ConfigResource.Type.TOPIC, "orders-eu")))
                .all()
                .get(20, TimeUnit.SECONDS);
          }
          return "";
        });
    action(
        "alice-transactional-id",
        () -> {
          try (KafkaProducer<String, String> p = producer("alice", "alice-tx")) {
            p.initTransactions();
          }
          return "";
        });
    action(
        "bob-metadata-all-topics",
        () -> {
          try (Admin a = Admin.create(props("bob"))) {
            return "topics=" + String.join(",", new TreeSet<>(a.listTopics(new ListTopicsOptions().listInternal(true)).names().get(20, TimeUnit.SECONDS)));
          }
        });
    action(
        "bob-consume-billing",
        () -> {
          try (KafkaConsumer<String, String> c = consumer("bob", "billing")) {
            c.subscribe(Collections.singletonList("orders-eu"));
            List<ConsumerRecord<String, String>> got = pollFor(c, 30_000, tag, n);
            if (got.size() < n) throw new IllegalStateException("read " + got.size() + " of " + n + " records");
            c.commitSync();
            return "records=" + got.size();
          }
        });
  }
}
