// The certification lane and its approvals as work of the engine (issue 44), on a real database: an approval DGII
// gives no answer to is sent again with backoff and DGII's verdict recorded once; the lane's item is leased, so of
// two workers one advances it, and a lane whose steps keep failing stops where the user sees it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { SendAcecfOutcome } from '../src/dgii/index.js';
import { createCaseChanges } from '../src/modules/certification/case-changes.js';
import { approvalItemId, createApprovalTarget } from '../src/modules/certification/approval-target.js';
import { createLaneTarget } from '../src/modules/certification/lane-loop.js';
import type { createLane, LaneStep } from '../src/modules/certification/lane.js';
import * as repo from '../src/modules/certification/certification.repo.js';
import { fixedClock } from '../src/platform/clock.js';
import { openDatabase, type DatabaseHandle } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { createFsBlobStore } from '../src/platform/storage/index.js';
import { createWorkEngine } from '../src/platform/work/work-engine.js';
import { createTestDatabase, type TestDatabase } from './support/backends.js';

const log = createLogger('silent');
const start = new Date('2026-11-29T12:00:00Z');

async function insertProcess(handle: DatabaseHandle, id: string, companyId: string): Promise<void> {
  await sql`
    insert into certification_processes (id, company_id, environment, label, status, set_sha256, created_at, updated_at)
    values (${id}, ${companyId}, 'CERT', 'set', 'active', 'sha', ${start}, ${start})`.execute(handle.db);
}

async function insertCase(
  handle: DatabaseHandle,
  processId: string,
  row: { kind: string; key: string; route: string; status: string; queued: boolean; blobKey?: string; sha?: string },
): Promise<void> {
  const payload = JSON.stringify({
    DetalleAprobacionComercial: { RNCComprador: '131880681', eNCF: 'E310000000001', Estado: '1' },
  });
  await sql`
    insert into certification_cases (process_id, kind, case_key, step, position, origin, payload, payload_sha256, route,
      status, signed_blob_key, signed_sha256, queued_at, updated_at)
    values (${processId}, ${row.kind}, ${row.key}, 3, 1, 'derived', ${payload}::jsonb, 'sha', ${row.route},
      ${row.status}, ${row.blobKey ?? null}, ${row.sha ?? null}, ${row.queued ? start : null}, ${start})`.execute(
    handle.db,
  );
}

