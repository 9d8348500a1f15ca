// Kafka's ssl.* settings (SslConfigs, DefaultSslEngineFactory) turned into Node `tls` options, for
// the client (security.protocol=SSL) and for the broker's SSL listeners (which read the same keys
// with listener prefixes). Key and trust stores: PEM files, inline PEM (ssl.keystore.key,
// ssl.keystore.certificate.chain, ssl.truststore.certificates) and PKCS12 key stores. JKS (Kafka's
// default type) cannot be read by Node: it is refused with a message naming the key, never ignored.
import { readFileSync } from 'node:fs';
import type { SecureContextOptions } from 'node:tls';
import { ClientConfigError } from './errors.js';
import { nodeTls } from './node-tls.js';
import {
  pkcs12Certificates,
  pkcs12KeyEntry,
  Pkcs12KeyPasswordError,
  Pkcs12StoreError,
  type Pkcs12Certificate,
  type Pkcs12KeyEntry,
} from './pkcs12.js';

/** Reads one ssl.* setting (already resolved through any listener prefix); undefined when unset. */
export type SslSettingReader = (key: string) => string | undefined;

/** Builds the error for a setting that cannot be honoured (`key` is the setting's full name). */
export type SslErrorFactory = (message: string, key: string) => Error;

export interface TlsStores {
  /** Node secure-context options: key/cert, ca, minVersion/maxVersion, ciphers. */
  readonly options: SecureContextOptions;
  /** Whether a key store (own certificate) is configured. */
  readonly hasKeystore: boolean;
  /** The certificates (with aliases) of a PKCS12 key store; undefined for PEM or no key store. */
  readonly keystoreCertificates?: readonly Pkcs12Certificate[] | undefined;
}

export interface ClientTlsConfig {
  readonly options: SecureContextOptions;
  /** ssl.endpoint.identification.algorithm=https (the default): verify the broker's host name. */
  readonly verifyHostname: boolean;
}

const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
type TlsVersion = (typeof TLS_VERSIONS)[number];

// Java (IANA) cipher-suite names → OpenSSL names, for the suites Node's OpenSSL offers.
// prettier-ignore
const CIPHERS: Record<string, string> = {
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384: 'ECDHE-ECDSA-AES256-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384: 'ECDHE-RSA-AES256-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_DHE_RSA_WITH_AES_128_GCM_SHA256: 'DHE-RSA-AES128-GCM-SHA256',
  TLS_DHE_RSA_WITH_AES_256_GCM_SHA384: 'DHE-RSA-AES256-GCM-SHA384',
  TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'DHE-RSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA256: 'AES256-SHA256',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(pem: string, kind: 'key' | 'cert'): string[] {
  return [...pem.matchAll(PEM_BLOCK)]
    .filter((m) => (kind === 'key' ? m[1]!.endsWith('PRIVATE KEY') : m[1] === 'CERTIFICATE'))
    .map((m) => m[0]);
}

function readStore(path: string, type: string, what: 'keystore' | 'truststore', err: SslErrorFactory): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    // DefaultSslEngineFactory.FileBasedStore.load
    throw err(`Failed to load SSL ${what} ${path} of type ${type}: ${(e as Error).message}`, `ssl.${what}.location`);
  }
}

function refuseType(type: string, what: 'keystore' | 'truststore', err: SslErrorFactory): never {
  const key = `ssl.${what}.type`;
  if (type === 'JKS') {
    throw err(
      `Invalid value JKS for configuration ${key}: tkafka cannot read JKS ${what === 'keystore' ? 'key' : 'trust'} stores; use PKCS12 or PEM (keytool -importkeystore -deststoretype PKCS12 converts a JKS store)`,
      key,
    );
  }
  throw err(`Invalid value ${type} for configuration ${key}: tkafka reads PKCS12 and PEM stores only`, key);
}

/**
 * Key store, trust store, protocols and cipher suites from ssl.* settings, with Kafka's checks
 * (DefaultSslEngineFactory's messages) and defaults (types JKS, ssl.enabled.protocols TLSv1.2,TLSv1.3).
 */
