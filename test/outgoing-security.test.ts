// The security of a node's own connections (src/broker/security/outgoing.ts), read from server
// properties as Kafka's ChannelBuilders.clientChannelBuilder reads them for the controller and the
// inter-broker listener, and the start-up refusals naming the key. Certificates are made by the test.
//
//   npm run build && node --test dist/test/outgoing-security.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../src/config/config-def.js';
import { loadServerConfig } from '../src/config/load.js';
import {
  controllerOutgoingSecurity,
  interBrokerOutgoingSecurity,
  nodeOutgoingSecurity,
} from '../src/broker/security/outgoing.js';
import { makeCerts, STORE_PASSWORD, type TestCerts } from './helpers/certs.js';

let certs: TestCerts;
before(() => {
  certs = makeCerts();
});
after(() => certs?.cleanup());

const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule';

const config = (props: Record<string, string>) =>
  loadServerConfig({
    properties: {
      'process.roles': 'broker',
      'node.id': '2',
      listeners: 'INTERNAL://127.0.0.1:9092',
      'inter.broker.listener.name': 'INTERNAL',
      'controller.listener.names': 'CONTROLLER',
      'controller.quorum.voters': '1@127.0.0.1:9093',
      'log.dirs': '/tmp/unused-outgoing-security',
      ...props,
    },
  }).config;

const refusedKey = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return `${e.key ?? ''}: ${e.message}`;
  }
  assert.fail('expected a ConfigError');
};

test('PLAINTEXT listeners: nothing to add', () => {
  const c = config({ 'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT' });
  assert.deepEqual(nodeOutgoingSecurity(c), { controller: {}, interBroker: {} });
});

test('SASL_SSL controller listener with PLAIN: the listener trust store, key store as client certificate, JAAS username/password', () => {
  const c = config({
    'listener.security.protocol.map': 'CONTROLLER:SASL_SSL,INTERNAL:PLAINTEXT',
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': `${PLAIN} required username="ctl" password="ctl-secret" user_ctl="ctl-secret";`,
    'listener.name.controller.ssl.truststore.type': 'PEM',
    'listener.name.controller.ssl.truststore.location': certs.ca.certPath,
    'listener.name.controller.ssl.keystore.type': 'PKCS12',
    'listener.name.controller.ssl.keystore.location': certs.client.keystoreP12Path,
    'listener.name.controller.ssl.keystore.password': STORE_PASSWORD,
  });
  const s = controllerOutgoingSecurity(c);
  assert.deepEqual(s.sasl, { mechanism: 'PLAIN', username: 'ctl', password: 'ctl-secret' });
  assert.equal(s.tls?.verifyHostname, true);
  assert.ok(s.tls?.options.ca, 'trust store');
  // the key store's key and certificate chain, read without Node's pfx (which would trust its CAs)
  assert.ok(s.tls?.options.key && s.tls.options.cert, 'client certificate');
  assert.equal(s.tls?.options.pfx, undefined);
  assert.deepEqual(interBrokerOutgoingSecurity(c), {});
});

test('SSL inter-broker listener: bare ssl.* settings, endpoint identification off', () => {
  const c = config({
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,INTERNAL:SSL',
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certs.ca.certPath,
    'listener.name.internal.ssl.endpoint.identification.algorithm': '',
  });
  const s = interBrokerOutgoingSecurity(c);
  assert.equal(s.sasl, undefined);
  assert.equal(s.tls?.verifyHostname, false);
});

test('SCRAM-SHA-512 between brokers', () => {
  const c = config({
    'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,INTERNAL:SASL_PLAINTEXT',
    'listener.name.internal.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    'listener.name.internal.scram-sha-512.sasl.jaas.config': `${SCRAM} required username="broker" password="b";`,
  });
  assert.deepEqual(interBrokerOutgoingSecurity(c), {
    sasl: { mechanism: 'SCRAM-SHA-512', username: 'broker', password: 'b', tokenAuth: false },
  });
});

test('refusals name the key: GSSAPI default, OAUTHBEARER, no JAAS, no username, a login callback class, mechanism not enabled, JKS trust store', () => {
  const sasl = { 'listener.security.protocol.map': 'CONTROLLER:SASL_PLAINTEXT,INTERNAL:PLAINTEXT' };
  assert.match(
    refusedKey(() => controllerOutgoingSecurity(config(sasl)))!,
    /^sasl\.mechanism\.controller\.protocol: sasl\.mechanism\.controller\.protocol is GSSAPI \(Kafka's default\), which tkafka does not implement/,
  );
  assert.match(
    refusedKey(() =>
      controllerOutgoingSecurity(config({ ...sasl, 'sasl.mechanism.controller.protocol': 'OAUTHBEARER' })),
    )!,
    /^sasl\.mechanism\.controller\.protocol: .*authenticate with PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 only/,
  );
  assert.match(
    refusedKey(() => controllerOutgoingSecurity(config({ ...sasl, 'sasl.mechanism.controller.protocol': 'PLAIN' })))!,
    /^listener\.name\.controller\.plain\.sasl\.jaas\.config: listener\.name\.controller\.plain\.sasl\.jaas\.config is not set/,
  );
  assert.match(
    refusedKey(() =>
      controllerOutgoingSecurity(
        config({
          ...sasl,
          'sasl.mechanism.controller.protocol': 'PLAIN',
          'listener.name.controller.plain.sasl.jaas.config': `${PLAIN} required user_ctl="x";`,
        }),
      ),
    )!,
    /^listener\.name\.controller\.plain\.sasl\.jaas\.config: Invalid value for listener\.name\.controller\.plain\.sasl\.jaas\.config: .*must set both username and password/,
  );
  assert.match(
    refusedKey(() =>
      controllerOutgoingSecurity(
        config({
          ...sasl,
          'sasl.mechanism.controller.protocol': 'PLAIN',
          'listener.name.controller.plain.sasl.jaas.config': `${PLAIN} required username="a" password="b";`,
          'listener.name.controller.plain.sasl.login.callback.handler.class': 'com.example.Handler',
        }),
      ),
    )!,
    /^listener\.name\.controller\.plain\.sasl\.login\.callback\.handler\.class: .* is set: tkafka's own connections to the CONTROLLER listener/,
  );
  assert.match(
    refusedKey(() =>
      interBrokerOutgoingSecurity(
        config({
          'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,INTERNAL:SASL_PLAINTEXT',
          'listener.name.internal.sasl.enabled.mechanisms': 'PLAIN',
          'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-256',
        }),
      ),
    )!,
    /^sasl\.mechanism\.inter\.broker\.protocol: sasl\.mechanism\.inter\.broker\.protocol must be included in sasl\.enabled\.mechanisms when SASL is used for inter-broker communication$/,
  );
  assert.match(
    refusedKey(() =>
      interBrokerOutgoingSecurity(
        config({
          'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,INTERNAL:SSL',
          'listener.name.internal.ssl.truststore.location': certs.ca.truststoreP12Path,
        }),
      ),
    )!,
    /^ssl\.truststore\.type: Invalid value JKS for configuration ssl\.truststore\.type/,
  );
});
