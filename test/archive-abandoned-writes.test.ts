// A creation whose blobs were written but whose record the database refused (issue 43: the database cut between the
// two) leaves objects no record names. They are recorded as abandoned, with why, and the archive verifier passes
// over them: an outage must not leave integrity findings an operator has to chase. Planted orphans are still found.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertProblem } from './support/assert-problem.js';
import { startArchiveWorld } from './support/archive-world.js';
import { ecfDocuments } from './support/ecf-documents.js';
import type { TestApp } from './support/test-app.js';

describe('blobs of a creation the database refused', () => {
  let app: TestApp;
  let apiKey: string;

  before(async () => {
    ({ app, apiKey } = await startArchiveWorld(1, { env: { ARCHIVE_ORPHAN_GRACE_MINUTES: '0' } }));
  });
  after(() => app.close());

  const db = () => app.application.database.db;
  const create = () =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey, 'idempotency-key': 'pedido-cortado' },
      payload: ecfDocuments['31'],
    });

  it('are recorded as abandoned and are no finding; the same request again is stored', async () => {
    // The statement that stores the document fails as a lost connection does (SQLSTATE 08006), after the blobs.
    await sql`create function refuse_documents() returns trigger language plpgsql as $$
      begin raise exception 'the connection went away' using errcode = '08006'; end $$`.execute(db());
    await sql`create trigger refuse before insert on documents for each row execute function refuse_documents()`.execute(
      db(),
    );
    assertProblem(await create(), 503, 'database_unavailable');

    const burned = await db().selectFrom('sequence_burned').select('cause').executeTakeFirstOrThrow();
    const documentId = /document (doc_\w+)/.exec(burned.cause)?.[1];
    assert.ok(documentId !== undefined, burned.cause);
    const abandoned = await db().selectFrom('abandoned_blobs').selectAll().orderBy('key').execute();
    assert.deepEqual(
      abandoned.map((row) => row.key.replace(/^documents\/[^/]+\/[^/]+\//, '')),
      [`${documentId}.signed-xml.v1.xml`, `${documentId}.source-json.v1.json`, `${documentId}.source-xml.v1.xml`],
    );
    for (const row of abandoned) {
      assert.ok(existsSync(join(app.dataDir, 'blobs', ...row.key.split('/'))), row.key);
      assert.match(row.cause, new RegExp(`^document ${documentId} was not stored: the connection went away$`));
    }
    assert.deepEqual((await app.application.services.archive.runPass({})).failing, []);

    // The same objects without their record of abandonment are orphans: the verifier still sees them.
    await db().deleteFrom('abandoned_blobs').execute();
    const orphans = (await app.application.services.archive.runPass({})).failing.map((verdict) => verdict.key);
    assert.deepEqual(
      orphans.sort(),
      abandoned.map((row) => row.key),
    );

    await sql`drop trigger refuse on documents`.execute(db());
    const stored = await create();
    assert.equal(stored.statusCode, 201, stored.body);
    assert.notEqual(stored.json<{ data: { id: string } }>().data.id, documentId);
  });

  it('answers 507 database_full when the database has no room, without Retry-After, and abandons the blobs', async () => {
    // What PostgreSQL (or PGlite) says when its disk is full as it extends a table or writes its log.
    await sql`create or replace function refuse_documents() returns trigger language plpgsql as $$
      begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`.execute(
      db(),
    );
    await sql`create trigger refuse before insert on documents for each row execute function refuse_documents()`.execute(
      db(),
    );
    const before = await db().selectFrom('abandoned_blobs').select('key').execute();
    const full = await app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey },
      payload: ecfDocuments['31'],
    });
    assertProblem(full, 507, 'database_full');
    assert.equal(full.headers['retry-after'], undefined);
    const after = await db().selectFrom('abandoned_blobs').select('key').execute();
    assert.equal(after.length - before.length, 3);
    await sql`drop trigger refuse on documents`.execute(db());
  });
});
