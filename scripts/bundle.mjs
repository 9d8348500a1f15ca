// `npm run build`'s second step (after tsc): bundles the broker, dist/src/broker/main.js and the
// ~510 modules of dist/src it imports, into one file, dist/bundle/broker.js, which
// `tkafka server start` loads instead (src/cli.ts): one module to resolve and read instead of
// hundreds is most of the start-up time saved (README, Performance). Packages (native codecs,
// prom-client, re2js) stay external and load from node_modules as before.
// Without esbuild in node_modules (a tree installed before it was a devDependency) it removes any
// old bundle, so that the server runs dist/src, and says so.
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(repo, 'dist', 'bundle', 'broker.js');

let esbuild;
try {
  esbuild = createRequire(import.meta.url)('esbuild');
} catch {
  rmSync(join(repo, 'dist', 'bundle'), { recursive: true, force: true });
  console.warn('bundle: esbuild is not installed (npm install); `tkafka server start` runs dist/src unbundled');
  process.exit(0);
}

await esbuild.build({
  entryPoints: [join(repo, 'dist', 'src', 'broker', 'main.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
