// Annulments (SPEC §4.4) through HTTP against the DGII sandbox: burned numbers listed ready to annul, an
// ANECF for them and for a range's unissued tail accepted by DGII and counted as annulled; each refusal (a used
// number, a foreign range, an active offline block, a span that is not a tail) and DGII's rejection, which gives the
// numbers back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './support/assert-problem.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';

interface Annulment {
  id: string;
  status: string;
  total: number;
  spans: { ecfType: string; from: string; to: string; count: number; kind: string }[];
  dgii: { estado: string | null; mensajes: { valor: string }[] };
}
interface Availability {
  total: number;
  used: number;
  burned: number;
  annulled: number;
  withdrawn: number;
  remaining: number;
  reserved: number;
}

describe('annulments of unused e-NCF (sandbox)', { timeout: 180_000 }, () => {
  let world: SendingWorld;

  const burn = async (type: string, count: number) => {
    const taken: string[] = [];
    for (let i = 0; i < count; i++) {
      const number = await world.app.application.services.sequences.takeNumber(
        world.companyId,
        type,
        'signing failed: the test burned it',
      );
      assert.ok(number.ok);
      taken.push(number.value.encf);
    }
    return taken;
  };
  const request = (ranges: { ecfType: string; from: string; to: string }[]) =>
    world.call('POST', '/api/v1/secuencias/anulaciones', { ranges });
  const availability = async (type: string) => {
    const ranges = (await world.call('GET', `/api/v1/secuencias/rangos?ecfType=${type}`)).json<{
      data: { availability: Availability }[];
    }>().data;
    assert.equal(ranges.length, 1);
    return ranges[0]?.availability;
  };
  async function untilAnswered(id: string): Promise<Annulment> {
    for (let tries = 0; tries < 300; tries++) {
      const annulment = (await world.call('GET', `/api/v1/secuencias/anulaciones/${id}`)).json<{ data: Annulment }>()
        .data;
      if (annulment.status !== 'pending' && annulment.status !== 'sending') return annulment;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`annulment ${id} was not answered`);
  }

  before(async () => {
    world = await startSendingWorld();
  });
  after(() => world.close());

  it("lists burned numbers in contiguous spans, annuls them and a range's unissued tail, and counts them annulled", async () => {
    const burned = await burn('31', 3);
    assert.deepEqual(burned, ['E310000000001', 'E310000000002', 'E310000000003']);
    const listed = (await world.call('GET', '/api/v1/secuencias/anulaciones/quemadas')).json<{
      data: { ecfType: string; from: string; to: string; count: number; causes: string[] }[];
    }>().data;
    assert.deepEqual(listed, [
      {
        ecfType: '31',
        from: 'E310000000001',
        to: 'E310000000003',
        count: 3,
        causes: ['signing failed: the test burned it'],
      },
    ]);

    const response = await request([
      { ecfType: '31', from: 'E310000000001', to: 'E310000000003' },
      { ecfType: '41', from: 'E410000000001', to: 'E410000100000' },
    ]);
    assert.equal(response.statusCode, 202, response.body);
    const pending = response.json<{ data: Annulment }>().data;
    assert.equal(pending.status, 'pending');
    assert.equal(pending.total, 100_003);
    // The tail is withdrawn at once: nobody is handed those numbers while DGII answers.
    const withdrawn = await availability('41');
    assert.deepEqual(
      { withdrawn: withdrawn?.withdrawn, remaining: withdrawn?.remaining },
      { withdrawn: 100_000, remaining: 0 },
    );

    const answered = await untilAnswered(pending.id);
    assert.equal(answered.status, 'accepted', JSON.stringify(answered.dgii));
    assert.deepEqual(
      answered.spans.map((span) => [span.ecfType, span.from, span.to, span.kind]),
      [
        ['31', 'E310000000001', 'E310000000003', 'burned'],
        ['41', 'E410000000001', 'E410000100000', 'unissued'],
      ],
    );
    assert.deepEqual(await availability('31'), {
      total: 100_000,
      used: 0,
      reserved: 0,
      burned: 0,
      annulled: 3,
      withdrawn: 0,
      remaining: 99_997,
    });
    assert.deepEqual(await availability('41'), {
      total: 100_000,
      used: 0,
      reserved: 0,
      burned: 0,
      annulled: 100_000,
      withdrawn: 0,
      remaining: 0,
    });
    assert.deepEqual(
      (await world.call('GET', '/api/v1/secuencias/anulaciones/quemadas')).json<{ data: unknown[] }>().data,
      [],
    );
    const list = (await world.call('GET', '/api/v1/secuencias/anulaciones')).json<{ data: Annulment[] }>().data;
    assert.ok(list.some((item) => item.id === pending.id));
    // Annulled numbers are never annulled twice.
    const again = await request([{ ecfType: '31', from: 'E310000000002', to: 'E310000000002' }]);
    assert.equal(assertProblem(again, 422, 'annulment_invalid').errors?.[0]?.code, 'already_requested');
  });

  it('refuses used numbers, foreign ranges, numbers inside an active offline block, and a middle of unissued numbers', async () => {
    const document = await world.create(ecfDocuments['31']);
    const usedNumber = Number(document.eNCF.slice(3));
    const used = await request([{ ecfType: '31', from: document.eNCF, to: document.eNCF }]);
    assert.deepEqual(
      assertProblem(used, 422, 'annulment_invalid').errors?.map((error) => [error.pointer, error.code]),
      [['/ranges/0', 'number_used']],
    );
    assert.ok(usedNumber > 0);

    const foreign = await request([{ ecfType: '31', from: 'E310000200001', to: 'E310000200005' }]);
    assert.deepEqual(
      assertProblem(foreign, 422, 'annulment_invalid').errors?.map((error) => [error.pointer, error.code]),
      [['/ranges/0', 'foreign_range']],
    );

    const block = await world.app.application.services.sequences.allocations.reserve(world.companyId, {
      ecfType: '33',
      deviceId: 'caja-01',
      count: 5,
    });
    assert.ok(block.ok);
    const inBlock = await request([{ ecfType: '33', from: 'E330000000002', to: 'E330000000003' }]);
    assert.deepEqual(
      assertProblem(inBlock, 422, 'annulment_invalid').errors?.map((error) => [error.pointer, error.code]),
      [['/ranges/0', 'inside_allocation']],
    );

    const middle = await request([{ ecfType: '43', from: 'E430000000010', to: 'E430000000020' }]);
    assert.deepEqual(
      assertProblem(middle, 422, 'annulment_invalid').errors?.map((error) => [error.pointer, error.code]),
      [['/ranges/0', 'not_a_tail']],
    );
    // A refused request holds nothing.
    assert.equal((await availability('43'))?.withdrawn, 0);
  });

  it('refuses with 422 only what one ANECF cannot carry: 10,001 ranges of a type, 10,000,000,000 numbers', async () => {
    const foreign = (type: string, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const encf = `E${type}${String(500_001 + i).padStart(10, '0')}`;
        return { ecfType: type, from: encf, to: encf };
      });
    const tooMany = await request([...foreign('31', 10_001), ...foreign('33', 2)]);
    assert.deepEqual(
      assertProblem(tooMany, 422, 'annulment_invalid').errors?.map((error) => [error.pointer, error.code]),
      [['/ranges/10000', 'too_many_ranges']],
    );
    // 10,000 of a type is what a line carries: those ranges are judged one by one (here, none is the company's).
    const atTheLimit = assertProblem(await request(foreign('31', 10_000)), 422, 'annulment_invalid').errors ?? [];
    assert.equal(atTheLimit.length, 10_000);
    assert.ok(atTheLimit.every((error) => error.code === 'foreign_range'));

    const whole = { ecfType: '31', from: 'E310000000001', to: 'E319999999999' };
    const beyond = await request([whole, { ecfType: '33', from: 'E330000000001', to: 'E330000000001' }]);
    const problem = assertProblem(beyond, 422, 'annulment_invalid');
    assert.deepEqual(
      problem.errors?.map((error) => [error.pointer, error.code, error.detail]),
      [
        [
          '/ranges',
          'too_many_numbers',
          'An ANECF annuls at most 9,999,999,999 numbers (CantidadeNCFAnulados has ten digits); these ranges hold 10,000,000,000: annul in several requests.',
        ],
      ],
    );
    // A whole ten-digit sequence is no format problem: only its range (not the company's) is.
    assert.deepEqual(
      assertProblem(await request([whole]), 422, 'annulment_invalid').errors?.map((error) => error.code),
      ['foreign_range'],
    );
  });

  it('gives the numbers back when DGII rejects the annulment; reintentar refuses a rejected request', async () => {
    const burned = await burn('44', 2);
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'anulacionrangos', mode: 'reject', count: 1 })).status,
      201,
    );
    const response = await request([{ ecfType: '44', from: burned[0] ?? '', to: burned[1] ?? '' }]);
    assert.equal(response.statusCode, 202, response.body);
    const answered = await untilAnswered(response.json<{ data: Annulment }>().data.id);
    assert.equal(answered.status, 'rejected');
    assert.ok(answered.dgii.mensajes.length > 0);
    const listed = (await world.call('GET', '/api/v1/secuencias/anulaciones/quemadas')).json<{
      data: { from: string; to: string }[];
    }>().data;
    assert.ok(
      listed.some((span) => span.from === burned[0] && span.to === burned[1]),
      JSON.stringify(listed),
    );
    assert.equal((await availability('44'))?.burned, 2);
    assertProblem(
      await world.call('POST', `/api/v1/secuencias/anulaciones/${answered.id}/reintentar`),
      409,
      'annulment_not_retryable',
    );
    assertProblem(await world.call('GET', '/api/v1/secuencias/anulaciones/anl_nope'), 404, 'annulment_not_found');
  });
});
