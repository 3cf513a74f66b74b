// The built console (scripts/build-console.mjs: dist/console), read once into memory: a few files of tens of KB,
// each with its gzip copy made at build time, so serving one is a map lookup and a write.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleFile {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

export interface ConsoleAssets {
  index: ConsoleFile;
  /** By file name (content-hashed), only those the build's manifest lists. */
  assets: ReadonlyMap<string, ConsoleFile>;
}

/**
 * The folder the build writes: dist/console of the project this file belongs to, whether it runs from the sources
 * (src/modules/console), from dist/ (dist/src/modules/console) or from the suite's mirror: the nearest folder above
 * with a package.json is the project's (dist/ has none).
 */
export function defaultConsoleDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'console');
    if (dirname(dir) === dir) return join(process.cwd(), 'dist', 'console');
  }
}

/** The console built into `dir`, or undefined when it has not been built there. */
export function readConsoleAssets(dir: string): ConsoleAssets | undefined {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { assets: Record<string, { type: string }> };
  const file = (path: string, type: string): ConsoleFile => ({
    type,
    body: readFileSync(path),
    gzip: readFileSync(`${path}.gz`),
  });
  return {
    index: file(join(dir, 'index.html'), 'text/html; charset=utf-8'),
    assets: new Map(
      Object.entries(manifest.assets).map(([name, { type }]) => [name, file(join(dir, 'assets', name), type)]),
    ),
  };
}
