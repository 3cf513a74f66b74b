// Sending (SPEC §4.3, DESIGN §5.2), through HTTP against a running app and a real DGII sandbox: every type from
// creation to DGII's verdict through `enviar`; type 32 under DOP 250,000 as an RFCE with the full e-CF still
// downloadable; a rejection carries DGII's messages into the document and its timeline; enviar, actualizar-estado and
// reintentar answer as documented; failed jobs open and close.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ecfDocuments } from './support/ecf-documents.js';
import { assertProblem } from './support/assert-problem.js';
import { startSendingWorld, type SendingWorld, type SentDocument as DocumentBody } from './support/sending-kit.js';
import { opsToken } from './support/test-app.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';

type Json = Record<string, unknown>;
interface SendAnswer {
  id: string;
  status: string;
  changed: boolean;
  detail: string;
}

const nextYear = new Date().getUTCFullYear() + 1;

describe('sending to DGII (sandbox)', { timeout: 300_000 }, () => {
  let world: SendingWorld;
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) => world.call(method, url, payload);

  async function sendAndWait(body: Json): Promise<DocumentBody> {
    const created = await world.create(body);
    const sent = await call('POST', `/api/v1/documentos/${created.id}/enviar`);
    assert.equal(sent.statusCode, 202, sent.body);
    assert.equal(sent.json<{ data: SendAnswer }>().data.status, 'queued');
    return world.untilSettled(created.id);
  }

  before(async () => {
    // The status service answers with any key in the sandbox; with one, sending heeds DGII's maintenance windows.
    world = await startSendingWorld({ env: { DGII_STATUS_API_KEY: 'sandbox-status-key' } });
  });
  after(() => world.close());

  let invoice: DocumentBody;

  it('takes an invoice from signed to accepted through enviar, with its trackId and timeline', async () => {
    invoice = await sendAndWait(ecfDocuments['31']);
    assert.equal(invoice.status, 'accepted');
    assert.ok(invoice.dgii !== null);
    assert.equal(invoice.dgii.route, 'reception');
    assert.match(invoice.dgii.trackId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(invoice.dgii.estado, 'Aceptado');
    assert.equal(invoice.dgii.attempts, 1, 'one attempt made: the one DGII took');
    const timeline = (await call('GET', `/api/v1/documentos/${invoice.id}/cronologia`)).json<{
      data: { events: { type: string; status: string | null }[] };
    }>().data.events;
    // The status changes; the buyer's delivery, which starts at the verdict, adds events of its own (no status)
    // that may land before or after this read.
    assert.deepEqual(
      timeline.filter((event) => event.status !== null).map((event) => event.status),
      ['signed', 'queued', 'sending', 'in_process', 'accepted'],
    );
    for (const event of timeline.filter((event) => event.status === null)) assert.match(event.type, /^deliver/);
    // The sandbox received this e-NCF once.
    const arrivals = await world.sandbox.admin('GET', `/arrivals?encf=${invoice.eNCF}`);
    assert.deepEqual(
      (arrivals.body as { service: string }[]).map((arrival) => arrival.service),
      ['recepcion'],
    );
  });

  it('takes every other type to a final verdict; notes reference the accepted invoice', async () => {
    const reference = { NCFModificado: invoice.eNCF, FechaNCFModificado: '15-11-2026', CodigoModificacion: 3 };
    for (const type of ['32', '33', '34', '41', '43', '44', '45', '46', '47']) {
      const body = structuredClone(ecfDocuments[type as '31']) as Json & { InformacionReferencia?: Json };
      if (body.InformacionReferencia !== undefined)
        body.InformacionReferencia = { ...body.InformacionReferencia, ...reference };
      const done = await sendAndWait(body);
      assert.ok(
        done.status === 'accepted' || done.status === 'accepted_conditional',
        `type ${type}: ${done.status} ${JSON.stringify(done.dgii)}`,
      );
      assert.equal(done.dgii?.route, type === '32' ? 'rfce' : 'reception', `type ${type}`);
    }
  });

  it('sends a type 32 under DOP 250,000 as an RFCE and keeps the full e-CF downloadable', async () => {
    const done = await sendAndWait(ecfDocuments['32']);
    assert.ok(done.dgii !== null);
    assert.equal(done.dgii.route, 'rfce');
    assert.equal(done.dgii.trackId, null);
    assert.equal(done.dgii.attempts, 1);
    const signed = await call('GET', `/api/v1/documentos/${done.id}/artefactos/signed-xml`);
    assert.equal(signed.statusCode, 200);
    assert.match(signed.body, /^<\?xml[^>]*\?><ECF>/);
    assert.match(signed.body, /<TipoeCF>32<\/TipoeCF>/);
    // The RFCE it went as is archived beside it, signed once: DGII's schema and xmlsec1 accept it.
    const rfce = await call('GET', `/api/v1/documentos/${done.id}/artefactos/rfce-xml`);
    assert.equal(rfce.statusCode, 200, rfce.body);
    assert.match(rfce.body, /^<\?xml[^>]*\?><RFCE[ >]/);
    assert.match(rfce.body, new RegExp(`<eNCF>${done.eNCF}</eNCF>`));
    const schema = validateWithOfficialXsd('RFCE-32.xsd', rfce.body);
    assert.ok(schema.valid, schema.errors);
    const verified = verifyWithXmlsec1Embedded(rfce.body);
    assert.ok(verified.ok, verified.output);
  });

  it("carries a rejection with DGII's messages into the document and its timeline; reintentar says when it may not", async () => {
    // A number DGII never authorised: our range goes past the sandbox's.
    const range = await call('POST', '/api/v1/secuencias/rangos', {
      ecfType: '45',
      from: 'E450090000001',
      to: 'E450090000010',
      expiresOn: `31-12-${String(nextYear)}`,
    });
    assert.equal(range.statusCode, 201, range.body);
    const usedUp = await world.app.application.database.db
      .updateTable('sequence_ranges')
      .set({ next_number: 100_001 })
      .where('company_id', '=', world.companyId)
      .where('ecf_type', '=', '45')
      .where('first_number', '=', 1)
      .execute();
    assert.equal(Number(usedUp[0]?.numUpdatedRows), 1);
    const rejected = await sendAndWait(ecfDocuments['45']);
    assert.equal(rejected.eNCF, 'E450090000001');
    assert.equal(rejected.status, 'rejected');
    assert.ok(rejected.dgii !== null);
    assert.equal(rejected.dgii.estado, 'Rechazado');
    assert.ok(rejected.dgii.mensajes.length > 0);
    const timeline = (await call('GET', `/api/v1/documentos/${rejected.id}/cronologia`)).json<{
      data: { events: { type: string; cause: string }[] };
    }>().data.events;
    const verdict = timeline.find((event) => event.type === 'dgii.rejected');
    assert.ok(verdict !== undefined);
    for (const message of rejected.dgii.mensajes) assert.ok(verdict.cause.includes(message.valor), verdict.cause);

    const retried = await call('POST', `/api/v1/documentos/${rejected.id}/reintentar`);
    if (rejected.dgii.secuenciaUtilizada === false) assert.equal(retried.statusCode, 202);
    else assertProblem(retried, 409, 'document_not_retryable');
  });

  it('answers enviar on a document already on its way or final with 202 and changed false; reintentar refuses an accepted one', async () => {
    const again = await call('POST', `/api/v1/documentos/${invoice.id}/enviar`);
    assert.equal(again.statusCode, 202);
    assert.deepEqual(
      { ...again.json<{ data: SendAnswer }>().data, detail: '' },
      {
        id: invoice.id,
        eNCF: invoice.eNCF,
        status: 'accepted',
        changed: false,
        detail: '',
        trackId: invoice.dgii?.trackId ?? null,
      },
    );
    assertProblem(await call('POST', `/api/v1/documentos/${invoice.id}/reintentar`), 409, 'document_not_retryable');
    const refreshed = await call('POST', `/api/v1/documentos/${invoice.id}/actualizar-estado`);
    assert.equal(refreshed.statusCode, 200);
    assert.equal(refreshed.json<{ data: SendAnswer }>().data.status, 'accepted');
    assertProblem(await call('POST', '/api/v1/documentos/doc_nope/enviar'), 404, 'document_not_found');
  });

  it('shows DGII health to operators: breakers and pending documents, sending nothing', async () => {
    const health = await world.app.app.inject({
      method: 'GET',
      url: '/internal/health/dgii',
      headers: { authorization: `Bearer ${opsToken}` },
    });
    assert.equal(health.statusCode, 200, health.body);
    const body = health.json<{ environment: string; breakers: unknown[]; pending: Record<string, number> }>();
    assert.equal(body.environment, 'TEST');
    assert.ok(Array.isArray(body.breakers));
    assert.equal((await world.app.app.inject({ method: 'GET', url: '/internal/health/dgii' })).statusCode, 401);
  });

  it("pauses sending during a DGII maintenance window: the document waits queued for the window's end, nothing reaches DGII", async () => {
    // A window around now, in DGII's shape: 12-hour times and dd-MM-yyyy days in Santo Domingo time (GMT-4).
    const local = (ms: number) => new Date(Date.now() + ms - 4 * 3_600_000);
    const clock = (date: Date) =>
      `${String(date.getUTCHours() % 12 === 0 ? 12 : date.getUTCHours() % 12)}:${String(date.getUTCMinutes()).padStart(2, '0')} ${date.getUTCHours() < 12 ? 'AM' : 'PM'}`;
    const start = local(-2 * 60_000);
    const end = local(4 * 60_000);
    const day = (date: Date) =>
      `${String(date.getUTCDate()).padStart(2, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(date.getUTCFullYear())}`;
    if (day(start) !== day(end)) return; // a window across midnight in Santo Domingo is two windows; not this test's subject
    const windows = [
      { ambiente: 'PreCertificacion', horaInicio: clock(start), horaFin: clock(end), dias: [day(start)] },
    ];
    assert.equal((await world.sandbox.admin('PUT', '/settings', { maintenanceWindows: windows })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 5_500)); // the previous status answer ages out
    try {
      const created = await world.create(ecfDocuments['31']);
      await world.send(created.id);
      const db = world.app.application.database.db;
      let paused: { cause: string } | undefined;
      for (let tries = 0; tries < 100 && paused === undefined; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        paused = await db
          .selectFrom('document_events')
          .select('cause')
          .where('document_id', '=', created.id)
          .where('type', '=', 'dgii.not_taken')
          .executeTakeFirst();
      }
      assert.ok(paused !== undefined, 'sending was not paused');
      assert.match(paused.cause, /maintenance window until/);
      assert.equal((await world.get(created.id)).status, 'queued');
      // DGII out of reach when the e-CF was issued is a recorded fact: its printed representation says contingency.
      const printed = await call('GET', `/api/v1/documentos/${created.id}/impresion`);
      const printable = printed.json<{ data: { contingency: boolean; legends: { code: string; text: string }[] } }>();
      assert.equal(printable.data.contingency, true, printed.body);
      assert.match(printable.data.legends.find((legend) => legend.code === 'contingency')?.text ?? '', /setenta y dos/);
      const arrivals = await world.sandbox.admin('GET', `/arrivals?encf=${created.eNCF}`);
      assert.deepEqual(arrivals.body, []);
      // The next attempt waits for the window's end (to the minute DGII gives).
      const resumesAt =
        (
          await db.selectFrom('documents').select('send_due_at').where('id', '=', created.id).executeTakeFirstOrThrow()
        ).send_due_at?.getTime() ?? 0;
      assert.ok(
        Math.abs(resumesAt - (Date.now() + 4 * 60_000)) < 70_000,
        `resumes at ${new Date(resumesAt).toISOString()}`,
      );
    } finally {
      assert.equal((await world.sandbox.admin('PUT', '/settings', { maintenanceWindows: [] })).status, 200);
    }
  });
});
