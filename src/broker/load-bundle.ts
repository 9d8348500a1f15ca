// How `tkafka server start` loads the broker. `npm run build` bundles src/broker/main.ts and the
// ~510 modules below it into one CommonJS file, dist/bundle/broker.cjs (scripts/bundle.mjs): one
// file to resolve and read instead of hundreds. It is compiled here with V8's code cache, which
// Node 20 offers to vm.Script only (module.enableCompileCache is Node 22): the first start writes
// broker.cjs.<size>-<mtime>.cache next to it once the node serves, so that the cache holds the
// functions start-up compiled lazily as well as the top level; later starts skip most of the
// parsing and compiling.
// (V8 checks a cache against the source's length only, so the name carries the bundle's size and
// mtime, and the build removes old caches.) dist/src/broker/main.js is loaded instead when the
// bundle is missing, older than tsc's output, or TKAFKA_UNBUNDLED is set (stack traces in dist/src,
// the comparison bench/broker-startup.bench.ts makes).
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { startupMark } from './startup-trace.js';

export type BrokerMain = typeof import('./main.js');

export async function loadBroker(): Promise<BrokerMain> {
  const bundle = fileURLToPath(new URL('../../bundle/broker.cjs', import.meta.url));
  const source = fileURLToPath(new URL('./main.js', import.meta.url));
  const bundled = process.env.TKAFKA_UNBUNDLED ? undefined : statSync(bundle, { throwIfNoEntry: false });
  startupMark('loading the broker');
  const main =
    !bundled || bundled.mtimeMs < statSync(source).mtimeMs
      ? await import('./main.js')
      : runBundle(bundle, `${bundle}.${bundled.size}-${Math.trunc(bundled.mtimeMs)}.cache`);
  startupMark('broker loaded');
  return main;
}

type CommonJsWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
) => void;

function runBundle(file: string, cacheFile: string): BrokerMain {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // the build leaves the bundle ASCII (scripts/bundle.mjs): latin1 decodes it as UTF-8 would, faster
  const bytes = readFileSync(file);
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  // Node's own CommonJS wrapper, on the first line so that line numbers stay the bundle's
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${text}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as CommonJsWrapper)(module.exports, createRequire(file), module, file, dirname(file));
  const main = module.exports as BrokerMain;
  if (cachedData !== undefined && !script.cachedDataRejected) return main;
  // no cache yet (or V8 refused it): written once the node serves, with what start-up compiled
  const writeCache = () => {
    try {
      // renamed into place: a node starting at the same moment reads a whole cache or none
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cacheFile);
    } catch {
      // a read-only installation: compile on every start
    }
  };
  return {
    ...main,
    startServer: (opts) =>
      main.startServer({
        ...opts,
        onStarted: () => {
          opts.onStarted?.();
          writeCache();
        },
      }),
  };
}
