// Measured here: the console (issue 45) in Debian's Chromium on loopback, against the app with 10,000 documents in the
// company (the sandbox as DGII in its own process, as the sending benches run it). Three numbers:
// - the first page's bytes: the HTML, the script and the stylesheet it names, as sent with gzip (goal <= 150 KB);
// - time to a usable documents list: from navigating to /consola/documentos, in a fresh browser context (no cache,
//   the key in sessionStorage as signing in leaves it), to the first page of the list in the table (goal <= 1 s);
// - a document's page with its PDF: from navigating to /consola/documentos/:id to the PDF's blob: URL in the page's
//   frame, the view, the timeline and the PDF fetched and rendered by the service (goal <= 1 s).
// Each is timed in ROUNDS rounds after one not counted (Chromium's and the app's first compiles), the median shown
// with the spread. The same Playwright setup as the tests (test/support/browser.ts). The console is built into
// dist/console first, as `npm start` does.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { Browser } from 'playwright-core';
import { scopes } from '../src/platform/http/scopes.js';
import { launchBrowser } from '../test/support/browser.js';
import { projectRoot } from '../test/support/project-root.js';
import { createDocuments, sendingEmbedded, startWorld, type BenchWorld } from './support/sending-world.js';
import { median, ms, spread } from './support/statistics.js';
import { verdict, type BenchRow } from './support/table.js';

/** BENCH_CONSOLE_DOCUMENTS=<n> for a quicker look; the goals are for 10,000. */
const DOCUMENTS = Number(process.env['BENCH_CONSOLE_DOCUMENTS'] ?? 10_000);
const ROUNDS = 7;
const FIRST_PAGE_GOAL_KB = 150;
const USABLE_GOAL_MS = 1_000;

async function gzipBytes(url: string): Promise<{ bytes: number; text: string }> {
  const response = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
  if (!response.ok || response.headers.get('content-encoding') !== 'gzip')
    throw new Error(`${url}: HTTP ${String(response.status)}, ${String(response.headers.get('content-encoding'))}`);
  // fetch decodes the body; the bytes on the wire are the declared length.
  return { bytes: Number(response.headers.get('content-length')), text: await response.text() };
}

async function timed(browser: Browser, apiKey: string, url: string, until: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(`sessionStorage.setItem('ecf-console.api-key', ${JSON.stringify(apiKey)})`);
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url);
    await page.locator(until).first().waitFor({ timeout: 30_000 });
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

export async function consoleBench(): Promise<BenchRow[]> {
  const built = spawnSync(process.execPath, ['scripts/build-console.mjs'], { cwd: projectRoot, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`the console did not build: ${built.stderr}`);
  let world: BenchWorld | undefined;
  let browser: Browser | undefined;
  try {
    world = await startWorld(await sendingEmbedded());
    const created = await createDocuments(world, DOCUMENTS);
    const baseUrl = await world.app.app.listen({ port: 0, host: '127.0.0.1' });
    const { apiKey } = await world.app.issueKey(world.companyId, [...scopes]);

    const html = await gzipBytes(`${baseUrl}/consola`);
    const assets = [...html.text.matchAll(/(?:src|href)="(\/consola\/assets\/[^"]+)"/g)].map((found) => found[1] ?? '');
    const assetBytes = await Promise.all(assets.map(async (path) => (await gzipBytes(`${baseUrl}${path}`)).bytes));
    const firstPageKb = (html.bytes + assetBytes.reduce((sum, bytes) => sum + bytes, 0)) / 1_024;

    browser = await launchBrowser();
    const document = created[Math.floor(created.length / 2)];
    if (document === undefined) throw new Error('no document created');
    const list: number[] = [];
    const pdf: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const listMs = await timed(browser, apiKey, `${baseUrl}/consola/documentos`, 'table.list tbody tr');
      const pdfMs = await timed(
        browser,
        apiKey,
        `${baseUrl}/consola/documentos/${document.id}`,
        'iframe.pdf[src^="blob:"]',
      );
      if (round === 0) continue;
      list.push(listMs);
      pdf.push(pdfMs);
    }
    const range = (values: number[]) => {
      const { low, high } = spread(values);
      return `${ms(median(values))} (rounds ${ms(low)} to ${ms(high)})`;
    };
    const note = `${String(DOCUMENTS)} documents in the company; ${String(ROUNDS)} rounds after one not counted, each in a fresh browser context (no cache)`;
    return [
      {
        benchmark: "console: the first page's JavaScript and CSS (gzip)",
        result: `${firstPageKb.toFixed(1)} KB`,
        note: `the HTML and ${assets.map((path) => path.split('/').pop() ?? '').join(', ')}, gzip as sent`,
      },
      {
        benchmark: `  goal: <= ${String(FIRST_PAGE_GOAL_KB)} KB`,
        result: verdict(firstPageKb <= FIRST_PAGE_GOAL_KB),
        note: '',
      },
      { benchmark: 'console: documents list usable (Chromium, loopback)', result: range(list), note },
      { benchmark: `  goal: <= ${ms(USABLE_GOAL_MS)}`, result: verdict(median(list) <= USABLE_GOAL_MS), note: '' },
      {
        benchmark: "console: a document's page with its PDF",
        result: range(pdf),
        note: `${note}; until the PDF's blob: URL is in the page's frame`,
      },
      { benchmark: `  goal: <= ${ms(USABLE_GOAL_MS)}`, result: verdict(median(pdf) <= USABLE_GOAL_MS), note: '' },
    ];
  } finally {
    await browser?.close();
    await world?.close();
  }
}
