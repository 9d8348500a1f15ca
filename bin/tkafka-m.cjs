const m = globalThis.__mark;
m('bin');
const { findBundle, runBundle } = require('../dist/src/runtime/run-bundle.cjs');
m('required run-bundle');
const bundle = findBundle('cli', 'cli.js');
m('found');
const cli = bundle ? runBundle(bundle.file, bundle.cacheFile) : undefined;
m('bundle run');
(cli ? Promise.resolve(cli.exports) : import('../dist/src/cli.js'))
  .then(({ main }) => main(process.argv))
  .then(() => cli?.writeCache());
