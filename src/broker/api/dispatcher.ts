// Request frame → handler → response frame. Follows Kafka's SocketServer.Processor and
// RequestContext: a request whose header cannot be read, whose API key is unknown, whose API is not
// enabled on this listener at that version, or whose body does not decode closes the connection
// (InvalidRequestException); ApiVersions is accepted at every version and an unsupported one is
// answered as v0 (KIP-511). A handler that throws gets its errorResponse(UNKNOWN_SERVER_ERROR).
import { Reader } from '../../protocol/codec/reader.js';
import type { FramePart } from '../../protocol/codec/types.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import {
  apiSpec,
  decodeRequest,
  encodeResponseParts,
  peekRequestHeader,
  requestHeaderVersion,
} from '../../protocol/frame.js';
import { readRequestHeader, type RequestHeader } from '../../protocol/generated/protocol/RequestHeader.js';
import type { ApiVersionsRequest } from '../../protocol/generated/protocol/ApiVersions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { isValidApiVersionsRequest } from './api-versions.js';
import { apiName, type HandlerRegistry, type ListenerType } from './registry.js';
import { requestThrottleOf, setRequestThrottle, throttle, unmuted } from '../quota/throttle.js';
import { isExemptFromRequestQuota, metered, type RequestQuota } from '../quota/request-time.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';
import { CloseConnectionError, type ApiHandler, type ClientInformation, type RequestContext } from './types.js';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes `[tkafka] LEVEL message` lines to stderr. */
export const stderrLogger: Logger = {
  info: (m) => process.stderr.write(`[tkafka] INFO ${m}\n`),
  warn: (m) => process.stderr.write(`[tkafka] WARN ${m}\n`),
  error: (m) => process.stderr.write(`[tkafka] ERROR ${m}\n`),
};

/** KafkaPrincipal.ANONYMOUS as a string. */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

export const UNKNOWN_CLIENT_INFORMATION: ClientInformation = { softwareName: 'unknown', softwareVersion: 'unknown' };

/** What the dispatcher needs to know about the connection a request came on. */
export interface ConnectionInfo {
  readonly connectionId: string;
  readonly listenerName: string;
  readonly isControllerListener: boolean;
  readonly clientAddress: string;
  /** Updated by a valid ApiVersions v3+ request (KIP-511). */
  clientInformation: ClientInformation;
  /**
   * The authenticated principal, `User:<name>`: the mapped TLS client-certificate DN on SSL
   * listeners, User:ANONYMOUS without authentication; SASL sets it after authenticating.
   */
  principal?: string | undefined;
}

export interface PeekedHeader {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
}

export type DispatchOutcome =
  /** Write `frame` (size-prefixed, `size` bytes in all; record bytes still in a file read as it is written). */
  | { readonly kind: 'response'; readonly ctx: RequestContext; readonly frame: FramePart[]; readonly size: number }
  /** Nothing to write (Produce acks=0); go on with the next request. */
  | { readonly kind: 'noResponse'; readonly ctx: RequestContext }
  /** Close the connection, as Kafka does for an invalid request. */
  | { readonly kind: 'close'; readonly reason: string; readonly header: PeekedHeader | null };

export class Dispatcher<Services = unknown> {
  constructor(
    private readonly registry: HandlerRegistry,
    private readonly services: Services,
    private readonly logger: Logger = stderrLogger,
    /** request_percentage quotas (broker nodes); none: no request is metered. */
    private readonly requestQuota?: RequestQuota,
    /** RequestMetrics' ErrorsPerSec: the error codes of every response (src/broker/metrics). */
    private readonly metrics?: RequestMetrics,
  ) {}

