// `storage format --add-scram`: Kafka's ScramParser. Each argument is
// MECHANISM=[name=...,password=...] (or iterations=..., salt=<base64>, saltedpassword=<base64>),
// turned into the UserScramCredentialRecord the bootstrap checkpoint carries, with
// FormatterException's messages.
import type { UserScramCredentialRecord } from '../protocol/generated/metadata/UserScramCredentialRecord.js';
import {
  credentialFromSaltedPassword,
  saltedPassword,
  scramMechanism,
  secureNonce,
  type ScramMechanism,
} from '../protocol/sasl/scram.js';
import { FormatterError } from './formatter.js';
import { parseJavaInt } from './meta-properties.js';

/** Kafka's internal ScramMechanism.maxIterations. */
const MAX_ITERATIONS = 16384;
const DEFAULT_ITERATIONS = 4096;

/** The enum constant's name, as Kafka prints the mechanism (SCRAM_SHA_256). */
const enumName = (m: ScramMechanism): string => m.name.replace(/-/g, '_');

/** String.trim: strips characters <= U+0020 at both ends. */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}

/** Base64.getDecoder().decode; throws where Java's basic decoder would. */
function decodeBase64(s: string): Buffer {
  const m = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(s);
  if (!m) throw new Error('Illegal base64 character');
  const body = m[1]!;
  const pad = m[2]!.length;
  if (body.length % 4 === 1) throw new Error('Last unit does not have enough valid bits');
  if (pad > 0 && (body.length + pad) % 4 !== 0) throw new Error('Input byte array has incorrect ending byte');
  return Buffer.from(body, 'base64');
}

/** ScramParser.parsePerMechanismArgument. */
export function parsePerMechanismArgument(argument: string): { mechanism: ScramMechanism; config: string } {
  const input = javaTrim(argument);
  const equalsIndex = input.indexOf('=');
  if (equalsIndex < 0) throw new FormatterError(`Failed to find equals sign in SCRAM argument '${input}'`);
  const mechanismString = input.slice(0, equalsIndex);
  const configString = input.slice(equalsIndex + 1);
  const mechanism = scramMechanism(mechanismString);
  if (!mechanism) throw new FormatterError(`The add-scram mechanism ${mechanismString} is not supported.`);
  if (!configString.startsWith('[')) throw new FormatterError('Expected configuration string to start with [');
  if (!configString.endsWith(']')) throw new FormatterError('Expected configuration string to end with ]');
  return { mechanism, config: configString.slice(1, configString.length - 1) };
}

/** ScramParser.splitTrimmedConfigStringComponent (which does not trim). */
function splitComponent(input: string): [string, string] {
  const i = input.indexOf('=');
  if (i < 0) throw new FormatterError(`No equals sign found in SCRAM component: ${input}`);
  let value = input.slice(i + 1);
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, value.length - 1);
  return [input.slice(0, i), value];
}

/** String.split(","): trailing empty strings removed (but "" gives [""]). */
function javaSplitComma(s: string): string[] {
  const parts = s.split(',');
  if (s === '') return parts;
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** ScramParser.PerMechanismData(mechanism, configString).toRecord(). */
function toRecord(mechanism: ScramMechanism, configString: string): UserScramCredentialRecord {
  const components = new Map<string, string>();
  for (const c of javaSplitComma(configString)) {
    const [k, v] = splitComponent(c);
    components.set(k, v);
  }
  const take = (k: string): string | undefined => {
    const v = components.get(k);
    components.delete(k);
    return v;
  };
  const name = take('name');
  if (name === undefined) throw new FormatterError("You must supply 'name' to add-scram");
  const saltString = take('salt');
  let configuredSalt: Buffer | undefined;
  if (saltString !== undefined) {
    try {
      configuredSalt = decodeBase64(saltString);
    } catch {
      throw new FormatterError(`Failed to decode given salt: ${saltString}`);
    }
  }
  const iterationsString = take('iterations');
  let iterations = DEFAULT_ITERATIONS;
  if (iterationsString !== undefined) {
    const n = parseJavaInt(iterationsString);
    if (n === null) throw new FormatterError(`Failed to parse iterations count: ${iterationsString}`);
    iterations = n;
  }
  const password = take('password');
  const saltedPasswordString = take('saltedpassword');
  let configuredSalted: Buffer | undefined;
  if (password === undefined) {
    if (saltedPasswordString === undefined)
      throw new FormatterError("You must supply one of 'password' or 'saltedpassword' to add-scram");
    if (configuredSalt === undefined)
      throw new FormatterError("You must supply 'salt' with 'saltedpassword' to add-scram");
    try {
      configuredSalted = decodeBase64(saltedPasswordString);
    } catch {
      throw new FormatterError(`Failed to decode given saltedPassword: ${saltedPasswordString}`);
    }
  }
  if (components.size > 0)
    throw new FormatterError(`Unknown SCRAM configurations: ${[...components.keys()].sort().join(', ')}`);
  // toRecord
  // ScramFormatter.secureRandomBytes: the UTF-8 bytes of a random base-36 string
  const salt = configuredSalt ?? Buffer.from(secureNonce(), 'utf8');
  if (iterations < mechanism.minIterations)
    throw new FormatterError(
      `The 'iterations' value must be >= ${mechanism.minIterations} for add-scram using ${enumName(mechanism)}`,
    );
  if (iterations > MAX_ITERATIONS)
    throw new FormatterError(
      `The 'iterations' value must be <= ${MAX_ITERATIONS} for add-scram using ${enumName(mechanism)}`,
    );
  const salted = configuredSalted ?? saltedPassword(mechanism, password!, salt, iterations);
  const cred = credentialFromSaltedPassword(mechanism, salt, salted, iterations);
  return {
    name,
    mechanism: mechanism.type,
    salt,
    storedKey: cred.storedKey,
    serverKey: cred.serverKey,
    iterations,
  };
}

/** ScramParser.parse: one UserScramCredentialRecord per --add-scram argument, in order. */
export function parseScramArguments(args: readonly string[]): UserScramCredentialRecord[] {
  return args.map((a) => {
    const { mechanism, config } = parsePerMechanismArgument(a);
    return toRecord(mechanism, config);
  });
}
