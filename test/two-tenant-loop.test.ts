// Issue 42's whole loop inside one instance: with the DGII sandbox embedded, two companies served here trade through
// DGII's model and nothing else. Company A issues a type 31 to company B; DGII (the sandbox) accepts it; A's worker
// finds B in DGII's directory, at B's receiver on this same instance, and posts the signed bytes there; B's receiver
// keeps them and answers its signed ARECF, which A keeps; B approves commercially, and its ACECF reaches A's receiver
// (and DGII). One process with every role, listening on a real port, driven through HTTP as the integrators would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { afterListening } from '../src/demo.js';
import { verifyEnvelopedSignature } from '../src/fiscal/xmldsig/index.js';
import type { Scope } from '../src/platform/http/scopes.js';
import { installTestCertificate } from './support/archive-world.js';
import type { Delivery } from './support/delivery-kit.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';
import { until } from './support/until.js';
import { requireTool } from './support/tools.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;

interface IssuedDocument {
  id: string;
  eNCF: string;
  status: string;
  rncComprador: string | null;
  dgii: { estado: string | null; mensajes: unknown[] } | null;
  entrega: Delivery | null;
  commercialResponse: { decision: string; reason: string | null; rncComprador: string; sha256: string } | null;
  artefacts: { type: string; version: number; sha256: string }[];
}

interface ReceivedDocument {
  id: string;
  status: string;
  issuer: { rnc: string; name: string | null };
  eNCF: string;
  ecfType: string | null;
  rncComprador: string | null;
  arecf: { estado: string; codigoMotivoNoRecibido: string | null };
  commercialStatus: string | null;
  commercialResponse?: {
    decision: string;
    deliveries: { target: string; status: string; attempts: number; lastError: string | null; url: string | null }[];
  } | null;
}

