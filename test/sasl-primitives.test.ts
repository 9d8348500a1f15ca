// The SCRAM primitives against RFC 7677's SCRAM-SHA-256 test vector and Kafka's message formats,
// and the JAAS parser against the cases of Kafka's JaasContextTest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  authMessage,
  clientFinalWithoutProof,
  clientProof,
  credentialFromSaltedPassword,
  formatClientFinal,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
  parseServerFinal,
  parseServerFirst,
  saltedPassword,
  saslName,
  scramMechanism,
  secureNonce,
  serverSignature,
  username,
  verifyClientProof,
} from '../src/protocol/sasl/scram.js';
import { JaasConfigError, parseJaasConfig, parseSingleLoginModule } from '../src/protocol/sasl/jaas.js';

test('SCRAM-SHA-256: the exchange of RFC 7677 section 3', () => {
  const m = scramMechanism('SCRAM-SHA-256')!;
  const first = parseClientFirst('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
  assert.equal(first.saslName, 'user');
  const serverFirst = 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
  const sf = parseServerFirst(serverFirst);
  assert.equal(formatServerFirst(sf), serverFirst);
  const salted = saltedPassword(m, 'pencil', sf.salt, sf.iterations);
  const noProof = clientFinalWithoutProof(Buffer.from('n,,'), sf.nonce);
  const auth = authMessage(first, serverFirst, noProof);
  const proof = clientProof(m, salted, auth);
  const final = formatClientFinal({ channelBinding: Buffer.from('n,,'), nonce: sf.nonce, proof });
  assert.equal(
    final,
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  );
  const cred = credentialFromSaltedPassword(m, sf.salt, salted, 4096);
  assert.ok(verifyClientProof(m, cred, auth, parseClientFinal(final).proof));
  assert.ok(!verifyClientProof(m, cred, auth, Buffer.alloc(32)));
  const v = serverSignature(m, cred.serverKey, auth).toString('base64');
  assert.equal(v, '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  assert.deepEqual(parseServerFinal(`v=${v}`), { serverSignature: Buffer.from(v, 'base64') });
  assert.deepEqual(parseServerFinal('e=invalid-proof'), { error: 'invalid-proof' });
});

test('SCRAM messages: extensions, authzid, escaping and refusals', () => {
  const f = parseClientFirst('n,a=alice,n=al=3Dice=2C,r=abc,tokenauth=true');
  assert.equal(f.authorizationId, 'alice');
  assert.equal(username(f.saslName), 'al=ice,');
  assert.equal(saslName('al=ice,'), 'al=3Dice=2C');
  assert.equal(f.extensions.get('tokenauth'), 'true');
  assert.throws(() => parseClientFirst('y,,n=user,r=abc'), /Invalid SCRAM client first message format/);
  assert.throws(() => parseServerFirst('r=abc,s=AAAA,i=0'), /invalid iterations 0/);
  assert.throws(() => parseClientFinal('c=biws,r=abc'), /Invalid SCRAM client final message format/);
  assert.match(secureNonce(), /^[0-9a-z]{20,26}$/);
});

test('JAAS: Kafka JaasConfig syntax (flags, quoting, comments) and its error messages', () => {
  const [m] = parseJaasConfig(
    `org.apache.kafka.common.security.plain.PlainLoginModule required /* c */ username="alice" password='a"b\\n' // x
     user_bob="bob-secret" key$1=value_2;`,
  );
  assert.equal(m!.loginModule, 'org.apache.kafka.common.security.plain.PlainLoginModule');
  assert.equal(m!.controlFlag, 'required');
  assert.deepEqual(
    [...m!.options],
    [
      ['username', 'alice'],
      ['password', 'a"b\n'],
      ['user_bob', 'bob-secret'],
      ['key$1', 'value_2'],
    ],
  );
  assert.equal(parseJaasConfig('a.B OPTIONAL; c.D sufficient x=y;').length, 2);
  const err = (s: string): string => {
    try {
      parseSingleLoginModule(s);
    } catch (e) {
      assert.ok(e instanceof JaasConfigError);
      return e.message;
    }
    return 'no error';
  };
  assert.equal(err(''), 'Login module not specified in JAAS config');
  assert.equal(err('a.B'), 'Login module control flag not specified in JAAS config');
  assert.equal(err('a.B maybe;'), "Invalid login module control flag 'maybe' in JAAS config");
  assert.equal(err('a.B required x=1;'), "Value not specified for key 'x' in JAAS config");
  assert.equal(err('a.B required x="1"'), 'JAAS config entry not terminated by semi-colon');
  assert.equal(err('a.B required; c.D required;'), 'JAAS config property contains 2 login modules, should be 1 module');
});
