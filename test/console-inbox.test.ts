// The console's inbox (issue 45) in a real browser: Debian's Chromium driven by playwright-core against the running
// app and the DGII sandbox. The sandbox's counterpart taxpayer issues an e-CF to our company and sends it to our
// receiver; it appears in the inbox; its page shows the PDF; a person rejects it with a reason through the form and
// watches the ACECF reach the issuer's receiver and DGII, which the sandbox confirms (Estado 2, the reason as typed);
// another is approved. A rejection without a reason is stopped at the field, one the API refuses (422) is shown at
// the field; a key that may only read the inbox is offered no decision and the API refuses one forced (403); another
// tenant's document is "not found" as the API says. Every page: no console error or CSP violation, no serious axe-core
// violation, a screenshot (test-output/console/inbox-*.png).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { groupsOf, parseXmlTree, textOf } from '../src/fiscal/parse/index.js';
import { scopes } from '../src/platform/http/scopes.js';
import { counterpartRnc } from '../src/sandbox/index.js';
import { assertAccessible, launchBrowser, signIn, unexpectedErrors } from './support/browser.js';
import { officialXsdDir } from './support/dgii-files.js';
import { issuerRnc } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { skipUnlessTools } from './support/tools.js';
import { until } from './support/until.js';

interface Received {
  id: string;
  eNCF: string;
  issuer: { rnc: string; name: string | null };
  commercialResponse?: { decision: string; reason: string | null } | null;
}

function acecfDetail(xml: string): { eNCF?: string; Estado?: string; DetalleMotivoRechazo?: string } {
  const parsed = parseXmlTree(xml);
  assert.ok(parsed.ok && parsed.root === 'ACECF', xml);
  const detail = groupsOf(parsed.tree, 'DetalleAprobacionComercial')[0] ?? {};
  return {
    eNCF: textOf(detail, 'eNCF'),
    Estado: textOf(detail, 'Estado'),
    DetalleMotivoRechazo: textOf(detail, 'DetalleMotivoRechazo'),
  };
}

