// Listener lists (`listeners`, `advertised.listeners`): SocketServerConfigs /
// CoreUtils.listenerListToEndPoints, with Kafka's messages.
import { isIPv4, isIPv6 } from 'node:net';
import { ConfigError, requirement } from './config-def.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export interface Endpoint {
  /** Upper-cased listener name, e.g. PLAINTEXT, CONTROLLER. */
  listenerName: string;
  securityProtocol: SecurityProtocol;
  /** null means "all interfaces" (an empty host in the listener URI). */
  host: string | null;
  port: number;
}

const csv = (s: string): string[] => (s === '' ? [] : s.split(/\s*,\s*/).filter((v) => v !== ''));

/** Parse `NAME://host:port,...`; ports must differ unless one IPv4 and one IPv6 host share one. */
export function parseListeners(
  input: string,
  protocols: ReadonlyMap<string, SecurityProtocol>,
  requireDistinctPorts: boolean,
): Endpoint[] {
  const wrap = (msg: string): ConfigError =>
    new ConfigError(
      `Error creating broker listeners from '${input}': ${msg}`,
      'listeners',
      'java.lang.IllegalArgumentException',
    );
  const endpoints: Endpoint[] = [];
  for (const entry of csv(input.trim())) {
    const m = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/.exec(entry);
    if (!m) throw wrap(`Unable to parse ${entry} to a broker endpoint`);
    const listenerName = m[1].toUpperCase();
    const port = Number(m[3]);
    if (!Number.isInteger(port) || Math.abs(port) > 2147483647) throw wrap(`For input string: "${m[3]}"`);
    const securityProtocol = protocols.get(listenerName);
    if (!securityProtocol) throw wrap(`No security protocol defined for listener ${listenerName}`);
    endpoints.push({ listenerName, securityProtocol, host: m[2] === '' ? null : m[2], port });
  }
  requirement(
    new Set(endpoints.map((e) => e.listenerName)).size === endpoints.length,
    `Each listener must have a different name, listeners: ${input}`,
    'listeners',
  );
  const byPort = new Map<number, Endpoint[]>();
  for (const e of endpoints) if (e.port !== 0) byPort.set(e.port, [...(byPort.get(e.port) ?? []), e]);
  for (const [port, eps] of byPort) {
    if (eps.length < 2 || !requireDistinctPorts) continue;
    const isIp = (h: string | null): boolean => h !== null && (isIPv4(h) || isIPv6(h));
    const withIp = eps.filter((e) => isIp(e.host));
    const withoutIp = eps.filter((e) => !isIp(e.host));
    requirement(withoutIp.length < 2, `Each listener must have a different port, listeners: ${input}`, 'listeners');
    if (withIp.length === 0) continue;
    if (withIp.length === 2) {
      const msg = `If you have two listeners on the same port then one needs to be IPv4 and the other IPv6, listeners: ${input}, port: ${port}`;
      const [a, b] = [withIp[0].host!, withIp[1].host!];
      requirement((isIPv4(a) && isIPv6(b)) || (isIPv6(a) && isIPv4(b)), msg, 'listeners');
      if (withoutIp.length) throw new ConfigError(msg, 'listeners', 'java.lang.IllegalArgumentException');
    } else {
      throw new ConfigError(
        `Each listener must have a different port unless exactly one listener has an IPv4 address and the other IPv6 address, listeners: ${input}, port: ${port}`,
        'listeners',
        'java.lang.IllegalArgumentException',
      );
    }
  }
  return endpoints;
}
