// The bad-input table for POST /api/v1/documentos (DESIGN §4): every way a client can send a wrong e-CF — unreadable
// JSON, a body that is not an object, wrong types, a mandatory field missing for its type, codes outside DGII's
// catalogues, a wrong RNC check digit, a float's artefact, an oversized body, hostile content, a service-owned
// field — is answered 4xx problem+json naming the field at fault, and none of them consumes an e-NCF: after the
// whole table, the first valid document of each type still gets number 1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import type { ProblemCode } from '../src/platform/result.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { buyerRnc, ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';

type Json = Record<string, unknown>;
interface Document {
  Encabezado: { IdDoc: Json; Comprador: Json; Totales: Json };
  DetallesItems: { Item: Json[] };
}

/** A deep copy of a fixture, typed for the edits below. */
const copy = (type: '31' | '46' | '47') => structuredClone(ecfDocuments[type]) as unknown as Document;
const edited = (type: '31' | '46' | '47', edit: (document: Document) => void): string => {
  const document = copy(type);
  edit(document);
  return JSON.stringify(document);
};

interface BadInput {
  name: string;
  /** The raw body, as the client puts it on the wire. */
  body: string;
  contentType?: string;
  status: number;
  code: ProblemCode;
  /** The field error the answer must carry: its JSON pointer and its code. */
  error?: { pointer: string; code: string; in?: string };
  todo?: string;
}

// Off by one in the check digit of a valid RNC.
const badCheckDigitRnc = `${buyerRnc.slice(0, 8)}${String((Number(buyerRnc.slice(8)) + 1) % 10)}`;
const maxBodyBytes = 5 * 1024 * 1024;

const table: BadInput[] = [
  // Unreadable or not an object.
  { name: 'malformed JSON text', body: '{"Encabezado": {"IdDoc": ', status: 400, code: 'malformed_body' },
  {
    name: 'malformed JSON text names where the body is at fault with a pointer',
    body: '{"Encabezado": {"IdDoc": ',
    status: 400,
    code: 'malformed_body',
    error: { pointer: '/', code: 'syntax', in: 'body' },
  },
  {
    name: 'a JSON array instead of an object',
    body: JSON.stringify([ecfDocuments['31']]),
    status: 400,
    code: 'validation_failed',
    error: { pointer: '/', code: 'type', in: 'body' },
  },
  {
    name: 'a JSON string instead of an object',
    body: JSON.stringify('E310000000001'),
    status: 400,
    code: 'validation_failed',
    error: { pointer: '/', code: 'type', in: 'body' },
  },

  // Wrong types.
  {
    name: 'TipoeCF as an object',
    body: edited('31', (document) => (document.Encabezado.IdDoc['TipoeCF'] = { code: '31' })),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/IdDoc/TipoeCF', code: 'unknown_type' },
  },
  {
    name: 'CantidadItem as a boolean',
    body: edited(
      '31',
      (document) => (document.DetallesItems.Item[0] = { ...document.DetallesItems.Item[0], CantidadItem: true }),
    ),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item/0/CantidadItem', code: 'wrong_type' },
  },
  {
    name: 'Emisor as a string (never replaced by the company profile)',
    body: edited('31', (document) => ((document.Encabezado as Json)['Emisor'] = 'x')),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/Emisor', code: 'wrong_type' },
  },
  {
    name: 'Totales as a number (never replaced by computed totals)',
    body: edited('31', (document) => ((document.Encabezado as Json)['Totales'] = 5)),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/Totales', code: 'wrong_type' },
  },
  {
    name: 'Item not an array',
    body: edited('31', (document) => ((document.DetallesItems as Json)['Item'] = document.DetallesItems.Item[0])),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item', code: 'wrong_type' },
  },

  // A mandatory field missing, per type (src/fiscal/model/generated/ecf-<type>.ts, obligation 1).
  {
    name: 'e-CF 31 without Comprador/RNCComprador',
    body: edited('31', (document) => delete document.Encabezado.Comprador['RNCComprador']),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/Comprador/RNCComprador', code: 'missing' },
  },
  {
    name: 'e-CF 46 without IdDoc/TipoIngresos',
    body: edited('46', (document) => delete document.Encabezado.IdDoc['TipoIngresos']),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/IdDoc/TipoIngresos', code: 'missing' },
  },
  {
    // TotalISRRetencion is conditional (obligation 2) in e-CF 47 and computed from the lines when left out; the
    // line's Retencion/MontoISRRetenido is what the model makes mandatory.
    name: "e-CF 47 without the line's Retencion/MontoISRRetenido",
    body: edited(
      '47',
      (document) => delete (document.DetallesItems.Item[0]?.['Retencion'] as Json)['MontoISRRetenido'],
    ),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item/0/Retencion/MontoISRRetenido', code: 'missing' },
  },
  {
    name: "e-CF 47 without the line's Retencion",
    body: edited('47', (document) => delete document.DetallesItems.Item[0]?.['Retencion']),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item/0/Retencion', code: 'missing' },
  },

  // Codes outside DGII's catalogues.
  {
    name: 'UnidadMedida 999',
    body: edited(
      '31',
      (document) => (document.DetallesItems.Item[0] = { ...document.DetallesItems.Item[0], UnidadMedida: 999 }),
    ),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item/0/UnidadMedida', code: 'not_in_catalogue' },
  },
  {
    name: "TipoIngresos '99'",
    body: edited('31', (document) => (document.Encabezado.IdDoc['TipoIngresos'] = '99')),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/IdDoc/TipoIngresos', code: 'not_in_catalogue' },
  },

  // A taxpayer id with a wrong check digit.
  {
    name: `RNCComprador ${badCheckDigitRnc} (wrong check digit)`,
    body: edited('31', (document) => (document.Encabezado.Comprador['RNCComprador'] = badCheckDigitRnc)),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/Comprador/RNCComprador', code: 'taxpayer_id_check_digit' },
  },

  // A binary float's artefact: 0.1 + 0.2 goes on the wire as 0.30000000000000004, never rounded silently.
  {
    name: 'PrecioUnitarioItem 0.1 + 0.2 as a JSON number',
    body: edited(
      '31',
      (document) =>
        (document.DetallesItems.Item[0] = { ...document.DetallesItems.Item[0], PrecioUnitarioItem: 0.1 + 0.2 }),
    ),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item/0/PrecioUnitarioItem', code: 'too_many_fraction_digits' },
  },

  // An oversized body.
  {
    name: 'a body over 5 MB',
    body: edited(
      '31',
      (document) =>
        (document.DetallesItems.Item[0] = { ...document.DetallesItems.Item[0], NombreItem: 'x'.repeat(maxBodyBytes) }),
    ),
    status: 413,
    code: 'payload_too_large',
  },

  // Hostile content.
  {
    name: 'a control character (U+0001) in a string',
    body: edited(
      '31',
      (document) =>
        (document.DetallesItems.Item[0] = {
          ...document.DetallesItems.Item[0],
          NombreItem: 'Martillo\u0001 de carpintero',
        }),
    ),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/DetallesItems/Item/0/NombreItem', code: 'invalid_character' },
  },
  {
    name: 'XML with an external entity sent as application/xml to the JSON route',
    body: '<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ECF><Encabezado>&xxe;</Encabezado></ECF>',
    contentType: 'application/xml',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'XML sent as application/xml names the Content-Type header with a pointer',
    body: '<ECF><Encabezado/></ECF>',
    contentType: 'application/xml',
    status: 415,
    code: 'unsupported_media_type',
    error: { pointer: '/content-type', code: 'unsupported', in: 'headers' },
  },

  // A field the service owns.
  {
    name: 'eNCF sent by the client',
    body: edited('31', (document) => (document.Encabezado.IdDoc['eNCF'] = 'E310000000001')),
    status: 422,
    code: 'document_invalid',
    error: { pointer: '/Encabezado/IdDoc/eNCF', code: 'service_owned' },
  },
];

