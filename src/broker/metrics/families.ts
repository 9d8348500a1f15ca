// Metric families read at scrape time from the state their owners keep (plain numbers, a
// Reservoir): a prom-client Gauge or Counter whose collect() refills it. Nothing runs between
// scrapes. Series without a label a family declares are rendered without it (the all-topics
// BrokerTopicMetrics series, as Kafka registers both).
import { Counter, Gauge, type Registry } from 'prom-client';
import { QUANTILES, type Reservoir } from './reservoir.js';

export type Labels = Record<string, string | number>;
export type Emit = (labels: Labels, value: number) => void;

export function gauges(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  collect: (emit: Emit) => void,
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      collect((labels, value) => this.set(labels, value));
    },
  });
}

/** A counter family (Kafka's meters' Count, the exporter's `_total`): the owner's running totals. */
export function counters(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  collect: (emit: Emit) => void,
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      collect((labels, value) => this.inc(labels, value));
    },
  });
}

/** One value, no labels. */
export function gauge(registry: Registry, name: string, help: string, value: () => number): void {
  gauges(registry, name, help, [], (emit) => emit({}, value()));
}

/**
 * A Kafka histogram as the exporter renders it: `<name>{…,quantile="0.50"…"0.999"}` gauges and a
 * `<name>_count` counter.
 */
export function histograms(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  each: (visit: (labels: Labels, r: Reservoir) => void) => void,
): void {
  gauges(registry, name, help, [...labelNames, 'quantile'], (emit) =>
    each((labels, r) => {
      const qs = r.quantiles();
      for (let i = 0; i < QUANTILES.length; i++) emit({ ...labels, quantile: QUANTILES[i]![1] }, qs[i]!);
    }),
  );
  counters(registry, `${name}_count`, `${help} (updates)`, labelNames, (emit) =>
    each((labels, r) => emit(labels, r.count)),
  );
}
