// The SASL keys a broker reads under a listener or mechanism prefix (Kafka's
// valuesWithPrefixOverride("listener.name.<l>.") and the "<mechanism>." prefix of JaasContext and
// connections.max.reauth.ms): used keys, so the loader does not call them unused.
const MECHANISM = '(?:plain|scram-sha-256|scram-sha-512|gssapi|oauthbearer)';
const OAUTHBEARER_JWKS =
  'sasl\\.oauthbearer\\.(?:jwks\\.endpoint\\.(?:url|refresh\\.ms|retry\\.backoff\\.ms|retry\\.backoff\\.max\\.ms)|expected\\.(?:audience|issuer)|allow\\.unverified\\.(?:audience|issuer)|(?:scope|sub)\\.claim\\.name|clock\\.skew\\.seconds|jwt\\.validator\\.class)';
const SASL_PREFIXED = new RegExp(
  `^(?:listener\\.name\\.[A-Za-z0-9_-]+\\.)?(?:sasl\\.enabled\\.mechanisms|connections\\.max\\.reauth\\.ms|${MECHANISM}\\.sasl\\.jaas\\.config|${MECHANISM}\\.connections\\.max\\.reauth\\.ms|${OAUTHBEARER_JWKS})$`,
);
// OAuthBearerValidatorCallbackHandler's settings under a listener's mechanism prefix (ChannelBuilders
// keeps listener.name.<l>.oauthbearer.<key> as oauthbearer.<key>, which ConfigurationUtils reads first)
const OAUTHBEARER_LISTENER = new RegExp(
  `^listener\\.name\\.[A-Za-z0-9_-]+\\.oauthbearer\\.(?:${OAUTHBEARER_JWKS}|sasl\\.server\\.callback\\.handler\\.class)$`,
);

/** Whether `key` is a listener- or mechanism-prefixed SASL key the broker reads (src/broker/security/config.ts). */
export const isPrefixedSaslKey = (key: string): boolean =>
  key.includes('.') && (SASL_PREFIXED.test(key) || OAUTHBEARER_LISTENER.test(key));
