// Kafka's own share consumer (KafkaShareConsumer, kafka-clients 4.4.0) for
// test/interop/share-queue-kafka.test.ts, the issue's share-group demo.
//
//   java -cp <classes>:<lib>/* ShareQueueClient setup <bootstrap> <topic> <partitions> <group> [key=value...]
//   java -cp <classes>:<lib>/* ShareQueueClient await <bootstrap> <group> <members>
//   java -cp <classes>:<lib>/* ShareQueueClient produce <bootstrap> <topic> <records> <partitions>
//   java -cp <classes>:<lib>/* ShareQueueClient consume <bootstrap> <topic> <group> <client-id>
//   java -cp <classes>:<lib>/* ShareQueueClient redeliver <bootstrap>
//   java -cp <classes>:<lib>/* ShareQueueClient offsets <bootstrap> <group>
//
// setup: creates the topic and sets share.auto.offset.reset=earliest (and the given keys) on the group.
// await: until the share group has <members> members, each assigned at least one partition (60 s).
// produce: <records> records v-0.. (v-i to partition i % partitions), sent asynchronously, then flushed.
// consume: one share consumer (explicit acknowledgement) ACCEPTs every record it gets; after each
// commitSync it prints one `r <i> <delivery count>` line per record of that poll; it stops when its stdin
// closes (or after 300 s), closes and prints `obs closed`.
// redeliver: the deterministic part of the demo, `obs ...` lines: (A) topic sd1 (1 partition), group gd1
// with share.delivery.count.limit=3: 10 records in one batch; v-i with i % 5 == 1 is RELEASEd on every
// delivery (delivered 3 times, then archived), i % 5 == 2 REJECTed (never again), i % 5 == 3 RELEASEd
// once then ACCEPTed, the rest ACCEPTed; the deliveries of each record are printed after 3 s without any.
// (B) topic sd2, group gd2 with share.record.lock.duration.ms=5000: consumer a acquires 4 records and
// stops polling; consumer b gets them once the lock expired, with a higher delivery count.
// A failure is a message on stderr and exit 1. Every loop is bounded in time.
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ShareQueueClient {
  static String bootstrap;

  static void fail(String msg) {
    System.err.println("FAIL " + msg);
    System.out.flush();
    Runtime.getRuntime().halt(1);
  }

  static Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(p);
  }

  static void setup(String topic, int partitions, String group, List<String> keys) throws Exception {
    try (Admin a = admin()) {
      a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
      List<AlterConfigOp> set = new ArrayList<>();
      set.add(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET));
      for (String kv : keys) {
        String[] p = kv.split("=", 2);
        set.add(new AlterConfigOp(new ConfigEntry(p[0], p[1]), AlterConfigOp.OpType.SET));
      }
      Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
      ops.put(new ConfigResource(ConfigResource.Type.GROUP, group), set);
      a.incrementalAlterConfigs(ops).all().get();
    }
  }

  static void awaitMembers(String group, int members) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    try (Admin a = admin()) {
      for (;;) {
        String last;
        try {
          ShareGroupDescription d = a.describeShareGroups(List.of(group)).describedGroups().get(group).get();
          int assigned = 0;
          for (ShareMemberDescription m : d.members())
            if (!m.assignment().topicPartitions().isEmpty()) assigned++;
          if (d.members().size() == members && assigned == members) return;
          last = d.toString();
        } catch (java.util.concurrent.ExecutionException e) {
          // the group is created by its first heartbeat
          if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
          last = "not found";
        }
        if (System.currentTimeMillis() > deadline) fail("members of " + group + ": " + last);
        Thread.sleep(200);
      }
    }
  }

  static Properties producerProps(String linger) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, linger);
    return p;
  }

  static void produce(String topic, int n, int partitions) throws Exception {
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(producerProps("5"))) {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) fs.add(prod.send(new ProducerRecord<>(topic, i % partitions, null, "v-" + i)));
      prod.flush();
      for (Future<?> f : fs) f.get();
    }
    System.out.println("obs produced=" + n);
  }

  /** One batch: the n records are sent together, then flushed. */
  static void produceOneBatch(String topic, int n) throws Exception {
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(producerProps("60000"))) {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) fs.add(prod.send(new ProducerRecord<>(topic, 0, null, "v-" + i)));
      prod.flush();
      for (Future<?> f : fs) f.get();
    }
  }

  static KafkaShareConsumer<String, String> consumer(String group, String clientId, String topic, int maxPoll) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("client.id", clientId);
    p.put("share.acknowledgement.mode", "explicit");
    p.put("max.poll.records", String.valueOf(maxPoll));
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
    c.subscribe(List.of(topic));
    return c;
  }

  static int index(ConsumerRecord<String, String> r) {
    return Integer.parseInt(r.value().substring(2));
  }

  static short count(ConsumerRecord<String, String> r) {
    return r.deliveryCount().orElse((short) -1);
  }

  static volatile boolean stdinClosed = false;

  static void consume(String topic, String group, String clientId) throws Exception {
    Thread t = new Thread(() -> {
      try {
        InputStream in = System.in;
        while (in.read() != -1) {}
      } catch (Exception e) {
        // closed either way
      }
      stdinClosed = true;
    });
    t.setDaemon(true);
    t.start();
    KafkaShareConsumer<String, String> c = consumer(group, clientId, topic, 500);
    long deadline = System.currentTimeMillis() + 300_000;
    StringBuilder out = new StringBuilder();
    while (!stdinClosed) {
      if (System.currentTimeMillis() > deadline) fail(clientId + ": stdin not closed within 300 s");
      ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
      if (recs.isEmpty()) continue;
      out.setLength(0);
      for (ConsumerRecord<String, String> r : recs) {
        c.acknowledge(r, AcknowledgeType.ACCEPT);
        out.append("r ").append(index(r)).append(' ').append(count(r)).append('\n');
      }
      // printed once the broker accepted them: commitSync throws on a failed acknowledgement
      Map<?, java.util.Optional<org.apache.kafka.common.KafkaException>> res = c.commitSync();
      for (java.util.Optional<org.apache.kafka.common.KafkaException> e : res.values())
        if (e.isPresent()) fail(clientId + ": acknowledgement failed: " + e.get());
      System.out.print(out);
      System.out.flush();
    }
    c.close(Duration.ofSeconds(10));
    System.out.println("obs closed");
    System.out.flush();
  }

  static void redeliver() throws Exception {
    // (A) RELEASE up to the delivery count limit, REJECT, RELEASE once
    final int n = 10;
    setup("sd1", 1, "gd1", List.of("share.delivery.count.limit=3"));
    produceOneBatch("sd1", n);
    KafkaShareConsumer<String, String> c = consumer("gd1", "rd", "sd1", 10);
    TreeMap<Integer, List<Integer>> deliveries = new TreeMap<>();
    long deadline = System.currentTimeMillis() + 90_000;
    long quietUntil = Long.MAX_VALUE;
    while (System.currentTimeMillis() < quietUntil) {
      if (System.currentTimeMillis() > deadline) fail("redeliver: " + deliveries);
      ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : recs) {
        int i = index(r);
        short dc = count(r);
        deliveries.computeIfAbsent(i, k -> new ArrayList<>()).add((int) dc);
        AcknowledgeType t =
            switch (i % 5) {
              case 1 -> AcknowledgeType.RELEASE;
              case 2 -> AcknowledgeType.REJECT;
              case 3 -> dc == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
              default -> AcknowledgeType.ACCEPT;
            };
        c.acknowledge(r, t);
      }
      if (!recs.isEmpty()) c.commitSync();
      // every record resolved: the ones released every time were delivered 3 times
      if (quietUntil == Long.MAX_VALUE && deliveries.size() == n) {
        boolean done = true;
        for (Map.Entry<Integer, List<Integer>> e : deliveries.entrySet()) {
          int want = e.getKey() % 5 == 1 ? 3 : e.getKey() % 5 == 3 ? 2 : 1;
          if (e.getValue().size() < want) done = false;
        }
        if (done) quietUntil = System.currentTimeMillis() + 3000;
      }
    }
    System.out.println("obs deliveries=" + deliveries);
    c.close(Duration.ofSeconds(10));

    // (B) a record not acknowledged before its lock expires comes back with a higher delivery count
    final int m = 4;
    setup("sd2", 1, "gd2", List.of("share.record.lock.duration.ms=5000"));
    // a alone first, so b has no share fetch parked when the records arrive
    KafkaShareConsumer<String, String> a = consumer("gd2", "a", "sd2", 10);
    awaitAssigned(a, "gd2");
    produceOneBatch("sd2", m);
    List<String> acquired = new ArrayList<>();
    deadline = System.currentTimeMillis() + 30_000;
    while (acquired.isEmpty()) {
      if (System.currentTimeMillis() > deadline) fail("the stalled consumer acquired nothing");
      for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(200)))
        acquired.add(r.value() + "@" + count(r));
    }
    long t0 = System.currentTimeMillis();
    System.out.println("obs stalled acquired=" + acquired);
    KafkaShareConsumer<String, String> b = consumer("gd2", "b", "sd2", 10);
    List<String> got = new ArrayList<>();
    deadline = t0 + 60_000;
    while (got.size() < m) {
      if (System.currentTimeMillis() > deadline) fail("the other consumer got only " + got);
      ConsumerRecords<String, String> recs = b.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : recs) {
        got.add(r.value() + "@" + count(r));
        b.acknowledge(r, AcknowledgeType.ACCEPT);
      }
      if (!recs.isEmpty()) b.commitSync();
    }
    long waited = System.currentTimeMillis() - t0;
    System.out.println("obs other got=" + got + " after-lock=" + (waited >= 4000));
    System.err.println("other consumer waited " + waited + " ms");
    b.close(Duration.ofSeconds(10));
    a.close(Duration.ofSeconds(10));
  }

  /** The group's share-partition start offsets (ListShareGroupOffsets), and lags. */
  static void offsets(String group) throws Exception {
    try (Admin a = admin()) {
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.SharePartitionOffsetInfo> m =
          a.listShareGroupOffsets(Map.of(group, new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec()))
              .partitionsToOffsetInfo(group)
              .get();
      TreeMap<String, String> out = new TreeMap<>();
      for (var e : m.entrySet())
        out.put(e.getKey().toString(), e.getValue().startOffset() + " lag " + e.getValue().lag().map(String::valueOf).orElse("-"));
      System.out.println("obs start-offsets=" + out);
    }
  }

  /** Polls the consumer (no records are produced yet) until the group gave it a partition. */
  static void awaitAssigned(KafkaShareConsumer<String, String> c, String group) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    try (Admin adm = admin()) {
      for (;;) {
        if (!c.poll(Duration.ofMillis(100)).isEmpty()) fail("records before they were produced");
        try {
          ShareGroupDescription d = adm.describeShareGroups(List.of(group)).describedGroups().get(group).get();
          if (d.members().size() == 1 && !d.members().iterator().next().assignment().topicPartitions().isEmpty())
            return;
        } catch (java.util.concurrent.ExecutionException e) {
          if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
        }
        if (System.currentTimeMillis() > deadline) fail("group " + group + " never assigned its member");
      }
    }
  }

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    switch (args[0]) {
      case "setup" -> setup(args[2], Integer.parseInt(args[3]), args[4], List.of(args).subList(5, args.length));
      case "await" -> awaitMembers(args[2], Integer.parseInt(args[3]));
      case "produce" -> produce(args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "consume" -> consume(args[2], args[3], args[4]);
      case "redeliver" -> redeliver();
      case "offsets" -> offsets(args[2]);
      default -> fail("unknown mode " + args[0]);
    }
    System.exit(0);
  }
}
