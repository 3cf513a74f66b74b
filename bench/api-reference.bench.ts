// Measured here: the API reference at /docs (issue 47) in Debian's Chromium on loopback: from navigating to /docs,
// in a fresh browser context (no cache), to the first operation of the first section visible (goal <= 3 s). Also
// the bytes the page fetched for it, against the full contract at /docs-json (kept whole for generators). Timed in
// ROUNDS rounds after one not counted (Chromium's and the app's first compiles), the median shown with the spread.
// The same Playwright setup as the tests (test/support/browser.ts).
import { performance } from 'node:perf_hooks';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../test/support/browser.js';
import { startTestApp, type TestApp } from '../test/support/test-app.js';
import { median, ms, spread } from './support/statistics.js';
import { verdict, type BenchRow } from './support/table.js';

const ROUNDS = 5;
const USABLE_GOAL_MS = 3_000;

async function timed(browser: Browser, baseUrl: string): Promise<{ ms: number; jsonBytes: number }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    let jsonBytes = 0;
    page.on('response', (response) => {
      if (!response.headers()['content-type']?.startsWith('application/json')) return;
      void response.body().then(
        (body) => (jsonBytes += body.length),
        () => undefined,
      );
    });
    const started = performance.now();
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 60_000 });
    return { ms: performance.now() - started, jsonBytes };
  } finally {
    await context.close();
  }
}

export async function apiReferenceBench(): Promise<BenchRow[]> {
  let app: TestApp | undefined;
  let browser: Browser | undefined;
  try {
    app = await startTestApp();
    const baseUrl = await app.app.listen({ port: 0, host: '127.0.0.1' });
    const contractBytes = (await (await fetch(`${baseUrl}/docs-json`)).arrayBuffer()).byteLength;
    browser = await launchBrowser();
    const times: number[] = [];
    let fetched = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      const result = await timed(browser, baseUrl);
      if (round === 0) continue;
      times.push(result.ms);
      fetched = result.jsonBytes;
    }
    const { low, high } = spread(times);
    return [
      {
        benchmark: 'API reference: /docs, first operation visible (Chromium, loopback)',
        result: `${ms(median(times))} (rounds ${ms(low)} to ${ms(high)})`,
        note: `${String(ROUNDS)} rounds after one not counted, each in a fresh browser context (no cache); JSON fetched ${(fetched / 1_024).toFixed(0)} KB of the ${(contractBytes / 1_024).toFixed(0)} KB contract at /docs-json`,
      },
      { benchmark: `  goal: <= ${ms(USABLE_GOAL_MS)}`, result: verdict(median(times) <= USABLE_GOAL_MS), note: '' },
    ];
  } finally {
    await browser?.close();
    await app?.close();
  }
}
