// Every accepted e-CF whose buyer is not an electronic receiver reaches the buyer by e-mail (issue 42; Informe Técnico
// §8, Figura II): through HTTP against a running app with a worker and the DGII sandbox, sending through a real SMTP
// server in its own process, which answers each recipient as the test scripts it and keeps what it accepts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { tool } from './support/pdf-tools.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { startSmtpProcess, type ReceivedMail, type SmtpProcess } from './support/smtp-process.js';
import {
  issueAccepted as issueAcceptedIn,
  readDelivered,
  untilDeliverySettled as untilSettledDelivery,
  type DeliveredDocument,
  type Delivery,
} from './support/delivery-kit.js';
import { requireTool } from './support/tools.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';

type Json = Record<string, unknown>;

interface FailedJob {
  kind: string;
  documentId: string | null;
  reason: string;
  attempts: number;
  open: boolean;
  closedBecause: string | null;
}

const mailFrom = 'facturas@ecf-service.example';
/** The e-CF's issuer as the fixtures name it (NombreComercial), which the message names. */
const issuerName = 'Ferretería "El Martillo"';

/** A type 31 to the fixtures' buyer, whom DGII's directory does not list, with `buyer` merged into Comprador. */
function invoiceTo(buyer: Json = {}): Json {
  const base = structuredClone(ecfDocuments['31']) as { Encabezado: Json };
  base.Encabezado['Comprador'] = { ...(base.Encabezado['Comprador'] as Json), ...buyer };
  return base;
}

/** What a reader of the HTML part sees: the tags gone, the character references read. */
function htmlText(html: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&([a-z]+);/g, (whole, name: string) => named[name] ?? whole);
}

