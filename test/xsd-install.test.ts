// `ecf xsd install <dir|file.zip|URL>` as an operator runs it, from DGII's files where they live (../shared/dgii/xsd,
// never copied into the repository) and from a local HTTP server serving a zip of them; then a service started on
// that DATA_DIR, without ECF_XSD_DIR, checks documents against them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildEcf } from '../src/fiscal/build/index.js';
import { signCanonicalDocument } from '../src/fiscal/xmldsig/index.js';
import { schemaKinds } from '../src/fiscal/xsd/index.js';
import { writeZip } from '../src/platform/zip.js';
import { assertProblem } from './support/assert-problem.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments, ownedFieldsFor } from './support/ecf-documents.js';
import { startLoggedTestApp, type LoggedTestApp } from './support/logged-test-app.js';
import { testSigningKey } from './support/xmldsig-kit.js';
import { ecfProgram } from './support/worker-process.js';

const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !['ECF_XSD_DIR', 'DATA_DIR', 'NODE_ENV', 'LOG_LEVEL'].includes(name)),
);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The real command in a child process; asynchronous, so this process's HTTP server keeps answering meanwhile. */
function ecf(dataDir: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...ecfProgram, ...args],
      { env: { ...cleanEnv, DATA_DIR: dataDir }, encoding: 'utf8', timeout: 90_000 },
      (error, stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    );
  });
}

const officialNames = readdirSync(officialXsdDir).filter((name) => name.endsWith('.xsd'));
const official = (name: string) => readFileSync(join(officialXsdDir, name));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The name DGII downloads a file under (`e-CF 31 v.1.0.xsd`, `ARECF v1.0.xsd`) from ours. */
const dgiiName = (name: string) =>
  name
    .replace(/^(e-CF|RFCE)-(\d+)\.xsd$/, '$1 $2 v.1.0.xsd')
    .replace(/^(ARECF)\.xsd$/, '$1 v1.0.xsd')
    .replace(/^(ACECF|ANECF|Semilla)\.xsd$/, '$1 v.1.0.xsd');

/** DGII's files zipped two folders deep under DGII's names (one in upper case), beside files that are not XSDs. */
function officialZip(leaveOut?: string): Buffer {
  const entries: [string, Buffer | string][] = officialNames
    .filter((name) => name !== leaveOut)
    .map((name) => {
      const entryName = name === 'Semilla.xsd' ? 'SEMILLA V.1.0.XSD' : dgiiName(name);
      return [`Formato XSD/e-CF v1.0/${entryName}`, official(name)];
    });
  entries.push(['Formato XSD/LEEME.txt', 'not an XSD'], ['__MACOSX/Formato XSD/._e-CF 31 v.1.0.xsd', 'metadata']);
  return writeZip(entries);
}

/** What an install left: each installed file's bytes by name, and the manifest. */
function installedState(dataDir: string): Map<string, string> {
  const dir = join(dataDir, 'xsd');
  return new Map(readdirSync(dir).map((name) => [name, sha256(readFileSync(join(dir, name)))]));
}