export function tlsStoresFromSettings(get: SslSettingReader, err: SslErrorFactory): TlsStores {
  const options: SecureContextOptions = {};
  const val = (k: string): string | undefined => {
    const v = get(k);
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const raw = (k: string): string | undefined => {
    const v = get(k);
    return v === undefined || v.trim() === '' ? undefined : v;
  };

  // ---- key store
  const ksType = (val('ssl.keystore.type') ?? 'JKS').toUpperCase();
  const ksLocation = val('ssl.keystore.location');
  const ksPassword = raw('ssl.keystore.password');
  const keyPassword = raw('ssl.key.password');
  const inlineKey = raw('ssl.keystore.key');
  const inlineChain = raw('ssl.keystore.certificate.chain');
  let hasKeystore = false;
  let keystoreCertificates: readonly Pkcs12Certificate[] | undefined;
  if (inlineKey !== undefined) {
    if (ksType !== 'PEM')
      throw err(`SSL private key can be specified only for PEM, but key store type is ${ksType}.`, 'ssl.keystore.type');
    if (inlineChain === undefined)
      throw err(
        'SSL private key is specified, but certificate chain is not specified.',
        'ssl.keystore.certificate.chain',
      );
    if (ksLocation !== undefined)
      throw err('Both SSL key store location and separate private key are specified.', 'ssl.keystore.location');
    if (ksPassword !== undefined)
      throw err(
        'SSL key store password cannot be specified with PEM format, only key password may be specified.',
        'ssl.keystore.password',
      );
    setPemKeystore(options, inlineKey, inlineChain, keyPassword, 'ssl.keystore.key', err);
    hasKeystore = true;
  } else if (inlineChain !== undefined) {
    throw err('SSL certificate chain is specified, but private key is not specified', 'ssl.keystore.key');
  } else if (ksLocation !== undefined) {
    if (ksType === 'PEM') {
      if (ksPassword !== undefined)
        throw err(
          'SSL key store password cannot be specified with PEM format, only key password may be specified',
          'ssl.keystore.password',
        );
      const pem = readStore(ksLocation, ksType, 'keystore', err).toString('utf8');
      setPemKeystore(options, pem, pem, keyPassword, 'ssl.keystore.location', err);
    } else if (ksType === 'PKCS12') {
      if (ksPassword === undefined)
        throw err('SSL key store is specified, but key store password is not specified.', 'ssl.keystore.password');
      // read here, never through Node's pfx (which would trust the CA certificates of the key store)
      const store = readStore(ksLocation, ksType, 'keystore', err);
      let entry: Pkcs12KeyEntry;
      try {
        entry = pkcs12KeyEntry(store, ksPassword, keyPassword ?? ksPassword);
      } catch (e) {
        const key =
          e instanceof Pkcs12StoreError
            ? 'ssl.keystore.location'
            : e instanceof Pkcs12KeyPasswordError
              ? 'ssl.key.password'
              : 'ssl.keystore.password';
        throw err(
          `Invalid value for configuration ${key}: the SSL key store or trust store could not be loaded: ${ksLocation}: ${(e as Error).message}`,
          key,
        );
      }
      options.key = entry.key.export({ format: 'pem', type: 'pkcs8' }) as string;
      options.cert = entry.chain.join('');
      keystoreCertificates = entry.certificates;
    } else {
      refuseType(ksType, 'keystore', err);
    }
    hasKeystore = true;
  } else if (ksPassword !== undefined) {
    throw err('SSL key store is not specified, but key store password is specified.', 'ssl.keystore.location');
  }

  // ---- trust store
  const tsType = (val('ssl.truststore.type') ?? 'JKS').toUpperCase();
  const tsLocation = val('ssl.truststore.location');
  const tsPassword = raw('ssl.truststore.password');
  const inlineCerts = raw('ssl.truststore.certificates');
  if (inlineCerts !== undefined) {
    if (tsType !== 'PEM')
      throw err(
        `SSL trust store certs can be specified only for PEM, but trust store type is ${tsType}.`,
        'ssl.truststore.type',
      );
    if (tsLocation !== undefined)
      throw err(
        'Both SSL trust store location and separate trust certificates are specified.',
        'ssl.truststore.location',
      );
    if (tsPassword !== undefined)
      throw err('SSL trust store password cannot be specified for PEM format.', 'ssl.truststore.password');
    options.ca = trustCerts(inlineCerts, 'ssl.truststore.certificates', err);
  } else if (tsLocation !== undefined) {
    if (tsType === 'PEM') {
      if (tsPassword !== undefined)
        throw err('SSL trust store password cannot be specified for PEM format.', 'ssl.truststore.password');
      options.ca = trustCerts(
        readStore(tsLocation, tsType, 'truststore', err).toString('utf8'),
        'ssl.truststore.location',
        err,
      );
    } else if (tsType === 'PKCS12') {
      // Node reads PKCS12 only with a private key: the trust store's certificates are read here
      const store = readStore(tsLocation, tsType, 'truststore', err);
      let certs: string[];
      try {
        certs = pkcs12Certificates(store, tsPassword ?? '');
      } catch (e) {
        throw err(
          `Failed to load SSL truststore ${tsLocation} of type PKCS12: ${(e as Error).message}`,
          tsPassword === undefined ? 'ssl.truststore.location' : 'ssl.truststore.password',
        );
      }
      if (certs.length === 0)
        throw err(`The SSL truststore ${tsLocation} has no trusted certificates`, 'ssl.truststore.location');
      options.ca = certs;
    } else {
      refuseType(tsType, 'truststore', err);
    }
  } else if (tsPassword !== undefined) {
    throw err('SSL trust store is not specified, but trust store password is specified.', 'ssl.truststore.location');
  }

  // ---- protocols and cipher suites
  const protocol = val('ssl.protocol') ?? 'TLSv1.3';
  if (!/^(TLS|TLSv1(\.[123])?)$/.test(protocol)) {
    throw err(
      `Invalid value ${protocol} for configuration ssl.protocol: tkafka supports TLS, TLSv1.2 and TLSv1.3`,
      'ssl.protocol',
    );
  }
  const enabledRaw = get('ssl.enabled.protocols');
  const enabled = enabledRaw === undefined ? ['TLSv1.2', 'TLSv1.3'] : list(enabledRaw);
  if (enabled.length > 0) {
    const idx = enabled.map((p) => {
      const i = TLS_VERSIONS.indexOf(p as TlsVersion);
      if (i < 0)
        throw err(
          `Invalid value ${enabledRaw ?? ''} for configuration ssl.enabled.protocols: unknown protocol ${p} (tkafka supports ${TLS_VERSIONS.join(', ')})`,
          'ssl.enabled.protocols',
        );
      return i;
    });
    const lo = Math.min(...idx);
    const hi = Math.max(...idx);
    if (hi - lo + 1 !== new Set(idx).size)
      throw err(
        `Invalid value ${enabledRaw ?? ''} for configuration ssl.enabled.protocols: tkafka needs a contiguous range of TLS versions`,
        'ssl.enabled.protocols',
      );
    options.minVersion = TLS_VERSIONS[lo];
    options.maxVersion = TLS_VERSIONS[hi];
  }
  const suites = list(get('ssl.cipher.suites'));
  if (suites.length > 0) {
    options.ciphers = suites
      .map((s) => {
        const o = CIPHERS[s];
        if (o === undefined)
          throw err(
            `Invalid value ${s} in configuration ssl.cipher.suites: tkafka does not know this cipher suite (use the IANA names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_AES_128_GCM_SHA256)`,
            'ssl.cipher.suites',
          );
        return o;
      })
      .join(':');
  }
  // Load it once now, so a wrong password or a key that does not match its certificate stops here.
  try {
    nodeTls().createSecureContext(options);
  } catch (e) {
    const why = (e as Error).message;
    const key =
      options.key !== undefined
        ? /passphrase|decrypt|bad decrypt/i.test(why)
          ? 'ssl.key.password'
          : inlineKey !== undefined
            ? 'ssl.keystore.key'
            : 'ssl.keystore.location'
        : 'ssl.truststore.location';
    throw err(
      `Invalid value for configuration ${key}: the SSL key store or trust store could not be loaded: ${why}`,
      key,
    );
  }
  return { options, hasKeystore, keystoreCertificates };
}

function setPemKeystore(
  options: SecureContextOptions,
  keyPem: string,
  chainPem: string,
  keyPassword: string | undefined,
  key: string,
  err: SslErrorFactory,
): void {
  const keys = pemBlocks(keyPem, 'key');
  if (keys.length === 0) throw err('Invalid PEM keystore configs: Private key not provided', key);
  if (keys.length > 1)
    throw err(`Invalid PEM keystore configs: Expected one private key, but found ${keys.length}`, key);
  const certs = pemBlocks(chainPem, 'cert');
  if (certs.length === 0)
    throw err('Invalid PEM keystore configs: At least one certificate expected, but none found', key);
  options.key = keys[0];
  options.cert = certs.join('\n');
  if (keyPassword !== undefined) options.passphrase = keyPassword;
}

function trustCerts(pem: string, key: string, err: SslErrorFactory): string[] {
  const certs = pemBlocks(pem, 'cert');
  if (certs.length === 0)
    throw err('Invalid PEM truststore configs: At least one certificate expected, but none found', key);
  return certs;
}

/**
 * The client's TLS settings from its properties (security.protocol SSL or SASL_SSL); undefined for
 * PLAINTEXT and SASL_PLAINTEXT. Errors are ClientConfigErrors naming the key.
 */
export function clientTlsConfig(props: ReadonlyMap<string, string>, protocol: string): ClientTlsConfig | undefined {
  if (protocol !== 'SSL' && protocol !== 'SASL_SSL') return undefined;
  const err: SslErrorFactory = (message) => new ClientConfigError(message);
  const { options } = tlsStoresFromSettings((k) => props.get(k), err);
  const algorithm = (props.get('ssl.endpoint.identification.algorithm') ?? 'https').trim();
  if (algorithm !== '' && algorithm.toLowerCase() !== 'https') {
    throw new ClientConfigError(
      `Invalid value ${algorithm} for configuration ssl.endpoint.identification.algorithm: tkafka supports https or an empty value`,
    );
  }
  return { options, verifyHostname: algorithm !== '' };
}
