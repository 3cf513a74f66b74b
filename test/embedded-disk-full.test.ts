// The embedded setup's disk fills up under load (issue 43): `npm start`'s PGlite under DATA_DIR, three clients
// creating and sending invoices, and the disk full for a few seconds. Requests that write answer 507 database_full
// problem+json (reads go on), nothing hangs, and once there is room the service writes again by itself: every
// document a client saw created ends accepted, reached DGII once, every e-NCF handed out numbers a stored document
// or is burned, none twice, and the archive verifier finds nothing (the blobs of refused creations are recorded as
// abandoned once the database writes again).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { injectDiskFull, type DiskFull } from './support/disk-full.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { receptionsPerEncf } from './support/sandbox-kit.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { until } from './support/until.js';

const clients = 3;

interface Answer {
  phase: string;
  what: string;
  status: number;
  problem?: string;
}

describe('the embedded database’s disk full under load', { timeout: 180_000 }, () => {
  let world: SendingWorld;
  let disk: DiskFull;
  let apiKey: string;
  before(async () => {
    world = await startSendingWorld({
      embeddedOnDisk: true,
      // A send whose outcome could not be recorded is taken up when its lease runs out (asking DGII first).
      env: {
        ARCHIVE_ORPHAN_GRACE_MINUTES: '0',
        SEND_RETRY_BASE_MS: '200',
        SEND_LEASE_SECONDS: '8',
        DGII_CONNECT_TIMEOUT_MS: '1000',
        DGII_RESPONSE_TIMEOUT_MS: '2500',
      },
    });
    disk = injectDiskFull(world.app.dataDir);
    apiKey = (await world.app.issueKey(world.companyId, ['documents:create', 'documents:read', 'documents:send']))
      .apiKey;
  });
  after(async () => {
    disk.restore();
    await world.close();
  });

  it('answers 507 while it is full, writes again by itself, and loses and doubles nothing', async () => {
    const answers: Answer[] = [];
    const created = new Map<string, { id: string; eNCF: string }>();
    let phase = 'before';
    let stopping = false;

    const call = (method: 'GET' | 'POST', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
      world.app.app.inject({
        method,
        url,
        headers: { 'x-api-key': apiKey, ...headers },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });

    /** Calls until the answer is `wanted`, trying again after a 507 or 503 problem+json as a client would. */
    async function untilAnswered(what: string, wanted: number, ask: () => Promise<LightMyRequestResponse>) {
      for (;;) {
        const answer = await ask();
        const problem = answer.statusCode >= 400 ? answer.json<{ code?: string }>().code : undefined;
        answers.push({ phase, what, status: answer.statusCode, ...(problem === undefined ? {} : { problem }) });
        if (answer.statusCode === wanted) return answer;
        if (![503, 507].includes(answer.statusCode) || stopping) return undefined;
        assert.match(String(answer.headers['content-type']), /^application\/problem\+json/);
        await sleep(100);
      }
    }

    async function integrator(client: number) {
      for (let n = 0; !stopping; n++) {
        const key = `disco-${String(client)}-${String(n)}`;
        const made = await untilAnswered('create', 201, () =>
          call('POST', '/api/v1/documentos', ecfDocuments['31'], { 'idempotency-key': key }),
        );
        if (made === undefined) return;
        const document = made.json<{ data: { id: string; eNCF: string } }>().data;
        created.set(key, document);
        if (
          (await untilAnswered('send', 202, () => call('POST', `/api/v1/documentos/${document.id}/enviar`))) ===
          undefined
        )
          return;
      }
    }

    const load = Promise.all(Array.from({ length: clients }, (_, client) => integrator(client)));
    let createdBefore: number;
    try {
      await sleep(1_500);
      createdBefore = created.size;
      phase = 'full';
      disk.lowOnSpace(100 * 1_048_576);
      await sleep(1_000);
      // Reads go on while writes wait.
      const [someone] = created.values();
      assert.ok(someone !== undefined);
      const read = await call('GET', `/api/v1/documentos/${someone.id}`);
      assert.equal(read.statusCode, 200, read.body);
      await sleep(2_000);
      phase = 'room';
      disk.free();
      const roomAt = Date.now();
      await until(
        () => Promise.resolve(answers.filter((answer) => answer.phase === 'room' && answer.status === 201).length),
        (made) => made > 0,
        'a creation after the disk had room',
        10_000,
      );
      phase = 'after';
      // Written again within a second of the room: writes are checked at each statement.
      assert.ok(Date.now() - roomAt < 5_000);
      await sleep(1_500);
    } finally {
      stopping = true;
      await load;
    }

    const unexpected = answers.filter((answer) => ![201, 202, 503, 507].includes(answer.status));
    assert.deepEqual(unexpected, []);
    const refused = answers.filter((answer) => answer.status === 507 || answer.status === 503);
    assert.ok(refused.length > 0, 'no request met the full disk');
    assert.deepEqual(
      [...new Set(refused.map((answer) => `${String(answer.status)} ${String(answer.problem)}`))],
      ['507 database_full'],
    );
    assert.ok(refused.every((answer) => answer.phase === 'full' || answer.phase === 'room'));
    assert.ok(created.size > createdBefore, 'no document was created after the disk had room');

    // Every document a client saw created ends accepted, and reached DGII's reception once.
    const db = world.app.application.database.db;
    const ids = [...created.values()].map((document) => document.id);
    await until(
      () =>
        db
          .selectFrom('documents')
          .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
          .where('id', 'in', ids)
          .groupBy('status')
          .execute(),
      (states) => states.length === 1 && states[0]?.status === 'accepted' && states[0].count === ids.length,
      'every created document accepted',
    );
    const times = await receptionsPerEncf(world.sandbox);
    for (const { eNCF } of created.values()) assert.equal(times.get(eNCF), 1, `${eNCF} reached DGII`);

    // Every e-NCF handed out numbers one stored document or is burned, none twice.
    const range = await db
      .selectFrom('sequence_ranges')
      .select(['id', 'first_number', 'next_number'])
      .where('company_id', '=', world.companyId)
      .where('ecf_type', '=', '31')
      .executeTakeFirstOrThrow();
    const stored = await db.selectFrom('documents').select('encf').where('range_id', '=', range.id).execute();
    const burned = await db.selectFrom('sequence_burned').select('encf').where('range_id', '=', range.id).execute();
    const numbers = [...stored, ...burned].map((row) => Number(row.encf.slice(3))).sort((a, b) => a - b);
    assert.deepEqual(
      numbers,
      Array.from({ length: range.next_number - range.first_number }, (_, i) => range.first_number + i),
    );

    // The archive holds nothing unexplained.
    const report = await world.app.application.services.archive.runPass({});
    assert.deepEqual(report.failing, []);
  });
});
