// Kafka's Uuid.fromString / toString: 16 bytes in URL-safe base64 without padding.

/** Uuid.fromString: the canonical id, or an Error with Kafka's message. */
export function parseKafkaUuid(str: string): { id: string; zero: boolean } {
  if (str.length > 24)
    throw new Error(`Input string with prefix \`${str.slice(0, 24)}\` is too long to be decoded as a base64 UUID`);
  const bad = [...str].find((c) => !/[A-Za-z0-9_=-]/.test(c));
  if (bad !== undefined) throw new Error(`Illegal base64 character ${bad.charCodeAt(0).toString(16)}`);
  if (str.length % 4 === 1) throw new Error('Last unit does not have enough valid bits');
  const bytes = Buffer.from(str.replace(/=+$/, ''), 'base64url');
  if (bytes.length !== 16) {
    throw new Error(
      `Input string \`${str}\` decoded as ${bytes.length} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID`,
    );
  }
  return { id: bytes.toString('base64url'), zero: bytes.every((b) => b === 0) };
}
