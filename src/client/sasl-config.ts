// SASL client settings read from Kafka client properties, as Kafka's clients read them:
// security.protocol SASL_PLAINTEXT / SASL_SSL, sasl.mechanism (default GSSAPI), sasl.jaas.config
// (one login module: PlainLoginModule / ScramLoginModule username+password, OAuthBearerLoginModule
// with unsecured-token options or a client-credentials token endpoint), plus tkafka's profile
// shorthands sasl.username / sasl.password.
import {
  JaasConfigError,
  OAUTHBEARER_LOGIN_MODULE,
  PLAIN_LOGIN_MODULE,
  SCRAM_LOGIN_MODULE,
  parseSingleLoginModule,
  type JaasLoginModule,
} from '../protocol/sasl/jaas.js';
import { ClientConfigError } from './errors.js';

export type SaslMechanismName = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER';

export const SASL_MECHANISMS: readonly SaslMechanismName[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'];

/** Where an OAUTHBEARER token comes from. */
export type OAuthTokenSource =
  | {
      /** Kafka's OAuthBearerUnsecuredLoginCallbackHandler: an unsigned JWT built from the module options. */
      kind: 'unsecured';
      options: ReadonlyMap<string, string>;
    }
  | {
      /** Kafka's ClientCredentialsJwtRetriever: an OAuth client-credentials grant at the token endpoint. */
      kind: 'client_credentials';
      endpoint: string;
      clientId: string;
      clientSecret: string;
      scope: string | null;
      /** sasl.oauthbearer.header.urlencode */
      urlencodeHeader: boolean;
      connectTimeoutMs: number;
      readTimeoutMs: number;
    };

export type SaslConfig =
  | { mechanism: 'PLAIN'; username: string; password: string }
  | { mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; username: string; password: string; tokenAuth: boolean }
  | { mechanism: 'OAUTHBEARER'; token: OAuthTokenSource; extensions: ReadonlyMap<string, string> };

export const SASL_PROTOCOLS = new Set(['SASL_PLAINTEXT', 'SASL_SSL']);

export const MISSING_JAAS_MESSAGE =
  "Could not find a 'KafkaClient' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set";

const OAUTH_CALLBACK_HANDLER = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler';
const OAUTH_CALLBACK_HANDLER_OLD =
  'org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler';

const SUPPORTED_RETRIEVERS = new Set([
  'org.apache.kafka.common.security.oauthbearer.DefaultJwtRetriever',
  'org.apache.kafka.common.security.oauthbearer.ClientCredentialsJwtRetriever',
]);

// Kafka's OAuthBearerClientInitialResponse.EXTENSION_KEY_PATTERN / EXTENSION_VALUE_PATTERN.
const EXTENSION_KEY = /^[A-Za-z]+$/;
const EXTENSION_VALUE = /^[\x21-\x7E \t\r\n]+$/;

/** Quotes a value for a JAAS option (Java string escapes). */
export function jaasQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * tkafka's profile shorthands: `sasl.username` / `sasl.password` become the `sasl.jaas.config` of
 * the mechanism's login module (PlainLoginModule for PLAIN, ScramLoginModule for SCRAM-*). An
 * explicit `sasl.jaas.config` wins. Returns a new map without the shorthand keys.
 */
export function expandSaslShorthands(props: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map(props);
  const user = out.get('sasl.username');
  const password = out.get('sasl.password');
  out.delete('sasl.username');
  out.delete('sasl.password');
  if (user === undefined && password === undefined) return out;
  if (out.has('sasl.jaas.config'))
    throw new ClientConfigError('Give either sasl.jaas.config or sasl.username/sasl.password, not both');
  if (user === undefined || password === undefined)
    throw new ClientConfigError('sasl.username and sasl.password must be given together');
  const mechanism = (out.get('sasl.mechanism') ?? 'GSSAPI').trim();
  let module: string;
  if (mechanism === 'PLAIN') module = PLAIN_LOGIN_MODULE;
  else if (mechanism === 'SCRAM-SHA-256' || mechanism === 'SCRAM-SHA-512') module = SCRAM_LOGIN_MODULE;
  else
    throw new ClientConfigError(
      `sasl.username/sasl.password need sasl.mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (sasl.mechanism is ${mechanism})`,
    );
  out.set('sasl.jaas.config', `${module} required username=${jaasQuote(user)} password=${jaasQuote(password)};`);
  return out;
}

function intProp(props: ReadonlyMap<string, string>, name: string, dflt: number): number {
  const v = props.get(name);
  if (v === undefined) return dflt;
  const n = Number(v.trim());
  if (!Number.isInteger(n))
    throw new ClientConfigError(`Invalid value ${v} for configuration ${name}: Not a number of type INT`);
  return n;
}

/**
 * The SASL settings of a `SASL_PLAINTEXT` / `SASL_SSL` client (after `expandSaslShorthands`).
 * Throws ClientConfigError naming the property for anything the tkafka client cannot honour.
 */
export function saslConfigFromProperties(props: ReadonlyMap<string, string>): SaslConfig {
  const mechanism = (props.get('sasl.mechanism') ?? 'GSSAPI').trim();
  if (mechanism === 'GSSAPI')
    throw new ClientConfigError(
      'sasl.mechanism=GSSAPI (Kerberos, the default when sasl.mechanism is not set) is not supported by the tkafka client; ' +
        `set sasl.mechanism to one of ${SASL_MECHANISMS.join(', ')}`,
    );
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism))
    throw new ClientConfigError(
      `sasl.mechanism=${mechanism} is not supported by the tkafka client (supported: ${SASL_MECHANISMS.join(', ')})`,
    );
  const jaasText = props.get('sasl.jaas.config');
  if (jaasText === undefined || jaasText.trim() === '') throw new ClientConfigError(MISSING_JAAS_MESSAGE);
  let module: JaasLoginModule;
  try {
    module = parseSingleLoginModule(jaasText);
  } catch (e) {
    if (e instanceof JaasConfigError) throw new ClientConfigError(`Invalid sasl.jaas.config: ${e.message}`);
    throw e;
  }
  const m = mechanism as SaslMechanismName;
  const wrongModule = (expected: string): ClientConfigError =>
    new ClientConfigError(`sasl.mechanism=${m} needs ${expected} in sasl.jaas.config, not ${module.loginModule}`);
  if (m === 'OAUTHBEARER') {
    if (module.loginModule !== OAUTHBEARER_LOGIN_MODULE) throw wrongModule(OAUTHBEARER_LOGIN_MODULE);
    return oauthConfig(props, module.options);
  }
  // Kafka's PlainLoginModule and ScramLoginModule both put username/password into the Subject, and
  // both PLAIN and SCRAM clients read them from there, so either module serves either mechanism.
  const expected = m === 'PLAIN' ? PLAIN_LOGIN_MODULE : SCRAM_LOGIN_MODULE;
  if (module.loginModule !== PLAIN_LOGIN_MODULE && module.loginModule !== SCRAM_LOGIN_MODULE)
    throw wrongModule(expected);
  const username = module.options.get('username');
  const password = module.options.get('password');
  if (username === undefined || password === undefined)
    throw new ClientConfigError(
      `sasl.jaas.config for sasl.mechanism=${m} must set both username and password (${expected} required username="…" password="…";)`,
    );
  if (m === 'PLAIN') return { mechanism: m, username, password };
  const tokenAuth = (module.options.get('tokenauth') ?? 'false').toLowerCase() === 'true';
  return { mechanism: m, username, password, tokenAuth };
}

