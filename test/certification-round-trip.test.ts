// Certification's round trip (SPEC §3, §4.8), as an operator runs it: `FISCAL_ENV=CERT ecf start` on embedded
// defaults (PGlite, the embedded sandbox playing CerteCF and DGII's certification portal), the set workbook
// downloaded from the portal, `ecf certification convert`, iniciar, ejecutar until done, every manual step played in
// the portal and confirmed here, steps 9 and 11 by DGII's own traffic to the running receiver, then completar, with
// the portal at "Finalizado". Prints how long it took.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signXml } from '../src/fiscal/xmldsig/index.js';
import { officialXsdDir } from './support/dgii-files.js';
import { freePort } from './support/free-port.js';
import { unconfiguredEnv } from './support/unconfigured-env.js';
import { requireTool } from './support/tools.js';
import { testSigningKey, verifyWithXmlsec1Embedded } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';
import { zipEntries } from './support/zip-entries.js';
import { ecfProgram } from './support/worker-process.js';

interface Credentials {
  apiKey: string;
  rnc: string;
  baseUrl: string;
  receiverBaseUrl: string;
  sandboxUrl: string;
  sandboxAdminToken: string;
}

interface Checklist {
  id: string;
  status: string;
  links: string[];
}

interface ProcessRead {
  id: string;
  status: string;
  steps: { number: number; status: string }[];
  checklist: Checklist[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('certification round trip on FISCAL_ENV=CERT embedded defaults', { timeout: 600_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ecf-cert-'));
  let child: ChildProcess;
  let output = '';
  let credentials: Credentials;

  before(async () => {
    const port = await freePort();
    const env = unconfiguredEnv({
      FISCAL_ENV: 'CERT',
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ECF_XSD_DIR: officialXsdDir,
    });
    child = spawn(process.execPath, [...ecfProgram, 'start'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const path = join(dataDir, 'demo-credentials.json');
    const deadline = Date.now() + 180_000;
    while (!existsSync(path) || !readFileSync(path, 'utf8').includes('sandboxAdminToken')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no demo credentials:\n${output}`);
      await sleep(250);
    }
    credentials = JSON.parse(readFileSync(path, 'utf8')) as Credentials;
  });

  after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${credentials.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': credentials.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data: unknown } & Record<string, unknown> };
  };
  const portal = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const response = await fetch(`${credentials.sandboxUrl}/sandbox-admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${credentials.sandboxAdminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        postulacion?: { step: number; inbox: { text: string }[] };
        step?: number;
        message?: string;
      },
    };
  };
  const act = async (action: string, body: unknown = {}) => {
    const answer = await portal('POST', `/certification/${credentials.rnc}/actions/${action}`, body);
    assert.equal(answer.status, 200, `${action}: ${JSON.stringify(answer.body)}`);
    return answer.body.postulacion?.step;
  };
  const portalStep = async () =>
    ((await portal('GET', `/certification/${credentials.rnc}`)).body as { step: number }).step;

  let processId = '';
  const read = async () => {
    const answer = await api('GET', `/api/v1/certificacion/${processId}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.data as ProcessRead;
  };
  const stepStatus = async (number: number) => (await read()).steps.find((step) => step.number === number)?.status;
  const confirm = async (key: string) => {
    const answer = await api('POST', `/api/v1/certificacion/${processId}/pasos/${key}/confirmar`, {
      note: `played in the portal (${key})`,
    });
    assert.equal(answer.status, 200, `${key}: ${JSON.stringify(answer.body)}`);
  };
  /** Hands cases in and reads until the step is done; uploads each accepted consumer invoice in the portal once. */
  const uploaded = new Set<string>();
  async function runStep(step: number, timeoutMs = 240_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await api('POST', `/api/v1/certificacion/${processId}/ejecutar?limit=50`);
      assert.equal(run.status, 202, JSON.stringify(run.body));
      const process = await read();
      assert.equal(process.status, 'active', JSON.stringify(process));
      for (const link of process.checklist.find((item) => item.id === 'consumer_invoice_uploads')?.links ?? []) {
        if (uploaded.has(link)) continue;
        const documentId = /documentos\/([^/]+)\//.exec(link)?.[1] ?? '';
        const document = (await api('GET', `/api/v1/documentos/${documentId}`)).body.data as { status: string };
        if (document.status !== 'accepted') continue;
        const xml = await (
          await fetch(`${credentials.baseUrl}${link}`, { headers: { 'x-api-key': credentials.apiKey } })
        ).text();
        await act('upload-consumer-invoice', { xml });
        uploaded.add(link);
      }
      if (process.steps.find((candidate) => candidate.number === step)?.status === 'done') return;
      if (Date.now() > deadline)
        throw new Error(`step ${String(step)} not done: ${JSON.stringify(process.checklist)}\n${output}`);
      await sleep(500);
    }
  }

  it("goes from the portal's set to completar, with the portal at Finalizado", async (t) => {
    const started = Date.now();
    const rnc = credentials.rnc;
    // Step 1: the postulación in the portal, with the running receiver's test URLs.
    const urls = {
      receptionUrl: credentials.receiverBaseUrl,
      approvalUrl: credentials.receiverBaseUrl,
      authenticationUrl: credentials.receiverBaseUrl,
    };
    assert.equal((await portal('POST', `/certification/${rnc}`, urls)).status, 201);
    assert.equal(await act('validate'), 2);

    // The set workbook, converted offline.
    const workbook = await fetch(`${credentials.sandboxUrl}/sandbox-admin/certification/${rnc}/set.xlsx`, {
      headers: { authorization: `Bearer ${credentials.sandboxAdminToken}` },
    });
    assert.equal(workbook.status, 200);
    const workbookPath = join(dataDir, 'set.xlsx');
    writeFileSync(workbookPath, Buffer.from(await workbook.arrayBuffer()));
    const converted = spawnSync(process.execPath, [...ecfProgram, 'certification', 'convert', workbookPath], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(converted.status, 0, converted.stderr);
    assert.equal(converted.stderr, '');

    const iniciar = await api('POST', '/api/v1/certificacion/iniciar', JSON.parse(converted.stdout));
    assert.equal(iniciar.status, 201, JSON.stringify(iniciar.body));
    processId = (iniciar.body.data as { id: string }).id;
    await confirm('registrado');

    await runStep(2);
    await runStep(3);
    await runStep(4);
    assert.equal(await portalStep(), 5);
    // The checklist names one accepted document per printed-representation slot, with its printed data.
    const printed = (await read()).checklist.find((item) => item.id === 'printed_representation_documents');
    assert.equal(printed?.status, 'ok', JSON.stringify(printed));
    assert.equal(printed.links.length, 12);
    const impresion = await fetch(`${credentials.baseUrl}${printed.links[0] ?? ''}`, {
      headers: { 'x-api-key': credentials.apiKey },
    });
    assert.equal(impresion.status, 200);

    // Step 5's eleven PDFs, in one zip: each a PDF of its slot's document, together under the portal's 10 MB.
    const zipResponse = await fetch(`${credentials.baseUrl}${printed.links[11] ?? ''}`, {
      headers: { 'x-api-key': credentials.apiKey },
    });
    assert.equal(zipResponse.status, 200);
    assert.equal(zipResponse.headers.get('content-type'), 'application/zip');
    const pdfs = await zipEntries(Buffer.from(await zipResponse.arrayBuffer()));
    const slots = ['31', '32', '32<250k', '33', '34', '41', '43', '44', '45', '46', '47'];
    assert.deepEqual(
      [...pdfs.keys()].map((name) => name.split('_')[0]?.replace('-menor-250k', '<250k')),
      slots,
    );
    for (const [name, bytes] of pdfs) assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', name);
    assert.ok([...pdfs.values()].reduce((sum, bytes) => sum + bytes.length, 0) < 10 * 1024 * 1024);

    // Steps 5-8: printed representations, their review, the test URLs, the reception test's start.
    await act('upload-printed-representations', {
      files: [...pdfs].map(([name, bytes]) => ({
        slot: name.split('_')[0]?.replace('-menor-250k', '<250k'),
        pdfBase64: bytes.toString('base64'),
      })),
    });
    await confirm('representacion_impresa_envio');
    await act('approve-printed-representations');
    await confirm('representacion_impresa_validacion');
    await act('confirm-test-urls');
    await confirm('url_servicio_prueba');
    // Step 9: the operator clicks in the portal first (DGII sends e-CF to the receiver at once and judges the signed
    // ARECFs), then confirms here: the e-CF count from when step 8 opened.
    assert.equal(await act('send-test-documents'), 10);
    await confirm('url_pruebas_comunicacion');
    assert.equal(await stepStatus(9), 'done');
    // Step 11 the same way: DGII's ACECFs (RNCComprador: its test taxpayer) get 200 while step 10 is open.
    assert.equal(await act('send-test-approvals'), 12);
    await confirm('inicio_prueba_aprobaciones');
    assert.equal(await stepStatus(11), 'done');

    await act('confirm-production-urls', {
      receptionUrl: 'https://ecf.ejemplo.do/ecf/demo',
      approvalUrl: 'https://ecf.ejemplo.do/ecf/demo',
      authenticationUrl: 'https://ecf.ejemplo.do/ecf/demo',
    });
    await confirm('url_produccion');
    // Step 13: the representative signs the declaration outside the service, with a certificate delegated for the RNC.
    const company = (await api('GET', '/api/v1/empresa')).body.data as {
      company: { legalName: string; certificate: { fingerprintSha256: string } };
    };
    const representative = testSigningKey();
    assert.equal(
      (
        await portal('POST', '/taxpayers', {
          rnc,
          name: company.company.legalName,
          certificates: [company.company.certificate.fingerprintSha256, representative.certificatePem],
        })
      ).status,
      201,
    );
    const declaration = await (
      await fetch(`${credentials.sandboxUrl}/sandbox-admin/certification/${rnc}/sworn-declaration.xml`, {
        headers: { authorization: `Bearer ${credentials.sandboxAdminToken}` },
      })
    ).text();
    assert.equal(await act('sworn-declaration', { xml: signXml(declaration, representative) }), 14);
    await confirm('declaracion_jurada');
    assert.equal(await act('verify-status'), 15);
    await confirm('verificacion_estatus');

    const completed = await api('POST', `/api/v1/certificacion/${processId}/completar`);
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    assert.equal((completed.body.data as { status: string }).status, 'completed');
    assert.equal(await portalStep(), 15);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);

    // Every signed artefact of the run — the e-CF, the RFCE, the approvals — against DGII's XSD (xmllint) and
    // xmlsec1 (the certificate from KeyInfo; a self-signed one, so no chain).
    const files = readdirSync(join(dataDir, 'blobs'), { recursive: true, encoding: 'utf8' }).filter((name) =>
      /\.(signed-xml|rfce-xml)\.v1\.xml$|\.acecf\.xml$/.test(name),
    );
    const kinds = { ecf: 0, rfce: 0, acecf: 0 };
    const [xmllint, xmlsec1] = [requireTool(t, 'xmllint'), requireTool(t, 'xmlsec1')];
    for (const name of files) {
      const xml = readFileSync(join(dataDir, 'blobs', name), 'utf8');
      const xsd = name.endsWith('.acecf.xml')
        ? 'ACECF.xsd'
        : name.includes('.rfce-xml.')
          ? 'RFCE-32.xsd'
          : `e-CF-${/<TipoeCF>(\d\d)<\/TipoeCF>/.exec(xml)?.[1] ?? ''}.xsd`;
      kinds[xsd === 'ACECF.xsd' ? 'acecf' : xsd === 'RFCE-32.xsd' ? 'rfce' : 'ecf'] += 1;
      if (xmllint) {
        const schema = validateWithOfficialXsd(xsd, xml);
        assert.ok(schema.valid, `${name}: ${schema.errors}`);
      }
      if (xmlsec1) {
        const verified = verifyWithXmlsec1Embedded(xml);
        assert.ok(verified.ok, `${name}: ${verified.output}`);
      }
    }
    // 25 set e-CF and 25 simulation e-CF, 4 + 4 RFCE, the set's 11 approvals.
    assert.deepEqual(kinds, { ecf: 50, rfce: 8, acecf: 11 });
    process.stdout.write(`# certification round trip against the embedded sandbox: ${seconds} s\n`);
  });
});
