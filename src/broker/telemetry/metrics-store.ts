// The latest values of the metrics client instances pushed (KIP-714), shown on the Prometheus
// endpoint: one prom-client metric per OTLP metric name (dots and other characters Prometheus does not
// allow → "_"), one series per client instance and attribute set, labelled client_instance_id,
// client_id and the data point's and resource's OTLP attributes. Gauges and sums show the value last
// pushed (Kafka asks clients for delta temporality, so a sum is the change over the last interval);
// a histogram shows <name>_count and <name>_sum. Bounded: an instance's series leave with the instance
// (ClientMetricsManager's expiry), and past `maxSeries` series new ones are dropped.
import type { Registry } from 'prom-client';
import type { OtlpResourceMetrics, AttrValue } from '../../protocol/otlp.js';

export const DEFAULT_MAX_SERIES = 10_000;

interface Series {
  readonly name: string;
  readonly help: string;
  readonly labels: Record<string, string>;
  value: number;
}

/** A Prometheus metric or label name from an OTLP one. */
export function promName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

function promLabel(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[0-9]/.test(s) || s.startsWith('__') ? `_${s.replace(/^_+/, '')}` : s;
}

function labelValue(v: AttrValue): string {
  return typeof v === 'string' ? v : String(v);
}

export class ClientMetricsStore {
  /** client instance id → series key → series. */
  private readonly byInstance = new Map<string, Map<string, Series>>();
  private series = 0;
  private dropped = 0;
  private readonly registries: { registry: Registry; names: Set<string> }[] = [];

  constructor(private readonly maxSeries = DEFAULT_MAX_SERIES) {}

  /** Series dropped because the cap was reached. */
  get droppedSeries(): number {
    return this.dropped;
  }

  get seriesCount(): number {
    return this.series;
  }

  /** Records the data points of one push of `clientInstanceId`. */
  record(clientInstanceId: string, clientId: string | null, data: readonly OtlpResourceMetrics[]): void {
    let mine = this.byInstance.get(clientInstanceId);
    if (!mine) this.byInstance.set(clientInstanceId, (mine = new Map()));
    const put = (name: string, help: string, attrs: Record<string, string>, value: number): void => {
      const labels: Record<string, string> = {
        ...attrs,
        client_instance_id: clientInstanceId,
        client_id: clientId ?? '',
      };
      const key = `${name}\u0000${JSON.stringify(Object.entries(labels).sort())}`;
      const old = mine.get(key);
      if (old) {
        old.value = value;
        return;
      }
      if (this.series >= this.maxSeries) {
        this.dropped++;
        return;
      }
      mine.set(key, { name, help, labels, value });
      this.series++;
      this.ensureRegistered(name);
    };
    for (const rm of data) {
      const resource: Record<string, string> = {};
      for (const [k, v] of Object.entries(rm.resource)) resource[promLabel(k)] = labelValue(v);
      for (const m of rm.metrics) {
        const name = promName(m.name);
        const help = m.description || `Client metric ${m.name}`;
        for (const p of m.points) {
          const attrs = { ...resource };
          for (const [k, v] of Object.entries(p.attributes)) attrs[promLabel(k)] = labelValue(v);
          put(name, help, attrs, p.value);
        }
        for (const h of m.histogramPoints) {
          const attrs = { ...resource };
          for (const [k, v] of Object.entries(h.attributes)) attrs[promLabel(k)] = labelValue(v);
          put(`${name}_count`, help, attrs, h.count);
          if (h.sum !== undefined) put(`${name}_sum`, help, attrs, h.sum);
        }
      }
    }
  }

  /** Forgets a client instance (expired, disconnected). */
  removeInstance(clientInstanceId: string): void {
    const mine = this.byInstance.get(clientInstanceId);
    if (!mine) return;
    this.series -= mine.size;
    this.byInstance.delete(clientInstanceId);
  }

  /** The current series of one metric name. */
  valuesOf(name: string): { labels: Record<string, string>; value: number }[] {
    const out: { labels: Record<string, string>; value: number }[] = [];
    for (const mine of this.byInstance.values()) {
      for (const s of mine.values()) if (s.name === name) out.push({ labels: s.labels, value: s.value });
    }
    return out;
  }

  private helpOf(name: string): string {
    for (const mine of this.byInstance.values()) for (const s of mine.values()) if (s.name === name) return s.help;
    return `Client metric ${name}`;
  }

  private ensureRegistered(name: string): void {
    for (const r of this.registries) this.registerName(r, name);
  }

  private registerName(r: { registry: Registry; names: Set<string> }, name: string): void {
    if (r.names.has(name) || r.registry.getSingleMetric(name)) return;
    r.names.add(name);
    const metric = {
      name,
      help: this.helpOf(name),
      type: 'gauge',
      aggregator: 'omit',
      get: () =>
        Promise.resolve({
          name,
          help: this.helpOf(name),
          type: 'gauge',
          aggregator: 'omit',
          values: this.valuesOf(name),
        }),
      reset: () => undefined,
    };
    r.registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** Shows the received client metrics on a prom-client registry (the metrics endpoint's). */
  register(registry: Registry): void {
    const r = { registry, names: new Set<string>() };
    this.registries.push(r);
    for (const mine of this.byInstance.values()) for (const s of mine.values()) this.registerName(r, s.name);
  }
}
