// The suite runs from JavaScript compiled once per run, not through tsx. On Node 20 tsx's loader hooks run on a
// thread of their own and every module a test imports crosses to it and back: a CPU profile of a test process
// loading the app spent 8.5-10.5 s with tsx against 4 s from compiled files, and the suite starts ~190 of them.
// esbuild compiles each file on its own (scripts/compile-typescript.mjs), the transform tsx itself applies, so what
// runs is what tsx would run, and what dist/ holds.
//
// The build mirrors the project, so that every path a file makes from its own location (import.meta.url) resolves
// as it does in the sources: each .ts beside its .js (a test that starts a child through tsx names the .ts), every
// other file and folder linked, and the project's sibling ../shared (DGII's files) linked beside the build.
// package-lock.json alone is left out: test/support/project-root.ts finds the sources by it.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { buildConsole } from './build-console.mjs';
import { compileTypeScript, filesUnder } from './compile-typescript.mjs';

/** The folders compiled; every other entry of the project is linked as it is. */
const compiled = ['src', 'test', 'migrations', 'scripts', 'bench', 'sdk'];
const skipped = new Set(['.git', 'node_modules', 'package-lock.json', 'dist', 'data', 'coverage', '.scratch']);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Builds the project at `root` into a new folder under node_modules/.cache and returns it; `clean()` removes it. */
export async function buildTests(root) {
  const runs = join(root, 'node_modules/.cache/ecf-test-runs');
  mkdirSync(runs, { recursive: true });
  // A run stopped by a signal leaves its build behind: gone once its process is.
  for (const entry of readdirSync(runs)) {
    const pid = Number(entry.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(runs, entry), { recursive: true, force: true });
  }
  const out = join(runs, `${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(out);
  const shared = resolve(root, '../shared');
  const sharedLink = join(runs, 'shared');
  if (existsSync(shared) && !existsSync(sharedLink)) {
    try {
      symlinkSync(shared, sharedLink);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error; // another run made it meanwhile
    }
  }

  const sources = [];
  for (const entry of readdirSync(root)) {
    if (skipped.has(entry)) continue;
    const path = join(root, entry);
    if (!compiled.includes(entry) || !statSync(path).isDirectory()) {
      symlinkSync(path, join(out, entry));
      continue;
    }
    for (const file of filesUnder(path)) {
      const target = join(out, relative(root, file));
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(file, target);
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
        // esbuild would write the .js through the link, into the sources.
        if (existsSync(file.replace(/\.ts$/, '.js'))) throw new Error(`${file} has a .js beside it`);
        sources.push(file);
      }
    }
  }
  // The console's bundle where the service looks for it (src/modules/console/console-assets.ts): the mirror's dist/.
  await Promise.all([
    compileTypeScript({ root, files: sources, outdir: out }),
    buildConsole(root, join(out, 'dist', 'console')),
  ]);
  return { dir: out, clean: () => rmSync(out, { recursive: true, force: true }) };
}
