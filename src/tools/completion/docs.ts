// Everything `npm run docs` (scripts/generate-docs.mjs) writes: the man pages under man/ and the
// completion scripts under completions/, all rendered from the CLI's own definitions (the
// commander program, the tool registry and each tool's spec, the broker configuration keys).
// test/docs.test.ts renders them again and fails when the committed files differ.
import { describeCli } from '../program.js';
import { loadCatalog } from './catalog.js';
import { commandPage, rootPage, serverPropertiesPage, type ConfigKeyDoc, type ManPage } from './man.js';
import { PAGES } from './pages.js';
import { COMPLETION_FILES, SHELLS, completionScript } from './scripts.js';

export interface GeneratedDocs {
  /** Repository-relative path → content. */
  readonly files: ReadonlyMap<string, string>;
  /** package.json "man" entries (./man/...). */
  readonly manList: readonly string[];
  /** Registry tools without a spec() (documented by summary only). */
  readonly missingSpecs: readonly string[];
}

async function serverKeys(): Promise<{ keys: ConfigKeyDoc[]; embedded: (readonly [string, string])[] }> {
  const [{ BROKER_CONFIG_KEYS, NO_DEFAULT, convertToString }, { EMBEDDED_DEFAULT_CONFIG }, { keySupport }] =
    await Promise.all([
      import('../../config/definitions.js'),
      import('../../config/load.js'),
      import('../../config/support.js'),
    ]);
  // docs/config-support.md's classification; the TLS/SASL keys keep their own `informational` flag
  const support = (name: string): Pick<ConfigKeyDoc, 'informational' | 'support'> => {
    const s = keySupport(name);
    if (s?.status === 'refuse')
      return { support: `Not enforced by tkafka yet (${s.reason}): tkafka server start refuses a non-default value.` };
    if (s?.status === 'warn')
      return { support: `Ignored by tkafka (${s.reason}): a non-default value gives one warning at start-up.` };
    return s?.status === 'security' && BROKER_CONFIG_KEYS.find((k) => k.name === name)?.informational
      ? { informational: true }
      : {};
  };
  const keys = BROKER_CONFIG_KEYS.filter((k) => !k.internal)
    .map((k): ConfigKeyDoc => ({
      name: k.name,
      type: k.type,
      default:
        k.default === NO_DEFAULT
          ? null
          : k.default === null
            ? 'null'
            : (convertToString(k.default as Exclude<typeof k.default, typeof NO_DEFAULT>, k.type) ?? 'null'),
      ...(k.validator?.text ? { validValues: k.validator.text } : {}),
      importance: k.importance,
      doc: k.doc,
      updateMode: k.dynamic ?? 'read-only',
      ...support(k.name),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { keys, embedded: [...EMBEDDED_DEFAULT_CONFIG] };
}

export async function generateDocs(): Promise<GeneratedDocs> {
  const catalog = await loadCatalog(describeCli());
  const { root, version } = catalog;
  const pages: ManPage[] = [rootPage(root, PAGES[''], version)];
  for (const c of root.subcommands) pages.push(commandPage(c, PAGES[c.name], version));
  const { keys, embedded } = await serverKeys();
  pages.push(serverPropertiesPage(keys, embedded, PAGES['server.properties'], version));
  const files = new Map<string, string>();
  for (const p of pages) files.set(`man/${p.file}`, p.text);
  for (const shell of SHELLS) files.set(`completions/${COMPLETION_FILES[shell]}`, completionScript(shell, root));
  return { files, manList: pages.map((p) => `./man/${p.file}`).sort(), missingSpecs: catalog.missingSpecs };
}
