// The receiver standard (SPEC §4.9, §5, §8; DESIGN §5.3): DGII's counterpart taxpayer (the sandbox) authenticates to
// our receiver and sends an e-CF; the ARECF it gets is signed by the receiving company, valid per ARECF.xsd and
// verified by xmlsec1; the reasons of Estado 1 come in the standard's order; duplicates survive a restart and a race;
// tokens follow RECEIVER_AUTH_MODE; refused input gets DGII's plain error and leaves nothing behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { buildApplication, type Application } from '../src/app.js';
import { demoRnc, ensureDemo } from '../src/demo.js';
import { buildEcf } from '../src/fiscal/build/index.js';
import type { EcfType } from '../src/fiscal/model/ecf-model-types.js';
import { groupsOf, parseXmlTree, textOf } from '../src/fiscal/parse/index.js';
import { parseSemilla } from '../src/fiscal/responses/semilla.js';
import {
  signCanonicalDocument,
  signXml,
  verifyEnvelopedSignature,
  type SigningKey,
} from '../src/fiscal/xmldsig/index.js';
import { createReceiverAuth } from '../src/modules/receiver/index.js';
import type { Cache } from '../src/platform/cache/index.js';
import { createMemoryCache } from '../src/platform/cache/memory-cache.js';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import type { App } from '../src/platform/http/route.js';
import { officialXsdDir } from './support/dgii-files.js';
import { ecfDocuments, issuerRnc, ownedFieldsFor } from './support/ecf-documents.js';
import { startSandbox, type RunningSandbox } from './support/sandbox-kit.js';
import { startLoggedTestApp } from './support/logged-test-app.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';
import { testSigningKey, verifyWithXmlsec1 } from './support/xmldsig-kit.js';
import { validateWithOfficialXsd } from './support/xmllint.js';

const testServerUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const issuerKey = testSigningKey();
let nextSequence = 1_000 + Math.floor(Math.random() * 1_000_000);

interface Receiving {
  app: TestApp;
  companyId: string;
  rnc: string;
  apiKey: string;
  /** The company's certificate, which signs its ARECFs. */
  certificatePem: string;
}

/** A company able to receive: provisioned with a certificate, and a key that reads its inbox. */
async function receivingCompany(app: TestApp): Promise<Receiving> {
  const rnc = nextRnc();
  const companyId = await app.provisionCompany({ rnc });
  const certificate = createSelfSignedP12({
    commonName: 'RECEPTOR DE PRUEBA',
    serialNumber: rnc,
    notBefore: new Date('2026-01-01'),
    notAfter: new Date('2036-01-01'),
    password: 'clave',
  });
  const installed = await app.sendEvent('certificate.installed', {
    companyId,
    p12Base64: certificate.p12.toString('base64'),
    password: 'clave',
  });
  assert.equal(installed.statusCode, 200, installed.body);
  const { apiKey } = await app.issueKey(companyId, ['received:read']);
  return { app, companyId, rnc, apiKey, certificatePem: certificate.certificatePem };
}

/** A signed e-CF of the fiscal fixtures, from their issuer to `buyer`, with a fresh e-NCF. */
function ecfTo(
  buyer: string,
  options: { type?: EcfType; encf?: string; key?: SigningKey } = {},
): { xml: string; encf: string } {
  const type = options.type ?? '31';
  const document = structuredClone(ecfDocuments[type]) as { Encabezado: { Comprador?: Record<string, unknown> } };
  if (document.Encabezado.Comprador !== undefined) document.Encabezado.Comprador['RNCComprador'] = buyer;
  const encf = options.encf ?? `E${type}${String(nextSequence++).padStart(10, '0')}`;
  const built = buildEcf(document, { ...ownedFieldsFor(type), eNCF: encf });
  assert.ok(built.ok, JSON.stringify(built));
  return { xml: signCanonicalDocument(built.xml, options.key ?? issuerKey), encf };
}

/** multipart/form-data with one file part, as light-my-request takes it. */
function multipart(
  content: string | Buffer,
  options: { field?: string; filename?: string; truncate?: boolean } = {},
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----receiver-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'xml'}"; filename="${options.filename ?? 'documento.xml'}"\r\nContent-Type: text/xml\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const payload = Buffer.concat([
    head,
    typeof content === 'string' ? Buffer.from(content) : content,
    options.truncate === true ? Buffer.alloc(0) : tail,
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

function base(company: Pick<Receiving, 'rnc'>, environment = 'testecf'): string {
  return `/${environment}/${company.rnc}/fe`;
}

/** Seed → signed with `key` → token, at our receiver. */
async function tokenAt(app: App, path: string, key: SigningKey = issuerKey): Promise<string> {
  const seed = await app.inject({ method: 'GET', url: `${path}/autenticacion/api/semilla` });
  assert.equal(seed.statusCode, 200, seed.body);
  const form = multipart(signXml(seed.body, key), { filename: 'semilla.xml' });
  const answer = await app.inject({
    method: 'POST',
    url: `${path}/autenticacion/api/validacioncertificado`,
    ...form,
    headers: { ...form.headers, accept: 'application/json' },
  });
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.json<{ token: string }>().token;
}