describe('ecf xsd install', { timeout: 300_000 }, () => {
  let root: string;
  let server: Server;
  let baseUrl: string;
  const temporary = () => mkdtempSync(join(root, 'case-'));

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'ecf-xsd-install-'));
    server = createServer((request, response) => {
      if (request.url === '/dgii/xsd.zip')
        response.writeHead(200, { 'content-type': 'application/zip' }).end(officialZip());
      else if (request.url === '/dgii/sin-anecf.zip') response.writeHead(200).end(officialZip('ANECF.xsd'));
      else if (request.url === '/dgii/pagina') response.writeHead(200, { 'content-type': 'text/html' }).end('<html/>');
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  let installedDataDir: string;

  it('installs the fifteen from a directory, byte for byte, and lists names, sizes, SHA-256 and the 8 repairs', async () => {
    installedDataDir = temporary();
    const run = await ecf(installedDataDir, ['xsd', 'install', officialXsdDir]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, '');
    for (const name of officialNames) {
      const bytes = official(name);
      assert.deepEqual(readFileSync(join(installedDataDir, 'xsd', name)), bytes, name);
      const size = bytes.length.toLocaleString('en-US');
      assert.match(
        run.stdout,
        new RegExp(`^ {2}${name.replace('.', '\\.')} +${size} bytes {2}sha256 ${sha256(bytes).slice(0, 16)}$`, 'm'),
      );
    }
    assert.match(run.stdout, /^Installed DGII's 15 XSDs from .* into .*\/xsd:$/m);
    assert.match(run.stdout, /^They compile with 8 repairs/m);
    assert.match(run.stdout, /^ {2}e-CF-31\.xsd:476: trimmed the name " IndicadorServicioTodoIncluidoType"/m);
    const manifest = JSON.parse(readFileSync(join(installedDataDir, 'xsd', 'installed.json'), 'utf8')) as {
      source: string;
      files: { name: string; sha256: string }[];
      repairs: string[];
    };
    assert.equal(manifest.source, officialXsdDir);
    assert.deepEqual(
      manifest.files.map((file) => file.name),
      schemaKinds.map((kind) => `${kind}.xsd`),
    );
    assert.equal(manifest.repairs.length, 8);
    // Nothing of the staging is left beside the install, and a service running as another user can read it.
    assert.deepEqual(readdirSync(installedDataDir), ['xsd']);
    assert.equal(statSync(join(installedDataDir, 'xsd')).mode & 0o777, 0o755);
  });

  it("installs from a URL serving a zip, at any depth, under DGII's names in any case", async () => {
    const dataDir = temporary();
    const run = await ecf(dataDir, ['xsd', 'install', `${baseUrl}/dgii/xsd.zip`]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^ {2}e-CF-31\.xsd +123,019 bytes {2}sha256 [0-9a-f]{16} {2}from Formato XSD\/e-CF v1\.0\/e-CF 31 v\.1\.0\.xsd$/m,
    );
    assert.match(run.stdout, /^ {2}Semilla\.xsd .* from Formato XSD\/e-CF v1\.0\/SEMILLA V\.1\.0\.XSD$/m);
    for (const name of officialNames) assert.deepEqual(readFileSync(join(dataDir, 'xsd', name)), official(name), name);
  });

  it('refuses a URL that is not a zip, or that fails, with one line and exit 1', async () => {
    const dataDir = temporary();
    const [page, missing] = await Promise.all([
      ecf(dataDir, ['xsd', 'install', `${baseUrl}/dgii/pagina`]),
      ecf(dataDir, ['xsd', 'install', `${baseUrl}/dgii/nada.zip`]),
    ]);
    assert.deepEqual([page.status, page.stdout], [1, '']);
    assert.equal(
      page.stderr,
      `ecf: ${baseUrl}/dgii/pagina did not answer with a zip (a URL must point at a zip of DGII's XSDs)\n`,
    );
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, `ecf: cannot download ${baseUrl}/dgii/nada.zip: HTTP 404\n`);
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('refuses a zip missing one file, naming it, and keeps the previous install intact', async () => {
    const before = installedState(installedDataDir);
    const zipPath = join(temporary(), 'sin-anecf.zip');
    writeFileSync(zipPath, officialZip('ANECF.xsd'));
    for (const source of [zipPath, `${baseUrl}/dgii/sin-anecf.zip`]) {
      const run = await ecf(installedDataDir, ['xsd', 'install', source]);
      assert.deepEqual([run.status, run.stdout], [1, ''], source);
      assert.equal(run.stderr, `ecf: ${source} lacks the XSD for ANECF (ANECF.xsd); nothing was installed\n`);
      assert.deepEqual(installedState(installedDataDir), before);
      assert.deepEqual(readdirSync(installedDataDir), ['xsd']);
    }
  });

  it('refuses an XSD that does not compile, naming it, and keeps the previous install intact', async () => {
    const before = installedState(installedDataDir);
    const dir = temporary();
    for (const name of officialNames) {
      // Deeper than the top, under DGII's name: e-CF 33 cut short, as an interrupted copy leaves it.
      const bytes = official(name);
      writeFileSync(join(dir, dgiiName(name)), name === 'e-CF-33.xsd' ? bytes.subarray(0, 5_000) : bytes);
    }
    const run = await ecf(installedDataDir, ['xsd', 'install', dir]);
    assert.deepEqual([run.status, run.stdout], [1, '']);
    assert.match(
      run.stderr,
      /^ecf: e-CF-33\.xsd \(e-CF 33 v\.1\.0\.xsd\) does not compile, even with the known repairs: line \d+: .*; nothing was installed\n$/,
    );
    assert.deepEqual(installedState(installedDataDir), before);
    assert.deepEqual(readdirSync(installedDataDir), ['xsd']);
  });

  it('answers a wrong use with the usage and exit 2', async () => {
    const wrongUses = [['xsd'], ['xsd', 'install'], ['xsd', 'instalar', officialXsdDir], ['xsd', 'install', 'a', 'b']];
    const runs = await Promise.all(wrongUses.map((args) => ecf(temporary(), args)));
    runs.forEach((run, i) => {
      assert.deepEqual(
        [run.status, run.stdout, run.stderr],
        [2, '', 'usage: ecf xsd install <dir|file.zip|https://…/file.zip>\n'],
        wrongUses[i]?.join(' '),
      );
    });
  });

  describe('the service on that DATA_DIR', () => {
    /** An e-CF 31 signed elsewhere without TipoIngresos: DGII's schema requires it; only the XSD says so first. */
    function outsideSchema(): string {
      const built = buildEcf(ecfDocuments['31'], { ...ownedFieldsFor('31'), eNCF: 'E310000000001' });
      assert.ok(built.ok);
      return signCanonicalDocument(built.xml.replace(/<TipoIngresos>\d+<\/TipoIngresos>/, ''), testSigningKey());
    }
    async function submit(app: LoggedTestApp, xml: string) {
      const companyId = await app.provisionCompany();
      const { apiKey } = await app.issueKey(companyId, ['documents:create']);
      return app.app.inject({
        method: 'POST',
        url: '/api/v1/documentos/xml-firmado',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/xml' },
        payload: xml,
      });
    }
    const schemaRefusal = "The XML does not pass DGII's e-CF-31 schema.";

    it('validates against the installed XSDs without ECF_XSD_DIR', async () => {
      const app = await startLoggedTestApp({ dataDir: installedDataDir, logLevel: 'info' });
      try {
        assert.equal(app.config.xsdDir, undefined);
        const compiled = app.logs.entries().find((entry) => entry.msg === 'official XSDs compiled');
        assert.deepEqual(
          [compiled?.xsdDir, compiled?.schemas, compiled?.repairs],
          [join(installedDataDir, 'xsd'), 15, 8],
        );
        assert.equal(app.logs.linesWith('ecf xsd install').length, 0);
        const refused = assertProblem(await submit(app, outsideSchema()), 422, 'signed_xml_invalid');
        assert.equal(refused.detail, schemaRefusal);
      } finally {
        await app.close();
      }
    });

    it('without an install, warns at start naming the command, and lets the same document past the schema', async () => {
      const app = await startLoggedTestApp({ logLevel: 'info' });
      try {
        const warnings = app.logs.entries().filter((entry) => entry.level === 40 && entry.xsdDir === null);
        assert.equal(warnings.length, 1);
        assert.match(
          String(warnings[0]?.msg),
          /documents are checked against the model only; run: ecf xsd install <dir\|zip\|URL>$/,
        );
        assert.equal(app.application.schemas, undefined);
        // Past the schema unseen, the document is refused only later, for its issuer (not the key's company).
        const refused = assertProblem(await submit(app, outsideSchema()), 422, 'document_invalid');
        assert.deepEqual(
          refused.errors?.map((error) => error.code),
          ['not_the_issuer'],
        );
      } finally {
        await app.close();
      }
    });
  });
});
