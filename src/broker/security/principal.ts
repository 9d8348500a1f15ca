// Kafka's DefaultKafkaPrincipalBuilder for SASL: the principal of an authenticated SASL connection
// is User:<authorization id> (the PLAIN username, the SCRAM username). Connections not
// authenticated by SASL are User:ANONYMOUS (PLAINTEXT; SSL principals come from the TLS part).
export const USER_TYPE = 'User';
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

export const userPrincipal = (name: string): string => `${USER_TYPE}:${name}`;
