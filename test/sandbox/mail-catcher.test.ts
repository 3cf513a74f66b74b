// The sandbox's mail catcher: what the service's SMTP client sends it is kept and read back through the admin
// routes: listed newest first (and by recipient), parsed with its attachments' digests, and as sent.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { createMailer, type MailMessage, type Mailer } from '../../src/platform/mail/index.js';
import { startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';

const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20_000), Buffer.from('\n%%EOF\n')]);
const xml = Buffer.from('<?xml version="1.0" encoding="utf-8"?><ECF><eNCF>E310000000007</eNCF></ECF>');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function invoice(to: string, encf: string): MailMessage {
  return {
    from: { name: 'Compañía Ejemplo', address: 'facturas@ecf-service.invalid' },
    replyTo: 'ventas@compania.example',
    to,
    subject: `Factura electrónica ${encf}`,
    text: `Adjuntamos su factura ${encf}.`,
    html: `<p>Adjuntamos su factura <b>${encf}</b>.</p>`,
    attachments: [
      { filename: `${encf}.pdf`, content: pdf, contentType: 'application/pdf' },
      { filename: `${encf}.xml`, content: xml, contentType: 'application/xml' },
    ],
  };
}

interface Listed {
  id: number;
  envelope_from: string;
  recipients: string[];
  subject: string | null;
  message_id: string | null;
  size: number;
}

describe('the sandbox mail catcher', () => {
  let running: RunningSandbox;
  let mailer: Mailer;
  let catcherUrl: string;
  before(async () => {
    running = await startSandbox();
    catcherUrl = await running.sandbox.catchMail('127.0.0.1');
    mailer = createMailer({ url: catcherUrl, connectTimeoutMs: 2_000, responseTimeoutMs: 5_000 });
  });
  after(async () => {
    mailer.close();
    await running.close();
  });

  it('listens on loopback for plain SMTP', () => {
    assert.match(catcherUrl, /^smtp:\/\/127\.0\.0\.1:\d+$/);
  });

  it('keeps each message it accepts and lists them newest first, or by recipient', async () => {
    const first = await mailer.send(invoice('compras@cliente.example', 'E310000000007'));
    const second = await mailer.send(invoice('Pagos@Otro.example', 'E310000000008'));
    assert.equal(first.kind, 'sent');
    assert.equal(second.kind, 'sent');
    assert.match(first.response, /^250 OK: caught as \d+$/);

    const all = await running.admin('GET', '/mail');
    assert.equal(all.status, 200);
    const rows = all.body as Listed[];
    assert.deepEqual(
      rows.map((row) => [row.message_id, row.recipients, row.subject, row.envelope_from]),
      [
        [second.messageId, ['Pagos@otro.example'], 'Factura electrónica E310000000008', 'facturas@ecf-service.invalid'],
        [
          first.messageId,
          ['compras@cliente.example'],
          'Factura electrónica E310000000007',
          'facturas@ecf-service.invalid',
        ],
      ],
    );
    assert.ok((rows[0]?.size ?? 0) > pdf.length, 'the size counts the whole message');

    const byRecipient = await running.admin('GET', '/mail?to=pagos@otro.example');
    assert.deepEqual(
      (byRecipient.body as Listed[]).map((row) => row.message_id),
      [second.messageId],
    );
  });

  it('reads one message back with its parts and the digests of its attachments', async () => {
    const sent = await mailer.send(invoice('lectura@cliente.example', 'E310000000009'));
    assert.equal(sent.kind, 'sent');
    const [row] = (await running.admin('GET', '/mail?to=lectura@cliente.example')).body as Listed[];
    assert.ok(row !== undefined);
    const one = await running.admin('GET', `/mail/${String(row.id)}`);
    assert.equal(one.status, 200);
    const body = one.body as Record<string, unknown>;
    assert.equal(body.message_id, sent.messageId);
    assert.equal(body.from, '"Compañía Ejemplo" <facturas@ecf-service.invalid>');
    assert.equal(body.replyTo, 'ventas@compania.example');
    assert.deepEqual(body.to, ['lectura@cliente.example']);
    assert.equal((body.text as string).trim(), 'Adjuntamos su factura E310000000009.');
    assert.equal(body.html, '<p>Adjuntamos su factura <b>E310000000009</b>.</p>');
    assert.deepEqual(body.attachments, [
      { filename: 'E310000000009.pdf', contentType: 'application/pdf', size: pdf.length, sha256: sha256(pdf) },
      { filename: 'E310000000009.xml', contentType: 'application/xml', size: xml.length, sha256: sha256(xml) },
    ]);
    assert.equal(body.raw, undefined, 'the raw message has a route of its own');

    const raw = await fetch(`${running.url}/sandbox-admin/mail/${String(row.id)}/raw`);
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('content-type'), 'message/rfc822');
    const parsed = await simpleParser(Buffer.from(await raw.arrayBuffer()));
    assert.equal(parsed.messageId, sent.messageId);
    assert.ok(parsed.attachments[0]?.content.equals(pdf), 'the PDF reads back byte for byte');
    assert.ok(parsed.attachments[1]?.content.equals(xml), 'the XML reads back byte for byte');
  });

  it('answers 404 for a message it never caught, and empties the box on DELETE', async () => {
    assert.equal((await running.admin('GET', '/mail/999999')).status, 404);
    assert.equal((await fetch(`${running.url}/sandbox-admin/mail/999999/raw`)).status, 404);
    assert.equal((await running.admin('GET', '/mail/abc')).status, 400);
    assert.equal((await running.admin('DELETE', '/mail')).status, 204);
    assert.deepEqual((await running.admin('GET', '/mail')).body, []);
  });
});
