// The SMTP client against a real SMTP server in its own process: what arrives is what was sent (attachments byte for
// byte), and every way a send can fail comes back as the outcome a retry policy needs, in the server's own words.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createMailer, type MailMessage, type Mailer } from '../src/platform/mail/index.js';
import { freePort } from './support/free-port.js';
import { startSmtpProcess, type SmtpProcess } from './support/smtp-process.js';

const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(40_000), Buffer.from('\n%%EOF\n')]);
const xml = Buffer.from(
  '<?xml version="1.0" encoding="utf-8"?><ECF><RazonSocialComprador>Señora Peña</RazonSocialComprador></ECF>',
);

function message(to: string, overrides: Partial<MailMessage> = {}): MailMessage {
  return {
    from: { name: 'Compañía Ejemplo, S.R.L.', address: 'facturas@ecf.example' },
    replyTo: 'ventas@compania.example',
    to,
    subject: 'Factura electrónica E310000000001',
    text: 'Adjuntamos su factura electrónica.',
    html: '<p>Adjuntamos su <b>factura electrónica</b>.</p>',
    attachments: [
      { filename: 'E310000000001.pdf', content: pdf, contentType: 'application/pdf' },
      { filename: 'E310000000001.xml', content: xml, contentType: 'application/xml' },
    ],
    ...overrides,
  };
}

describe('createMailer against a real SMTP server', () => {
  let server: SmtpProcess;
  let mailer: Mailer;
  before(async () => {
    server = await startSmtpProcess({
      script: {
        'nadie@comprador.example': [
          { at: 'rcpt', code: 550, text: '5.1.1 <nadie@comprador.example>: no such mailbox' },
        ],
        'ocupado@comprador.example': [
          { at: 'rcpt', code: 421, text: '4.7.0 Try again later, closing connection' },
          { at: 'rcpt', code: 250, text: 'OK' },
        ],
        'rechazo@comprador.example': [{ at: 'data', code: 554, text: '5.7.1 Message refused as spam' }],
        'lleno@comprador.example': [{ at: 'data', code: 452, text: '4.2.2 Mailbox full' }],
      },
    });
    mailer = createMailer({ url: server.url, connectTimeoutMs: 2_000, responseTimeoutMs: 2_000 });
  });
  after(async () => {
    mailer.close();
    await server.stop();
  });

  it('delivers the PDF and the XML byte for byte, from the company by name, with Reply-To, text and html', async () => {
    const outcome = await mailer.send(message('comprador@cliente.example'));
    assert.equal(outcome.kind, 'sent');
    assert.match(outcome.messageId, /^<[0-9a-f-]{36}@ecf\.example>$/);
    assert.match(outcome.response, /^250 OK: queued as \d+$/);

    const [received, ...others] = await server.messages();
    assert.equal(others.length, 0);
    assert.ok(received !== undefined);
    assert.deepEqual(received.envelope, { from: 'facturas@ecf.example', to: ['comprador@cliente.example'] });
    assert.deepEqual(received.from, { name: 'Compañía Ejemplo, S.R.L.', address: 'facturas@ecf.example' });
    assert.deepEqual(received.to, ['comprador@cliente.example']);
    assert.equal(received.replyTo, 'ventas@compania.example');
    assert.equal(received.messageId, outcome.messageId);
    assert.equal(received.subject, 'Factura electrónica E310000000001');
    assert.equal(received.text?.trim(), 'Adjuntamos su factura electrónica.');
    assert.equal(received.html, '<p>Adjuntamos su <b>factura electrónica</b>.</p>');
    assert.deepEqual(
      received.attachments.map(({ filename, contentType }) => ({ filename, contentType })),
      [
        { filename: 'E310000000001.pdf', contentType: 'application/pdf' },
        { filename: 'E310000000001.xml', contentType: 'application/xml' },
      ],
    );
    assert.ok(received.attachments[0]?.content.equals(pdf), 'the PDF arrives byte for byte');
    assert.ok(received.attachments[1]?.content.equals(xml), 'the XML arrives byte for byte');
  });

  it('passes extra headers through', async () => {
    const outcome = await mailer.send(
      message('cabeceras@cliente.example', { headers: { 'X-Ecf-Encf': 'E310000000002' }, attachments: [] }),
    );
    assert.equal(outcome.kind, 'sent');
    const received = (await server.messages()).find((mail) => mail.messageId === outcome.messageId);
    assert.equal(received?.headers.get('x-ecf-encf'), 'E310000000002');
  });

  it('answers permanent with 550 and the server words for a mailbox that does not exist', async () => {
    const outcome = await mailer.send(message('nadie@comprador.example'));
    assert.deepEqual(outcome, {
      kind: 'permanent',
      code: 550,
      detail: '550 5.1.1 <nadie@comprador.example>: no such mailbox',
    });
  });

  it('answers transient for a 421, and the next attempt goes through', async () => {
    const fresh = createMailer({ url: server.url, connectTimeoutMs: 2_000, responseTimeoutMs: 2_000 });
    const first = await fresh.send(message('ocupado@comprador.example'));
    assert.deepEqual(first, { kind: 'transient', detail: '421 4.7.0 Try again later, closing connection' });
    const second = await fresh.send(message('ocupado@comprador.example'));
    fresh.close();
    assert.equal(second.kind, 'sent');
    assert.equal((await server.counts()).rcpt['ocupado@comprador.example'], 2, 'one RCPT per send');
  });

  it('moves a message to a new connection when a pooled one is dropped before the message was sent', async () => {
    await server.script('caido@comprador.example', [
      { at: 'rcpt', code: 421, text: '4.4.2 Idle too long, closing connection' },
      { at: 'rcpt', code: 250, text: 'OK' },
    ]);
    const connections = (await server.counts()).connections;
    const outcome = await mailer.send(message('caido@comprador.example'));
    assert.equal(outcome.kind, 'sent', 'the pooled connection had sent before: the pool tried a fresh one');
    const counts = await server.counts();
    assert.equal(counts.rcpt['caido@comprador.example'], 2);
    assert.equal(counts.connections, connections + 1);
    assert.equal((await server.messages()).filter((mail) => mail.messageId === outcome.messageId).length, 1);
  });

  it('tells a refusal after the data (554: permanent) from a deferral (452: transient)', async () => {
    assert.deepEqual(await mailer.send(message('rechazo@comprador.example')), {
      kind: 'permanent',
      code: 554,
      detail: '554 5.7.1 Message refused as spam',
    });
    assert.deepEqual(await mailer.send(message('lleno@comprador.example')), {
      kind: 'transient',
      detail: '452 4.2.2 Mailbox full',
    });
  });

  it('answers transient when a reply takes longer than the response timeout', async () => {
    await server.script('lento@comprador.example', [{ at: 'rcpt', code: 250, text: 'OK', delayMs: 2_000 }]);
    const quick = createMailer({ url: server.url, connectTimeoutMs: 1_000, responseTimeoutMs: 300, pool: false });
    const started = Date.now();
    const outcome = await quick.send(message('lento@comprador.example'));
    quick.close();
    assert.equal(outcome.kind, 'transient');
    assert.match(outcome.detail, /^ETIMEDOUT/);
    assert.ok(Date.now() - started < 1_500, `gave up after ${String(Date.now() - started)} ms`);
  });
});

