// Runs every *.test.ts under src/ and test/ with node:test (Node 20 has no glob support in --test).
// Extra arguments narrow the run: `node scripts/test.mjs src/platform` runs only the files below that path.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ['src', 'test'])
  .flatMap((root) => (statSync(root).isDirectory() ? findTests(root) : [root]))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
