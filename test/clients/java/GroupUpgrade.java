// The group-upgrade and group-downgrade scenarios of the java family (test/clients/README.md): a
// consumer group of three members is rolled one by one from group.protocol=classic to
// group.protocol=consumer (or back) while a producer writes a bounded numbered stream. Every member keeps a ledger (assignments, revocations, consumed
// offsets, with a monotonic clock); the checker then verifies that every produced record was consumed
// at least once and that no partition was owned by two members at any moment.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;

final class GroupUpgrade {
  static final int PARTITIONS = 6;
  static final int MAX_RECORDS = 10_000;

  /** One ledger line: what a member saw, when (System.nanoTime), in the order it saw it. */
  record Event(long t, String member, String kind, int partition, long offset) {}

  private final String bootstrap;
  private final String prefix;
  private final long deadline;
  private final List<Event> ledger = new ArrayList<>();
  private final String topic;
  private final String group;
  /** The protocol the members start with and the one they are rolled to. */
  private final String from;
  private final String to;

  GroupUpgrade(String bootstrap, String prefix, long deadline, String from, String to) {
    this.bootstrap = bootstrap;
    this.prefix = prefix;
    this.deadline = deadline;
    this.from = from;
    this.to = to;
    this.topic = prefix + "-t";
    this.group = prefix + "-g";
  }

  private synchronized void log(String member, String kind, int partition, long offset) {
    ledger.add(new Event(System.nanoTime(), member, kind, partition, offset));
  }

  private synchronized List<Event> snapshot() {
    return new ArrayList<>(ledger);
  }

  /** A member: its own consumer in its own thread, polling until stopped; closes (and leaves) on stop. */
  final class Member implements Runnable {
    final String name;
    final String protocol;
    final Set<Integer> owned = ConcurrentHashMap.newKeySet();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Thread thread;
    volatile long consumed;

    Member(String name, String protocol) {
      this.name = name;
      this.protocol = protocol;
      this.thread = new Thread(this, name);
      this.thread.setDaemon(true);
    }

