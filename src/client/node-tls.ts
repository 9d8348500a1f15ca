// node:tls, loaded when the first TLS connection or context is made: loading it costs ≈3 ms, which a
// PLAINTEXT tool run (`tkafka topics --list`) need not pay (README, Start-up).
import { createRequire } from 'node:module';
import type * as Tls from 'node:tls';

let tls: typeof Tls | undefined;

export const nodeTls = (): typeof Tls => (tls ??= createRequire(import.meta.url)('node:tls') as typeof Tls);
