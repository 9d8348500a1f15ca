// SASL/PLAIN on the broker: Kafka's PlainSaslServer with PlainServerCallbackHandler, which checks
// the password against the `user_<name>="<password>"` options of the listener's PlainLoginModule.
// Every failure is a SaslAuthenticationException, so its message reaches the client as is.
import { timingSafeEqual } from 'node:crypto';
import type { SaslServerMechanism, SaslStep } from './mechanism.js';

const fail = (message: string): SaslStep => ({ kind: 'failed', message, cause: message });

/** message = [authzid] NUL authcid NUL passwd (RFC 4616), split as PlainSaslServer.extractTokens. */
function extractTokens(s: string): string[] {
  const tokens: string[] = [];
  let start = 0;
  for (let i = 0; i < 4; ++i) {
    const end = s.indexOf('\u0000', start);
    if (end === -1) {
      tokens.push(s.substring(start));
      break;
    }
    tokens.push(s.substring(start, end));
    start = end + 1;
  }
  return tokens;
}

export class PlainServer implements SaslServerMechanism {
  readonly name = 'PLAIN';
  private done = false;

  /** `users`: username → password, from the JAAS options user_<username>. */
  constructor(private readonly users: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): SaslStep {
    if (this.done) return fail('Unexpected challenge in Sasl server state COMPLETE');
    const text = token.toString('utf8');
    const tokens = extractTokens(text);
    if (tokens.length !== 3) return fail(`Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}`);
    const [authzid, username, password] = tokens as [string, string, string];
    if (username === '') return fail('Authentication failed: username not specified');
    if (password === '') return fail('Authentication failed: password not specified');
    const expected = this.users.get(username);
    if (expected === undefined || !sameString(expected, password))
      return fail('Authentication failed: Invalid username or password');
    if (authzid !== '' && authzid !== username)
      return fail('Authentication failed: Client requested an authorization id that is different from username');
    this.done = true;
    return { kind: 'complete', token: Buffer.alloc(0), authorizationId: username };
  }
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The users of a PlainLoginModule's options (Kafka's PlainServerCallbackHandler: user_<name>). */
export function plainUsers(options: ReadonlyMap<string, string>): Map<string, string> {
  const users = new Map<string, string>();
  for (const [k, v] of options) if (k.startsWith('user_')) users.set(k.slice('user_'.length), v);
  return users;
}
