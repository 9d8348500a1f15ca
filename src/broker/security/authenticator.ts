// The server side of SASL on one connection: Kafka's SaslServerAuthenticator as a state machine the
// connection feeds every received frame to until the client is authenticated (and again when the
// client re-authenticates, KIP-368). Until then the connection may send only ApiVersions, then
// SaslHandshake, then SaslAuthenticate (or, after a v0 handshake, raw SASL tokens):
// - any other request during the handshake fails authentication without an answer
//   ("Unexpected Kafka request of type METADATA during SASL handshake.");
// - an unknown mechanism: SaslHandshake error UNSUPPORTED_SASL_MECHANISM with the enabled mechanisms;
// - failed credentials: SaslAuthenticate error SASL_AUTHENTICATION_FAILED with Kafka's message.
// A failed authentication closes the connection: as Kafka's Selector does, the connection waits
// connection.failed.authentication.delay.ms, then writes the error response (if there is one) and
// closes. Success gives the principal User:<name>.
import { ApiKey } from '../../protocol/generated/apis.js';
import { apiSpec, decodeRequest, encodeResponse, peekRequestHeader } from '../../protocol/frame.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { SaslHandshakeRequest } from '../../protocol/generated/protocol/SaslHandshake.js';
import type { SaslAuthenticateRequest } from '../../protocol/generated/protocol/SaslAuthenticate.js';
import { scramMechanism } from '../../protocol/sasl/scram.js';
import { errorResponseFor } from '../api/error-responses.js';
import type { SaslListenerConfig } from './config.js';
import { invalidCredentialsMessage, type SaslServerMechanism } from './mechanism.js';
import { PlainServer } from './plain.js';
import { jwksKeySource } from './jwks.js';
import { OAuthBearerServer } from './oauthbearer.js';
import { ScramServer, type ScramCredentialLookup } from './scram.js';
import { userPrincipal } from './principal.js';

export type AuthStep =
  /** Authenticated (or ApiVersions during the handshake): the dispatcher handles the frame. */
  | { readonly kind: 'dispatch' }
  /** Write this size-prefixed response and go on reading. */
  | { readonly kind: 'respond'; readonly frame: Buffer[] }
  /** Authentication failed: after `delayMs` write `frame` (if any), then close. */
  | { readonly kind: 'fail'; readonly reason: string; readonly frame: Buffer[] | null; readonly delayMs: number }
  /** Close now, without an answer. */
  | { readonly kind: 'close'; readonly reason: string };

export interface ConnectionAuthenticator {
  /** `User:<name>` once authenticated. */
  readonly principal: string | undefined;
  /** The largest frame accepted until authenticated (sasl.server.max.receive.size), if limited. */
  readonly maxReceiveSize: number | undefined;
  /** Handles one received frame (without its size prefix); `nowMs` is a monotonic clock. */
  onFrame(frame: Buffer, nowMs: number): AuthStep;
}

type State =
  | 'initial' // HANDSHAKE_OR_VERSIONS_REQUEST
  | 'handshake' // HANDSHAKE_REQUEST: ApiVersions answered
  | 'authenticate' // SaslAuthenticate requests (handshake v1)
  | 'authenticate-raw' // raw tokens (handshake v0)
  | 'reauth-bad-mechanism'
  | 'complete'
  | 'failed';

/** ApiKeys enum name of Kafka (METADATA, API_VERSIONS) from the API's name. */
export const kafkaApiKeyName = (apiKey: number): string =>
  (apiSpec(apiKey)?.name ?? `UNKNOWN_${apiKey}`).replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** Kafka's KafkaChannel.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS. */
const MIN_REAUTH_INTERVAL_MS = 1000;

export class SaslServerAuthenticator implements ConnectionAuthenticator {
  private state: State = 'initial';
  private mechanism: SaslServerMechanism | null = null;
  private mechanismName = '';
  private _principal: string | undefined;
  /** Re-authentication (KIP-368): the previous session's mechanism and principal. */
  private previous: { mechanism: string; principal: string } | null = null;
  private sessionExpiresAt: number | null = null;
  private lastReauthStart = 0;

  constructor(
    private readonly config: SaslListenerConfig,
    private readonly scramCredential: ScramCredentialLookup,
  ) {}

  get principal(): string | undefined {
    return this._principal;
  }

  get maxReceiveSize(): number | undefined {
    return this.config.maxReceiveSize;
  }

