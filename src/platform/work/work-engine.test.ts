// The outbound work engine on a real database, with a target of the test's own whose attempts do what each case
// needs: the lease, counted attempts, our own errors, Retry-After, deferral, exhaustion and a stale worker.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/backends.js';
import { fixedClock } from '../clock.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { currentCorrelationId, withCorrelationId } from '../observability/correlation.js';
import { createLogger } from '../observability/logger.js';
import { createWorkEngine, type Outcome, type Settlement, type WorkEngine } from './work-engine.js';

describe('outbound work engine', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  const clock = fixedClock(new Date('2026-11-26T12:00:00Z'));
  const log = createLogger('silent');
  /** What each attempt does, by item id; the recorded settlements, in order. */
  let perform: (id: string, attempt: number) => Promise<Outcome<string>>;
  let recorded: { id: string; settlement: Settlement<string> }[];
  let items: Set<string>;
  let engine: WorkEngine<string>;

  before(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    await migrateToLatest(handle.db);
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });
  beforeEach(async () => {
    await sql`delete from outbound_work`.execute(handle.db);
    clock.set(new Date('2026-11-26T12:00:00Z'));
    recorded = [];
    items = new Set(['a', 'b', 'c']);
    perform = () => Promise.resolve({ kind: 'done', result: 'ok' });
    engine = createWorkEngine<string, string>({
      db: handle.db,
      clock,
      log,
      environment: 'TEST',
      random: () => 0.5,
      target: {
        name: 'test.target',
        policy: { leaseMs: 60_000, maxAttempts: 3, retryDelayMs: (attempts) => attempts * 1_000 },
        load: (ids) => Promise.resolve(new Map(ids.filter((id) => items.has(id)).map((id) => [id, id]))),
        perform: (id, attempt) => perform(id, attempt.number),
        record: (_trx, id, settlement) => {
          recorded.push({ id, settlement });
          return Promise.resolve();
        },
      },
    });
  });

  const queued = async () =>
    (await handle.db.selectFrom('outbound_work').selectAll().orderBy('item_id').execute()).map((row) => ({
      id: row.item_id,
      due: row.due_at.toISOString(),
      leased: row.lease_id !== null,
      attempts: row.attempts,
    }));
  const runDue = async () => {
    for (const claimed of await engine.claim(10)) await engine.work(claimed);
  };

  it('works each item under the correlation id it was queued with, on every attempt, whoever claims it', async () => {
    await withCorrelationId('req-a', () => engine.enqueue(handle.db, ['a']));
    await withCorrelationId('req-b', () => engine.enqueue(handle.db, ['b']));
    const seen: string[] = [];
    // Each item's first attempt fails; the next succeeds.
    perform = (id, attempt) => {
      const first = !seen.some((entry) => entry.startsWith(`${id} `));
      seen.push(`${id} ${String(attempt)} ${String(currentCorrelationId())}`);
      return Promise.resolve(first ? { kind: 'failed', reason: 'no answer' } : { kind: 'done', result: 'ok' });
    };
    // Claimed and worked from a context of its own (a loop's): the id is the queue row's, not the claimer's.
    await withCorrelationId('the-loop', runDue);
    clock.set(new Date('2026-11-26T12:10:00Z'));
    // Asked for again by another request before its retry: from now on it is that request's work.
    await withCorrelationId('req-c', () => engine.enqueue(handle.db, ['b']));
    await runDue();
    assert.deepEqual(seen, ['a 1 req-a', 'b 1 req-b', 'a 2 req-a', 'b 1 req-c']);
    assert.deepEqual(await queued(), []);
  });

  it('claims only what is due, holds it under a lease, and deletes it when it is done', async () => {
    await engine.enqueue(handle.db, ['a']);
    await engine.enqueue(handle.db, ['b'], new Date('2026-11-26T12:05:00Z'));
    const claimed = await engine.claim(10);
    assert.deepEqual(
      claimed.map((one) => [one.id, one.attempt.number]),
      [['a', 1]],
    );
    assert.deepEqual(await queued(), [
      { id: 'a', due: '2026-11-26T12:01:00.000Z', leased: true, attempts: 1 },
      { id: 'b', due: '2026-11-26T12:05:00.000Z', leased: false, attempts: 0 },
    ]);
    // Held: a second claim does not take it again before the lease runs out.
    assert.deepEqual(await engine.claim(10), []);
    await engine.work(claimed[0] as (typeof claimed)[number]);
    assert.deepEqual(recorded, [{ id: 'a', settlement: { kind: 'done', result: 'ok', attempts: 1 } }]);
    assert.deepEqual(
      (await queued()).map((row) => row.id),
      ['b'],
    );
  });

  it('counts an error of its own as a failed attempt, backs off, and ends exhausted with the reason', async () => {
    perform = () => Promise.reject(new Error('the archived bytes are gone'));
    await engine.enqueue(handle.db, ['a']);
    await runDue();
    assert.deepEqual(recorded.at(-1), {
      id: 'a',
      settlement: {
        kind: 'retry',
        reason: 'an error of this service: the archived bytes are gone',
        attempts: 1,
        maxAttempts: 3,
        at: new Date('2026-11-26T12:00:01Z'),
        ours: true,
      },
    });
    assert.deepEqual(await queued(), [{ id: 'a', due: '2026-11-26T12:00:01.000Z', leased: false, attempts: 1 }]);
    clock.advance(1_000);
    await runDue();
    clock.advance(2_000);
    await runDue();
    assert.deepEqual(recorded.at(-1), {
      id: 'a',
      settlement: {
        kind: 'exhausted',
        reason: 'an error of this service: the archived bytes are gone',
        attempts: 3,
        maxAttempts: 3,
        ours: true,
      },
    });
    assert.deepEqual(await queued(), []);
  });

  it('waits for a later Retry-After than its backoff, and does not count an attempt that was not made', async () => {
    perform = () => Promise.resolve({ kind: 'failed', reason: '503', retryAt: new Date('2026-11-26T12:10:00Z') });
    await engine.enqueue(handle.db, ['a']);
    await runDue();
    assert.deepEqual(await queued(), [{ id: 'a', due: '2026-11-26T12:10:00.000Z', leased: false, attempts: 1 }]);
    clock.set(new Date('2026-11-26T12:10:00Z'));
    perform = () =>
      Promise.resolve({ kind: 'deferred', reason: 'breaker open', until: new Date('2026-11-26T12:11:00Z') });
    await runDue();
    assert.deepEqual(await queued(), [{ id: 'a', due: '2026-11-26T12:11:00.000Z', leased: false, attempts: 1 }]);
    assert.deepEqual(recorded.at(-1), {
      id: 'a',
      settlement: { kind: 'deferred', reason: 'breaker open', attempts: 1, at: new Date('2026-11-26T12:11:00Z') },
    });
  });

  it('asks again without a failure and starts the count again, however often (a verdict still to come)', async () => {
    perform = () =>
      Promise.resolve({ kind: 'again', at: new Date(clock.now().getTime() + 1_000), reason: 'in process' });
    await engine.enqueue(handle.db, ['a']);
    for (let poll = 1; poll <= 5; poll++) {
      await runDue();
      assert.deepEqual(await queued(), [
        { id: 'a', due: new Date(clock.now().getTime() + 1_000).toISOString(), leased: false, attempts: 0 },
      ]);
      clock.advance(1_000);
    }
    assert.equal(recorded.length, 5);
    assert.deepEqual(recorded.at(-1)?.settlement, {
      kind: 'again',
      attempts: 1,
      at: clock.now(),
      reason: 'in process',
    });
  });

  it('takes one item now, due or not, unless a running lease holds it', async () => {
    await engine.enqueue(handle.db, ['a'], new Date('2026-11-26T13:00:00Z'));
    assert.deepEqual(await engine.claim(10), [], 'not due');
    const [now] = await engine.claimNow('a');
    assert.deepEqual([now?.id, now?.attempt.number], ['a', 1]);
    assert.deepEqual(await engine.claimNow('a'), [], 'held by the first');
    assert.deepEqual(await engine.claimNow('b'), [], 'not queued');
  });

  it('hastens an item: queued if it was not, due now if it waited, left to the worker that holds it', async () => {
    await engine.enqueue(handle.db, ['a'], new Date('2026-11-26T12:30:00Z'));
    await engine.enqueue(handle.db, ['b']);
    const [held] = await engine.claim(1);
    assert.ok(held);
    assert.equal(held.id, 'b');
    await engine.hasten(handle.db, ['a', 'b', 'c']);
    assert.deepEqual(await queued(), [
      { id: 'a', due: '2026-11-26T12:00:00.000Z', leased: false, attempts: 0 },
      { id: 'b', due: '2026-11-26T12:01:00.000Z', leased: true, attempts: 1 },
      { id: 'c', due: '2026-11-26T12:00:00.000Z', leased: false, attempts: 0 },
    ]);
    // The holder's outcome still counts: hastening took nothing from it.
    perform = () => Promise.resolve({ kind: 'failed', reason: 'no answer' });
    await engine.work(held);
    assert.deepEqual(
      recorded.map((one) => [one.id, one.settlement.kind]),
      [['b', 'retry']],
    );
    // A retry waiting its backoff is due now, its attempts still counted.
    await engine.hasten(handle.db, ['b']);
    assert.deepEqual((await queued())[1], { id: 'b', due: '2026-11-26T12:00:00.000Z', leased: false, attempts: 1 });
  });

  it("takes up a dead worker's item after its lease, and records nothing of the stale worker's late result", async () => {
    await engine.enqueue(handle.db, ['a']);
    const [stale] = await engine.claim(10);
    assert.ok(stale !== undefined);
    clock.advance(60_000);
    const [taken] = await engine.claim(10);
    assert.deepEqual([taken?.id, taken?.attempt.number], ['a', 2]);
    await engine.work(stale);
    assert.deepEqual(recorded, []);
    assert.equal((await queued())[0]?.leased, true);
    await engine.work(taken as NonNullable<typeof taken>);
    assert.deepEqual(recorded, [{ id: 'a', settlement: { kind: 'done', result: 'ok', attempts: 2 } }]);
  });

  it('ends an item whose every attempt died with its worker exhausted, never taken up for ever', async () => {
    await engine.enqueue(handle.db, ['a']);
    for (let attempt = 1; attempt <= 3; attempt++) {
      assert.equal((await engine.claim(10)).length, 1);
      clock.advance(60_000);
    }
    assert.deepEqual(await engine.claim(10), []);
    assert.deepEqual(recorded, [
      {
        id: 'a',
        settlement: {
          kind: 'exhausted',
          reason: 'attempt 3 never finished: its worker stopped or lost its database',
          attempts: 3,
          maxAttempts: 3,
          ours: true,
        },
      },
    ]);
    assert.deepEqual(await queued(), []);
  });

  it('ends a settlement that cannot be recorded exhausted with the reason, and drops work whose item is gone', async () => {
    let calls = 0;
    const failing = createWorkEngine<string, string>({
      db: handle.db,
      clock,
      log,
      environment: 'TEST',
      target: {
        name: 'test.target',
        policy: { leaseMs: 60_000, maxAttempts: 3, retryDelayMs: () => 1_000 },
        load: (ids) => Promise.resolve(new Map(ids.filter((id) => items.has(id)).map((id) => [id, id]))),
        perform: () => Promise.resolve({ kind: 'done', result: 'ok' }),
        record: (_trx, id, settlement) => {
          calls++;
          if (settlement.kind === 'done') return Promise.reject(new Error('a constraint refused it'));
          recorded.push({ id, settlement });
          return Promise.resolve();
        },
      },
    });
    items.delete('c');
    await failing.enqueue(handle.db, ['a', 'c']);
    for (const claimed of await failing.claim(10)) await failing.work(claimed);
    assert.equal(calls, 2);
    assert.deepEqual(recorded, [
      {
        id: 'a',
        settlement: {
          kind: 'exhausted',
          reason: 'an error of this service while recording the outcome: a constraint refused it',
          attempts: 1,
          maxAttempts: 3,
          ours: true,
        },
      },
    ]);
    assert.deepEqual(await queued(), []);
  });

  it("a claim's cost is the work waiting: two workers claiming at once never take the same item", async () => {
    items = new Set(Array.from({ length: 40 }, (_, i) => `item-${String(i).padStart(2, '0')}`));
    await engine.enqueue(handle.db, [...items]);
    const [first, second] = await Promise.all([engine.claim(25), engine.claim(25)]);
    const ids = [...first, ...second].map((one) => one.id);
    assert.equal(ids.length, 40);
    assert.equal(new Set(ids).size, 40);
  });
});
