// Creating documents while the archive's storage fails (issue 43): S3 out of reach answers 503 storage_unavailable
// with Retry-After, a full disk 507 storage_full. Nothing is half-stored (no document row, no object or file the
// archive verifier would call an orphan), each number taken is burned with its cause, and once the fault clears
// creations succeed again, with no restart.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { FsBlobStore } from '../src/platform/storage/index.js';
import { assertProblem } from './support/assert-problem.js';
import { startArchiveWorld, type ArchiveWorld } from './support/archive-world.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startS3rver, type S3rverInstance } from './support/s3rver.js';

function create(world: ArchiveWorld, idempotencyKey?: string): Promise<LightMyRequestResponse> {
  return world.app.app.inject({
    method: 'POST',
    url: '/api/v1/documentos',
    headers: {
      'x-api-key': world.apiKey,
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    payload: ecfDocuments['31'],
  });
}

function eNcfOf(response: LightMyRequestResponse): string {
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ data: { eNCF: string } }>().data.eNCF;
}

async function storedDocuments(world: ArchiveWorld): Promise<string[]> {
  const rows = await world.app.application.database.db
    .selectFrom('documents')
    .select('id')
    .where('company_id', '=', world.companyId)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/** The company's burned numbers, each with the document its cause names; every cause must match `cause`. */
async function burnedNumbers(world: ArchiveWorld, cause: RegExp): Promise<{ encf: string; documentId: string }[]> {
  const rows = await world.app.application.database.db
    .selectFrom('sequence_burned')
    .select(['encf', 'cause'])
    .where('company_id', '=', world.companyId)
    .orderBy('encf')
    .execute();
  return rows.map((row) => {
    assert.match(row.cause, cause);
    const documentId = /^creating document (doc_\w+) failed: /.exec(row.cause)?.[1];
    assert.ok(documentId !== undefined, row.cause);
    return { encf: row.encf, documentId };
  });
}

describe('creating documents while S3 is out of reach', () => {
  let s3: S3rverInstance;
  let world: ArchiveWorld;
  before(async () => {
    s3 = await startS3rver();
    world = await startArchiveWorld(1, {
      env: {
        STORAGE: 's3',
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_OBJECT_LOCK_DAYS: '3653',
        ARCHIVE_ORPHAN_GRACE_MINUTES: '0',
      },
    });
  });
  after(async () => {
    await world.app.close();
    await s3.stop();
  });

  it('answers 503 storage_unavailable with Retry-After, stores no document, burns the numbers, and creates again once S3 is back', async () => {
    await s3.halt();
    const answers = await Promise.all([create(world), create(world), create(world, 'pedido-durante-la-caida')]);
    for (const answer of answers) {
      const problem = assertProblem(answer, 503, 'storage_unavailable');
      assert.equal(answer.headers['retry-after'], '5');
      assert.doesNotMatch(problem.detail, /ECONNREFUSED|127\.0\.0\.1|documents\//, 'a 5xx never tells its internals');
    }
    assert.deepEqual(await storedDocuments(world), world.documents, 'no document row without its blobs');
    const burned = await burnedNumbers(world, /: S3 cannot be reached \(ECONNREFUSED\)$/);
    assert.deepEqual(
      burned.map((number) => number.encf),
      ['E310000000002', 'E310000000003', 'E310000000004'],
    );

    await s3.resume();
    assert.equal(eNcfOf(await create(world)), 'E310000000005');
    // The refused request created nothing and kept no claim on its key: sent again, it creates.
    const retried = await create(world, 'pedido-durante-la-caida');
    assert.equal(eNcfOf(retried), 'E310000000006');
    assert.equal(retried.headers['idempotency-replayed'], undefined);

    // Every stored document has all its objects. A refused creation answers at its first failed write while the
    // SDK may still retry its others, which can land once S3 is back: objects no record names (under Object Lock
    // nobody can delete them), which the creation recorded as abandoned writes, so the verifier finds nothing.
    const stored = await storedDocuments(world);
    const objects = (await world.app.application.blobs.list({ prefix: 'documents/', limit: 100 })).map(
      (blob) => blob.key,
    );
    const documentOf = (key: string) => /\/(doc_\w+)\.[^/]+$/.exec(key)?.[1] ?? key;
    for (const id of stored) assert.equal(objects.filter((key) => documentOf(key) === id).length, 3, id);
    const refused = new Set(burned.map((number) => number.documentId));
    assert.deepEqual(
      objects.filter((key) => !stored.includes(documentOf(key)) && !refused.has(documentOf(key))),
      [],
    );
    const report = await world.app.application.services.archive.runPass({});
    assert.deepEqual(report.failing, []);
    assert.equal(report.pass.artefacts, 3 * stored.length);
  });
});

describe('creating documents on a full disk', () => {
  let world: ArchiveWorld;
  before(async () => {
    world = await startArchiveWorld(1, { env: { ARCHIVE_ORPHAN_GRACE_MINUTES: '0' } });
  });
  after(async () => {
    await world.app.close();
  });

  async function filesInStore(): Promise<string[]> {
    const { storage } = world.app.config;
    assert.equal(storage.kind, 'fs');
    const entries = await readdir(storage.root, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  }

  it('answers 507 storage_full, leaves no file of the document, burns its number, and creates again once there is room', async () => {
    const { blobs } = world.app.application;
    assert.equal(blobs.kind, 'fs');
    const disk = blobs as FsBlobStore;
    // A full disk refuses every write until room is made; each refused write had landed part of its bytes.
    await disk.failNextWrites(1_000_000);
    const answers = await Promise.all([create(world), create(world)]);
    for (const answer of answers) {
      assertProblem(answer, 507, 'storage_full');
      assert.equal(answer.headers['retry-after'], undefined, 'room is made by an operator, not by waiting');
    }
    assert.deepEqual(await storedDocuments(world), world.documents);
    const burned = await burnedNumbers(world, /: no room to write blob documents\/\S+ \(ENOSPC\)$/);
    assert.deepEqual(
      burned.map((number) => number.encf),
      ['E310000000002', 'E310000000003'],
    );
    const files = await filesInStore();
    for (const { documentId } of burned)
      assert.deepEqual(
        files.filter((name) => name.includes(documentId)),
        [],
        'a refused write leaves nothing behind',
      );

    await disk.failNextWrites(0);
    const created = await create(world);
    assert.equal(eNcfOf(created), 'E310000000004');
    const id = created.json<{ data: { id: string } }>().data.id;
    assert.deepEqual((await filesInStore()).filter((name) => name.includes(id)).length, 3);
    // Orphans are reported at once: the world sets no grace period.
    const report = await world.app.application.services.archive.runPass({});
    assert.deepEqual(report.failing, []);
    assert.equal(report.pass.artefacts, 6);
  });
});
