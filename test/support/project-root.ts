// The project's own folder, also when the suite runs from its compiled mirror (scripts/test-build.mjs, which holds
// everything but package-lock.json): for a test about the project's files (a fresh clone's, the client's, the
// generated model's) or one that starts the service from its sources.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package-lock.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package-lock.json above ${from}`);
  }
}

export const projectRoot = findRoot(dirname(fileURLToPath(import.meta.url)));
