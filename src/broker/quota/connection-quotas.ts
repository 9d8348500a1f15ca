// IP connection-creation rate quotas (KIP-612) as the acceptor asks them: the
// `connection_creation_rate` of the IP's ClientQuotaRecord entity, else of the default IP entity
// (<default>), else unlimited (Kafka's ConnectionQuotas.connectionRateForIp with
// DynamicConfig.Ip's default Integer.MAX_VALUE).
import type { MetadataImage } from '../metadata/image.js';
import { quotaEntityKey } from '../metadata/delta.js';

/** QuotaConfig.IP_CONNECTION_RATE_DEFAULT. */
export const IP_CONNECTION_RATE_DEFAULT = 2147483647;

/** The connections per second allowed from `ip` (an address string as the socket reports it). */
export function connectionRateQuotaFor(image: MetadataImage, ip: string): number {
  // an IPv4-mapped IPv6 address is the IPv4 address (Java's InetAddress)
  if (ip.startsWith('::ffff:') && ip.includes('.')) ip = ip.slice(7);
  const of = (name: string | null): number | undefined =>
    image.clientQuotas
      .get(quotaEntityKey([{ entityType: 'ip', entityName: name }]))
      ?.quotas.get('connection_creation_rate');
  return of(ip) ?? of(null) ?? IP_CONNECTION_RATE_DEFAULT;
}
