// tkafka's version, as package.json states it (`tkafka --version`, the tools' `--version`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

const packageJson = join(PACKAGE_ROOT, 'package.json');

export const VERSION: string = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