function postEcf(
  app: App,
  path: string,
  xml: string | Buffer,
  token: string | undefined,
  options: { filename?: string } = {},
): Promise<LightMyRequestResponse> {
  const form = multipart(xml, options);
  return app.inject({
    method: 'POST',
    url: `${path}/recepcion/api/ecf`,
    payload: form.payload,
    headers: { ...form.headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  });
}

function arecfFields(xml: string): Record<string, string | undefined> {
  const parsed = parseXmlTree(xml);
  assert.ok(parsed.ok && parsed.root === 'ARECF', xml);
  const detail = groupsOf(parsed.tree, 'DetalleAcusedeRecibo')[0] ?? {};
  return Object.fromEntries(
    ['RNCEmisor', 'RNCComprador', 'eNCF', 'Estado', 'CodigoMotivoNoRecibido', 'FechaHoraAcuseRecibo'].map((name) => [
      name,
      textOf(detail, name),
    ]),
  );
}

/** Signed by the receiving company, valid per DGII's ARECF.xsd, verified by our verifier and by xmlsec1. */
function assertSignedArecf(xml: string, company: Receiving): void {
  const schema = validateWithOfficialXsd('ARECF.xsd', xml);
  assert.ok(schema.valid, schema.errors);
  const verified = verifyEnvelopedSignature(xml);
  assert.ok(verified.ok, JSON.stringify(verified));
  assert.equal(verified.certificatePem.replace(/\s/g, ''), company.certificatePem.replace(/\s/g, ''));
  const xmlsec = verifyWithXmlsec1(xml, company.certificatePem);
  assert.ok(xmlsec.ok, xmlsec.output);
}

async function receivedRows(application: Application): Promise<number> {
  const row = await application.database.db
    .selectFrom('received_documents')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

async function databaseUrlOf(application: Application): Promise<string> {
  const name = (await sql<{ name: string }>`select current_database() as name`.execute(application.database.db)).rows[0]
    ?.name;
  assert.ok(name !== undefined);
  const url = new URL(testServerUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

describe('receiver: the counterpart taxpayer sends us an e-CF', () => {
  let sandbox: RunningSandbox;
  let app: TestApp;
  let company: Receiving;
  let appUrl: string;

  before(async () => {
    sandbox = await startSandbox();
    app = await startTestApp({
      env: {
        ECF_XSD_DIR: officialXsdDir,
        DGII_BASE_URL: sandbox.url,
        DGII_FC_BASE_URL: sandbox.url,
        DGII_STATUS_BASE_URL: sandbox.url,
      },
    });
    company = await receivingCompany(app);
    appUrl = await app.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await sandbox.close();
  });

  for (const [type, casing] of [
    ['31', 'testecf'],
    ['44', 'TestECF'],
  ] as const) {
    it(`authenticates, sends an e-CF ${type} and gets an ARECF Estado 0 signed by us (${casing} path); our inbox lists it with the exact bytes`, async () => {
      const receiverBase = `${appUrl}/${casing}/${company.rnc}`;
      const response = await fetch(`${sandbox.url}/testecf/emisorreceptor/api/emision/emisioncomprobantes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          rnc: company.rnc,
          tipoEncf: `E${type}`,
          urlRecepcion: receiverBase,
          urlAutenticacion: receiverBase,
        }),
      });
      assert.equal(response.status, 200);
      const sent = (await response.json()) as { encf: string; estado: string; mensajes: string[]; xml: string };
      assert.equal(sent.estado, 'arecf_valid', sent.mensajes.join(' | '));
      assert.deepEqual(sent.mensajes, ['Estado 0: e-CF Recibido.']);

      // What the counterpart got is what we kept.
      const exchange = await sandbox.sandbox.context.db
        .selectFrom('sandbox_exchanges')
        .select(['response_xml', 'http_status'])
        .where('encf', '=', sent.encf)
        .executeTakeFirstOrThrow();
      assert.equal(exchange.http_status, 200);
      const arecf = exchange.response_xml ?? '';
      assert.deepEqual(arecfFields(arecf), {
        RNCEmisor: '999999907',
        RNCComprador: company.rnc,
        eNCF: sent.encf,
        Estado: '0',
        CodigoMotivoNoRecibido: undefined,
        FechaHoraAcuseRecibo: arecfFields(arecf)['FechaHoraAcuseRecibo'],
      });
      assertSignedArecf(arecf, company);

      const list = await app.app.inject({
        url: `/api/v1/recibidos?issuerRnc=999999907&ecfType=${type}`,
        headers: { 'x-api-key': company.apiKey },
      });
      assert.equal(list.statusCode, 200, list.body);
      const items = list.json<{
        data: {
          id: string;
          eNCF: string;
          status: string;
          ecfType: string;
          issuer: { rnc: string; name: string };
          montoTotal: string;
          arecf: { estado: string };
        }[];
      }>().data;
      const item = items.find((entry) => entry.eNCF === sent.encf);
      assert.ok(item !== undefined, list.body);
      assert.deepEqual(
        [item.status, item.ecfType, item.issuer.rnc, item.issuer.name, item.arecf.estado],
        ['received', type, '999999907', 'CONTRAPARTE DE PRUEBA DEL SANDBOX SRL', '0'],
      );
      assert.equal(item.montoTotal, type === '44' ? '1000.00' : '1430.00');

      const receivedXml = await app.app.inject({
        url: `/api/v1/recibidos/${item.id}/artefactos/received-xml`,
        headers: { 'x-api-key': company.apiKey },
      });
      assert.equal(receivedXml.statusCode, 200);
      assert.equal(receivedXml.body, sent.xml);
      const arecfXml = await app.app.inject({
        url: `/api/v1/recibidos/${item.id}/artefactos/arecf-xml`,
        headers: { 'x-api-key': company.apiKey },
      });
      assert.equal(arecfXml.body, arecf);
      assert.match(String(arecfXml.headers['x-content-sha256']), /^[0-9a-f]{64}$/);
    });
  }

  it('a counterpart that does not authenticate is refused while tokens are required (the default), and nothing is stored', async () => {
    const before = await receivedRows(app.application);
    const response = await fetch(`${sandbox.url}/testecf/emisorreceptor/api/emision/emisioncomprobantes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ rnc: company.rnc, tipoEncf: 'E31', urlRecepcion: `${appUrl}/testecf/${company.rnc}` }),
    });
    const sent = (await response.json()) as { estado: string; mensajes: string[] };
    assert.equal(sent.estado, 'arecf_invalid');
    assert.match(sent.mensajes.join(' '), /HTTP 401/);
    assert.equal(await receivedRows(app.application), before);
  });
});

describe('receiver: the ARECF verdict, in the order of the standard', () => {
  let app: TestApp;
  let company: Receiving;
  let path: string;
  let token: string;
  const other = nextRnc();

  before(async () => {
    app = await startTestApp({ env: { ECF_XSD_DIR: officialXsdDir } });
    company = await receivingCompany(app);
    path = base(company);
    token = await tokenAt(app.app, path);
  });
  after(async () => {
    await app.close();
  });

  async function verdict(xml: string, filename?: string): Promise<Record<string, string | undefined>> {
    const response = await postEcf(app.app, path, xml, token, filename === undefined ? {} : { filename });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^application\/xml/);
    assertSignedArecf(response.body, company);
    return arecfFields(response.body);
  }

  const broken = (xml: string) => xml.replace('Martillo', 'Martilla');

  it('Estado 0 for a valid e-CF addressed to us, repeating its issuer and e-NCF', async () => {
    const { xml, encf } = ecfTo(company.rnc);
    const fields = await verdict(xml);
    assert.deepEqual(
      [fields['Estado'], fields['CodigoMotivoNoRecibido'], fields['RNCEmisor'], fields['RNCComprador'], fields['eNCF']],
      ['0', undefined, issuerRnc, company.rnc, encf],
    );
    assert.match(fields['FechaHoraAcuseRecibo'] ?? '', /^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
  });

  it('reason 1 for a specification error, before a bad signature and a wrong buyer', async () => {
    // Against the XSD (a date in the wrong format), its signature broken too, and addressed to someone else.
    const { xml, encf } = ecfTo(other);
    const fields = await verdict(
      broken(xml).replace(/<FechaEmision>15-11-2026<\/FechaEmision>/, '<FechaEmision>2026-11-15</FechaEmision>'),
    );
    assert.deepEqual([fields['Estado'], fields['CodigoMotivoNoRecibido'], fields['eNCF']], ['1', '1', encf]);
  });

  it('reason 1 for a type never sent between taxpayers (32, 41, 43, 45, 46, 47)', async () => {
    for (const type of ['41', '43'] as const) {
      const fields = await verdict(ecfTo(company.rnc, { type }).xml);
      assert.deepEqual([fields['Estado'], fields['CodigoMotivoNoRecibido']], ['1', '1'], type);
    }
  });

  it('reason 1 for well-formed XML that is an ECF but not a readable one', async () => {
    const fields = await verdict(
      '<ECF><Encabezado><Version>1.0</Version></Encabezado></ECF>',
      `${issuerRnc}E310000000555.xml`,
    );
    assert.deepEqual(
      [fields['Estado'], fields['CodigoMotivoNoRecibido'], fields['RNCEmisor'], fields['eNCF']],
      ['1', '1', issuerRnc, 'E310000000555'],
    );
  });

  it('reason 2 for a signature that does not verify, before a wrong buyer', async () => {
    const fields = await verdict(broken(ecfTo(other).xml));
    assert.deepEqual([fields['Estado'], fields['CodigoMotivoNoRecibido']], ['1', '2']);
  });

  it('reason 3 for an e-NCF of this issuer already received, before a wrong buyer; a not-received one does not block a valid resend', async () => {
    const { xml, encf } = ecfTo(company.rnc);
    // First sent broken (reason 2): recorded, but not a reception.
    assert.equal((await verdict(broken(xml)))['CodigoMotivoNoRecibido'], '2');
    assert.equal((await verdict(xml))['Estado'], '0');
    const again = await verdict(xml);
    assert.deepEqual([again['Estado'], again['CodigoMotivoNoRecibido'], again['eNCF']], ['1', '3', encf]);
    // The same issuer and e-NCF, validly signed but addressed to someone else: still a duplicate first.
    const misaddressed = await verdict(ecfTo(other, { encf }).xml);
    assert.deepEqual([misaddressed['Estado'], misaddressed['CodigoMotivoNoRecibido']], ['1', '3']);
  });

  it('reason 1, recorded, never a 500, for an e-CF with a reference to a character XML does not allow (&#0;, past U+10FFFF)', async () => {
    for (const reference of ['&#0;', '&#x110000;']) {
      const { xml, encf } = ecfTo(company.rnc);
      const fields = await verdict(xml.replace(/<RazonSocialEmisor>/, `<RazonSocialEmisor>${reference}`));
      assert.deepEqual(
        [fields['Estado'], fields['CodigoMotivoNoRecibido'], fields['eNCF']],
        ['1', '1', encf],
        reference,
      );
      const rows = await app.application.database.db
        .selectFrom('received_documents')
        .select(['status', 'reason_code', 'issuer_name'])
        .where('encf', '=', encf)
        .where('company_id', '=', company.companyId)
        .execute();
      assert.deepEqual(rows, [{ status: 'not_received', reason_code: '1', issuer_name: null }], reference);
    }
  });

  it('reason 4 for a valid e-CF whose buyer is another taxpayer', async () => {
    const fields = await verdict(ecfTo(other).xml);
    assert.deepEqual(
      [fields['Estado'], fields['CodigoMotivoNoRecibido'], fields['RNCComprador']],
      ['1', '4', company.rnc],
    );
  });

  it('two identical e-CF at once: exactly one Estado 0, the other reason 3', async () => {
    const { xml, encf } = ecfTo(company.rnc);
    const answers = await Promise.all([
      postEcf(app.app, path, xml, token),
      postEcf(app.app, path, xml, token),
      postEcf(app.app, path, xml, token),
    ]);
    const verdicts = answers.map((answer) => {
      const fields = arecfFields(answer.body);
      return `${fields['Estado'] ?? ''}/${fields['CodigoMotivoNoRecibido'] ?? ''}`;
    });
    assert.deepEqual(verdicts.sort(), ['0/', '1/3', '1/3']);
    const rows = await app.application.database.db
      .selectFrom('received_documents')
      .select(['status', 'reason_code'])
      .where('encf', '=', encf)
      .where('company_id', '=', company.companyId)
      .execute();
    assert.deepEqual(rows.map((row) => `${row.status}/${row.reason_code ?? ''}`).sort(), [
      'not_received/3',
      'not_received/3',
      'received/',
    ]);
  });

  it("keeps answering past the fifth e-CF on one connection (the prepared insert's generic plan), and still finds the duplicate", async () => {
    // Sequential requests reuse one pooled connection: PostgreSQL plans a prepared statement afresh five times, then
    // generically, and the generic plan must still pick the partial unique index as the ON CONFLICT arbiter.
    const sent = Array.from({ length: 8 }, () => ecfTo(company.rnc));
    for (const { xml } of sent) assert.equal((await verdict(xml))['Estado'], '0');
    const again = await verdict(sent[0]?.xml ?? '');
    assert.deepEqual([again['Estado'], again['CodigoMotivoNoRecibido']], ['1', '3']);
  });

  it('records each answer with its bytes, timeline and domain event', async () => {
    const { xml, encf } = ecfTo(other);
    const answer = await postEcf(app.app, path, xml, token);
    const list = await app.app.inject({
      url: '/api/v1/recibidos?status=not_received&limit=100',
      headers: { 'x-api-key': company.apiKey },
    });
    const item = list.json<{ data: { id: string; eNCF: string }[] }>().data.find((entry) => entry.eNCF === encf);
    assert.ok(item !== undefined);
    const one = await app.app.inject({ url: `/api/v1/recibidos/${item.id}`, headers: { 'x-api-key': company.apiKey } });
    const view = one.json<{
      data: {
        status: string;
        arecf: { estado: string; codigoMotivoNoRecibido: string; motivo: string };
        timeline: { type: string; cause: string }[];
        artefacts: { type: string }[];
      };
    }>().data;
    assert.deepEqual(
      [view.status, view.arecf.estado, view.arecf.codigoMotivoNoRecibido, view.arecf.motivo],
      ['not_received', '1', '4', 'RNC Comprador no corresponde'],
    );
    assert.deepEqual(
      view.timeline.map((event) => event.type),
      ['not_received'],
    );
    assert.match(view.timeline[0]?.cause ?? '', /CodigoMotivoNoRecibido 4/);
    assert.deepEqual(view.artefacts.map((artefact) => artefact.type).sort(), ['arecf-xml', 'received-xml']);
    const arecf = await app.app.inject({
      url: `/api/v1/recibidos/${item.id}/artefactos/arecf-xml`,
      headers: { 'x-api-key': company.apiKey },
    });
    assert.equal(arecf.body, answer.body);
    const events = await app.application.database.db
      .selectFrom('domain_events')
      .select(['type', 'payload'])
      .where('company_id', '=', company.companyId)
      .execute();
    const mine = events.filter(
      (event) => (event.payload as { receivedDocumentId?: string }).receivedDocumentId === item.id,
    );
    assert.deepEqual(
      mine.map((event) => event.type),
      ['received_document.not_received'],
    );
  });
});

describe('receiver: routes, limits and hostile input', () => {
  let app: TestApp;
  let company: Receiving;
  let path: string;
  let token: string;

  before(async () => {
    app = await startTestApp({ env: { ECF_XSD_DIR: officialXsdDir } });
    company = await receivingCompany(app);
    path = base(company);
    token = await tokenAt(app.app, path);
  });
  after(async () => {
    await app.close();
  });

  it("answers only for this instance's environment and a known company (404 otherwise), in any casing", async () => {
    for (const url of [
      `/certecf/${company.rnc}/fe/autenticacion/api/semilla`,
      `/ecf/${company.rnc}/fe/autenticacion/api/semilla`,
      '/testecf/999999999/fe/autenticacion/api/semilla',
      '/testecf/emisorreceptor/fe/autenticacion/api/semilla',
    ]) {
      const response = await app.app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(typeof response.json<{ mensaje: string }>().mensaje, 'string');
    }
    const seed = await app.app.inject({ url: `/TESTECF/${company.rnc}/FE/Autenticacion/API/Semilla` });
    assert.equal(seed.statusCode, 200);
    assert.ok(parseSemilla(seed.body).ok);
    const fields = arecfFields(
      (await postEcf(app.app, `/TestEcf/${company.rnc}/Fe`, ecfTo(company.rnc).xml, token)).body,
    );
    assert.equal(fields['Estado'], '0');
  });

  it('takes the e-CF as application/xml too', async () => {
    const { xml } = ecfTo(company.rnc);
    const response = await app.app.inject({
      method: 'POST',
      url: `${path}/recepcion/api/ecf`,
      payload: xml,
      headers: { 'content-type': 'application/xml', authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(arecfFields(response.body)['Estado'], '0');
  });

  const huge = (size: number) => {
    const { xml } = ecfTo(company.rnc);
    const padding = size - Buffer.byteLength(xml) - '<!---->'.length;
    return Buffer.from(`${xml}<!--${'x'.repeat(padding)}-->`);
  };

  it('5 MB is taken, 5 MB + 1 byte is a 413 (multipart and application/xml), and nothing is stored', async () => {
    const limit = 5 * 1024 * 1024;
    const exactly = await postEcf(app.app, path, huge(limit), token);
    assert.equal(exactly.statusCode, 200, exactly.body.slice(0, 300));
    const before = await receivedRows(app.application);
    const over = await postEcf(app.app, path, huge(limit + 1), token);
    assert.equal(over.statusCode, 413, over.body.slice(0, 300));
    assert.match(over.json<{ mensaje: string }>().mensaje, /tamaño máximo/);
    const overXml = await app.app.inject({
      method: 'POST',
      url: `${path}/recepcion/api/ecf`,
      payload: huge(limit + 1),
      headers: { 'content-type': 'application/xml', authorization: `Bearer ${token}` },
    });
    assert.equal(overXml.statusCode, 413, overXml.body.slice(0, 300));
    assert.equal(typeof overXml.json<{ mensaje: string }>().mensaje, 'string');
    assert.equal(await receivedRows(app.application), before);
  });

  const { xml: valid } = ecfTo(nextRnc());
  const refused: [string, () => { payload: Buffer | string; headers: Record<string, string> }, number][] = [
    [
      'an XXE entity',
      () =>
        multipart(
          `<?xml version="1.0"?><!DOCTYPE ECF [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ECF><Encabezado>&xxe;</Encabezado></ECF>`,
        ),
      400,
    ],
    ['a DOCTYPE before a valid e-CF', () => multipart(valid.replace('<ECF', '<!DOCTYPE ECF><ECF')), 400],
    [
      'entity expansion (billion laughs)',
      () =>
        multipart(
          `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><ECF>&lol2;</ECF>`,
        ),
      400,
    ],
    ['a truncated multipart body', () => multipart(valid, { truncate: true }), 400],
    ['the file in a field other than xml', () => multipart(valid, { field: 'archivo' }), 400],
    ['text that is not XML', () => multipart('esto no es un XML'), 400],
    ['XML whose root is not ECF', () => multipart('<Factura><Numero>1</Numero></Factura>'), 400],
    [
      'a NUL character in the XML',
      () => multipart(valid.replace('<RazonSocialEmisor>', '<RazonSocialEmisor>\u0000')),
      400,
    ],
    [
      'an element named constructor (fast-xml-parser throws on it)',
      () => multipart('<ECF><!-- c --><Encabezado><constructor>1</constructor></Encabezado></ECF>'),
      400,
    ],
    [
      'a JSON body',
      () => ({ payload: JSON.stringify({ xml: valid }), headers: { 'content-type': 'application/json' } }),
      415,
    ],
    ['a text/plain body', () => ({ payload: valid, headers: { 'content-type': 'text/plain' } }), 415],
    ['an empty application/xml body', () => ({ payload: '', headers: { 'content-type': 'application/xml' } }), 400],
  ];
  for (const [what, make, status] of refused) {
    it(`refuses ${what} with DGII's plain error (${String(status)}), never a 500, and stores nothing`, async () => {
      const before = await receivedRows(app.application);
      const blobsBefore = await app.application.database.db
        .selectFrom('received_artefacts')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .executeTakeFirstOrThrow();
      const { payload, headers } = make();
      const response = await app.app.inject({
        method: 'POST',
        url: `${path}/recepcion/api/ecf`,
        payload,
        headers: { ...headers, authorization: `Bearer ${token}` },
      });
      assert.equal(response.statusCode, status, response.body);
      assert.doesNotMatch(String(response.headers['content-type']), /problem/);
      const body = response.json<{ mensaje: string; error: string }>();
      assert.equal(typeof body.mensaje, 'string');
      assert.ok(body.mensaje.length > 0);
      assert.equal(await receivedRows(app.application), before);
      const blobsAfter = await app.application.database.db
        .selectFrom('received_artefacts')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .executeTakeFirstOrThrow();
      assert.equal(blobsAfter.count, blobsBefore.count);
    });
  }

  it('the same hostile input is refused by the seed validation and the commercial approval route', async () => {
    for (const [route, xml] of [
      [
        'autenticacion/api/validacioncertificado',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
      ],
      [
        'aprobacioncomercial/api/ecf',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
      ],
      ['autenticacion/api/validacioncertificado', '<SemillaModel><!-- c --><prototype>1</prototype></SemillaModel>'],
      ['aprobacioncomercial/api/ecf', '<ACECF><!-- c --><__proto__>1</__proto__></ACECF>'],
    ] as const) {
      const form = multipart(xml);
      const response = await app.app.inject({
        method: 'POST',
        url: `${path}/${route}`,
        payload: form.payload,
        headers: { ...form.headers, authorization: `Bearer ${token}` },
      });
      assert.equal(response.statusCode, 400, `${route}: ${response.body}`);
      assert.equal(typeof response.json<{ mensaje: string }>().mensaje, 'string');
    }
  });

  it('the commercial approval route hands the ACECF to the documents module: one that matches none of our e-CF is a 400', async () => {
    const form = multipart(
      '<ACECF><DetalleAprobacionComercial><Version>1.0</Version></DetalleAprobacionComercial></ACECF>',
    );
    const response = await app.app.inject({
      method: 'POST',
      url: `${path}/aprobacioncomercial/api/ecf`,
      payload: form.payload,
      headers: { ...form.headers, authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(typeof response.json<{ mensaje: string }>().mensaje, 'string');
    const missing = await app.app.inject({
      method: 'POST',
      url: `${path}/aprobacioncomercial/api/ecf`,
      payload: form.payload,
      headers: form.headers,
    });
    assert.equal(missing.statusCode, 401);
  });

  it("never takes the integrator's API key in place of a receiver token", async () => {
    const response = await postEcf(app.app, path, ecfTo(company.rnc).xml, undefined);
    assert.equal(response.statusCode, 401);
    const form = multipart(ecfTo(company.rnc).xml);
    const withKey = await app.app.inject({
      method: 'POST',
      url: `${path}/recepcion/api/ecf`,
      payload: form.payload,
      headers: { ...form.headers, 'x-api-key': company.apiKey },
    });
    assert.equal(withKey.statusCode, 401);
  });
});

describe('receiver: tokens and seeds (RECEIVER_AUTH_MODE)', () => {
  const clock = fixedClock(new Date());
  let required: TestApp;
  let company: Receiving;
  let path: string;

  before(async () => {
    required = await startTestApp({ clock, env: { ECF_XSD_DIR: officialXsdDir, RECEIVER_AUTH_MODE: 'required' } });
    company = await receivingCompany(required);
    path = base(company);
  });
  after(async () => {
    await required.close();
  });

  it('required: a missing, forged or malformed token is a 401; a valid one is served', async () => {
    const { xml } = ecfTo(company.rnc);
    assert.equal((await postEcf(required.app, path, xml, undefined)).statusCode, 401);
    assert.equal((await postEcf(required.app, path, xml, 'forged-token-0123456789')).statusCode, 401);
    const form = multipart(xml);
    const malformed = await required.app.inject({
      method: 'POST',
      url: `${path}/recepcion/api/ecf`,
      payload: form.payload,
      headers: { ...form.headers, authorization: 'Basic dXNlcjpwYXNz' },
    });
    assert.equal(malformed.statusCode, 401);
    assert.equal(malformed.headers['www-authenticate'], 'Bearer');
    const token = await tokenAt(required.app, path);
    assert.equal(arecfFields((await postEcf(required.app, path, xml, token)).body)['Estado'], '0');
  });

  it('the token answers as JSON or XML by Accept, valid one hour; an expired token is a 401', async () => {
    const seed = await required.app.inject({ url: `${path}/autenticacion/api/semilla` });
    const form = multipart(signXml(seed.body, issuerKey));
    const answer = await required.app.inject({
      method: 'POST',
      url: `${path}/autenticacion/api/validacioncertificado`,
      payload: form.payload,
      headers: { ...form.headers, accept: 'application/xml' },
    });
    assert.equal(answer.statusCode, 200, answer.body);
    assert.match(String(answer.headers['content-type']), /^application\/xml/);
    const token = /<token>([^<]+)<\/token>/.exec(answer.body)?.[1];
    const expira = /<expira>([^<]+)<\/expira>/.exec(answer.body)?.[1];
    const expedido = /<expedido>([^<]+)<\/expedido>/.exec(answer.body)?.[1];
    assert.ok(token !== undefined && expira !== undefined && expedido !== undefined, answer.body);
    assert.match(expira, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.equal(Date.parse(expira) - Date.parse(expedido), 3_600_000);
    clock.advance(59 * 60_000);
    assert.equal(arecfFields((await postEcf(required.app, path, ecfTo(company.rnc).xml, token)).body)['Estado'], '0');
    clock.advance(2 * 60_000);
    assert.equal((await postEcf(required.app, path, ecfTo(company.rnc).xml, token)).statusCode, 401);
  });

  it('a seed serves once, only fresh, only signed, and only at the company that issued it', async () => {
    const validate = (xml: string, at = path) => {
      const form = multipart(xml);
      return required.app.inject({
        method: 'POST',
        url: `${at}/autenticacion/api/validacioncertificado`,
        payload: form.payload,
        headers: form.headers,
      });
    };
    const signed = signXml((await required.app.inject({ url: `${path}/autenticacion/api/semilla` })).body, issuerKey);
    assert.equal((await validate(signed)).statusCode, 200);
    const reused = await validate(signed);
    assert.equal(reused.statusCode, 400);
    assert.match(reused.json<{ mensaje: string }>().mensaje, /ya fue utilizada/);

    const stale = signXml((await required.app.inject({ url: `${path}/autenticacion/api/semilla` })).body, issuerKey);
    clock.advance(3 * 60_000);
    assert.equal((await validate(stale)).statusCode, 400);

    const seed = (await required.app.inject({ url: `${path}/autenticacion/api/semilla` })).body;
    assert.equal((await validate(seed)).statusCode, 400, 'unsigned');
    const forged = signXml(seed, issuerKey).replace(/<valor>(.)/, '<valor>A$1');
    assert.equal((await validate(forged)).statusCode, 400, 'signature broken');
    const invented = signXml(seed.replace(/<valor>[^<]+<\/valor>/, '<valor>inventado</valor>'), issuerKey);
    assert.equal((await validate(invented)).statusCode, 400, 'a seed we never issued');

    const elsewhere = await receivingCompany(required);
    const theirs = signXml(
      (await required.app.inject({ url: `${base(elsewhere)}/autenticacion/api/semilla` })).body,
      issuerKey,
    );
    assert.equal((await validate(theirs)).statusCode, 400, "another company's seed");
    // And a token opens only the receiver of the company that issued it.
    const token = await tokenAt(required.app, base(elsewhere));
    assert.equal((await postEcf(required.app, path, ecfTo(company.rnc).xml, token)).statusCode, 401);
  });

  it('reads what a token opens from the shared cache once for a burst of e-CF, and checks its company and expiry on each', async () => {
    const at = fixedClock(new Date());
    const shared = createMemoryCache(at);
    let tokenReads = 0;
    const counted: Cache = {
      ...shared,
      get: (key) => (key.startsWith('receiver:token:') && tokenReads++, shared.get(key)),
    };
    const auth = createReceiverAuth({ cache: counted, clock: at, mode: 'required' });
    const checked = await auth.validateSeed('cmp_a', Buffer.from(signXml(await auth.issueSeed('cmp_a'), issuerKey)));
    assert.ok(checked.ok);
    const bearer = `Bearer ${checked.token.token}`;
    for (let i = 0; i < 5; i++) assert.equal(await auth.admits('cmp_a', bearer), true);
    assert.equal(await auth.admits('cmp_b', bearer), false);
    assert.equal(tokenReads, 1);
    assert.equal(await auth.admits('cmp_a', 'Bearer forged-token-0123456789'), false);
    assert.equal(await auth.admits('cmp_a', 'Bearer forged-token-0123456789'), false);
    assert.equal(tokenReads, 3, 'a token the cache does not hold is asked for every time');
    at.advance(60 * 60_000);
    assert.equal(await auth.admits('cmp_a', bearer), false);
  });

  it('two requests racing with one signed seed: one token', async () => {
    const signed = signXml((await required.app.inject({ url: `${path}/autenticacion/api/semilla` })).body, issuerKey);
    const form = multipart(signed);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        required.app.inject({
          method: 'POST',
          url: `${path}/autenticacion/api/validacioncertificado`,
          payload: form.payload,
          headers: form.headers,
        }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [200, 400, 400, 400]);
  });

  for (const mode of ['optional', 'disabled'] as const) {
    it(`${mode}: no token is served; a forged token is ${mode === 'optional' ? 'refused' : 'ignored'}`, async () => {
      const other = await startTestApp({ env: { ECF_XSD_DIR: officialXsdDir, RECEIVER_AUTH_MODE: mode } });
      try {
        const receiving = await receivingCompany(other);
        const at = base(receiving);
        assert.equal(
          arecfFields((await postEcf(other.app, at, ecfTo(receiving.rnc).xml, undefined)).body)['Estado'],
          '0',
        );
        const forged = await postEcf(other.app, at, ecfTo(receiving.rnc).xml, 'forged-token-0123456789');
        if (mode === 'optional') assert.equal(forged.statusCode, 401);
        else assert.equal(arecfFields(forged.body)['Estado'], '0');
        const token = await tokenAt(other.app, at);
        assert.equal(arecfFields((await postEcf(other.app, at, ecfTo(receiving.rnc).xml, token)).body)['Estado'], '0');
      } finally {
        await other.close();
      }
    });
  }
});

describe('receiver: duplicate detection survives a restart', () => {
  let app: TestApp;
  let restarted: Application | undefined;

  before(async () => {
    app = await startTestApp({ env: { ECF_XSD_DIR: officialXsdDir } });
  });
  after(async () => {
    await restarted?.close();
    await app.close();
  });

  it('an e-CF received before the restart is a duplicate (reason 3) after it', async (context) => {
    if (app.application.database.kind !== 'postgres') {
      context.skip('needs PostgreSQL: an in-memory database does not outlive its process');
      return;
    }
    const company = await receivingCompany(app);
    const path = base(company);
    const { xml } = ecfTo(company.rnc);
    assert.equal(arecfFields((await postEcf(app.app, path, xml, await tokenAt(app.app, path))).body)['Estado'], '0');

    const url = await databaseUrlOf(app.application);
    await app.application.close();
    restarted = await buildApplication({
      config: app.config,
      roles: { http: true, work: false, schedule: false },
      database: { kind: 'postgres', url, poolSize: 2 },
    });
    const http = restarted.http?.app;
    assert.ok(http !== undefined);
    const again = arecfFields((await postEcf(http, path, xml, await tokenAt(http, path))).body);
    assert.deepEqual([again['Estado'], again['CodigoMotivoNoRecibido']], ['1', '3']);
  });
});

describe('receiver: the local test path emisorreceptor', () => {
  it('serves the demo company in the embedded default, and demo-credentials.json names it as receiverBaseUrl', async () => {
    const app = await startTestApp({ env: { ECF_XSD_DIR: officialXsdDir } });
    try {
      assert.equal(app.config.dgii.sandbox, 'embedded');
      const { credentials } = await ensureDemo(app.application, 'http://127.0.0.1:3000');
      assert.equal(credentials.receiverBaseUrl, 'http://127.0.0.1:3000/testecf/emisorreceptor');
      const path = `${new URL(credentials.receiverBaseUrl).pathname}/fe`;
      const token = await tokenAt(app.app, path);
      const { xml, encf } = ecfTo(demoRnc);
      const response = await postEcf(app.app, path, xml, token);
      const fields = arecfFields(response.body);
      assert.deepEqual([fields['Estado'], fields['RNCComprador'], fields['eNCF']], ['0', demoRnc, encf]);
      const identity = await app.application.services.companies.signingIdentity(credentials.companyId);
      assert.ok(identity !== undefined);
      assert.ok(verifyWithXmlsec1(response.body, identity.certificatePem).ok);
    } finally {
      await app.close();
    }
  });

  it('serves the company RECEIVER_LOCAL_COMPANY names (RNC or id), and nothing when none is named outside the embedded default', async (context) => {
    const named = await startTestApp({
      env: {
        ECF_XSD_DIR: officialXsdDir,
        RECEIVER_AUTH_MODE: 'disabled',
        DGII_SANDBOX: 'off',
        DGII_BASE_URL: 'http://127.0.0.1:9',
      },
    });
    try {
      if (named.application.database.kind !== 'postgres') {
        context.skip('needs PostgreSQL: a second application shares the database');
        return;
      }
      const company = await receivingCompany(named);
      // Not configured, not embedded: no company behind emisorreceptor.
      assert.equal(
        (await named.app.inject({ url: '/testecf/emisorreceptor/fe/autenticacion/api/semilla' })).statusCode,
        404,
      );
      for (const value of [company.rnc, company.companyId]) {
        const other = await buildApplication({
          config: { ...named.config, receiverLocalCompany: value },
          roles: { http: true, work: false, schedule: false },
          database: { kind: 'postgres', url: await databaseUrlOf(named.application), poolSize: 2 },
        });
        try {
          const http = other.http?.app;
          assert.ok(http !== undefined);
          const fields = arecfFields(
            (await postEcf(http, '/testecf/emisorreceptor/fe', ecfTo(company.rnc).xml, undefined)).body,
          );
          assert.deepEqual([fields['Estado'], fields['RNCComprador']], ['0', company.rnc], value);
        } finally {
          await other.close();
        }
      }
    } finally {
      await named.close();
    }
  });
});

describe("receiver: a company's own service segment", () => {
  it('is set through the control plane (provisioning or update), lower-case and unique; without one the RNC serves', async () => {
    const app = await startTestApp({ env: { ECF_XSD_DIR: officialXsdDir, RECEIVER_AUTH_MODE: 'disabled' } });
    try {
      const company = await receivingCompany(app);
      const seedAt = async (segment: string) =>
        (await app.app.inject({ url: `/testecf/${segment}/fe/autenticacion/api/semilla` })).statusCode;
      assert.equal(await seedAt(company.rnc), 200);

      const updated = await app.sendEvent('company.updated', {
        companyId: company.companyId,
        receiverSegment: 'Ferreteria-Central',
      });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(await seedAt('ferreteria-central'), 200);
      assert.equal(await seedAt(company.rnc), 404);
      const fields = arecfFields(
        (await postEcf(app.app, '/testecf/FERRETERIA-central/fe', ecfTo(company.rnc).xml, undefined)).body,
      );
      assert.deepEqual([fields['Estado'], fields['RNCComprador']], ['0', company.rnc]);

      // Taken, the local test path, or another taxpayer's RNC: refused, naming the field.
      const rnc = nextRnc();
      for (const receiverSegment of ['ferreteria-CENTRAL', 'emisorreceptor', company.rnc]) {
        const refused = await app.sendEvent('company.provisioned', {
          rnc,
          legalName: 'Otra SRL',
          plan: 'pro',
          capabilities: ['receiving'],
          receiverSegment,
        });
        assert.ok(refused.statusCode >= 400 && refused.statusCode < 500, `${receiverSegment}: ${refused.body}`);
        assert.match(refused.body, /receiverSegment/);
      }
      const other = await app.sendEvent('company.provisioned', {
        rnc,
        legalName: 'Otra SRL',
        plan: 'pro',
        capabilities: ['receiving'],
        receiverSegment: 'otra',
      });
      assert.equal(other.statusCode, 200, other.body);
      assert.equal(await seedAt('otra'), 200);

      assert.equal(
        (await app.sendEvent('company.updated', { companyId: company.companyId, receiverSegment: null })).statusCode,
        200,
      );
      assert.equal(await seedAt(company.rnc), 200);
      assert.equal(await seedAt('ferreteria-central'), 404);
    } finally {
      await app.close();
    }
  });

  it('a company without the receiving capability has no receiver (404)', async () => {
    const app = await startTestApp({ env: { RECEIVER_AUTH_MODE: 'disabled' } });
    try {
      const rnc = nextRnc();
      await app.provisionCompany({ rnc, capabilities: ['issuing'] });
      assert.equal((await app.app.inject({ url: `/testecf/${rnc}/fe/autenticacion/api/semilla` })).statusCode, 404);
    } finally {
      await app.close();
    }
  });
});

describe('receiver: refused input leaves a log line', () => {
  it('logs why an upload or a document was refused, with the correlation id, and stores nothing', async () => {
    const app = await startLoggedTestApp({ logLevel: 'info', env: { RECEIVER_AUTH_MODE: 'disabled' } });
    try {
      const company = await receivingCompany(app);
      for (const [form, expected] of [
        [multipart(ecfTo(company.rnc).xml, { field: 'archivo' }), 'receiver upload refused'],
        [multipart('<!DOCTYPE x [<!ENTITY e "e">]><ECF>&e;</ECF>'), 'receiver e-CF refused: unreadable'],
      ] as const) {
        const response = await app.app.inject({
          method: 'POST',
          url: `${base(company)}/recepcion/api/ecf`,
          payload: form.payload,
          headers: { ...form.headers, 'x-correlation-id': `refused-${expected.length}` },
        });
        assert.equal(response.statusCode, 400);
        const lines = app.logs.entries().filter((entry) => entry['msg'] === expected);
        assert.equal(lines.length, 1, expected);
        assert.equal(lines[0]?.['correlationId'], `refused-${expected.length}`);
      }
      assert.equal(await receivedRows(app.application), 0);
    } finally {
      await app.close();
    }
  });
});
