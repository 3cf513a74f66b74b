// `npm start`: build when the compiled output is missing or older than the sources, then run `ecf start`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildDist } from './build.mjs';

const entry = 'dist/src/main.js';

function newestSource(dir) {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path);
    newest = Math.max(newest, stat.isDirectory() ? newestSource(path) : stat.mtimeMs);
  }
  return newest;
}

const stale =
  !existsSync(entry) ||
  Math.max(newestSource('src'), newestSource('migrations'), statSync('package.json').mtimeMs) > statSync(entry).mtimeMs;
if (stale) await buildDist(process.cwd());
const { run } = await import(new URL(`../${entry}`, import.meta.url).href);
await run(process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['start']);
