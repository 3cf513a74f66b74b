// `npm start`: build when the compiled output is missing or older than the sources, then run `ecf start`.
import { existsSync, statSync } from 'node:fs';
import { buildDist, builtFolders } from './build.mjs';
import { filesUnder } from './compile-typescript.mjs';

const entry = 'dist/src/main.js';

const newest = Math.max(
  statSync('package.json').mtimeMs,
  ...builtFolders.flatMap(filesUnder).map((path) => statSync(path).mtimeMs),
);
const stale = !existsSync(entry) || newest > statSync(entry).mtimeMs;
if (stale) await buildDist(process.cwd());
const { run } = await import(new URL(`../${entry}`, import.meta.url).href);
await run(process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['start']);
