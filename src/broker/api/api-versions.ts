// ApiVersions (key 18), derived from the handler registry so it lists exactly what this process
// serves on the listener the request arrived on (Kafka: ApiVersionManager + KafkaApis /
// ControllerApis.handleApiVersionsRequest + ApiVersionsRequest.getErrorResponse).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { ApiVersionsRequest, ApiVersionsResponse } from '../../protocol/generated/protocol/ApiVersions.js';
import type { Input } from '../../protocol/codec/types.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ApiHandler, RequestContext } from './types.js';
import type { ApiVersionRange, HandlerRegistry } from './registry.js';
import { FORWARDABLE_APIS } from '../forwarding/forwarding-manager.js';
import {
  DEFAULT_FINALIZED_FEATURES,
  SUPPORTED_FEATURES,
  type FeatureRange,
  type FinalizedFeaturesProvider,
} from './features.js';

/** Kafka's ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN (full match). */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export function isValidClientSoftware(value: string): boolean {
  return SOFTWARE_NAME_VERSION.test(value);
}

/**
 * ApiVersionsRequest.isValid: v5+ requests give both ClusterId and NodeId or neither (KIP-1242);
 * v3+ requests must name the client software in the allowed form.
 */
export function isValidApiVersionsRequest(version: number, request: ApiVersionsRequest): boolean {
  if (version >= 5 && (request.clusterId === null) !== (request.nodeId === -1)) return false;
  if (version < 3) return true;
  return isValidClientSoftware(request.clientSoftwareName) && isValidClientSoftware(request.clientSoftwareVersion);
}

/** Who this process is, for the KIP-1242 check (the broker's cluster id and node id). */
export interface NodeIdentity {
  readonly clusterId: string;
  readonly nodeId: number;
}

/**
 * KafkaApis.clusterIdOrNodeIdIsInvalid (KIP-1242): a v5+ client that names the cluster and node it
 * means to reach, and reached another, is told REBOOTSTRAP_REQUIRED. Broker listeners only:
 * ControllerApis does not check.
 */
export function isWrongNode(version: number, request: ApiVersionsRequest, self: NodeIdentity | undefined): boolean {
  if (version < 5 || request.clusterId === null || self === undefined) return false;
  return request.clusterId !== self.clusterId || request.nodeId !== self.nodeId;
}

function identityOf(services: unknown): NodeIdentity | undefined {
  if (typeof services !== 'object' || services === null) return undefined;
  const s = services as Partial<NodeIdentity>;
  return typeof s.clusterId === 'string' && typeof s.nodeId === 'number'
    ? { clusterId: s.clusterId, nodeId: s.nodeId }
    : undefined;
}

export interface ApiVersionsHandlerOptions {
  /** Finalized feature levels from the metadata image; defaults to a fresh Kafka 4.0 cluster's. */
  readonly finalizedFeatures?: FinalizedFeaturesProvider;
  /** Supported feature ranges; defaults to Kafka 4.0's. */
  readonly supportedFeatures?: readonly FeatureRange[];
  /**
   * A node that forwards to a remote active controller: what that controller advertised (null while not
   * connected). Forwardable APIs on the broker listener are then advertised at the intersection of both
   * ranges, and not at all without one (ApiVersionsResponse.intersectForwardableApis).
   */
  readonly controllerApiVersions?: () => ReadonlyMap<number, { minVersion: number; maxVersion: number }> | null;
  /** Versions of ApiVersions itself to serve (default 0-5, all the codec knows). */
  readonly minVersion?: number;
  readonly maxVersion?: number;
}

/**
 * The ApiVersions handler. Register it like any other handler: it lists the registry's APIs for
 * the request's listener type, so registering it last or first makes no difference.
 *
 * The dispatcher hands it requests at versions it does not serve (Kafka accepts every ApiVersions
 * version on the wire): those arrive with `ctx.apiVersion === 0` while `ctx.header.requestApiVersion`
 * keeps the version the client sent, and get the v0 UNSUPPORTED_VERSION answer of KIP-511.
 */
/**
 * KAFKA-18659: Kafka 4 advertises Produce from v0 although it serves only v3+, because librdkafka
 * (<= 2.10) enables gzip/snappy/lz4 only when the broker's Produce range starts at 0. Requests at
 * v0-v2 are still refused (the connection is closed), exactly as Kafka does.
 */
