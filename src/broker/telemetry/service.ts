// Wiring of client telemetry (KIP-714) on a broker: the ClientMetricsManager over the client-metrics
// config resources of the metadata image, exporting each push into the ClientMetricsStore (decompressed
// with the record codecs, at most telemetry.max.bytes as Kafka's PushTelemetryRequest.metricsData,
// decoded as OTLP MetricsData; a payload that does not decompress or decode is INVALID_RECORD, as
// Kafka answers an exporter's failure). On when tkafka.client.telemetry.enable is
// true; off, GetTelemetrySubscriptions and PushTelemetry are not registered, as Kafka does not
// advertise them without a telemetry exporter.
import { decompress } from '../../protocol/records/compression.js';
import type { CompressionType } from '../../protocol/records/layout.js';
import { decodeMetricsData } from '../../protocol/otlp.js';
import { ClientMetricsManager } from './client-metrics-manager.js';
import { ClientMetricsStore } from './metrics-store.js';

/** ConfigResource.Type.CLIENT_METRICS. */
const CLIENT_METRICS = 16;

export interface ClientTelemetry {
  readonly manager: ClientMetricsManager;
  readonly store: ClientMetricsStore;
  close(): void;
}

export function createClientTelemetry(opts: {
  telemetryMaxBytes: number;
  configs: () => ReadonlyMap<string, ReadonlyMap<string, string>>;
  maxSeries?: number;
}): ClientTelemetry {
  const store = new ClientMetricsStore(opts.maxSeries);
  const prefix = `${CLIENT_METRICS}:`;
  const manager = new ClientMetricsManager({
    telemetryMaxBytes: opts.telemetryMaxBytes,
    subscriptions: () => {
      const out = new Map<string, ReadonlyMap<string, string>>();
      for (const [key, configs] of opts.configs())
        if (key.startsWith(prefix)) out.set(key.slice(prefix.length), configs);
      return out;
    },
    exporter: async (inst, push) => {
      // the codecs bound what a frame may inflate to from its headers (a zstd frame without a
      // content size by its blocks), so the bound is generous and the size is checked after
      const raw =
        push.compressionType === 0
          ? push.metrics
          : await decompress(push.compressionType as CompressionType, push.metrics, {
              maxSize: Math.max(64 * opts.telemetryMaxBytes, 1 << 20),
            });
      // ClientTelemetryUtils.decompress: more than telemetry.max.bytes once decompressed fails
      if (raw.length > opts.telemetryMaxBytes)
        throw new Error('decompressed telemetry larger than telemetry.max.bytes');
      store.record(inst.clientInstanceId, inst.attributes.client_id ?? null, decodeMetricsData(raw));
    },
    onInstanceRemoved: (id) => store.removeInstance(id),
  });
  // expiry runs on requests and on this sweep, so idle instances' series leave too
  const timer = setInterval(() => manager.expire(), 5000);
  timer.unref();
  return { manager, store, close: () => clearInterval(timer) };
}

const telemetries = new WeakMap<object, ClientTelemetry>();

/** The client telemetry of a broker's services, or null when it is off. */
export function clientTelemetryOf(services: object): ClientTelemetry | null {
  return telemetries.get(services) ?? null;
}

/** Wiring only (broker-server.ts, server.ts). */
export function setClientTelemetry(services: object, telemetry: ClientTelemetry | null): void {
  if (telemetry) telemetries.set(services, telemetry);
  else telemetries.delete(services);
}
