// Kafka's own share consumer (KafkaShareConsumer, kafka-clients 4.4.0) for test/interop/share-consumer.test.ts.
//
//   java -cp <classes>:<lib>/* ShareClient scenario <bootstrap> <lockMs>
//   java -cp <classes>:<lib>/* ShareClient partial <bootstrap> <topic> <group> <records> <accept>
//   java -cp <classes>:<lib>/* ShareClient drain <bootstrap> <topic> <group> <expect>
//   java -cp <classes>:<lib>/* ShareClient hold <bootstrap> <topic> <group> <records>
//   java -cp <classes>:<lib>/* ShareClient take <bootstrap> <topic> <group> <expect>
//
// Every observation is one `obs ...` line on stdout (the same lines are expected from Kafka and tkafka);
// a failure is a message on stderr and exit 1. Every loop is bounded in time.
//
// scenario: (1) topic sq (2 partitions), group sg: two share consumers (explicit acknowledgement) join,
// 20 records are produced (one batch each, alternating partitions) and consumed together; each value
// is counted per consumer; v-i with i % 5 == 1 is RELEASEd on its first delivery (it must come back
// with delivery count 2), i % 5 == 3 is REJECTed (it must never come back), the rest ACCEPTed.
// (2) topic sq1 (1 partition), group sg-lock: consumer a acquires 4 records and stops polling (a
// stalled consumer keeps its connection and heartbeats); consumer b joins and gets the same 4 records
// with delivery count 2 once group.share.record.lock.duration.ms has passed.
// partial: produces <records> records to a new 1-partition topic, acquires them all, ACCEPTs the
// first <accept>, commits, and halts without closing (a crash).
// drain: consumes <group> until <expect> records arrived and nothing more comes for 3 s.
// hold: a new 1-partition topic, the group's share.record.lock.duration.ms at 60000; produces <records>
// records in one batch, acquires them, prints them and waits to be killed (exit 1 after 120 s).
// take: consumes <group> until <expect> records arrived, ACCEPTs them and prints them with their delivery
// counts, and whether they came within 30 s (well before the group's 60 s acquisition lock).
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ShareClient {
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

  /** Creates the topic and sets share.auto.offset.reset=earliest on the groups (GROUP config resources). */
  static void setup(String topic, int partitions, String... groups) throws Exception {
    setupWithLock(topic, partitions, null, groups);
  }

  static void setupWithLock(String topic, int partitions, String lockMs, String... groups) throws Exception {
    try (Admin a = admin()) {
      a.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
      Map<ConfigResource, Collection<AlterConfigOp>> ops = new HashMap<>();
      for (String g : groups) {
        List<AlterConfigOp> set = new ArrayList<>();
        set.add(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET));
        if (lockMs != null)
          set.add(new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms", lockMs), AlterConfigOp.OpType.SET));
        ops.put(new ConfigResource(ConfigResource.Type.GROUP, g), set);
      }
      a.incrementalAlterConfigs(ops).all().get();
    }
  }

  /** One batch: the n records are sent together, then flushed. */
  static void produceOneBatch(String topic, int n) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, "60000");
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
      List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) fs.add(prod.send(new ProducerRecord<>(topic, 0, null, "v-" + i)));
      prod.flush();
      for (java.util.concurrent.Future<?> f : fs) f.get();
    }
  }

  static void produce(String topic, int n, int partitions) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
      for (int i = 0; i < n; i++) prod.send(new ProducerRecord<>(topic, i % partitions, null, "v-" + i)).get();
    }
  }

  static KafkaShareConsumer<String, String> consumer(String group, String clientId, String topic) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("client.id", clientId);
    p.put("share.acknowledgement.mode", "explicit");
    p.put("max.poll.records", "5");
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

  /** Polls every consumer until the group has `members` members, each assigned `perMember` partitions. */
  static void awaitAssignment(String group, int members, int perMember, List<KafkaShareConsumer<String, String>> cs)
      throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    try (Admin a = admin()) {
      for (;;) {
        for (KafkaShareConsumer<String, String> c : cs)
          if (!c.poll(Duration.ofMillis(100)).isEmpty()) fail("records before they were produced");
        ShareGroupDescription d;
        try {
          d = a.describeShareGroups(List.of(group)).describedGroups().get(group).get();
        } catch (java.util.concurrent.ExecutionException e) {
          // the group is created by its first heartbeat
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)) throw e;
          if (System.currentTimeMillis() > deadline) fail("group " + group + " not found");
          continue;
        }
        int ok = 0;
        for (ShareMemberDescription m : d.members())
          if (m.assignment().topicPartitions().size() == perMember) ok++;
        if (d.members().size() == members && ok == members) return;
        if (System.currentTimeMillis() > deadline) fail("assignment of " + group + ": " + d);
      }
    }
  }

  static void scenario(long lockMs) throws Exception {
    // (1) two consumers together; RELEASE and REJECT
    final int n = 20;
    setup("sq", 2, "sg");
    KafkaShareConsumer<String, String> c1 = consumer("sg", "c1", "sq"), c2 = consumer("sg", "c2", "sq");
    List<KafkaShareConsumer<String, String>> both = List.of(c1, c2);
    awaitAssignment("sg", 2, 1, both);
    produce("sq", n, 2);
    Map<Integer, String> firstBy = new TreeMap<>();
    Map<Integer, Integer> released = new TreeMap<>();
    TreeSet<Integer> rejected = new TreeSet<>(), accepted = new TreeSet<>();
    int[] perConsumer = new int[2];
    int unexpected = 0;
    long deadline = System.currentTimeMillis() + 90_000;
    while (accepted.size() + rejected.size() < n) {
      if (System.currentTimeMillis() > deadline)
        fail("together: accepted " + accepted + " rejected " + rejected + " released " + released);
      for (int k = 0; k < 2; k++) {
        KafkaShareConsumer<String, String> c = both.get(k);
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        for (ConsumerRecord<String, String> r : recs) {
          int i = index(r);
          short dc = count(r);
          if (dc == 1) {
            if (firstBy.containsKey(i)) unexpected++;
            firstBy.put(i, "c" + (k + 1));
            perConsumer[k]++;
          }
          if (accepted.contains(i) || rejected.contains(i)) unexpected++;
          if (i % 5 == 1 && dc == 1) c.acknowledge(r, AcknowledgeType.RELEASE);
          else if (i % 5 == 3) {
            c.acknowledge(r, AcknowledgeType.REJECT);
            rejected.add(i);
          } else {
            if (i % 5 == 1) released.put(i, (int) dc);
            c.acknowledge(r, AcknowledgeType.ACCEPT);
            accepted.add(i);
          }
        }
        if (!recs.isEmpty()) c.commitSync();
      }
    }
    // nothing more comes: the rejected records are archived
    long quiet = System.currentTimeMillis() + 3000;
    while (System.currentTimeMillis() < quiet)
      for (KafkaShareConsumer<String, String> c : both) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        for (ConsumerRecord<String, String> r : recs) {
          unexpected++;
          c.acknowledge(r, AcknowledgeType.ACCEPT);
        }
        if (!recs.isEmpty()) c.commitSync();
      }
    int[] sorted = perConsumer.clone();
    java.util.Arrays.sort(sorted);
    System.out.println("obs together delivered=" + firstBy.size() + " per-consumer=" + sorted[0] + "," + sorted[1]
        + " unexpected=" + unexpected);
    System.out.println("obs accepted=" + accepted.size() + " rejected=" + rejected);
    System.out.println("obs released-then-redelivered=" + released);
    c1.close(Duration.ofSeconds(10));
    c2.close(Duration.ofSeconds(10));

    // (2) a stalled consumer's records go to the other after the acquisition lock duration
    final int m = 4;
    // the short lock for this group only: the first part keeps the broker's default, so a loaded
    // machine cannot time its records out between a poll and its acknowledgement
    setupWithLock("sq1", 1, String.valueOf(lockMs), "sg-lock");
    // a alone first, so b has no share fetch parked when the records arrive
    KafkaShareConsumer<String, String> a = consumer("sg-lock", "a", "sq1");
    awaitAssignment("sg-lock", 1, 1, List.of(a));
    produceOneBatch("sq1", m);
    // one poll acquires the batch; a then stops polling
    List<String> acquired = new ArrayList<>();
    deadline = System.currentTimeMillis() + 30_000;
    while (acquired.isEmpty()) {
      if (System.currentTimeMillis() > deadline) fail("the stalled consumer acquired nothing");
      for (ConsumerRecord<String, String> r : a.poll(Duration.ofMillis(200)))
        acquired.add(r.value() + "@" + count(r));
    }
    long t0 = System.currentTimeMillis();
    System.out.println("obs stalled acquired=" + acquired);
    KafkaShareConsumer<String, String> b = consumer("sg-lock", "b", "sq1");
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
    System.out.println("obs other got=" + got + " after-lock=" + (waited >= lockMs - 1000));
    System.err.println("other consumer waited " + waited + " ms");
    b.close(Duration.ofSeconds(10));
    a.close(Duration.ofSeconds(10));
  }

  static void partial(String topic, String group, int n, int accept) throws Exception {
    setup(topic, 1, group);
    produce(topic, n, 1);
    KafkaShareConsumer<String, String> c = consumer(group, "partial", topic);
    TreeSet<Integer> accepted = new TreeSet<>();
    List<Integer> unacked = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 60_000;
    // max.poll.records 5, one batch per record: the first <accept> are ACCEPTed, the rest of the last
    // poll stays acquired and unacknowledged
    while (accepted.size() < accept) {
      if (System.currentTimeMillis() > deadline) fail("partial: accepted " + accepted);
      ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : recs) {
        if (index(r) < accept) {
          c.acknowledge(r, AcknowledgeType.ACCEPT);
          accepted.add(index(r));
        } else unacked.add(index(r));
      }
      if (!recs.isEmpty()) c.commitSync();
    }
    System.out.println("obs partial unacknowledged=" + unacked);
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }

  static void drain(String topic, String group, int expect) throws Exception {
    KafkaShareConsumer<String, String> c = consumer(group, "drain", topic);
    TreeMap<Integer, Integer> got = new TreeMap<>();
    long deadline = System.currentTimeMillis() + 60_000;
    long quietUntil = Long.MAX_VALUE;
    while (System.currentTimeMillis() < Math.min(deadline, quietUntil)) {
      ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : recs) {
        got.merge(index(r), 1, Integer::sum);
        c.acknowledge(r, AcknowledgeType.ACCEPT);
      }
      if (!recs.isEmpty()) c.commitSync();
      if (got.size() >= expect && quietUntil == Long.MAX_VALUE) quietUntil = System.currentTimeMillis() + 3000;
    }
    System.out.println("obs drained=" + got.keySet() + " deliveries=" + got.values().stream().mapToInt(x -> x).sum());
    c.close(Duration.ofSeconds(10));
  }

  static void hold(String topic, String group, int n) throws Exception {
    setupWithLock(topic, 1, "60000", group);
    produceOneBatch(topic, n);
    KafkaShareConsumer<String, String> c = consumer(group, "hold", topic);
    List<String> held = new ArrayList<>();
    long deadline = System.currentTimeMillis() + 60_000;
    while (held.isEmpty()) {
      if (System.currentTimeMillis() > deadline) fail("hold: nothing acquired");
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) held.add(r.value() + "@" + count(r));
    }
    System.out.println("obs held=" + held);
    System.out.flush();
    Thread.sleep(120_000);
    fail("hold: not killed");
  }

  static void take(String topic, String group, int expect) throws Exception {
    long t0 = System.currentTimeMillis();
    KafkaShareConsumer<String, String> c = consumer(group, "take", topic);
    List<String> got = new ArrayList<>();
    long deadline = t0 + 90_000;
    while (got.size() < expect) {
      if (System.currentTimeMillis() > deadline) fail("take: got " + got);
      ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : recs) {
        got.add(r.value() + "@" + count(r));
        c.acknowledge(r, AcknowledgeType.ACCEPT);
      }
      if (!recs.isEmpty()) c.commitSync();
    }
    long waited = System.currentTimeMillis() - t0;
    System.out.println("obs took=" + got + " within-30s=" + (waited < 30_000));
    System.err.println("take waited " + waited + " ms");
    c.close(Duration.ofSeconds(10));
  }

  public static void main(String[] args) throws Exception {
    bootstrap = args[1];
    switch (args[0]) {
      case "scenario" -> scenario(Long.parseLong(args[2]));
      case "partial" -> partial(args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]));
      case "drain" -> drain(args[2], args[3], Integer.parseInt(args[4]));
      case "hold" -> hold(args[2], args[3], Integer.parseInt(args[4]));
      case "take" -> take(args[2], args[3], Integer.parseInt(args[4]));
      default -> fail("unknown mode " + args[0]);
    }
    System.exit(0);
  }
}