  onFrame(frame: Buffer, nowMs: number): AuthStep {
    switch (this.state) {
      case 'complete':
        return this.onAuthenticatedFrame(frame, nowMs);
      case 'initial':
      case 'handshake':
        return this.onHandshakeFrame(frame);
      case 'authenticate':
        return this.onAuthenticateFrame(frame, nowMs);
      case 'authenticate-raw':
        return this.onRawToken(frame, nowMs);
      case 'reauth-bad-mechanism':
        return this.fail(
          `SASL mechanism '${this.mechanismName}' requested by client is not supported for re-authentication of mechanism '${this.previous?.mechanism ?? ''}'`,
          null,
        );
      default:
        return { kind: 'close', reason: 'SASL authentication failed' };
    }
  }

  /** Authenticated: SocketServer.Processor's re-authentication and expired-session checks. */
  private onAuthenticatedFrame(frame: Buffer, nowMs: number): AuthStep {
    let apiKey: number;
    try {
      apiKey = peekRequestHeader(frame).apiKey;
    } catch {
      return { kind: 'dispatch' }; // the dispatcher closes it
    }
    if (
      apiKey === ApiKey.SaslHandshake &&
      this.sessionExpiresAt !== null &&
      (this.lastReauthStart === 0 || nowMs - this.lastReauthStart >= MIN_REAUTH_INTERVAL_MS)
    ) {
      this.lastReauthStart = nowMs;
      this.previous = { mechanism: this.mechanismName, principal: this._principal! };
      this.mechanism = null;
      this.state = 'handshake';
      return this.onHandshakeFrame(frame);
    }
    if (this.sessionExpiresAt !== null && nowMs > this.sessionExpiresAt)
      return {
        kind: 'close',
        reason: `the SASL session of ${this._principal ?? ''} expired (connections.max.reauth.ms) and the client did not re-authenticate`,
      };
    return { kind: 'dispatch' };
  }

  private onHandshakeFrame(frame: Buffer): AuthStep {
    let apiKey: number;
    try {
      apiKey = peekRequestHeader(frame).apiKey;
      if (!apiSpec(apiKey)) throw new Error(`unknown API key ${apiKey}`);
    } catch {
      if (this.state === 'initial' && this.previous === null)
        // not a Kafka request: a 0.9 GSSAPI token, and GSSAPI is never enabled in tkafka
        return this.fail('Exception handling first SASL packet from client, GSSAPI is not supported by server', null);
      return { kind: 'close', reason: 'invalid request header during SASL handshake' };
    }
    if (apiKey !== ApiKey.ApiVersions && apiKey !== ApiKey.SaslHandshake)
      return this.fail(`Unexpected Kafka request of type ${kafkaApiKeyName(apiKey)} during SASL handshake.`, null);
    if (apiKey === ApiKey.ApiVersions) {
      if (this.state !== 'initial' || this.previous !== null)
        return {
          kind: 'close',
          reason: `Unexpected ApiVersions request received during SASL authentication state ${this.state === 'initial' ? 'REAUTH_PROCESS_HANDSHAKE' : 'HANDSHAKE_REQUEST'}`,
        };
      this.state = 'handshake';
      return { kind: 'dispatch' };
    }
    let decoded;
    try {
      decoded = decodeRequest(frame);
    } catch (e) {
      return { kind: 'close', reason: `invalid SaslHandshake request: ${(e as Error).message}` };
    }
    const version = decoded.apiVersion;
    const mechanism = (decoded.body as SaslHandshakeRequest).mechanism;
    const enabled = [...this.config.enabledMechanisms];
    if (!enabled.includes(mechanism)) {
      const response = encodeResponse(ApiKey.SaslHandshake, version, decoded.correlationId, {
        errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM,
        mechanisms: enabled,
      });
      return this.fail(`Unsupported SASL mechanism ${mechanism}`, response);
    }
    const response = encodeResponse(ApiKey.SaslHandshake, version, decoded.correlationId, {
      errorCode: ErrorCode.NONE,
      mechanisms: enabled,
    });
    this.mechanismName = mechanism;
    if (this.previous !== null && this.previous.mechanism !== mechanism) {
      this.state = 'reauth-bad-mechanism';
      return { kind: 'respond', frame: response };
    }
    this.mechanism = this.createMechanism(mechanism);
    this.state = version >= 1 ? 'authenticate' : 'authenticate-raw';
    return { kind: 'respond', frame: response };
  }

  private createMechanism(name: string): SaslServerMechanism {
    if (name === 'PLAIN') return new PlainServer(this.config.plainUsers);
    if (name === 'OAUTHBEARER' && this.config.oauthbearerJwks)
      return new OAuthBearerServer(
        { settings: this.config.oauthbearerJwks, keys: jwksKeySource(this.config.oauthbearerJwks.jwks) },
        this.invalidCredentials(),
      );
    if (name === 'OAUTHBEARER' && this.config.oauthbearer)
      return new OAuthBearerServer(this.config.oauthbearer, this.invalidCredentials());
    const scram = scramMechanism(name);
    if (scram) return new ScramServer(scram, this.scramCredential, this.invalidCredentials());
    throw new Error(`mechanism ${name} is not implemented`); // config.ts refuses it at start-up
  }

