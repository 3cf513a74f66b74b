// Schemas (SPEC §4.5): GET /api/v1/esquemas/ecf/:type serves a JSON Schema (2020-12) of the creation body that says
// what the API accepts. Checked with a real validator (Ajv's 2020 build) against the API itself: the fiscal-core
// documents pass both, and a table of structurally wrong bodies is refused by both, at the same place.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { ecfTypes, type EcfType } from '../src/fiscal/model/ecf-model-types.js';
import { fixedClock } from '../src/platform/clock.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { ecfScenarios } from './support/ecf-scenarios.js';
import { startTestApp, type TestApp } from './support/test-app.js';

type Json = Record<string, unknown>;

describe('e-CF JSON schemas (/api/v1/esquemas/ecf/:type)', { timeout: 180_000 }, () => {
  let app: TestApp;
  /** A company with an address in its profile (DireccionEmisor defaults) and no certificate: a body that passes
   * validation then stops at certificate_missing, which is how "the API accepts it" is observed without issuing. */
  let key: string;
  let noAddressKey: string;
  const validators = new Map<EcfType, ValidateFunction>();
  const schemas = new Map<EcfType, Json>();
  // ajv is CommonJS: its class is the default export at run time, `.default` in its declared types.
  const ajv = new Ajv2020.default({ strict: true, allErrors: true });

  before(async () => {
    app = await startTestApp({ clock: fixedClock(new Date('2026-11-21T14:30:00Z')) });
    const companyId = await app.provisionCompany({ rnc: issuerRnc, address: 'Av. 27 de Febrero #123, Santo Domingo' });
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read'])).apiKey;
    noAddressKey = (await app.issueKey(await app.provisionCompany(), ['documents:read', 'documents:create'])).apiKey;
    for (const type of ecfTypes) {
      const response = await get(`/api/v1/esquemas/ecf/${type}`);
      assert.equal(response.statusCode, 200, response.body);
      const schema = response.json<{ data: Json }>().data;
      schemas.set(type, schema);
      validators.set(type, ajv.compile(schema));
    }
  });
  after(() => app.close());

  const get = (url: string, apiKey = key, headers: Record<string, string> = {}) =>
    app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey, ...headers } });
  const create = (body: unknown, apiKey = key) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey },
      payload: body as object,
    });
  const schemaErrors = (type: EcfType, body: unknown) => {
    const validate = validators.get(type) as ValidateFunction;
    return validate(body) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  };

  async function assertApiAccepts(body: unknown, apiKey = key): Promise<void> {
    assertProblem(await create(body, apiKey), 409, 'certificate_missing');
  }

  it('serves a 2020-12 schema per type whose TipoeCF is that type', () => {
    for (const type of ecfTypes) {
      const schema = schemas.get(type) as Json;
      assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(schema['$id'], `urn:ecf-service:esquemas:ecf:${type}`);
      const other = type === '31' ? '32' : '31';
      const body = structuredClone(ecfDocuments[type]) as { Encabezado: { IdDoc: Json } };
      body.Encabezado.IdDoc['TipoeCF'] = other;
      assert.notDeepEqual(schemaErrors(type, body), [], `${type} schema refuses TipoeCF ${other}`);
    }
  });

  for (const type of ecfTypes) {
    it(`e-CF ${type}: the fiscal-core documents and the served example pass the API and the schema`, async () => {
      const documents = [
        ecfDocuments[type],
        ...ecfScenarios.filter((scenario) => scenario.type === type).map((scenario) => scenario.document),
      ];
      assert.ok(documents.length >= 3, 'the fixture document and at least two scenarios');
      for (const document of documents) {
        await assertApiAccepts(document);
        assert.deepEqual(schemaErrors(type, document), [], JSON.stringify(document).slice(0, 120));
      }
      const example = ((schemas.get(type) as Json)['examples'] as unknown[])[0];
      assert.deepEqual(schemaErrors(type, example), []);
      await assertApiAccepts(example);
    });
  }

  it('31 and 32 differ where the model says: RNCComprador is mandatory in 31 only; IndicadorNotaCredito belongs to 34', async () => {
    const without = (type: EcfType) => {
      const body = structuredClone(ecfDocuments[type]) as { Encabezado: { Comprador: Json } };
      delete body.Encabezado.Comprador['RNCComprador'];
      return body;
    };
    assert.deepEqual(schemaErrors('32', without('32')), []);
    await assertApiAccepts(without('32'));
    assert.notDeepEqual(schemaErrors('31', without('31')), []);
    assertFieldError(await create(without('31')), 422, 'document_invalid', '/Encabezado/Comprador/RNCComprador');

    const comprador = (type: EcfType) =>
      JSON.stringify(
        (schemas.get(type) as { properties: { Encabezado: { properties: Json } } }).properties.Encabezado.properties[
          'Comprador'
        ],
      );
    assert.notEqual(comprador('31'), comprador('32'));
    const idDoc = (type: EcfType) =>
      (
        schemas.get(type) as {
          properties: { Encabezado: { properties: { IdDoc: { properties: Record<string, Json> } } } };
        }
      ).properties.Encabezado.properties.IdDoc.properties;
    assert.equal(idDoc('34')['IndicadorNotaCredito']?.['$ref'], '#/$defs/IndicadorNotaCreditoType');
    assert.equal(idDoc('31')['IndicadorNotaCredito']?.['$ref'], '#/$defs/notSent');
  });

  it('makes DireccionEmisor mandatory when the company profile has no address, as the API does', async () => {
    const response = await get('/api/v1/esquemas/ecf/31', noAddressKey);
    const schema = response.json<{ data: Json }>().data;
    assert.notEqual(response.headers['etag'], (await get('/api/v1/esquemas/ecf/31')).headers['etag']);
    const validate = ajv.compile({ ...schema, $id: 'urn:test:no-address' });
    const example = (schema['examples'] as { Encabezado: Json }[])[0] as { Encabezado: Json };
    assert.equal(validate(example), false, 'the Emisor cannot be left out whole');
    example.Encabezado['Emisor'] = { NombreComercial: 'Comercial Ejemplo' };
    assert.equal(validate(example), false);
    assert.ok(JSON.stringify(validate.errors).includes('DireccionEmisor'), JSON.stringify(validate.errors));
    assertFieldError(
      await create(example, noAddressKey),
      422,
      'document_invalid',
      '/Encabezado/Emisor/DireccionEmisor',
    );
    example.Encabezado['Emisor'] = { DireccionEmisor: 'Calle Primera #1, Santiago' };
    assert.equal(validate(example), true, JSON.stringify(validate.errors));
    await assertApiAccepts(example, noAddressKey);
  });

  /** Wrong bodies: [what, type, change to the fixture, pointer the API names]. */
  type Edit = (document: Json) => void;
  const at = (document: Json, path: string): Json =>
    path.split('/').reduce<Json>((node, name) => node[name] as Json, document);
  const set =
    (path: string, name: string, value: unknown): Edit =>
    (document) => {
      at(document, path)[name] = value;
    };
  const remove =
    (path: string, name: string): Edit =>
    (document) => {
      Reflect.deleteProperty(at(document, path), name);
    };
  const firstItem = 'DetallesItems/Item/0';
  const refused: readonly [string, EcfType, Edit, string][] = [
    ['an unknown key', '31', set('Encabezado/IdDoc', 'Foo', 'x'), '/Encabezado/IdDoc/Foo'],
    [
      'a misspelt element, even empty',
      '31',
      set('Encabezado/Comprador', 'RazonSocial', ''),
      '/Encabezado/Comprador/RazonSocial',
    ],
    [
      "another type's element with a value",
      '31',
      set('Encabezado/IdDoc', 'IndicadorNotaCredito', 0),
      '/Encabezado/IdDoc/IndicadorNotaCredito',
    ],
    ['a boolean quantity', '31', set(firstItem, 'CantidadItem', true), `/${firstItem}/CantidadItem`],
    [
      'a number for a text',
      '31',
      set('Encabezado/Comprador', 'RNCComprador', 130123458),
      '/Encabezado/Comprador/RNCComprador',
    ],
    ['a group given as a string', '31', set('Encabezado', 'Comprador', 'Cliente'), '/Encabezado/Comprador'],
    [
      'a single element given as a list',
      '31',
      set('Encabezado', 'Comprador', [{ RNCComprador: '130123458' }]),
      '/Encabezado/Comprador',
    ],
    [
      'a repeated element given as an object',
      '31',
      set('DetallesItems', 'Item', { NumeroLinea: 1 }),
      '/DetallesItems/Item',
    ],
    [
      'an empty entry in a list',
      '31',
      (d) => (at(d, 'DetallesItems')['Item'] as unknown[]).push({}),
      '/DetallesItems/Item/2',
    ],
    [
      'too many telephones',
      '31',
      set('Encabezado/Emisor/TablaTelefonoEmisor', 'TelefonoEmisor', [
        '809-555-0101',
        '809-555-0102',
        '809-555-0103',
        '809-555-0104',
      ]),
      '/Encabezado/Emisor/TablaTelefonoEmisor/TelefonoEmisor',
    ],
    [
      'a name too long',
      '31',
      set('Encabezado/Comprador', 'RazonSocialComprador', 'x'.repeat(151)),
      '/Encabezado/Comprador/RazonSocialComprador',
    ],
    ['a control character', '31', set(firstItem, 'NombreItem', 'Martillo\u0007'), `/${firstItem}/NombreItem`],
    [
      'an RNC of five digits',
      '31',
      set('Encabezado/Comprador', 'RNCComprador', '12345'),
      '/Encabezado/Comprador/RNCComprador',
    ],
    [
      'a telephone without dashes',
      '31',
      set('Encabezado/Emisor/TablaTelefonoEmisor', 'TelefonoEmisor', ['8095550101']),
      '/Encabezado/Emisor/TablaTelefonoEmisor/TelefonoEmisor/0',
    ],
    ['an amount with three decimals', '31', set(firstItem, 'MontoItem', '1000.001'), `/${firstItem}/MontoItem`],
    ['a negative price', '31', set(firstItem, 'PrecioUnitarioItem', '-500.00'), `/${firstItem}/PrecioUnitarioItem`],
    ['an amount in words', '31', set(firstItem, 'MontoItem', 'mil'), `/${firstItem}/MontoItem`],
    ['line number 0', '31', set(firstItem, 'NumeroLinea', 0), `/${firstItem}/NumeroLinea`],
    [
      'a date that does not exist',
      '33',
      set('Encabezado/IdDoc', 'FechaLimitePago', '31-02-2027'),
      '/Encabezado/IdDoc/FechaLimitePago',
    ],
    [
      'a date written yyyy-MM-dd',
      '33',
      set('Encabezado/IdDoc', 'FechaLimitePago', '2027-01-15'),
      '/Encabezado/IdDoc/FechaLimitePago',
    ],
    ['a unit of measure not in the catalogue', '31', set(firstItem, 'UnidadMedida', 99), `/${firstItem}/UnidadMedida`],
    [
      'an income type written as a number (codes are "01".."06")',
      '31',
      set('Encabezado/IdDoc', 'TipoIngresos', 1),
      '/Encabezado/IdDoc/TipoIngresos',
    ],
    [
      'a currency not in the catalogue',
      '46',
      set('Encabezado/OtraMoneda', 'TipoMoneda', 'XXX'),
      '/Encabezado/OtraMoneda/TipoMoneda',
    ],
    [
      'a modification code not in the catalogue',
      '34',
      set('InformacionReferencia', 'CodigoModificacion', 9),
      '/InformacionReferencia/CodigoModificacion',
    ],
    [
      'the e-NCF, which the service assigns',
      '31',
      set('Encabezado/IdDoc', 'eNCF', 'E310000000001'),
      '/Encabezado/IdDoc/eNCF',
    ],
    ['no lines', '31', remove('DetallesItems', 'Item'), '/DetallesItems'],
    ['no TipoPago in 31', '31', remove('Encabezado/IdDoc', 'TipoPago'), '/Encabezado/IdDoc/TipoPago'],
    ['no reference in a credit note', '34', (d) => delete d['InformacionReferencia'], '/InformacionReferencia'],
    ['no NombreItem', '41', remove(firstItem, 'NombreItem'), `/${firstItem}/NombreItem`],
  ];

  for (const [what, type, edit, pointer] of refused) {
    it(`refuses ${what} (e-CF ${type}) in the API and in the schema`, async () => {
      const body = structuredClone(ecfDocuments[type]);
      edit(body);
      assert.notDeepEqual(schemaErrors(type, body), [], 'the schema accepts it');
      assertFieldError(await create(body), 422, 'document_invalid', pointer);
    });
  }

  const accepted: readonly [string, EcfType, Edit][] = [
    [
      'amounts and codes as numbers',
      '31',
      (d) =>
        Object.assign(at(d, firstItem), {
          MontoItem: 1000,
          PrecioUnitarioItem: 500,
          CantidadItem: 2,
          UnidadMedida: 43,
          IndicadorFacturacion: 1,
        }),
    ],
    ['an amount with leading zeros', '31', set(firstItem, 'MontoItem', '01000.00')],
    [
      'optional elements sent empty (null, "", empty group)',
      '31',
      (d) => {
        Object.assign(at(d, 'Encabezado/Comprador'), {
          ContactoComprador: null,
          CorreoComprador: '',
          FechaEntrega: null,
        });
        Object.assign(at(d, 'Encabezado'), { Transporte: {}, InformacionesAdicionales: { PesoBruto: '' } });
      },
    ],
    ["another type's element left empty", '31', set('Encabezado/IdDoc', 'IndicadorNotaCredito', '')],
    [
      'the Emisor and Totales left out',
      '31',
      (d) => {
        delete at(d, 'Encabezado')['Emisor'];
        delete at(d, 'Encabezado')['Totales'];
        delete at(d, 'Encabezado')['Version'];
      },
    ],
  ];

  for (const [what, type, edit] of accepted) {
    it(`accepts ${what} (e-CF ${type}) in the API and in the schema`, async () => {
      const body = structuredClone(ecfDocuments[type]);
      edit(body);
      assert.deepEqual(schemaErrors(type, body), []);
      await assertApiAccepts(body);
    });
  }

  it('answers 404 naming the ten types for an unknown type, under both spellings', async () => {
    for (const url of ['/api/v1/esquemas/ecf/30', '/api/v1/schemas/ecf/30']) {
      const body = assertProblem(await get(url), 404, 'route_not_found');
      for (const type of ecfTypes) assert.ok(body.detail.includes(type), `${type} in ${body.detail}`);
    }
    const alias = await get('/api/v1/schemas/ecf/32');
    assert.equal(alias.statusCode, 200);
    assert.deepEqual(alias.json<{ data: Json }>().data, schemas.get('32'));
  });

  it('carries an ETag and Cache-Control, and answers 304 to a matching If-None-Match', async () => {
    const first = await get('/api/v1/esquemas/ecf/31');
    const etag = String(first.headers['etag']);
    assert.match(etag, /^"[\w-]+"$/);
    assert.match(String(first.headers['cache-control']), /max-age=\d+/);
    const again = await get('/api/v1/esquemas/ecf/31', key, { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers['etag'], etag);
    assert.equal((await get('/api/v1/esquemas/ecf/31', key, { 'if-none-match': '"stale"' })).statusCode, 200);
    assert.notEqual((await get('/api/v1/esquemas/ecf/32')).headers['etag'], etag);
  });

  it('needs documents:read', async () => {
    const createOnly = (await app.issueKey(await app.provisionCompany(), ['documents:create'])).apiKey;
    assertProblem(await get('/api/v1/esquemas/ecf/31', createOnly), 403, 'scope_missing');
    assertProblem(await app.app.inject({ method: 'GET', url: '/api/v1/esquemas/ecf/31' }), 401, 'api_key_missing');
  });
});
