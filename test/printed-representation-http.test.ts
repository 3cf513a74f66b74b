// GET …/impresion as an integrator meets it (SPEC §4.2; issue 30): JSON by default, the PDF for Accept:
// application/pdf on the paper asked for or the company's, a strong ETag of the bytes with 304, 406 for an Accept
// it cannot serve, tenants apart; the same for received e-CF; the company's branding in its own documents' PDFs
// only. The PDF is read back with poppler and zbar, not with our code.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { buildEcf } from '../src/fiscal/build/index.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import type { PrintableDocument } from '../src/modules/printing/index.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { ecfDocuments, issuerRnc, ownedFieldsFor } from './support/ecf-documents.js';
import { tool } from './support/pdf-tools.js';
import { requireTool } from './support/tools.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';
import { testSigningKey } from './support/xmldsig-kit.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function logoPng(): Buffer {
  const png = new PNG({ width: 120, height: 40 });
  for (let i = 0; i < png.data.length; i += 4) png.data.writeUInt32BE(i % 97 < 50 ? 0x1f4e79ff : 0xffffffff, i);
  return PNG.sync.write(png);
}

describe('printed representation over HTTP', () => {
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));
  let app: TestApp;
  let companyId: string;
  let key: string;
  let otherKey: string;
  let receiverRnc: string;
  let receiverKey: string;
  let dir: string;

  async function withCertificate(id: string, rnc: string): Promise<void> {
    const certificate = createSelfSignedP12({
      commonName: 'EMPRESA DE PRUEBA',
      serialNumber: rnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2030-01-01'),
      password: 'clave',
    });
    const installed = await app.sendEvent('certificate.installed', {
      companyId: id,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ecf-ri-http-'));
    app = await startTestApp({ clock, env: { RECEIVER_AUTH_MODE: 'disabled' } });
    companyId = await app.provisionCompany({ rnc: issuerRnc });
    await withCertificate(companyId, issuerRnc);
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage'])).apiKey;
    otherKey = (await app.issueKey(await app.provisionCompany(), ['documents:read', 'received:read'])).apiKey;
    const registered = await app.app.inject({
      method: 'POST',
      url: '/api/v1/secuencias/rangos',
      headers: { 'x-api-key': key },
      payload: { ecfType: '31', from: 'E310000000001', to: 'E310000001000', expiresOn: '31-12-2027' },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    receiverRnc = nextRnc();
    const receiverId = await app.provisionCompany({ rnc: receiverRnc });
    await withCertificate(receiverId, receiverRnc);
    receiverKey = (await app.issueKey(receiverId, ['received:read'])).apiKey;
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}, apiKey = key) =>
    app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey, ...headers } });
  const pdfHeaders = { accept: 'application/pdf' };

  async function created(): Promise<{ id: string; eNCF: string }> {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v1/documentos',
      headers: { 'x-api-key': key },
      payload: ecfDocuments['31'],
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: { id: string; eNCF: string } }>().data;
  }

  function saved(bytes: Buffer, name: string): string {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    return file;
  }

  it('answers JSON by default and the PDF for Accept: application/pdf, named and tagged by its bytes', async () => {
    const document = await created();
    const url = `/api/v1/documentos/${document.id}/impresion`;

    const json = await get(url);
    assert.equal(json.statusCode, 200, json.body);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    assert.equal(json.headers['vary'], 'Accept');
    const printable = json.json<{ data: PrintableDocument }>().data;
    assert.equal(printable.eNCF, document.eNCF);

    const pdf = await get(url, pdfHeaders);
    assert.equal(pdf.statusCode, 200, pdf.body);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.headers['vary'], 'Accept');
    assert.equal(pdf.headers['content-disposition'], `inline; filename="${issuerRnc}${document.eNCF}-a4.pdf"`);
    assert.equal(pdf.headers['cache-control'], 'private, max-age=0, must-revalidate');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    const etag = `"${sha256(pdf.rawPayload)}"`;
    assert.equal(pdf.headers['etag'], etag);

    // Deterministic: asked again, the same bytes; the client that has them gets a 304 with nothing in it.
    const again = await get(url, pdfHeaders);
    assert.ok(again.rawPayload.equals(pdf.rawPayload));
    const notModified = await get(url, { ...pdfHeaders, 'if-none-match': etag });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.rawPayload.length, 0);
    assert.equal(notModified.headers['etag'], etag);
    const stale = await get(url, { ...pdfHeaders, 'if-none-match': '"something-else"' });
    assert.equal(stale.statusCode, 200);

    // q-values decide; a wildcard gets the default.
    const preferJson = await get(url, { accept: 'application/pdf;q=0.5, application/json' });
    assert.match(String(preferJson.headers['content-type']), /^application\/json/);
    const preferPdf = await get(url, { accept: 'application/json;q=0.2, application/pdf' });
    assert.equal(preferPdf.headers['content-type'], 'application/pdf');
    const anything = await get(url, { accept: '*/*' });
    assert.match(String(anything.headers['content-type']), /^application\/json/);
  });

  it('prints the paper asked for, says 58 mm is best effort, and refuses a paper it does not know', async (t) => {
    const document = await created();
    const url = `/api/v1/documentos/${document.id}/impresion`;
    const roll = await get(`${url}?formato=80mm`, pdfHeaders);
    assert.equal(roll.statusCode, 200, roll.body);
    assert.equal(roll.headers['content-disposition'], `inline; filename="${issuerRnc}${document.eNCF}-80mm.pdf"`);
    assert.equal(roll.headers['x-print-notice'], undefined);
    const a4 = await get(url, pdfHeaders);
    assert.notEqual(roll.headers['etag'], a4.headers['etag']);
    const letter = await get(`${url}?formato=carta`, pdfHeaders);
    assert.equal(letter.statusCode, 200);

    const narrow = await get(`${url}?formato=58mm`, pdfHeaders);
    assert.equal(narrow.statusCode, 200, narrow.body);
    assert.match(String(narrow.headers['x-print-notice']), /^Best effort/);

    assertFieldError(await get(`${url}?formato=a5`, pdfHeaders), 400, 'validation_failed', '/formato');

    if (requireTool(t, 'pdfinfo')) {
      const papers = { a4, carta: letter, '80mm': roll };
      const sizes = await Promise.all(
        Object.entries(papers).map(async ([name, response]) => {
          const info = await tool('pdfinfo', [saved(response.rawPayload, `${name}.pdf`)]);
          return /Page size:\s+([\d.]+ x [\d.]+)/.exec(info)?.[1] ?? info;
        }),
      );
      assert.equal(sizes[0], '595.28 x 841.89');
      assert.equal(sizes[1], '612 x 792');
      assert.match(sizes[2] ?? '', /^226\.77 x /);
    }
  });

  it('documents both media types and the paper in OpenAPI, for documents and received documents', async () => {
    const openapi = (await app.app.inject({ url: '/docs-json' })).json<{
      paths: Record<
        string,
        { get: { parameters: { name: string }[]; responses: Record<string, { content?: object }> } }
      >;
    }>();
    for (const path of ['/api/v1/documentos/{id}/impresion', '/api/v1/recibidos/{id}/impresion']) {
      const operation = openapi.paths[path]?.get;
      assert.ok(operation !== undefined, path);
      assert.deepEqual(Object.keys(operation.responses['200']?.content ?? {}), ['application/json', 'application/pdf']);
      assert.ok(operation.responses['304'] !== undefined, `${path} documents its 304`);
      assert.ok(operation.parameters.some((parameter) => parameter.name === 'formato'));
    }
  });

  it('answers 406 for an Accept it cannot serve, naming what it offers', async () => {
    const document = await created();
    const response = await get(`/api/v1/documentos/${document.id}/impresion`, { accept: 'text/html' });
    const problem = assertProblem(response, 406, 'not_acceptable');
    assert.match(problem.detail, /application\/json, application\/pdf/);
    assert.equal(response.headers['vary'], 'Accept');
  });

  it("keeps tenants apart: another company's document is 404 as JSON and as PDF", async () => {
    const document = await created();
    const url = `/api/v1/documentos/${document.id}/impresion`;
    assertProblem(await get(url, {}, otherKey), 404, 'document_not_found');
    const pdf = await get(url, pdfHeaders, otherKey);
    assertProblem(pdf, 404, 'document_not_found');
    assertProblem(await get('/api/v1/documentos/doc_nonexistent/impresion', pdfHeaders), 404, 'document_not_found');
  });

  it("uses the company's paper, logo and note, set by the control plane, and the QR scans to the JSON's URL", async (t) => {
    const document = await created();
    const url = `/api/v1/documentos/${document.id}/impresion`;
    const before = await get(url, pdfHeaders);
    const updated = await app.sendEvent('company.updated', {
      companyId,
      branding: {
        logoBase64: logoPng().toString('base64'),
        defaultFormat: 'carta',
        footerNote: 'Gracias por su compra',
      },
    });
    assert.equal(updated.statusCode, 200, updated.body);

    const branded = await get(url, pdfHeaders);
    assert.equal(branded.statusCode, 200, branded.body);
    assert.equal(branded.headers['content-disposition'], `inline; filename="${issuerRnc}${document.eNCF}-carta.pdf"`);
    assert.notEqual(branded.headers['etag'], before.headers['etag']);
    if (!requireTool(t, 'pdftotext', 'pdfimages', 'pdftoppm', 'zbarimg')) return;
    const file = saved(branded.rawPayload, 'branded.pdf');
    const [text, images, scanned] = await Promise.all([
      tool('pdftotext', ['-layout', file, '-']),
      tool('pdfimages', ['-list', file]),
      (async () => {
        await tool('pdftoppm', ['-r', '300', '-png', file, join(dir, 'branded')]);
        return tool('zbarimg', ['-q', '--raw', join(dir, 'branded-1.png')]);
      })(),
    ]);
    assert.match(text, /Gracias por su compra/);
    // One image, the logo, 120 x 40 as uploaded.
    const rows = images
      .split('\n')
      .slice(2)
      .filter((row) => row.trim() !== '');
    assert.equal(rows.length, 1, images);
    assert.match(rows[0] ?? '', /^\s*1\s+\d+\s+image\s+120\s+40\s/);
    const printable = (await get(url)).json<{ data: PrintableDocument }>().data;
    assert.equal(scanned.replace(/\n$/, ''), printable.qr.url);
  });

  it("prints a received e-CF from its issuer's signed XML, without the receiving company's branding", async (t) => {
    const document = structuredClone(ecfDocuments['31']) as { Encabezado: { Comprador: Record<string, unknown> } };
    document.Encabezado.Comprador['RNCComprador'] = receiverRnc;
    const built = buildEcf(document, { ...ownedFieldsFor('31'), eNCF: 'E310000077001' });
    assert.ok(built.ok, JSON.stringify(built));
    const sent = await app.app.inject({
      method: 'POST',
      url: `/testecf/${receiverRnc}/fe/recepcion/api/ecf`,
      payload: signCanonicalDocument(built.xml, testSigningKey()),
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const list = await get('/api/v1/recibidos', {}, receiverKey);
    const id = list
      .json<{ data: { id: string; eNCF: string }[] }>()
      .data.find((row) => row.eNCF === 'E310000077001')?.id;
    assert.ok(id !== undefined, list.body);
    const url = `/api/v1/recibidos/${id}/impresion`;

    const json = await get(url, {}, receiverKey);
    assert.equal(json.statusCode, 200, json.body);
    const printable = json.json<{ data: PrintableDocument }>().data;
    assert.equal(printable.eNCF, 'E310000077001');
    assert.equal(printable.issuer.rnc, issuerRnc);
    assert.equal(printable.buyer?.rnc, receiverRnc);
    assert.deepEqual(printable.notices, []);

    const pdf = await get(url, pdfHeaders, receiverKey);
    assert.equal(pdf.statusCode, 200, pdf.body);
    assert.equal(pdf.headers['content-disposition'], `inline; filename="${issuerRnc}E310000077001-a4.pdf"`);
    assertProblem(await get(url, pdfHeaders, otherKey), 404, 'document_not_found');
    if (!requireTool(t, 'pdftotext', 'pdfimages')) return;
    const file = saved(pdf.rawPayload, 'received.pdf');
    const text = await tool('pdftotext', ['-layout', file, '-']);
    assert.match(text, /e-NCF: E310000077001/);
    assert.match(text, new RegExp(`RNC Cliente: ${receiverRnc}`));
    assert.equal(
      (await tool('pdfimages', ['-list', file]))
        .split('\n')
        .slice(2)
        .filter((row) => row.trim()).length,
      0,
    );
  });
});
