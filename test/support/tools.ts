// The external programs the tests use as independent oracles (or to drive a server of their own), and the one
// rule for a missing one: under CI=true, where .ci/run installs them all, the test that needs it fails and says
// which package to install; elsewhere it is skipped, visibly, never passed without the check (issue 44).
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';

/** Each tool and the Debian package that has it (what .ci/run installs). */
const debianPackage = {
  xmllint: 'libxml2-utils',
  xmlsec1: 'xmlsec1',
  pdftotext: 'poppler-utils',
  pdfinfo: 'poppler-utils',
  pdffonts: 'poppler-utils',
  pdftoppm: 'poppler-utils',
  pdfimages: 'poppler-utils',
  zbarimg: 'zbar-tools',
  unzip: 'unzip',
  sha256sum: 'coreutils',
  pg_dump: 'postgresql-client',
  pg_restore: 'postgresql-client',
  initdb: 'postgresql',
  pg_ctl: 'postgresql',
  openssl: 'openssl',
  python3: 'python3',
  chromium: 'chromium',
} as const;

export type Tool = keyof typeof debianPackage;

/** Debian keeps the server's programs off PATH, under /usr/lib/postgresql/<major>/bin. */
function postgresServerDirs(): string[] {
  try {
    return readdirSync('/usr/lib/postgresql').map((major) => `/usr/lib/postgresql/${major}/bin`);
  } catch {
    return [];
  }
}

const found = new Map<Tool, boolean>();

export function toolInstalled(tool: Tool): boolean {
  let present = found.get(tool);
  if (present === undefined) {
    const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
    if (tool === 'initdb' || tool === 'pg_ctl') dirs.push(...postgresServerDirs());
    present = dirs.some((dir) => {
      try {
        accessSync(join(dir, tool), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    found.set(tool, present);
  }
  return present;
}

/** What is missing of `tools` and how to install it, or undefined when every one is installed. */
export function missingTools(tools: readonly Tool[]): string | undefined {
  const absent = tools.filter((tool) => !toolInstalled(tool));
  if (absent.length === 0) return undefined;
  const packages = [...new Set(absent.map((tool) => debianPackage[tool]))];
  return `${absent.join(', ')} not installed (apt-get install ${packages.join(' ')})`;
}

function ci(): boolean {
  return process.env.CI === 'true';
}

function ciFailure(missing: string): Error {
  return new Error(`${missing}: CI=true, where .ci/run installs every tool the tests use, so this test fails`);
}

/**
 * In a test: true when every tool is installed. When one is missing, under CI=true this throws, which fails the
 * test; elsewhere it marks the test skipped, naming the tool, and answers false. The test then returns, or leaves
 * out only the checks that need the tool: the rest still runs, and a failure of it still fails the test.
 */
export function requireTool(t: TestContext, ...tools: [Tool, ...Tool[]]): boolean {
  const missing = missingTools(tools);
  if (missing === undefined) return true;
  if (ci()) throw ciFailure(missing);
  t.skip(`${missing}: the checks that need it did not run`);
  return false;
}

/**
 * For the `skip` option of a suite whose every test needs the tools: false when they are installed, else the
 * reason it is skipped. Under CI=true a missing tool throws instead, failing the file (or the enclosing suite)
 * with the same message.
 */
export function skipUnlessTools(...tools: [Tool, ...Tool[]]): string | false {
  const missing = missingTools(tools);
  if (missing === undefined) return false;
  if (ci()) throw ciFailure(missing);
  return `${missing}: the tests that need it did not run`;
}

/** For the oracles themselves: a call without the tool fails at once, naming it, not with a bare spawn error. */
export function assertToolInstalled(tool: Tool): void {
  const missing = missingTools([tool]);
  if (missing !== undefined) throw new Error(missing);
}
