// The derived views of a document (SPEC §2.2, §4.2): normalizado rebuilds the model from the archived signed XML and
// notices when the stored bytes were tampered with; impresion gives the printed-representation data and DGII's
// legends from the signed XML (types 31 and 32 under DOP 250,000); cronologia lists the events; all three are
// company-scoped.
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { normaliseEcf } from '../src/fiscal/build/index.js';
import { readSignatureValue } from '../src/fiscal/xmldsig/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import type { DocumentTimeline, NormalizedDocument } from '../src/modules/documents/document-views.schema.js';
import type { PrintableDocument } from '../src/modules/printing/index.js';
import { assertProblem } from './support/assert-problem.js';
import { buyerRnc, ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Created {
  id: string;
  eNCF: string;
  securityCode: string;
  fechaHoraFirma: string;
  timbreUrl: string;
}

describe('document views (normalizado, impresion, cronologia)', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let companyId: string;
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));
  const signedAt = '21-11-2026 10:30:00';

  before(async () => {
    app = await startTestApp({ clock });
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
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage'])).apiKey;
    otherKey = (await app.issueKey(await app.provisionCompany(), ['documents:create', 'documents:read'])).apiKey;
    for (const type of ['31', '32', '34']) {
      const registered = await app.app.inject({
        method: 'POST',
        url: '/api/v1/secuencias/rangos',
        headers: { 'x-api-key': key },
        payload: {
          ecfType: type,
          from: `E${type}0000000001`,
          to: `E${type}0000001000`,
          ...(type === '32' || type === '34' ? {} : { expiresOn: '31-12-2027' }),
        },
      });
      assert.equal(registered.statusCode, 201, registered.body);
    }
  });
  after(() => app.close());

  const get = (url: string, apiKey = key) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  async function create(type: '31' | '32' | '34', correlationId?: string): Promise<Created> {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': key, ...(correlationId === undefined ? {} : { 'x-correlation-id': correlationId }) },
      payload: ecfDocuments[type],
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: Created }>().data;
  }
  /** Where the filesystem blob store keeps the signed XML of a document: its recorded key, under the store's root. */
  async function signedXmlPath(id: string): Promise<string> {
    const storage = app.config.storage;
    if (storage.kind !== 'fs') throw new Error('the test app should use filesystem storage');
    const artefact = await app.application.database.db
      .selectFrom('document_artefacts')
      .select('blob_key')
      .where('document_id', '=', id)
      .where('kind', '=', 'signed-xml')
      .executeTakeFirstOrThrow();
    // The test clock's instant is 10:30 on 21-11-2026 in Santo Domingo: the day directory of the document.
    assert.equal(artefact.blob_key, `documents/${companyId}/2026-11-21/${id}.signed-xml.v1.xml`);
    return join(storage.root, ...artefact.blob_key.split('/'));
  }

  it('normalizado rebuilds exactly the document that was built, with its integrity intact', async () => {
    const created = await create('31');
    const response = await get(`/api/v1/documentos/${created.id}/normalizado`);
    assert.equal(response.statusCode, 200, response.body);
    const view = response.json<{ data: NormalizedDocument }>().data;
    const expected = normaliseEcf(ecfDocuments['31'], {
      eNCF: created.eNCF,
      fechaVencimientoSecuencia: '31-12-2027',
      fechaHoraFirma: signedAt,
    });
    assert.ok(expected.ok);
    // Values as written: 1430 sent as a number reads back as the text the XML carries.
    assert.deepEqual(view.document, expected.document);
    assert.equal(
      (view.document as { Encabezado: { Totales: { MontoTotal: string } } }).Encabezado.Totales.MontoTotal,
      '1430.00',
    );
    assert.deepEqual(view.artefact, { type: 'signed-xml', version: 1 });
    assert.deepEqual(view.readFindings, []);
    assert.equal(view.integrity.sha256, view.integrity.recordedSha256);
    assert.deepEqual(
      {
        sha256Matches: view.integrity.sha256Matches,
        signatureValid: view.integrity.signatureValid,
        recordMatches: view.integrity.recordMatches,
        signatureProblems: view.integrity.signatureProblems,
      },
      { sha256Matches: true, signatureValid: true, recordMatches: true, signatureProblems: [] },
    );
    // The English alias answers the same.
    const alias = await get(`/api/v1/documents/${created.id}/normalized`);
    assert.deepEqual(alias.json<{ data: NormalizedDocument }>().data, view);
  });

  it('normalizado detects an archived signed XML tampered with in the blob store; impresion then refuses to print it', async () => {
    const created = await create('31');
    const path = await signedXmlPath(created.id);
    const original = readFileSync(path, 'utf8');
    assert.match(original, /<MontoTotal>1430\.00<\/MontoTotal>/);
    // Archived blobs are read-only files; an attacker with host access changes that first.
    chmodSync(path, 0o644);
    writeFileSync(path, original.replace('<MontoTotal>1430.00</MontoTotal>', '<MontoTotal>14.30</MontoTotal>'));

    const view = (await get(`/api/v1/documentos/${created.id}/normalizado`)).json<{ data: NormalizedDocument }>().data;
    assert.equal(view.integrity.sha256Matches, false);
    assert.notEqual(view.integrity.sha256, view.integrity.recordedSha256);
    assert.equal(view.integrity.signatureValid, false);
    assert.deepEqual(
      view.integrity.signatureProblems.map((problem) => problem.code),
      ['digest_mismatch'],
    );
    assert.equal(view.integrity.recordMatches, false);
    assert.deepEqual(view.integrity.recordMismatches, ['MontoTotal']);
    // The model shows what the bytes say now, so the tampering is visible.
    assert.equal(
      (view.document as { Encabezado: { Totales: { MontoTotal: string } } }).Encabezado.Totales.MontoTotal,
      '14.30',
    );

    const printable = assertProblem(
      await get(`/api/v1/documentos/${created.id}/impresion`),
      500,
      'document_integrity_failed',
    );
    assert.match(printable.detail, /SHA-256/);

    // Bytes that are no longer an e-CF at all: no model, the reason, and every check false.
    writeFileSync(path, 'not xml');
    const garbage = (await get(`/api/v1/documentos/${created.id}/normalizado`)).json<{ data: NormalizedDocument }>()
      .data;
    assert.equal(garbage.document, null);
    assert.ok(garbage.readFindings.length > 0);
    assert.deepEqual(
      [garbage.integrity.sha256Matches, garbage.integrity.signatureValid, garbage.integrity.recordMatches],
      [false, false, false],
    );
  });

  it('impresion of a 31: issuer, buyer, lines, totals, security code, signature date, QR URL and DGII legends, from the signed XML', async () => {
    const created = await create('31');
    const signed = (await get(`/api/v1/documentos/${created.id}/artefactos/signed-xml`)).body;
    const response = await get(`/api/v1/documentos/${created.id}/impresion`);
    assert.equal(response.statusCode, 200, response.body);
    const data = response.json<{ data: PrintableDocument }>().data;
    assert.equal(data.securityCode, readSignatureValue(signed)?.slice(0, 6));
    assert.equal(data.securityCode, created.securityCode);
    assert.deepEqual(
      {
        status: data.status,
        ecfType: data.ecfType,
        typeName: data.typeName,
        eNCF: data.eNCF,
        sequenceExpiry: data.sequenceExpiry,
        issueDate: data.issueDate,
        signatureDate: data.signatureDate,
      },
      {
        status: 'signed',
        ecfType: '31',
        typeName: 'Factura de Crédito Fiscal Electrónica',
        eNCF: created.eNCF,
        sequenceExpiry: '31-12-2027',
        issueDate: '15-11-2026',
        signatureDate: signedAt,
      },
    );
    assert.deepEqual(data.issuer, {
      rnc: issuerRnc,
      legalName: 'Ferretería Ñoño & Asociados, S.R.L.',
      tradeName: 'Ferretería "El Martillo"',
      branch: null,
      address: 'Av. 27 de Febrero #123, Ensanche Piantini',
      municipality: { code: '010101', name: 'SANTO DOMINGO DE GUZMÁN (D. M.).' },
      province: { code: '010000', name: 'DISTRITO NACIONAL' },
    });
    assert.deepEqual(data.buyer, {
      rnc: buyerRnc,
      foreignId: null,
      legalName: 'Distribuidora Peña <Prueba> & Hijos',
      address: 'Calle El Sol #45, Santiago',
    });
    assert.equal(data.reference, null);
    assert.deepEqual(
      data.lines.map((line) => [
        line.lineNumber,
        line.mark,
        line.name,
        line.quantity,
        line.unit?.name ?? null,
        line.unitPrice,
        line.amount,
      ]),
      [
        // The numbers 2 and 500 the client sent, as the XML writes them.
        ['1', null, 'Martillo de carpintero 16 oz', '2.00', 'Unidad', '500.0000', '1000.00'],
        ['2', 'E', 'Libro técnico (exento)', '1', null, '250.00', '250.00'],
      ],
    );
    assert.deepEqual(data.totals, {
      MontoGravadoTotal: '1000.00',
      MontoGravadoI1: '1000.00',
      MontoExento: '250.00',
      ITBIS1: '18',
      TotalITBIS: '180.00',
      TotalITBIS1: '180.00',
      MontoTotal: '1430.00',
    });
    // The QR URL is rebuilt from the signed XML, and agrees with the one recorded at creation.
    assert.equal(data.qr.url, created.timbreUrl);
    assert.equal(data.qr.consumerSummary, false);
    assert.match(data.qr.url, /^https:\/\/ecf\.dgii\.gov\.do\/[a-z]+\/ConsultaTimbre\?RncEmisor=/);
    assert.match(data.qr.url, /&FechaFirma=21-11-2026%2010:30:00&/);
    const legends = Object.fromEntries(data.legends.map((legend) => [legend.code, legend.text]));
    assert.deepEqual(legends, {
      type_name: 'Factura de Crédito Fiscal Electrónica',
      encf: `e-NCF: ${created.eNCF}`,
      sequence_expiry: 'Fecha Vencimiento: 31-12-2027',
      security_code: `Código de Seguridad: ${created.securityCode}`,
      signature_date: `Fecha de Firma Digital: ${signedAt}`,
    });
    // Signed but not yet accepted by DGII: the integrator is told the paper cannot support a fiscal credit yet.
    assert.deepEqual(
      data.notices.map((notice) => notice.code),
      ['not_accepted_yet'],
    );
    const alias = await get(`/api/v1/documents/${created.id}/printable`);
    assert.deepEqual(alias.json<{ data: PrintableDocument }>().data, data);
  });

  it('impresion of a 32 under DOP 250,000: no sequence expiry, the FC QR with four parameters, no buyer RNC', async () => {
    const created = await create('32');
    const data = (await get(`/api/v1/documentos/${created.id}/impresion`)).json<{ data: PrintableDocument }>().data;
    assert.deepEqual(
      { typeName: data.typeName, sequenceExpiry: data.sequenceExpiry, buyer: data.buyer },
      {
        typeName: 'Factura de Consumo Electrónica',
        sequenceExpiry: null,
        buyer: { rnc: null, foreignId: null, legalName: 'Consumidor final', address: null },
      },
    );
    assert.equal(data.qr.consumerSummary, true);
    assert.equal(data.qr.url, created.timbreUrl);
    const query = new URL(data.qr.url);
    assert.equal(query.host, 'fc.dgii.gov.do');
    assert.match(query.pathname, /\/ConsultaTimbreFC$/);
    assert.deepEqual([...query.searchParams.keys()], ['RncEmisor', 'ENCF', 'MontoTotal', 'CodigoSeguridad']);
    assert.deepEqual(
      [query.searchParams.get('ENCF'), query.searchParams.get('MontoTotal'), query.searchParams.get('CodigoSeguridad')],
      [created.eNCF, '1430.00', created.securityCode],
    );
    const codes = data.legends.map((legend) => legend.code);
    assert.deepEqual(codes, ['type_name', 'encf', 'security_code', 'signature_date']);
    assert.ok(data.legends.some((legend) => legend.text === `Código de Seguridad: ${created.securityCode}`));
    assert.ok(data.legends.some((legend) => legend.text === `Fecha de Firma Digital: ${signedAt}`));
  });

  it('impresion of a credit note names the modified e-NCF and the modification code in words', async () => {
    const created = await create('34');
    const data = (await get(`/api/v1/documentos/${created.id}/impresion`)).json<{ data: PrintableDocument }>().data;
    assert.equal(data.typeName, 'Nota de Crédito Electrónica');
    assert.equal(data.sequenceExpiry, null);
    assert.ok(data.reference !== null);
    assert.deepEqual(data.reference.modificationCode, { code: '3', name: 'Corrige montos del NCF modificado' });
    const legends = Object.fromEntries(data.legends.map((legend) => [legend.code, legend.text]));
    assert.equal(legends['modified_encf'], `e-NCF Modificado: ${data.reference.modifiedNcf}`);
    assert.equal(legends['modification_code'], 'Código de Modificación: Corrige montos del NCF modificado');
  });

  it('cronologia lists the creation event with its time, state, cause and the correlation id of its request', async () => {
    const created = await create('31', 'create-views-1');
    const response = await get(`/api/v1/documentos/${created.id}/cronologia`);
    assert.equal(response.statusCode, 200, response.body);
    const timeline = response.json<{ data: DocumentTimeline }>().data;
    assert.deepEqual(timeline, {
      id: created.id,
      eNCF: created.eNCF,
      status: 'signed',
      events: [
        {
          at: '2026-11-21T14:30:00.000Z',
          type: 'created',
          status: 'signed',
          cause: `created from JSON; e-NCF ${created.eNCF} taken, signed`,
          correlationId: 'create-views-1',
        },
      ],
    });
    const alias = await get(`/api/v1/documents/${created.id}/timeline`);
    assert.deepEqual(alias.json<{ data: DocumentTimeline }>().data, timeline);
  });

  it("keeps companies apart: another company's key gets 404 on all three views, as for an unknown id", async () => {
    const created = await create('31');
    for (const view of ['normalizado', 'impresion', 'cronologia']) {
      assertProblem(await get(`/api/v1/documentos/${created.id}/${view}`, otherKey), 404, 'document_not_found');
      assertProblem(await get(`/api/v1/documentos/doc_does_not_exist/${view}`), 404, 'document_not_found');
    }
    for (const view of ['normalized', 'printable', 'timeline']) {
      assertProblem(await get(`/api/v1/documents/${created.id}/${view}`, otherKey), 404, 'document_not_found');
    }
  });

  it('needs the documents:read scope', async () => {
    const created = await create('31');
    const writeOnly = (await app.issueKey(companyId, ['documents:create'])).apiKey;
    for (const view of ['normalizado', 'impresion', 'cronologia'])
      assertProblem(await get(`/api/v1/documentos/${created.id}/${view}`, writeOnly), 403, 'scope_missing');
  });
});