describe("the console's inbox in a real browser", { timeout: 180_000, skip: skipUnlessTools('chromium') }, () => {
  let world: SendingWorld;
  let browser: Browser;
  let baseUrl: string;
  let fullKey: string;
  let inboxOnlyKey: string;
  let otherTenantKey: string;

  before(async () => {
    world = await startSendingWorld({ env: { ECF_XSD_DIR: officialXsdDir, RECEIVER_AUTH_MODE: 'optional' } });
    baseUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    fullKey = (await world.app.issueKey(world.companyId, [...scopes])).apiKey;
    inboxOnlyKey = (await world.app.issueKey(world.companyId, ['received:read'])).apiKey;
    otherTenantKey = (await world.app.issueKey(await world.app.provisionCompany(), [...scopes])).apiKey;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await world.close();
  });

  /** The counterpart issues an e-CF to our company and sends it to our receiver, which acknowledges it (ARECF 0). */
  async function receiveFromCounterpart(type: string): Promise<Received> {
    const ours = `${baseUrl}/testecf/${issuerRnc}`;
    const response = await fetch(`${world.sandbox.url}/testecf/emisorreceptor/api/emision/emisioncomprobantes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ rnc: issuerRnc, tipoEncf: `E${type}`, urlRecepcion: ours, urlAutenticacion: ours }),
    });
    assert.equal(response.status, 200);
    const sent = (await response.json()) as { encf: string; estado: string; mensajes: string[] };
    assert.equal(sent.estado, 'arecf_valid', sent.mensajes.join(' | '));
    const list = await world.call('GET', `/api/v1/recibidos?issuerRnc=${counterpartRnc}&limit=100`);
    const item = list.json<{ data: Received[] }>().data.find((entry) => entry.eNCF === sent.encf);
    assert.ok(item !== undefined, list.body);
    return item;
  }

  const view = async (id: string): Promise<Received> =>
    (await world.call('GET', `/api/v1/recibidos/${id}`)).json<{ data: Received }>().data;
  const sandboxDb = () => world.sandbox.sandbox.context.db;
  /** What reached the counterpart's receiver about `encf` (its arrivals log keeps the outcome, not the bytes). */
  const atCounterpart = async (encf: string) =>
    (
      await sandboxDb()
        .selectFrom('sandbox_arrivals')
        .select('outcome')
        .where('service', '=', 'emisorreceptor')
        .where('encf', '=', encf)
        .where('outcome', 'like', 'approval:%')
        .execute()
    ).map((row) => row.outcome);
  const atDgii = (encf: string) =>
    sandboxDb().selectFrom('sandbox_approvals').selectAll().where('encf', '=', encf).orderBy('id').execute();

  const signedIn = (key: string, start?: string) => signIn(browser, baseUrl, key, start);

  /** The page of received document `id`, open, with its PDF shown from a blob: URL. */
  async function openReceived(page: Page, received: Received): Promise<void> {
    await page.getByRole('heading', { name: received.eNCF }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/consola/recibidos/${received.id}`);
    const pdf = page.locator('iframe.pdf');
    await pdf.waitFor();
    assert.match(String(await pdf.getAttribute('src')), /^blob:/);
  }

  /** Until both of the ACECF's deliveries (the issuer's receiver, DGII) show as delivered, the page following them. */
  async function untilDelivered(page: Page): Promise<void> {
    await page.locator('.acecf-delivery[data-status="delivered"]').nth(1).waitFor({ timeout: 30_000 });
    const [issuer, dgii, ...more] = await page.locator('.acecf-delivery').allInnerTexts();
    assert.match(issuer ?? '', /^Receptor del emisor\s+Entregado\s+Intentos\s+1\s/);
    assert.match(dgii ?? '', /^DGII\s+Entregado\s+Intentos\s+1\s/);
    assert.deepEqual(more, []);
  }

  /** Requests the page made for a commercial response. */
  function commercialPosts(page: Page): string[] {
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/respuesta-comercial')) posts.push(request.url());
    });
    return posts;
  }

  it('shows a supplier e-CF in the inbox with its PDF, and rejects it with a reason the counterpart gets', async () => {
    const received = await receiveFromCounterpart('31');
    const { page, errors } = await signedIn(fullKey);
    const posts = commercialPosts(page);
    await page
      .getByRole('navigation', { name: 'Páginas de la consola' })
      .getByRole('link', { name: 'Recibidos' })
      .click();
    await page.getByRole('heading', { name: 'Documentos recibidos' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: received.eNCF }) });
    const shown = await row.innerText();
    assert.ok(shown.includes(counterpartRnc) && shown.includes(received.issuer.name ?? ''), shown);
    assert.match(shown, /\t31\t[\d-]+\tRD\$[\d,]+\.\d\d\tRecibido\s+Sin respuesta\s/);
    await assertAccessible(page, 'inbox-list');

    await row.getByRole('link', { name: received.eNCF }).click();
    await openReceived(page, received);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar e-CF (XML)' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `${received.eNCF}.xml`);
    const archived = await world.call('GET', `/api/v1/recibidos/${received.id}/artefactos/received-xml`);
    assert.deepEqual(await readFile(await download.path()), archived.rawPayload, 'the bytes received, unchanged');
    await assertAccessible(page, 'inbox-document');

    // No reason: stopped at the field, the API never asked.
    await page.getByRole('button', { name: 'Rechazar' }).click();
    const fieldError = page.locator('#reject-reason-error');
    assert.equal(await fieldError.innerText(), 'Indique el motivo del rechazo.');
    assert.equal(await page.getByLabel('Motivo del rechazo').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(posts, []);

    // Longer than DetalleMotivoRechazo allows: the API's 422 is shown, its /reason error at the field.
    await page.getByLabel('Motivo del rechazo').fill('x'.repeat(251));
    await page.getByRole('button', { name: 'Rechazar' }).click();
    const problem = page.getByRole('alert');
    await problem.waitFor();
    assert.match(await problem.innerText(), /\(422\)/);
    assert.match(await fieldError.innerText(), /250/);
    assert.equal(posts.length, 1);
    assert.equal((await view(received.id)).commercialResponse, null);
    await assertAccessible(page, 'inbox-reject-refused');

    const reason = 'Mercancía dañada al recibirla; el precio no corresponde a la orden de compra nº 4512.';
    await page.getByLabel('Motivo del rechazo').fill(reason);
    await page.getByRole('button', { name: 'Rechazar' }).click();
    await page.locator('h1 .status', { hasText: 'Rechazado' }).waitFor();
    await untilDelivered(page);
    assert.equal(await page.locator('.commercial-response .reason').innerText(), reason);
    assert.equal(posts.length, 2);
    await assertAccessible(page, 'inbox-rejected');

    // At the sandbox: the counterpart's receiver took the ACECF, and DGII holds the same bytes: Estado 2 with the
    // reason as typed. The page offers those bytes as the ACECF download.
    assert.deepEqual(await atCounterpart(received.eNCF), ['approval:received']);
    const approvals = await atDgii(received.eNCF);
    assert.deepEqual(
      approvals.map((approval) => [approval.estado, approval.accepted, approval.rnc_emisor, approval.rnc_comprador]),
      [['2', true, counterpartRnc, issuerRnc]],
    );
    const acecf = approvals[0]?.xml ?? '';
    assert.deepEqual(acecfDetail(acecf), { eNCF: received.eNCF, Estado: '2', DetalleMotivoRechazo: reason });
    const [acecfDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar ACECF (XML)' }).click(),
    ]);
    assert.equal(acecfDownload.suggestedFilename(), `${received.eNCF}-ACECF.xml`);
    assert.equal(await readFile(await acecfDownload.path(), 'utf8'), acecf);

    // The 422 is the one console error: Chromium logs every failed fetch.
    assert.deepEqual(unexpectedErrors(errors, 422), []);
  });

  it('approves another from its page, and the inbox shows it approved', async () => {
    const received = await receiveFromCounterpart('33');
    const { page, errors } = await signedIn(fullKey);
    await page.goto(`${baseUrl}/consola/recibidos/${received.id}`);
    await openReceived(page, received);
    // Asked twice: cancelling the first click sends nothing.
    const posts = commercialPosts(page);
    await page.getByRole('button', { name: 'Aprobar' }).click();
    await page.getByRole('button', { name: 'Cancelar' }).click();
    await page.getByRole('button', { name: 'Aprobar' }).click();
    assert.deepEqual(posts, []);
    await page.getByRole('button', { name: 'Confirmar la aprobación' }).click();
    await page.locator('h1 .status', { hasText: 'Aprobado' }).waitFor();
    assert.equal(posts.length, 1);
    await untilDelivered(page);
    assert.equal(await page.getByLabel('Motivo del rechazo').count(), 0, 'the decision is made once');
    await assertAccessible(page, 'inbox-approved');
    assert.deepEqual(await atCounterpart(received.eNCF), ['approval:received']);
    const approvals = await atDgii(received.eNCF);
    assert.deepEqual(
      approvals.map((approval) => approval.estado),
      ['1'],
    );
    assert.deepEqual(acecfDetail(approvals[0]?.xml ?? ''), {
      eNCF: received.eNCF,
      Estado: '1',
      DetalleMotivoRechazo: undefined,
    });

    // The inbox, filtered by the issuer and the type (kept in the address).
    await page.getByRole('link', { name: 'Recibidos' }).click();
    await page.getByLabel('RNC emisor').fill(counterpartRnc);
    await page.getByLabel('Tipo').selectOption('33');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL((url) => url.searchParams.get('ecfType') === '33');
    assert.equal(new URL(page.url()).searchParams.get('issuerRnc'), counterpartRnc);
    // The list shown before stays until the filtered one comes: wait for the filtered one. (Polled from here: the
    // page's CSP refuses the string evaluation waitForFunction polls with.)
    await until(
      () => page.locator('table.list tbody tr td:nth-child(3)').allInnerTexts(),
      (types) => types.length > 0 && types.every((type) => type === '33'),
      'the inbox filtered by type 33',
      30_000,
    );
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: received.eNCF }) });
    await row.filter({ hasText: 'Aprobado' }).waitFor();
    const types = await page.locator('table.list tbody tr td:nth-child(3)').allInnerTexts();
    assert.ok(types.length > 0 && types.every((type) => type === '33'), types.join());
    assert.deepEqual(errors, []);
  });

  it('offers a key that may only read the inbox no decision, and the API refuses one forced from the page', async () => {
    const received = await receiveFromCounterpart('31');
    const { page, errors } = await signedIn(inboxOnlyKey, 'Documentos recibidos');
    const nav = page.getByRole('navigation', { name: 'Páginas de la consola' });
    assert.deepEqual(await nav.getByRole('link').allInnerTexts(), ['Recibidos', 'Empresa']);
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Received documents' }).waitFor();
    assert.match(await page.locator('table.list thead').innerText(), /Issuer\s+Type\s+Issued\s+Total\s+Reception/);
    await page.getByRole('button', { name: 'Español' }).click();
    await page.getByRole('link', { name: received.eNCF }).click();
    await openReceived(page, received);
    assert.equal(await page.getByRole('button', { name: 'Aprobar' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Rechazar' }).count(), 0);
    assert.equal(await page.locator('textarea').count(), 0);
    assert.match(await page.locator('.commercial-response').innerText(), /Aún sin respuesta comercial/);
    await assertAccessible(page, 'inbox-read-only');

    const forced = await page.evaluate<{ status: number; code: string }>(
      `fetch('/api/v1/recibidos/${received.id}/respuesta-comercial', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': sessionStorage.getItem('ecf-console.api-key') }, body: JSON.stringify({ decision: 'rejected', reason: 'forzado' }) })` +
        '.then(async (response) => ({ status: response.status, code: (await response.json()).code }))',
    );
    assert.deepEqual(forced, { status: 403, code: 'scope_missing' });
    assert.equal((await view(received.id)).commercialResponse, null);
    // The forced call's 403 is the one console error: Chromium logs every failed fetch.
    assert.deepEqual(unexpectedErrors(errors, 403), []);
  });

  it("shows another tenant's received document as not found, as the API answers", async () => {
    const theirs = await receiveFromCounterpart('31');
    const api = await world.app.app.inject({
      url: `/api/v1/recibidos/${theirs.id}`,
      headers: { 'x-api-key': otherTenantKey },
    });
    assert.equal(api.statusCode, 404);
    const problem = api.json<{ title: string; detail: string }>();
    const { page, errors } = await signedIn(otherTenantKey);
    await page.goto(`${baseUrl}/consola/recibidos/${theirs.id}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const shown = await alert.innerText();
    assert.ok(shown.includes(problem.title) && shown.includes(problem.detail), shown);
    assert.doesNotMatch(await page.locator('main').innerText(), new RegExp(theirs.eNCF));
    await assertAccessible(page, 'inbox-not-found');
    // The API's 404 is the one console error: Chromium logs every failed fetch.
    assert.deepEqual(unexpectedErrors(errors, 404), []);
  });
});
