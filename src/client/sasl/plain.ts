// PLAIN (RFC 4616): one message, `authzid NUL authcid NUL password`, as Java's PlainClient sends it
// (Kafka's client leaves the authorization id empty).
import type { SaslMechanismClient } from './mechanism.js';

export function plainInitialResponse(username: string, password: string): Buffer {
  return Buffer.from(`\u0000${username}\u0000${password}`, 'utf8');
}

export class PlainClient implements SaslMechanismClient {
  readonly mechanism = 'PLAIN';
  constructor(
    private readonly username: string,
    private readonly password: string,
  ) {}

  initialResponse(): Promise<Buffer> {
    return Promise.resolve(plainInitialResponse(this.username, this.password));
  }

  evaluateChallenge(): Buffer | null {
    return null;
  }
}