function oauthConfig(props: ReadonlyMap<string, string>, options: ReadonlyMap<string, string>): SaslConfig {
  const handler = props.get('sasl.login.callback.handler.class')?.trim();
  const endpoint = props.get('sasl.oauthbearer.token.endpoint.url')?.trim();
  const extensions = new Map<string, string>();
  const secured =
    endpoint !== undefined || handler === OAUTH_CALLBACK_HANDLER || handler === OAUTH_CALLBACK_HANDLER_OLD;
  if (handler !== undefined && handler !== '' && !secured)
    throw new ClientConfigError(
      `sasl.login.callback.handler.class=${handler} is not supported by the tkafka client (only ${OAUTH_CALLBACK_HANDLER})`,
    );
  const prefix = secured ? 'extension_' : 'unsecuredLoginExtension_';
  for (const [k, v] of options) if (k.startsWith(prefix)) extensions.set(k.slice(prefix.length), v);
  if (extensions.has('auth')) throw new ClientConfigError('Extension name auth is invalid');
  for (const [k, v] of extensions) {
    if (!EXTENSION_KEY.test(k)) throw new ClientConfigError(`Extension name ${k} is invalid`);
    if (!EXTENSION_VALUE.test(v)) throw new ClientConfigError(`Extension value (${v}) for extension ${k} is invalid`);
  }
  if (!secured) {
    if (options.size === 0)
      throw new ClientConfigError(
        'sasl.jaas.config for OAUTHBEARER has no options: give unsecuredLoginStringClaim_sub="…" for an unsecured token, ' +
          'or sasl.oauthbearer.token.endpoint.url with clientId/clientSecret',
      );
    if ([...options.keys()].every((k) => k.startsWith('unsecuredLoginExtension_')))
      throw new ClientConfigError('Extensions provided in login context without a token');
    return { mechanism: 'OAUTHBEARER', token: { kind: 'unsecured', options }, extensions };
  }
  const retriever = props.get('sasl.oauthbearer.jwt.retriever.class')?.trim();
  if (retriever !== undefined && retriever !== '' && !SUPPORTED_RETRIEVERS.has(retriever))
    throw new ClientConfigError(
      `sasl.oauthbearer.jwt.retriever.class=${retriever} is not supported by the tkafka client (only the client-credentials flow)`,
    );
  if (endpoint === undefined || endpoint === '')
    throw new ClientConfigError(
      `sasl.oauthbearer.token.endpoint.url must be set to use ${OAUTH_CALLBACK_HANDLER} (file: and other token sources are not supported by the tkafka client)`,
    );
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ClientConfigError(`Invalid value ${endpoint} for configuration sasl.oauthbearer.token.endpoint.url`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ClientConfigError(
      `sasl.oauthbearer.token.endpoint.url=${endpoint}: only http and https token endpoints are supported by the tkafka client`,
    );
  // 4.4's order: the sasl.oauthbearer.* property, then the (deprecated) JAAS option.
  const clientId = props.get('sasl.oauthbearer.client.credentials.client.id') ?? options.get('clientId');
  const clientSecret = props.get('sasl.oauthbearer.client.credentials.client.secret') ?? options.get('clientSecret');
  if (clientId === undefined || clientId.trim() === '')
    throw new ClientConfigError('The OAuth configuration option clientId must be non-null');
  if (clientSecret === undefined || clientSecret.trim() === '')
    throw new ClientConfigError('The OAuth configuration option clientSecret must be non-null');
  const scope = props.get('sasl.oauthbearer.scope') ?? options.get('scope') ?? null;
  return {
    mechanism: 'OAUTHBEARER',
    token: {
      kind: 'client_credentials',
      endpoint,
      clientId: clientId.trim(),
      clientSecret: clientSecret.trim(),
      scope,
      urlencodeHeader: (props.get('sasl.oauthbearer.header.urlencode') ?? 'false').trim().toLowerCase() === 'true',
      connectTimeoutMs: intProp(props, 'sasl.login.connect.timeout.ms', 10_000),
      readTimeoutMs: intProp(props, 'sasl.login.read.timeout.ms', 10_000),
    },
    extensions,
  };
}
