/** Raised for any malformed input while decoding: the only kind of error a decoder throws. */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

/** Raised when a value cannot be encoded at the requested version (Kafka's UnsupportedVersionException). */
export class UnsupportedVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedVersionError';
  }
}

/** Raised when a value is not encodable at all (null where not nullable, string too long, ...). */
export class EncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncodeError';
  }
}
