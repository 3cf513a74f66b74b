// New artefacts are checked shortly after they are written (issue 31), without waiting for the next rolling pass:
// the worker's tick reads what was archived since its mark, once, and moves the mark past it.
import assert from 'node:assert/strict';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createArchiveService, createVerifier } from '../src/modules/archive/index.js';
import { systemClock } from '../src/platform/clock.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { createXmlChecks } from '../src/platform/xml-checks/index.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startArchiveWorld, type ArchiveWorld } from './support/archive-world.js';

describe('the check of new artefacts', () => {
  let world: ArchiveWorld;
  const xmlChecks = createXmlChecks({ schemas: undefined, xsdDir: undefined });
  before(async () => {
    world = await startArchiveWorld(2);
  });
  after(async () => {
    await xmlChecks.close();
    await world.app.close();
  });

  it('checks each artefact once, soon after it is written, and finds a blob gone before its check', async () => {
    const db = world.app.application.database.db;
    const verifier = createVerifier({
      db,
      blobs: world.app.application.blobs,
      xmlChecks,
      clock: systemClock,
      settings: {
        bytesPerSecond: undefined,
        orphanGraceMs: 3_600_000,
        retentionDays: undefined,
        sliceSize: 100,
        concurrency: 4,
      },
    });
    const checked: string[] = [];
    const archive = createArchiveService({
      db,
      environment: 'TEST',
      clock: systemClock,
      log: createLogger('silent'),
      verifier: {
        ...verifier,
        async verifyRecent(mark, until, limit, pacer) {
          const result = await verifier.verifyRecent(mark, until, limit, pacer);
          checked.push(...result.checked.map((artefact) => artefact.key));
          return result;
        },
      },
      rolling: {
        passIntervalMs: 86_400_000,
        bytesPerSecond: undefined,
        leaseMs: 10_000,
        tickBudgetMs: 60_000,
        settleMs: 0,
        recentBatch: 2,
      },
    });
    // A rolling pass over what is there now, so the ticks below only look at what is new.
    await db
      .insertInto('archive_passes')
      .values({
        id: 'aps_test',
        origin: 'rolling',
        scope: '{}',
        started_at: new Date(),
        completed_at: new Date(),
      })
      .execute();
    await db.updateTable('archive_verifier').set({ recent_after: new Date() }).execute();

    const created = await world.app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': world.apiKey },
      payload: ecfDocuments['31'],
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ data: { id: string } }>().data.id;
    const keys = (
      await db.selectFrom('document_artefacts').select('blob_key').where('document_id', '=', id).execute()
    ).map((row) => row.blob_key);
    const source = keys.find((key) => key.endsWith('.source-json.v1.json')) ?? assert.fail('a source-json');
    unlinkSync(join(world.app.dataDir, 'blobs', ...source.split('/')));

    // Batches of two, as many as the tick's budget allows: the three artefacts in one tick; nothing more in the next.
    assert.equal(await archive.rollingTick(), true);
    assert.deepEqual([...checked].sort(), [...keys].sort());
    assert.equal(await archive.rollingTick(), true);
    assert.equal(checked.length, 3, 'each checked once');

    const open = await db
      .selectFrom('archive_findings')
      .select(['kind', 'blob_key', 'owner_id'])
      .where('resolved_at', 'is', null)
      .execute();
    assert.deepEqual(open, [{ kind: 'missing_blob', blob_key: source, owner_id: id }]);
    const passes = await db.selectFrom('archive_passes').select('id').execute();
    assert.deepEqual(passes, [{ id: 'aps_test' }], 'no rolling pass was due');
  });
});
