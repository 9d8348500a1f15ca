// SASL/SCRAM-SHA-256 and -512 on the broker: Kafka's ScramSaslServer. The credential comes from the
// metadata image (UserScramCredentialRecord); an unknown user, too few iterations, a bad nonce or
// a wrong proof are SaslExceptions, which SaslServerAuthenticator reports to the client only as
// "invalid credentials" (invalidCredentialsMessage), so an unknown user fails as a wrong password.
import {
  authMessage,
  clientFinalWithoutProof,
  formatServerFinal,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
  secureNonce,
  serverSignature,
  username as scramUsername,
  verifyClientProof,
  type ClientFirstMessage,
  type ScramCredential,
  type ScramMechanism,
} from '../../protocol/sasl/scram.js';
import type { UserScramCredentialRecord } from '../../protocol/generated/metadata/UserScramCredentialRecord.js';
import type { SaslServerMechanism, SaslStep } from './mechanism.js';

/** Looks a user's credential up for one mechanism (undefined: none). */
export type ScramCredentialLookup = (mechanism: ScramMechanism, user: string) => ScramCredential | undefined;

type State = 'first' | 'final' | 'complete' | 'failed';

export class ScramServer implements SaslServerMechanism {
  readonly name: string;
  private state: State = 'first';
  private clientFirst: ClientFirstMessage | null = null;
  private serverFirst = '';
  private serverNonce = '';
  private credential: ScramCredential | null = null;
  private user = '';

  constructor(
    private readonly mechanism: ScramMechanism,
    private readonly lookup: ScramCredentialLookup,
    private readonly invalidCredentials: string,
  ) {
    this.name = mechanism.name;
  }

  evaluate(token: Buffer): SaslStep {
    const step = this.step(token.toString('utf8'));
    if (step.kind === 'failed') {
      this.state = 'failed';
      this.credential = null;
    }
    return step;
  }

  private step(message: string): SaslStep {
    // a SaslException: the client is told only that its credentials are invalid
    const saslException = (cause: string): SaslStep => ({ kind: 'failed', message: this.invalidCredentials, cause });
    switch (this.state) {
      case 'first': {
        let first: ClientFirstMessage;
        try {
          first = parseClientFirst(message);
        } catch (e) {
          return saslException((e as Error).message);
        }
        const user = scramUsername(first.saslName);
        if (first.extensions.get('tokenauth') === 'true')
          return saslException(`Token Authentication failed: Invalid tokenId : ${user}`);
        const credential = this.lookup(this.mechanism, user);
        if (!credential) return saslException('Authentication failed: Invalid user credentials');
        if (first.authorizationId !== '' && first.authorizationId !== user) {
          // a SaslAuthenticationException: its message is the client's
          const m = 'Authentication failed: Client requested an authorization id that is different from username';
          return { kind: 'failed', message: m, cause: m };
        }
        if (credential.iterations < this.mechanism.minIterations)
          return saslException(
            `Iterations ${credential.iterations} is less than the minimum ${this.mechanism.minIterations} for ${this.mechanism.name}`,
          );
        this.clientFirst = first;
        this.credential = credential;
        this.user = user;
        this.serverNonce = secureNonce();
        this.serverFirst = formatServerFirst({
          nonce: first.nonce + this.serverNonce,
          salt: credential.salt,
          iterations: credential.iterations,
        });
        this.state = 'final';
        return { kind: 'challenge', token: Buffer.from(this.serverFirst, 'utf8') };
      }
      case 'final': {
        let final;
        try {
          final = parseClientFinal(message);
        } catch (e) {
          return saslException((e as Error).message);
        }
        // Kafka 4.x compares the whole nonce (RFC 5802); librdkafka before 2.6.1 repeats the client
        // nonce in its final message and is refused (librdkafka#4895), by Kafka and so here
        if (final.nonce !== this.clientFirst!.nonce + this.serverNonce)
          return saslException('Invalid client nonce in the final client message.');
        const auth = authMessage(
          this.clientFirst!,
          this.serverFirst,
          clientFinalWithoutProof(final.channelBinding, final.nonce),
        );
        const cred = this.credential!;
        if (!verifyClientProof(this.mechanism, cred, auth, final.proof))
          return saslException('Invalid client credentials');
        const signature = serverSignature(this.mechanism, cred.serverKey, auth);
        this.credential = null;
        this.state = 'complete';
        return {
          kind: 'complete',
          token: Buffer.from(formatServerFinal({ serverSignature: signature }), 'utf8'),
          authorizationId: this.user,
        };
      }
      default:
        return {
          kind: 'failed',
          message: `Unexpected challenge in Sasl server state ${this.state.toUpperCase()}`,
          cause: 'unexpected challenge',
        };
    }
  }
}

/** Credentials of the metadata image (`image.scramCredentials`, keyed `${mechanism type}:${name}`). */
export function imageScramCredentials(
  credentials: () => ReadonlyMap<string, UserScramCredentialRecord>,
): ScramCredentialLookup {
  return (mechanism, user) => {
    const r = credentials().get(`${mechanism.type}:${user}`);
    return r ? { salt: r.salt, storedKey: r.storedKey, serverKey: r.serverKey, iterations: r.iterations } : undefined;
  };
}
