// Offline blocks (SPEC §4.4, /api/v1/secuencias/asignaciones): an integrator reserves a contiguous block of e-NCF for
// a device, over HTTP. The block's numbers are never handed to anyone else (documents created afterwards skip them);
// a block comes from one range only; cancelling or expiry burns exactly the numbers the device did not report, once;
// parallel reservations never overlap; strictly company-scoped, and scoped by API-key scope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../src/platform/clock.js';
import { transact } from '../src/platform/db/transact.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { postgresAvailable } from './support/backends.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface BlockBody {
  id: string;
  status: string;
  ecfType: string;
  deviceId: string;
  rangeId: string;
  from: string;
  to: string;
  count: number;
  used: number;
  remaining: number;
  burned: number;
  expiresAt: string | null;
  createdAt: string;
  endedAt: string | null;
}

interface RangeBody {
  id: string;
  ecfType: string;
  from: string;
  next: string | null;
  availability: { total: number; used: number; reserved: number; burned: number; remaining: number };
}

function blockSuite(label: string, embedded: boolean) {
  describe(`offline blocks (/api/v1/secuencias/asignaciones) on ${label}`, { timeout: 120_000 }, () => {
    let app: TestApp;
    let companyId: string;
    let key: string;
    let allocateKey: string;
    let readKey: string;
    let otherKey: string;
    const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));

    before(async () => {
      app = await startTestApp({ clock, embedded });
      companyId = await app.provisionCompany({ rnc: issuerRnc });
      const certificate = createSelfSignedP12({
        commonName: 'EMISOR DE PRUEBA',
        serialNumber: issuerRnc,
        notBefore: new Date('2026-01-01'),
        notAfter: new Date('2030-01-01'),
        password: 'clave',
      });
      const installed = await app.sendEvent('certificate.installed', {
        companyId,
        p12Base64: certificate.p12.toString('base64'),
        password: 'clave',
      });
      assert.equal(installed.statusCode, 200, installed.body);
      key = (
        await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage', 'sequences:read'])
      ).apiKey;
      allocateKey = (await app.issueKey(companyId, ['sequences:allocate', 'sequences:read'])).apiKey;
      readKey = (await app.issueKey(companyId, ['sequences:read'])).apiKey;
      otherKey = (await app.issueKey(await app.provisionCompany(), ['sequences:manage', 'sequences:read'])).apiKey;
      for (const range of [
        { ecfType: '31', from: 'E310000000001', to: 'E310000000100', expiresOn: '31-12-2027' },
        { ecfType: '31', from: 'E310000000101', to: 'E310000001000', expiresOn: '31-12-2027' },
        { ecfType: '32', from: 'E320000000001', to: 'E320000010000' },
        { ecfType: '34', from: 'E340000000001', to: 'E340000000050' },
      ]) {
        const registered = await app.app.inject({
          method: 'POST',
          url: '/api/v1/secuencias/rangos',
          headers: { 'x-api-key': key },
          payload: range,
        });
        assert.equal(registered.statusCode, 201, registered.body);
      }
    });
    after(() => app.close());

    const post = (url: string, body: unknown, apiKey = key) =>
      app.app.inject({ method: 'POST', url, headers: { 'x-api-key': apiKey }, payload: body as object });
    const reserve = (body: unknown, apiKey = key) => post('/api/v1/secuencias/asignaciones', body, apiKey);
    const cancel = (id: string, apiKey = key) =>
      app.app.inject({
        method: 'POST',
        url: `/api/v1/secuencias/asignaciones/${id}/cancelar`,
        headers: { 'x-api-key': apiKey },
      });
    const get = (url: string, apiKey = key) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
    const block = async (body: unknown, apiKey = key) => {
      const response = await reserve(body, apiKey);
      assert.equal(response.statusCode, 201, response.body);
      return response.json<{ data: BlockBody }>().data;
    };
    const rangeOf = async (ecfType: string, from: string) => {
      const ranges = (await get(`/api/v1/secuencias/rangos?ecfType=${ecfType}`)).json<{ data: RangeBody[] }>().data;
      const range = ranges.find((candidate) => candidate.from === from);
      assert.ok(range !== undefined);
      return range;
    };
    const burnedOf = (blockId: string) =>
      app.application.database.db
        .selectFrom('sequence_burned')
        .select(['encf', 'cause'])
        .where('cause', 'like', `allocation ${blockId} %`)
        .orderBy('encf')
        .execute();
    const report = (encf: string) =>
      transact(app.application.database.db, (trx) =>
        app.application.services.sequences.allocations.recordUse(trx, companyId, encf, null),
      );

    let first: BlockBody;
    let rest: BlockBody;

    it('reserves a block from the first range, in order, and documents created afterwards skip its numbers', async () => {
      first = await block({ ecfType: '31', deviceId: 'caja-01', count: 10 });
      assert.match(first.id, /^alc_[0-9A-Za-z]{20}$/);
      const range = await rangeOf('31', 'E310000000001');
      assert.deepEqual(
        { ...first, id: undefined },
        {
          id: undefined,
          status: 'active',
          ecfType: '31',
          deviceId: 'caja-01',
          rangeId: range.id,
          from: 'E310000000001',
          to: 'E310000000010',
          count: 10,
          used: 0,
          remaining: 10,
          burned: 0,
          expiresAt: null,
          createdAt: '2026-11-21T14:00:00.000Z',
          endedAt: null,
        },
      );
      const created = await post('/api/v1/documentos', ecfDocuments['31']);
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json<{ data: { eNCF: string } }>().data.eNCF, 'E310000000011');
      assert.deepEqual((await rangeOf('31', 'E310000000001')).availability, {
        total: 100,
        used: 1,
        reserved: 10,
        burned: 0,
        annulled: 0,
        withdrawn: 0,
        remaining: 89,
      });
      assert.equal((await rangeOf('31', 'E310000000001')).next, 'E310000000012');
    });

    it('does not span two ranges: refuses a block larger than what the range in use has left, saying how many', async () => {
      const refused = assertFieldError(
        await reserve({ ecfType: '31', deviceId: 'caja-02', count: 90 }),
        409,
        'allocation_exceeds_range',
        '/count',
      );
      assert.match(refused.detail, /89/);
      // Nothing was taken by the refusal.
      assert.equal((await rangeOf('31', 'E310000000001')).next, 'E310000000012');
      rest = await block({ ecfType: '31', deviceId: 'caja-02', count: 89 });
      assert.deepEqual([rest.from, rest.to], ['E310000000012', 'E310000000100']);
      // The first range is now wholly handed out: the next block comes from the next range.
      const next = await block({ ecfType: '31', deviceId: 'caja-02', count: 5 });
      assert.deepEqual(
        [next.from, next.to, next.rangeId],
        ['E310000000101', 'E310000000105', (await rangeOf('31', 'E310000000101')).id],
      );
    });

    it('refuses bad requests with a pointer, and a type without a range with a clear code', async () => {
      assertFieldError(
        await reserve({ ecfType: '31', deviceId: 'caja-01', count: 0 }),
        400,
        'validation_failed',
        '/count',
      );
      assertFieldError(
        await reserve({ ecfType: '31', deviceId: 'caja-01', count: 10_001 }),
        400,
        'validation_failed',
        '/count',
      );
      assertFieldError(
        await reserve({ ecfType: '31', deviceId: 'caja-01', count: 1.5 }),
        400,
        'validation_failed',
        '/count',
      );
      assertProblem(await reserve({ ecfType: '31', count: 3 }), 400, 'validation_failed');
      assertFieldError(
        await reserve({ ecfType: '31', deviceId: 'caja 01', count: 3 }),
        400,
        'validation_failed',
        '/deviceId',
      );
      assertFieldError(
        await reserve({ ecfType: '31', deviceId: 'caja-01', count: 3, expiresAt: '2026-11-21T13:59:59Z' }),
        400,
        'validation_failed',
        '/expiresAt',
      );
      assertProblem(
        await reserve({ ecfType: '31', deviceId: 'caja-01', count: 3, extra: true }),
        400,
        'validation_failed',
      );
      assertProblem(await reserve({ ecfType: '33', deviceId: 'caja-01', count: 3 }), 409, 'no_range');
      assert.equal((await rangeOf('31', 'E310000000101')).next, 'E310000000106');
    });

    it('lists newest first, filters by status and device, pages with a cursor, and reads one block', async () => {
      const all = (await get('/api/v1/secuencias/asignaciones', readKey)).json<{ data: BlockBody[] }>().data;
      assert.deepEqual(all.map((found) => found.from).sort(), ['E310000000001', 'E310000000012', 'E310000000101']);
      const device = (await get('/api/v1/secuencias/asignaciones?deviceId=caja-01', readKey)).json<{
        data: BlockBody[];
      }>().data;
      assert.deepEqual(
        device.map((found) => found.id),
        [first.id],
      );
      assert.deepEqual(
        (await get('/api/v1/secuencias/asignaciones?status=cancelled', readKey)).json<{ data: BlockBody[] }>().data,
        [],
      );
      assert.equal(
        (await get('/api/v1/secuencias/asignaciones?status=active', readKey)).json<{ data: BlockBody[] }>().data.length,
        3,
      );
      assertProblem(await get('/api/v1/secuencias/asignaciones?status=open', readKey), 400, 'validation_failed');
      assertProblem(await get('/api/v1/secuencias/asignaciones?cursor=garbage', readKey), 400, 'validation_failed');

      const page = (await get('/api/v1/secuencias/asignaciones?limit=2', readKey)).json<{
        data: BlockBody[];
        meta: { nextCursor: string | null };
      }>();
      assert.equal(page.data.length, 2);
      assert.ok(page.meta.nextCursor !== null);
      const second = (
        await get(`/api/v1/secuencias/asignaciones?limit=2&cursor=${page.meta.nextCursor}`, readKey)
      ).json<{ data: BlockBody[]; meta: { nextCursor: string | null } }>();
      assert.equal(second.data.length, 1);
      assert.equal(second.meta.nextCursor, null);
      assert.deepEqual(
        [...page.data, ...second.data].map((found) => found.id).sort(),
        all.map((found) => found.id).sort(),
      );

      const read = await get(`/api/v1/secuencias/asignaciones/${first.id}`, readKey);
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json<{ data: BlockBody }>().data, first);
      assert.deepEqual(
        (await get(`/api/v1/sequences/allocations/${first.id}`, readKey)).json<{ data: BlockBody }>().data,
        first,
      );
      assertProblem(
        await get('/api/v1/secuencias/asignaciones/alc_doesnotexist', readKey),
        404,
        'allocation_not_found',
      );
    });

    it('cancels a block: exactly the numbers the device did not report become burned, once', async () => {
      // The device reported two numbers (what the signed-XML intake does when it receives them).
      assert.deepEqual(await report('E310000000003'), { ok: true, value: first.id });
      assert.deepEqual(await report('E310000000005'), { ok: true, value: first.id });
      assert.deepEqual(await report('E310000000150'), { ok: true, value: undefined });
      const reported = (await get(`/api/v1/secuencias/asignaciones/${first.id}`)).json<{ data: BlockBody }>().data;
      assert.deepEqual({ used: reported.used, remaining: reported.remaining }, { used: 2, remaining: 8 });

      clock.advance(60_000);
      const cancelled = await cancel(first.id);
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      const body = cancelled.json<{ data: BlockBody }>().data;
      assert.deepEqual(
        { status: body.status, used: body.used, remaining: body.remaining, burned: body.burned, endedAt: body.endedAt },
        { status: 'cancelled', used: 2, remaining: 0, burned: 8, endedAt: '2026-11-21T14:01:00.000Z' },
      );
      const burned = await burnedOf(first.id);
      assert.deepEqual(
        burned.map((row) => row.encf),
        [
          'E310000000001',
          'E310000000002',
          'E310000000004',
          'E310000000006',
          'E310000000007',
          'E310000000008',
          'E310000000009',
          'E310000000010',
        ],
      );
      assert.ok(burned.every((row) => row.cause === `allocation ${first.id} cancelled`));
      // total 100 = used (1 document + 2 reported) + reserved (the 89 of the other block) + burned 8 + remaining 0.
      assert.deepEqual((await rangeOf('31', 'E310000000001')).availability, {
        total: 100,
        used: 3,
        reserved: 89,
        burned: 8,
        annulled: 0,
        withdrawn: 0,
        remaining: 0,
      });

      // A second cancel is refused and changes nothing; neither does a report of a burned number.
      const again = assertProblem(await cancel(first.id), 409, 'allocation_not_active');
      assert.match(again.detail, /cancelled/);
      assert.equal((await burnedOf(first.id)).length, 8);
      const late = await report('E310000000007');
      assert.equal(late.ok ? 'ok' : late.failure.code, 'allocation_not_active');
      assert.deepEqual(
        (await get('/api/v1/secuencias/asignaciones?status=cancelled', readKey))
          .json<{ data: BlockBody[] }>()
          .data.map((found) => found.id),
        [first.id],
      );
    });

    it('marks a block exhausted when the device has reported every number', async () => {
      const small = await block({ ecfType: '34', deviceId: 'caja-03', count: 2 });
      await report(small.from);
      await report(small.to);
      const read = (await get(`/api/v1/secuencias/asignaciones/${small.id}`)).json<{ data: BlockBody }>().data;
      assert.deepEqual(
        { status: read.status, used: read.used, remaining: read.remaining, burned: read.burned },
        { status: 'exhausted', used: 2, remaining: 0, burned: 0 },
      );
      assertProblem(await cancel(small.id), 409, 'allocation_not_active');
    });

    it('expires a block when read after its expiresAt: its unused numbers are burned once, even by parallel readers', async () => {
      const lapsing = await block({ ecfType: '34', deviceId: 'caja-04', count: 5, expiresAt: '2026-11-21T16:00:00Z' });
      assert.deepEqual(
        [lapsing.from, lapsing.to, lapsing.expiresAt],
        ['E340000000003', 'E340000000007', '2026-11-21T16:00:00.000Z'],
      );
      await report('E340000000004');
      assert.deepEqual((await rangeOf('34', 'E340000000001')).availability, {
        total: 50,
        used: 3,
        reserved: 4,
        burned: 0,
        annulled: 0,
        withdrawn: 0,
        remaining: 43,
      });

      clock.set(new Date('2026-11-21T16:00:01Z'));
      const reads = await Promise.all([
        get(`/api/v1/secuencias/asignaciones/${lapsing.id}`, readKey),
        get('/api/v1/secuencias/asignaciones', readKey),
        get(`/api/v1/secuencias/asignaciones/${lapsing.id}`, readKey),
        get('/api/v1/secuencias/asignaciones?status=expired', readKey),
      ]);
      for (const read of reads) assert.equal(read.statusCode, 200, read.body);
      const expired = reads[0].json<{ data: BlockBody }>().data;
      assert.deepEqual(
        {
          status: expired.status,
          used: expired.used,
          remaining: expired.remaining,
          burned: expired.burned,
          endedAt: expired.endedAt,
        },
        { status: 'expired', used: 1, remaining: 0, burned: 4, endedAt: '2026-11-21T16:00:01.000Z' },
      );
      const burned = await burnedOf(lapsing.id);
      assert.deepEqual(
        burned.map((row) => row.encf),
        ['E340000000003', 'E340000000005', 'E340000000006', 'E340000000007'],
      );
      assert.match(burned[0]!.cause, new RegExp(`^allocation ${lapsing.id} expired`));
      assert.deepEqual((await rangeOf('34', 'E340000000001')).availability, {
        total: 50,
        used: 3,
        reserved: 0,
        burned: 4,
        annulled: 0,
        withdrawn: 0,
        remaining: 43,
      });
      assertProblem(await cancel(lapsing.id), 409, 'allocation_not_active');
      assert.equal((await burnedOf(lapsing.id)).length, 4);
    });

    it("ends blocks past their expiry in the scheduled sweep though nobody reads them, and records each block's events", async () => {
      const lapsing = await block({ ecfType: '34', deviceId: 'caja-05', count: 3, expiresAt: '2026-11-21T18:00:00Z' });
      const cancelled = await block({ ecfType: '34', deviceId: 'caja-06', count: 2 });
      assert.equal((await cancel(cancelled.id)).statusCode, 200);
      clock.set(new Date('2026-11-21T18:00:01Z'));
      const { db } = app.application.database;
      assert.equal(
        (
          await db
            .selectFrom('sequence_allocations')
            .select('status')
            .where('id', '=', lapsing.id)
            .executeTakeFirstOrThrow()
        ).status,
        'active',
      );
      assert.equal(await app.application.services.sequences.allocations.expireAllDue(), 1);
      assert.equal(
        (
          await db
            .selectFrom('sequence_allocations')
            .select('status')
            .where('id', '=', lapsing.id)
            .executeTakeFirstOrThrow()
        ).status,
        'expired',
      );
      assert.equal((await burnedOf(lapsing.id)).length, 3);
      assert.equal(await app.application.services.sequences.allocations.expireAllDue(), 0);
      const events = await db
        .selectFrom('domain_events')
        .select(['type', 'payload'])
        .where('company_id', '=', companyId)
        .where('type', 'like', 'allocation.%')
        .execute();
      const of = (id: string) =>
        events
          .filter((event) => (event.payload as { allocationId: string }).allocationId === id)
          .map((event) => event.type)
          .sort();
      assert.deepEqual(of(lapsing.id), ['allocation.expired', 'allocation.reserved']);
      assert.deepEqual(of(cancelled.id), ['allocation.cancelled', 'allocation.reserved']);
    });

    it('never lets parallel reservations and documents overlap: every number handed out once, without gaps', async () => {
      const results = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) =>
          reserve({ ecfType: '32', deviceId: `pos-${String(i)}`, count: 37 }, i % 2 === 0 ? key : allocateKey),
        ),
        ...Array.from({ length: 5 }, () => post('/api/v1/documentos', ecfDocuments['32'])),
      ]);
      const numbers: number[] = [];
      for (const response of results) {
        assert.equal(response.statusCode, 201, response.body);
        const data = response.json<{ data: BlockBody | { eNCF: string } }>().data;
        if ('eNCF' in data) numbers.push(Number(data.eNCF.slice(3)));
        else for (let n = Number(data.from.slice(3)); n <= Number(data.to.slice(3)); n++) numbers.push(n);
      }
      numbers.sort((a, b) => a - b);
      assert.deepEqual(
        numbers,
        Array.from({ length: 20 * 37 + 5 }, (_, i) => i + 1),
      );
      assert.deepEqual((await rangeOf('32', 'E320000000001')).availability, {
        total: 10_000,
        used: 5,
        reserved: 740,
        burned: 0,
        annulled: 0,
        withdrawn: 0,
        remaining: 9_255,
      });
    });

    it('keeps each company to its own blocks (404), and lists none of them to another', async () => {
      assertProblem(await get(`/api/v1/secuencias/asignaciones/${rest.id}`, otherKey), 404, 'allocation_not_found');
      assertProblem(await cancel(rest.id, otherKey), 404, 'allocation_not_found');
      assert.deepEqual((await get('/api/v1/secuencias/asignaciones', otherKey)).json<{ data: unknown[] }>().data, []);
      // Another company without ranges has no numbers to reserve.
      assertProblem(await reserve({ ecfType: '31', deviceId: 'caja-01', count: 1 }, otherKey), 409, 'no_range');
      assert.equal(
        (await get(`/api/v1/secuencias/asignaciones/${rest.id}`)).json<{ data: BlockBody }>().data.status,
        'active',
      );
    });

    it('needs sequences:allocate to reserve and sequences:manage to cancel; the English aliases work', async () => {
      assertProblem(await reserve({ ecfType: '31', deviceId: 'caja-01', count: 1 }, readKey), 403, 'scope_missing');
      assertProblem(await cancel(rest.id, readKey), 403, 'scope_missing');
      assertProblem(await cancel(rest.id, allocateKey), 403, 'scope_missing');
      const viaAlias = await post(
        '/api/v1/sequences/allocations',
        { ecfType: '31', deviceId: 'caja-05', count: 2 },
        allocateKey,
      );
      assert.equal(viaAlias.statusCode, 201, viaAlias.body);
      const id = viaAlias.json<{ data: BlockBody }>().data.id;
      const cancelled = await app.app.inject({
        method: 'POST',
        url: `/api/v1/sequences/allocations/${id}/cancel`,
        headers: { 'x-api-key': key },
      });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json<{ data: BlockBody }>().data.status, 'cancelled');
      assert.equal(
        (await get('/api/v1/sequences/allocations?status=cancelled', readKey)).json<{ data: unknown[] }>().data.length,
        3,
      ); // this one, and those of the tests above
    });
  });
}

if (await postgresAvailable()) blockSuite('PostgreSQL', false);
blockSuite('PGlite', true);
