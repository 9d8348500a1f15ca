// A client telemetry exporter for Apache Kafka 4.4.0 in interop/client-telemetry-kafka.test.ts: as
// a metric.reporters entry it makes the broker serve GetTelemetrySubscriptions and PushTelemetry
// (Kafka advertises them only with an exporter), and it parses each pushed payload as OTLP
// MetricsData, so a payload that is not one is INVALID_RECORD, as tkafka answers.
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporter;
import org.apache.kafka.server.telemetry.ClientTelemetryExporterProvider;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;

public class TelemetrySink implements MetricsReporter, ClientTelemetryExporterProvider {
  @Override
  public void configure(Map<String, ?> configs) {}

  @Override
  public void init(List<KafkaMetric> metrics) {}

  @Override
  public void metricChange(KafkaMetric metric) {}

  @Override
  public void metricRemoval(KafkaMetric metric) {}

  @Override
  public void close() {}

  @Override
  public ClientTelemetryExporter clientTelemetryExporter() {
    return (context, payload) -> {
      try {
        MetricsData.parseFrom(payload.data());
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    };
  }
}