function advertisedMin(apiKey: number, servedMin: number): number {
  return apiKey === ApiKey.Produce ? 0 : servedMin;
}

/**
 * ApiVersionsResponse.intersectForwardableApis: each forwardable API at the intersection of this
 * node's range and the active controller's, dropped when the controller lacks it or the ranges are
 * disjoint; every other API as this node serves it.
 */
export function intersectForwardableApis(
  own: readonly ApiVersionRange[],
  controller: ReadonlyMap<number, { minVersion: number; maxVersion: number }>,
): ApiVersionRange[] {
  const out: ApiVersionRange[] = [];
  for (const a of own) {
    if (!FORWARDABLE_APIS.has(a.apiKey)) {
      out.push(a);
      continue;
    }
    const c = controller.get(a.apiKey);
    if (!c) continue;
    const minVersion = Math.max(a.minVersion, c.minVersion);
    const maxVersion = Math.min(a.maxVersion, c.maxVersion);
    if (minVersion <= maxVersion) out.push({ apiKey: a.apiKey, minVersion, maxVersion });
  }
  return out;
}

export function createApiVersionsHandler(
  registry: HandlerRegistry,
  options: ApiVersionsHandlerOptions = {},
): ApiHandler<unknown> {
  const minVersion = options.minVersion ?? 0;
  const maxVersion = options.maxVersion ?? 5;
  const finalized = options.finalizedFeatures ?? (() => DEFAULT_FINALIZED_FEATURES);
  const supported = options.supportedFeatures ?? SUPPORTED_FEATURES;
  const isUnsupportedVersion = (v: number): boolean => v < minVersion || v > maxVersion;

  const errorBody = (errorCode: number): Input<ApiVersionsResponse> => ({
    errorCode,
    throttleTimeMs: 0,
    // Since Kafka 2.4 (KIP-511) UNSUPPORTED_VERSION carries the range of ApiVersions itself.
    apiKeys:
      errorCode === ErrorCode.UNSUPPORTED_VERSION ? [{ apiKey: ApiKey.ApiVersions, minVersion, maxVersion }] : [],
  });

  return {
    apiKey: ApiKey.ApiVersions,
    minVersion,
    maxVersion,
    listeners: ['broker', 'controller'],
    handle(ctx: RequestContext, request: ApiVersionsRequest, services: unknown): Input<ApiVersionsResponse> {
      if (isUnsupportedVersion(ctx.header.requestApiVersion)) return errorBody(ErrorCode.UNSUPPORTED_VERSION);
      if (!isValidApiVersionsRequest(ctx.apiVersion, request)) return errorBody(ErrorCode.INVALID_REQUEST);
      const listenerType = ctx.isControllerListener ? 'controller' : 'broker';
      if (listenerType === 'broker' && isWrongNode(ctx.apiVersion, request, identityOf(services))) {
        return errorBody(ErrorCode.REBOOTSTRAP_REQUIRED);
      }
      const features = finalized();
      // KAFKA-17492: before v4, omit supported features whose minimum is 0 (older clients reject them).
      const alterFeatureLevel0 = ctx.header.requestApiVersion < 4;
      const finalizedFeatures: { name: string; minVersionLevel: number; maxVersionLevel: number }[] = [];
      for (const [name, level] of features.levels) {
        if (level !== 0) finalizedFeatures.push({ name, minVersionLevel: level, maxVersionLevel: level });
      }
      const controllerVersions = listenerType === 'broker' ? (options.controllerApiVersions?.() ?? null) : null;
      const own = registry.apis(listenerType);
      const apis = controllerVersions ? intersectForwardableApis(own, controllerVersions) : own;
      return {
        errorCode: ErrorCode.NONE,
        apiKeys: apis.map((a) => ({
          apiKey: a.apiKey,
          minVersion: advertisedMin(a.apiKey, a.minVersion),
          maxVersion: a.maxVersion,
        })),
        throttleTimeMs: 0,
        supportedFeatures: supported
          .filter((f) => !(alterFeatureLevel0 && f.minVersion === 0))
          .map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
        finalizedFeaturesEpoch: features.epoch,
        finalizedFeatures,
        zkMigrationReady: false,
      };
    },
    errorResponse(_ctx: RequestContext, _request: unknown, errorCode: number): Input<ApiVersionsResponse> {
      return errorBody(errorCode);
    },
  };
}
