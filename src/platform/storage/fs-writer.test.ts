import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFsWriter } from './fs-writer.js';

describe('createFsWriter', () => {
  const root = mkdtempSync(join(tmpdir(), 'ecf-writer-'));
  const writer = createFsWriter(2);
  after(async () => {
    await writer.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('writes files asked for together into a new directory, read-only, with their exact bytes', async () => {
    const dir = join(root, 'a', 'doc_1');
    const files = ['one.xml', 'two.xml', 'three.json'].map((name, i) => ({
      path: join(dir, name),
      bytes: Buffer.from(`<x>${'ñ'.repeat(i * 1000)}</x>`),
    }));
    const outcomes = await Promise.all(files.map((file) => writer.write({ ...file, mode: 'in-place' })));
    assert.deepEqual(
      outcomes,
      files.map(() => ({ outcome: 'written' })),
    );
    for (const file of files) {
      assert.deepEqual(readFileSync(file.path), file.bytes);
      assert.equal(statSync(file.path).mode & 0o777, 0o444);
    }
  });

  it('reports an existing name as exists in either mode, writes nothing over it, and leaves no temporary file', async () => {
    const path = join(root, 'b', 'kept.xml');
    assert.deepEqual(await writer.write({ path, bytes: Buffer.from('first'), mode: 'link' }), { outcome: 'written' });
    assert.deepEqual(await writer.write({ path, bytes: Buffer.from('second'), mode: 'link' }), { outcome: 'exists' });
    assert.deepEqual(await writer.write({ path, bytes: Buffer.from('third'), mode: 'in-place' }), {
      outcome: 'exists',
    });
    assert.equal(readFileSync(path, 'utf8'), 'first');
    assert.deepEqual(readdirSync(join(root, 'b')), ['kept.xml']);
  });

  it('fails one write with its error code while the others of its batch succeed', async () => {
    writeFileSync(join(root, 'plain-file'), 'not a directory');
    const [bad, good] = await Promise.all([
      writer.write({ path: join(root, 'plain-file', 'x.xml'), bytes: Buffer.from('x'), mode: 'in-place' }),
      writer.write({ path: join(root, 'c', 'y.xml'), bytes: Buffer.from('y'), mode: 'in-place' }),
    ]);
    assert.deepEqual(
      { ...bad, message: undefined },
      { outcome: 'failed', code: 'EEXIST', message: undefined },
      'a file stands where the directory should be',
    );
    assert.deepEqual(good, { outcome: 'written' });
  });

  it('writes everything asked for while its threads are busy, each write with its own outcome', async () => {
    // Asked for over many ticks, so later writes wait for a busy thread and go in a shared batch.
    const taken = join(root, 'e', 'taken.xml');
    assert.deepEqual(await writer.write({ path: taken, bytes: Buffer.from('first'), mode: 'in-place' }), {
      outcome: 'written',
    });
    const files = Array.from({ length: 60 }, (_, i) => ({
      path: i === 30 ? taken : join(root, 'e', `f${String(i)}.xml`),
      bytes: Buffer.from(`file ${String(i)}`),
    }));
    const outcomes: Promise<unknown>[] = [];
    for (const file of files) {
      outcomes.push(writer.write({ ...file, mode: file.path === taken ? 'in-place' : 'link' }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(
      await Promise.all(outcomes),
      files.map((_, i) => (i === 30 ? { outcome: 'exists' } : { outcome: 'written' })),
    );
    for (const [i, file] of files.entries())
      assert.equal(readFileSync(file.path, 'utf8'), i === 30 ? 'first' : `file ${String(i)}`);
  });

  it('fails a write the disk has no room for with ENOSPC and leaves nothing of it, in either mode', async () => {
    const dir = join(root, 'full');
    const bytes = Buffer.from('<x>'.padEnd(10_000, 'x'));
    await writer.failNextWrites(2);
    const outcomes = await Promise.all(
      (['in-place', 'link'] as const).map((mode) => writer.write({ path: join(dir, `${mode}.xml`), bytes, mode })),
    );
    assert.deepEqual(
      outcomes.map((outcome) => ({ ...outcome, message: undefined })),
      [0, 1].map(() => ({ outcome: 'failed', code: 'ENOSPC', message: undefined })),
    );
    assert.deepEqual(readdirSync(dir), [], 'no partial file, no temporary file');

    await writer.failNextWrites(0);
    assert.deepEqual(await writer.write({ path: join(dir, 'after.xml'), bytes, mode: 'in-place' }), {
      outcome: 'written',
    });
    assert.deepEqual(readFileSync(join(dir, 'after.xml')), bytes);
  });

  it('starts its threads again after close', async () => {
    await writer.close();
    assert.deepEqual(
      await writer.write({ path: join(root, 'd', 'again.xml'), bytes: Buffer.from('again'), mode: 'in-place' }),
      { outcome: 'written' },
    );
  });
});
