// Signed XML handed in (SPEC §3, §4.2): an e-CF signed elsewhere is checked (signature, DGII's schema, issuer), its
// e-NCF claimed (authorised, unused, in order or in a reserved block), and its bytes archived exactly as received.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildEcf } from '../src/fiscal/build/index.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { testSigningKey } from './support/xmldsig-kit.js';

/** An e-CF 31 of the fixtures with e-NCF `sequence`, signed outside the service. */
function signed31(sequence: number, edit: (xml: string) => string = (xml) => xml): string {
  const built = buildEcf(ecfDocuments['31'], {
    eNCF: `E31${String(sequence).padStart(10, '0')}`,
    fechaVencimientoSecuencia: '31-12-2027',
    fechaHoraFirma: '20-11-2026 09:00:00',
  });
  assert.ok(built.ok);
  return signCanonicalDocument(edit(built.xml), testSigningKey());
}

describe('signed XML handed in (/api/v1/documentos/xml-firmado)', () => {
  let app: TestApp;
  let key: string;

  before(async () => {
    app = await startTestApp({
      clock: fixedClock(new Date('2026-11-21T14:30:00Z')),
      env: { ECF_XSD_DIR: officialXsdDir },
    });
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
      payload: { ecfType: '31', from: 'E310000000001', to: 'E310000000100', expiresOn: '31-12-2027' },
    });
    assert.equal(range.statusCode, 201);
  });
  after(() => app.close());

  const submitXml = (xml: string | Buffer, contentType = 'application/xml') =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos/xml-firmado',
      headers: { 'x-api-key': key, 'content-type': contentType },
      payload: xml,
    });
  const submitJson = (body: unknown) =>
    app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos/xml-firmado',
      headers: { 'x-api-key': key },
      payload: body as object,
    });

  it('takes the next number as raw XML and archives the exact bytes', async () => {
    const xml = signed31(1);
    const response = await submitXml(xml);
    assert.equal(response.statusCode, 201, response.body);
    const document = response.json<{ data: { id: string; eNCF: string; status: string; securityCode: string } }>().data;
    assert.deepEqual({ eNCF: document.eNCF, status: document.status }, { eNCF: 'E310000000001', status: 'signed' });
    const archived = await app.app.inject({
      method: 'GET',
      url: `/api/v1/documentos/${document.id}/artefactos/signed-xml`,
      headers: { 'x-api-key': key },
    });
    assert.equal(archived.rawPayload.toString('utf8'), xml);
    assert.equal(archived.headers['x-content-sha256'], createHash('sha256').update(xml).digest('hex'));
  });

  it('takes JSON {xml} too, and the service then numbers its own documents after the claimed ones', async () => {
    assert.equal((await submitJson({ xml: signed31(2) })).statusCode, 201);
    const created = await app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': key },
      payload: ecfDocuments['31'] as object,
    });
    assert.equal(created.json<{ data: { eNCF: string } }>().data.eNCF, 'E310000000003');
  });

  it('refuses a used number, a number ahead of the next one, and one outside every range', async () => {
    assertProblem(await submitXml(signed31(1)), 409, 'encf_already_used');
    assertProblem(await submitXml(signed31(3)), 409, 'encf_already_used');
    const ahead = assertProblem(await submitXml(signed31(10)), 409, 'encf_not_next');
    assert.match(ahead.detail, /E310000000004/);
    assertProblem(await submitXml(signed31(500)), 422, 'encf_not_authorised');
  });

  it("refuses a broken signature, a document outside DGII's schema, and another company's e-CF", async () => {
    assertProblem(await submitXml(signed31(4).replace('<MontoTotal>', '<MontoTotal>1')), 422, 'signed_xml_invalid');
    const outsideSchema = signed31(4, (xml) => xml.replace(/<TipoIngresos>\d+<\/TipoIngresos>/, ''));
    assertProblem(await submitXml(outsideSchema), 422, 'signed_xml_invalid');
    const foreign = signed31(4, (xml) =>
      xml.replace(`<RNCEmisor>${issuerRnc}</RNCEmisor>`, '<RNCEmisor>131880738</RNCEmisor>'),
    );
    assertFieldError(await submitXml(foreign), 422, 'document_invalid', '/ECF/Encabezado/Emisor/RNCEmisor');
    assert.equal((await submitXml(signed31(4))).statusCode, 201, 'number 4 was not used by the refusals');
  });

  it('refuses hostile and malformed bodies clearly', async () => {
    assertProblem(await submitXml('<!DOCTYPE x [<!ENTITY a "b">]><ECF>&a;</ECF>'), 422, 'signed_xml_invalid');
    assertProblem(await submitJson({ xml: '' }), 400, 'validation_failed');
    assertProblem(await submitJson({ documento: signed31(5) }), 400, 'validation_failed');
    assertProblem(await submitXml(signed31(5), 'text/plain'), 415, 'unsupported_media_type');
    assertProblem(
      await app.app.inject({
        method: 'POST',
        url: '/api/v1/documentos',
        headers: { 'x-api-key': key, 'content-type': 'application/xml' },
        payload: signed31(5),
      }),
      415,
      'unsupported_media_type',
    );
  });
});
