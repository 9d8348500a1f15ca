// The java family of the client matrix (test/clients/README.md): Apache Kafka's Java client
// (kafka-clients 4.4.0) runs one scenario against the bootstrap given.
//
//   java -cp .cache/clients/java/classes:.cache/clients/java/lib/* MatrixClient <scenario> <bootstrap>
//
// Exit 0: pass; 3: n/a; anything else: fail (what went wrong on stderr). Every topic, group and
// transactional id starts with m-java-<scenario>-<random>. Every wait is bounded; a watchdog ends
// the JVM after 60 s.
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SaslExtensionsCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.internals.AppInfoParser;

public final class MatrixClient {
  /** A failed check: the scenario fails with this message. */
  static final class CheckFailed extends RuntimeException {
    CheckFailed(String message) {
      super(message);
    }
  }

  static final long SCENARIO_LIMIT_MS = 60_000;
  /** txn-v2 runs 1,000 transactions: its own limit (the runner allows it more time too). */
  static final long TXN_V2_LIMIT_MS = 240_000;

  static long limitOf(String scenario) {
    return scenario.equals("txn-v2") ? TXN_V2_LIMIT_MS : SCENARIO_LIMIT_MS;
  }

  private final String scenario;
  private final String bootstrap;
  private final String prefix;
  private final long deadline;

  private MatrixClient(String scenario, String bootstrap) {
    this.scenario = scenario;
    this.bootstrap = bootstrap;
    this.prefix = "m-java-" + scenario + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.deadline = System.currentTimeMillis() + limitOf(scenario) - 5_000;
  }

