// The installed package's folder (package.json, bin/tkafka), found by walking up from this module:
// the same answer whether the code runs from dist/src/... (tsc's output) or from the bundle
// dist/bundle/cli.js (scripts/bundle.mjs), which sit at different depths.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT: string = findRoot(dirname(fileURLToPath(import.meta.url)));
