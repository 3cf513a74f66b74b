// The committed model under src/fiscal/model/generated is exactly what the generator writes from DGII's files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nodeProgram } from './support/node-program.js';
import { projectRoot } from './support/project-root.js';

const root = projectRoot;
const committedDir = join(root, 'src/fiscal/model/generated');
const dgiiDir = join(root, '../shared/dgii');

function generateInto(dir: string): void {
  const result = spawnSync(
    process.execPath,
    [...nodeProgram(fileURLToPath(new URL('../scripts/generate-ecf-model.ts', import.meta.url))), dgiiDir, dir],
    { encoding: 'utf8' },
  );
  assert.equal(result.status, 0, result.stderr);
}

function filesIn(dir: string): Map<string, string> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
  );
}

describe('scripts/generate-ecf-model.ts', () => {
  it('regenerates the committed model byte for byte, and twice the same', () => {
    const first = mkdtempSync(join(tmpdir(), 'ecf-model-'));
    const second = mkdtempSync(join(tmpdir(), 'ecf-model-'));
    try {
      generateInto(first);
      generateInto(second);
      assert.deepEqual(filesIn(first), filesIn(second));
      assert.deepEqual(
        filesIn(first),
        filesIn(committedDir),
        'the committed model is stale: run npx tsx scripts/generate-ecf-model.ts',
      );
    } finally {
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });

  it('keeps every generated file under 1 MiB', () => {
    for (const [name, text] of filesIn(committedDir)) assert.ok(Buffer.byteLength(text) < 1024 * 1024, name);
  });
});