  async dispatch(frame: Buffer, conn: ConnectionInfo): Promise<DispatchOutcome> {
    // a throttled connection (quota/throttle.ts) handles nothing more until its mute ends
    const muted = unmuted(conn);
    if (muted) await muted;
    let peeked: PeekedHeader;
    try {
      peeked = peekRequestHeader(frame);
    } catch (e) {
      return close(`error parsing request header: ${msg(e)}`, null);
    }
    const { apiKey, apiVersion } = peeked;
    if (!apiSpec(apiKey)) return close(`unknown API key ${apiKey}`, peeked);
    const listenerType: ListenerType = conn.isControllerListener ? 'controller' : 'broker';

    let handler: ApiHandler<Services> | undefined;
    let unsupportedApiVersions = false;
    if (apiKey === ApiKey.ApiVersions) {
      // Kafka enables every ApiVersions version: the client sends its newest and falls back.
      handler = this.registry.handlerFor(apiKey, listenerType);
      unsupportedApiVersions =
        handler !== undefined && (apiVersion < handler.minVersion || apiVersion > handler.maxVersion);
    } else {
      handler = this.registry.lookup(apiKey, apiVersion, listenerType);
    }
    if (!handler) {
      return close(
        `received request api key ${apiName(apiKey)} with version ${apiVersion} which is not enabled on a ${listenerType} listener`,
        peeked,
      );
    }

    let header: RequestHeader;
    let body: unknown;
    if (unsupportedApiVersions) {
      // RequestContext.parseRequest: an unsupported ApiVersions request is read as an empty v0
      // request; only its header (at the header version of the version sent) must be readable.
      try {
        header = readRequestHeader(new Reader(frame), requestHeaderVersion(apiKey, apiVersion));
      } catch (e) {
        return close(`error parsing request header of ApiVersions v${apiVersion}: ${msg(e)}`, peeked);
      }
      body = {
        clientSoftwareName: '',
        clientSoftwareVersion: '',
        clusterId: null,
        nodeId: -1,
      } satisfies ApiVersionsRequest;
    } else {
      try {
        ({ header, body } = decodeRequest(frame));
      } catch (e) {
        return close(
          `error getting request for apiKey ${apiName(apiKey)}, apiVersion ${apiVersion}: ${msg(e)}`,
          peeked,
        );
      }
      if (
        apiKey === ApiKey.ApiVersions &&
        apiVersion >= 3 &&
        isValidApiVersionsRequest(apiVersion, body as ApiVersionsRequest)
      ) {
        const r = body as ApiVersionsRequest;
        conn.clientInformation = { softwareName: r.clientSoftwareName, softwareVersion: r.clientSoftwareVersion };
      }
    }

    const ctx: RequestContext = {
      apiKey,
      // RequestContext.apiVersion(): the unsupported ApiVersions request is answered at v0.
      apiVersion: unsupportedApiVersions ? 0 : apiVersion,
      correlationId: header.correlationId,
      clientId: header.clientId ?? '',
      header,
      connectionId: conn.connectionId,
      listenerName: conn.listenerName,
      isControllerListener: conn.isControllerListener,
      clientAddress: conn.clientAddress,
      requestSize: frame.length,
      clientInformation: conn.clientInformation,
      principal: conn.principal ?? ANONYMOUS_PRINCIPAL,
      fetchFromFollower: apiKey === ApiKey.Fetch && isFollowerFetch(body),
    };

    let response: unknown;
    const quota = this.requestQuota?.active() && !isExemptFromRequestQuota(ctx, body) ? this.requestQuota : undefined;
    try {
      if (quota) {
        const h = handler;
        const { value, ms } = await metered(async () => h.handle(ctx, body, this.services));
        response = value;
        if (response !== undefined) this.throttleRequest(quota, ctx, response, ms);
      } else {
        response = await handler.handle(ctx, body, this.services);
      }
      if (response === undefined) throw new Error(`handler returned undefined (use null for "no response")`);
    } catch (e) {
      if (e instanceof CloseConnectionError) return close(e.message, peeked);
      this.logger.error(`error handling ${describe(ctx)}: ${stack(e)}`);
      const fallback = this.errorResponse(handler, ctx, body);
      if (fallback.kind !== 'body')
        return fallback.kind === 'none' ? { kind: 'noResponse', ctx } : close(fallback.reason, peeked);
      response = fallback.body;
    }
    // KIP-219: the response goes out now with its throttle_time_ms; the connection is muted after it
    throttle(conn, requestThrottleOf(ctx));
    if (response === null) return { kind: 'noResponse', ctx };
    this.metrics?.recordErrors(apiKey, response);

    try {
      return respond(ctx, response);
    } catch (e) {
      this.logger.error(`error encoding the response to ${describe(ctx)}: ${stack(e)}`);
      const fallback = this.errorResponse(handler, ctx, body);
      if (fallback.kind === 'none') return { kind: 'noResponse', ctx };
      if (fallback.kind === 'fail') return close(fallback.reason, peeked);
      try {
        return respond(ctx, fallback.body);
      } catch (e2) {
        return close(`cannot encode the error response to ${describe(ctx)}: ${msg(e2)}`, peeked);
      }
    }
  }

  /**
   * ClientRequestQuotaManager.maybeRecordAndGetThrottleTimeMs for a handled request: its time recorded
   * for its (user, client-id); when over the quota, the response's throttle_time_ms is at least the
   * throttle and the connection is muted for it (a handler's own byte-rate throttle may be larger: the
   * larger counts, as Produce's and Fetch's max of the two in Kafka).
   */
  private throttleRequest(quota: RequestQuota, ctx: RequestContext, response: unknown, ms: number): void {
    const throttleMs = quota.recordAndGetThrottleTimeMs(ctx, ms);
    if (throttleMs <= 0) return;
    setRequestThrottle(ctx, throttleMs);
    if (response !== null && typeof response === 'object' && 'throttleTimeMs' in response) {
      const r = response as { throttleTimeMs: number };
      r.throttleTimeMs = Math.max(r.throttleTimeMs, throttleMs);
    }
  }

  private errorResponse(
    handler: ApiHandler<Services>,
    ctx: RequestContext,
    body: unknown,
  ): { kind: 'body'; body: unknown } | { kind: 'none' } | { kind: 'fail'; reason: string } {
    try {
      const r = handler.errorResponse(ctx, body, ErrorCode.UNKNOWN_SERVER_ERROR);
      return r === null || r === undefined ? { kind: 'none' } : { kind: 'body', body: r };
    } catch (e) {
      this.logger.error(`error building the error response to ${describe(ctx)}: ${stack(e)}`);
      return { kind: 'fail', reason: `no error response for ${describe(ctx)}` };
    }
  }
}

/** A Fetch from a replica (RequestChannel's FetchFollower metrics): a replica id in the request. */
function isFollowerFetch(body: unknown): boolean {
  const b = body as { replicaId?: number; replicaState?: { replicaId: number } };
  return Math.max(b.replicaState?.replicaId ?? -1, b.replicaId ?? -1) >= 0;
}

function respond(ctx: RequestContext, body: unknown): DispatchOutcome {
  const frame = encodeResponseParts(ctx.apiKey, ctx.apiVersion, ctx.correlationId, body);
  let size = 0;
  for (const b of frame) size += b.length;
  return { kind: 'response', ctx, frame, size };
}

function close(reason: string, header: PeekedHeader | null): DispatchOutcome {
  return { kind: 'close', reason, header };
}

export function describe(ctx: RequestContext): string {
  return `${apiName(ctx.apiKey)} v${ctx.header.requestApiVersion} (correlation id ${ctx.correlationId}, client id ${ctx.clientId}) on ${ctx.connectionId}`;
}

function msg(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function stack(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}
