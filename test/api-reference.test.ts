// The API reference at /docs (issue 47) in Chromium: usable at once (the first operation is the quick start's first
// call), its sections in a newcomer's order (business, then the English aliases apart, then operations), and the
// large per-type e-CF schemas left out of the page's load (served at /docs/schemas/; Swagger UI fetches them when an
// operation that uses them is opened, seconds of resolving, too slow to drive here). The full contract stays at
// /docs-json (test/openapi.test.ts, test/client-contract.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, type WatchedPage } from './support/browser.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('the API reference at /docs', () => {
  let testApp: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let watched: WatchedPage;
  const fetched: string[] = [];
  before(async () => {
    testApp = await startTestApp();
    baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
    watched = await openPage(browser);
    watched.page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    await watched.page.goto(`${baseUrl}/docs`);
    await watched.page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
  });
  after(async () => {
    await browser.close();
    await testApp.close();
  });

  it("shows the quick start's first call first, without fetching the per-type e-CF schemas", async () => {
    const first = watched.page.locator('.opblock').first();
    assert.equal(await first.locator('.opblock-summary-method').innerText(), 'POST');
    assert.equal(await first.locator('.opblock-summary-path').getAttribute('data-path'), '/api/v1/documentos');
    assert.deepEqual(
      fetched.filter((path) => path.startsWith('/docs/schemas/')),
      [],
    );
    assert.deepEqual(watched.errors, []);
  });

  it('orders the sections: business, the English aliases apart, operations last', async () => {
    const tags = await watched.page
      .locator('.opblock-tag')
      .evaluateAll((elements) =>
        elements.map((element) => (element as unknown as { dataset: { tag?: string } }).dataset.tag),
      );
    assert.deepEqual(tags, [
      'Documents',
      'Sending',
      'Sequences',
      'Received documents',
      'Webhooks',
      'Certification',
      'Company',
      'DGII',
      'Catalogues',
      'Taxpayers',
      'Receiver (DGII standard)',
      'English aliases (deprecated)',
      'Operations',
      'Control plane',
    ]);
    const section = (tag: string) => watched.page.locator(`.opblock-tag-section:has([data-tag="${tag}"]) .opblock`);
    const aliases = await section('English aliases (deprecated)').count();
    assert.ok(aliases > 50, 'every English alias is in the aliases section');
    assert.equal(await watched.page.locator('.opblock-deprecated').count(), aliases, 'and only there, all deprecated');
    const sending = await section('Sending').locator('.opblock-summary-path').first().getAttribute('data-path');
    assert.equal(sending, '/api/v1/documentos/{id}/enviar');
  });

  it('serves each large schema apart as a document with the components it uses, and 404 for another name', async () => {
    const response = await fetch(`${baseUrl}/docs/schemas/EcfDocument31`);
    assert.equal(response.status, 200);
    const contract = (await (await fetch(`${baseUrl}/docs-json`)).json()) as {
      components: { schemas: Record<string, unknown> };
    };
    const apart = (await response.json()) as { components: { schemas: Record<string, unknown> } };
    assert.deepEqual(apart.components.schemas['EcfDocument31'], contract.components.schemas['EcfDocument31']);
    for (const [name, schema] of Object.entries(apart.components.schemas)) {
      assert.deepEqual(schema, contract.components.schemas[name], name);
    }
    for (const match of JSON.stringify(apart).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      assert.ok(match[1] !== undefined && match[1] in apart.components.schemas, `${String(match[1])} is included`);
    }
    const missing = await fetch(`${baseUrl}/docs/schemas/Nope`);
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal(((await missing.json()) as { code: string }).code, 'route_not_found');
  });
});