/** A company served here: provisioned through the control plane with a certificate, and an API key. */
interface Tenant {
  companyId: string;
  rnc: string;
  call(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
}

const settledDelivery = new Set(['delivered', 'not_received', 'failed', 'skipped']);
const finalStatuses = new Set(['accepted', 'accepted_conditional', 'rejected', 'send_failed']);

describe('two companies on one instance trade an e-CF through the embedded DGII', { timeout: 180_000 }, () => {
  let testApp: TestApp;
  let appUrl: string;
  let a: Tenant;
  let b: Tenant;

  async function tenant(legalName: string, scopes: readonly Scope[]): Promise<Tenant> {
    const rnc = nextRnc();
    const companyId = await testApp.provisionCompany({ rnc, legalName });
    await installTestCertificate(testApp, companyId, rnc);
    const { apiKey } = await testApp.issueKey(companyId, scopes);
    return {
      companyId,
      rnc,
      call: (method, url, payload) =>
        testApp.app.inject({
          method,
          url,
          headers: { 'x-api-key': apiKey },
          ...(payload === undefined ? {} : { payload: payload as Json }),
        }),
    };
  }

  /** The embedded sandbox's admin routes (DGII's side), with the token the instance made for them. */
  async function sandboxAdmin(method: 'GET' | 'PUT', path: string, body?: unknown): Promise<unknown> {
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
      embeddedSandbox: true,
      roles: { http: true, work: true, schedule: true },
      env: { ECF_XSD_DIR: officialXsdDir, DELIVERY_RETRY_BASE_MS: '200' },
    });
    appUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    // What `ecf start` does once it listens: the sandbox registers every company served here, from now on too.
    await afterListening(testApp.application, appUrl);
    await sandboxAdmin('PUT', '/settings', { processingDelayMs: 0 });
    a = await tenant('Emisora Del Lazo SRL', [
      'documents:create',
      'documents:read',
      'documents:send',
      'sequences:manage',
    ]);
    b = await tenant('Compradora Del Lazo SRL', ['documents:read', 'documents:send', 'received:read']);
    const nextYear = new Date().getUTCFullYear() + 1;
    const range = await a.call('POST', '/api/v1/secuencias/rangos', {
      ecfType: '31',
      from: 'E310000000001',
      to: 'E310000100000',
      expiresOn: `31-12-${String(nextYear)}`,
    });
    assert.equal(range.statusCode, 201, range.body);
  });
  after(async () => {
    await testApp.close();
  });

  const document = (id: string) => async () =>
    (await a.call('GET', `/api/v1/documentos/${id}`)).json<{ data: IssuedDocument }>().data;
  const download = async (tenantOf: Tenant, url: string): Promise<Buffer> => {
    const response = await tenantOf.call('GET', url);
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.rawPayload;
  };

  let issued: IssuedDocument;
  let receivedId: string;

  it("lists both companies in DGII's directory at their receivers on this instance", async () => {
    for (const [asker, listed] of [
      [a, b],
      [b, a],
    ] as const) {
      const outcome = await testApp.application.dgiiClient.directory(asker.companyId, listed.rnc);
      if (outcome.kind !== 'found') assert.fail(`${listed.rnc} is not in DGII's directory: ${JSON.stringify(outcome)}`);
      assert.equal(outcome.entry.urlRecepcion, `${appUrl}/testecf/${listed.rnc}`);
    }
  });

  it("A's type 31 to B is accepted by DGII and delivered to B's receiver here, which answers Estado 0", async () => {
    const body = structuredClone(ecfDocuments['31']) as { Encabezado: Record<string, Json> };
    body.Encabezado['Emisor'] = { ...body.Encabezado['Emisor'], RNCEmisor: a.rnc };
    body.Encabezado['Comprador'] = { ...body.Encabezado['Comprador'], RNCComprador: b.rnc };
    const created = await a.call('POST', '/api/v1/documentos', body);
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json<{ data: IssuedDocument }>().data;
    const sent = await a.call('POST', `/api/v1/documentos/${id}/enviar`);
    assert.equal(sent.statusCode, 202, sent.body);

    const verdict = await until(document(id), (seen) => finalStatuses.has(seen.status), `DGII's verdict on ${id}`);
    assert.equal(verdict.status, 'accepted', JSON.stringify(verdict.dgii));
    issued = await until(
      document(id),
      (seen) => seen.entrega !== null && settledDelivery.has(seen.entrega.status),
      `delivery of ${id}`,
      30_000,
    );
    const { entrega } = issued;
    assert.ok(entrega !== null);
    assert.equal(entrega.status, 'delivered', JSON.stringify(entrega));
    assert.equal(entrega.canal, 'receptor');
    assert.equal(entrega.attempts, 1);
    assert.equal(entrega.reason, null);
    assert.equal(entrega.destino, `${appUrl}/testecf/${b.rnc}/fe/recepcion/api/ecf`);
    assert.equal(entrega.acuseRecibo?.estado, '0');
    assert.equal(entrega.acuseRecibo.codigoMotivoNoRecibido, null);
    assert.equal(entrega.acuseRecibo.version, 1);
    assert.match(entrega.acuseRecibo.fechaHoraAcuseRecibo ?? '', /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
  });

  it("B's inbox holds the e-CF from A, received, with exactly the bytes A signed", async () => {
    const listed = await b.call('GET', `/api/v1/recibidos?issuerRnc=${a.rnc}`);
    assert.equal(listed.statusCode, 200, listed.body);
    const inbox = listed.json<{ data: ReceivedDocument[] }>().data;
    assert.equal(inbox.length, 1, JSON.stringify(inbox));
    const [received] = inbox;
    assert.ok(received !== undefined);
    assert.equal(received.eNCF, issued.eNCF);
    assert.equal(received.issuer.rnc, a.rnc);
    assert.equal(received.status, 'received');
    assert.equal(received.ecfType, '31');
    assert.equal(received.rncComprador, b.rnc);
    assert.deepEqual(received.arecf, { estado: '0', codigoMotivoNoRecibido: null, motivo: null });
    receivedId = received.id;

    const receivedXml = await download(b, `/api/v1/recibidos/${receivedId}/artefactos/received-xml`);
    const signedXml = await download(a, `/api/v1/documentos/${issued.id}/artefactos/signed-xml`);
    assert.ok(receivedXml.equals(signedXml), "B's received-xml differs from A's signed-xml");
  });

  it("A keeps B's signed ARECF: the very bytes B answered, naming A and B, verified by xmlsec1 and by ours", async (t) => {
    const kept = await download(a, `/api/v1/documentos/${issued.id}/artefactos/arecf-xml`);
    const answered = await download(b, `/api/v1/recibidos/${receivedId}/artefactos/arecf-xml`);
    assert.ok(kept.equals(answered), "A's arecf-xml differs from the ARECF B's receiver answered");
    const arecf = kept.toString('utf8');
    assert.match(arecf, /^(<\?xml[^>]*\?>)?<ARECF[\s>]/);
    assert.ok(arecf.includes(`<RNCEmisor>${a.rnc}</RNCEmisor>`), arecf);
    assert.ok(arecf.includes(`<RNCComprador>${b.rnc}</RNCComprador>`), arecf);
    assert.ok(arecf.includes(`<eNCF>${issued.eNCF}</eNCF>`), arecf);
    assert.ok(arecf.includes('<Estado>0</Estado>'), arecf);
    const ours = verifyEnvelopedSignature(kept);
    assert.ok(ours.ok, JSON.stringify(ours));
    if (requireTool(t, 'xmlsec1')) {
      const verified = verifyWithXmlsec1Embedded(kept);
      assert.ok(verified.ok, verified.output);
    }
  });

  it("B approves commercially: the ACECF reaches A's receiver here and DGII, and A's document shows it", async () => {
    const responded = await b.call('POST', `/api/v1/recibidos/${receivedId}/respuesta-comercial`, {
      decision: 'approved',
    });
    assert.equal(responded.statusCode, 202, responded.body);
    const readReceived = async () =>
      (await b.call('GET', `/api/v1/recibidos/${receivedId}`)).json<{ data: ReceivedDocument }>().data;
    const delivered = await until(
      readReceived,
      (seen) =>
        seen.commercialResponse?.deliveries.length === 2 &&
        seen.commercialResponse.deliveries.every((delivery) => delivery.status === 'delivered'),
      `the ACECF's deliveries of ${receivedId}`,
      30_000,
    );
    assert.equal(delivered.commercialStatus, 'approved');
    const byTarget = new Map(delivered.commercialResponse?.deliveries.map((delivery) => [delivery.target, delivery]));
    assert.equal(byTarget.get('issuer')?.url, `${appUrl}/testecf/${a.rnc}/fe/aprobacioncomercial/api/ecf`);
    assert.equal(byTarget.get('dgii')?.status, 'delivered');

    const approved = await until(
      document(issued.id),
      (seen) => seen.commercialResponse !== null,
      `A's commercial response on ${issued.id}`,
      10_000,
    );
    assert.equal(approved.commercialResponse?.decision, 'approved');
    assert.equal(approved.commercialResponse.rncComprador, b.rnc);
    assert.equal(approved.commercialResponse.reason, null);
    // The ACECF A keeps is the one B signed and archived.
    // DGII saw the e-CF once at its reception and the approval once; the buyer's receiver, here, is not DGII's.
    const arrivals = (await sandboxAdmin('GET', `/arrivals?rnc=${a.rnc}&encf=${issued.eNCF}`)) as {
      service: string;
      outcome: string;
    }[];
    assert.deepEqual(
      arrivals.map((arrival) => `${arrival.service} ${arrival.outcome}`),
      ['recepcion accepted', 'aprobacioncomercial accepted'],
    );
    const keptAcecf = await download(a, `/api/v1/documentos/${issued.id}/artefactos/acecf-xml`);
    const sentAcecf = await download(b, `/api/v1/recibidos/${receivedId}/artefactos/acecf-xml`);
    assert.ok(keptAcecf.equals(sentAcecf), "A's acecf-xml differs from the ACECF B signed");
  });
});
