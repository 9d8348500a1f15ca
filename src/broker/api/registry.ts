// The handler registry: one handler per (API key, listener type), each serving a version range
// within what the generated codec can read and write. It is the single source of ApiVersions
// (Kafka's ApiVersionManager: an API is enabled on a listener when it is in scope for that
// listener type and the version is within the enabled range; anything else closes the connection).
import { API_SPECS, type ApiSpec } from '../../protocol/generated/apis.js';
import type { ApiHandler, RegisteredHandler } from './types.js';

export type ListenerType = 'broker' | 'controller';

export interface ApiVersionRange {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

const SPEC_BY_KEY = new Map<number, ApiSpec>(API_SPECS.map((s) => [s.key, s]));

export class HandlerRegistry {
  private readonly byType: Record<ListenerType, Map<number, RegisteredHandler>> = {
    broker: new Map(),
    controller: new Map(),
  };
  private generation = 0;
  private readonly cache = new Map<ListenerType, { generation: number; apis: ApiVersionRange[] }>();

  /**
   * Adds a handler. Throws when the API key is unknown to the codec, the version range is empty or
   * outside the codec's range, a listener type is not one the API spec allows, or another handler
   * already serves the same key on one of the handler's listener types.
   */
  register<Services, Req, Res>(handler: ApiHandler<Services, Req, Res>): this {
    const spec = SPEC_BY_KEY.get(handler.apiKey);
    if (!spec) throw new Error(`cannot register a handler for unknown API key ${handler.apiKey}`);
    const { minVersion: min, maxVersion: max } = handler;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min > max) {
      throw new Error(`${spec.name}: invalid version range ${min}-${max}`);
    }
    if (min < spec.minVersion || max > spec.maxVersion) {
      throw new Error(
        `${spec.name}: versions ${min}-${max} are outside the codec's ${spec.minVersion}-${spec.maxVersion}`,
      );
    }
    if (handler.listeners.length === 0) throw new Error(`${spec.name}: a handler needs at least one listener type`);
    for (const type of handler.listeners) {
      if (!spec.listeners.includes(type)) {
        throw new Error(
          `${spec.name} is not served on ${type} listeners (spec listeners: ${spec.listeners.join(', ')})`,
        );
      }
      if (this.byType[type].has(handler.apiKey)) {
        throw new Error(`${spec.name} already has a handler on ${type} listeners`);
      }
    }
    // the erasure: Req is what the dispatcher decodes for this API key (see RegisteredHandler)
    for (const type of handler.listeners) this.byType[type].set(handler.apiKey, handler);
    this.generation++;
    return this;
  }

  /** The handler serving `apiKey` at `version` on a listener type, or undefined (Kafka: not enabled). */
  lookup(apiKey: number, version: number, listenerType: ListenerType): RegisteredHandler | undefined {
    const h = this.byType[listenerType].get(apiKey);
    return h && version >= h.minVersion && version <= h.maxVersion ? h : undefined;
  }

  /** The handler for `apiKey` on a listener type regardless of version. */
  handlerFor(apiKey: number, listenerType: ListenerType): RegisteredHandler | undefined {
    return this.byType[listenerType].get(apiKey);
  }

  /** Registered APIs and version ranges for a listener type, sorted by key (what ApiVersions lists). */
  apis(listenerType: ListenerType): readonly ApiVersionRange[] {
    const hit = this.cache.get(listenerType);
    if (hit && hit.generation === this.generation) return hit.apis;
    const apis = [...this.byType[listenerType].values()]
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }))
      .sort((a, b) => a.apiKey - b.apiKey);
    this.cache.set(listenerType, { generation: this.generation, apis });
    return apis;
  }
}

export function apiName(apiKey: number): string {
  return SPEC_BY_KEY.get(apiKey)?.name ?? `Unknown(${apiKey})`;
}
