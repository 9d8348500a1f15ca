// One SASL mechanism's client side, as javax.security.sasl.SaslClient drives it in Kafka's
// SaslClientAuthenticator: an initial response, then one token per server challenge until complete.

export interface SaslMechanismClient {
  readonly mechanism: string;
  /** The first token (the mechanism's initial response). */
  initialResponse(): Promise<Buffer>;
  /**
   * The answer to a server challenge, or null once the exchange is complete (nothing more to send).
   * Throws SaslAuthenticationError when the server's message is wrong (e.g. a bad SCRAM signature).
   */
  evaluateChallenge(challenge: Buffer): Buffer | null;
}
