// The inbox of received documents (SPEC §4.6): list with filters and cursor, one document, its artefacts with
// X-Content-SHA256; scoped to the key's company (another company's key gets 404 and never sees it in a list).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { buildEcf } from '../src/fiscal/build/index.js';
import type { EcfType } from '../src/fiscal/model/ecf-model-types.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments, issuerRnc, ownedFieldsFor } from './support/ecf-documents.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';
import { testSigningKey } from './support/xmldsig-kit.js';

interface View {
  id: string;
  status: string;
  issuer: { rnc: string; name: string | null };
  eNCF: string;
  ecfType: string | null;
  rncComprador: string | null;
  fechaEmision: string | null;
  montoTotal: string | null;
  totalITBIS: string | null;
  receivedAt: string;
  arecf: { estado: string; codigoMotivoNoRecibido: string | null; motivo: string | null };
  commercialStatus: string | null;
  artefacts: { type: string; sha256: string; size: number }[];
  timeline?: { type: string; status: string | null; cause: string }[];
}

let sequence = 5_000 + Math.floor(Math.random() * 1_000_000);

function ecfTo(buyer: string, type: EcfType = '31'): { xml: string; encf: string } {
  const document = structuredClone(ecfDocuments[type]) as { Encabezado: { Comprador: Record<string, unknown> } };
  document.Encabezado.Comprador['RNCComprador'] = buyer;
  const encf = `E${type}${String(sequence++).padStart(10, '0')}`;
  const built = buildEcf(document, { ...ownedFieldsFor(type), eNCF: encf });
  assert.ok(built.ok, JSON.stringify(built));
  return { xml: signCanonicalDocument(built.xml, testSigningKey()), encf };
}

