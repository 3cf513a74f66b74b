// The console's sequences, webhooks, failed jobs and company pages (issue 45) in a real browser, against the running
// app and the DGII sandbox, each showing what the API holds: the ranges the world registered, a burned number, an
// offline block and an annulment DGII could not be reached for, retried from the page until DGII accepts it; a
// webhook endpoint created through the form, a test delivery to a real receiver (which verifies its signature),
// re-sent, the secret rotated and shown once, the endpoint disabled and enabled; a send out of attempts listed as
// a failed job and followed to its document; the company with its certificate, and the warning of one that
// expires within 30 days. A key with only documents:read is offered neither sequences nor webhooks, and the API's
// 403 is what it sees when it opens the webhooks by address. Every page: axe-core finds no serious or critical
// violation, no console error or CSP violation but an expected refusal, and a screenshot in test-output/console/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { scopes } from '../src/platform/http/scopes.js';
import { assertAccessible, launchBrowser, signIn, unexpectedErrors } from './support/browser.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { skipUnlessTools } from './support/tools.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

describe('the console pages beside documents', { timeout: 180_000, skip: skipUnlessTools('chromium') }, () => {
  let world: SendingWorld;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let baseUrl: string;
  let fullKey: string;
  let readOnlyKey: string;

  before(async () => {
    receiver = await startWebhookReceiver();
    world = await startSendingWorld({
      env: {
        // The receiver listens on loopback.
        OUTBOUND_ALLOW_PRIVATE: 'true',
        WEBHOOKS_DISPATCH_INTERVAL_MS: '50',
        // One refused attempt ends a send (a failed job) or an annulment (failed, to retry).
        SEND_MAX_ATTEMPTS: '1',
        ANNULMENT_MAX_ATTEMPTS: '1',
      },
    });
    baseUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    fullKey = (await world.app.issueKey(world.companyId, [...scopes])).apiKey;
    readOnlyKey = (await world.app.issueKey(world.companyId, ['documents:read'])).apiKey;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await world.close();
    await receiver.close();
  });

  const api = (method: 'GET' | 'POST', url: string, key = fullKey) =>
    world.app.app.inject({ method, url, headers: { 'x-api-key': key } });

  const signedIn = (key: string, start?: string) => signIn(browser, baseUrl, key, start);

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Páginas de la consola' });

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('shows the ranges, a burned number, an offline block, and retries a failed annulment until DGII accepts it', async () => {
    const block = await world.call('POST', '/api/v1/secuencias/asignaciones', {
      ecfType: '32',
      deviceId: 'caja-01',
      count: 25,
    });
    assert.equal(block.statusCode, 201, block.body);
    const allocation = block.json<{ data: { from: string; to: string } }>().data;
    const burned: string[] = [];
    for (let i = 0; i < 3; i++) {
      const number = await world.app.application.services.sequences.takeNumber(
        world.companyId,
        '34',
        'signing failed: the test burned it',
      );
      assert.ok(number.ok);
      burned.push(number.value.encf);
    }
    const [first = '', second = '', third = ''] = burned;
    // DGII's annulment service down for the one attempt: the request ends failed.
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'anulacionrangos', mode: 'http503', count: 1 })).status,
      201,
    );
    const requested = await world.call('POST', '/api/v1/secuencias/anulaciones', {
      ranges: [{ ecfType: '34', from: first, to: second }],
    });
    assert.equal(requested.statusCode, 202, requested.body);
    const annulmentId = requested.json<{ data: { id: string } }>().data.id;
    const annulmentStatus = async () =>
      (await api('GET', `/api/v1/secuencias/anulaciones/${annulmentId}`)).json<{ data: { status: string } }>().data
        .status;
    await until(annulmentStatus, (status) => status === 'failed', 'the annulment');

    const { page, errors } = await signedIn(fullKey);
    await nav(page).getByRole('link', { name: 'Secuencias' }).click();
    await page.getByRole('heading', { name: 'Secuencias de e-NCF' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/consola/secuencias');
    assert.equal(
      await nav(page).getByRole('link', { name: 'Secuencias' }).getAttribute('aria-current'),
      'page',
      'the nav marks the page shown',
    );
    const ranges = page.getByRole('table', { name: 'Rangos autorizados' });
    const rangeOf = (type: string) => ranges.getByRole('row').filter({ hasText: `E${type}0000000001` });
    const range31 = await rangeOf('31').innerText();
    assert.match(range31, /E310000000001\s*–\s*E310000100000/);
    assert.match(range31, /100,000 de 100,000/);
    assert.match(range31, new RegExp(`31-12-${String(new Date().getUTCFullYear() + 1)}`));
    assert.match(range31, /Activo/);
    // Type 34: three numbers taken (burned, two of them held by the failed annulment), 25 of 32 reserved.
    assert.match(await rangeOf('34').innerText(), /E340000100000[\s\S]*99,997 de 100,000[\s\S]*Sin vencimiento/);
    assert.match(await rangeOf('32').innerText(), /\b25\b[\s\S]*99,975 de 100,000/);
    const burnedRows = page.getByRole('table', { name: 'Números quemados por anular' }).getByRole('row');
    assert.match(await burnedRows.filter({ hasText: third }).innerText(), /signing failed: the test burned it/);
    const blocks = page.getByRole('table', { name: 'Asignaciones sin conexión' });
    assert.match(
      await blocks.getByRole('row').filter({ hasText: 'caja-01' }).innerText(),
      new RegExp(`${allocation.from}\\s*–\\s*${allocation.to}[\\s\\S]*25[\\s\\S]*Activa`),
    );
    const annulment = page
      .getByRole('table', { name: 'Solicitudes de anulación' })
      .getByRole('row')
      .filter({ hasText: first });
    assert.match(await annulment.innerText(), /Fallida/);
    await assertAccessible(page, 'sequences');

    await annulment.getByRole('button', { name: `Reintentar la anulación ${annulmentId}` }).click();
    await page.getByRole('status').filter({ hasText: 'Solicitud recibida.' }).waitFor();
    await annulment.getByText('Aceptada').waitFor();
    assert.equal(await annulmentStatus(), 'accepted');
    assert.equal(await annulment.getByRole('button').count(), 0, 'an accepted annulment offers no retry');
    assert.deepEqual(errors, []);
  });

  it('creates an endpoint, sends it a test and re-sends it, rotates its secret shown once, disables and enables it', async () => {
    const { page, errors } = await signedIn(fullKey);
    await nav(page).getByRole('link', { name: 'Notificaciones' }).click();
    await page.getByRole('heading', { name: 'Notificaciones (webhooks)' }).waitFor();
    const url = `${receiver.url}/consola`;
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('Descripción').fill('ERP de prueba');
    await page.getByRole('checkbox', { name: /^document\.accepted / }).check();
    await page.getByRole('checkbox', { name: /^document\.rejected / }).check();
    await page.getByRole('button', { name: 'Crear endpoint' }).click();
    const secretField = page.getByLabel('Secreto de firma');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    assert.match(secret, /^whsec_/);
    const row = page.getByRole('table', { name: 'Endpoints' }).getByRole('row').filter({ hasText: url });
    assert.match(await row.innerText(), /ERP de prueba[\s\S]*document\.accepted[\s\S]*Habilitado/);
    const listed = (await api('GET', '/api/v1/notificaciones')).json<{
      data: { id: string; url: string; events: string[]; state: string }[];
    }>().data;
    const endpoint = listed.find((candidate) => candidate.url === url);
    assert.ok(endpoint !== undefined);
    assert.deepEqual(endpoint.events.toSorted(), ['document.accepted', 'document.rejected']);
    assert.equal(endpoint.state, 'enabled');
    await assertAccessible(page, 'webhooks');

    receiver.secretFor.set('/consola', secret);
    await row.getByRole('link', { name: url }).click();
    await page.getByRole('heading', { name: url }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/consola/notificaciones/${endpoint.id}`);
    assert.equal(await page.getByLabel('Secreto de firma').count(), 0, 'the secret stays where it was shown');
    await page.getByRole('button', { name: 'Enviar prueba' }).click();
    const deliveries = page.getByRole('table', { name: 'Entregas' });
    const test = deliveries.getByRole('row').filter({ hasText: 'webhook.test' });
    await test.getByText('Entregada').waitFor();
    const [arrived] = await receiver.waitFor(1, (delivery) => delivery.path === '/consola');
    assert.equal(arrived?.standardError, undefined, 'signed with the secret shown');
    const deliveryId = String(arrived?.headers['webhook-id']);
    assert.match(await test.innerText(), /1 intento\(s\)/);
    await test.getByRole('button', { name: `Reenviar la entrega ${deliveryId}` }).click();
    await test.getByText('2 intento(s)').waitFor();
    const both = await receiver.waitFor(2, (delivery) => delivery.path === '/consola');
    assert.deepEqual(
      both.map((delivery) => delivery.headers['webhook-id']),
      [deliveryId, deliveryId],
    );
    await test.getByText('2 intento(s)').click();
    assert.match(await test.locator('details').innerText(), /HTTP 200/);

    await page.getByRole('button', { name: 'Rotar secreto' }).click();
    await page.getByRole('button', { name: 'Rotar ahora' }).click();
    await page.getByLabel('Secreto de firma').waitFor();
    const rotated = await page.getByLabel('Secreto de firma').inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByText('Secreto anterior válido hasta').waitFor();
    await assertAccessible(page, 'webhook');
    await page.reload();
    await page.getByRole('heading', { name: url }).waitFor();
    await deliveries.waitFor();
    assert.equal(await page.getByLabel('Secreto de firma').count(), 0);
    assert.ok(!(await page.locator('body').innerText()).includes(rotated), 'the rotated secret is not shown again');

    await page.getByRole('button', { name: 'Deshabilitar' }).click();
    await page.locator('h1 .status', { hasText: 'Deshabilitado' }).waitFor();
    const state = async () =>
      (await api('GET', `/api/v1/notificaciones/${endpoint.id}`)).json<{ data: { state: string } }>().data.state;
    assert.equal(await state(), 'disabled');
    assert.equal(await page.getByRole('button', { name: 'Enviar prueba' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Habilitar' }).click();
    await page.locator('h1 .status', { hasText: 'Habilitado' }).waitFor();
    assert.equal(await state(), 'enabled');
    assert.deepEqual(errors, []);
  });

  it('lists a send that ran out of attempts as a failed job, linked to its document', async () => {
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'recepcion', mode: 'http503', count: 1 })).status,
      201,
    );
    const failing = await world.create(ecfDocuments['31']);
    await world.send(failing.id);
    assert.equal((await world.untilSettled(failing.id)).status, 'send_failed');

    const { page, errors } = await signedIn(fullKey);
    await nav(page).getByRole('link', { name: 'Trabajos fallidos' }).click();
    await page.getByRole('heading', { name: 'Trabajos fallidos' }).waitFor();
    const job = page.getByRole('row').filter({ has: page.getByRole('link', { name: failing.id }) });
    assert.match(await job.innerText(), /Envío a la DGII[\s\S]*\b1\b[\s\S]*Abierto/);
    await assertAccessible(page, 'failed-jobs');

    await page.getByLabel('Estado').selectOption({ label: 'Cerrado' });
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Ningún trabajo fallido con este filtro.').waitFor();
    assert.equal(new URL(page.url()).search, '?open=false');
    await page.getByLabel('Estado').selectOption({ label: 'Abierto' });
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await job.waitFor();

    await job.getByRole('link', { name: failing.id }).click();
    await page.getByRole('heading', { name: failing.eNCF }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/consola/documentos/${failing.id}`);
    assert.match(await page.locator('h1').innerText(), /Envío fallido/);
    await page.locator('iframe.pdf').waitFor();
    assert.deepEqual(errors, []);
  });

  it('shows the company, its certificate and the key, and warns of a certificate expiring within 30 days', async () => {
    const { page, errors } = await signedIn(fullKey);
    await nav(page).getByRole('link', { name: 'Empresa' }).click();
    await page.getByRole('heading', { name: 'Empresa', level: 1 }).waitFor();
    // The heading stands while the company loads: wait for what it loads.
    await page.getByRole('heading', { name: 'Certificado de firma' }).waitFor();
    const shown = await page.locator('main').innerText();
    assert.match(shown, new RegExp(`RNC\\s+${issuerRnc}`));
    assert.match(shown, /Titular\s+.*EMISOR DE PRUEBA/);
    assert.match(shown, /Válido hasta\s+31-12-2035/);
    assert.match(shown, /TEST · Ambiente de pruebas/);
    assert.match(shown, /Permisos efectivos[\s\S]*webhooks:manage/);
    assert.equal(await page.locator('.notice').count(), 0, 'a certificate valid for years raises no warning');
    const issuing = page.getByRole('table', { name: 'Plan y acceso' }).getByRole('row').filter({ hasText: 'Emisión' });
    assert.match(await issuing.innerText(), /Sí\s+Sí\s+documents:create/);
    await assertAccessible(page, 'company');
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Signing certificate' }).waitFor();
    await page.getByRole('button', { name: 'Español' }).click();
    assert.deepEqual(errors, []);

    const expiring = await world.app.provisionCompany();
    const certificate = createSelfSignedP12({
      commonName: 'CERTIFICADO POR VENCER',
      notBefore: new Date(Date.now() - 300 * 86_400_000),
      notAfter: new Date(Date.now() + 10 * 86_400_000),
      password: 'clave',
    });
    const installed = await world.app.sendEvent('certificate.installed', {
      companyId: expiring,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
    const theirs = await signedIn((await world.app.issueKey(expiring, ['documents:read'])).apiKey);
    await theirs.page.goto(`${baseUrl}/consola/empresa`);
    const warning = theirs.page.locator('.notice');
    await warning.waitFor();
    assert.match(await warning.innerText(), /El certificado vence en (9|10) día\(s\)/);
    await assertAccessible(theirs.page, 'company-certificate-expiring');
    assert.deepEqual(theirs.errors, []);
  });

  it("offers a documents:read key neither sequences nor webhooks, and shows the API's 403 at the webhooks address", async () => {
    const { page, errors } = await signedIn(readOnlyKey);
    assert.deepEqual(await nav(page).getByRole('link').allInnerTexts(), [
      'Documentos',
      'Recibidos',
      'Trabajos fallidos',
      'Empresa',
    ]);
    const refused = await api('GET', '/api/v1/notificaciones', readOnlyKey);
    assert.equal(refused.statusCode, 403);
    const problem = refused.json<{ title: string; detail: string }>();
    await page.goto(`${baseUrl}/consola/notificaciones`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const shown = await alert.innerText();
    assert.ok(shown.includes(problem.title) && shown.includes(problem.detail) && shown.includes('(403)'), shown);
    assert.equal(await page.getByRole('button', { name: 'Crear endpoint' }).count(), 0);
    await assertAccessible(page, 'webhooks-forbidden');
    // The API's 403 is the one console error: Chromium logs every failed fetch.
    assert.deepEqual(unexpectedErrors(errors, 403), []);
  });
});
