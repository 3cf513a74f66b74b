// Ranges (SPEC §4.4): an integrator registers the ranges DGII authorised and reads them back with their availability,
// over HTTP; every refusal says what is wrong and where. Strictly company-scoped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../src/platform/clock.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface RangeBody {
  id: string;
  ecfType: string;
  from: string;
  to: string;
  next: string | null;
  expiresOn: string | null;
  status: string;
  availability: { total: number; used: number; reserved: number; burned: number; remaining: number };
}

describe('sequence ranges (/api/v1/secuencias/rangos)', () => {
  let app: TestApp;
  let key: string;
  let readOnlyKey: string;
  let otherCompanyKey: string;
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));

  before(async () => {
    app = await startTestApp({ clock });
    const companyId = await app.provisionCompany();
    key = (await app.issueKey(companyId, ['sequences:manage'])).apiKey;
    readOnlyKey = (await app.issueKey(companyId, ['sequences:read'])).apiKey;
    otherCompanyKey = (await app.issueKey(await app.provisionCompany(), ['sequences:manage', 'sequences:read'])).apiKey;
  });
  after(() => app.close());

  const register = (body: unknown, apiKey = key) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/secuencias/rangos',
      headers: { 'x-api-key': apiKey },
      payload: body as object,
    });
  const get = (url: string, apiKey = key) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });

  it('registers a range with its expiry and answers it with its availability', async () => {
    const response = await register({
      ecfType: '31',
      from: 'E310000000001',
      to: 'E310000001000',
      expiresOn: '31-12-2027',
    });
    assert.equal(response.statusCode, 201, response.body);
    const range = response.json<{ data: RangeBody }>().data;
    assert.match(range.id, /^rng_[0-9A-Za-z]{20}$/);
    assert.deepEqual(
      { ...range, id: undefined },
      {
        id: undefined,
        ecfType: '31',
        from: 'E310000000001',
        to: 'E310000001000',
        next: 'E310000000001',
        expiresOn: '31-12-2027',
        status: 'active',
        availability: { total: 1000, used: 0, reserved: 0, burned: 0, annulled: 0, withdrawn: 0, remaining: 1000 },
        createdAt: '2026-11-21T14:00:00.000Z',
      },
    );
    const read = await get(`/api/v1/secuencias/rangos/${range.id}`, readOnlyKey);
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json<{ data: RangeBody }>().data, range);
  });

  it('registers types 32 and 34 without an expiry, and refuses one for them', async () => {
    const consumer = await register({ ecfType: '32', from: 'E320000000001', to: 'E320000050000' });
    assert.equal(consumer.statusCode, 201, consumer.body);
    assert.equal(consumer.json<{ data: RangeBody }>().data.expiresOn, null);
    assertFieldError(
      await register({ ecfType: '34', from: 'E340000000001', to: 'E340000000010', expiresOn: '31-12-2027' }),
      400,
      'validation_failed',
      '/expiresOn',
    );
  });

  it('refuses, naming the field: a missing expiry, numbers of another type, a backwards range, a bad date, unknown fields', async () => {
    assertFieldError(
      await register({ ecfType: '33', from: 'E330000000001', to: 'E330000000010' }),
      400,
      'validation_failed',
      '/expiresOn',
    );
    assertFieldError(
      await register({ ecfType: '33', from: 'E310000000001', to: 'E330000000010', expiresOn: '31-12-2027' }),
      400,
      'validation_failed',
      '/from',
    );
    assertFieldError(
      await register({ ecfType: '33', from: 'E330000000010', to: 'E330000000001', expiresOn: '31-12-2027' }),
      400,
      'validation_failed',
      '/to',
    );
    assertFieldError(
      await register({ ecfType: '33', from: 'E330000000001', to: 'E330000000010', expiresOn: '31-02-2027' }),
      400,
      'validation_failed',
      '/expiresOn',
    );
    assertFieldError(
      await register({ ecfType: '33', from: 'E33000000001', to: 'E330000000010', expiresOn: '31-12-2027' }),
      400,
      'validation_failed',
      '/from',
    );
    assertFieldError(
      await register({ ecfType: '33', from: 'E330000000000', to: 'E330000000010', expiresOn: '31-12-2027' }),
      400,
      'validation_failed',
      '/from',
    );
    assertProblem(
      await register({ ecfType: '33', from: 'E330000000001', to: 'E330000000010', expiresOn: '31-12-2027', extra: 1 }),
      400,
      'validation_failed',
    );
    assertProblem(
      await register({ ecfType: '99', from: 'E990000000001', to: 'E990000000010', expiresOn: '31-12-2027' }),
      400,
      'validation_failed',
    );
  });

  it('refuses an expiry that has passed (GMT-4 calendar day)', async () => {
    // 2026-11-21T14:00Z is the 21st in Santo Domingo: the 20th has passed, the 21st has not.
    assertProblem(
      await register({ ecfType: '41', from: 'E410000000001', to: 'E410000000010', expiresOn: '20-11-2026' }),
      422,
      'range_expired',
    );
    assert.equal(
      (await register({ ecfType: '41', from: 'E410000000001', to: 'E410000000010', expiresOn: '21-11-2026' }))
        .statusCode,
      201,
    );
  });

  it('refuses a range overlapping one of the same type, even registered at the same moment', async () => {
    const problem = assertProblem(
      await register({ ecfType: '31', from: 'E310000000900', to: 'E310000002000', expiresOn: '31-12-2027' }),
      409,
      'range_overlaps',
    );
    assert.match(problem.detail, /E310000000001–E310000001000/);
    assert.equal(
      (await register({ ecfType: '31', from: 'E310000001001', to: 'E310000002000', expiresOn: '31-12-2027' }))
        .statusCode,
      201,
    );
    assert.equal(
      (await register({ ecfType: '44', from: 'E440000000001', to: 'E440000001000', expiresOn: '31-12-2027' }))
        .statusCode,
      201,
    );
    const racing = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        register({ ecfType: '45', from: `E45000000000${String(n)}`, to: 'E450000000100', expiresOn: '31-12-2027' }),
      ),
    );
    assert.deepEqual(racing.map((response) => response.statusCode).sort(), [201, 409, 409, 409]);
  });

  it('lists ranges, by type too', async () => {
    const all = (await get('/api/v1/secuencias/rangos', readOnlyKey)).json<{ data: RangeBody[] }>().data;
    assert.deepEqual(
      all.map((range) => `${range.ecfType}:${range.to}`),
      [
        '31:E310000001000',
        '31:E310000002000',
        '32:E320000050000',
        '41:E410000000010',
        '44:E440000001000',
        '45:E450000000100',
      ],
    );
    const only31 = (await get('/api/v1/secuencias/rangos?ecfType=31', readOnlyKey)).json<{ data: RangeBody[] }>().data;
    assert.deepEqual(
      only31.map((range) => range.from),
      ['E310000000001', 'E310000001001'],
    );
    assertProblem(await get('/api/v1/secuencias/rangos?ecfType=30', readOnlyKey), 400, 'validation_failed');
    assert.equal(
      (await get('/api/v1/sequences/ranges?ecfType=31', readOnlyKey)).json<{ data: RangeBody[] }>().data.length,
      2,
    );
  });

  it('keeps each company to its own ranges', async () => {
    const mine = (await get('/api/v1/secuencias/rangos?ecfType=31', readOnlyKey)).json<{ data: RangeBody[] }>().data[0];
    assert.ok(mine !== undefined);
    assertProblem(await get(`/api/v1/secuencias/rangos/${mine.id}`, otherCompanyKey), 404, 'range_not_found');
    assert.deepEqual((await get('/api/v1/secuencias/rangos', otherCompanyKey)).json<{ data: RangeBody[] }>().data, []);
    // The same numbers are another company's own business.
    assert.equal(
      (
        await register(
          { ecfType: '31', from: 'E310000000001', to: 'E310000001000', expiresOn: '31-12-2027' },
          otherCompanyKey,
        )
      ).statusCode,
      201,
    );
  });

  it('needs sequences:manage to register', async () => {
    assertProblem(
      await register(
        { ecfType: '46', from: 'E460000000001', to: 'E460000000010', expiresOn: '31-12-2027' },
        readOnlyKey,
      ),
      403,
      'scope_missing',
    );
  });
});
