// The layer rules of tkafka (see ARCHITECTURE.md, "Layers"). `npm run check:layers` checks them;
// `npm run lint` runs that check too. Every arrow points down:
//
//   src/protocol   imports nothing of ours
//   src/runtime    imports nothing of ours (how a bundle is run; bin/tkafka requires it too)
//   src/config     → protocol
//   src/storage    → protocol, config
//   src/client     → protocol, config
//   src/broker     → protocol, config, storage, client, runtime    (as Kafka's server uses the clients' NetworkClient:
//                                                          raft and broker-to-controller channels)
//   src/tools      → protocol, config, storage, client          (never the broker)
//   src/cli.ts     → tools, and (lazily) src/broker/main.ts through src/broker/load-bundle.ts
//                                                          (the entry point composes)
//   test/, bench/  → anything
//
// No module anywhere, tests and scripts included, imports itself back through a cycle
// (type-only imports count: they are dependencies too).

/** Folders of src/ a layer may import, besides itself and packages (node:*, node_modules). */
const LAYERS = {
  protocol: [],
  // how a bundle is run with V8's code cache (run-bundle.cts, CommonJS for bin/tkafka)
  runtime: [],
  // meta.properties is a java.util.Properties file: storage reads it with config/properties.ts.
  storage: ['protocol', 'config'],
  config: ['protocol'],
  client: ['protocol', 'config'],
  // Kafka's server talks to other nodes with the clients' NetworkClient; so does ours (raft, broker → controller).
  broker: ['protocol', 'storage', 'config', 'client', 'runtime'],
  tools: ['protocol', 'client', 'storage', 'config'],
};

const otherLayers = (layer) => {
  const allowed = [layer, ...LAYERS[layer]].join('|');
  return `^src/(?!(${allowed})/)`;
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle of imports: modules that cannot be understood, tested or loaded one without the other.',
      from: {},
      to: { circular: true },
    },
    ...Object.entries(LAYERS).map(([layer, allowed]) => ({
      name: `${layer}-imports-only-${allowed.length ? allowed.join('-') : 'itself'}`,
      severity: 'error',
      comment:
        `src/${layer} may import ` +
        (allowed.length ? `src/${allowed.join(', src/')} and itself` : 'only itself') +
        ' (and packages); anything else of ours is a layer pointing up or sideways.',
      from: { path: `^src/${layer}/` },
      to: { path: otherLayers(layer) },
    })),
    {
      name: 'src-folders-are-layers',
      severity: 'error',
      comment:
        'Every module of src/ is in one of the layers above (or is src/cli.ts): a new top-level folder needs a rule.',
      from: {},
      to: { path: '^src/', pathNot: `^src/((${Object.keys(LAYERS).join('|')})/|cli\\.ts$)` },
    },
    {
      name: 'cli-only-composes',
      severity: 'error',
      comment:
        'src/cli.ts composes the tools and (lazily) the broker entry point, src/broker/main.ts (through load-bundle.ts); nothing else.',
      from: { path: '^src/cli\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(tools/|broker/(main|load-bundle)\\.ts$)' },
    },
    {
      name: 'nothing-imports-cli',
      severity: 'error',
      comment: 'src/cli.ts is the entry point: only bin/ and tests load it.',
      from: { path: '^src/' },
      to: { path: '^src/cli\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing (a moved module whose importer was not updated).',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-test-or-bench',
      severity: 'error',
      comment: 'Shipped code does not import tests, helpers or benchmarks.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    // test/clients/ holds the client matrix's programs in other ecosystems' layouts, with their own
    // packages installed by `npm test`'s provisioning: not a layer of ours, and not resolvable before it runs
    exclude: { path: ['^dist/', '^node_modules/', '^test/clients/(node|python|java|go|kcat)/'] },
    // Type-only imports are dependencies too: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.cts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    skipAnalysisNotInRules: true,
  },
};