describe('createMailer when the server cannot be reached or never answers', () => {
  it('answers transient for a refused connection', async () => {
    const mailer = createMailer({
      url: `smtp://127.0.0.1:${String(await freePort())}`,
      connectTimeoutMs: 1_000,
      responseTimeoutMs: 1_000,
    });
    const outcome = await mailer.send(message('comprador@cliente.example'));
    mailer.close();
    assert.equal(outcome.kind, 'transient');
    assert.match(outcome.detail, /ECONNREFUSED/);
  });

  it('answers transient when the server accepts the connection and never greets', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const mailer = createMailer({
      url: `smtp://127.0.0.1:${String(port)}`,
      connectTimeoutMs: 300,
      responseTimeoutMs: 300,
    });
    const started = Date.now();
    const outcome = await mailer.send(message('comprador@cliente.example'));
    mailer.close();
    for (const socket of sockets) socket.destroy();
    silent.close();
    assert.equal(outcome.kind, 'transient');
    assert.match(outcome.detail, /^ETIMEDOUT/);
    assert.ok(Date.now() - started < 1_500, `gave up after ${String(Date.now() - started)} ms`);
  });
});

describe('createMailer with credentials in the URL', () => {
  let server: SmtpProcess;
  before(async () => {
    server = await startSmtpProcess({ auth: { user: 'ecf', pass: 's3cr3t:pass' } });
  });
  after(() => server.stop());

  it('authenticates with the userinfo and never shows the password', async () => {
    const mailer = createMailer({ url: server.url, connectTimeoutMs: 2_000, responseTimeoutMs: 2_000 });
    assert.equal(mailer.url, `smtp://ecf@${new URL(server.url).host}`);
    const outcome = await mailer.send(message('comprador@cliente.example'));
    mailer.close();
    assert.equal(outcome.kind, 'sent');
    assert.doesNotMatch(JSON.stringify(outcome), /s3cr3t/);
  });

  it('answers permanent with the server words when the credentials are refused', async () => {
    const url = new URL(server.url);
    url.password = 'wrong';
    const mailer = createMailer({ url: url.toString(), connectTimeoutMs: 2_000, responseTimeoutMs: 2_000 });
    const outcome = await mailer.send(message('comprador@cliente.example'));
    mailer.close();
    assert.deepEqual(outcome, { kind: 'permanent', code: 535, detail: '535 5.7.8 Authentication credentials invalid' });
    assert.equal(
      (await server.counts()).rcpt['comprador@cliente.example'],
      1,
      'only the authenticated send got that far',
    );
  });
});
