// Where the socket server's connection limits and request memory bound come from: a node's settings
// (server.properties), overlaid with the dynamic broker configs of the metadata image (cluster
// default, then this broker's), as Kafka's DynamicConnectionQuota / ListenerConnectionQuota
// reconfigure them without a restart.
import type { ServerConfig } from '../../config/server-config.js';
import type { MetadataPublisher } from '../metadata/events.js';
import { effectiveSettings } from './tls-listener.js';

/** The keys the connection limits read (listener.name.<l>. forms included). */
export function isConnectionLimitKey(key: string): boolean {
  return (
    /^(listener\.name\.[^.]+\.)?(max\.connections|max\.connection\.creation\.rate)$/.test(key) ||
    key === 'max.connections.per.ip' ||
    key === 'max.connections.per.ip.overrides'
  );
}

/** SocketServerOptions for the limits: spread into `new SocketServer({...})`. */
export function socketServerLimits(config: ServerConfig): {
  connectionLimits: ReadonlyMap<string, string>;
  interBrokerListenerName: string | undefined;
  queuedMaxRequestBytes: number;
  queuedMaxRequests: number;
} {
  const roles = config.originals.get('process.roles') ?? '';
  return {
    connectionLimits: config.originals,
    interBrokerListenerName: roles.includes('broker') ? config.interBrokerListenerName : undefined,
    queuedMaxRequestBytes: Number(config.getLong('queued.max.request.bytes')),
    queuedMaxRequests: config.getInt('queued.max.requests'),
  };
}

/**
 * Applies altered max.connections* / max.connection.creation.rate (cluster default or this
 * broker's) to the socket server when they change, and the stored ones at start-up.
 */
export function connectionLimitsPublisher(
  config: ServerConfig,
  nodeId: number,
  server: { updateConnectionLimits(settings: ReadonlyMap<string, string>): Promise<void> },
  log: { info(message: string): void; error(message: string): void },
): MetadataPublisher {
  let applied = limitKeys(config.originals);
  return {
    name: 'connection-limits-reconfiguration',
    async onMetadataUpdate(u): Promise<void> {
      const next = effectiveSettings(config.originals, u.image.brokerConfigs(''), u.image.brokerConfigs(nodeId));
      const keys = limitKeys(next);
      if (keys === applied) return;
      applied = keys;
      try {
        await server.updateConnectionLimits(next);
        log.info(`Updated connection limits: ${keys}`);
      } catch (e) {
        log.error(`Cannot apply connection limits ${keys}: ${(e as Error).message}`);
      }
    },
  };
}

function limitKeys(settings: ReadonlyMap<string, string>): string {
  return [...settings]
    .filter(([k]) => isConnectionLimitKey(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
