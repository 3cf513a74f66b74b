// The e-NCF numbering rule (DESIGN §5.1), on a real database: numbers are taken in order under the range's row lock
// and recorded as burned in the same statement until the work they were taken for settles them, so under any
// concurrency no number is given twice and there is no gap that is not recorded (a failure leaves its number burned,
// with its cause).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../src/platform/clock.js';
import { transact } from '../src/platform/db/transact.js';
import { ok } from '../src/platform/result.js';
import { postgresAvailable } from './support/backends.js';
import { startTestApp, type TestApp } from './support/test-app.js';

function numberingSuite(label: string, options: { embedded: boolean; creators: number; perCreator: number }) {
  describe(`e-NCF numbering (${label})`, { timeout: 240_000 }, () => {
    let app: TestApp;
    let companyId: string;
    const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
    const total = options.creators * options.perCreator;

    before(async () => {
      app = await startTestApp({ clock, embedded: options.embedded, env: { SEQUENCE_LOW_STOCK: '10' } });
      companyId = await app.provisionCompany();
      const { sequences } = app.application.services;
      // Two ranges, the first ending mid-way, so takers cross from one to the next while racing.
      const half = Math.floor(total / 2) + 3;
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '31',
            from: 'E310000000001',
            to: `E31${String(half).padStart(10, '0')}`,
            expiresOn: '31-12-2027',
          })
        ).ok,
      );
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '31',
            from: `E31${String(half + 1).padStart(10, '0')}`,
            to: 'E310000100000',
            expiresOn: '31-12-2027',
          })
        ).ok,
      );
    });
    after(() => app.close());

    const take = (type = '31') => app.application.services.sequences.takeNumber(companyId, type, 'taken by the test');
    const burnedRow = (encf: string) =>
      app.application.database.db
        .selectFrom('sequence_burned')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('encf', '=', encf)
        .executeTakeFirst();

    it(`gives ${String(options.creators)} parallel takers × ${String(options.perCreator)} numbers each, all distinct and without gaps, in order`, async () => {
      const taken = (
        await Promise.all(
          Array.from({ length: options.creators }, async () => {
            const mine: string[] = [];
            for (let i = 0; i < options.perCreator; i++) {
              const result = await take();
              assert.ok(result.ok, JSON.stringify(result));
              mine.push(result.value.encf);
            }
            // Each taker sees its own numbers rising.
            assert.deepEqual([...mine].sort(), mine);
            return mine;
          }),
        )
      ).flat();
      assert.equal(new Set(taken).size, total);
      assert.deepEqual(
        taken.map((encf) => Number(encf.slice(3))).sort((a, b) => a - b),
        Array.from({ length: total }, (_, i) => i + 1),
      );
    });

    it('keeps a taken number burned with its cause until it is settled; a failure replaces the cause', async () => {
      const { sequences } = app.application.services;
      const db = app.application.database.db;
      const taken = await sequences.takeNumber(
        companyId,
        '31',
        'document doc_x was being created when the work stopped',
      );
      assert.ok(taken.ok);
      assert.equal(
        (await burnedRow(taken.value.encf))?.cause,
        'document doc_x was being created when the work stopped',
      );
      assert.equal((await burnedRow(taken.value.encf))?.range_id, taken.value.rangeId);

      await transact(db, async (trx) => {
        await sequences.burnNumber(trx, companyId, taken.value, 'signing failed: certificate expired');
        return ok(undefined);
      });
      assert.equal((await burnedRow(taken.value.encf))?.cause, 'signing failed: certificate expired');
      const holder = (await sequences.listRanges(companyId, '31')).find((range) => range.id === taken.value.rangeId);
      assert.ok(holder !== undefined && holder.availability.burned >= 1);

      const settled = await sequences.takeNumber(
        companyId,
        '31',
        'document doc_y was being created when the work stopped',
      );
      assert.ok(settled.ok);
      assert.equal(Number(settled.value.encf.slice(3)), Number(taken.value.encf.slice(3)) + 1);
      await transact(db, async (trx) => {
        await sequences.settleNumberStatement(trx, companyId, settled.value.encf).execute();
        return ok(undefined);
      });
      assert.equal(await burnedRow(settled.value.encf), undefined);
      // Its work failed as far as its caller knows (the commit's answer lost in a database cut), but the number was
      // settled: it stays used, never both a document's and burned.
      await transact(db, async (trx) => {
        await sequences.burnNumber(trx, companyId, settled.value, 'creating document doc_y failed: connection lost');
        return ok(undefined);
      });
      assert.equal(await burnedRow(settled.value.encf), undefined);
    });

    it('takes the numbers of takers side by side together, in the order asked, each burned with its own cause, across ranges', async () => {
      const { sequences } = app.application.services;
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '45',
            from: 'E450000000001',
            to: 'E450000000005',
            expiresOn: '31-12-2027',
          })
        ).ok,
      );
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '45',
            from: 'E450000000101',
            to: 'E450000000105',
            expiresOn: '31-12-2027',
          })
        ).ok,
      );
      // Asked in one tick: the first alone, the other eleven together (four from the first range, five from the
      // next, and two for which no number is left).
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => sequences.takeNumber(companyId, '45', `taker ${String(i)}`)),
      );
      assert.deepEqual(
        results.map((result) => (result.ok ? result.value.encf : result.failure.code)),
        [
          'E450000000001',
          'E450000000002',
          'E450000000003',
          'E450000000004',
          'E450000000005',
          'E450000000101',
          'E450000000102',
          'E450000000103',
          'E450000000104',
          'E450000000105',
          'range_exhausted',
          'range_exhausted',
        ],
      );
      for (const [i, result] of results.slice(0, 10).entries()) {
        assert.ok(result.ok);
        assert.equal((await burnedRow(result.value.encf))?.cause, `taker ${String(i)}`);
      }
      const ranges = await sequences.listRanges(companyId, '45');
      assert.deepEqual(
        ranges.map((range) => [range.availability.burned, range.availability.remaining, range.status]),
        [
          [5, 0, 'exhausted'],
          [5, 0, 'exhausted'],
        ],
      );
      assert.deepEqual(
        results.slice(0, 10).map((result) => (result.ok ? result.value.rangeId : '')),
        [...Array<string | undefined>(5).fill(ranges[0]?.id), ...Array<string | undefined>(5).fill(ranges[1]?.id)],
      );
    });

    it('answers clear codes when no number can be taken: no range, expired, exhausted', async () => {
      const none = await take('33');
      assert.equal(none.ok ? 'taken' : none.failure.code, 'no_range');
      const { sequences } = app.application.services;
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '41',
            from: 'E410000000001',
            to: 'E410000000002',
            expiresOn: '21-11-2026',
          })
        ).ok,
      );
      assert.ok((await take('41')).ok);
      assert.ok((await take('41')).ok);
      const exhausted = await take('41');
      assert.equal(exhausted.ok ? 'taken' : exhausted.failure.code, 'range_exhausted');
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '43',
            from: 'E430000000001',
            to: 'E430000000100',
            expiresOn: '21-11-2026',
          })
        ).ok,
      );
      assert.ok((await take('43')).ok, 'usable on its expiry day (GMT-4)');
      clock.set(new Date('2026-11-22T04:00:00Z')); // midnight in Santo Domingo: the 22nd
      const expired = await take('43');
      assert.equal(expired.ok ? 'taken' : expired.failure.code, 'range_expired');
      clock.set(new Date('2026-11-21T14:00:00Z'));
    });

    it('records the low-stock and expiring-soon events once per range, for webhooks to deliver', async () => {
      const { sequences } = app.application.services;
      assert.ok(
        (
          await sequences.registerRange(companyId, {
            ecfType: '44',
            from: 'E440000000001',
            to: 'E440000000015',
            expiresOn: '01-12-2026',
          })
        ).ok,
      );
      for (let i = 0; i < 8; i++) assert.ok((await take('44')).ok);
      const events = await app.application.database.db
        .selectFrom('domain_events')
        .select(['type', 'payload'])
        .where('company_id', '=', companyId)
        .where('type', 'like', 'sequence.%')
        .orderBy('occurred_at')
        .execute();
      const forType44 = events.filter((event) => (event.payload as { ecfType: string }).ecfType === '44');
      assert.deepEqual(forType44.map((event) => event.type).sort(), ['sequence.expiring', 'sequence.low_stock']);
      const lowStock = forType44.find((event) => event.type === 'sequence.low_stock')?.payload as { remaining: number };
      assert.equal(lowStock.remaining, 10);
    });
  });
}

const realPostgres = await postgresAvailable();
// Real PostgreSQL gets the load; PGlite, one session, a lighter one.
if (realPostgres) numberingSuite('PostgreSQL, 50 × 20', { embedded: false, creators: 50, perCreator: 20 });
numberingSuite('PGlite, 5 × 10', { embedded: true, creators: 5, perCreator: 10 });
