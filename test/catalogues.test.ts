// Catalogues (SPEC §4.5): GET /api/v1/catalogos lists every official catalogue; GET /api/v1/catalogos/:catalog pages
// its entries, searchable by code or name without regard to accents; both answer conditional GETs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogues as modelCatalogues } from '../src/fiscal/model/generated/catalogues.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Summary {
  key: string;
  title: { es: string; en: string };
  count: number;
  source: string;
  version: string;
}

interface Item {
  code: string;
  name: string;
  abbreviation?: string;
  province?: string;
  municipality?: string;
  kind?: string;
  rate?: string | null;
  referenceAmount?: string;
}

interface Page {
  data: Item[];
  meta: { nextCursor: string | null };
}

describe('catalogues (/api/v1/catalogos)', { timeout: 120_000 }, () => {
  let app: TestApp;
  let key: string;
  let summaries: Summary[];

  before(async () => {
    app = await startTestApp();
    key = (await app.issueKey(await app.provisionCompany(), ['documents:read'])).apiKey;
    const response = await get('/api/v1/catalogos');
    assert.equal(response.statusCode, 200, response.body);
    summaries = response.json<{ data: Summary[] }>().data;
  });
  after(() => app.close());

  const get = (url: string, apiKey = key, headers: Record<string, string> = {}) =>
    app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey, ...headers } });

  /** Every entry of a catalogue, page by page; fails on a page that is not a page. */
  async function walk(catalogue: string, limit: number, q?: string): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 1_000; pages++) {
      const query = new URLSearchParams({
        limit: String(limit),
        ...(q === undefined ? {} : { q }),
        ...(cursor === null ? {} : { cursor }),
      });
      const response = await get(`/api/v1/catalogos/${catalogue}?${query.toString()}`);
      assert.equal(response.statusCode, 200, response.body);
      const page = response.json<Page>();
      assert.ok(page.data.length <= limit);
      items.push(...page.data);
      cursor = page.meta.nextCursor;
      if (cursor === null) return items;
      assert.equal(page.data.length, limit, 'only the last page is short');
    }
    throw new Error('no end of pages');
  }

  it('lists every official catalogue the issue names and every catalogue the model validates with', () => {
    const keys = summaries.map((summary) => summary.key);
    const named = [
      'tiposECF',
      'tiposIngresos',
      'tiposPago',
      'formasPago',
      'tiposCuentaPago',
      'indicadoresFacturacion',
      'unidadesMedida',
      'monedas',
      'provincias',
      'municipios',
      'codigosImpuestoAdicional',
      'codigosModificacion',
      'codigosMotivoNoRecibido',
      'estadosAprobacionComercial',
    ];
    for (const name of [...named, ...Object.keys(modelCatalogues)]) assert.ok(keys.includes(name), `${name} listed`);
    assert.equal(new Set(keys).size, keys.length, 'keys are unique');
    for (const summary of summaries) {
      assert.ok(summary.count > 0, `${summary.key} is not empty`);
      assert.ok(summary.title.es.length > 0 && summary.title.en.length > 0, `${summary.key} has both titles`);
      assert.match(summary.version, /^\d+\.\d+$/);
      assert.match(summary.source, /Formato/);
    }
    assert.deepEqual(summaries.find((summary) => summary.key === 'monedas')?.title, {
      es: 'Monedas',
      en: 'Currencies',
    });
  });

  it('walks every entry of every catalogue exactly once, in pages, as many as it counts', async () => {
    for (const summary of summaries) {
      const items = await walk(summary.key, 7);
      assert.equal(items.length, summary.count, summary.key);
      assert.equal(new Set(items.map((item) => item.code)).size, summary.count, `${summary.key}: no entry twice`);
      const model = modelCatalogues[summary.key];
      if (model !== undefined)
        assert.deepEqual(
          items.map((item) => item.code),
          model.map((entry) => entry.code),
          `${summary.key}: the model's codes, in order`,
        );
      for (const item of items) assert.ok(item.name.length > 0, `${summary.key} ${item.code} has a name`);
    }
    // One page of everything equals the pages joined.
    const whole = await get('/api/v1/catalogos/municipios?limit=200');
    assert.deepEqual(whole.json<Page>().data, (await walk('municipios', 200)).slice(0, 200));
  });

  it('serves the entries integrators look for, with what DGII labels imply made explicit', async () => {
    const all = async (catalogue: string) => new Map((await walk(catalogue, 200)).map((item) => [item.code, item]));
    assert.deepEqual((await all('monedas')).get('USD'), { code: 'USD', name: 'DOLAR ESTADOUNIDENSE' });
    assert.deepEqual((await all('unidadesMedida')).get('43'), { code: '43', name: 'Unidad', abbreviation: 'UND' });
    assert.deepEqual((await all('unidadesMedida')).get('21'), { code: '21', name: 'Kilogramo', abbreviation: 'KG' });
    const provinces = await all('provincias');
    const municipalities = await all('municipios');
    assert.deepEqual(municipalities.get('010101'), {
      code: '010101',
      name: 'SANTO DOMINGO DE GUZMÁN (D. M.).',
      province: '010000',
      municipality: '010100',
    });
    assert.deepEqual(municipalities.get('320700'), {
      code: '320700',
      name: 'MUNICIPIO PEDRO BRAND',
      province: '320000',
    });
    // DGII numbered MUNICIPIO NEIBA 030001; its districts still name it.
    assert.equal(municipalities.get('030102')?.municipality, '030001');
    for (const municipality of municipalities.values()) {
      assert.ok(
        provinces.has(municipality.province ?? ''),
        `${municipality.code}: province ${String(municipality.province)} exists`,
      );
      if (municipality.municipality !== undefined)
        assert.ok(
          municipalities.has(municipality.municipality),
          `${municipality.code}: municipality ${municipality.municipality} exists`,
        );
    }
    const taxes = await all('codigosImpuestoAdicional');
    assert.deepEqual(taxes.get('001'), { code: '001', name: 'Propina Legal', kind: 'other', rate: '10' });
    assert.deepEqual(taxes.get('006'), {
      code: '006',
      name: 'Cerveza',
      kind: 'specific',
      rate: null,
      referenceAmount: '632.58',
    });
    assert.deepEqual(taxes.get('036'), {
      code: '036',
      name: 'Cigarrillos que contengan tabaco cajetilla 20 unidades',
      kind: 'ad_valorem',
      rate: '20',
    });
    assert.deepEqual([...(await all('codigosMotivoNoRecibido')).keys()], ['1', '2', '3', '4']);
    assert.deepEqual(
      [...(await all('estadosAprobacionComercial')).values()],
      [
        { code: '1', name: 'e-CF aceptado' },
        { code: '2', name: 'e-CF rechazado' },
      ],
    );
    assert.deepEqual((await all('tiposAjuste')).get('D'), { code: 'D', name: 'Descuento' });
  });

  it('finds by name whatever the case and accents, and by code', async () => {
    const codes = async (catalogue: string, q: string) => (await walk(catalogue, 3, q)).map((item) => item.code);
    assert.deepEqual(await codes('provincias', 'santo domingo'), ['320000']);
    const santoDomingo = await walk('municipios', 3, 'santo domingo');
    assert.deepEqual(
      santoDomingo.slice(0, 2).map((item) => item.code),
      ['010100', '010101'],
    );
    assert.ok(
      santoDomingo.length > 2 && santoDomingo.every((item) => item.name.includes('SANTO DOMINGO')),
      JSON.stringify(santoDomingo),
    );
    assert.deepEqual(await codes('provincias', 'samana'), ['200000']);
    assert.deepEqual(await codes('provincias', 'SAMANÁ'), ['200000']);
    assert.deepEqual(await codes('municipios', 'la guayiga'), ['320702']);
    assert.deepEqual(await codes('provincias', 'monsenor'), ['280000']);
    assert.deepEqual(await codes('unidadesMedida', 'kilogramo'), ['21']);
    assert.deepEqual(await codes('unidadesMedida', 'metro cubico'), ['28']);
    assert.deepEqual(await codes('monedas', 'usd'), ['USD']);
    assert.deepEqual(
      await codes('municipios', '0201'),
      Array.from({ length: 10 }, (_, i) => `02010${String(i)}`),
    );
    assert.deepEqual(await codes('monedas', 'no existe'), []);
  });

  it('answers 404 naming every valid key for an unknown catalogue, and 400 for a cursor it did not give', async () => {
    const body = assertProblem(await get('/api/v1/catalogos/paises'), 404, 'route_not_found');
    for (const summary of summaries) assert.ok(body.detail.includes(summary.key), `${summary.key} in ${body.detail}`);
    assert.equal(body.errors?.[0]?.pointer, '/catalog');
    assertFieldError(await get('/api/v1/catalogos/monedas?cursor=bm9wZQ'), 400, 'validation_failed', '/cursor');
    const next = (await get('/api/v1/catalogos/municipios?limit=2')).json<Page>().meta.nextCursor;
    assertFieldError(
      await get(`/api/v1/catalogos/monedas?cursor=${String(next)}`),
      400,
      'validation_failed',
      '/cursor',
    );
    assertFieldError(await get('/api/v1/catalogos/monedas?limit=201'), 400, 'validation_failed', '/limit');
  });

  it('carries an ETag and Cache-Control on the list and on each page, and answers 304 to a matching If-None-Match', async () => {
    for (const url of [
      '/api/v1/catalogos',
      '/api/v1/catalogos/monedas',
      '/api/v1/catalogos/municipios?limit=10&q=santo',
    ]) {
      const first = await get(url);
      const etag = String(first.headers['etag']);
      assert.match(etag, /^"[\w-]+"$/, url);
      assert.match(String(first.headers['cache-control']), /max-age=\d+/);
      const again = await get(url, key, { 'if-none-match': `"other", ${etag}` });
      assert.equal(again.statusCode, 304, url);
      assert.equal(again.body, '');
      assert.equal((await get(url, key, { 'if-none-match': '"other"' })).statusCode, 200);
    }
    const page1 = await get('/api/v1/catalogos/municipios?limit=10');
    const page2 = await get(
      `/api/v1/catalogos/municipios?limit=10&cursor=${String(page1.json<Page>().meta.nextCursor)}`,
    );
    assert.notEqual(page1.headers['etag'], page2.headers['etag']);
  });

  it('answers under the English alias, and needs documents:read', async () => {
    const alias = await get('/api/v1/catalogs/monedas?limit=200');
    assert.equal(alias.statusCode, 200);
    assert.equal(alias.json<Page>().data.length, modelCatalogues['monedas']?.length);
    const createOnly = (await app.issueKey(await app.provisionCompany(), ['documents:create'])).apiKey;
    assertProblem(await get('/api/v1/catalogos', createOnly), 403, 'scope_missing');
    assertProblem(await get('/api/v1/catalogos/monedas', createOnly), 403, 'scope_missing');
    assertProblem(await app.app.inject({ method: 'GET', url: '/api/v1/catalogos' }), 401, 'api_key_missing');
  });
});
