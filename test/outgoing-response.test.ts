// Our commercial response (ACECF) to a received e-CF (SPEC §3, §4.6; DESIGN §5.4): the sandbox's counterpart taxpayer
// sends us an e-CF through our receiver; we approve or reject it; the ACECF is signed by the company, valid per
// ACECF.xsd and verified by xmlsec1; jobs deliver the archived bytes to the issuer's receiver (found in DGII's
// directory, after its seed flow) and to DGII, both observed at the sandbox; faults are retried with each attempt on
// the timeline; a response is made once; companies are kept apart.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { groupsOf, parseXmlTree, textOf } from '../src/fiscal/parse/index.js';
import { verifyEnvelopedSignature } from '../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { officialXsdDir } from './support/dgii-files.js';
import { issuerRnc } from './support/ecf-documents.js';
import { signedEcf } from './support/sandbox-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { nextRnc } from './support/test-app.js';
import { verifyWithXmlsec1 } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';

const counterpartRnc = '999999907';
const maxAttempts = 4;

interface Delivery {
  target: string;
  status: string;
  attempts: number;
  lastError: string | null;
  url: string | null;
  deliveredAt: string | null;
  answer: Record<string, unknown> | null;
}
interface View {
  id: string;
  eNCF: string;
  status: string;
  montoTotal: string | null;
  fechaEmision: string | null;
  commercialStatus: string | null;
  artefacts: { type: string; sha256: string }[];
  timeline?: { type: string; status: string | null; cause: string; correlationId: string | null }[];
  commercialResponse: {
    decision: string;
    reason: string | null;
    fechaHoraAprobacionComercial: string;
    deliveries: Delivery[];
  } | null;
}

function acecfFields(xml: string): Record<string, string | undefined> {
  const parsed = parseXmlTree(xml);
  assert.ok(parsed.ok && parsed.root === 'ACECF', xml);
  const detail = groupsOf(parsed.tree, 'DetalleAprobacionComercial')[0] ?? {};
  return Object.fromEntries(
    [
      'RNCEmisor',
      'eNCF',
      'FechaEmision',
      'MontoTotal',
      'RNCComprador',
      'Estado',
      'DetalleMotivoRechazo',
      'FechaHoraAprobacionComercial',
    ].map((name) => [name, textOf(detail, name)]),
  );
}

