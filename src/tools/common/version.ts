// tkafka's version, as package.json states it (`tkafka --version`, the tools' `--version`).
import { readFileSync } from 'node:fs';

const packageJson = new URL('../../../../package.json', import.meta.url);

export const VERSION: string = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
