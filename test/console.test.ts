// The console (issue 45) in a real browser: Debian's Chromium driven by playwright-core against the running app
// (real HTTP, PostgreSQL or PGlite) and the DGII sandbox. Each journey is what a person does: sign in with a key, find
// a document, see it accepted with its PDF in the page, download its signed XML (xmlsec1 verifies it), send one and
// watch DGII accept it; a read-only key is offered no action and the API refuses one forced; another tenant's
// document is "not found" as the API says; the key never reaches a URL, localStorage or a cookie, and signing out
// forgets it. Every page is served with its CSP and shows no console error or CSP violation; axe-core finds no
// serious or critical violation; each page is saved as a screenshot (test-output/console/).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { consoleContentSecurityPolicy } from '../src/modules/console/index.js';
import { scopes } from '../src/platform/http/scopes.js';
import { assertAccessible, launchBrowser, openPage, signIn, unexpectedErrors } from './support/browser.js';
import { buyerRnc, ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { until } from './support/until.js';
import { skipUnlessTools } from './support/tools.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';

describe('the console in a real browser', { timeout: 180_000, skip: skipUnlessTools('chromium', 'xmlsec1') }, () => {
  let world: SendingWorld;
  let browser: Browser;
  let baseUrl: string;
  let fullKey: string;
  let readOnlyKey: string;
  let otherTenantKey: string;

  before(async () => {
    world = await startSendingWorld();
    baseUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    fullKey = (await world.app.issueKey(world.companyId, [...scopes])).apiKey;
    readOnlyKey = (await world.app.issueKey(world.companyId, ['documents:read'])).apiKey;
    const otherCompany = await world.app.provisionCompany();
    otherTenantKey = (await world.app.issueKey(otherCompany, [...scopes])).apiKey;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await world.close();
  });

  const signedIn = (key: string, start?: string) => signIn(browser, baseUrl, key, start);

  it('signs in, finds an accepted invoice, shows its PDF and downloads its signed XML', async () => {
    const accepted = await world.create(ecfDocuments['31']);
    await world.send(accepted.id);
    assert.equal((await world.untilSettled(accepted.id)).status, 'accepted');
    const signed = await world.create(ecfDocuments['31']);

    const watched = await openPage(browser);
    const { page } = watched;
    await page.goto(`${baseUrl}/consola`);
    await assertAccessible(page, 'sign-in');
    await page.getByLabel('Clave API').fill(fullKey);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('heading', { name: 'Documentos emitidos' }).waitFor();
    assert.match(await page.locator('.environment').innerText(), /TEST/);

    const row = (encf: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: encf }) });
    assert.match(await row(accepted.eNCF).innerText(), /Aceptado/);
    assert.match(await row(signed.eNCF).innerText(), /Firmado/);
    assert.match(await row(accepted.eNCF).innerText(), /RD\$1,430\.00/);
    await assertAccessible(page, 'documents');

    await page.getByRole('link', { name: accepted.eNCF }).click();
    await page.getByRole('heading', { name: accepted.eNCF }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/consola/documentos/${accepted.id}`);
    const pdf = page.locator('iframe.pdf');
    await pdf.waitFor();
    assert.match(String(await pdf.getAttribute('src')), /^blob:/);
    assert.match(await page.locator('.document').innerText(), /Aceptado/);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar XML firmado' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `${accepted.eNCF}.xml`);
    const xml = await readFile(await download.path());
    const archived = await world.call('GET', `/api/v1/documentos/${accepted.id}/artefactos/signed-xml`);
    assert.deepEqual(xml, archived.rawPayload, 'the archived bytes, unchanged');
    const verified = verifyWithXmlsec1Embedded(xml);
    assert.ok(verified.ok, verified.output);
    await assertAccessible(page, 'document-accepted');

    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Printed representation' }).waitFor();
    await page.getByRole('button', { name: 'Español' }).click();
    assert.deepEqual(watched.errors, []);
  });

  it('creates a type 31 with two lines through the form, sends it and downloads its signed XML', async () => {
    // The Emisor comes from the company's profile, as the control plane keeps it.
    const profiled = await world.app.sendEvent('company.updated', {
      companyId: world.companyId,
      address: 'Av. 27 de Febrero #123, Ensanche Piantini',
      municipality: '010101',
      province: '010000',
    });
    assert.equal(profiled.statusCode, 200, profiled.body);
    const { page, errors } = await signedIn(fullKey);
    await page.getByRole('link', { name: 'Nueva factura' }).click();
    await page.getByRole('heading', { name: 'Nueva factura' }).waitFor();
    await page.getByLabel('RNC o cédula').fill(buyerRnc);
    await page.getByLabel('Nombre o razón social').fill('Distribuidora Peña & Hijos');
    await page.locator('#line-0-name').fill('Martillo de carpintero 16 oz');
    await page.locator('#line-0-quantity').fill('2');
    await page.locator('#line-0-price').fill('5OO.00');
    // The service's finding, at the field it names.
    await page.locator('#line-0-price-errors').waitFor();
    await page.locator('#line-0-price').fill('500.00');
    await page.getByRole('button', { name: 'Añadir línea' }).click();
    await page.locator('#line-1-name').fill('Libro técnico (exento)');
    await page.locator('#line-1-price').fill('250.00');
    await page.locator('#line-1-billing').selectOption('4');
    const preview = page.locator('.preview');
    await preview.getByText('Lista para crear.').waitFor();
    const totals = await preview.innerText();
    for (const shown of ['RD$1,000.00', 'RD$250.00', 'RD$180.00', 'RD$1,430.00'])
      assert.ok(totals.includes(shown), totals);
    assert.equal(await page.locator('.field-error').count(), 0);
    await assertAccessible(page, 'new-invoice');

    await page.getByRole('button', { name: 'Crear y firmar' }).click();
    await page.getByRole('button', { name: 'Enviar a la DGII' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop() ?? '';
    const created = await world.call('GET', `/api/v1/documentos/${id}`);
    assert.deepEqual(
      (({ status, montoTotal }) => ({ status, montoTotal }))(
        created.json<{ data: { status: string; montoTotal: string } }>().data,
      ),
      { status: 'signed', montoTotal: '1430.00' },
    );
    await page.getByRole('button', { name: 'Enviar a la DGII' }).click();
    await page.locator('h1 .status', { hasText: 'Aceptado' }).waitFor({ timeout: 30_000 });
    await page.locator('iframe.pdf').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar XML firmado' }).click(),
    ]);
    const xml = await readFile(await download.path());
    const verified = verifyWithXmlsec1Embedded(xml);
    assert.ok(verified.ok, verified.output);
    assert.match(xml.toString('utf8'), /<MontoTotal>1430\.00<\/MontoTotal>/);
    assert.match(xml.toString('utf8'), /<NombreItem>Libro técnico \(exento\)<\/NombreItem>/);
    // The buyer is not in this instance's taxpayer registry: its lookup's 404 is the one failed fetch.
    assert.deepEqual(
      errors.filter((error) => !/404.*\/api\/v1\/contribuyentes\//.test(error)),
      [],
    );
  });

  it('creates any other type from its full JSON, its findings listed with their pointers', async () => {
    const { page, errors } = await signedIn(fullKey);
    await page.getByRole('link', { name: 'Nueva factura' }).click();
    await page.getByRole('button', { name: 'JSON completo (cualquier tipo)' }).click();
    const json = page.getByLabel('El e-CF en JSON, con los nombres de campo de la DGII');
    const withoutName = structuredClone(ecfDocuments['41']) as { DetallesItems: { Item: Record<string, unknown>[] } };
    delete withoutName.DetallesItems.Item[0]?.['NombreItem'];
    await json.fill(JSON.stringify(withoutName));
    await page.locator('.findings').getByText('/DetallesItems/Item/0/NombreItem').waitFor();
    await json.fill(JSON.stringify(ecfDocuments['41']));
    await page.locator('.preview').getByText('Lista para crear.').waitFor();
    await page.getByRole('button', { name: 'Crear y firmar' }).click();
    await page.getByRole('heading', { name: /^E41\d{10}/ }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop() ?? '';
    const created = await world.call('GET', `/api/v1/documentos/${id}`);
    assert.equal(created.json<{ data: { ecfType: string; status: string } }>().data.ecfType, '41');
    assert.deepEqual(errors, []);
  });

  it('filters the list by e-NCF and issue dates, and shows the API refusing a malformed e-NCF', async () => {
    const wanted = await world.create(ecfDocuments['31']);
    const { page, errors } = await signedIn(fullKey);
    await page.getByLabel('Buscar e-NCF').fill(wanted.eNCF.toLowerCase());
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL((url) => url.searchParams.get('eNCF') === wanted.eNCF.toLowerCase());
    // The list shown before stays until the filtered one comes. (Polled from here: the page's CSP refuses the
    // string evaluation waitForFunction polls with.)
    await until(
      () => page.locator('table.list tbody tr td:first-child').allInnerTexts(),
      (shown) => shown.length === 1,
      'the filtered list',
      30_000,
    );
    assert.deepEqual(await page.locator('table.list tbody tr td:first-child').allInnerTexts(), [wanted.eNCF]);

    // The fixtures are issued on 15-11-2026 (their FechaEmision), the form's invoice today: none on the day before.
    await page.getByLabel('Buscar e-NCF').fill('');
    await page.getByLabel('Emitido desde').fill('2026-11-14');
    await page.getByLabel('Emitido hasta').fill('2026-11-14');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Ningún documento con estos filtros.').waitFor();
    await page.getByLabel('Emitido desde').fill('2026-11-15');
    await page.getByLabel('Emitido hasta').fill('2026-11-15');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByRole('link', { name: wanted.eNCF }).waitFor();

    await page.getByLabel('Emitido desde').fill('');
    await page.getByLabel('Emitido hasta').fill('');
    await page.getByLabel('Buscar e-NCF').fill('E31-1');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    const refused = await page.getByRole('alert').innerText();
    assert.match(refused, /\(400\)/);
    assert.match(refused, /\/eNCF/);
    await assertAccessible(page, 'documents-filtered');
    assert.deepEqual(unexpectedErrors(errors, 400), []);
  });

  it('sends a signed invoice from its page and follows it until DGII accepts it', async () => {
    const signed = await world.create(ecfDocuments['31']);
    const { page, errors } = await signedIn(fullKey);
    await page.goto(`${baseUrl}/consola/documentos/${signed.id}`);
    await page.getByRole('heading', { name: signed.eNCF }).waitFor();
    await page.getByRole('button', { name: 'Enviar a la DGII' }).click();
    await page.getByRole('status').filter({ hasText: 'queued for DGII' }).waitFor();
    await page.locator('h1 .status', { hasText: 'Aceptado' }).waitFor({ timeout: 30_000 });
    assert.equal((await world.get(signed.id)).status, 'accepted');
    assert.deepEqual(errors, []);
  });

  it('offers a read-only key no action, and the API refuses one forced from the page', async () => {
    const signed = await world.create(ecfDocuments['31']);
    const { page, errors } = await signedIn(readOnlyKey);
    await page.goto(`${baseUrl}/consola/documentos/${signed.id}`);
    await page.getByRole('heading', { name: signed.eNCF }).waitFor();
    await page.locator('iframe.pdf').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Enviar a la DGII' }).count(), 0);
    const forced = await page.evaluate<{ status: number; code: string }>(
      `fetch('/api/v1/documentos/${signed.id}/enviar', { method: 'POST', headers: { 'x-api-key': sessionStorage.getItem('ecf-console.api-key') } })` +
        '.then(async (response) => ({ status: response.status, code: (await response.json()).code }))',
    );
    assert.deepEqual(forced, { status: 403, code: 'scope_missing' });
    assert.equal((await world.get(signed.id)).status, 'signed');
    // The forced call's 403 is the one console error: Chromium logs every failed fetch.
    assert.deepEqual(unexpectedErrors(errors, 403), []);
  });

  it("shows another tenant's document as not found, as the API answers", async () => {
    const theirs = await world.create(ecfDocuments['31']);
    const api = await world.app.app.inject({
      url: `/api/v1/documentos/${theirs.id}`,
      headers: { 'x-api-key': otherTenantKey },
    });
    assert.equal(api.statusCode, 404);
    const problem = api.json<{ title: string; detail: string }>();
    const { page, errors } = await signedIn(otherTenantKey);
    await page.goto(`${baseUrl}/consola/documentos/${theirs.id}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const shown = await alert.innerText();
    assert.ok(shown.includes(problem.title) && shown.includes(problem.detail), shown);
    assert.doesNotMatch(await page.locator('main').innerText(), new RegExp(theirs.eNCF));
    await assertAccessible(page, 'document-not-found');
    // The API's 404 is the one console error: Chromium logs every failed fetch.
    assert.deepEqual(unexpectedErrors(errors, 404), []);
  });

  it('keeps the key in the tab only, and forgets it on signing out', async () => {
    const { page, context, errors } = await signedIn(fullKey);
    assert.doesNotMatch(page.url(), new RegExp(fullKey));
    assert.equal(await page.evaluate<string>("sessionStorage.getItem('ecf-console.api-key')"), fullKey);
    assert.equal(
      await page.evaluate<string>('JSON.stringify(Object.values(localStorage))').then((all) => all.includes(fullKey)),
      false,
    );
    assert.deepEqual(await context.cookies(), []);
    await page.reload();
    await page.getByRole('heading', { name: 'Documentos emitidos' }).waitFor();
    await page.getByRole('button', { name: 'Salir' }).click();
    await page.getByLabel('Clave API').waitFor();
    assert.equal(await page.evaluate<string | null>("sessionStorage.getItem('ecf-console.api-key')"), null);
    await page.reload();
    await page.getByLabel('Clave API').waitFor();

    await page.getByLabel('Clave API').fill('ecf_test_not-a-key');
    await page.getByRole('button', { name: 'Entrar' }).click();
    const refused = await page.getByRole('alert').innerText();
    assert.match(refused, /401/);
    assert.equal(await page.evaluate<string | null>("sessionStorage.getItem('ecf-console.api-key')"), null);
    assert.deepEqual(unexpectedErrors(errors, 401), []);
  });

  it('answers the alias /console and every address under it with the page, and assets as immutable', async () => {
    const page = await world.app.app.inject({ url: '/console/documentos/doc_x' });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-security-policy'], consoleContentSecurityPolicy);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    const script = /src="(\/consola\/assets\/main-[A-Z0-9]+\.js)"/.exec(page.body)?.[1];
    assert.ok(script !== undefined, page.body);
    const asset = await world.app.app.inject({ url: script, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.headers['content-encoding'], 'gzip');
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    const missing = await world.app.app.inject({ url: '/consola/assets/main-NOTTHERE.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
  });
});
