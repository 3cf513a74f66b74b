// The upgrade to outbound work (DESIGN §2, jobs): a database of the release before outbound work, holding items of
// every target in every state (waiting, retrying, held by a worker's running lease, held by a lease that ran out,
// settled), is migrated; each waiting item is queued once, as it stood, and no settled one is; then the queue is
// drained by the engine, and every item comes out exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrations } from '../migrations/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { createWorkEngine } from '../src/platform/work/work-engine.js';
import { createTestDatabase, type TestDatabase } from './support/backends.js';

const beforeOutboundWork = '20261126_0014_certification';

describe('upgrading to outbound work', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const now = new Date();
  const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    const migrator = new Migrator({ db: handle.db, provider: { getMigrations: () => Promise.resolve(migrations) } });
    const { error } = await migrator.migrateTo(beforeOutboundWork);
    assert.equal(error, undefined);
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  it('queues every waiting item once, as it stood, leases included, and the engine drains each exactly once', async () => {
    const db = handle.db;
    await db.connection().execute(async (connection) => {
      // The rows stand alone: their parents (companies, received documents, endpoints) are not what is tested.
      await sql`set session_replication_role = replica`.execute(connection);
      const annulment = (id: string, status: string, attempts: number) => sql`
        insert into annulments (id, company_id, environment, status, total, blob_key, attempts, created_at, updated_at)
        values (${id}, 'cmp_1', 'TEST', ${status}, 2, ${`annulments/${id}.xml`}, ${attempts}, ${now}, ${now})`;
      for (const [id, status, attempts] of [
        ['anl_pending', 'pending', 0],
        ['anl_sending', 'sending', 2],
        ['anl_accepted', 'accepted', 1],
        ['anl_rejected', 'rejected', 1],
        ['anl_failed', 'failed', 8],
      ] as const) {
        await annulment(id, status, attempts).execute(connection);
      }
      const acecf = (
        id: string,
        target: string,
        status: string,
        attempts: number,
        next: Date | null,
        leaseId: string | null,
        leaseUntil: Date | null,
      ) => sql`
        insert into received_response_deliveries (received_document_id, target, company_id, environment, status, attempts, next_attempt_at, lease_id, lease_until, created_at, updated_at)
        values (${id}, ${target}, 'cmp_1', 'TEST', ${status}, ${attempts}, ${next}, ${leaseId}, ${leaseUntil}, ${now}, ${now})`;
      await acecf('rcv_pending', 'issuer', 'pending', 0, now, null, null).execute(connection);
      await acecf('rcv_pending', 'dgii', 'failed', 3, at(10), null, null).execute(connection);
      await acecf('rcv_held', 'dgii', 'pending', 1, null, 'lse_old', at(2)).execute(connection);
      await acecf('rcv_held', 'issuer', 'failed', 2, at(-1), 'lse_dead', at(-5)).execute(connection);
      await acecf('rcv_done', 'issuer', 'delivered', 1, null, null, null).execute(connection);
      await acecf('rcv_done', 'dgii', 'exhausted', 8, null, null, null).execute(connection);
      const webhook = (id: string, status: string, attempts: number, next: Date | null, leaseUntil: Date | null) => sql`
        insert into webhook_deliveries (id, endpoint_id, company_id, environment, event_id, event_type, body, status, attempts, next_attempt_at, lease_until, created_at, updated_at)
        values (${id}, 'whe_1', 'cmp_1', 'TEST', ${`evt_${id}`}, 'webhook.test', '{}', ${status}, ${attempts}, ${next}, ${leaseUntil}, ${now}, ${now})`;
      for (const [id, status, attempts, next, leaseUntil] of [
        ['msg_pending', 'pending', 0, null, null],
        ['msg_retrying', 'failed', 2, at(30), null],
        ['msg_held', 'pending', 0, null, at(1)],
        ['msg_dead', 'failed', 1, at(-3), at(-1)],
        ['msg_succeeded', 'succeeded', 1, null, null],
        ['msg_exhausted', 'exhausted', 8, null, null],
      ] as const) {
        await webhook(id, status, attempts, next, leaseUntil).execute(connection);
      }
      const document = (
        id: string,
        status: string,
        change: { dueAt?: Date; leaseId?: string; leaseUntil?: Date; nextPoll?: Date } = {},
      ) => sql`
        insert into documents (id, company_id, environment, ecf_type, encf, status, origin, fecha_emision, monto_total, security_code, fecha_hora_firma, timbre_url, warnings, created_at, updated_at, send_due_at, send_lease_id, send_lease_until, next_poll_at)
        values (${id}, 'cmp_1', 'TEST', '31', ${`E31${id.length.toString().padStart(10, '0')}${id}`}, ${status}, 'json', '01-01-2026', '100.00', 'ABC123', '01-01-2026 10:00:00', 'https://example', '[]', ${now}, ${now},
          ${change.dueAt ?? null}, ${change.leaseId ?? null}, ${change.leaseUntil ?? null}, ${change.nextPoll ?? null})`;
      await document('doc_queued', 'queued', { dueAt: now }).execute(connection);
      await document('doc_retrying', 'queued', { dueAt: at(5) }).execute(connection);
      await document('doc_held', 'sending', { dueAt: at(1), leaseId: 'lse_doc', leaseUntil: at(1) }).execute(
        connection,
      );
      await document('doc_dead', 'sending', { dueAt: at(-2), leaseId: 'lse_dead', leaseUntil: at(-2) }).execute(
        connection,
      );
      // An uncertain send waiting to ask DGII: held by no worker until its question is due.
      await document('doc_uncertain', 'sending', { dueAt: at(3), leaseUntil: at(3) }).execute(connection);
      await document('doc_polling', 'in_process', { nextPoll: at(1) }).execute(connection);
      await document('doc_accepted', 'accepted').execute(connection);
      await document('doc_failed', 'send_failed').execute(connection);
      await document('doc_signed', 'signed').execute(connection);
      const event = (id: string, dispatched: Date | null) => sql`
        insert into domain_events (id, company_id, environment, type, payload, occurred_at, dispatched_at)
        values (${id}, 'cmp_1', 'TEST', 'document.signed', '{}', ${at(-4)}, ${dispatched})`;
      await event('evt_waiting', null).execute(connection);
      await event('evt_dispatched', at(-3)).execute(connection);
      await sql`set session_replication_role = origin`.execute(connection);
    });

    await migrateToLatest(db);

    const queued = await db.selectFrom('outbound_work').selectAll().orderBy('target').orderBy('item_id').execute();
    const due = (row: (typeof queued)[number]) =>
      Math.abs(row.due_at.getTime() - now.getTime()) < 10_000 ? 'now' : row.due_at.toISOString();
    assert.deepEqual(
      queued.map((row) => [row.target, row.item_id, due(row), row.lease_id, row.attempts]),
      [
        ['acecf.dgii', 'rcv_held', at(2).toISOString(), 'lse_old', 1],
        ['acecf.dgii', 'rcv_pending', at(10).toISOString(), null, 3],
        ['acecf.issuer', 'rcv_held', at(-1).toISOString(), null, 2],
        ['acecf.issuer', 'rcv_pending', 'now', null, 0],
        ['annulment.send', 'anl_pending', 'now', null, 0],
        ['annulment.send', 'anl_sending', 'now', null, 2],
        ['document.poll', 'doc_polling', at(1).toISOString(), null, 0],
        ['document.send', 'doc_dead', at(-2).toISOString(), null, 0],
        ['document.send', 'doc_held', at(1).toISOString(), 'lse_doc', 1],
        ['document.send', 'doc_queued', 'now', null, 0],
        ['document.send', 'doc_retrying', at(5).toISOString(), null, 0],
        ['document.send', 'doc_uncertain', at(3).toISOString(), null, 0],
        ['outbox', 'evt_waiting', at(-4).toISOString(), null, 0],
        ['webhook.delivery', 'msg_dead', at(-3).toISOString(), null, 1],
        ['webhook.delivery', 'msg_held', at(1).toISOString(), 'lse_migrated', 0],
        ['webhook.delivery', 'msg_pending', 'now', null, 0],
        ['webhook.delivery', 'msg_retrying', at(30).toISOString(), null, 2],
      ],
    );

    // Drained by the engine once every lease and retry is due: each item exactly once, in the order it fell due.
    const clock = fixedClock(at(60));
    for (const target of [
      'acecf.dgii',
      'acecf.issuer',
      'annulment.send',
      'document.poll',
      'document.send',
      'outbox',
      'webhook.delivery',
    ]) {
      const drained: string[] = [];
      const engine = createWorkEngine<string, string>({
        db,
        clock,
        log: createLogger('silent'),
        environment: 'TEST',
        target: {
          name: target,
          policy: { leaseMs: 60_000, maxAttempts: 20, retryDelayMs: () => 1_000 },
          load: (ids) => Promise.resolve(new Map(ids.map((id) => [id, id]))),
          perform: () => Promise.resolve({ kind: 'done', result: 'ok' }),
          record: (_trx, id) => {
            drained.push(id);
            return Promise.resolve();
          },
        },
      });
      for (let claimed = await engine.claim(2); claimed.length > 0; claimed = await engine.claim(2)) {
        for (const one of claimed) await engine.work(one);
      }
      assert.deepEqual(
        drained.sort(),
        queued
          .filter((row) => row.target === target)
          .map((row) => row.item_id)
          .sort(),
        target,
      );
    }
    assert.deepEqual(await db.selectFrom('outbound_work').select('item_id').execute(), []);
    // The partial indexes the workers claimed from are gone.
    const indexes = await sql<{
      indexname: string;
    }>`select indexname from pg_indexes where indexname in ('documents_due_sends', 'documents_due_polls', 'domain_events_undispatched')`.execute(
      db,
    );
    assert.deepEqual(indexes.rows, []);
  });
});
