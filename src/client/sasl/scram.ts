// SCRAM-SHA-256 / SCRAM-SHA-512 client (Kafka's ScramSaslClient): client-first, then client-final
// with the proof, then the server's signature is verified; a wrong one fails the authentication.
import { timingSafeEqual } from 'node:crypto';
import {
  authMessage,
  clientFinalWithoutProof,
  clientProof,
  formatClientFinal,
  formatClientFirst,
  parseServerFinal,
  parseServerFirst,
  saltedPassword,
  saslName,
  scramMechanism,
  secureNonce,
  serverKey,
  serverSignature,
  type ClientFirstMessage,
  type ScramMechanism,
  type ScramMechanismName,
} from '../../protocol/sasl/scram.js';
import { SaslAuthenticationError } from '../errors.js';
import type { SaslMechanismClient } from './mechanism.js';

type State = 'first' | 'final' | 'verify' | 'complete';

export class ScramClient implements SaslMechanismClient {
  private readonly m: ScramMechanism;
  private state: State = 'first';
  private clientFirst: ClientFirstMessage | null = null;
  private salted: Buffer | null = null;
  private auth: Buffer | null = null;

  constructor(
    readonly mechanism: ScramMechanismName,
    private readonly username: string,
    private readonly password: string,
    private readonly tokenAuth = false,
    private readonly nonce: string = secureNonce(),
  ) {
    this.m = scramMechanism(mechanism)!;
  }

  initialResponse(): Promise<Buffer> {
    const extensions = new Map<string, string>();
    if (this.tokenAuth) extensions.set('tokenauth', 'true');
    this.clientFirst = { authorizationId: '', saslName: saslName(this.username), nonce: this.nonce, extensions };
    this.state = 'final';
    return Promise.resolve(Buffer.from(formatClientFirst(this.clientFirst), 'utf8'));
  }

  evaluateChallenge(challenge: Buffer): Buffer | null {
    const fail = (msg: string): never => {
      throw new SaslAuthenticationError(msg);
    };
    try {
      if (this.state === 'final') {
        const text = challenge.toString('utf8');
        const sf = parseServerFirst(text);
        if (!sf.nonce.startsWith(this.clientFirst!.nonce))
          fail('Invalid server nonce: does not start with client nonce');
        if (sf.iterations < this.m.minIterations)
          fail(
            `Requested iterations ${sf.iterations} is less than the minimum ${this.m.minIterations} for ${this.m.name}`,
          );
        this.salted = saltedPassword(this.m, this.password, sf.salt, sf.iterations);
        const noProof = clientFinalWithoutProof(Buffer.from('n,,', 'utf8'), sf.nonce);
        this.auth = authMessage(this.clientFirst!, text, noProof);
        const proof = clientProof(this.m, this.salted, this.auth);
        this.state = 'verify';
        return Buffer.from(
          formatClientFinal({ channelBinding: Buffer.from('n,,', 'utf8'), nonce: sf.nonce, proof }),
          'utf8',
        );
      }
      if (this.state === 'verify') {
        const fin = parseServerFinal(challenge.toString('utf8'));
        if ('error' in fin) fail(`Sasl authentication using ${this.m.name} failed with error: ${fin.error}`);
        const expected = serverSignature(this.m, serverKey(this.m, this.salted!), this.auth!);
        const got = (fin as { serverSignature: Buffer }).serverSignature;
        if (got.length !== expected.length || !timingSafeEqual(got, expected))
          fail('Invalid server signature in server final message');
        this.state = 'complete';
        return null;
      }
    } catch (e) {
      if (e instanceof SaslAuthenticationError) throw e;
      throw new SaslAuthenticationError((e as Error).message);
    }
    throw new SaslAuthenticationError(`Unexpected challenge in Sasl client state ${this.state.toUpperCase()}`);
  }
}
