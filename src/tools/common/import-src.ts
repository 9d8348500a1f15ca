// import() of a module of dist/src by its path there, for what the CLI bundle (dist/bundle/cli.cjs,
// scripts/bundle.mjs) must load as an ES module: the live views, which import ink (an ES module whose
// yoga-layout has a top-level await, which a CommonJS bundle cannot hold), and the broker's loader
// (src/cli.ts; the broker is its own bundle). Code that vm.Script compiled cannot call import() on
// Node 20, so the build replaces this module with the function the bundle is run with
// (src/runtime/run-bundle.cts's importSrc); here, unbundled, it is a plain import().
export const importSrc = (path: string): Promise<unknown> => import(new URL(`../../${path}`, import.meta.url).href);
