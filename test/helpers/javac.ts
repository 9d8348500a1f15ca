// The one way tests compile the Java programs they drive (against kafka-clients 4.4.0 from the
// client matrix's jars, or Kafka's own lib): javac for Java 17, only when the class file is missing
// or older than its source, so a second test run starts at once.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './spec-models.js';

/** kafka-clients 4.4.0 and its dependencies, as test/clients/java/setup.sh provisions them. */
export const JAVA_CLIENT_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');

/** Throws, naming the command that provisions it, when kafka-clients 4.4.0 is not in `lib`. */
export function requireJavaClient(lib: string = JAVA_CLIENT_LIB): void {
  if (!existsSync(join(lib, 'kafka-clients-4.4.0.jar')))
    throw new Error(`Kafka's Java client is not provisioned in ${lib}: run bash test/clients/java/setup.sh`);
}

/**
 * Compiles `source` (one top-level class, named as the file) into `outDir` against `classpath`
 * (default: the client matrix's jars), unless its class file is at least as new as the source.
 */
export async function compileJava(
  source: string,
  outDir: string,
  classpath: string = `${JAVA_CLIENT_LIB}/*`,
): Promise<void> {
  const classFile = join(outDir, basename(source).replace(/\.java$/, '.class'));
  if (existsSync(classFile) && statSync(classFile).mtimeMs >= statSync(source).mtimeMs) return;
  mkdirSync(outDir, { recursive: true });
  await execa('javac', ['-nowarn', '-encoding', 'UTF-8', '--release', '17', '-cp', classpath, '-d', outDir, source], {
    timeout: 120_000,
  });
}
