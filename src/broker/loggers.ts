// The broker's runtime logger levels, the BROKER_LOGGER config resource of DescribeConfigs and
// (Incremental)AlterConfigs. One BrokerLoggers per broker, in BrokerServices.loggers.

/** LogLevelConfig.VALID_LOG_LEVELS, sorted as RuntimeLoggerManager prints them. */
export const VALID_LOG_LEVELS = ['DEBUG', 'ERROR', 'FATAL', 'INFO', 'TRACE', 'WARN'];
export const ROOT_LOGGER = 'root';

/**
 * The broker's runtime logger levels (Kafka's Log4jController): the root logger plus loggers that
 * were given a level. Kept per broker; levels are not persisted (as in Kafka).
 */
export class BrokerLoggers {
  private readonly levels = new Map<string, string | null>();

  /** `loggers`: logger name → own level (null: inherits). */
  constructor(rootLevel = 'INFO', loggers: Readonly<Record<string, string | null>> = {}) {
    this.levels.set(ROOT_LOGGER, rootLevel);
    for (const [n, l] of Object.entries(loggers)) this.levels.set(n, l);
  }

  exists(name: string): boolean {
    return this.levels.has(name);
  }

  /** Effective level: its own, else the nearest dotted ancestor's, else the root's. */
  level(name: string): string {
    let n = name;
    for (;;) {
      const own = this.levels.get(n);
      if (own) return own;
      const i = n.lastIndexOf('.');
      if (i <= 0) return this.levels.get(ROOT_LOGGER)!;
      n = n.slice(0, i);
    }
  }

  /** name → effective level, root first then by name. */
  all(): Array<[string, string]> {
    const names = [...this.levels.keys()].filter((n) => n !== ROOT_LOGGER).sort();
    return [[ROOT_LOGGER, this.level(ROOT_LOGGER)], ...names.map((n): [string, string] => [n, this.level(n)])];
  }

  set(name: string, level: string): void {
    this.levels.set(name, level.toUpperCase());
  }

  unset(name: string): void {
    if (name !== ROOT_LOGGER) this.levels.set(name, null);
  }
}

/** The loggers Kafka's shipped config/log4j.properties configures. */
export const KAFKA_DEFAULT_LOGGERS: Readonly<Record<string, string>> = {
  'org.apache.kafka': 'INFO',
  kafka: 'INFO',
  'kafka.request.logger': 'WARN',
  'kafka.network.RequestChannel$': 'WARN',
  'kafka.controller': 'TRACE',
  'kafka.log.LogCleaner': 'INFO',
  'state.change.logger': 'INFO',
  'kafka.authorizer.logger': 'INFO',
};

/** A broker's loggers as Kafka's shipped log4j configuration sets them up. */
export function defaultBrokerLoggers(): BrokerLoggers {
  return new BrokerLoggers('INFO', KAFKA_DEFAULT_LOGGERS);
}
