// The README's quick start, run as written: the ```sh blocks under "## Quick start", in one bash, against `npm
// start` in a fresh copy of the project (no data/, no dist/: it builds and provisions from nothing), as a new user
// would run them (`bash -eu`: a failing command stops the rest). The only change made to the commands is the port:
// the README's 127.0.0.1:3000 becomes a free one.
// Each block must print what the README's comment lines under it say it prints (`…` stands for what differs from run
// to run), and then do what the README says: the files it downloads are checked against the service.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './support/free-port.js';
import { procStatFields } from './support/proc-stat.js';
import { unconfiguredEnv } from './support/unconfigured-env.js';
import { requireTool } from './support/tools.js';
import { verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';
import { projectRoot } from './support/project-root.js';
import { committedSources, quickStartBlocks } from './support/readme-quick-start.js';

const blockEnd = '@@@ end of a quick start block';

interface DocumentView {
  id: string;
  ecfType: string;
  status: string;
  eNCF: string;
  montoTotal: string;
  securityCode: string;
  dgii: { estado: string; trackId: string };
  artefacts: { type: string; sha256: string }[];
}

/** A README output line as a pattern: `…` is anything, the rest literal. */
function linePattern(line: string): RegExp {
  return new RegExp(
    `^${line
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** The pid of the node process `npm start` ends in (not npm, nor the shell between them), in process group `group`. */
function serverPid(group: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (
        Number(procStatFields(`/proc/${name}/stat`)[2]) === group &&
        command[0]?.endsWith('node') &&
        command[1] === 'scripts/start.mjs'
      )
        return Number(name);
    } catch {
      // gone between the listing and the read
    }
  }
  return undefined;
}

describe('the README quick start, run as written against npm start in a fresh directory', { timeout: 480_000 }, () => {
  const blocks = quickStartBlocks(readFileSync(join(projectRoot, 'README.md'), 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'ecf-quick-start-'));
  let port: number;
  let server: ChildProcess | undefined;
  let serverOutput = '';
  const outputs: string[][] = [];
  let scriptOutput = '';
  /** Signals npm start's process group (npm, its shell and node; 0 only asks); false when the group is gone. */
  const signalServer = (signal: NodeJS.Signals | 0) => {
    if (server?.pid === undefined) return false;
    try {
      process.kill(-server.pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  const stopServer = () => signalServer('SIGTERM');

  const readJson = (name: string): unknown => JSON.parse(readFileSync(join(dir, name), 'utf8'));
  const apiKey = () => (readJson('data/demo-credentials.json') as { apiKey: string }).apiKey;
  /** The service's own answer, asked for by the test (not by the README's commands). */
  async function service(path: string): Promise<unknown> {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, { headers: { 'x-api-key': apiKey() } });
    assert.equal(response.status, 200, path);
    return ((await response.json()) as { data: unknown }).data;
  }
  const quickStartDocument = async () =>
    (await service(`/documentos/${(readJson('invoice.json') as { data: { id: string } }).data.id}`)) as DocumentView;

  before(async () => {
    assert.ok(blocks.length >= 4, `the quick start has its sh blocks (found ${blocks.length})`);
    for (const path of committedSources) cpSync(join(projectRoot, path), join(dir, path), { recursive: true });
    symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
    port = await freePort();
    const spawnedAt = Date.now();
    // Its own process group, so that npm, the shell and node stop together.
    server = spawn('npm', ['start'], { cwd: dir, detached: true, env: unconfiguredEnv({ PORT: String(port) }) });
    process.once('exit', stopServer);
    server.stdout?.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (serverOutput += chunk.toString()));
    let builtAt: number | undefined;
    for (;;) {
      if (builtAt === undefined && existsSync(join(dir, 'dist/src/main.js'))) builtAt = Date.now();
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready && existsSync(join(dir, 'data/demo-credentials.json'))) break;
      if (server.exitCode !== null) assert.fail(`npm start exited (${server.exitCode}):\n${serverOutput}`);
      if (Date.now() - spawnedAt > 300_000) assert.fail(`npm start not ready after 300 s:\n${serverOutput}`);
      await sleep(250);
    }
    const readyAt = Date.now();
    process.stdout.write(
      `# npm start: built in ${(((builtAt ?? readyAt) - spawnedAt) / 1000).toFixed(1)} s, ready ${((readyAt - spawnedAt) / 1000).toFixed(1)} s after spawning\n`,
    );

    const script = blocks
      .map((block) => `${block.commands.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`)}\necho '${blockEnd}'`)
      .join('\n');
    const run = spawnSync('bash', ['-eu', '-c', script], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    scriptOutput = `${run.stdout}${run.stderr}`;
    outputs.push(
      ...run.stdout.split(`${blockEnd}\n`).map((output) => output.split('\n').filter((line) => line !== '')),
    );
    const pid = serverPid(server.pid ?? -1);
    const rss =
      pid === undefined ? undefined : /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    process.stdout.write(`# after the quick start, the server (node, pid ${pid}) has VmRSS ${rss} kB\n`);
  });

  after(async () => {
    // Stopped gracefully when it can be, killed when not, even when the quick start failed.
    const deadline = Date.now() + 15_000;
    stopServer();
    while (signalServer(0) && Date.now() < deadline) await sleep(250);
    signalServer('SIGKILL');
    process.removeListener('exit', stopServer);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the console the README points to, built by npm start', async () => {
    const page = await fetch(`http://127.0.0.1:${port}/consola`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const script = /src="(\/consola\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    assert.ok(script !== undefined);
    assert.equal((await fetch(`http://127.0.0.1:${port}${script}`)).status, 200);
  });

  it('prints, block by block, what the README says each block prints', () => {
    assert.equal(outputs.length, blocks.length + 1, `every block ran to its end:\n${scriptOutput}`);
    blocks.forEach((block, i) => {
      const printed = outputs[i] ?? [];
      assert.equal(
        printed.length,
        block.printed.length,
        `block ${i + 1} prints ${block.printed.length} lines:\n${scriptOutput}`,
      );
      for (const [j, line] of block.printed.entries())
        assert.match(printed[j] ?? '', linePattern(line), `block ${i + 1}, line ${j + 1}`);
    });
  });

  it("creates a signed type-31 invoice (201), sends it (202, queued) and reads DGII's acceptance", async () => {
    const printed = outputs.flat();
    assert.ok(printed.includes('201') && printed.includes('202') && printed.includes('queued'), scriptOutput);
    const invoice = (readJson('invoice.json') as { data: { id: string; eNCF: string } }).data;
    const document = await quickStartDocument();
    assert.deepEqual([document.ecfType, document.status, document.eNCF], ['31', 'accepted', invoice.eNCF]);
    assert.equal(document.dgii.estado, 'Aceptado');
    assert.ok(printed.includes(`signed ${document.eNCF} ${document.montoTotal}`), scriptOutput);
    assert.ok(printed.includes(`accepted Aceptado ${document.dgii.trackId}`), scriptOutput);
    const timeline = (await service(`/documentos/${invoice.id}/cronologia`)) as { events: { status: string | null }[] };
    const entered = timeline.events.flatMap((event) => (event.status === null ? [] : [event.status]));
    assert.deepEqual([entered[0], entered[1], entered.at(-1)], ['signed', 'queued', 'accepted'], entered.join(', '));
  });

  it('downloads the signed XML as archived (its recorded SHA-256), and it verifies under xmlsec1', async (t) => {
    const document = await quickStartDocument();
    const xml = readFileSync(join(dir, `${document.eNCF}.xml`));
    const recorded = document.artefacts.find((artefact) => artefact.type === 'signed-xml');
    assert.equal(createHash('sha256').update(xml).digest('hex'), recorded?.sha256);
    if (!requireTool(t, 'xmlsec1')) return;
    const verdict = verifyWithXmlsec1Embedded(xml);
    assert.ok(verdict.ok, verdict.output);
  });

  it('downloads the printed data with the e-NCF and the security code, and the PDF', async () => {
    const document = await quickStartDocument();
    const printable = (
      readJson(`${document.eNCF}-impresion.json`) as {
        data: { eNCF: string; securityCode: string; issuer: { rnc: string } };
      }
    ).data;
    assert.deepEqual(
      [printable.eNCF, printable.securityCode, printable.issuer.rnc],
      [document.eNCF, document.securityCode, '999999992'],
    );
    const pdf = readFileSync(join(dir, `${document.eNCF}.pdf`));
    const served = await fetch(`http://127.0.0.1:${port}/api/v1/documentos/${document.id}/impresion`, {
      headers: { 'x-api-key': apiKey(), accept: 'application/pdf' },
    });
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    assert.ok(pdf.equals(Buffer.from(await served.arrayBuffer())), 'the PDF downloaded is the one the service prints');
  });
});
