// The sandbox's upgrade to voided spans (its migration 0005): the numbers earlier ANECFs voided, kept a row each,
// become spans (consecutive numbers of one request, one span), and the rows go; documents' uses stay as they were.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateSandbox, sandboxMigrator } from '../../src/sandbox/state/migrations.js';
import type { SandboxDatabase } from '../../src/sandbox/state/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/backends.js';

const beforeSpans = '20261202_0004_sandbox_arrivals_lookup';

describe('upgrading the sandbox to voided spans', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<SandboxDatabase>;

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    db = handle.db as unknown as Kysely<SandboxDatabase>;
    const { error } = await sandboxMigrator(handle.db as Kysely<unknown>).migrateTo(beforeSpans);
    assert.equal(error, undefined);
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  it('turns the rows an ANECF voided into spans, one per run of one request, and keeps the documents', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 14, minute));
    // Typed as the table was before: 'annulment' is no longer a use.
    const rows: { rnc: string; encf: string; used_by: string; track_id: string | null; used_at: Date }[] = [
      ...[1, 2, 3, 5, 6].map((n) => ({
        rnc: '131987654',
        encf: `E31000000000${String(n)}`,
        used_by: 'annulment',
        track_id: 'anulacion-a',
        used_at: at(n),
      })),
      { rnc: '131987654', encf: 'E310000000004', used_by: 'ecf', track_id: 'track-1', used_at: at(0) },
      { rnc: '131987654', encf: 'E310000000007', used_by: 'annulment', track_id: 'anulacion-b', used_at: at(30) },
      { rnc: '131987654', encf: 'E310000000008', used_by: 'annulment', track_id: 'anulacion-b', used_at: at(30) },
      { rnc: '131987654', encf: 'E349999999999', used_by: 'annulment', track_id: 'anulacion-a', used_at: at(1) },
      { rnc: '130000014', encf: 'E310000000002', used_by: 'annulment', track_id: 'anulacion-c', used_at: at(40) },
      { rnc: '130000014', encf: 'E320000000002', used_by: 'rfce', track_id: 'track-2', used_at: at(41) },
    ];
    await db
      .insertInto('sandbox_sequence_uses')
      .values(rows.map((row) => ({ ...row, environment: 'testecf', used_by: row.used_by as 'ecf' })))
      .execute();

    assert.deepEqual(await migrateSandbox(handle.db as Kysely<unknown>), ['20261203_0005_sandbox_voided_spans']);

    const spans = await db
      .selectFrom('sandbox_voided_spans')
      .select(['environment', 'rnc', 'type', 'first_sequence', 'last_sequence', 'voided_at'])
      .orderBy('rnc')
      .orderBy('type')
      .orderBy('first_sequence')
      .execute();
    assert.deepEqual(
      spans.map((span) => [
        span.rnc,
        span.type,
        span.first_sequence,
        span.last_sequence,
        span.voided_at.getUTCMinutes(),
      ]),
      [
        ['130000014', '31', 2, 2, 40],
        ['131987654', '31', 1, 3, 1],
        ['131987654', '31', 5, 6, 5],
        ['131987654', '31', 7, 8, 30],
        ['131987654', '34', 9_999_999_999, 9_999_999_999, 1],
      ],
    );
    assert.ok(spans.every((span) => span.environment === 'testecf'));
    const uses = await db.selectFrom('sandbox_sequence_uses').select(['encf', 'used_by']).orderBy('encf').execute();
    assert.deepEqual(uses, [
      { encf: 'E310000000004', used_by: 'ecf' },
      { encf: 'E320000000002', used_by: 'rfce' },
    ]);
    await assert.rejects(
      db
        .insertInto('sandbox_sequence_uses')
        .values({
          environment: 'testecf',
          rnc: '131987654',
          encf: 'E310000000009',
          used_by: 'annulment' as 'ecf',
          track_id: null,
          used_at: at(50),
        })
        .execute(),
      /sandbox_sequence_uses_used_by_check/,
    );
  });
});
