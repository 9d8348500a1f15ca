// The client matrix's security scenarios (test/clients/README.md, "Security scenarios"): the secured
// listener both brokers run beside PLAINTEXT, the users made at start, and the environment a
// family's program reads for a security scenario.
import { STORE_PASSWORD, type TestCerts } from '../helpers/certs.js';
import { runTkafka } from '../helpers/tool-run.js';

/** The secured listeners on both brokers (name = security protocol, except MTLS: SSL with client auth). */
export const SASL_LISTENER = 'SASL_PLAINTEXT';
export const SASL_SSL_LISTENER = 'SASL_SSL';
export const MTLS_LISTENER = 'MTLS';
/** Listener name → security protocol, in the order they are configured after PLAINTEXT and CONTROLLER. */
export const SECURED_LISTENERS: Record<string, string> = {
  [SASL_LISTENER]: 'SASL_PLAINTEXT',
  [SASL_SSL_LISTENER]: 'SASL_SSL',
  [MTLS_LISTENER]: 'SSL',
};

export const MATRIX_USER = 'alice';
export const MATRIX_PASSWORD = 'alice-secret';

const PLAIN_JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required user_${MATRIX_USER}="${MATRIX_PASSWORD}";`;
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
/**
 * OAUTHBEARER with Kafka's default server callback handler (OAuthBearerUnsecuredValidatorCallbackHandler:
 * unsecured JWS, alg none, `sub` and `exp` required). The broker's own login needs no token (no option:
 * OAuthBearerUnsecuredLoginCallbackHandler makes none, and no inter-broker connection uses OAUTHBEARER).
 */
const OAUTHBEARER_JAAS = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;';

/** Broker settings of the SASL_PLAINTEXT listener (the same on tkafka and Kafka 4.4.0). */
export const SASL_SERVER_CONFIG: Record<string, string> = {
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
  'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
  'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config': OAUTHBEARER_JAAS,
  'listener.name.sasl_ssl.plain.sasl.jaas.config': PLAIN_JAAS,
  'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
  'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
  'listener.name.sasl_ssl.oauthbearer.sasl.jaas.config': OAUTHBEARER_JAAS,
};

/** TLS settings of the SASL_SSL and MTLS listeners (test certificates made by the runner). */
export function tlsServerConfig(certs: TestCerts): Record<string, string> {
  return {
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': certs.server.keystoreP12Path,
    'ssl.keystore.password': STORE_PASSWORD,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': certs.ca.certPath,
    'listener.name.mtls.ssl.client.auth': 'required',
  };
}

export interface SecuritySetting {
  /** The listener the scenario connects through. */
  listener: string;
  protocol: 'SASL_PLAINTEXT' | 'SASL_SSL' | 'SSL';
  mechanism?: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER';
  /** The label of the security column. */
  label: string;
}

/** The security scenarios, by id. */
export const SECURITY_SCENARIOS: Record<string, SecuritySetting> = {
  'sasl-plain': { listener: SASL_LISTENER, protocol: 'SASL_PLAINTEXT', mechanism: 'PLAIN', label: 'PLAIN' },
  'sasl-scram-256': {
    listener: SASL_LISTENER,
    protocol: 'SASL_PLAINTEXT',
    mechanism: 'SCRAM-SHA-256',
    label: 'SCRAM-256',
  },
  'sasl-scram-512': {
    listener: SASL_LISTENER,
    protocol: 'SASL_PLAINTEXT',
    mechanism: 'SCRAM-SHA-512',
    label: 'SCRAM-512',
  },
  'sasl-ssl-scram-512': {
    listener: SASL_SSL_LISTENER,
    protocol: 'SASL_SSL',
    mechanism: 'SCRAM-SHA-512',
    label: 'SASL_SSL',
  },
  'ssl-mtls': { listener: MTLS_LISTENER, protocol: 'SSL', label: 'mTLS' },
  // the program makes its own unsecured JWS (sub = TKAFKA_MATRIX_SASL_USERNAME); the refused one is
  // expired or has no sub
  'sasl-oauthbearer': {
    listener: SASL_LISTENER,
    protocol: 'SASL_PLAINTEXT',
    mechanism: 'OAUTHBEARER',
    label: 'OAUTHBEARER',
  },
};

/** The environment of a security scenario's program (the README's contract). */
export function securityEnv(s: SecuritySetting, certs: TestCerts): Record<string, string> {
  const env: Record<string, string> = { TKAFKA_MATRIX_SECURITY_PROTOCOL: s.protocol };
  if (s.protocol !== 'SASL_PLAINTEXT') env.TKAFKA_MATRIX_CA_FILE = certs.ca.certPath;
  if (s.protocol === 'SSL') {
    env.TKAFKA_MATRIX_CERT_FILE = certs.client.certPath;
    env.TKAFKA_MATRIX_KEY_FILE = certs.client.keyPath;
  }
  if (s.mechanism) {
    env.TKAFKA_MATRIX_SASL_MECHANISM = s.mechanism;
    env.TKAFKA_MATRIX_SASL_USERNAME = MATRIX_USER;
    // OAUTHBEARER has no password: the user is the token's sub
    if (s.mechanism !== 'OAUTHBEARER') env.TKAFKA_MATRIX_SASL_PASSWORD = MATRIX_PASSWORD;
  }
  return env;
}

/**
 * Makes the SCRAM credentials of the matrix user on a broker (AlterUserScramCredentials through its
 * PLAINTEXT listener, with `tkafka configs` as a user runs it: the same request for both brokers).
 * One mechanism per request: Kafka's controller (ScramControlManager) refuses a user altered twice in
 * one request with DUPLICATE_RESOURCE.
 */
export async function createScramUsers(plaintextBootstrap: string): Promise<void> {
  for (const config of [
    `SCRAM-SHA-256=[iterations=4096,password=${MATRIX_PASSWORD}]`,
    `SCRAM-SHA-512=[password=${MATRIX_PASSWORD}]`,
  ]) {
    const r = await runTkafka('configs', [
      '--bootstrap-server',
      plaintextBootstrap,
      '--alter',
      '--entity-type',
      'users',
      '--entity-name',
      MATRIX_USER,
      '--add-config',
      config,
    ]);
    if (r.code !== 0) {
      throw new Error(`creating ${config} for ${MATRIX_USER} on ${plaintextBootstrap} failed: ${r.err}${r.out}`);
    }
  }
}
