// The contract between the network layer and the API handlers: one handler file per API
// registers the versions it serves, so ApiVersions is derived from the registry and cannot lie.
import type { RequestHeader } from '../../protocol/generated/protocol/RequestHeader.js';

export interface RequestContext {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  readonly header: RequestHeader;
  /** Unique per connection, e.g. "127.0.0.1:9092-127.0.0.1:53412-7". */
  readonly connectionId: string;
  /** The listener the request arrived on (e.g. PLAINTEXT, CONTROLLER). */
  readonly listenerName: string;
  /** Whether that listener is the controller listener (ApiVersions differs per listener type). */
  readonly isControllerListener: boolean;
  readonly clientAddress: string;
  /** Size of the request frame in bytes. */
  readonly requestSize: number;
  /**
   * What the client said about itself in ApiVersions v3+ (KIP-511); "unknown" until then.
   * Kafka's ClientInformation, registered per connection.
   */
  readonly clientInformation?: ClientInformation;
  /**
   * The authenticated principal, `Type:name` (Kafka's KafkaPrincipal.toString): the TLS/SASL one
   * of the connection, the Envelope's for a forwarded request; absent means `User:ANONYMOUS`.
   */
  readonly principal?: string;
  /** A Fetch sent by a replica (RequestMetrics records it as FetchFollower, else FetchConsumer). */
  readonly fetchFromFollower?: boolean;
}

export interface ClientInformation {
  readonly softwareName: string;
  readonly softwareVersion: string;
}

/**
 * A handler of one API: `Req` is the generated request type of that API (what the dispatcher decoded),
 * `Res` what the generated response writer accepts (`Input<...Response>`). It returns the response body,
 * or `null` for "no response" (Produce with acks=0). Protocol errors are data: put error codes in the
 * body. A thrown exception is a bug: the dispatcher logs it and answers UNKNOWN_SERVER_ERROR.
 */
export interface ApiHandler<Services = unknown, Req = unknown, Res = unknown> {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** Listener types that serve the API ('broker', 'controller'). */
  readonly listeners: readonly ('broker' | 'controller')[];
  handle(ctx: RequestContext, request: Req, services: Services): Promise<Res | null> | Res | null;
  /**
   * The response a failed request gets: the body with `errorCode` set everywhere it belongs
   * (Kafka's AbstractRequest.getErrorResponse). Used for UNKNOWN_SERVER_ERROR and the like.
   * `null` means no response, as for a failed Produce with acks=0. `genericErrorResponse` in
   * error-responses.ts builds it for the common request shapes.
   */
  errorResponse(ctx: RequestContext, request: Req, errorCode: number): unknown;
  /**
   * On a broker-only node the handler forwards to the controller itself (what it checks on the
   * broker first, then a request of the rest: KafkaApis with ConfigAdminManager.preprocess), so
   * api/forwarded.ts hands it the request rather than forwarding it whole.
   */
  readonly forwardsItself?: boolean;
}

/**
 * A handler as the registry holds it, its request and response types erased: the dispatcher decodes
 * each request with the codec of the handler's own API, so the body it passes has the handler's `Req`.
 */
export type RegisteredHandler<Services = unknown> = ApiHandler<Services, unknown, unknown>;

/**
 * Thrown by a handler to close the connection without answering, as Kafka does after a failed
 * acks=0 produce (the client gets no response to learn the error from). Not a bug: the dispatcher
 * closes quietly instead of logging a stack and answering UNKNOWN_SERVER_ERROR.
 */
export class CloseConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CloseConnectionError';
  }
}
