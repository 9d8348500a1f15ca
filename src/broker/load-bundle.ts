// How `tkafka server start` loads the broker. `npm run build` bundles src/broker/main.ts and the
// ~510 modules below it into one CommonJS file, dist/bundle/broker.cjs (scripts/bundle.mjs), run
// with V8's code cache by src/runtime/run-bundle.cts; the cache is written once the node serves, so
// that it holds the functions start-up compiled lazily as well as the top level.
// dist/src/broker/main.js is loaded instead when the bundle is missing, older than tsc's output, or
// TKAFKA_UNBUNDLED is set (stack traces in dist/src, the comparison bench/broker-startup.bench.ts makes).
// run-bundle.cts is CommonJS (bin/tkafka requires it): tsc emits it as .cjs, the name imported here
import { findBundle, runBundle } from '../runtime/run-bundle.cjs';
import { startupMark } from './startup-trace.js';

export type BrokerMain = typeof import('./main.js');

export async function loadBroker(): Promise<BrokerMain> {
  const bundle = findBundle('broker', 'broker/main.js');
  startupMark('loading the broker');
  const main = bundle ? withCacheWrite(bundle.file, bundle.cacheFile) : await import('./main.js');
  startupMark('broker loaded');
  return main;
}

function withCacheWrite(file: string, cacheFile: string): BrokerMain {
  const { exports: main, writeCache } = runBundle<BrokerMain>(file, cacheFile);
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
