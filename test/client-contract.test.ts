// The committed client (sdk/openapi.json and the generated files of sdk/src) is exactly what the generator makes
// from the contract the app serves now: a route or schema changed without `npm run client` fails here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { clientFiles, servedContract } from '../scripts/client-generation.js';
import { projectRoot } from './support/project-root.js';

const root = projectRoot;

/** Where two texts first differ, as a line number and both lines; undefined when they are equal. */
function firstDifference(committed: string, generated: string): string | undefined {
  if (committed === generated) return undefined;
  const left = committed.split('\n');
  const right = generated.split('\n');
  const line = left.findIndex((text, i) => text !== right[i]);
  const at = line === -1 ? left.length : line;
  return `line ${String(at + 1)}: committed ${JSON.stringify(left[at])}, generated ${JSON.stringify(right[at])}`;
}

describe('generated client', { timeout: 300_000 }, () => {
  it('matches the contract the app serves, byte for byte', async () => {
    const files = await clientFiles(await servedContract());
    assert.deepEqual(Object.keys(files).sort(), [
      'sdk/openapi.json',
      'sdk/src/idempotent-routes.ts',
      'sdk/src/schema.ts',
    ]);
    for (const [path, generated] of Object.entries(files)) {
      const file = join(root, path);
      assert.ok(existsSync(file), `${path} is missing: run npm run client`);
      const difference = firstDifference(readFileSync(file, 'utf8'), generated);
      assert.equal(difference, undefined, `${path} is stale (${difference ?? ''}): run npm run client`);
    }
  });

  it('type-checks on web APIs alone, without Node', () => {
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'sdk', '--noEmit'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });

  it('declares the creation of documents idempotent, and the contract is OpenAPI 3.1', () => {
    const contract = JSON.parse(readFileSync(join(root, 'sdk/openapi.json'), 'utf8')) as { openapi: string };
    assert.equal(contract.openapi, '3.1.0');
    const routes = readFileSync(join(root, 'sdk/src/idempotent-routes.ts'), 'utf8');
    assert.match(routes, /'POST \/api\/v1\/documentos'/);
  });
});
