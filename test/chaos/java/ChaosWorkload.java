// The chaos harness's workload (test/chaos/workload.ts runs it): Apache Kafka's Java client 4.4.0
// writing numbered records while faults happen, and reading everything back afterwards. It only
// records what the client observed, one line per event, in a history file the checker reads
// (test/chaos/history.ts):
//
//   create  <bootstrap> <topic> <partitions>                 RF=3, min.insync.replicas=2, unclean off
//   produce <bootstrap> <topic> <partitions> <seed> <history> <idempotent> <transactional> <maxMs>
//           runs until a line "stop" (or EOF) on stdin or maxMs, then completes every send (bounded)
//   consume <bootstrap> <topic> <partitions> <history> <transactional> <timeoutMs>
//           fences every transactional id (so no transaction stays open), then reads every partition
//           from the beginning to its last stable offset with isolation.level=read_committed
//
// History lines (space separated; a label names one producer instance, "i0g1" or "t0g2"):
//   A <label> <seq> <partition> <offset>          idempotent record acknowledged (acks=all)
//   F <label> <seq> <partition> <error>           idempotent record failed (not acknowledged)
//   T <label> <txn> <count>                       transaction begun with <count> records
//   TA <label> <txn> <k> <partition> <offset>     its record k acknowledged (before the outcome)
//   C|X|U <label> <txn>                           committed | aborted | outcome unknown
//   R <partition> <offset> <value>                record read (read_committed)
// Values: "<label>-<seq>" (idempotent), "<label>-<txn>-<k>" (transactional).
import java.io.BufferedReader;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public final class ChaosWorkload {
  private static PrintWriter history;

  static synchronized void log(String line) {
    history.println(line);
    history.flush();
  }

  static String errName(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t instanceof java.util.concurrent.ExecutionException) t = t.getCause();
    return t.getClass().getSimpleName();
  }

  static Properties producerProps(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
    p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
    p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "5000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) usage();
    String mode = args[0];
    String bootstrap = args[1];
    String topic = args[2];
    switch (mode) {
      case "create" -> create(bootstrap, topic, Integer.parseInt(args[3]));
      case "produce" -> produce(bootstrap, topic, Integer.parseInt(args[3]), Long.parseLong(args[4]), args[5],
          Integer.parseInt(args[6]), Integer.parseInt(args[7]), Long.parseLong(args[8]));
      case "consume" -> consume(bootstrap, topic, Integer.parseInt(args[3]), args[4], Integer.parseInt(args[5]),
          Long.parseLong(args[6]));
      default -> usage();
    }
    System.exit(0);
  }

  static void usage() {
    System.err.println("usage: ChaosWorkload create|produce|consume <bootstrap> <topic> ...");
    System.exit(2);
  }

  static void create(String bootstrap, String topic, int partitions) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      NewTopic t = new NewTopic(topic, partitions, (short) 3)
          .configs(Map.of("min.insync.replicas", "2", "unclean.leader.election.enable", "false"));
      try {
        admin.createTopics(List.of(t)).all().get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) throw e;
      }
    }
  }

  // ---- produce --------------------------------------------------------------------------------

  static void produce(String bootstrap, String topic, int partitions, long seed, String file, int idempotent,
      int transactional, long maxMs) throws Exception {
    history = new PrintWriter(new FileWriter(file, StandardCharsets.UTF_8, true));
    AtomicBoolean stop = new AtomicBoolean(false);
    long deadline = System.currentTimeMillis() + maxMs;
    Thread stdin = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) if (line.trim().equals("stop")) break;
      } catch (IOException ignored) {
        // EOF or a closed pipe: stop as well
      }
      stop.set(true);
    });
    stdin.setDaemon(true);
    stdin.start();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < idempotent; i++) {
      final int id = i;
      threads.add(new Thread(() -> idempotentLoop(bootstrap, topic, partitions, id, stop, deadline)));
    }
    for (int i = 0; i < transactional; i++) {
      final int id = i;
      final Random rnd = new Random(seed * 31 + i);
      threads.add(new Thread(() -> transactionalLoop(bootstrap, topic, partitions, id, rnd, stop, deadline)));
    }
    for (Thread t : threads) t.start();
    // bounded: every loop ends by maxMs, and completing what was sent takes at most ~delivery.timeout.ms
    for (Thread t : threads) t.join(maxMs + 180_000);
    boolean ended = true;
    for (Thread t : threads)
      if (t.isAlive()) {
        System.err.println("produce: thread " + t.getName() + " did not end (sends without an outcome)");
        ended = false;
      }
    history.close();
    if (!ended) System.exit(1);
    System.out.println("produce: done");
  }

  static void idempotentLoop(String bootstrap, String topic, int partitions, int id, AtomicBoolean stop,
      long deadline) {
    int gen = 0;
    long seq = 0;
    while (!stop.get() && System.currentTimeMillis() < deadline) {
      String label = "i" + id + "g" + gen++;
      Semaphore inFlight = new Semaphore(20);
      KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(bootstrap));
      try {
        while (!stop.get() && System.currentTimeMillis() < deadline) {
          if (!inFlight.tryAcquire(1, TimeUnit.SECONDS)) continue;
          final long s = seq++;
          final int part = (int) (s % partitions);
          try {
            p.send(new ProducerRecord<>(topic, part, null, label + "-" + s), (RecordMetadata md, Exception e) -> {
              if (e == null) log("A " + label + " " + s + " " + md.partition() + " " + md.offset());
              else log("F " + label + " " + s + " " + part + " " + errName(e));
              inFlight.release();
            });
          } catch (RuntimeException e) {
            // a fatal producer error: this instance is done, a new one takes over
            log("F " + label + " " + s + " " + part + " " + errName(e));
            inFlight.release();
            break;
          }
          Thread.sleep(8);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } finally {
        // waits for every send's callback (each ends by delivery.timeout.ms)
        p.close(Duration.ofSeconds(120));
      }
    }
  }

  static void transactionalLoop(String bootstrap, String topic, int partitions, int id, Random rnd,
      AtomicBoolean stop, long deadline) {
    int gen = 0;
    long txn = 0;
    while (!stop.get() && System.currentTimeMillis() < deadline) {
      String label = "t" + id + "g" + gen++;
      Properties props = producerProps(bootstrap);
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "chaos-txn-" + id);
      props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "10000");
      KafkaProducer<String, String> p = new KafkaProducer<>(props);
      try {
        p.initTransactions();
      } catch (RuntimeException e) {
        p.close(Duration.ofSeconds(10));
        sleepQuietly(500);
        continue;
      }
      try {
        while (!stop.get() && System.currentTimeMillis() < deadline) {
          long t = txn++;
          int count = 2 + rnd.nextInt(4);
          boolean abort = rnd.nextInt(4) == 0;
          log("T " + label + " " + t + " " + count);
          List<Future<RecordMetadata>> sent = new ArrayList<>();
          try {
            p.beginTransaction();
            for (int k = 0; k < count; k++)
              sent.add(p.send(new ProducerRecord<>(topic, rnd.nextInt(partitions), null, label + "-" + t + "-" + k)));
            if (abort) {
              p.abortTransaction();
              log("X " + label + " " + t);
            } else {
              p.commitTransaction();
              for (int k = 0; k < count; k++) {
                RecordMetadata md = sent.get(k).get(1, TimeUnit.SECONDS);
                log("TA " + label + " " + t + " " + k + " " + md.partition() + " " + md.offset());
              }
              log("C " + label + " " + t);
            }
          } catch (Exception e) {
            // whether the coordinator committed is unknown; a new instance (initTransactions) settles it
            log("U " + label + " " + t + " " + errName(e));
            break;
          }
          Thread.sleep(20);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } finally {
        p.close(Duration.ofSeconds(60));
      }
    }
  }

  static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- consume --------------------------------------------------------------------------------

  static void consume(String bootstrap, String topic, int partitions, String file, int transactional,
      long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    // Fence every transactional id: initTransactions completes or aborts whatever it left open.
    for (int i = 0; i < transactional; i++) {
      Properties props = producerProps(bootstrap);
      props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "chaos-txn-" + i);
      for (int attempt = 0; ; attempt++) {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(props)) {
          p.initTransactions();
          break;
        } catch (RuntimeException e) {
          if (attempt >= 10 || System.currentTimeMillis() > deadline) throw e;
          sleepQuietly(1000);
        }
      }
    }
    history = new PrintWriter(new FileWriter(file, StandardCharsets.UTF_8, true));
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) tps.add(new TopicPartition(topic, i));
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      // the last stable offset, once no transaction is open (it equals the high watermark then)
      Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(tps, Duration.ofSeconds(30)));
      long read = 0;
      while (true) {
        boolean done = true;
        for (TopicPartition tp : tps) if (consumer.position(tp, Duration.ofSeconds(30)) < end.get(tp)) done = false;
        if (done) break;
        if (System.currentTimeMillis() > deadline) {
          System.err.println("consume: timed out at " + read + " records; end offsets " + end);
          System.exit(1);
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
          history.println("R " + r.partition() + " " + r.offset() + " " + r.value());
          read++;
        }
      }
      history.close();
      System.out.println("consume: " + read + " records, end offsets " + end);
    }
  }
}
