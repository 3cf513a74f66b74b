// Exactly-once sending (DESIGN §5.2) under faults: the sandbox fails about 30 % of receptions — timeouts (held past
// the client's response timeout, then cut), connection resets, 503s, and slow answers that DGII processes after the
// client gave up — and every document still reaches a final verdict, with each e-NCF received by DGII at most once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ecfDocuments } from './support/ecf-documents.js';
import { postgresAvailable } from './support/backends.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';

const onPostgres = await postgresAvailable();
// The load on real PostgreSQL; a lighter one on embedded PGlite.
const documents = onPostgres ? 500 : 60;

describe(`exactly once under injected faults (${String(documents)} documents)`, { timeout: 600_000 }, () => {
  let world: SendingWorld;

  before(async () => {
    world = await startSendingWorld({
      embedded: !onPostgres,
      env: {
        DGII_RESPONSE_TIMEOUT_MS: '1000',
        DGII_BREAKER_FAILURES: '8',
        DGII_BREAKER_OPEN_MS: '500',
        SEND_RETRY_BASE_MS: '200',
        SEND_MAX_ATTEMPTS: '30',
      },
    });
    // Faults are tried in order, each with its probability: together about 1 - 0.91^4 ≈ 31 % of receptions.
    for (const fault of [
      { mode: 'timeout', delayMs: 1_500 },
      { mode: 'reset' },
      { mode: 'http503' },
      // Answered after the client's timeout: DGII has it, the client does not know.
      { mode: 'slow', delayMs: 1_300 },
    ]) {
      const added = await world.sandbox.admin('POST', '/faults', { service: 'recepcion', probability: 0.09, ...fault });
      assert.equal(added.status, 201, JSON.stringify(added.body));
    }
  });
  after(() => world.close());

  it('ends every document final, each e-NCF received at most once', async () => {
    const ids: string[] = [];
    for (let batch = 0; batch < documents; batch += 20) {
      const created = await Promise.all(
        Array.from({ length: Math.min(20, documents - batch) }, () => world.create(ecfDocuments['31'])),
      );
      ids.push(...created.map((document) => document.id));
    }
    for (const id of ids) await world.send(id);

    const db = world.app.application.database.db;
    const deadline = Date.now() + 480_000;
    for (;;) {
      const open = await db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('id', 'in', ids)
        .where('status', 'not in', ['accepted', 'accepted_conditional', 'rejected'])
        .executeTakeFirstOrThrow();
      if (open.count === 0) break;
      if (Date.now() > deadline) throw new Error(`${String(open.count)} documents are not final`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const rows = await db.selectFrom('documents').select(['encf', 'status']).where('id', 'in', ids).execute();
    assert.equal(rows.length, documents);
    assert.deepEqual([...new Set(rows.map((row) => row.status))], ['accepted']);

    // What reached DGII's reception service, per e-NCF (fault arrivals cut before reading the body carry none).
    const arrivals = (await world.sandbox.admin('GET', '/arrivals?service=recepcion')).body as {
      encf: string | null;
      outcome: string;
    }[];
    const perEncf = new Map<string, number>();
    for (const arrival of arrivals)
      if (arrival.encf !== null) perEncf.set(arrival.encf, (perEncf.get(arrival.encf) ?? 0) + 1);
    const twice = [...perEncf].filter(([, count]) => count > 1);
    assert.deepEqual(twice, [], 'an e-NCF reached DGII more than once');
    for (const row of rows)
      assert.equal(perEncf.get(row.encf), 1, `${row.encf} reached DGII ${String(perEncf.get(row.encf) ?? 0)} times`);

    // The faults did happen, and some were resolved by asking DGII first.
    const faulted = arrivals.filter((arrival) => arrival.outcome.startsWith('fault:')).length;
    assert.ok(faulted > documents * 0.1, `only ${String(faulted)} faults were injected`);
    const resolved = await db
      .selectFrom('document_events')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('document_id', 'in', ids)
      .where('type', '=', 'dgii.uncertain')
      .executeTakeFirstOrThrow();
    assert.ok(resolved.count > 0, 'no send was uncertain');
  });
});