describe('bad input to POST /api/v1/documentos', { timeout: 120_000 }, () => {
  let app: TestApp;
  let key: string;
  const rangeIds = new Map<string, string>();
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));

  before(async () => {
    app = await startTestApp({ clock });
    const companyId = await app.provisionCompany({ rnc: issuerRnc });
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
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage', 'sequences:read']))
      .apiKey;
    for (const type of ['31', '46', '47']) {
      const registered = await app.app.inject({
        method: 'POST',
        url: '/api/v1/secuencias/rangos',
        headers: { 'x-api-key': key },
        payload: { ecfType: type, from: `E${type}0000000001`, to: `E${type}0000001000`, expiresOn: '31-12-2027' },
      });
      assert.equal(registered.statusCode, 201, registered.body);
      rangeIds.set(type, registered.json<{ data: { id: string } }>().data.id);
    }
  });
  after(() => app.close());

  for (const row of table) {
    it(
      `${row.name} → ${String(row.status)} ${row.code}${row.error === undefined ? '' : ` at ${row.error.pointer}`}`,
      row.todo === undefined ? {} : { todo: row.todo },
      async () => {
        const response = await app.app.inject({
          method: 'POST',
          url: '/api/v1/documentos',
          headers: { 'x-api-key': key, 'content-type': row.contentType ?? 'application/json' },
          payload: row.body,
        });
        if (row.error === undefined) {
          assertProblem(response, row.status, row.code);
          return;
        }
        const error = assertFieldError(response, row.status, row.code, row.error.pointer);
        assert.deepEqual({ code: error.code, in: error.in }, { code: row.error.code, in: row.error.in ?? 'body' });
      },
    );
  }

  it('consumed no number: the first valid document of each type after the table gets sequence 1', async () => {
    for (const type of ['31', '46', '47'] as const) {
      const range = await app.app.inject({
        method: 'GET',
        url: `/api/v1/secuencias/rangos/${rangeIds.get(type) ?? ''}`,
        headers: { 'x-api-key': key },
      });
      assert.equal(range.statusCode, 200, range.body);
      assert.deepEqual(
        range.json<{ data: { next: string; availability: unknown } }>().data.availability,
        { total: 1000, used: 0, reserved: 0, burned: 0, annulled: 0, withdrawn: 0, remaining: 1000 },
        `e-CF ${type}`,
      );
      const created = await app.app.inject({
        method: 'POST',
        url: '/api/v1/documentos',
        headers: { 'x-api-key': key },
        payload: ecfDocuments[type],
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json<{ data: { eNCF: string } }>().data.eNCF, `E${type}0000000001`);
    }
    const listed = await app.app.inject({
      method: 'GET',
      url: '/api/v1/documentos?limit=100',
      headers: { 'x-api-key': key },
    });
    assert.deepEqual(
      listed
        .json<{ data: { eNCF: string }[] }>()
        .data.map((document) => document.eNCF)
        .sort(),
      ['E310000000001', 'E460000000001', 'E470000000001'],
    );
  });
});
