// Issue 46: annulling the unissued rest of a demo range, ten million numbers, succeeds end to end. As `npm start`
// runs it (PGlite, the DGII sandbox embedded, the demo company and its ranges), through HTTP: one e-CF issued and
// accepted, then the other 9,999,999 numbers annulled in one ANECF that DGII (the sandbox) accepts; the range counts
// them annulled, and DGII refuses any of them sent afterwards as used.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { afterListening, demoRnc, type DemoCredentials } from '../src/demo.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { resultOf, sendEcf, signedEcf } from './support/sandbox-documents.js';
import { authenticate } from './support/sandbox-kit.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { until } from './support/until.js';
import { testSigningKey } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;

interface Annulment {
  id: string;
  status: string;
  total: number;
  spans: { ecfType: string; from: string; to: string; count: number; kind: string }[];
  dgii: { estado: string | null; mensajes: { valor: string }[] };
}

describe('annulling the unissued rest of a demo range (ten million numbers)', { timeout: 120_000 }, () => {
  let testApp: TestApp;
  let demo: DemoCredentials;

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
    testApp.app.inject({
      method,
      url,
      headers: { 'x-api-key': demo.apiKey },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const availability = async () => {
    const ranges = (await call('GET', '/api/v1/secuencias/rangos?ecfType=31')).json<{
      data: { from: string; to: string; availability: Record<string, number> }[];
    }>().data;
    assert.deepEqual(
      ranges.map((range) => [range.from, range.to]),
      [['E310000000001', 'E310010000000']],
    );
    return ranges[0]?.availability;
  };
  /** The embedded sandbox's admin routes (DGII's side), with the token the instance made for them. */
  async function sandboxAdmin(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<unknown> {
    const { baseUrl, sandboxAdminToken } = testApp.application.dgii;
    assert.ok(sandboxAdminToken !== undefined);
    const response = await fetch(`${baseUrl}/sandbox-admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${sandboxAdminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    assert.ok(response.ok, `sandbox admin ${method} ${path}: HTTP ${String(response.status)}`);
    const text = await response.text();
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }

  before(async () => {
    testApp = await startTestApp({
      embedded: true,
      embeddedSandbox: true,
      roles: { http: true, work: true, schedule: true },
      env: { ECF_XSD_DIR: officialXsdDir },
    });
    const appUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const started = await afterListening(testApp.application, appUrl);
    assert.ok(started !== undefined);
    demo = started.credentials;
    await sandboxAdmin('PUT', '/settings', { processingDelayMs: 0 });
  });
  after(async () => {
    await testApp.close();
  });

  it('issues E310000000001 from the demo range, accepted by DGII', async () => {
    const body = structuredClone(ecfDocuments['31']) as { Encabezado: Record<string, Json> };
    body.Encabezado['Emisor'] = { ...body.Encabezado['Emisor'], RNCEmisor: demoRnc };
    const created = await call('POST', '/api/v1/documentos', body);
    assert.equal(created.statusCode, 201, created.body);
    const { id, eNCF } = created.json<{ data: { id: string; eNCF: string } }>().data;
    assert.equal(eNCF, 'E310000000001');
    assert.equal((await call('POST', `/api/v1/documentos/${id}/enviar`)).statusCode, 202);
    const settled = await until(
      async () => (await call('GET', `/api/v1/documentos/${id}`)).json<{ data: { status: string } }>().data,
      (document) => !['signed', 'queued', 'sending', 'in_process'].includes(document.status),
      `DGII's verdict on ${eNCF}`,
    );
    assert.equal(settled.status, 'accepted');
  });

  it('annuls the other 9,999,999 numbers in one ANECF, which DGII accepts, and counts them annulled', async () => {
    const requested = await call('POST', '/api/v1/secuencias/anulaciones', {
      ranges: [{ ecfType: '31', from: 'E310000000002', to: 'E310010000000' }],
    });
    assert.equal(requested.statusCode, 202, requested.body);
    const { id, total } = requested.json<{ data: Annulment }>().data;
    assert.equal(total, 9_999_999);

    const answered = await until(
      async () => (await call('GET', `/api/v1/secuencias/anulaciones/${id}`)).json<{ data: Annulment }>().data,
      (annulment) => annulment.status !== 'pending' && annulment.status !== 'sending',
      `DGII's answer to ${id}`,
    );
    assert.equal(answered.status, 'accepted', JSON.stringify(answered.dgii));
    assert.deepEqual(
      answered.dgii.mensajes.map((message) => message.valor),
      ['Las secuencias fueron anuladas correctamente (9999999).'],
    );
    assert.deepEqual(answered.spans, [
      { ecfType: '31', from: 'E310000000002', to: 'E310010000000', count: 9_999_999, kind: 'unissued' },
    ]);
    assert.deepEqual(await availability(), {
      total: 10_000_000,
      used: 1,
      reserved: 0,
      burned: 0,
      annulled: 9_999_999,
      withdrawn: 0,
      remaining: 0,
    });
    const arrivals = (await sandboxAdmin('GET', `/arrivals?service=anulacionrangos&rnc=${demoRnc}`)) as {
      outcome: string;
    }[];
    assert.deepEqual(
      arrivals.map((arrival) => arrival.outcome),
      ['voided:9999999'],
    );
  });

  it('DGII refuses any of the annulled numbers sent afterwards as already used', async () => {
    // A second certificate delegated for the demo company: the test signs with it, as another of its systems would.
    const key = testSigningKey();
    await sandboxAdmin('POST', '/taxpayers', {
      rnc: demoRnc,
      name: 'Empresa Demostración SRL',
      certificates: [key.certificatePem],
    });
    const token = await authenticate(testApp.application.dgii.baseUrl, key);
    for (const sequence of [2, 5_000_000, 10_000_000]) {
      const document = signedEcf('31', sequence, { rnc: demoRnc, key });
      const trackId = await sendEcf(testApp.application.dgii.baseUrl, token, document);
      const result = await resultOf(testApp.application.dgii.baseUrl, token, trackId);
      assert.deepEqual(
        { estado: result.estado, secuenciaUtilizada: result.secuenciaUtilizada, valor: result.mensajes[0]?.valor },
        { estado: 'Rechazado', secuenciaUtilizada: true, valor: `El e-NCF ${document.encf} ya fue utilizado.` },
      );
    }
  });
});
