// Documents from JSON (SPEC §4.2, DESIGN §5.1): an integrator creates an e-CF of every type through the API and
// downloads the signed XML, which is valid against DGII's official XSD (xmllint) and verifies under xmlsec1; numbers
// are taken in order and only by documents that pass; reads are strictly company-scoped.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ecfTypes } from '../src/fiscal/model/ecf-model-types.js';
import { readSignatureValue } from '../src/fiscal/xmldsig/index.js';
import { claimLeaseMs } from '../src/modules/documents/idempotency.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { requireTool } from './support/tools.js';
import { verifyWithXmlsec1 } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';

interface DocumentBody {
  id: string;
  status: string;
  ecfType: string;
  eNCF: string;
  montoTotal: string;
  securityCode: string;
  fechaHoraFirma: string;
  timbreUrl: string;
  warnings: unknown[];
  artefacts: { type: string; version: number; sha256: string }[];
}

describe('documents from JSON (/api/v1/documentos)', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let certificatePem: string;
  let companyId: string;
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));

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
    certificatePem = certificate.certificatePem;
    const installed = await app.sendEvent('certificate.installed', {
      companyId,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage', 'sequences:read']))
      .apiKey;
    otherKey = (await app.issueKey(await app.provisionCompany(), ['documents:create', 'documents:read'])).apiKey;
    for (const type of ecfTypes) {
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

  const create = (body: unknown, apiKey = key) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': apiKey },
      payload: body as object,
    });
  const get = (url: string, apiKey = key) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  const signedXmlOf = async (id: string) => {
    const response = await get(`/api/v1/documentos/${id}/artefactos/signed-xml`);
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/xml/);
    const bytes = response.rawPayload;
    assert.equal(response.headers['x-content-sha256'], createHash('sha256').update(bytes).digest('hex'));
    return bytes.toString('utf8');
  };

  for (const type of ecfTypes) {
    it(`creates an e-CF ${type}: signed, numbered in order, valid against the official XSD, verified by xmlsec1`, async (t) => {
      const response = await create(ecfDocuments[type]);
      assert.equal(response.statusCode, 201, response.body);
      const document = response.json<{ data: DocumentBody }>().data;
      assert.deepEqual(
        { status: document.status, ecfType: document.ecfType, eNCF: document.eNCF },
        { status: 'signed', ecfType: type, eNCF: `E${type}0000000001` },
      );
      assert.equal(document.fechaHoraFirma, '21-11-2026 10:30:00');
      assert.deepEqual(document.artefacts.map((artefact) => artefact.type).sort(), [
        'signed-xml',
        'source-json',
        'source-xml',
      ]);
      const signed = await signedXmlOf(document.id);
      assert.equal(document.securityCode, readSignatureValue(signed)?.slice(0, 6));
      assert.match(signed, new RegExp(`<eNCF>${document.eNCF}</eNCF>`));
      if (requireTool(t, 'xmllint')) {
        const schema = validateWithOfficialXsd(`e-CF-${type}.xsd`, signed);
        assert.ok(schema.valid, schema.errors);
      }
      if (requireTool(t, 'xmlsec1')) {
        const verdict = verifyWithXmlsec1(signed, certificatePem);
        assert.ok(verdict.ok, verdict.output);
      }
      assert.match(document.timbreUrl, new RegExp(`ENCF=${document.eNCF}`));
      const read = await get(`/api/v1/documentos/${document.id}`);
      assert.deepEqual(read.json<{ data: DocumentBody }>().data, document);
    });
  }

  it('computes Totales from the lines when the client leaves them out, and fills the Emisor from the company', async () => {
    const sent = structuredClone(ecfDocuments['31']) as { Encabezado: Record<string, unknown> };
    // The fixture's own Totales say MontoTotal 1430 (a JSON number); computed from its lines, it is written 1430.00.
    assert.equal((sent.Encabezado['Totales'] as { MontoTotal: unknown }).MontoTotal, 1430);
    const expectedTotal = '1430.00';
    delete sent.Encabezado['Totales'];
    (sent.Encabezado['Emisor'] as Record<string, unknown>)['RazonSocialEmisor'] = undefined;
    const response = await create(sent);
    assert.equal(response.statusCode, 201, response.body);
    const document = response.json<{ data: DocumentBody }>().data;
    assert.equal(document.montoTotal, expectedTotal);
    const signed = await signedXmlOf(document.id);
    assert.match(signed, new RegExp(`<MontoTotal>${expectedTotal.replace('.', '\\.')}</MontoTotal>`));
    assert.match(signed, /<RazonSocialEmisor>Empresa de Prueba SRL<\/RazonSocialEmisor>/);
  });

  it('refuses an invalid e-CF with pointers, and consumes no number for it', async () => {
    const invalid = structuredClone(ecfDocuments['41']) as { Encabezado: { IdDoc: Record<string, unknown> } };
    invalid.Encabezado.IdDoc['TipoPago'] = 9;
    assertFieldError(await create(invalid), 422, 'document_invalid', '/Encabezado/IdDoc/TipoPago');
    assertFieldError(
      await create({
        ...ecfDocuments['41'],
        Encabezado: { ...(ecfDocuments['41']['Encabezado'] as object), Emisor: { RNCEmisor: '131880738' } },
      }),
      422,
      'document_invalid',
      '/Encabezado/Emisor/RNCEmisor',
    );
    const next = await create(ecfDocuments['41']);
    assert.equal(next.json<{ data: DocumentBody }>().data.eNCF, 'E410000000002');
  });

  it("refuses another company's RNCEmisor, and answers a clear code when no certificate is installed", async () => {
    const bare = await app.provisionCompany();
    const bareKey = (await app.issueKey(bare, ['documents:create'])).apiKey;
    assertProblem(await create(ecfDocuments['31'], bareKey), 422, 'document_invalid');
    const withoutRange = structuredClone(ecfDocuments['31']) as { Encabezado: { Emisor: Record<string, unknown> } };
    delete withoutRange.Encabezado.Emisor['RNCEmisor'];
    assertProblem(await create(withoutRange, bareKey), 409, 'certificate_missing');
  });

  it('lists newest first, pages with a cursor, filters, and keeps companies apart', async () => {
    const first = await get('/api/v1/documentos?limit=2');
    assert.equal(first.statusCode, 200);
    const page = first.json<{ data: DocumentBody[]; meta: { nextCursor: string | null } }>();
    assert.equal(page.data.length, 2);
    assert.ok(page.meta.nextCursor !== null);
    const second = await get(`/api/v1/documentos?limit=2&cursor=${page.meta.nextCursor}`);
    const secondIds = second.json<{ data: DocumentBody[] }>().data.map((document) => document.id);
    assert.equal(secondIds.length, 2);
    assert.ok(!secondIds.some((id) => page.data.some((document) => document.id === id)));
    const only46 = await get('/api/v1/documentos?ecfType=46');
    assert.deepEqual(
      only46.json<{ data: DocumentBody[] }>().data.map((document) => document.eNCF),
      ['E460000000001'],
    );
    assertProblem(await get('/api/v1/documentos?cursor=garbage'), 400, 'validation_failed');

    const mine = page.data[0];
    assert.ok(mine !== undefined);
    assertProblem(await get(`/api/v1/documentos/${mine.id}`, otherKey), 404, 'document_not_found');
    assertProblem(
      await get(`/api/v1/documentos/${mine.id}/artefactos/signed-xml`, otherKey),
      404,
      'document_not_found',
    );
    assert.deepEqual((await get('/api/v1/documentos', otherKey)).json<{ data: unknown[] }>().data, []);
    assertProblem(
      await get(`/api/v1/documentos/${mine.id}/artefactos/signed-xml?version=2`),
      404,
      'artefact_not_found',
    );
  });

  it('burns the number, with its cause, when the work after taking it fails — and the next document gets the next one', async () => {
    const storage = app.config.storage;
    assert.equal(storage.kind, 'fs');
    // A file where the company's archive folder must be: every archive write fails (even for root).
    const companyFolder = join(storage.root, 'documents', companyId);
    const moved = `${companyFolder}.moved`;
    renameSync(companyFolder, moved);
    writeFileSync(companyFolder, 'not a folder');
    try {
      const failed = await create(ecfDocuments['43']);
      assert.equal(failed.statusCode, 500);
    } finally {
      rmSync(companyFolder);
      renameSync(moved, companyFolder);
    }
    const ranges = (await get('/api/v1/secuencias/rangos?ecfType=43')).json<{
      data: { availability: { burned: number; used: number } }[];
    }>().data;
    assert.deepEqual(ranges[0]?.availability.burned, 1);
    const burned = await app.application.database.db
      .selectFrom('sequence_burned')
      .select(['encf', 'cause'])
      .where('company_id', '=', companyId)
      .execute();
    const [entry, ...others] = burned;
    assert.ok(entry !== undefined && others.length === 0, JSON.stringify(burned));
    assert.equal(entry.encf, 'E430000000002');
    assert.match(entry.cause, /^creating document doc_\w+ failed: /);
    const next = await create(ecfDocuments['43']);
    assert.equal(next.json<{ data: DocumentBody }>().data.eNCF, 'E430000000003');
  });

  it('keeps the source JSON exactly as sent', async () => {
    const response = await create(ecfDocuments['45']);
    const document = response.json<{ data: DocumentBody }>().data;
    const source = await get(`/api/v1/documentos/${document.id}/artefactos/source-json`);
    assert.equal(source.statusCode, 200);
    assert.deepEqual(JSON.parse(source.body), ecfDocuments['45']);
  });
});

