// Kafka's Uuid in its text form (URL-safe base64 of the 16 bytes, no padding), as the wire codec
// reads and writes it.

/** Uuid.ZERO_UUID: "no id" (e.g. a topic id a request leaves unset). */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