describe('commercial response: an ACECF we issue reaches the issuer and DGII', () => {
  let world: SendingWorld;
  let appUrl: string;
  let certificatePem: string;

  before(async () => {
    world = await startSendingWorld({
      env: {
        ECF_XSD_DIR: officialXsdDir,
        RECEIVER_AUTH_MODE: 'optional',
        COMMERCIAL_RESPONSE_RETRY_BASE_MS: '50',
        COMMERCIAL_RESPONSE_MAX_ATTEMPTS: String(maxAttempts),
        DGII_BREAKER_FAILURES: '2',
        DGII_BREAKER_OPEN_MS: '3000',
      },
    });
    appUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    const identity = await world.app.application.services.companies.signingIdentity(world.companyId);
    assert.ok(identity !== undefined);
    certificatePem = identity.certificatePem;
  });
  after(async () => {
    await world.close();
  });

  const respond = (id: string, body: unknown) =>
    world.call('POST', `/api/v1/recibidos/${id}/respuesta-comercial`, body);
  const view = async (id: string): Promise<View> => {
    const response = await world.call('GET', `/api/v1/recibidos/${id}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: View }>().data;
  };
  const timeline = async (id: string) => {
    const response = await world.call('GET', `/api/v1/recibidos/${id}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: View }>().data.timeline ?? [];
  };

  /** The counterpart issues an e-CF to our company and sends it to our receiver (authenticating first). */
  async function receiveFromCounterpart(type = '31'): Promise<View> {
    const base = `${appUrl}/testecf/${issuerRnc}`;
    const response = await fetch(`${world.sandbox.url}/testecf/emisorreceptor/api/emision/emisioncomprobantes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ rnc: issuerRnc, tipoEncf: `E${type}`, urlRecepcion: base, urlAutenticacion: base }),
    });
    assert.equal(response.status, 200);
    const sent = (await response.json()) as { encf: string; estado: string; mensajes: string[] };
    assert.equal(sent.estado, 'arecf_valid', sent.mensajes.join(' | '));
    const list = await world.call('GET', `/api/v1/recibidos?issuerRnc=${counterpartRnc}&limit=100`);
    const item = list.json<{ data: View[] }>().data.find((entry) => entry.eNCF === sent.encf);
    assert.ok(item !== undefined, list.body);
    return item;
  }

  async function untilDeliveriesSettle(id: string, timeoutMs = 30_000): Promise<View> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await view(id);
      const deliveries = current.commercialResponse?.deliveries ?? [];
      if (
        deliveries.length === 2 &&
        deliveries.every((delivery) => delivery.status === 'delivered' || delivery.status === 'exhausted')
      )
        return current;
      if (Date.now() > deadline) throw new Error(`deliveries of ${id} still ${JSON.stringify(deliveries)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const sandboxDb = () => world.sandbox.sandbox.context.db;
  const approvalsAtDgii = (encf: string) =>
    sandboxDb().selectFrom('sandbox_approvals').selectAll().where('encf', '=', encf).orderBy('id').execute();
  const arrivals = (service: string, encf: string) =>
    sandboxDb()
      .selectFrom('sandbox_arrivals')
      .select(['outcome'])
      .where('service', '=', service)
      .where('encf', '=', encf)
      .orderBy('id')
      .execute();
  const arrivalsOf = async (service: string, encf: string) => (await arrivals(service, encf)).map((row) => row.outcome);

  it('approves a received e-CF: a signed, XSD-valid ACECF is archived and delivered to the counterpart and to DGII', async () => {
    const received = await receiveFromCounterpart('31');
    const seedsBefore = await sandboxDb()
      .selectFrom('sandbox_seeds')
      .select('value')
      .where('value', 'like', 'emisorreceptor:%')
      .where('used_at', 'is not', null)
      .execute();

    const answer = await respond(received.id, { decision: 'approved' });
    assert.equal(answer.statusCode, 202, answer.body);
    const made = answer.json<{ data: View }>().data;
    assert.equal(made.id, received.id);
    assert.equal(made.commercialStatus, 'approved');
    const response = made.commercialResponse;
    assert.ok(response !== null);
    assert.deepEqual([response.decision, response.reason], ['approved', null]);
    assert.deepEqual(response.deliveries.map((delivery) => [delivery.target, delivery.status]).sort(), [
      ['dgii', 'pending'],
      ['issuer', 'pending'],
    ]);
    assert.ok(made.artefacts.some((artefact) => artefact.type === 'acecf-xml'));

    // The ACECF: signed by the company, valid per DGII's XSD, verified by xmlsec1, about the e-CF received.
    const artefact = await world.call('GET', `/api/v1/recibidos/${received.id}/artefactos/acecf-xml`);
    assert.equal(artefact.statusCode, 200);
    const acecf = artefact.body;
    const schema = validateWithOfficialXsd('ACECF.xsd', acecf);
    assert.ok(schema.valid, schema.errors);
    const verified = verifyEnvelopedSignature(acecf);
    assert.ok(verified.ok, JSON.stringify(verified));
    assert.equal(verified.certificatePem.replace(/\s/g, ''), certificatePem.replace(/\s/g, ''));
    const xmlsec = verifyWithXmlsec1(acecf, certificatePem);
    assert.ok(xmlsec.ok, xmlsec.output);
    const fields = acecfFields(acecf);
    assert.deepEqual(
      [
        fields['RNCEmisor'],
        fields['eNCF'],
        fields['FechaEmision'],
        fields['MontoTotal'],
        fields['RNCComprador'],
        fields['Estado'],
        fields['DetalleMotivoRechazo'],
      ],
      [counterpartRnc, received.eNCF, received.fechaEmision, received.montoTotal, issuerRnc, '1', undefined],
    );
    assert.equal(fields['FechaHoraAprobacionComercial'], response.fechaHoraAprobacionComercial);

    const settled = await untilDeliveriesSettle(received.id);
    const byTarget: Partial<Record<string, Delivery>> = Object.fromEntries(
      (settled.commercialResponse?.deliveries ?? []).map((delivery) => [delivery.target, delivery]),
    );
    assert.deepEqual(
      [byTarget['issuer']?.status, byTarget['issuer']?.attempts, byTarget['issuer']?.lastError],
      ['delivered', 1, null],
    );
    assert.deepEqual(
      [byTarget['dgii']?.status, byTarget['dgii']?.attempts, byTarget['dgii']?.answer?.['codigo']],
      ['delivered', 1, '01'],
    );
    assert.ok(typeof byTarget['issuer']?.deliveredAt === 'string' && typeof byTarget['dgii']?.deliveredAt === 'string');
    assert.equal(byTarget['issuer'].url, `${world.sandbox.url}/testecf/emisorreceptor/fe/aprobacioncomercial/api/ecf`);

    // Observed at the sandbox: the counterpart took it (after our seed flow), and DGII recorded the exact bytes.
    assert.deepEqual(await arrivalsOf('emisorreceptor', received.eNCF), ['approval:received']);
    const seedsAfter = await sandboxDb()
      .selectFrom('sandbox_seeds')
      .select('value')
      .where('value', 'like', 'emisorreceptor:%')
      .where('used_at', 'is not', null)
      .execute();
    assert.equal(seedsAfter.length, seedsBefore.length + 1);
    const atDgii = await approvalsAtDgii(received.eNCF);
    assert.equal(atDgii.length, 1);
    assert.deepEqual(
      [atDgii[0]?.accepted, atDgii[0]?.estado, atDgii[0]?.rnc_emisor, atDgii[0]?.rnc_comprador],
      [true, '1', counterpartRnc, issuerRnc],
    );
    assert.equal(atDgii[0]?.xml, acecf, 'DGII got the archived bytes, not a re-signed copy');

    const events = await timeline(received.id);
    assert.deepEqual(
      events
        .filter((event) => event.type.startsWith('commercial_response'))
        .map((event) => event.type)
        .sort(),
      ['commercial_response.created', 'commercial_response.dgii.delivered', 'commercial_response.issuer.delivered'],
    );
    const domain = await world.app.application.database.db
      .selectFrom('domain_events')
      .select(['type', 'payload'])
      .where('company_id', '=', world.companyId)
      .where('type', 'like', 'received_document.commercial_response%')
      .execute();
    const mine = domain.filter(
      (event) => (event.payload as { receivedDocumentId?: string }).receivedDocumentId === received.id,
    );
    assert.deepEqual(mine.map((event) => event.type).sort(), [
      'received_document.commercial_response_created',
      'received_document.commercial_response_delivered',
      'received_document.commercial_response_delivered',
    ]);
  });

  it('answers a second, different response 409 with the first decision, and an identical repeat 200 without sending again', async () => {
    const received = await receiveFromCounterpart('33');
    assert.equal((await respond(received.id, { decision: 'approved' })).statusCode, 202);
    await untilDeliveriesSettle(received.id);

    const again = assertProblem(
      await respond(received.id, { decision: 'rejected', reason: 'Mercancía dañada' }),
      409,
      'commercial_response_exists',
    );
    assert.match(again.detail, /already approved/);
    assert.equal(again.errors?.[0]?.code, 'already_approved');

    const repeat = await respond(received.id, { decision: 'approved' });
    assert.equal(repeat.statusCode, 200, repeat.body);
    assert.equal(repeat.json<{ data: View }>().data.commercialResponse?.decision, 'approved');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await approvalsAtDgii(received.eNCF)).length, 1);
    assert.deepEqual(await arrivalsOf('emisorreceptor', received.eNCF), ['approval:received']);
  });

  it('decides between concurrent requests: one response is made, with one ACECF and two deliveries', async () => {
    const first = await receiveFromCounterpart('31');
    const raced = await Promise.all([
      respond(first.id, { decision: 'approved' }),
      respond(first.id, { decision: 'rejected', reason: 'Duplicada' }),
    ]);
    assert.deepEqual(raced.map((response) => response.statusCode).sort(), [202, 409]);
    const second = await receiveFromCounterpart('31');
    const same = await Promise.all([
      respond(second.id, { decision: 'approved' }),
      respond(second.id, { decision: 'approved' }),
    ]);
    assert.deepEqual(same.map((response) => response.statusCode).sort(), [200, 202]);
    for (const id of [first.id, second.id]) {
      const settled = await untilDeliveriesSettle(id);
      assert.deepEqual(settled.artefacts.filter((artefact) => artefact.type === 'acecf-xml').length, 1);
      assert.deepEqual(
        settled.commercialResponse?.deliveries.map((delivery) => delivery.status),
        ['delivered', 'delivered'],
      );
    }
    assert.equal((await approvalsAtDgii(second.eNCF)).length, 1);
  });

  it('a rejection needs a reason of at most 250 characters, and carries it as DetalleMotivoRechazo', async () => {
    const received = await receiveFromCounterpart('34');
    assertFieldError(
      await respond(received.id, { decision: 'rejected' }),
      422,
      'commercial_response_invalid',
      '/reason',
    );
    assertFieldError(
      await respond(received.id, { decision: 'rejected', reason: '   ' }),
      422,
      'commercial_response_invalid',
      '/reason',
    );
    const tooLong = assertFieldError(
      await respond(received.id, { decision: 'rejected', reason: 'x'.repeat(251) }),
      422,
      'commercial_response_invalid',
      '/reason',
    );
    assert.equal(tooLong.code, 'too_long');
    assertFieldError(
      await respond(received.id, { decision: 'approved', reason: 'no hace falta' }),
      422,
      'commercial_response_invalid',
      '/reason',
    );
    assertProblem(await respond(received.id, { decision: 'maybe' }), 400, 'validation_failed');
    assertProblem(await respond(received.id, { decision: 'approved', extra: 1 }), 400, 'validation_failed');
    assert.equal((await view(received.id)).commercialResponse, null, 'nothing was recorded for refused requests');

    const reason = 'Precio distinto al acordado; '.repeat(9).slice(0, 250);
    const answer = await respond(received.id, { decision: 'rejected', reason });
    assert.equal(answer.statusCode, 202, answer.body);
    assert.equal(answer.json<{ data: View }>().data.commercialStatus, 'rejected');
    const acecf = (await world.call('GET', `/api/v1/recibidos/${received.id}/artefactos/acecf-xml`)).body;
    assert.ok(validateWithOfficialXsd('ACECF.xsd', acecf).valid);
    assert.deepEqual([acecfFields(acecf)['Estado'], acecfFields(acecf)['DetalleMotivoRechazo']], ['2', reason]);
    const settled = await untilDeliveriesSettle(received.id);
    assert.deepEqual(
      settled.commercialResponse?.deliveries.map((delivery) => delivery.status),
      ['delivered', 'delivered'],
    );
    assert.deepEqual(
      (await approvalsAtDgii(received.eNCF)).map((row) => [row.estado, row.accepted]),
      [['2', true]],
    );
  });

  it('refuses a document that was not received (409) or whose type takes no approval (422)', async () => {
    // Changed after signing: our receiver answered ARECF Estado 1 (its signature no longer verifies).
    const { xml } = signedEcf('31', 900_000 + Math.floor(Math.random() * 90_000));
    const misaddressed = xml.replace(/<RNCComprador>\d+<\/RNCComprador>/, `<RNCComprador>${nextRnc()}</RNCComprador>`);
    const sent = await world.app.app.inject({
      method: 'POST',
      url: `/testecf/${issuerRnc}/fe/recepcion/api/ecf`,
      payload: misaddressed,
      headers: { 'content-type': 'application/xml' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const list = await world.call('GET', '/api/v1/recibidos?status=not_received');
    const refused = list.json<{ data: View[] }>().data[0];
    assert.ok(refused !== undefined, list.body);
    assertProblem(await respond(refused.id, { decision: 'approved' }), 409, 'received_not_accepted');

    // A received type 41 cannot arrive through the receiver; stored directly, the service still refuses it.
    const now = new Date();
    await world.app.application.database.db
      .insertInto('received_documents')
      .values({
        id: 'rcv_type41notapproved0',
        company_id: world.companyId,
        environment: 'TEST',
        issuer_rnc: counterpartRnc,
        encf: 'E410000000001',
        ecf_type: '41',
        status: 'received',
        reason_code: null,
        commercial_status: null,
        issuer_name: null,
        rnc_comprador: issuerRnc,
        fecha_emision: '01-11-2026',
        monto_total: '100.00',
        total_itbis: null,
        received_at: now,
        updated_at: now,
      })
      .execute();
    assertProblem(await respond('rcv_type41notapproved0', { decision: 'approved' }), 422, 'acecf_not_applicable');
    assertProblem(await respond('rcv_doesnotexist', { decision: 'approved' }), 404, 'document_not_found');
  });

  it('retries a delivery that meets a fault, each attempt on the timeline, then delivers', async () => {
    const received = await receiveFromCounterpart('31');
    // The issuer's receiver answers 503 once (to our seed request); DGII's ACECF service answers 503 once.
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'emisorreceptor', mode: 'http503', count: 1 })).status,
      201,
    );
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'aprobacioncomercial', mode: 'http503', count: 1 }))
        .status,
      201,
    );
    try {
      const answered = await respond(received.id, { decision: 'approved' });
      assert.equal(answered.statusCode, 202);
      const settled = await untilDeliveriesSettle(received.id);
      for (const delivery of settled.commercialResponse?.deliveries ?? []) {
        assert.deepEqual(
          [delivery.target, delivery.status, delivery.attempts, delivery.lastError],
          [delivery.target, 'delivered', 2, null],
        );
      }
      const events = (await timeline(received.id)).filter((event) => event.type.startsWith('commercial_response.'));
      for (const target of ['issuer', 'dgii']) {
        const mine = events.filter((event) => event.type.startsWith(`commercial_response.${target}.`));
        assert.deepEqual(
          mine.map((event) => [event.type, event.status]),
          [
            [`commercial_response.${target}.failed`, 'failed'],
            [`commercial_response.${target}.delivered`, 'delivered'],
          ],
        );
        assert.match(mine[0]?.cause ?? '', /attempt 1 of 4 failed.*HTTP 503.*next attempt at/);
        assert.match(mine[1]?.cause ?? '', /attempt 2: delivered/);
      }
      // Every attempt, the retry too, is recorded under the id of the request that made the response (SPEC §9.5).
      assert.deepEqual(
        events.map((event) => event.correlationId),
        events.map(() => answered.headers['x-correlation-id']),
      );
      assert.deepEqual(await arrivalsOf('emisorreceptor', received.eNCF), ['approval:received']);
      assert.deepEqual(
        (await approvalsAtDgii(received.eNCF)).map((row) => row.accepted),
        [true],
      );
    } finally {
      await world.sandbox.admin('DELETE', '/faults');
    }
  });

  it("does not count a delivery DGII's circuit breaker held back: deferred to when the breaker lets a probe through", async () => {
    const received = await receiveFromCounterpart('31');
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'aprobacioncomercial', mode: 'http503', count: 2 }))
        .status,
      201,
    );
    try {
      assert.equal((await respond(received.id, { decision: 'approved' })).statusCode, 202);
      const settled = await untilDeliveriesSettle(received.id);
      const dgii = settled.commercialResponse?.deliveries.find((delivery) => delivery.target === 'dgii');
      assert.deepEqual([dgii?.status, dgii?.attempts], ['delivered', 3]);
      const events = (await timeline(received.id)).filter((event) =>
        event.type.startsWith('commercial_response.dgii.'),
      );
      assert.deepEqual(
        events.map((event) => event.type),
        [
          'commercial_response.dgii.failed',
          'commercial_response.dgii.failed',
          'commercial_response.dgii.deferred',
          'commercial_response.dgii.delivered',
        ],
      );
      assert.match(events[2]?.cause ?? '', /not attempted/);
      assert.deepEqual(
        await arrivalsOf('aprobacioncomercial', received.eNCF).then((outcomes) => outcomes.length),
        1,
        'the faults are logged without an e-NCF; one ACECF was taken',
      );
    } finally {
      await world.sandbox.admin('DELETE', '/faults');
    }
  });

  it('gives up after the last attempt: exhausted, with the reason and a failed event', async () => {
    const received = await receiveFromCounterpart('31');
    assert.equal(
      (
        await world.sandbox.admin('POST', '/faults', {
          service: 'aprobacioncomercial',
          mode: 'reject',
          count: maxAttempts,
        })
      ).status,
      201,
    );
    try {
      assert.equal((await respond(received.id, { decision: 'approved' })).statusCode, 202);
      const settled = await untilDeliveriesSettle(received.id);
      const dgii = settled.commercialResponse?.deliveries.find((delivery) => delivery.target === 'dgii');
      assert.deepEqual([dgii?.status, dgii?.attempts, dgii?.deliveredAt], ['exhausted', maxAttempts, null]);
      assert.match(dgii?.lastError ?? '', /DGII refused it \(HTTP 400/);
      assert.equal(dgii?.answer?.['codigo'], '02');
      assert.equal(
        settled.commercialResponse?.deliveries.find((delivery) => delivery.target === 'issuer')?.status,
        'delivered',
      );
      const events = (await timeline(received.id)).filter((event) =>
        event.type.startsWith('commercial_response.dgii.'),
      );
      assert.deepEqual(
        events.map((event) => event.status),
        [...Array<string>(maxAttempts - 1).fill('failed'), 'exhausted'],
      );
      const failed = await world.app.application.database.db
        .selectFrom('domain_events')
        .select('payload')
        .where('type', '=', 'received_document.commercial_response_failed')
        .execute();
      assert.ok(
        failed.some(
          (event) =>
            (event.payload as { receivedDocumentId?: string; target?: string }).receivedDocumentId === received.id &&
            (event.payload as { target?: string }).target === 'dgii',
        ),
      );
    } finally {
      await world.sandbox.admin('DELETE', '/faults');
    }
  });

  it('counts an error of ours as a failed attempt: the archived ACECF gone, each delivery ends exhausted with the reason', async () => {
    const received = await receiveFromCounterpart('31');
    // Both first attempts hang a second at the sandbox, so the ACECF is gone before any attempt could deliver it.
    for (const service of ['emisorreceptor', 'aprobacioncomercial'])
      assert.equal(
        (await world.sandbox.admin('POST', '/faults', { service, mode: 'timeout', delayMs: 1_000, count: 1 })).status,
        201,
      );
    try {
      assert.equal((await respond(received.id, { decision: 'approved' })).statusCode, 202);
      const { storage } = world.app.config;
      assert.equal(storage.kind, 'fs');
      const { db } = world.app.application.database;
      const acecf = await db
        .selectFrom('received_artefacts')
        .select('blob_key')
        .where('received_document_id', '=', received.id)
        .where('kind', '=', 'acecf-xml')
        .executeTakeFirstOrThrow();
      rmSync(join(storage.root, ...acecf.blob_key.split('/')));
      const settled = await untilDeliveriesSettle(received.id);
      for (const delivery of settled.commercialResponse?.deliveries ?? []) {
        assert.deepEqual(
          [delivery.status, delivery.attempts, delivery.deliveredAt],
          ['exhausted', maxAttempts, null],
          delivery.target,
        );
        assert.match(
          delivery.lastError ?? '',
          /^an error of this service: archived blob received\/.+acecf-xml\.v1\.xml is missing$/,
        );
      }
      const events = (await timeline(received.id)).filter((event) => event.type.startsWith('commercial_response.'));
      for (const target of ['issuer', 'dgii']) {
        const mine = events.filter((event) => event.type.startsWith(`commercial_response.${target}.`));
        assert.deepEqual(
          mine.map((event) => event.status),
          [...Array<string>(maxAttempts - 1).fill('failed'), 'exhausted'],
          target,
        );
        assert.match(
          mine[maxAttempts - 1]?.cause ?? '',
          /attempt 4 of 4 failed \(an error of this service: archived blob .* is missing\); no attempts left/,
        );
      }
      assert.deepEqual(await arrivalsOf('emisorreceptor', received.eNCF), [], 'nothing reached the issuer');
      assert.deepEqual(await approvalsAtDgii(received.eNCF), [], 'nothing reached DGII');
    } finally {
      await world.sandbox.admin('DELETE', '/faults');
    }
  });

  it('keeps companies apart and needs documents:send', async () => {
    const received = await receiveFromCounterpart('31');
    const otherId = await world.app.provisionCompany({ rnc: nextRnc() });
    const certificate = createSelfSignedP12({
      commonName: 'OTRA',
      serialNumber: '131000001',
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2036-01-01'),
      password: 'clave',
    });
    assert.equal(
      (
        await world.app.sendEvent('certificate.installed', {
          companyId: otherId,
          p12Base64: certificate.p12.toString('base64'),
          password: 'clave',
        })
      ).statusCode,
      200,
    );
    const { apiKey: other } = await world.app.issueKey(otherId, ['documents:send', 'documents:read']);
    const asOther = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
      world.app.app.inject({
        method,
        url,
        headers: { 'x-api-key': other },
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
    assertProblem(
      await asOther('POST', `/api/v1/recibidos/${received.id}/respuesta-comercial`, { decision: 'approved' }),
      404,
      'document_not_found',
    );
    assertProblem(await asOther('GET', `/api/v1/recibidos/${received.id}`), 404, 'document_not_found');

    const { apiKey: reader } = await world.app.issueKey(world.companyId, ['received:read']);
    const forbidden = await world.app.app.inject({
      method: 'POST',
      url: `/api/v1/recibidos/${received.id}/respuesta-comercial`,
      headers: { 'x-api-key': reader },
      payload: { decision: 'approved' },
    });
    assertProblem(forbidden, 403, 'scope_missing');
    assert.equal((await view(received.id)).commercialResponse, null);

    // The English alias is the same route.
    const alias = await world.call('POST', `/api/v1/received/${received.id}/commercial-response`, {
      decision: 'approved',
    });
    assert.equal(alias.statusCode, 202, alias.body);
  });
});
