// One SASL exchange on the server side (Kafka's javax.security.sasl.SaslServer as Kafka's
// mechanisms implement it). `evaluate` takes the client's token and returns the server's answer;
// a failure carries the message the client gets in SaslAuthenticate's errorMessage.
export type SaslStep =
  | { readonly kind: 'challenge'; readonly token: Buffer }
  | { readonly kind: 'complete'; readonly token: Buffer; readonly authorizationId: string }
  | { readonly kind: 'failed'; readonly message: string; readonly cause: string };

export interface SaslServerMechanism {
  readonly name: string;
  evaluate(token: Buffer): SaslStep;
}

/**
 * SaslServerAuthenticator's message for a failure that is a SaslException and not a
 * SaslAuthenticationException: the cause is not told to the client.
 */
export const invalidCredentialsMessage = (mechanism: string, reauthenticating: boolean): string =>
  `Authentication failed during ${reauthenticating ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${mechanism}`;