  private invalidCredentials(): string {
    return invalidCredentialsMessage(this.mechanismName, this.previous !== null);
  }

  private onAuthenticateFrame(frame: Buffer, nowMs: number): AuthStep {
    let decoded;
    try {
      decoded = decodeRequest(frame);
    } catch (e) {
      return { kind: 'close', reason: `invalid request during SASL authentication: ${(e as Error).message}` };
    }
    const { apiKey, apiVersion: version, correlationId } = decoded;
    if (apiKey !== ApiKey.SaslAuthenticate) {
      const body = errorResponseFor(apiKey, decoded.body, ErrorCode.ILLEGAL_SASL_STATE, version);
      return this.fail(
        `Unexpected Kafka request of type ${kafkaApiKeyName(apiKey)} during SASL authentication.`,
        body === null ? null : encodeResponse(apiKey, version, correlationId, body),
      );
    }
    const respond = (errorCode: number, errorMessage: string | null, authBytes: Buffer, sessionLifetimeMs: number) =>
      encodeResponse(ApiKey.SaslAuthenticate, version, correlationId, {
        errorCode,
        errorMessage,
        authBytes,
        sessionLifetimeMs: BigInt(sessionLifetimeMs),
      });
    const step = this.mechanism!.evaluate((decoded.body as SaslAuthenticateRequest).authBytes);
    if (step.kind === 'failed')
      return this.fail(step.cause, respond(ErrorCode.SASL_AUTHENTICATION_FAILED, step.message, Buffer.alloc(0), 0));
    if (step.kind === 'challenge') return { kind: 'respond', frame: respond(ErrorCode.NONE, '', step.token, 0) };
    const principal = userPrincipal(step.authorizationId);
    const changed = this.principalChangeMessage(principal);
    if (changed) return this.fail(changed, respond(ErrorCode.SASL_AUTHENTICATION_FAILED, changed, Buffer.alloc(0), 0));
    const lifetime = this.complete(principal, nowMs);
    return { kind: 'respond', frame: respond(ErrorCode.NONE, '', step.token, lifetime) };
  }

  /** After a v0 handshake: size-prefixed SASL tokens without Kafka headers. */
  private onRawToken(frame: Buffer, nowMs: number): AuthStep {
    const step = this.mechanism!.evaluate(frame);
    if (step.kind === 'failed') return this.fail(step.message, null);
    const size = Buffer.alloc(4);
    size.writeInt32BE(step.token.length);
    if (step.kind === 'complete') {
      const principal = userPrincipal(step.authorizationId);
      const changed = this.principalChangeMessage(principal);
      if (changed) return this.fail(changed, null);
      this.complete(principal, nowMs);
    }
    return { kind: 'respond', frame: [size, step.token] };
  }

  private principalChangeMessage(principal: string): string | null {
    if (this.previous === null || this.previous.principal === principal) return null;
    const dotted = (p: string) => p.replace(':', '.');
    return `Cannot change principals during re-authentication from ${dotted(this.previous.principal)}: ${dotted(principal)}`;
  }

  /**
   * ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs: the session lasts
   * connections.max.reauth.ms, or until the credential expires (an OAUTHBEARER token's exp) if sooner.
   */
  private complete(principal: string, nowMs: number): number {
    this._principal = principal;
    this.state = 'complete';
    this.previous = null;
    const max = this.config.maxReauthMs.get(this.mechanismName) ?? 0;
    const credentialExpiresAt =
      this.mechanism instanceof OAuthBearerServer ? this.mechanism.credentialExpiresAtMs : null;
    if (credentialExpiresAt === null && !(max > 0)) {
      this.sessionExpiresAt = null;
      return 0;
    }
    const untilExpiry = credentialExpiresAt === null ? Infinity : credentialExpiresAt - Date.now();
    const lifetime = Math.max(0, Math.min(untilExpiry, max > 0 ? max : Infinity));
    this.sessionExpiresAt = nowMs + lifetime;
    return lifetime;
  }

  private fail(reason: string, frame: Buffer[] | null): AuthStep {
    this.state = 'failed';
    this.mechanism = null;
    return { kind: 'fail', reason, frame, delayMs: this.config.failedAuthenticationDelayMs };
  }
}

/** One authenticator per connection of a SASL listener. */
export function saslAuthenticatorFactory(
  listeners: ReadonlyMap<string, SaslListenerConfig>,
  scramCredential: ScramCredentialLookup,
): (listenerName: string) => ConnectionAuthenticator | undefined {
  return (listenerName) => {
    const config = listeners.get(listenerName.toUpperCase());
    return config ? new SaslServerAuthenticator(config, scramCredential) : undefined;
  };
}