    private KafkaConsumer<String, String> create() {
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("client.id", prefix + "-" + name);
      p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
      p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
      p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
      p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "200");
      if (protocol.equals("classic")) {
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "20000");
      }
      return new KafkaConsumer<>(p);
    }

    @Override
    public void run() {
      try (KafkaConsumer<String, String> c = create()) {
        c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> parts) {
            commit(c);
            for (TopicPartition tp : parts) {
              log(name, "revoke", tp.partition(), -1);
              owned.remove(tp.partition());
            }
          }

          @Override
          public void onPartitionsLost(Collection<TopicPartition> parts) {
            for (TopicPartition tp : parts) {
              log(name, "lost", tp.partition(), -1);
              owned.remove(tp.partition());
            }
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> parts) {
            for (TopicPartition tp : parts) {
              log(name, "assign", tp.partition(), -1);
              owned.add(tp.partition());
            }
          }
        });
        while (!stop.get()) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
            log(name, "record", r.partition(), r.offset());
            consumed++;
          }
          commit(c);
        }
        // close() revokes the partitions (the listener logs it) and leaves the group
      } catch (WakeupException e) {
        // stopping
      } catch (Throwable t) {
        failure.set(t);
      }
    }

    private void commit(KafkaConsumer<String, String> c) {
      try {
        c.commitSync(Duration.ofSeconds(10));
      } catch (Exception e) {
        // a commit refused during a rebalance only means the records may be delivered again
        log(name, "commit-failed", -1, -1);
      }
    }

    void start() {
      thread.start();
    }

    void stopAndJoin() throws InterruptedException {
      stop.set(true);
      thread.join(25_000);
      MatrixClient.check(!thread.isAlive(), "member " + name + " did not close within 25 s");
    }
  }

  private boolean await(long ms, BooleanSupplier cond) throws InterruptedException {
    long until = Math.min(deadline, System.currentTimeMillis() + ms);
    while (true) {
      if (cond.getAsBoolean()) return true;
      if (System.currentTimeMillis() >= until) return false;
      Thread.sleep(50);
    }
  }

  /** Every partition owned by exactly one live member, and each live member owns some. */
  private static boolean balanced(List<Member> live) {
    Set<Integer> all = new HashSet<>();
    int total = 0;
    for (Member m : live) {
      if (m.owned.isEmpty()) return false;
      all.addAll(m.owned);
      total += m.owned.size();
    }
    return all.size() == PARTITIONS && total == PARTITIONS;
  }

  void run(Admin admin, KafkaProducer<String, String> producer, MatrixClient.TopicCreator creator) throws Exception {
    creator.create(topic, PARTITIONS);
    // the producer writes a numbered stream until the roll is done (bounded in count and time)
    AtomicBoolean rolled = new AtomicBoolean();
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    AtomicReference<Throwable> producerFailure = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; i < MAX_RECORDS && !rolled.get() && System.currentTimeMillis() < deadline - 15_000; i++) {
          Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, "n" + i));
          synchronized (acks) {
            acks.add(f);
          }
          if (i % 10 == 9) Thread.sleep(50);
        }
        producer.flush();
      } catch (Throwable t) {
        producerFailure.set(t);
      }
    }, "writer");
    writer.setDaemon(true);
    writer.start();

    List<Member> live = new ArrayList<>();
    List<Member> everyone = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Member m = new Member(from + "-" + i, from);
      live.add(m);
      everyone.add(m);
      m.start();
    }
    MatrixClient.check(await(20_000, () -> balanced(live)), "the " + from + " group did not settle: " + owners(live));
    MatrixClient.check(
        await(10_000, () -> live.stream().allMatch(m -> m.consumed > 0)), "the " + from + " members consume nothing");

    for (int i = 1; i <= 3; i++) {
      Member old = live.get(0);
      old.stopAndJoin();
      live.remove(0);
      Member next = new Member(to + "-" + i, to);
      live.add(next);
      everyone.add(next);
      next.start();
      final int step = i;
      MatrixClient.check(
          await(25_000, () -> balanced(live)),
          "after rolling member " + step + " the group did not settle: " + owners(live));
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
      // a group with a consumer-protocol member is a consumer group; the last one leaving makes it classic again
      GroupType expected = to.equals("consumer") || step < 3 ? GroupType.CONSUMER : GroupType.CLASSIC;
      MatrixClient.checkEq(expected, d.type(), "group type after rolling member " + step);
      long before = next.consumed;
      MatrixClient.check(
          await(10_000, () -> next.consumed > before || !writer.isAlive()), "member " + next.name + " consumes nothing");
    }
    rolled.set(true);
    writer.join(20_000);
    if (producerFailure.get() != null) throw new RuntimeException("producer failed", producerFailure.get());

    // what was produced, by partition → offsets
    Map<Integer, Set<Long>> produced = new HashMap<>();
    synchronized (acks) {
      for (Future<RecordMetadata> f : acks) {
        RecordMetadata md = f.get(10, TimeUnit.SECONDS);
        produced.computeIfAbsent(md.partition(), k -> new HashSet<>()).add(md.offset());
      }
    }
    int total = produced.values().stream().mapToInt(Set::size).sum();
    MatrixClient.check(total > 0, "nothing was produced");
    MatrixClient.check(await(20_000, () -> missing(produced).isEmpty()), "records never consumed: " + describe(missing(produced)));
    for (Member m : live) m.stopAndJoin();
    for (Member m : everyone)
      if (m.failure.get() != null) throw new RuntimeException("member " + m.name + " failed", m.failure.get());

    String overlap = overlaps();
    MatrixClient.check(overlap == null, overlap == null ? "" : overlap);
    long records = snapshot().stream().filter(e -> e.kind().equals("record")).count();
    long commitsFailed = snapshot().stream().filter(e -> e.kind().equals("commit-failed")).count();
    System.out.println("report: ledger: produced " + total + " records, consumed " + records + " (" + (records - total)
        + " redelivered), " + intervals().size() + " ownership intervals, no overlap, " + commitsFailed
        + " commits refused during rebalances; members " + everyone.stream().map(m -> m.name).toList());
  }

  private static String owners(List<Member> live) {
    StringBuilder b = new StringBuilder();
    for (Member m : live) b.append(m.name).append('=').append(m.owned).append(' ');
    return b.toString().trim();
  }

  /** Produced (partition, offset) pairs that no member consumed. */
  private Map<Integer, Set<Long>> missing(Map<Integer, Set<Long>> produced) {
    Map<Integer, Set<Long>> left = new HashMap<>();
    for (Map.Entry<Integer, Set<Long>> e : produced.entrySet()) left.put(e.getKey(), new HashSet<>(e.getValue()));
    for (Event ev : snapshot()) {
      if (!ev.kind().equals("record")) continue;
      Set<Long> s = left.get(ev.partition());
      if (s != null) s.remove(ev.offset());
    }
    left.values().removeIf(Set::isEmpty);
    return left;
  }

  private static String describe(Map<Integer, Set<Long>> m) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<Integer, Set<Long>> e : m.entrySet())
      b.append("p").append(e.getKey()).append(": ").append(e.getValue().size()).append(" offsets; ");
    return b.toString();
  }

  /** An ownership interval of one partition by one member: [from, to] in nanoTime, to = MAX if never given up. */
  record Interval(String member, int partition, long from, long to) {}

  private List<Interval> intervals() {
    List<Interval> out = new ArrayList<>();
    Map<String, Long> open = new HashMap<>();
    for (Event e : snapshot()) {
      String key = e.member() + "/" + e.partition();
      switch (e.kind()) {
        case "assign" -> open.put(key, e.t());
        case "revoke", "lost" -> {
          Long from = open.remove(key);
          if (from != null) out.add(new Interval(e.member(), e.partition(), from, e.t()));
        }
        default -> {}
      }
    }
    for (Map.Entry<String, Long> o : open.entrySet()) {
      String[] parts = o.getKey().split("/");
      out.add(new Interval(parts[0], Integer.parseInt(parts[1]), o.getValue(), Long.MAX_VALUE));
    }
    return out;
  }

  /** The first pair of intervals of one partition held by two members at once, or null. */
  private String overlaps() {
    List<Interval> all = intervals();
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        Interval a = all.get(i);
        Interval b = all.get(j);
        if (a.partition() != b.partition() || a.member().equals(b.member())) continue;
        if (a.from() < b.to() && b.from() < a.to()) {
          return "partition " + a.partition() + " owned by " + a.member() + " and " + b.member() + " at once";
        }
      }
    }
    // and every record was consumed by a member while it owned the partition
    for (Event e : snapshot()) {
      if (!e.kind().equals("record")) continue;
      boolean inside = all.stream().anyMatch(
          iv -> iv.member().equals(e.member()) && iv.partition() == e.partition() && iv.from() <= e.t() && e.t() <= iv.to());
      if (!inside) return "member " + e.member() + " consumed p" + e.partition() + "@" + e.offset() + " without owning it";
    }
    return null;
  }
}