describe('Idempotency-Key on document creation', () => {
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestApp({ clock: fixedClock(new Date('2026-11-21T14:30:00Z')) });
    const companyId = await app.provisionCompany({ rnc: issuerRnc });
    const certificate = createSelfSignedP12({
      commonName: 'EMISOR DE PRUEBA',
      serialNumber: issuerRnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2030-01-01'),
      password: 'clave',
    });
    assert.equal(
      (
        await app.sendEvent('certificate.installed', {
          companyId,
          p12Base64: certificate.p12.toString('base64'),
          password: 'clave',
        })
      ).statusCode,
      200,
    );
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage'])).apiKey;
    const range = await app.app.inject({
      method: 'POST',
      url: '/api/v1/secuencias/rangos',
      headers: { 'x-api-key': key },
      payload: { ecfType: '31', from: 'E310000000001', to: 'E310000001000', expiresOn: '31-12-2027' },
    });
    assert.equal(range.statusCode, 201);
  });
  after(() => app.close());

  const create = (body: unknown, idempotencyKey?: string) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': key, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      payload: body as object,
    });

  it('replays the first response for the same key and body, without taking another number', async () => {
    const first = await create(ecfDocuments['31'], 'pedido-1001');
    assert.equal(first.statusCode, 201, first.body);
    const again = await create(ecfDocuments['31'], 'pedido-1001');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.body, first.body);
    const next = await create(ecfDocuments['31'], 'pedido-1002');
    assert.equal(next.json<{ data: DocumentBody }>().data.eNCF, 'E310000000002');
  });

  it('refuses the same key with another body (422), and replays a refusal as it was', async () => {
    const changed = structuredClone(ecfDocuments['31']) as { Encabezado: { IdDoc: Record<string, unknown> } };
    changed.Encabezado.IdDoc['TipoPago'] = 2;
    assertProblem(await create(changed, 'pedido-1001'), 422, 'idempotency_key_reused');
    const invalid = structuredClone(ecfDocuments['31']) as { Encabezado: { IdDoc: Record<string, unknown> } };
    invalid.Encabezado.IdDoc['TipoPago'] = 9;
    const refused = await create(invalid, 'pedido-roto');
    assertFieldError(refused, 422, 'document_invalid', '/Encabezado/IdDoc/TipoPago');
    const replayed = await create(invalid, 'pedido-roto');
    assert.equal(replayed.statusCode, 422);
    assert.equal(replayed.headers['idempotency-replayed'], 'true');
    assert.match(String(replayed.headers['content-type']), /^application\/problem\+json/);
    assert.equal(replayed.json<{ code: string }>().code, 'document_invalid');
  });

  it('tells a request arriving while the first is in flight to wait (409), and only one document is made', async () => {
    const racing = await Promise.all([1, 2, 3].map(() => create(ecfDocuments['31'], 'pedido-carrera')));
    const statuses = racing.map((response) => response.statusCode).sort();
    assert.ok(statuses.filter((status) => status === 201).length >= 1, statuses.join());
    assert.ok(
      statuses.every((status) => status === 201 || status === 409),
      statuses.join(),
    );
    for (const response of racing.filter((candidate) => candidate.statusCode === 409))
      assert.equal(response.json<{ code: string }>().code, 'idempotency_in_flight');
    const created = new Set(
      racing
        .filter((response) => response.statusCode === 201)
        .map((response) => response.json<{ data: DocumentBody }>().data.eNCF),
    );
    assert.equal(created.size, 1);
  });

  // The database can go away between any two statements of a creation (issue 43): these set up the states such a
  // cut leaves, and the retry with the same key must find its way out of each.
  const keyRow = (idempotencyKey: string) =>
    app.application.database.db.updateTable('idempotency_keys').where('key', '=', idempotencyKey);
  const now = new Date('2026-11-21T14:30:00Z');

  it('answers with the stored document when its first answer was lost, and makes no second', async () => {
    const first = await create(ecfDocuments['31'], 'pedido-perdido');
    assert.equal(first.statusCode, 201, first.body);
    // The document's statement committed, the stored answer did not: the claim is still in flight, its holder alive.
    await keyRow('pedido-perdido')
      .set({ state: 'in_flight', response_status: null, response_body: null, claimed_by: 'otro', claimed_at: now })
      .execute();
    const again = await create(ecfDocuments['31'], 'pedido-perdido');
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    const [was, is] = [first, again].map((response) => response.json<{ data: DocumentBody }>().data);
    assert.deepEqual([is?.id, is?.eNCF], [was?.id, was?.eNCF]);
    // Kept as the key's answer from then on.
    const third = await create(ecfDocuments['31'], 'pedido-perdido');
    assert.equal(third.body, again.body);
  });

  it('waits out a claim another process holds, and takes it over once its lease ran out', async () => {
    const first = await create(ecfDocuments['31'], 'pedido-cortado');
    assert.equal(first.statusCode, 201, first.body);
    // As if the creation never committed: no document under the key, the claim left in flight by another process.
    await app.application.database.db.deleteFrom('idempotent_creations').where('key', '=', 'pedido-cortado').execute();
    await keyRow('pedido-cortado')
      .set({ state: 'in_flight', response_status: null, response_body: null, claimed_by: 'otro', claimed_at: now })
      .execute();
    assertProblem(await create(ecfDocuments['31'], 'pedido-cortado'), 409, 'idempotency_in_flight');
    await keyRow('pedido-cortado')
      .set({ claimed_at: new Date(now.getTime() - claimLeaseMs) })
      .execute();
    const taken = await create(ecfDocuments['31'], 'pedido-cortado');
    assert.equal(taken.statusCode, 201, taken.body);
    assert.equal(taken.headers['idempotency-replayed'], undefined);
    const [was, is] = [first, taken].map((response) => response.json<{ data: DocumentBody }>().data);
    assert.notEqual(is?.eNCF, was?.eNCF);
  });

  it('lets a second creation under a stored key lose at the key: its number burned, the first the answer', async () => {
    const first = await create(ecfDocuments['31'], 'pedido-doble');
    assert.equal(first.statusCode, 201, first.body);
    const was = first.json<{ data: DocumentBody }>().data;
    // The claim gone (a takeover raced it), the document's record of its key still there.
    const db = app.application.database.db;
    await db.deleteFrom('idempotency_keys').where('key', '=', 'pedido-doble').execute();
    const burnedBefore = await db.selectFrom('sequence_burned').select('encf').execute();
    const again = await create(ecfDocuments['31'], 'pedido-doble');
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.equal(again.json<{ data: DocumentBody }>().data.id, was.id);
    const burned = (await db.selectFrom('sequence_burned').select(['encf', 'cause']).execute()).filter(
      (row) => !burnedBefore.some((before) => before.encf === row.encf),
    );
    assert.equal(burned.length, 1, JSON.stringify(burned));
    assert.match(burned[0]?.cause ?? '', /^creating document doc_\w+ failed: .*idempotent_creations_pkey/);
    const documents = await db
      .selectFrom('idempotent_creations')
      .select('document_id')
      .where('key', '=', 'pedido-doble')
      .execute();
    assert.deepEqual(documents, [{ document_id: was.id }]);
  });

  it('refuses a key that is not printable ASCII', async () => {
    assertProblem(await create(ecfDocuments['31'], 'clave con espacios'), 400, 'validation_failed');
  });
});
