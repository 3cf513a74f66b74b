import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFsBlobStore, sha256Hex, type BlobStore } from '../../platform/storage/index.js';
import { archiveNextArtefactVersion } from './artefacts.js';

describe('archiveNextArtefactVersion', () => {
  let root: string;
  let blobs: BlobStore;
  const owner = { companyId: 'cmp_1', documentId: 'doc_1', createdAt: new Date('2026-11-27T12:00:00Z') };
  const now = new Date('2026-11-27T13:00:00Z');

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'artefacts-'));
    blobs = createFsBlobStore(root);
  });
  after(async () => {
    await blobs.close();
    await rm(root, { recursive: true, force: true });
  });

  it('numbers the version after the last recorded one', async () => {
    const bytes = Buffer.from('<ARECF>first</ARECF>');
    const row = await archiveNextArtefactVersion(blobs, owner, 'arecf-xml', bytes, 0, now);
    assert.equal(row.version, 1);
    assert.equal(row.blob_key, 'documents/cmp_1/2026-11-27/doc_1.arecf-xml.v1.xml');
    assert.equal(row.sha256, sha256Hex(bytes));
    assert.deepEqual(await blobs.get(row.blob_key), bytes);
  });

  it('leaves the number of an orphan (a blob written by an attempt that died before recording it) to that orphan', async () => {
    // v2 was written, its row never recorded: the last recorded version is still 1.
    const orphan = await archiveNextArtefactVersion(
      blobs,
      owner,
      'arecf-xml',
      Buffer.from('<ARECF>lost</ARECF>'),
      1,
      now,
    );
    assert.equal(orphan.version, 2);
    const bytes = Buffer.from('<ARECF>second answer</ARECF>');
    const row = await archiveNextArtefactVersion(blobs, owner, 'arecf-xml', bytes, 1, now);
    assert.equal(row.version, 3);
    assert.deepEqual(await blobs.get(row.blob_key), bytes);
    assert.deepEqual(await blobs.get(orphan.blob_key), Buffer.from('<ARECF>lost</ARECF>'));
  });

  it('takes the same bytes at the same number again (an attempt repeated after its blob was written)', async () => {
    const row = await archiveNextArtefactVersion(blobs, owner, 'arecf-xml', Buffer.from('<ARECF>lost</ARECF>'), 1, now);
    assert.equal(row.version, 2);
  });

  it('passes over a partial file (a writer that died in the middle of writing it in place)', async () => {
    const bytes = Buffer.from('<ARECF>third answer</ARECF>');
    await writeFile(join(root, 'documents/cmp_1/2026-11-27/doc_1.arecf-xml.v4.xml'), bytes.subarray(0, 10));
    const row = await archiveNextArtefactVersion(blobs, owner, 'arecf-xml', bytes, 3, now);
    assert.equal(row.version, 5);
    assert.deepEqual(await blobs.get(row.blob_key), bytes);
  });
});
