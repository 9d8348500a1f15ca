// new String(bytes, StandardCharsets.UTF_8) as the JDK decodes it (java.lang.String.decodeUTF8_UTF16):
// malformed input becomes U+FFFD, but not where the WHATWG decoder behind Buffer.toString puts it.
// A surrogate encoded in 3 bytes is one U+FFFD (not three), and a sequence cut off by the end of the
// input ends the text after its U+FFFD. DumpLogSegments prints keys and payloads this way.

const REPL = '\ufffd';
const notContinuation = (b: number): boolean => (b & 0xc0) !== 0x80;

/** isMalformed3_2: E0 followed by 80..9F (overlong), or a second byte that is no continuation. */
const malformed3Second = (b1: number, b2: number): boolean =>
  (b1 === 0xe0 && (b2 & 0xe0) === 0x80) || notContinuation(b2);

/** isMalformed4_2. */
const malformed4Second = (b1: number, b2: number): boolean =>
  (b1 === 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 === 0xf4 && (b2 & 0xf0) !== 0x80) || notContinuation(b2);

export function javaUtf8(src: Uint8Array): string {
  let out = '';
  let run = 0; // start of the pending well-formed run, decoded in one go
  let sp = 0;
  const sl = src.length;
  const flush = (to: number): void => {
    if (to > run) out += Buffer.from(src.buffer, src.byteOffset + run, to - run).toString('utf8');
  };
  const bad = (at: number, next: number): void => {
    flush(at);
    out += REPL;
    run = next;
  };
  while (sp < sl) {
    const start = sp;
    const b1 = src[sp++]!;
    if (b1 < 0x80) continue;
    if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (sp < sl) {
        if (notContinuation(src[sp]!)) bad(start, sp);
        else sp++;
        continue;
      }
      bad(start, sl);
      return out;
    }
    if (b1 >= 0xe0 && b1 <= 0xef) {
      if (sp + 1 < sl) {
        const b2 = src[sp]!;
        const b3 = src[sp + 1]!;
        if (malformed3Second(b1, b2) || notContinuation(b3)) {
          sp = start + (malformed3Second(b1, b2) ? 1 : 2);
          bad(start, sp);
        } else {
          sp += 2;
          const c = ((b1 & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
          if (c >= 0xd800 && c <= 0xdfff) bad(start, sp);
        }
        continue;
      }
      if (sp < sl && malformed3Second(b1, src[sp]!)) {
        bad(start, sp);
        continue;
      }
      bad(start, sl);
      return out;
    }
    if (b1 >= 0xf0 && b1 <= 0xf7) {
      if (sp + 2 < sl) {
        const b2 = src[sp]!;
        const b3 = src[sp + 1]!;
        const b4 = src[sp + 2]!;
        const uc = ((b1 & 0x07) << 18) | ((b2 & 0x3f) << 12) | ((b3 & 0x3f) << 6) | (b4 & 0x3f);
        if (notContinuation(b2) || notContinuation(b3) || notContinuation(b4) || uc < 0x10000 || uc > 0x10ffff) {
          // malformed4: how many bytes the U+FFFD stands for
          sp = start + (b1 > 0xf4 || malformed4Second(b1, b2) ? 1 : notContinuation(b3) ? 2 : 3);
          bad(start, sp);
        } else sp += 3;
        continue;
      }
      if (b1 > 0xf4 || (sp < sl && malformed4Second(b1, src[sp]!))) {
        bad(start, sp);
        continue;
      }
      sp++;
      if (sp < sl && notContinuation(src[sp]!)) {
        bad(start, sp);
        continue;
      }
      bad(start, sl);
      return out;
    }
    bad(start, sp);
  }
  flush(sl);
  return out;
}
