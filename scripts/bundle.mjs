// `npm run build`'s second step (after tsc): bundles dist/src into two CommonJS files that
// src/runtime/run-bundle.cts runs with V8's code cache (CommonJS because Node 20 gives a code cache to
// vm.Script only): one file to resolve and read instead of hundreds is most of the start-up time
// saved (README, Start-up).
// - dist/bundle/broker.cjs: dist/src/broker/main.js and the ~510 modules it imports, with prom-client
//   and re2js; `tkafka server start` loads it (src/broker/load-bundle.ts).
// - dist/bundle/cli.cjs: dist/src/cli.js, every tool, the client and the codec; bin/tkafka runs it.
//   What it must load as an ES module (the live views, which import ink, and the broker's loader) it
//   loads from dist/src through tools/common/import-src.ts, which is replaced here by the function
//   the bundle is run with (vm.Script's code cannot call import() on Node 20).
// The native codecs stay in node_modules. The folder is emptied first, so that no code cache of an
// older bundle survives; without esbuild in node_modules (a tree installed before it was a
// devDependency) it stays empty, bin/tkafka and the server run dist/src, and the build says so.
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
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
  console.warn('bundle: esbuild is not installed (npm install); tkafka runs dist/src unbundled');
  process.exit(0);
}

// the native addons (and crc-32, their fallback) are required at run time through createRequire
const NATIVE = ['@mongodb-js/zstd', '@node-rs/crc32', 'crc-32', 'lz4-napi', 'snappy'];

/** Replaces tools/common/import-src.js with the importSrc the bundle is run with (run-bundle.cts). */
const importSrcFromLoader = {
  name: 'import-src-from-loader',
  setup(build) {
    build.onLoad({ filter: /[\\/]tools[\\/]common[\\/]import-src\.js$/ }, () => ({
      contents: 'export const importSrc = __tkafka_import_src;',
      loader: 'js',
    }));
  },
};

async function bundle(entry, name, options) {
  const outFile = join(outDir, `${name}.cjs`);
  await esbuild.build({
    entryPoints: [join(repo, 'dist', 'src', entry)],
    outfile: outFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // import.meta.url (createRequire of the native codecs and commander) as the bundle's own file URL
    define: { 'import.meta.url': '__bundle_url' },
    banner: { js: 'const __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
    logLevel: 'warning',
    ...options,
  });
  // esbuild escapes non-ASCII characters in code (its default charset) but keeps them in the
  // comments it carries over; escaped there too, the file is ASCII and run-bundle.cts reads it as
  // latin1 (a third of the time of decoding UTF-8) into a one-byte string. V8 keeps the source for
  // lazy compilation, so a single non-ASCII character made the broker's 4 MB a two-byte string.
  const text = readFileSync(outFile, 'utf8');
  // each UTF-16 unit on its own (no u flag): a surrogate pair becomes two escapes, as JavaScript reads it
  const escape = (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
  if (/[^\x00-\x7f]/.test(text)) writeFileSync(outFile, text.replace(/[^\x00-\x7f]/g, escape));
  return text;
}

// prom-client and re2js, plain JavaScript the broker loads at every start, are bundled so that the
// code cache covers them too
await bundle('broker/main.js', 'broker', { external: NATIVE });

// commander is required through createRequire (help, --version); ink and react only by the live
// views, which stay in dist/src
const cli = await bundle('cli.js', 'cli', {
  external: [...NATIVE, 'commander', 'ink', 'react'],
  plugins: [importSrcFromLoader],
});
// an import() left in it would fail when it runs (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); esbuild
// names the map it makes of a template import() after it, in a comment and a quoted key
const dynamicImport = /(?<!['\w.])(?<!\/\/ )import\(/.exec(cli);
if (dynamicImport)
  throw new Error(`bundle: cli.cjs has an import() at ${dynamicImport.index}; load it through importSrc`);
