// Runs one of the CommonJS bundles `npm run build` makes (scripts/bundle.mjs) with V8's code cache:
// dist/bundle/broker.cjs (`tkafka server start`, src/broker/load-bundle.ts) and dist/bundle/cli.cjs
// (every other command, bin/tkafka). One file to read instead of hundreds of ES modules to resolve,
// read and compile is most of the start-up time saved (README, Start-up). Node 20 offers a code
// cache to vm.Script only (module.enableCompileCache is Node 22): the cache, written next to the
// bundle after a first run (when its owner calls writeCache, so that it holds the functions that run
// compiled lazily as well as the top level), lets later runs skip most of the parsing and compiling.
// (V8 checks a cache against the source's length only, so the name carries the bundle's size and
// mtime, and the build removes old caches.) No bundle (esbuild not installed), a bundle older than
// tsc's output of its entry, or TKAFKA_UNBUNDLED: undefined, and the caller imports dist/src.
// A .cts file, so that tsc makes it CommonJS (dist/src/runtime/run-bundle.cjs): bin/tkafka, CommonJS
// too (bin/package.json), requires it, and a run of the CLI never starts Node's ES module loader,
// which cost ~15 ms of `topics --list` (README, Start-up).
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

export interface Bundle<T> {
  exports: T;
  /** Writes the code cache when there was none or V8 refused it; never throws (a read-only install). */
  writeCache(): void;
}

/**
 * dist/bundle/<name>.cjs when it can stand for `entry` (a module of dist/src, relative to it), with
 * its cache file's name; undefined when dist/src must be loaded instead. A `variant` has a cache of
 * its own (the CLI keeps one per command, so that each holds what its command compiles).
 */
export function findBundle(
  name: string,
  entry: string,
  variant?: string,
): { file: string; cacheFile: string } | undefined {
  if (process.env.TKAFKA_UNBUNDLED) return undefined;
  const file = join(__dirname, '..', '..', 'bundle', `${name}.cjs`);
  const bundled = statSync(file, { throwIfNoEntry: false });
  const source = statSync(join(__dirname, '..', entry), { throwIfNoEntry: false });
  if (!bundled || !source || bundled.mtimeMs < source.mtimeMs) return undefined;
  const suffix = (variant === undefined ? '' : `.${variant}`) + flagsSuffix();
  return { file, cacheFile: `${file}.${bundled.size}-${Math.trunc(bundled.mtimeMs)}${suffix}.cache` };
}

/**
 * V8 refuses a cache made under other flags (its flag hash): a node run with flags (bin/tkafka's
 * TKAFKA_NODE_OPTS, NODE_OPTIONS, --cpu-prof) keeps a cache of its own instead of rewriting the
 * one of the runs without. Empty without node options; else a hash of them (FNV-1a, 32 bits).
 */
function flagsSuffix(): string {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
  if (flags === '') return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < flags.length; i++) h = Math.imul(h ^ flags.charCodeAt(i), 0x01000193);
  return `.f${(h >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * import() of a module of dist/src (a path relative to it), for bundled code: code that vm.Script
 * compiled cannot call import() on Node 20 (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so a bundle
 * that must load an ES module gets this function (src/tools/common/import-src.ts).
 */
export const importSrc = (path: string): Promise<unknown> => import(pathToFileURL(join(__dirname, '..', path)).href);

type CommonJsWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
  importSrc: (path: string) => Promise<unknown>,
) => void;

export function runBundle<T>(file: string, cacheFile: string): Bundle<T> {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // the build leaves the bundle ASCII (scripts/bundle.mjs): latin1 decodes it as UTF-8 would, faster
  const bytes = readFileSync(file);
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  // Node's own CommonJS wrapper (plus importSrc), on the first line so that line numbers stay the bundle's
  const wrapped = `(function (exports, require, module, __filename, __dirname, __tkafka_import_src) {${text}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as CommonJsWrapper)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    importSrc,
  );
  const cached = cachedData !== undefined && !script.cachedDataRejected;
  return {
    exports: module.exports as T,
    writeCache: () => {
      if (cached) return;
      try {
        // renamed into place: a process starting at the same moment reads a whole cache or none
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        // a read-only installation: compile on every start
      }
    },
  };
}