  public static void main(String[] args) {
    if (args.length < 1 || (!args[0].equals("version") && args.length < 2)) {
      System.err.println("usage: MatrixClient <scenario> <bootstrap>");
      System.exit(2);
    }
    if (args[0].equals("version")) {
      System.out.println("kafka-clients " + AppInfoParser.getVersion());
      System.exit(0);
    }
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(limitOf(args[0]));
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("timeout: scenario " + args[0] + " did not finish in " + limitOf(args[0]) / 1000 + " s");
      Runtime.getRuntime().halt(1);
    });
    watchdog.setDaemon(true);
    watchdog.start();
    int code;
    try {
      code = new MatrixClient(args[0], args[1]).run();
    } catch (CheckFailed e) {
      System.err.println("check failed: " + e.getMessage());
      code = 1;
    } catch (Throwable e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      System.err.println("error: " + cause);
      cause.printStackTrace(System.err);
      code = 1;
    }
    System.out.flush();
    System.err.flush();
    // halt: a client's non-daemon threads must not keep a failed run alive.
    Runtime.getRuntime().halt(code);
  }

  private int run() throws Exception {
    switch (scenario) {
      case "metadata-named":
        metadataNamed();
        return 0;
      case "metadata-all":
        metadataAll();
        return 0;
      case "admin-topics":
        adminTopics();
        return 0;
      case "admin-configs":
        adminConfigs();
        return 0;
      case "produce-consume":
        produceConsume();
        return 0;
      case "idempotent":
        idempotent();
        return 0;
      case "group-classic":
        group("classic");
        return 0;
      case "group-consumer":
        group("consumer");
        return 0;
      case "group-upgrade":
        groupRoll("classic", "consumer");
        return 0;
      case "group-downgrade":
        groupRoll("consumer", "classic");
        return 0;
      case "transactions":
        transactions();
        return 0;
      case "txn-v2":
        txnV2();
        return 0;
      case "list-offsets-time":
        listOffsetsTime();
        return 0;
      case "delete-records":
        deleteRecords();
        return 0;
      case "sasl-plain":
      case "sasl-scram-256":
      case "sasl-scram-512":
      case "sasl-ssl-scram-512":
      case "ssl-mtls":
      case "sasl-oauthbearer":
        security();
        return 0;
      default:
        System.err.println("unknown scenario: " + scenario);
        return 2;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  /** Creates a topic and waits until the broker describes it (GroupUpgrade's access to createTopic). */
  interface TopicCreator {
    void create(String topic, int partitions) throws Exception;
  }

  /** A group of 3 rolled from one rebalance protocol to the other, checked by a ledger (GroupUpgrade.java). */
  private void groupRoll(String from, String to) throws Exception {
    try (Admin admin = admin(); KafkaProducer<String, String> producer = producer(Map.of("acks", "all"))) {
      new GroupUpgrade(bootstrap, prefix, deadline, from, to)
          .run(admin, producer, (t, n) -> createTopic(admin, t, n, null));
    }
  }

  static void check(boolean ok, String message) {
    if (!ok) throw new CheckFailed(message);
  }

  static void checkEq(Object expected, Object actual, String what) {
    if (expected == null ? actual != null : !expected.equals(actual)) {
      throw new CheckFailed(what + ": expected " + expected + ", got " + actual);
    }
  }

  /** Time left before the scenario's own deadline (ms, at least 1). */
  private long left() {
    return Math.max(1, deadline - System.currentTimeMillis());
  }

  /** Polls `cond` every 100 ms until it holds or `ms` (bounded by the scenario deadline) pass. */
  private boolean await(long ms, BooleanSupplier cond) throws InterruptedException {
    long until = Math.min(deadline, System.currentTimeMillis() + ms);
    while (true) {
      if (cond.getAsBoolean()) return true;
      if (System.currentTimeMillis() >= until) return false;
      Thread.sleep(100);
    }
  }

  private Properties base() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", prefix);
    p.put("request.timeout.ms", "15000");
    p.put("reconnect.backoff.max.ms", "1000");
    p.putAll(security(System.getenv("TKAFKA_MATRIX_SASL_PASSWORD"), true));
    return p;
  }

  /**
   * The runner's TKAFKA_MATRIX_* settings (README, "Security scenarios") as client properties, empty
   * when they are not set; {@code password} replaces the right one and clientCert=false leaves the
   * client certificate out (the negative cases). PEM files: ssl.truststore.type=PEM, and the client's
   * key and certificate inline (ssl.keystore.key / ssl.keystore.certificate.chain).
   */
  private static Properties security(String password, boolean clientCert) {
    Properties p = new Properties();
    String protocol = System.getenv("TKAFKA_MATRIX_SECURITY_PROTOCOL");
    if (protocol == null || protocol.isEmpty()) return p;
    p.put("security.protocol", protocol);
    String mechanism = System.getenv("TKAFKA_MATRIX_SASL_MECHANISM");
    if ("OAUTHBEARER".equals(mechanism)) {
      // Kafka's unsecured login: an unsecured JWS (alg none) with sub = the user, exp in an hour
      p.put("sasl.mechanism", mechanism);
      p.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
          + " unsecuredLoginStringClaim_sub=\"" + System.getenv("TKAFKA_MATRIX_SASL_USERNAME") + "\";");
    } else if (mechanism != null && !mechanism.isEmpty()) {
      String user = System.getenv("TKAFKA_MATRIX_SASL_USERNAME");
      String module = mechanism.equals("PLAIN")
          ? "org.apache.kafka.common.security.plain.PlainLoginModule"
          : "org.apache.kafka.common.security.scram.ScramLoginModule";
      p.put("sasl.mechanism", mechanism);
      p.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
    }
    String ca = System.getenv("TKAFKA_MATRIX_CA_FILE");
    if (ca != null && !ca.isEmpty()) {
      p.put("ssl.truststore.type", "PEM");
      p.put("ssl.truststore.location", ca);
    }
    String cert = System.getenv("TKAFKA_MATRIX_CERT_FILE");
    if (clientCert && cert != null && !cert.isEmpty()) {
      try {
        p.put("ssl.keystore.type", "PEM");
        p.put("ssl.keystore.certificate.chain", java.nio.file.Files.readString(java.nio.file.Path.of(cert)));
        p.put("ssl.keystore.key",
            java.nio.file.Files.readString(java.nio.file.Path.of(System.getenv("TKAFKA_MATRIX_KEY_FILE"))));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return p;
  }

  /** Through the secured listener: create a topic, 10 keyed records there and back; the refused client fails. */
  private void security() throws Exception {
    String topic = prefix;
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = admin()) {
      createTopic(admin, topic, 1, null);
    }
    List<ProducerRecord<String, String>> rs = new ArrayList<>();
    for (int i = 0; i < 10; i++) rs.add(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
    try (KafkaProducer<String, String> p = producer(Map.of())) {
      sendAll(p, rs);
    }
    try (KafkaConsumer<String, String> c = consumer(Map.of())) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<ConsumerRecord<String, String>> got = pollN(c, 10, 20_000);
      checkEq(10, got.size(), "records read back");
      for (int i = 0; i < 10; i++) {
        checkEq("k" + i, got.get(i).key(), "key " + i);
        checkEq("v" + i, got.get(i).value(), "value " + i);
      }
    }
    boolean sasl = System.getenv("TKAFKA_MATRIX_SASL_MECHANISM") != null
        && !System.getenv("TKAFKA_MATRIX_SASL_MECHANISM").isEmpty();
    Properties bad = new Properties();
    bad.put("bootstrap.servers", bootstrap);
    bad.put("client.id", prefix + "-refused");
    bad.put("request.timeout.ms", "15000");
    bad.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    bad.putAll(sasl ? security(System.getenv("TKAFKA_MATRIX_SASL_PASSWORD") + "-wrong", true) : security(null, false));
    if ("OAUTHBEARER".equals(System.getenv("TKAFKA_MATRIX_SASL_MECHANISM"))) {
      // an expired token (ExpiredTokenHandler) instead of the unsecured login's
      bad.put("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
      bad.put("sasl.login.callback.handler.class", ExpiredTokenHandler.class.getName());
    }
    try (Admin admin = Admin.create(bad)) {
      String id = admin.describeCluster().clusterId().get(25, TimeUnit.SECONDS);
      throw new CheckFailed(
          "the refused client (wrong password / expired token / no client certificate) got the cluster id " + id);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      Class<?> want = sasl ? org.apache.kafka.common.errors.SaslAuthenticationException.class
          : org.apache.kafka.common.errors.SslAuthenticationException.class;
      check(want.isInstance(cause), "the refused client failed with " + cause + ", want " + want.getSimpleName());
      String msg = String.valueOf(cause.getMessage());
      System.out.println("report: refused: " + cause.getClass().getSimpleName() + ": "
          + msg.substring(0, Math.min(160, msg.length())));
    }
  }

  /**
   * The refused OAUTHBEARER client's login callback handler: an unsecured JWS of the matrix user whose
   * exp claim is 10 minutes past. The token's lifetime as the client sees it is an hour ahead, so
   * that the login keeps it and the client sends it: the broker's validator must refuse it.
   */
  public static final class ExpiredTokenHandler implements AuthenticateCallbackHandler {
    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {}

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
      for (Callback cb : callbacks) {
        if (cb instanceof OAuthBearerTokenCallback tc) {
          long now = System.currentTimeMillis();
          String sub = System.getenv("TKAFKA_MATRIX_SASL_USERNAME");
          java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
          String claims = "{\"sub\":\"" + sub + "\",\"iat\":" + (now / 1000 - 3600)
              + ",\"exp\":" + (now / 1000 - 600) + "}";
          String jws = b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
              + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + ".";
          tc.token(new OAuthBearerToken() {
            @Override
            public String value() {
              return jws;
            }

            @Override
            public Set<String> scope() {
              return Set.of();
            }

            @Override
            public long lifetimeMs() {
              return now + 3_600_000;
            }

            @Override
            public String principalName() {
              return sub;
            }

            @Override
            public Long startTimeMs() {
              return now;
            }
          });
        } else if (!(cb instanceof SaslExtensionsCallback)) {
          throw new UnsupportedCallbackException(cb);
        }
      }
    }

    @Override
    public void close() {}
  }

  private Admin admin() {
    Properties p = base();
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    return Admin.create(p);
  }

  private KafkaProducer<String, String> producer(Map<String, String> extra) {
    Properties p = base();
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.putAll(extra);
    return new KafkaProducer<>(p);
  }

  private KafkaConsumer<String, String> consumer(Map<String, String> extra) {
    Properties p = base();
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    p.putAll(extra);
    return new KafkaConsumer<>(p);
  }

  private void createTopic(Admin admin, String topic, int partitions, Map<String, String> configs) throws Exception {
    NewTopic nt = new NewTopic(topic, partitions, (short) 1);
    if (configs != null) nt.configs(configs);
    admin.createTopics(List.of(nt)).all().get(30, TimeUnit.SECONDS);
    // Kafka answers once the controller committed the topic; wait (bounded) until the broker knows it.
    boolean known = await(10_000, () -> {
      try {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        return d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null);
      } catch (Exception e) {
        if (e instanceof ExecutionException && e.getCause() instanceof UnknownTopicOrPartitionException) return false;
        throw new RuntimeException(e);
      }
    });
    check(known, "created topic " + topic + " is not described with " + partitions + " partitions and leaders");
  }

  /** Polls an assigned consumer until `n` records arrived (or the time is up); returns them. */
  private List<ConsumerRecord<String, String>> pollN(KafkaConsumer<String, String> c, int n, long ms) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    long until = Math.min(deadline, System.currentTimeMillis() + ms);
    while (out.size() < n && System.currentTimeMillis() < until) {
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) out.add(r);
    }
    return out;
  }

  /** Sends and waits for every ack; returns the acks in send order. */
  private static List<RecordMetadata> sendAll(KafkaProducer<String, String> p, List<ProducerRecord<String, String>> rs)
      throws Exception {
    List<Future<RecordMetadata>> fs = new ArrayList<>();
    for (ProducerRecord<String, String> r : rs) fs.add(p.send(r));
    p.flush();
    List<RecordMetadata> out = new ArrayList<>();
    for (Future<RecordMetadata> f : fs) out.add(f.get(30, TimeUnit.SECONDS));
    return out;
  }

  private static String str(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------------------------------------
  // Scenarios

  /** A 3-partition topic; a Metadata request for it by name (the consumer's partitionsFor). */
  private void metadataNamed() throws Exception {
    String topic = prefix;
    try (Admin admin = admin()) {
      createTopic(admin, topic, 3, null);
      Collection<Node> nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
      Set<Integer> ids = new HashSet<>();
      for (Node n : nodes) ids.add(n.id());
      check(!ids.isEmpty(), "describeCluster listed no broker");
      try (KafkaConsumer<String, String> c = consumer(Map.of())) {
        List<PartitionInfo> parts = new ArrayList<>();
        boolean ok = await(20_000, () -> {
          parts.clear();
          List<PartitionInfo> ps = c.partitionsFor(topic, Duration.ofMillis(left()));
          if (ps != null) parts.addAll(ps);
          return parts.size() == 3 && parts.stream().allMatch(pi -> pi.leader() != null && !pi.leader().isEmpty());
        });
        check(ok, "partitionsFor(" + topic + ") never showed 3 partitions with leaders: " + parts);
        Set<Integer> seen = new TreeSet<>();
        for (PartitionInfo pi : parts) {
          checkEq(topic, pi.topic(), "topic of partition");
          seen.add(pi.partition());
          check(ids.contains(pi.leader().id()), "leader " + pi.leader() + " is not a broker of " + ids);
          checkEq(1, pi.replicas().length, "replicas of partition " + pi.partition());
          checkEq(1, pi.inSyncReplicas().length, "ISR of partition " + pi.partition());
        }
        checkEq(Set.of(0, 1, 2), seen, "partition ids");
        // The leader's address is the bootstrap's (single node, advertised on 127.0.0.1).
        Node leader = parts.get(0).leader();
        checkEq(bootstrap, leader.host() + ":" + leader.port(), "leader address");
      }
      // Admin's describeTopics (Metadata or DescribeTopicPartitions by name) agrees.
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      checkEq(3, d.partitions().size(), "describeTopics partitions");
      for (TopicPartitionInfo tpi : d.partitions()) {
        check(tpi.leader() != null && ids.contains(tpi.leader().id()), "describeTopics leader of " + tpi);
      }
      check(!d.isInternal(), "topic reported internal");
    }
  }

  /** A topic; Metadata for all topics (consumer.listTopics and admin.listTopics) lists it. */
  private void metadataAll() throws Exception {
    String topic = prefix;
    try (Admin admin = admin()) {
      createTopic(admin, topic, 1, null);
      try (KafkaConsumer<String, String> c = consumer(Map.of())) {
        Map<String, List<PartitionInfo>> all = new HashMap<>();
        boolean ok = await(20_000, () -> {
          all.clear();
          all.putAll(c.listTopics(Duration.ofMillis(left())));
          return all.containsKey(topic) && all.get(topic).size() == 1;
        });
        check(ok, "consumer.listTopics() does not list " + topic + " with 1 partition: " + all.keySet());
      }
      Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      check(names.contains(topic), "admin.listTopics() does not list " + topic);
    }
  }

  /** Create (2 partitions + a config), describe (partitions, config), delete, gone. */
  private void adminTopics() throws Exception {
    String topic = prefix;
    try (Admin admin = admin()) {
      createTopic(admin, topic, 2, Map.of("retention.ms", "7200000", "cleanup.policy", "compact"));
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
      checkEq(topic, d.name(), "described name");
      checkEq(2, d.partitions().size(), "partition count");
      check(d.topicId() != null && !d.topicId().toString().equals("AAAAAAAAAAAAAAAAAAAAAA"), "no topic id");
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config cfg = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
      ConfigEntry ret = cfg.get("retention.ms");
      check(ret != null, "retention.ms not described");
      checkEq("7200000", ret.value(), "retention.ms");
      checkEq(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, ret.source(), "retention.ms source");
      checkEq("compact", cfg.get("cleanup.policy").value(), "cleanup.policy");
      ConfigEntry seg = cfg.get("segment.bytes");
      check(seg != null && seg.source() != ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, "segment.bytes: " + seg);

      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      boolean gone = await(20_000, () -> {
        try {
          return !admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic);
        } catch (Exception e) {
          return false;
        }
      });
      check(gone, "deleted topic " + topic + " is still listed");
      try {
        admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
        throw new CheckFailed("describeTopics of the deleted topic succeeded");
      } catch (ExecutionException e) {
        check(e.getCause() instanceof UnknownTopicOrPartitionException, "describe after delete: " + e.getCause());
      }
    }
  }

  /** Describe a topic's configs, alter retention.ms incrementally, read back; then delete it back to default. */
  private void adminConfigs() throws Exception {
    String topic = prefix;
    try (Admin admin = admin()) {
      createTopic(admin, topic, 1, null);
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config before = admin.describeConfigs(List.of(res)).all().get(30, TimeUnit.SECONDS).get(res);
      ConfigEntry ret = before.get("retention.ms");
      check(ret != null, "retention.ms not described");
      checkEq("604800000", ret.value(), "default retention.ms");
      checkEq(ConfigEntry.ConfigSource.DEFAULT_CONFIG, ret.source(), "default retention.ms source");
      check(before.entries().size() > 20, "only " + before.entries().size() + " topic configs described");

      AlterConfigOp set = new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(res, List.of(set))).all().get(30, TimeUnit.SECONDS);
      ConfigEntry after = awaitConfig(admin, res, "retention.ms", "3600000");
      checkEq("3600000", after.value(), "retention.ms after SET");
      checkEq(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, after.source(), "source after SET");

      AlterConfigOp del = new AlterConfigOp(new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE);
      admin.incrementalAlterConfigs(Map.of(res, List.of(del))).all().get(30, TimeUnit.SECONDS);
      ConfigEntry reset = awaitConfig(admin, res, "retention.ms", "604800000");
      checkEq("604800000", reset.value(), "retention.ms after DELETE");
      checkEq(ConfigEntry.ConfigSource.DEFAULT_CONFIG, reset.source(), "source after DELETE");
    }
  }

  /**
   * Describes `key` until it has `value` (bounded): Kafka answers an alteration once the controller
   * committed it, and the broker that describes may apply it a moment later. Returns the last entry.
   */
  private ConfigEntry awaitConfig(Admin admin, ConfigResource res, String key, String value) throws Exception {
    ConfigEntry[] last = new ConfigEntry[1];
    await(10_000, () -> {
      try {
        last[0] = admin.describeConfigs(List.of(res)).all().get(10, TimeUnit.SECONDS).get(res).get(key);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
      return last[0] != null && value.equals(last[0].value());
    });
    check(last[0] != null, key + " not described");
    return last[0];
  }

  /** For each codec: 100 records with keys, 2 headers and explicit timestamps, read back by assignment. */
  private void produceConsume() throws Exception {
    String[] codecs = {"none", "gzip", "snappy", "lz4", "zstd"};
    long t0 = System.currentTimeMillis() - 3_600_000L;
    try (Admin admin = admin()) {
      for (String codec : codecs) {
        String topic = prefix + "-" + codec;
        createTopic(admin, topic, 1, null);
        List<ProducerRecord<String, String>> rs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          List<Header> hs = List.of(
              new RecordHeader("h1", ("one-" + i).getBytes(StandardCharsets.UTF_8)),
              // Every 10th record's second header has a null value (length -1 on the wire).
              new RecordHeader("h2", i % 10 == 9 ? null : ("two-" + codec + "-" + i).getBytes(StandardCharsets.UTF_8)));
          String value = codec + "-value-" + i + "-" + "x".repeat(i);
          rs.add(new ProducerRecord<>(topic, 0, t0 + i * 7L, "key-" + i, value, hs));
        }
        try (KafkaProducer<String, String> p = producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec))) {
          List<RecordMetadata> acks = sendAll(p, rs);
          for (int i = 0; i < 100; i++) {
            checkEq((long) i, acks.get(i).offset(), codec + ": ack offset of record " + i);
            checkEq(t0 + i * 7L, acks.get(i).timestamp(), codec + ": ack timestamp of record " + i);
          }
        }
        try (KafkaConsumer<String, String> c = consumer(Map.of())) {
          TopicPartition tp = new TopicPartition(topic, 0);
          c.assign(List.of(tp));
          c.seekToBeginning(List.of(tp));
          List<ConsumerRecord<String, String>> got = pollN(c, 100, 20_000);
          checkEq(100, got.size(), codec + ": records read back");
          for (int i = 0; i < 100; i++) {
            ConsumerRecord<String, String> r = got.get(i);
            ProducerRecord<String, String> w = rs.get(i);
            checkEq((long) i, r.offset(), codec + ": offset");
            checkEq(w.key(), r.key(), codec + ": key of " + i);
            checkEq(w.value(), r.value(), codec + ": value of " + i);
            checkEq(w.timestamp(), r.timestamp(), codec + ": timestamp of " + i);
            checkEq(TimestampType.CREATE_TIME, r.timestampType(), codec + ": timestamp type of " + i);
            checkEq(w.key().length(), r.serializedKeySize(), codec + ": serialized key size of " + i);
            checkEq(w.value().length(), r.serializedValueSize(), codec + ": serialized value size of " + i);
            Header[] hs = r.headers().toArray();
            checkEq(2, hs.length, codec + ": header count of " + i);
            for (int h = 0; h < 2; h++) {
              Header e = w.headers().toArray()[h];
              checkEq(e.key(), hs[h].key(), codec + ": header key " + h + " of " + i);
              checkEq(str(e.value()), str(hs[h].value()), codec + ": header value " + h + " of " + i);
            }
          }
        }
      }
    }
  }

  /** An idempotent producer (acks=all): 1000 records, read back exactly 1000 in order. */
  private void idempotent() throws Exception {
    String topic = prefix;
    int n = 1000;
    try (Admin admin = admin()) {
      createTopic(admin, topic, 1, null);
    }
    List<ProducerRecord<String, String>> rs = new ArrayList<>();
    for (int i = 0; i < n; i++) rs.add(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
    Map<String, String> cfg = Map.of(
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
        ProducerConfig.ACKS_CONFIG, "all",
        "max.in.flight.requests.per.connection", "5",
        ProducerConfig.BATCH_SIZE_CONFIG, "2048");
    try (KafkaProducer<String, String> p = producer(cfg)) {
      List<RecordMetadata> acks = sendAll(p, rs);
      for (int i = 0; i < n; i++) checkEq((long) i, acks.get(i).offset(), "ack offset of record " + i);
    }
    try (KafkaConsumer<String, String> c = consumer(Map.of())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<ConsumerRecord<String, String>> got = pollN(c, n, 20_000);
      checkEq(n, got.size(), "records read back");
      for (int i = 0; i < n; i++) {
        checkEq("v" + i, got.get(i).value(), "value at " + i);
        checkEq((long) i, got.get(i).offset(), "offset at " + i);
      }
      checkEq((long) n, c.endOffsets(List.of(tp)).get(tp), "end offset");
      checkEq(0, c.poll(Duration.ofMillis(300)).count(), "records past the 1000th");
    }
  }

  /**
   * Two members of one group (classic or KIP-848 consumer protocol) over 4 partitions: disjoint
   * assignments covering all, everything consumed and committed; then a new member resumes from the
   * committed offsets.
   */
  private void group(String protocol) throws Exception {
    String topic = prefix;
    String group = prefix + "-g";
    int parts = 4;
    int perPart = 10;
    Set<TopicPartition> all = new HashSet<>();
    for (int i = 0; i < parts; i++) all.add(new TopicPartition(topic, i));
    try (Admin admin = admin()) {
      createTopic(admin, topic, parts, null);
    }
    Map<String, String> cc = new HashMap<>();
    cc.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    cc.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    if (protocol.equals("classic")) {
      cc.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
      cc.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
    }
    Map<TopicPartition, Set<Long>> consumed = new HashMap<>();
    try (KafkaConsumer<String, String> c1 = consumer(cc); KafkaConsumer<String, String> c2 = consumer(cc)) {
      c1.subscribe(List.of(topic));
      c2.subscribe(List.of(topic));
      // 1. Both members hold partitions: disjoint, covering all four.
      long until = Math.min(deadline, System.currentTimeMillis() + 40_000);
      boolean stable = false;
      while (System.currentTimeMillis() < until) {
        c1.poll(Duration.ofMillis(100));
        c2.poll(Duration.ofMillis(100));
        Set<TopicPartition> a1 = c1.assignment();
        Set<TopicPartition> a2 = c2.assignment();
        Set<TopicPartition> union = new HashSet<>(a1);
        union.addAll(a2);
        if (!a1.isEmpty() && !a2.isEmpty() && union.size() == a1.size() + a2.size() && union.equals(all)) {
          stable = true;
          break;
        }
      }
      check(stable, "no stable two-member assignment: c1=" + c1.assignment() + " c2=" + c2.assignment());
      Set<TopicPartition> a1 = new HashSet<>(c1.assignment());
      Set<TopicPartition> a2 = new HashSet<>(c2.assignment());
      describeGroup(group, protocol, List.of(a1, a2));

      // 2. Produce 10 records per partition; both members consume them all, from their own partitions.
      List<ProducerRecord<String, String>> rs = new ArrayList<>();
      for (int p = 0; p < parts; p++) {
        for (int i = 0; i < perPart; i++) rs.add(new ProducerRecord<>(topic, p, "k" + i, "p" + p + "-" + i));
      }
      try (KafkaProducer<String, String> p = producer(Map.of())) {
        sendAll(p, rs);
      }
      int total = 0;
      until = Math.min(deadline, System.currentTimeMillis() + 20_000);
      while (total < parts * perPart && System.currentTimeMillis() < until) {
        for (KafkaConsumer<String, String> c : List.of(c1, c2)) {
          Set<TopicPartition> mine = c == c1 ? a1 : a2;
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            check(mine.contains(tp), "a member got a record of " + tp + " outside its assignment " + mine);
            checkEq("p" + r.partition() + "-" + r.offset(), r.value(), "value at " + tp + "@" + r.offset());
            boolean fresh = consumed.computeIfAbsent(tp, k -> new HashSet<>()).add(r.offset());
            check(fresh, "duplicate " + tp + "@" + r.offset());
            total++;
          }
        }
      }
      checkEq(parts * perPart, total, "records consumed by the two members");
      checkEq(a1, c1.assignment(), "c1's assignment changed while consuming");
      checkEq(a2, c2.assignment(), "c2's assignment changed while consuming");
      c1.commitSync(Duration.ofSeconds(20));
      c2.commitSync(Duration.ofSeconds(20));
      Map<TopicPartition, OffsetAndMetadata> committed = c1.committed(all, Duration.ofSeconds(20));
      for (TopicPartition tp : all) {
        OffsetAndMetadata om = committed.get(tp);
        check(om != null && om.offset() == perPart, "committed offset of " + tp + ": " + om);
      }
    }
    // 3. Both left; the group's offsets stay. Produce 2 more per partition; a new member resumes.
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetAndMetadata> offs =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      for (TopicPartition tp : all) {
        OffsetAndMetadata om = offs.get(tp);
        check(om != null && om.offset() == perPart, "group offset of " + tp + " after both left: " + om);
      }
    }
    List<ProducerRecord<String, String>> more = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      for (int i = perPart; i < perPart + 2; i++) more.add(new ProducerRecord<>(topic, p, "k" + i, "p" + p + "-" + i));
    }
    try (KafkaProducer<String, String> p = producer(Map.of())) {
      sendAll(p, more);
    }
    try (KafkaConsumer<String, String> c3 = consumer(cc)) {
      c3.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> got = pollN(c3, parts * 2, 40_000);
      checkEq(parts * 2, got.size(), "records the new member got");
      for (ConsumerRecord<String, String> r : got) {
        check(r.offset() >= perPart, "re-delivered " + r.topic() + "-" + r.partition() + "@" + r.offset());
        checkEq("p" + r.partition() + "-" + r.offset(), r.value(), "value");
      }
      checkEq(all, c3.assignment(), "the new member's assignment");
      checkEq(0, c3.poll(Duration.ofMillis(300)).count(), "records past the new ones");
      c3.commitSync(Duration.ofSeconds(20));
      Map<TopicPartition, OffsetAndMetadata> committed = c3.committed(all, Duration.ofSeconds(20));
      for (TopicPartition tp : all) checkEq((long) perPart + 2, committed.get(tp).offset(), "final offset of " + tp);
    }
  }

  /**
   * The admin's view of a group with live members: its type, state, assignor, and each member's
   * assignment (as the members see it). Polled until it agrees (the members' last heartbeats may lag).
   */
  private void describeGroup(String group, String protocol, List<Set<TopicPartition>> assignments) throws Exception {
    Set<Set<TopicPartition>> want = new HashSet<>(assignments);
    ConsumerGroupDescription[] last = new ConsumerGroupDescription[1];
    try (Admin admin = admin()) {
      boolean ok = await(15_000, () -> {
        try {
          ConsumerGroupDescription d =
              admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
          last[0] = d;
          Set<Set<TopicPartition>> got = new HashSet<>();
          for (MemberDescription m : d.members()) got.add(m.assignment().topicPartitions());
          return d.groupState() == GroupState.STABLE && d.members().size() == assignments.size() && got.equals(want);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      ConsumerGroupDescription d = last[0];
      check(ok, "describeConsumerGroups never showed the members' assignments " + want + ": " + d);
      checkEq(group, d.groupId(), "described group id");
      checkEq(protocol.equals("classic") ? GroupType.CLASSIC : GroupType.CONSUMER, d.type(), "group type");
      checkEq(protocol.equals("classic") ? "range" : "uniform", d.partitionAssignor(), "partition assignor");
      check(!d.isSimpleConsumerGroup(), "described as a simple consumer group");
      check(d.coordinator() != null && !d.coordinator().isEmpty(), "no coordinator in the description");
      for (MemberDescription m : d.members()) {
        checkEq(prefix, m.clientId(), "member client id");
        check(!m.consumerId().isEmpty(), "empty member id");
        if (protocol.equals("consumer")) {
          check(m.memberEpoch().isPresent() && m.memberEpoch().get() > 0, "member epoch of " + m);
          checkEq(m.assignment().topicPartitions(), m.targetAssignment().map(a -> a.topicPartitions()).orElse(null),
              "target assignment of " + m.consumerId());
        }
      }
    }
  }

  /**
   * Transactions V2 (KIP-890 part 2) at scale: the cluster must have transaction.version >= 2
   * finalized (the producer then uses EndTxn v5 and Produce v12, adding partitions implicitly). One
   * transactional producer runs 1,000 transactions of one record to each of 2 partitions, every 7th
   * aborted (after a flush, so the aborted records are in the log). A read_committed consumer sees
   * exactly the committed records, once each. The producer epoch moved with every EndTxn, which
   * only transactions V2 does: DescribeTransactions shows an epoch of at least 1,000.
   */
  private void txnV2() throws Exception {
    String topic = prefix;
    String txnId = prefix + "-txn";
    int txns = 1000;
    try (Admin admin = admin()) {
      FeatureMetadata fm = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
      FinalizedVersionRange tv = fm.finalizedFeatures().get("transaction.version");
      check(tv != null && tv.maxVersionLevel() >= 2, "finalized transaction.version: " + tv);
      createTopic(admin, topic, 2, null);
    }
    Set<String> committed = new TreeSet<>();
    int aborted = 0;
    long start = System.currentTimeMillis();
    Map<String, String> pc = Map.of(
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId,
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000",
        ProducerConfig.LINGER_MS_CONFIG, "0");
    try (KafkaProducer<String, String> p = producer(pc)) {
      p.initTransactions();
      for (int i = 0; i < txns; i++) {
        check(System.currentTimeMillis() < deadline - 20_000, "only " + i + " transactions before the deadline");
        String a = "t" + i + "-p0";
        String b = "t" + i + "-p1";
        p.beginTransaction();
        p.send(new ProducerRecord<>(topic, 0, a, a));
        p.send(new ProducerRecord<>(topic, 1, b, b));
        // flush first: in kafka-clients 4.4.0 the Sender reads accumulator.hasIncomplete() before it
        // takes the TransactionManager's lock in nextRequest(), so an EndTxn that commitTransaction()
        // enqueues in between goes out ahead of the transaction's batches; the coordinator finds the
        // previous transaction complete and answers INVALID_TXN_STATE, fatal for the producer. Seen
        // about once in 25 runs of this scenario under load, on Apache Kafka 4.4.0 as on tkafka.
        p.flush();
        if (i % 7 == 6) {
          p.abortTransaction();
          aborted++;
        } else {
          p.commitTransaction();
          committed.add(a);
          committed.add(b);
        }
      }
    }
    long txnMs = System.currentTimeMillis() - start;
    checkEq(txns / 7, aborted, "aborted transactions");
    try (Admin admin = admin()) {
      TransactionDescription td =
          admin.describeTransactions(List.of(txnId)).description(txnId).get(30, TimeUnit.SECONDS);
      checkEq(TransactionState.COMPLETE_COMMIT, td.state(), "described transaction state");
      check(td.producerEpoch() >= txns,
          "producer epoch " + td.producerEpoch() + " after " + txns + " transactions: no epoch bump per EndTxn (not V2)");
    }
    List<TopicPartition> tps = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> c = consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      long until = Math.min(deadline, System.currentTimeMillis() + 60_000);
      while (System.currentTimeMillis() < until && tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) seen.add(r.value());
      }
      for (TopicPartition tp : tps) checkEq(end.get(tp), c.position(tp), "read_committed position of " + tp);
    }
    checkEq(committed.size(), seen.size(), "read_committed record count (duplicates or aborted records?)");
    checkEq(committed, new TreeSet<>(seen), "read_committed records");
    System.out.println(txns + " transactions (" + aborted + " aborted) in " + txnMs + " ms; read_committed saw "
        + seen.size() + " records");
  }

  /**
   * Consume-transform-produce: 10 input records in 5 transactions of 2, sending the group's offsets
   * in each; the third is aborted (then redone). A read_committed consumer sees exactly the committed
   * output; a read_uncommitted one also sees the aborted records; the group's offset is 10.
   */
  private void transactions() throws Exception {
    String in = prefix + "-in";
    String out = prefix + "-out";
    String group = prefix + "-g";
    int n = 10;
    TopicPartition inTp = new TopicPartition(in, 0);
    TopicPartition outTp = new TopicPartition(out, 0);
    try (Admin admin = admin()) {
      createTopic(admin, in, 1, null);
      createTopic(admin, out, 1, null);
    }
    List<ProducerRecord<String, String>> input = new ArrayList<>();
    for (int i = 0; i < n; i++) input.add(new ProducerRecord<>(in, 0, "k" + i, "in-" + i));
    try (KafkaProducer<String, String> p = producer(Map.of())) {
      sendAll(p, input);
    }
    Map<String, String> pc = Map.of(
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, prefix + "-txn",
        ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "30000");
    Map<String, String> cc = Map.of(
        ConsumerConfig.GROUP_ID_CONFIG, group,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2");
    int aborted = 0;
    int committedTxns = 0;
    try (KafkaProducer<String, String> p = producer(pc); KafkaConsumer<String, String> c = consumer(cc)) {
      p.initTransactions();
      c.subscribe(List.of(in));
      long next = 0; // the next input offset to process
      int batch = 0;
      long until = Math.min(deadline, System.currentTimeMillis() + 40_000);
      while (next < n && System.currentTimeMillis() < until) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(200));
        if (recs.isEmpty()) continue;
        List<ConsumerRecord<String, String>> list = recs.records(inTp);
        checkEq(next, list.get(0).offset(), "first offset of a polled batch");
        boolean abort = batch == 2;
        batch++;
        p.beginTransaction();
        for (ConsumerRecord<String, String> r : list) {
          String v = (abort ? "aborted-" : "out-") + r.value().substring(3);
          p.send(new ProducerRecord<>(out, 0, r.key(), v));
        }
        long after = list.get(list.size() - 1).offset() + 1;
        p.sendOffsetsToTransaction(Map.of(inTp, new OffsetAndMetadata(after)), c.groupMetadata());
        // abortTransaction drops batches still lingering in the producer: flush so that the aborted
        // records are in the log (the read_uncommitted check below counts them).
        p.flush();
        if (abort) {
          p.abortTransaction();
          aborted++;
          c.seek(inTp, next); // redo this batch
        } else {
          p.commitTransaction();
          committedTxns++;
          next = after;
        }
      }
      checkEq((long) n, next, "input offsets processed");
      check(aborted == 1 && committedTxns >= 5, "aborted " + aborted + ", committed " + committedTxns);
      try (Admin admin = admin()) {
        String txnId = prefix + "-txn";
        TransactionDescription td =
            admin.describeTransactions(List.of(txnId)).description(txnId).get(30, TimeUnit.SECONDS);
        checkEq(TransactionState.COMPLETE_COMMIT, td.state(), "described transaction state");
        checkEq(30_000L, td.transactionTimeoutMs(), "described transaction timeout");
        check(td.producerId() >= 0, "described producer id " + td.producerId());
        check(td.topicPartitions().isEmpty(), "partitions of a completed transaction: " + td.topicPartitions());
      }
    }
    try (Admin admin = admin()) {
      Map<TopicPartition, OffsetAndMetadata> offs =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      OffsetAndMetadata om = offs.get(inTp);
      check(om != null && om.offset() == n, "group offset of " + inTp + ": " + om);
    }
    // read_committed: exactly out-0..out-9, in order.
    try (KafkaConsumer<String, String> c = consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
      c.assign(List.of(outTp));
      c.seekToBeginning(List.of(outTp));
      List<ConsumerRecord<String, String>> got = pollN(c, n, 20_000);
      List<String> values = new ArrayList<>();
      for (ConsumerRecord<String, String> r : got) values.add(r.value());
      List<String> want = new ArrayList<>();
      for (int i = 0; i < n; i++) want.add("out-" + i);
      checkEq(want, values, "read_committed output");
      long end = c.endOffsets(List.of(outTp)).get(outTp);
      // 12 data records + 6 markers (5 commits, 1 abort).
      checkEq(18L, end, "read_committed end offset (LSO)");
      long until = Math.min(deadline, System.currentTimeMillis() + 10_000);
      while (c.position(outTp) < end && System.currentTimeMillis() < until) {
        check(c.poll(Duration.ofMillis(200)).isEmpty(), "read_committed consumer saw more records");
      }
      checkEq(end, c.position(outTp), "read_committed position at the end");
    }
    // read_uncommitted: the aborted records are in the log too.
    Map<String, String> uncommitted = Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    try (KafkaConsumer<String, String> c = consumer(uncommitted)) {
      c.assign(List.of(outTp));
      c.seekToBeginning(List.of(outTp));
      List<ConsumerRecord<String, String>> got = pollN(c, n + 2, 20_000);
      long abortedSeen = got.stream().filter(r -> r.value().startsWith("aborted-")).count();
      checkEq(n + 2, got.size(), "read_uncommitted records");
      checkEq(2L, abortedSeen, "aborted records seen by read_uncommitted");
    }
  }

  /** Records at t, t+1000, t+2000; ListOffsets by time, earliest, latest, max timestamp. */
  private void listOffsetsTime() throws Exception {
    String topic = prefix;
    TopicPartition tp = new TopicPartition(topic, 0);
    long t = System.currentTimeMillis() - 600_000L;
    try (Admin admin = admin()) {
      createTopic(admin, topic, 1, null);
      try (KafkaProducer<String, String> p = producer(Map.of())) {
        List<ProducerRecord<String, String>> rs = new ArrayList<>();
        for (int i = 0; i < 3; i++) rs.add(new ProducerRecord<>(topic, 0, t + i * 1000L, "k" + i, "v" + i));
        List<RecordMetadata> acks = sendAll(p, rs);
        for (int i = 0; i < 3; i++) checkEq((long) i, acks.get(i).offset(), "ack offset " + i);
      }
      Map<String, OffsetSpec> specs = new HashMap<>();
      specs.put("ts+1000", OffsetSpec.forTimestamp(t + 1000));
      specs.put("ts+500", OffsetSpec.forTimestamp(t + 500));
      specs.put("ts", OffsetSpec.forTimestamp(t));
      specs.put("ts+5000", OffsetSpec.forTimestamp(t + 5000));
      specs.put("earliest", OffsetSpec.earliest());
      specs.put("latest", OffsetSpec.latest());
      specs.put("max", OffsetSpec.maxTimestamp());
      Map<String, ListOffsetsResultInfo> got = new HashMap<>();
      for (Map.Entry<String, OffsetSpec> e : specs.entrySet()) {
        got.put(e.getKey(), admin.listOffsets(Map.of(tp, e.getValue())).partitionResult(tp).get(30, TimeUnit.SECONDS));
      }
      checkEq(1L, got.get("ts+1000").offset(), "offset for t+1000");
      checkEq(t + 1000, got.get("ts+1000").timestamp(), "timestamp for t+1000");
      checkEq(1L, got.get("ts+500").offset(), "offset for t+500");
      checkEq(0L, got.get("ts").offset(), "offset for t");
      checkEq(t, got.get("ts").timestamp(), "timestamp for t");
      checkEq(-1L, got.get("ts+5000").offset(), "offset for t+5000 (after the last record)");
      checkEq(0L, got.get("earliest").offset(), "earliest");
      checkEq(3L, got.get("latest").offset(), "latest");
      checkEq(2L, got.get("max").offset(), "offset of the max timestamp");
      checkEq(t + 2000, got.get("max").timestamp(), "max timestamp");
    }
    // The consumer's offsetsForTimes (ListOffsets from the consumer) agrees.
    try (KafkaConsumer<String, String> c = consumer(Map.of())) {
      var r = c.offsetsForTimes(Map.of(tp, t + 1000), Duration.ofSeconds(20)).get(tp);
      check(r != null && r.offset() == 1 && r.timestamp() == t + 1000, "consumer offsetsForTimes(t+1000): " + r);
      checkEq(0L, c.beginningOffsets(List.of(tp)).get(tp), "consumer beginningOffsets");
      checkEq(3L, c.endOffsets(List.of(tp)).get(tp), "consumer endOffsets");
    }
  }

  /** 10 records; delete before offset 5; low watermark 5; a consumer from earliest starts at 5. */
  private void deleteRecords() throws Exception {
    String topic = prefix;
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = admin()) {
      createTopic(admin, topic, 1, null);
      List<ProducerRecord<String, String>> rs = new ArrayList<>();
      for (int i = 0; i < 10; i++) rs.add(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
      try (KafkaProducer<String, String> p = producer(Map.of())) {
        sendAll(p, rs);
      }
      long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(5))).lowWatermarks().get(tp)
          .get(30, TimeUnit.SECONDS).lowWatermark();
      checkEq(5L, low, "low watermark returned by deleteRecords");
      long earliest = admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
          .get(30, TimeUnit.SECONDS).offset();
      checkEq(5L, earliest, "earliest offset after deleteRecords");
      long latest = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)
          .get(30, TimeUnit.SECONDS).offset();
      checkEq(10L, latest, "latest offset after deleteRecords");
    }
    try (KafkaConsumer<String, String> c = consumer(Map.of())) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<ConsumerRecord<String, String>> got = pollN(c, 5, 20_000);
      checkEq(5, got.size(), "records from earliest");
      for (int i = 0; i < 5; i++) {
        checkEq(5L + i, got.get(i).offset(), "offset " + i);
        checkEq("v" + (5 + i), got.get(i).value(), "value " + i);
      }
      // Reading below the low watermark is out of range: auto.offset.reset=earliest lands on 5 again.
      c.seek(tp, 2);
      List<ConsumerRecord<String, String>> again = pollN(c, 1, 20_000);
      String first = again.isEmpty() ? "nothing" : String.valueOf(again.get(0).offset());
      check(!again.isEmpty() && again.get(0).offset() == 5, "after seek(2) the first record is at " + first);
    }
  }
}
