// `npm run build`'s second step (after tsc): bundles the broker, dist/src/broker/main.js and the
// ~510 modules of dist/src it imports, into one CommonJS file, dist/bundle/broker.cjs, which
// `tkafka server start` loads instead (src/broker/load-bundle.ts, with V8's code cache): one file
// to resolve and read instead of hundreds is most of the start-up time saved (README, Benchmarks).
// CommonJS because Node 20 gives a code cache to vm.Script only. prom-client and re2js are bundled
// too; the native codecs stay in node_modules. The folder is emptied first, so that no code cache
// of an older bundle survives; without esbuild in node_modules (a tree installed before it was a
// devDependency) it stays empty, the server runs dist/src, and the build says so.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(repo, 'dist', 'bundle');

rmSync(outDir, { recursive: true, force: true });
let esbuild;
try {
  esbuild = createRequire(import.meta.url)('esbuild');
} catch {
  console.warn('bundle: esbuild is not installed (npm install); `tkafka server start` runs dist/src unbundled');
  process.exit(0);
}

await esbuild.build({
  entryPoints: [join(repo, 'dist', 'src', 'broker', 'main.js')],
  outfile: join(outDir, 'broker.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // the native addons (and crc-32, their fallback) are required at run time through createRequire;
  // prom-client and re2js, plain JavaScript the broker loads at every start, are bundled so that
  // the code cache covers them too
  external: ['@mongodb-js/zstd', '@node-rs/crc32', 'crc-32', 'lz4-napi', 'snappy'],
  // import.meta.url (createRequire of the native codecs) as the bundle's own file URL
  define: { 'import.meta.url': '__bundle_url' },
  banner: { js: 'const __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
});

// esbuild escapes non-ASCII characters in code (its default charset) but keeps them in the comments
// it carries over; escaped there too, the file is ASCII and load-bundle.ts reads it as latin1
// (a third of the time of decoding UTF-8) into a one-byte string. V8 keeps the ~4 MB source for lazy
// compilation, so a single non-ASCII character made it a two-byte string: 8 MiB of heap, not 4.
const outFile = join(outDir, 'broker.cjs');
const text = readFileSync(outFile, 'utf8');
// each UTF-16 unit on its own (no u flag): a surrogate pair becomes two escapes, as JavaScript reads it
const escape = (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
if (/[^\x00-\x7f]/.test(text)) writeFileSync(outFile, text.replace(/[^\x00-\x7f]/g, escape));