describe('certification work on the engine', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let blobRoot: string;
  const clock = fixedClock(start);
  let company = 0;

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    await migrateToLatest(handle.db);
    blobRoot = mkdtempSync(join(tmpdir(), 'cert-work-'));
  });
  after(async () => {
    await handle.close();
    await database.drop();
    rmSync(blobRoot, { recursive: true, force: true });
  });
  beforeEach(async () => {
    clock.set(start);
    await sql`delete from outbound_work`.execute(handle.db);
  });

  /** A company of its own for each process (one active process per company). */
  async function newCompany(): Promise<string> {
    company += 1;
    const id = `cmp_work${String(company)}`;
    await sql`
      insert into companies (id, rnc, legal_name, plan, capabilities, permissions)
      values (${id}, ${`1319${String(company).padStart(5, '0')}`}, 'Empresa', 'basic', '{}', 'current')`.execute(
      handle.db,
    );
    return id;
  }

  it('sends an approval DGII gave no answer to again after its backoff, and records the verdict once', async () => {
    const companyId = await newCompany();
    const processId = 'prc_approval';
    const blobs = createFsBlobStore(blobRoot);
    const stored = await blobs.put(`certification/${processId}/A1.acecf.xml`, Buffer.from('<ACECF>signed</ACECF>'), {
      contentType: 'application/xml',
    });
    await insertProcess(handle, processId, companyId);
    await insertCase(handle, processId, {
      kind: 'ACECF',
      key: 'A1',
      route: 'approval',
      status: 'sent',
      queued: true,
      blobKey: stored.key,
      sha: stored.sha256,
    });
    const answers: SendAcecfOutcome[] = [
      { kind: 'uncertain', reason: 'response_timeout', detail: 'no answer within 5000 ms' },
      {
        kind: 'rejected',
        httpStatus: 400,
        estado: null,
        codigo: null,
        messages: [{ codigo: null, valor: 'No fue posible procesar la solicitud. Favor intentar nuevamente.' }],
        secuenciaUtilizada: undefined,
      },
      {
        kind: 'accepted',
        estado: 'Aprobacion comercial recibida',
        codigo: '01',
        messages: [],
        secuenciaUtilizada: undefined,
      },
    ];
    const sent: string[] = [];
    const lanesHastened: string[] = [];
    const engine = createWorkEngine({
      db: handle.db,
      clock,
      log,
      environment: 'CERT',
      random: () => 0.5,
      target: createApprovalTarget({
        db: handle.db,
        clock,
        environment: 'CERT',
        blobs,
        dgii: {
          sendAcecf: (_companyId, file) => {
            sent.push(file.xml.toString('utf8'));
            const answer = answers.shift();
            assert.ok(answer, 'sent more often than DGII answered');
            return Promise.resolve(answer);
          },
        },
        changes: createCaseChanges('CERT'),
        policy: { maxAttempts: 8, retryDelayMs: 1_000, leaseMs: 30_000 },
        laneChanged: (_trx, id) => {
          lanesHastened.push(id);
          return Promise.resolve();
        },
      }),
    });
    await engine.enqueue(handle.db, [approvalItemId(processId, 'A1')]);
    const runDue = async () => {
      for (const claimed of await engine.claim(10)) await engine.work(claimed);
    };
    const approval = async () =>
      (await repo.casesOf(handle.db, processId)).find((row) => row.kind === 'ACECF' && row.case_key === 'A1');

    await runDue();
    assert.equal(sent.length, 1);
    assert.equal((await approval())?.status, 'sent', 'no answer is no verdict: the case stays sent');
    assert.equal((await approval())?.waiting_for, 'dgii_unreachable');
    // Not before its backoff (1 s, jittered to between 0.5 and 1 s).
    await runDue();
    assert.equal(sent.length, 1);
    clock.advance(1_000);
    await runDue();
    assert.equal(sent.length, 2, '"intentar nuevamente" is DGII\'s trouble: sent again');
    assert.equal((await approval())?.status, 'sent');
    clock.advance(2_000);
    await runDue();
    assert.equal(sent.length, 3);
    assert.deepEqual(new Set(sent), new Set(['<ACECF>signed</ACECF>']), 'the archived bytes, every time');
    const judged = await approval();
    assert.equal(judged?.status, 'accepted');
    assert.equal(judged.codigo, '01');
    assert.notEqual(judged.verdict_at, null);
    assert.deepEqual(lanesHastened, [processId]);
    // Settled: nothing more is sent, and the timeline has the two retries and the one verdict.
    clock.advance(60 * 60_000);
    await runDue();
    assert.equal(sent.length, 3);
    assert.deepEqual(
      await handle.db.selectFrom('outbound_work').selectAll().where('target', 'like', 'certification.%').execute(),
      [],
    );
    const events = (await repo.eventsOf(handle.db, processId)).map((event) => `${event.status}: ${event.cause}`);
    assert.equal(events.length, 3, events.join('\n'));
    assert.match(events[0] ?? '', /^sent: attempt 1 of 8: DGII did not answer \(response_timeout/);
    assert.match(events[1] ?? '', /^sent: attempt 2 of 8: DGII could not process it now/);
    assert.match(events[2] ?? '', /^accepted: DGII answered 01/);
  });

  it('does not send again an approval DGII refused', async () => {
    const companyId = await newCompany();
    const processId = 'prc_refused';
    const blobs = createFsBlobStore(blobRoot);
    const stored = await blobs.put(`certification/${processId}/A1.acecf.xml`, Buffer.from('<ACECF/>'), {
      contentType: 'application/xml',
    });
    await insertProcess(handle, processId, companyId);
    await insertCase(handle, processId, {
      kind: 'ACECF',
      key: 'A1',
      route: 'approval',
      status: 'sent',
      queued: true,
      blobKey: stored.key,
      sha: stored.sha256,
    });
    let calls = 0;
    const engine = createWorkEngine({
      db: handle.db,
      clock,
      log,
      environment: 'CERT',
      target: createApprovalTarget({
        db: handle.db,
        clock,
        environment: 'CERT',
        blobs,
        dgii: {
          sendAcecf: () => {
            calls += 1;
            return Promise.resolve({
              kind: 'rejected',
              httpStatus: 400,
              estado: 'Rechazado',
              codigo: '02',
              messages: [{ codigo: '2', valor: 'El e-NCF no existe' }],
              secuenciaUtilizada: undefined,
            });
          },
        },
        changes: createCaseChanges('CERT'),
        policy: { maxAttempts: 8, retryDelayMs: 1_000, leaseMs: 30_000 },
        laneChanged: () => Promise.resolve(),
      }),
    });
    await engine.enqueue(handle.db, [approvalItemId(processId, 'A1')]);
    for (let round = 0; round < 3; round += 1) {
      for (const claimed of await engine.claim(10)) await engine.work(claimed);
      clock.advance(60 * 60_000);
    }
    assert.equal(calls, 1);
    const rows = await repo.casesOf(handle.db, processId);
    assert.equal(rows.find((row) => row.case_key === 'A1')?.status, 'rejected');
    assert.equal((await repo.findProcess(handle.db, companyId, 'CERT', processId))?.status, 'failed');
  });

  it("holds a lane's item under the engine's lease: of two workers one advances it, a stale one writes nothing", async () => {
    const companyId = await newCompany();
    const processId = 'prc_lane';
    await insertProcess(handle, processId, companyId);
    await insertCase(handle, processId, {
      kind: 'ECF',
      key: 'E1',
      route: 'reception',
      status: 'pending',
      queued: true,
    });
    const advanced: { worker: string; heldThen: boolean }[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const heldNow = (leaseId: string) =>
      handle.db.transaction().execute((trx) => repo.laneHeld(trx, processId, { leaseId, now: clock.now() }));
    const worker = (name: string) => {
      const lane = {
        async advance(id: string, lease: { leaseId: string }): Promise<LaneStep> {
          assert.equal(id, processId);
          advanced.push({ worker: name, heldThen: await heldNow(lease.leaseId) });
          await gate;
          return { kind: 'waiting' };
        },
      };
      return createWorkEngine({
        db: handle.db,
        clock,
        log,
        environment: 'CERT',
        target: createLaneTarget({
          db: handle.db,
          clock,
          lane,
          leaseMs: 10_000,
          waitMs: 500,
          hasten: () => Promise.resolve(),
          moved: new Set(),
        }),
      });
    };
    const [first, second] = [worker('first'), worker('second')];
    await first.hasten(handle.db, [processId]);
    await second.hasten(handle.db, [processId]);
    const [a, b] = await Promise.all([first.claim(4), second.claim(4)]);
    assert.equal(a.length + b.length, 1, 'one worker holds the lane');
    const [holder, claimed] = a.length === 1 ? [first, a[0]] : [second, b[0]];
    assert.ok(claimed);
    const working = holder.work(claimed);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      advanced.map((one) => one.heldThen),
      [true],
    );
    // Its lease runs out mid-step: the other worker takes the lane, and the stale one's lease no longer holds.
    clock.advance(10_001);
    assert.equal(await heldNow(claimed.attempt.leaseId), false);
    const other = holder === first ? second : first;
    const taken = await other.claim(4);
    assert.equal(taken.length, 1);
    release();
    await working;
    // The stale worker's outcome changed nothing: the queue row is the new holder's.
    const [row] = await handle.db
      .selectFrom('outbound_work')
      .selectAll()
      .where('target', '=', repo.laneTarget)
      .execute();
    assert.equal(row?.lease_id, taken[0]?.attempt.leaseId);
    await other.work(taken[0] ?? claimed);
    assert.equal(advanced.length, 2);
  });

  it('stops a lane whose steps keep failing, on its timeline', async () => {
    const companyId = await newCompany();
    const processId = 'prc_stopped';
    await insertProcess(handle, processId, companyId);
    const lane = {
      advance: () => Promise.reject(new Error('the archive is away')),
    } as unknown as ReturnType<typeof createLane>;
    const engine = createWorkEngine({
      db: handle.db,
      clock,
      log,
      environment: 'CERT',
      target: createLaneTarget({
        db: handle.db,
        clock,
        lane,
        leaseMs: 10_000,
        waitMs: 500,
        hasten: () => Promise.resolve(),
        moved: new Set(),
      }),
    });
    await engine.hasten(handle.db, [processId]);
    let attempts = 0;
    for (let round = 0; round < 12; round += 1) {
      for (const claimed of await engine.claim(4)) {
        attempts += 1;
        await engine.work(claimed);
      }
      clock.advance(60_000);
    }
    assert.equal(attempts, 10);
    const events = await repo.eventsOf(handle.db, processId);
    assert.deepEqual(
      events.map((event) => [event.subject, event.status]),
      [['lane', 'stopped']],
    );
    assert.match(events[0]?.cause ?? '', /after 10 failed attempts \(an error of this service: the archive is away\)/);
  });
});
