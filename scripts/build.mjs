#!/usr/bin/env node
// `npm run build` (and `npm start` when dist/ is older than the sources): the service's sources and migrations to
// dist/, tests left out, and the web console to dist/console (scripts/build-console.mjs). esbuild compiles the 500-odd files in about a second, where tsc took 25 s of a first
// `npm start`; the type check is `npm run lint`'s. Files are written over, not removed first: a service already
// running from dist/ still finds the modules it loads late (the PDF renderer, the S3 adapter).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildConsole } from './build-console.mjs';
import { compileTypeScript, filesUnder } from './compile-typescript.mjs';

/** The folders dist/ is built from; `npm start` rebuilds when a file in them is newer than dist/. */
export const builtFolders = ['src', 'migrations', 'console', 'sdk/src'];
const compiledFolders = ['src', 'migrations'];

const isServiceSource = (path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts');

/** Builds the project at `root` into `outdir` (its dist/ by default). */
export async function buildDist(root, outdir = join(root, 'dist')) {
  const files = compiledFolders.flatMap((dir) => filesUnder(join(root, dir))).filter(isServiceSource);
  await Promise.all([
    compileTypeScript({ root, files, outdir, sourcemap: true }),
    buildConsole(root, join(outdir, 'console')),
  ]);
}

// `node scripts/build.mjs [outdir]`
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await buildDist(process.cwd(), process.argv[2]);
