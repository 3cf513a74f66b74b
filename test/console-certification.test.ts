// The console's certification page on a CERT instance of its own (test/support/certification-kit.ts: the service in
// CERT with the DGII sandbox), in Chromium: the set file is uploaded through the page, the checklist renders with
// the API's items, and the manual step "Registrado" is confirmed with a note, which the API then records.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertAccessible, launchBrowser, openPage, screenshot } from './support/browser.js';
import { startCertificationWorld, type CertificationWorld } from './support/certification-kit.js';
import { skipUnlessTools } from './support/tools.js';

interface Process {
  id: string;
  steps: { key: string | null; status: string }[];
  checklist: { title: string }[];
  confirmations: { key: string; note: string | null }[];
}

describe('the console on a CERT instance', { timeout: 180_000, skip: skipUnlessTools('chromium') }, () => {
  let world: CertificationWorld;
  let browser: Browser;
  let baseUrl: string;
  let apiKey: string;
  const dir = mkdtempSync(join(tmpdir(), 'console-cert-'));

  before(async () => {
    world = await startCertificationWorld();
    baseUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    apiKey = (await world.app.issueKey(world.companyId, ['certification:manage', 'documents:read'])).apiKey;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts a process from the set file, renders its checklist and confirms a manual step', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${baseUrl}/consola`);
    await page.getByLabel('Clave API').fill(apiKey);
    await page.getByRole('button', { name: 'Entrar' }).click();
    assert.match(await page.locator('.environment').innerText(), /CERT/);
    await page.getByRole('link', { name: 'Certificación' }).click();
    await page.getByRole('heading', { name: 'Iniciar la certificación' }).waitFor();

    const setFile = join(dir, 'set.json');
    writeFileSync(setFile, JSON.stringify(world.setFile()));
    await page.getByLabel('Archivo del set (JSON)').setInputFiles(setFile);
    await page.getByRole('button', { name: 'Iniciar', exact: true }).click();
    await page.getByRole('heading', { name: 'Lista de verificación' }).waitFor();

    const started = await world.call('GET', '/api/v1/certificacion');
    const process = started.json<{ data: Process }>().data;
    const checklist = await page.locator('.checklist').innerText();
    for (const item of process.checklist) assert.ok(checklist.includes(item.title), `${item.title} shown`);
    assert.equal(process.steps.find((step) => step.key === 'registrado')?.status, 'open');
    await assertAccessible(page, 'certification');

    const note = 'Registrado en el portal el 29-11-2026';
    await page.getByRole('textbox', { name: 'Nota para «Registrado»' }).fill(note);
    await page.getByRole('button', { name: 'Confirmar «Registrado»' }).click();
    await page.getByRole('status').filter({ hasText: 'Paso confirmado.' }).waitFor();
    const after = (await world.call('GET', `/api/v1/certificacion/${process.id}`)).json<{ data: Process }>().data;
    assert.equal(after.steps.find((step) => step.key === 'registrado')?.status, 'done');
    assert.deepEqual(
      after.confirmations.map(({ key, note: written }) => ({ key, note: written })),
      [{ key: 'registrado', note }],
    );
    // The page reloads the process after saying so: its row then says done, with nothing left to confirm.
    await page.getByRole('row').filter({ hasText: 'Registrado' }).getByText('Hecho').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Confirmar «Registrado»' }).count(), 0);
    await screenshot(page, 'certification-confirmed');
    assert.deepEqual(errors, []);
  });
});
