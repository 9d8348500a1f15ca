// Registers GetTelemetrySubscriptions and PushTelemetry (KIP-714) on the broker listener and starts
// the node's client telemetry when tkafka.client.telemetry.enable is true; otherwise neither is
// registered, so ApiVersions does not list them (Kafka advertises them only with a telemetry exporter).
// The metrics clients push are shown on the node's metrics registry (src/broker/metrics).
import type { HandlerRegistry } from './registry.js';
import type { BrokerServices } from '../services.js';
import { handler as getTelemetrySubscriptions } from './get-telemetry-subscriptions.js';
import { handler as pushTelemetry } from './push-telemetry.js';
import { createClientTelemetry, setClientTelemetry, type ClientTelemetry } from '../telemetry/service.js';
import { metadataSourceOf } from '../services.js';

/** Starts client telemetry and registers its handlers when enabled; returns it (null when off). */
export function registerTelemetryHandlers(registry: HandlerRegistry, services: BrokerServices): ClientTelemetry | null {
  if (!services.config.getBoolean('tkafka.client.telemetry.enable')) return null;
  const telemetry = createClientTelemetry({
    telemetryMaxBytes: services.config.getInt('telemetry.max.bytes'),
    configs: () => metadataSourceOf(services).image.configs,
  });
  setClientTelemetry(services, telemetry);
  // the pushed client metrics on the node's metrics endpoint (tkafka.metrics.listener)
  if (services.metrics) {
    telemetry.store.register(services.metrics.registry);
    services.metrics.onClose(() => telemetry.close());
  }
  registry.register(getTelemetrySubscriptions).register(pushTelemetry);
  return telemetry;
}
