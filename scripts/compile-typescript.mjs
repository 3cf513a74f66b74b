// The one way this project turns its TypeScript into JavaScript: esbuild, each file on its own (tsconfig.json has
// isolatedModules and verbatimModuleSyntax, so a file compiles without the others), the transform tsx applies in
// development. Types are checked by `npm run lint`, not here. Used by `npm run build` and `npm start` (dist/) and by
// the suite's mirror (scripts/test-build.mjs).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** Every file under `dir`, at any depth. */
export function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Compiles `files` (absolute paths under `root`) to `outdir`, each .js at its path relative to `root`. */
export async function compileTypeScript({ root, files, outdir, sourcemap = false }) {
  await build({
    entryPoints: files,
    outbase: root,
    outdir,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(root, 'tsconfig.json'),
    sourcemap,
    logLevel: 'warning',
  });
}