describe('received documents: the inbox', () => {
  const clock = fixedClock(new Date('2026-11-20T15:00:00Z'));
  let app: TestApp;
  const companies: { id: string; rnc: string; apiKey: string }[] = [];

  async function company(): Promise<{ id: string; rnc: string; apiKey: string }> {
    const rnc = nextRnc();
    const id = await app.provisionCompany({ rnc });
    const certificate = createSelfSignedP12({
      commonName: 'RECEPTOR',
      serialNumber: rnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2036-01-01'),
      password: 'clave',
    });
    assert.equal(
      (
        await app.sendEvent('certificate.installed', {
          companyId: id,
          p12Base64: certificate.p12.toString('base64'),
          password: 'clave',
        })
      ).statusCode,
      200,
    );
    const { apiKey } = await app.issueKey(id, ['received:read']);
    return { id, rnc, apiKey };
  }

  async function send(to: { rnc: string }, xml: string): Promise<string> {
    const response = await app.app.inject({
      method: 'POST',
      url: `/testecf/${to.rnc}/fe/recepcion/api/ecf`,
      payload: xml,
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.body;
  }

  const get = (apiKey: string, url: string) => app.app.inject({ url, headers: { 'x-api-key': apiKey } });

  let a: { id: string; rnc: string; apiKey: string };
  let b: { id: string; rnc: string; apiKey: string };
  const sent: Record<string, { encf: string; xml: string; arecf: string }> = {};

  before(async () => {
    // Tokens play no part in these tests.
    app = await startTestApp({ clock, env: { ECF_XSD_DIR: officialXsdDir, RECEIVER_AUTH_MODE: 'disabled' } });
    a = await company();
    b = await company();
    companies.push(a, b);
    // Day 1 (20 Nov, GMT-4): a 31 received; day 2: a 33 received and a 31 for someone else (reason 4).
    const first = ecfTo(a.rnc, '31');
    sent['first'] = { ...first, arecf: await send(a, first.xml) };
    clock.set(new Date('2026-11-21T15:00:00Z'));
    const note = ecfTo(a.rnc, '33');
    sent['note'] = { ...note, arecf: await send(a, note.xml) };
    const misaddressed = ecfTo(nextRnc(), '31');
    clock.advance(1_000);
    sent['misaddressed'] = { ...misaddressed, arecf: await send(a, misaddressed.xml) };
    const theirs = ecfTo(b.rnc, '31');
    sent['theirs'] = { ...theirs, arecf: await send(b, theirs.xml) };
  });
  after(async () => {
    await app.close();
  });

  it("lists the company's received documents, newest first, with what was read from them", async () => {
    const response = await get(a.apiKey, '/api/v1/recibidos');
    assert.equal(response.statusCode, 200, response.body);
    const items = response.json<{ data: View[] }>().data;
    assert.deepEqual(
      items.map((item) => item.eNCF),
      [sent['misaddressed']?.encf, sent['note']?.encf, sent['first']?.encf],
    );
    const [misaddressed, note, first] = items;
    assert.ok(misaddressed !== undefined && note !== undefined && first !== undefined);
    assert.deepEqual(
      {
        status: first.status,
        issuer: first.issuer,
        ecfType: first.ecfType,
        rncComprador: first.rncComprador,
        fechaEmision: first.fechaEmision,
        arecf: first.arecf,
        commercialStatus: first.commercialStatus,
        receivedAt: first.receivedAt,
      },
      {
        status: 'received',
        issuer: { rnc: issuerRnc, name: 'Ferretería Ñoño & Asociados, S.R.L.' },
        ecfType: '31',
        rncComprador: a.rnc,
        fechaEmision: '15-11-2026',
        arecf: { estado: '0', codigoMotivoNoRecibido: null, motivo: null },
        commercialStatus: null,
        receivedAt: '2026-11-20T15:00:00.000Z',
      },
    );
    assert.match(first.montoTotal ?? '', /^\d+\.\d{2}$/);
    assert.equal(note.ecfType, '33');
    assert.deepEqual(
      [misaddressed.status, misaddressed.arecf.codigoMotivoNoRecibido, misaddressed.arecf.motivo],
      ['not_received', '4', 'RNC Comprador no corresponde'],
    );
    assert.equal(
      items.some((item) => item.eNCF === sent['theirs']?.encf),
      false,
    );
    // The English alias serves the same.
    assert.deepEqual(
      (await get(a.apiKey, '/api/v1/received')).json<{ data: View[] }>().data.map((item) => item.id),
      items.map((item) => item.id),
    );
  });

  it('filters by issuer, type, status and day received (GMT-4), and pages with a cursor', async () => {
    const encfs = async (query: string) => {
      const response = await get(a.apiKey, `/api/v1/recibidos?${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: View[] }>().data.map((item) => item.eNCF);
    };
    assert.deepEqual(await encfs('ecfType=33'), [sent['note']?.encf]);
    assert.deepEqual(await encfs('status=not_received'), [sent['misaddressed']?.encf]);
    assert.deepEqual(await encfs('status=received&ecfType=31'), [sent['first']?.encf]);
    assert.deepEqual(await encfs(`issuerRnc=${issuerRnc}&status=received`), [sent['note']?.encf, sent['first']?.encf]);
    assert.deepEqual(await encfs('issuerRnc=131880738'), []);
    assert.deepEqual(await encfs('receivedFrom=2026-11-21'), [sent['misaddressed']?.encf, sent['note']?.encf]);
    assert.deepEqual(await encfs('receivedTo=2026-11-20'), [sent['first']?.encf]);
    assert.deepEqual(await encfs('receivedFrom=2026-11-20&receivedTo=2026-11-20'), [sent['first']?.encf]);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await get(a.apiKey, `/api/v1/recibidos?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
      const body = response.json<{ data: View[]; meta: { nextCursor: string | null } }>();
      pages.push(...body.data.map((item) => item.eNCF));
      cursor = body.meta.nextCursor;
    } while (cursor !== null && pages.length < 10);
    assert.deepEqual(pages, [sent['misaddressed']?.encf, sent['note']?.encf, sent['first']?.encf]);
  });

  it('refuses bad filters with a problem naming the parameter', async () => {
    assertFieldError(
      await get(a.apiKey, '/api/v1/recibidos?receivedFrom=2026-02-30'),
      400,
      'validation_failed',
      '/receivedFrom',
    );
    assertFieldError(await get(a.apiKey, '/api/v1/recibidos?cursor=nonsense'), 400, 'validation_failed', '/cursor');
    assertProblem(await get(a.apiKey, '/api/v1/recibidos?ecfType=32'), 400, 'validation_failed');
    assertProblem(await get(a.apiKey, '/api/v1/recibidos?issuerRnc=12'), 400, 'validation_failed');
    assertProblem(await get(a.apiKey, '/api/v1/recibidos?limit=0'), 400, 'validation_failed');
  });

  it('gets one with its ARECF answer and timeline; serves the artefacts exactly, with their SHA-256', async () => {
    const list = (await get(a.apiKey, `/api/v1/recibidos?ecfType=33`)).json<{ data: View[] }>().data;
    const id = list[0]?.id ?? '';
    const one = await get(a.apiKey, `/api/v1/recibidos/${id}`);
    assert.equal(one.statusCode, 200, one.body);
    const view = one.json<{ data: View }>().data;
    assert.equal(view.eNCF, sent['note']?.encf);
    assert.deepEqual(
      view.timeline?.map((event) => [event.type, event.status]),
      [['received', 'received']],
    );
    assert.match((view.timeline ?? [])[0]?.cause ?? '', /ARECF Estado 0/);

    for (const [type, expected] of [
      ['received-xml', sent['note']?.xml],
      ['arecf-xml', sent['note']?.arecf],
    ] as const) {
      const artefact = await get(a.apiKey, `/api/v1/recibidos/${id}/artefactos/${type}`);
      assert.equal(artefact.statusCode, 200);
      assert.match(String(artefact.headers['content-type']), /^application\/xml/);
      assert.equal(artefact.body, expected);
      const sha256 = createHash('sha256').update(artefact.rawPayload).digest('hex');
      assert.equal(artefact.headers['x-content-sha256'], sha256);
      assert.equal(view.artefacts.find((summary) => summary.type === type)?.sha256, sha256);
    }
    // No commercial response yet; an unknown kind is refused by the route's schema.
    assertProblem(await get(a.apiKey, `/api/v1/recibidos/${id}/artefactos/acecf-xml`), 404, 'artefact_not_found');
    assertProblem(await get(a.apiKey, `/api/v1/recibidos/${id}/artefactos/signed-xml`), 400, 'validation_failed');
    assertProblem(await get(a.apiKey, '/api/v1/recibidos/rcv_doesnotexist'), 404, 'document_not_found');
  });

  it("keeps companies apart: another company's key gets 404 and never lists it", async () => {
    const theirs = (await get(b.apiKey, '/api/v1/recibidos')).json<{ data: View[] }>().data;
    assert.deepEqual(
      theirs.map((item) => item.eNCF),
      [sent['theirs']?.encf],
    );
    const mine = (await get(a.apiKey, '/api/v1/recibidos')).json<{ data: View[] }>().data;
    for (const item of mine) {
      assertProblem(await get(b.apiKey, `/api/v1/recibidos/${item.id}`), 404, 'document_not_found');
      assertProblem(
        await get(b.apiKey, `/api/v1/recibidos/${item.id}/artefactos/received-xml`),
        404,
        'document_not_found',
      );
    }
    assertProblem(await get(a.apiKey, `/api/v1/recibidos/${theirs[0]?.id ?? ''}`), 404, 'document_not_found');
  });

  it('needs received:read (granted by documents:read too)', async () => {
    const { apiKey: sender } = await app.issueKey(a.id, ['documents:send']);
    assertProblem(await get(sender, '/api/v1/recibidos'), 403, 'scope_missing');
    const { apiKey: reader } = await app.issueKey(a.id, ['documents:read']);
    assert.equal((await get(reader, '/api/v1/recibidos')).statusCode, 200);
    assertProblem(await app.app.inject({ url: '/api/v1/recibidos' }), 401, 'api_key_missing');
  });
});
