// A real browser for the console's tests and its bench: Debian's Chromium (.ci/run installs it), driven by
// playwright-core (which downloads no browser of its own), headless, with the flags this machine's closed network
// needs (background networking off: Chromium's own connections would be refused). Every page a test opens records
// its console errors and Content-Security-Policy violations, so a journey can assert there were none; axe-core scans
// a page for accessibility violations; screenshots go to test-output/console/ of the project (not committed).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { consoleContentSecurityPolicy } from '../../src/modules/console/index.js';
import { projectRoot } from './project-root.js';

export const chromiumPath = '/usr/bin/chromium';
export const screenshotDir = join(projectRoot, 'test-output', 'console');

const flags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: flags, headless: true });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and CSP violations, as Chromium reported them, since the page opened. */
  errors: string[];
  close(): Promise<void>;
}

/** A page in a fresh context (its own sessionStorage and downloads), watched for errors. */
export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    // With the address: a failed fetch's message does not name what was fetched.
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  // Also reported as console errors; this names the directive, for a failure message that says what was refused.
  // (Scripts for the page are strings: the tests' TypeScript has no DOM library.)
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (event) => " +
      "console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI))",
  );
  return { page, context, errors, close: () => context.close() };
}

const axeSource = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's violations of `impact` serious or critical on the page as it stands. axe is evaluated through the
 * DevTools protocol, which the page's CSP does not govern (an inline script tag would be refused, rightly).
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((result) => result.violations)');
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** A full-page screenshot named `name`, for a reviewer to look at without running the test. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** axe-core finds no serious or critical violation on the page as it stands; then its screenshot, as `name`. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  const violations = await seriousAxeViolations(page);
  assert.deepEqual(
    violations.map((violation) => `${violation.id}: ${violation.help} (${JSON.stringify(violation.nodes[0]?.target)})`),
    [],
    `${name}: axe-core's serious or critical violations`,
  );
  await screenshot(page, name);
}

/**
 * A watched page signed in with `key` through the console's form at `baseUrl`, once the page named `start` shows
 * (the documents list, for a key that may read documents). The page came with the console's CSP.
 */
export async function signIn(
  browser: Browser,
  baseUrl: string,
  key: string,
  start = 'Documentos emitidos',
): Promise<WatchedPage> {
  const watched = await openPage(browser);
  const { page } = watched;
  const response = await page.goto(`${baseUrl}/consola`);
  assert.equal(response?.headers()['content-security-policy'], consoleContentSecurityPolicy);
  await page.getByLabel('Clave API').fill(key);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await page.getByRole('heading', { name: start }).waitFor();
  return watched;
}

/**
 * The errors a page logged but the failed fetches a journey expects (Chromium logs each answer of `status`, the
 * API's refusals included, as a console error naming it).
 */
export function unexpectedErrors(errors: readonly string[], ...statuses: number[]): string[] {
  return errors.filter(
    (error) => !statuses.some((status) => error.includes(`the server responded with a status of ${String(status)}`)),
  );
}