describe('delivery to the buyer by e-mail', () => {
  let smtp: SmtpProcess;
  let world: SendingWorld;
  let scratch: string;

  before(async () => {
    smtp = await startSmtpProcess();
    world = await startSendingWorld({
      env: {
        SMTP_URL: smtp.url,
        SMTP_FROM: mailFrom,
        SMTP_TIMEOUT_MS: '5000',
        DELIVERY_RETRY_BASE_MS: '50',
        DELIVERY_MAX_ATTEMPTS: '4',
      },
    });
    scratch = mkdtempSync(join(tmpdir(), 'ecf-email-test-'));
  });
  after(async () => {
    await world.close();
    await smtp.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const read = (id: string) => readDelivered(world, id);

  const entregar = (id: string, body?: Json) => world.call('POST', `/api/v1/documentos/${id}/entregar`, body);

  const issueAccepted = (body: Json) => issueAcceptedIn(world, body);
  const untilDeliverySettled = (id: string) => untilSettledDelivery(world, id);

  const timeline = async (id: string) =>
    (await world.call('GET', `/api/v1/documentos/${id}/cronologia`)).json<{
      data: { events: { type: string; cause: string }[] };
    }>().data.events;

  const failedJobs = async (query: string) =>
    (await world.call('GET', `/api/v1/trabajos-fallidos?${query}`)).json<{ data: FailedJob[] }>().data;

  const rcptCount = async (address: string) => (await smtp.counts()).rcpt[address.toLowerCase()] ?? 0;

  async function mailTo(address: string): Promise<ReceivedMail[]> {
    return (await smtp.messages()).filter((message) => message.envelope.to.includes(address));
  }

  async function onlyMailTo(address: string): Promise<ReceivedMail> {
    const received = await mailTo(address);
    assert.equal(received.length, 1, `messages to ${address}: ${String(received.length)}`);
    return received[0]!;
  }

  function saved(bytes: Buffer, name: string): string {
    const file = join(scratch, name);
    writeFileSync(file, bytes);
    return file;
  }

  describe('a type 31 to a buyer DGII does not list, with CorreoComprador', () => {
    const correo = 'cuentas@distribuidora-pena.example';
    let document: DeliveredDocument & { entrega: Delivery };
    let received: ReceivedMail;

    before(async () => {
      const updated = await world.app.sendEvent('company.updated', {
        companyId: world.companyId,
        delivery: { senderName: 'Facturación El Martillo', replyTo: 'cobros@elmartillo.example' },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      const issued = await issueAccepted(invoiceTo({ CorreoComprador: correo }));
      document = await untilDeliverySettled(issued.id);
      received = await onlyMailTo(correo);
    });

    it('is delivered by correo to CorreoComprador, with the Message-ID the server got', () => {
      assert.equal(document.entrega.status, 'delivered', JSON.stringify(document.entrega));
      assert.equal(document.entrega.canal, 'correo');
      assert.equal(document.entrega.destino, correo);
      assert.equal(document.entrega.attempts, 1);
      assert.equal(document.entrega.lastError, null);
      assert.match(document.entrega.messageId ?? '', /^<.+@ecf-service\.example>$/);
      assert.equal(received.messageId, document.entrega.messageId);
      assert.deepEqual(received.envelope, { from: mailFrom, to: [correo] });
      assert.deepEqual(received.to, [correo]);
    });

    it("comes from the company's configured sender name, answering to its Reply-To", () => {
      assert.deepEqual(received.from, { name: 'Facturación El Martillo', address: mailFrom });
      assert.equal(received.replyTo, 'cobros@elmartillo.example');
    });

    it('says in Spanish, in text and in HTML, who issued what, for how much, when, and where to consult it', () => {
      assert.match(received.subject ?? '', /Factura de Crédito Fiscal Electrónica/);
      assert.ok(received.subject?.includes(document.eNCF), received.subject);
      assert.ok(received.subject?.includes(issuerName), received.subject);
      assert.ok(received.text !== undefined && received.html !== undefined, 'a text part and an HTML part');
      for (const [part, body] of [
        ['text', received.text],
        ['html', htmlText(received.html)],
      ] as const) {
        for (const fact of [issuerName, document.eNCF, document.montoTotal, document.fechaEmision, document.timbreUrl])
          assert.ok(body.includes(fact), `the ${part} part names ${fact}:\n${body}`);
        assert.match(body, /comprobante fiscal electrónico/);
        assert.match(body, /Fecha de emisión/);
        assert.match(body, /Monto total/);
      }
      const links = [...received.html.matchAll(/href="([^"]*)"/g)].map((match) => htmlText(match[1] ?? ''));
      assert.deepEqual(links, [document.timbreUrl], 'the HTML part links to the QR consult URL');
    });

    it('attaches the PDF and the signed XML, named RNCEmisor + eNCF + .xml', () => {
      assert.deepEqual(
        received.attachments.map(({ filename, contentType }) => ({ filename, contentType })),
        [
          // The company's default paper format, a4 unless it chose another.
          { filename: `${issuerRnc}${document.eNCF}-a4.pdf`, contentType: 'application/pdf' },
          { filename: `${issuerRnc}${document.eNCF}.xml`, contentType: 'application/xml' },
        ],
      );
      assert.equal(received.attachments[0]?.content.subarray(0, 5).toString('latin1'), '%PDF-');
    });

    it('attaches a PDF that reads the e-NCF and the total', async (t) => {
      if (!requireTool(t, 'pdftotext')) return;
      const pdf = received.attachments.find((attachment) => attachment.contentType === 'application/pdf');
      assert.ok(pdf !== undefined);
      const text = await tool('pdftotext', ['-layout', saved(pdf.content, `${document.eNCF}.pdf`), '-']);
      assert.match(text, new RegExp(`e-NCF:\\s+${document.eNCF}\\b`), text);
      // The printed representation groups thousands (1,430.00); the e-CF writes 1430.00.
      const [units = '', cents = ''] = document.montoTotal.split('.');
      const printed = `${Number(units).toLocaleString('en-US')}.${cents}`;
      assert.match(text, new RegExp(`\\bTotal:\\s+${printed.replace(/[.,]/g, '\\$&')}\\b`), text);
    });

    it('attaches the archived signed XML byte for byte', async () => {
      const xml = received.attachments.find((attachment) => attachment.contentType === 'application/xml');
      assert.ok(xml !== undefined);
      const archived = await world.call('GET', `/api/v1/documentos/${document.id}/artefactos/signed-xml`);
      assert.equal(archived.statusCode, 200);
      assert.ok(xml.content.equals(archived.rawPayload), 'the attachment is the signed-xml artefact byte for byte');
    });

    it('attaches an XML whose signature xmlsec1 verifies', (t) => {
      if (!requireTool(t, 'xmlsec1')) return;
      const xml = received.attachments.find((attachment) => attachment.contentType === 'application/xml');
      assert.ok(xml !== undefined);
      const verified = verifyWithXmlsec1Embedded(xml.content);
      assert.ok(verified.ok, verified.output);
    });
  });

  it('fails at once, in the server’s words, on a 550 at RCPT; entregar to another address delivers it', async () => {
    const refused = 'nadie@distribuidora-pena.example';
    const instead = 'pagos@distribuidora-pena.example';
    await smtp.script(refused, [
      { at: 'rcpt', code: 550, text: '5.1.1 <nadie@distribuidora-pena.example>: no such mailbox' },
    ]);
    const issued = await issueAccepted(invoiceTo({ CorreoComprador: refused }));
    const failed = await untilDeliverySettled(issued.id);
    assert.equal(failed.entrega.status, 'failed', JSON.stringify(failed.entrega));
    assert.equal(failed.entrega.canal, 'correo');
    assert.equal(failed.entrega.destino, refused);
    assert.equal(failed.entrega.attempts, 1);
    assert.match(failed.entrega.lastError ?? '', /550 5\.1\.1 <nadie@distribuidora-pena\.example>: no such mailbox/);
    // Longer than a retry would take (DELIVERY_RETRY_BASE_MS 50): the refusal is final, so none comes.
    await sleep(500);
    assert.equal(await rcptCount(refused), 1);
    assert.deepEqual((await mailTo(refused)).length, 0);
    assert.equal((await read(issued.id)).entrega?.attempts, 1);

    const events = await timeline(issued.id);
    const failure = events.find((event) => event.type === 'delivery.failed');
    assert.match(failure?.cause ?? '', /attempt 1 refused for good to nadie@distribuidora-pena\.example/);
    assert.match(failure?.cause ?? '', /550 5\.1\.1/, JSON.stringify(events));
    assert.ok(!events.some((event) => event.type === 'delivery.attempt_failed'), JSON.stringify(events));
    const open = (await failedJobs('open=true')).filter((job) => job.documentId === issued.id);
    assert.equal(open.length, 1, JSON.stringify(open));
    const [job] = open;
    assert.ok(job !== undefined);
    assert.equal(job.kind, 'buyer_delivery');
    assert.equal(job.attempts, 1);
    assert.match(job.reason, /550 5\.1\.1/);

    const asked = await entregar(issued.id, { correo: instead });
    assert.equal(asked.statusCode, 202, asked.body);
    const answer = asked.json<{ data: DeliveredDocument }>().data;
    assert.equal(answer.id, issued.id);
    assert.equal(answer.entrega?.status, 'pending');
    assert.equal(answer.entrega.attempts, 0);
    assert.equal((await failedJobs('open=true')).filter((job) => job.documentId === issued.id).length, 0);
    const closed = (await failedJobs('open=false')).filter((job) => job.documentId === issued.id);
    assert.equal(closed.length, 1, JSON.stringify(closed));
    assert.equal(closed[0]?.closedBecause, 'delivery asked for again (entregar)');

    const delivered = await untilDeliverySettled(issued.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.canal, 'correo');
    assert.equal(delivered.entrega.destino, instead);
    assert.equal(delivered.entrega.attempts, 1);
    const received = await onlyMailTo(instead);
    assert.equal(received.messageId, delivered.entrega.messageId);
    assert.ok(received.subject?.includes(issued.eNCF), received.subject);
    assert.equal(await rcptCount(refused), 1);
  });

  it('tries again after a 451 at RCPT and delivers on the second attempt', async () => {
    const busy = 'ocupado@distribuidora-pena.example';
    await smtp.script(busy, [
      { at: 'rcpt', code: 451, text: '4.3.0 Mailbox temporarily unavailable' },
      { at: 'rcpt', code: 250, text: 'OK' },
    ]);
    const issued = await issueAccepted(invoiceTo({ CorreoComprador: busy }));
    const delivered = await untilDeliverySettled(issued.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.canal, 'correo');
    assert.equal(delivered.entrega.destino, busy);
    assert.equal(delivered.entrega.attempts, 2);
    assert.equal(delivered.entrega.lastError, null);
    assert.equal(await rcptCount(busy), 2);
    const received = await onlyMailTo(busy);
    assert.equal(received.messageId, delivered.entrega.messageId);

    const events = await timeline(issued.id);
    const retried = events.filter((event) => event.type === 'delivery.attempt_failed');
    assert.equal(retried.length, 1, JSON.stringify(events));
    assert.match(retried[0]?.cause ?? '', /attempt 1 of 4 failed to ocupado@distribuidora-pena\.example/);
    assert.match(retried[0]?.cause ?? '', /451 4\.3\.0 Mailbox temporarily unavailable/);
    assert.ok(events.some((event) => event.type === 'delivery.delivered'));
  });

  // A 421 closes the connection (RFC 5321 §3.8). On a pooled connection that has sent before, nodemailer's pool takes
  // it for a connection the server dropped while idle and resends at once over a fresh one, within the same attempt
  // (platform/mail/mailer.ts); only a 421 on that fresh connection reaches the engine. The test before this one leaves
  // such a pooled connection behind (451 keeps the connection open), hence two 421s for one failed attempt.
  it('tries again after a 421 at RCPT, and names it in the timeline', async () => {
    const closing = 'cierre@distribuidora-pena.example';
    await smtp.script(closing, [
      { at: 'rcpt', code: 421, text: '4.7.0 Try again later, closing connection' },
      { at: 'rcpt', code: 421, text: '4.7.0 Try again later, closing connection' },
      { at: 'rcpt', code: 250, text: 'OK' },
    ]);
    const connections = (await smtp.counts()).connections;
    const issued = await issueAccepted(invoiceTo({ CorreoComprador: closing }));
    const delivered = await untilDeliverySettled(issued.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.destino, closing);
    assert.equal(delivered.entrega.attempts, 2);
    const counts = await smtp.counts();
    assert.equal(counts.rcpt[closing], 3, 'the pooled connection, a fresh one in attempt 1, another in attempt 2');
    assert.equal(counts.connections, connections + 2);
    const received = await onlyMailTo(closing);
    assert.equal(received.messageId, delivered.entrega.messageId);

    const events = await timeline(issued.id);
    const retried = events.filter((event) => event.type === 'delivery.attempt_failed');
    assert.equal(retried.length, 1, JSON.stringify(events));
    assert.match(retried[0]?.cause ?? '', /attempt 1 of 4 failed to cierre@distribuidora-pena\.example/);
    assert.match(retried[0]?.cause ?? '', /421 4\.7\.0 Try again later/);
  });

  it('skips a document with no channel, saying why; entregar with correo delivers it by e-mail', async () => {
    const issued = await issueAccepted(invoiceTo());
    const skipped = await untilDeliverySettled(issued.id);
    assert.equal(skipped.entrega.status, 'skipped', JSON.stringify(skipped.entrega));
    assert.equal(skipped.entrega.canal, 'ninguno');
    assert.equal(skipped.entrega.destino, null);
    assert.match(skipped.entrega.reason ?? '', /not an electronic receiver in DGII's directory/);
    assert.match(skipped.entrega.reason ?? '', /no CorreoComprador/);

    // Without a sender name of its own, the e-mail goes out under the company's trade name.
    const updated = await world.app.sendEvent('company.updated', {
      companyId: world.companyId,
      tradeName: 'Martillo Digital',
      delivery: { senderName: null, replyTo: null },
    });
    assert.equal(updated.statusCode, 200, updated.body);

    const correo = 'compras@otro-cliente.example';
    const asked = await entregar(issued.id, { correo });
    assert.equal(asked.statusCode, 202, asked.body);
    const delivered = await untilDeliverySettled(issued.id);
    assert.equal(delivered.entrega.status, 'delivered', JSON.stringify(delivered.entrega));
    assert.equal(delivered.entrega.canal, 'correo');
    assert.equal(delivered.entrega.destino, correo);
    assert.equal(delivered.entrega.reason, null);
    const received = await onlyMailTo(correo);
    assert.equal(received.messageId, delivered.entrega.messageId);
    assert.deepEqual(received.from, { name: 'Martillo Digital', address: mailFrom });
    assert.equal(received.replyTo, undefined);
    assert.ok(received.subject?.includes(issued.eNCF), received.subject);
  });

  it('refuses bad requests to entregar and queues nothing', async () => {
    const accepted = await untilDeliverySettled((await issueAccepted(invoiceTo())).id);
    const unsent = await world.create(invoiceTo({ CorreoComprador: 'sin-enviar@cliente.example' }));
    const other = await world.app.provisionCompany();
    const { apiKey: otherKey } = await world.app.issueKey(other, ['documents:read', 'documents:send']);
    const asOther = (id: string, payload: Json): Promise<LightMyRequestResponse> =>
      world.app.app.inject({
        method: 'POST',
        url: `/api/v1/documentos/${id}/entregar`,
        headers: { 'x-api-key': otherKey },
        payload,
      });
    const addresses = {
      unknown: 'desconocido@cliente.example',
      otherTenant: 'otro-inquilino@cliente.example',
      unsent: 'no-aceptado@cliente.example',
    };

    assertProblem(await entregar('doc_doesNotExist0000000', { correo: addresses.unknown }), 404, 'document_not_found');
    assertProblem(await asOther(accepted.id, { correo: addresses.otherTenant }), 404, 'document_not_found');
    assertFieldError(await entregar(accepted.id, { correo: 'no-es-correo' }), 400, 'validation_failed', '/correo');
    assertProblem(await entregar(unsent.id, { correo: addresses.unsent }), 409, 'document_not_deliverable');

    // Long enough for a delivery wrongly queued to reach the SMTP server (the loop wakes on entregar).
    await sleep(1_000);
    assert.deepEqual((await read(accepted.id)).entrega, accepted.entrega);
    assert.equal((await read(unsent.id)).entrega, null);
    for (const id of [accepted.id, unsent.id])
      assert.ok(!(await timeline(id)).some((event) => event.type === 'delivery.requested'), id);
    for (const address of [...Object.values(addresses), 'no-es-correo'])
      assert.equal(await rcptCount(address), 0, address);
  });
});
