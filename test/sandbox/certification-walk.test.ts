// DGII's certification portal as the sandbox plays it, walked from step 1 to 15 only through CerteCF's services and
// the portal's admin routes: the set downloaded and sent verbatim (step 2), its approvals (3), a simulation with the
// taxpayer's own data (4), the printed representations (5, 6), the URLs (7), DGII testing the taxpayer's receiver
// (8 to 11), the production URLs (12), the sworn declaration (13), the status check (14).
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { isRfceRouted } from '../../src/fiscal/certification/index.js';
import { formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import { parseEcf, parseXmlTree, groupsOf, textOf } from '../../src/fiscal/parse/index.js';
import { signXml } from '../../src/fiscal/xmldsig/index.js';
import {
  allSlots,
  certecf,
  encfOfRow,
  ecfRows,
  paths,
  portalOf,
  postTo,
  printedFiles,
  receive,
  receptionRows,
  rfceRows,
  signedRfceOf,
  signedRowEcf,
  signedSetApprovals,
  xlsxType,
  type Portal,
} from '../support/cert-portal-kit.js';
import { startTestReceiver, type TestReceiver } from '../support/sandbox-receiver.js';
import { fictitiousRnc } from '../support/ecf-documents.js';
import { authenticate, fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import { encfOf, largeConsumerInvoice, signedEcf, type SignedDocument } from '../support/sandbox-documents.js';
import { testSigningKey } from '../support/xmldsig-kit.js';
import type { SetCase } from '../../src/fiscal/certification/index.js';
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';

const rnc = fictitiousRnc('13077701');
const realName = 'SOLUCIONES EN CERTIFICACION SRL';
const key = testSigningKey();
const now = new Date('2026-11-21T14:00:00Z');
const signedAt = formatDgiiTimestamp(new Date(now.getTime() - 60_000));

describe('sandbox: the certification portal, from Registrado to Finalizado', () => {
  let running: RunningSandbox;
  let receiver: TestReceiver;
  let portal: Portal;
  let token: string;
  let cases: SetCase[];

  before(async () => {
    running = await startSandbox({ clock: fixedClock(now) });
    receiver = await startTestReceiver({ rnc, key });
    receiver.requireToken = true;
    portal = portalOf(running, rnc);
    assert.equal((await running.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);
    assert.equal(
      (await running.admin('POST', '/taxpayers', { rnc, name: realName, certificates: [key.certificatePem] })).status,
      201,
    );
    token = await authenticate(running.url, key, certecf);
  });
  after(async () => {
    await receiver.close();
    await running.close();
  });

  const urls = () => ({ receptionUrl: receiver.url, approvalUrl: receiver.url, authenticationUrl: receiver.url });

  it('step 1: the postulación form creates it at Registrado; a second one while it runs is a conflict', async () => {
    const created = await portal.apply(urls());
    assert.equal(created.status, 201);
    assert.equal(created.body.step, 1);
    assert.equal(created.body.stepName, 'Registrado');
    assert.deepEqual(created.body.urls, { test: urls(), production: null });
    const again = await portal.apply(urls());
    assert.equal(again.status, 409);
    assert.match(again.body.message ?? '', /already has a postulación/);
  });

  it('hands out the set workbook, the same bytes every time, named <RNC>-<ddMMyyyyHHmmss>.xlsx', async () => {
    const first = await portal.downloadSet();
    assert.equal(first.status, 200);
    assert.equal(first.contentType, xlsxType);
    assert.equal(first.filename, `${rnc}-21112026100000.xlsx`);
    assert.equal(ecfRows(first.cases).length, 25);
    assert.equal(rfceRows(first.cases).length, 4);
    const second = await portal.downloadSet();
    assert.ok(second.bytes.equals(first.bytes));
    assert.equal((await portal.state()).setName, first.filename);
    cases = first.cases;
  });

  it('answers 409 with the current step to an action of another step', async () => {
    const early = await portal.act('approve-printed-representations');
    assert.equal(early.status, 409);
    assert.equal(early.body.step, 1);
    assert.match(
      early.body.message,
      /approve-printed-representations is done at step 6 \(Validación Representación Impresa\); the postulación of \d+ is at step 1 \(Registrado\)/,
    );
    const validated = await portal.act('validate');
    assert.equal(validated.status, 200);
    assert.equal(validated.body.outcome, 'advanced');
    assert.equal(validated.body.postulacion?.step, 2);
    assert.equal((await portal.act('send-test-documents')).status, 409);
  });

  it('step 2: the 21 reception rows, the 4 RFCE and the 4 consumer-invoice uploads, each counted, then step 3 by itself', async () => {
    for (const row of receptionRows(cases)) {
      const verdict = await receive(running.url, token, signedRowEcf(row, key, signedAt));
      assert.equal(verdict.estado, 'Aceptado', `${row.caseKey}: ${JSON.stringify(verdict.mensajes)}`);
    }
    let state = await portal.state();
    assert.deepEqual(state.counters['2'].ecf['31'], { accepted: 4, expected: 4 });
    assert.deepEqual(state.counters['2'].ecf['32'], { accepted: 2, expected: 2 });
    assert.deepEqual(state.counters['2'].rfce, { accepted: 0, expected: 4 });

    const fullInvoices = new Map<string, { xml: string }>();
    for (const rfceRow of rfceRows(cases)) {
      const ecfRow = ecfRows(cases).find((row) => row.caseKey === rfceRow.caseKey);
      assert.ok(ecfRow !== undefined && isRfceRouted(ecfRow));
      const full = signedRowEcf(ecfRow, key, signedAt);
      const rfce = signedRfceOf(full, key);
      const answer = await postTo(running.url, certecf, paths.rfce, token, rfce.xml, rfce.filename);
      assert.equal(answer.body['estado'], 'Aceptado', JSON.stringify(answer.body));
      fullInvoices.set(full.encf, full);
    }
    assert.deepEqual((await portal.state()).counters['2'].rfce, { accepted: 4, expected: 4 });
    const encfs = [...fullInvoices.keys()];
    for (const [index, encf] of encfs.entries()) {
      const uploaded = await portal.act('upload-consumer-invoice', { xml: fullInvoices.get(encf)?.xml });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      assert.equal(uploaded.body.postulacion?.step, index === encfs.length - 1 ? 3 : 2);
    }
    state = await portal.state();
    assert.equal(state.stepName, 'Pruebas de Datos Aprobación Comercial');
    assert.deepEqual(state.counters['2'].consumerInvoiceUploads, { accepted: 4, expected: 4 });
    assert.equal(state.inbox.at(-1)?.text, 'Las pruebas de datos de eCF han sido completadas satisfactoriamente.');
  });

  it('step 3: an approval of each derived row, signed as buyer, codigo 01, then step 4', async () => {
    const approvals = signedSetApprovals(cases, rnc, key, signedAt);
    assert.equal(approvals.length, 11);
    assert.deepEqual((await portal.state()).counters['3'].approvals, { accepted: 0, expected: 11 });
    for (const approval of approvals) {
      const answer = await postTo(
        running.url,
        certecf,
        paths.approval,
        token,
        approval.xml,
        `${rnc}${approval.encf}.xml`,
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, { mensaje: [], estado: 'Aprobación Comercial Aprobada.', codigo: '01' });
    }
    const state = await portal.state();
    assert.equal(state.step, 4);
    assert.deepEqual(state.counters['3'].approvals, { accepted: 11, expected: 11 });
  });

  describe("step 4: the simulation, with the taxpayer's own data and new e-NCF", () => {
    let sequence = 100;
    const own = (type: EcfType, change?: (document: Record<string, unknown>) => void): SignedDocument => {
      sequence += 1;
      return signedEcf(type, sequence, {
        rnc,
        change: (document) => {
          const encabezado = document['Encabezado'] as Record<string, Record<string, unknown>>;
          encabezado['Emisor'] = { ...encabezado['Emisor'], RazonSocialEmisor: realName };
          change?.(document);
        },
      });
    };

    it("rejects an e-CF with the set's placeholder issuer, and starts the simulation over", async () => {
      const placeholder = own('31', (document) => {
        const encabezado = document['Encabezado'] as Record<string, Record<string, unknown>>;
        encabezado['Emisor'] = { ...encabezado['Emisor'], RazonSocialEmisor: 'DOCUMENTOS ELECTRONICOS DE 02' };
      });
      const verdict = await receive(running.url, token, placeholder);
      assert.equal(verdict.estado, 'Rechazado');
      assert.equal(verdict.mensajes[0]?.codigo, 1103);
      assert.match(verdict.mensajes[0].valor, /^\[sandbox\] .*RazonSocialEmisor "DOCUMENTOS ELECTRONICOS DE 02"/);
      const state = await portal.state();
      assert.equal(state.step, 4);
      assert.match(state.inbox.at(-1)?.text ?? '', /^Las pruebas de simulación de eCF han sido reiniciadas/);
    });

    it("counts each type against the set's composition, then step 5", async () => {
      const invoices = [own('31'), own('31'), own('31'), own('31')];
      const [first] = invoices;
      assert.ok(first);
      const note = (type: '33' | '34') =>
        own(type, (document) => {
          (document['InformacionReferencia'] as Record<string, unknown>)['NCFModificado'] = first.encf;
        });
      const documents = [
        ...invoices,
        own('32', largeConsumerInvoice),
        own('32', largeConsumerInvoice),
        note('33'),
        note('34'),
        note('34'),
        ...(['41', '43', '44', '45', '46', '47'] as const).flatMap((type) => [own(type), own(type)]),
      ];
      for (const document of documents) {
        const verdict = await receive(running.url, token, document);
        assert.equal(verdict.estado, 'Aceptado', `${document.encf}: ${JSON.stringify(verdict.mensajes)}`);
      }
      const simulation = (await portal.state()).counters['4'];
      assert.deepEqual(simulation.ecf['34'], { accepted: 2, expected: 2 });
      assert.deepEqual(simulation.ecf['47'], { accepted: 2, expected: 2 });
      for (let index = 0; index < 4; index += 1) {
        const full = own('32');
        const rfce = signedRfceOf(full, key);
        const answer = await postTo(running.url, certecf, paths.rfce, token, rfce.xml, rfce.filename);
        assert.equal(answer.body['estado'], 'Aceptado', JSON.stringify(answer.body));
        assert.equal((await portal.act('upload-consumer-invoice', { xml: full.xml })).status, 200);
      }
      const state = await portal.state();
      assert.equal(state.stepName, 'Pruebas Simulación Representación Impresa');
      assert.deepEqual(state.counters['4'].consumerInvoiceUploads, { accepted: 4, expected: 4 });
    });
  });

  it('steps 5 and 6: the 11 printed representations, rejected with observations (back to 5), then approved', async () => {
    const missing = await portal.act('upload-printed-representations', { files: printedFiles(allSlots.slice(1)) });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /missing: 31/);
    assert.equal(
      (await portal.act('upload-printed-representations', { files: printedFiles(allSlots) })).body.postulacion?.step,
      6,
    );
    const rejected = await portal.act('reject-printed-representations', {
      observations: 'Falta el código de seguridad bajo el QR.',
    });
    assert.equal(rejected.body.outcome, 'returned');
    assert.equal(rejected.body.postulacion?.step, 5);
    assert.equal(
      rejected.body.postulacion.inbox.at(-1)?.text,
      'La representación impresa ha sido rechazada. Observaciones: Falta el código de seguridad bajo el QR.',
    );
    await portal.act('upload-printed-representations', { files: printedFiles(allSlots) });
    assert.equal((await portal.act('approve-printed-representations')).body.postulacion?.step, 7);
    assert.equal(
      (await portal.act('confirm-test-urls', {})).body.postulacion?.stepName,
      'Inicio Prueba Recepción e-CF',
    );
  });

  it("step 9: a receiver answering JSON sends the postulación back to 8 with DGII's message", async () => {
    receiver.arecfMode = 'json';
    const sent = await portal.act('send-test-documents');
    assert.equal(sent.status, 200);
    assert.equal(sent.body.outcome, 'returned');
    assert.equal(sent.body.postulacion?.step, 8);
    assert.match(
      sent.body.postulacion.inbox.at(-1)?.text ?? '',
      /^La prueba de recepción de e-CF no fue satisfactoria: E31\d{10}: Data at the root level is invalid\. Line 1, position 1\.$/,
    );
    receiver.arecfMode = 'good';
  });

  it('step 9: a token whose expira is a Unix time sends it back to 8 too', async () => {
    receiver.expira = 'unix';
    const sent = await portal.act('send-test-documents');
    assert.equal(sent.body.postulacion?.step, 8);
    assert.equal(
      sent.body.postulacion.inbox.at(-1)?.text,
      'La prueba de recepción de e-CF no fue satisfactoria: Ha ocurrido un error recibiendo el token',
    );
    receiver.expira = 'date-time';
  });

  it('step 9: DGII authenticates (validacionCertificado, mixed case), sends two e-CF of 131880681 signed by its test certificate, and takes the signed ARECFs: step 10', async () => {
    receiver.ecfs.length = 0;
    receiver.paths.length = 0;
    const sent = await portal.act('send-test-documents');
    assert.equal(sent.body.outcome, 'advanced', JSON.stringify(sent.body));
    assert.equal(sent.body.postulacion?.step, 10);
    assert.deepEqual(receiver.paths.slice(0, 2), [
      '/fe/autenticacion/api/semilla',
      '/fe/autenticacion/api/validacionCertificado',
    ]);
    assert.equal(receiver.ecfs.length, 2);
    for (const arrived of receiver.ecfs) {
      const parsed = parseEcf(arrived.xml);
      assert.ok(parsed.ok);
      const encabezado = parsed.document['Encabezado'] as Record<string, Record<string, string>>;
      assert.equal(encabezado['Emisor']?.['RNCEmisor'], '131880681');
      assert.equal(encabezado['Comprador']?.['RNCComprador'], rnc);
      assert.equal(arrived.filename, `131880681${encabezado['IdDoc']?.['eNCF'] ?? ''}.xml`);
      assert.match(arrived.authorization ?? '', /^Bearer \S+$/);
      const certificate = /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(arrived.xml)?.[1] ?? '';
      assert.match(new X509Certificate(Buffer.from(certificate, 'base64')).subject, /CN=PEDRO PEREZ MARTINEZ/);
    }
  });

  it('step 11: a 404 from the approval route sends it back to 10; then one ACECF per approval row, each 200: step 12', async () => {
    receiver.approvalStatus = 404;
    const failed = await portal.act('send-test-approvals');
    assert.equal(failed.body.outcome, 'returned');
    assert.equal(failed.body.postulacion?.step, 10);
    assert.match(
      failed.body.postulacion.inbox.at(-1)?.text ?? '',
      /no fue satisfactoria: E\d{12}: Response status code does not indicate success: 404 \(Not Found\)\./,
    );
    receiver.approvalStatus = 200;
    receiver.approvals.length = 0;
    const sent = await portal.act('send-test-approvals');
    assert.equal(sent.body.postulacion?.step, 12, JSON.stringify(sent.body));
    assert.equal(receiver.approvals.length, 11);
    const expected = signedSetApprovals(cases, rnc, key, signedAt)
      .map((approval) => approval.encf)
      .sort();
    const arrived = receiver.approvals.map((approval) => {
      const parsed = parseXmlTree(approval.xml);
      assert.ok(parsed.ok);
      const detail = groupsOf(parsed.tree, 'DetalleAprobacionComercial')[0];
      assert.ok(detail);
      assert.equal(textOf(detail, 'RNCEmisor'), rnc);
      assert.equal(textOf(detail, 'RNCComprador'), '131880681');
      assert.equal(textOf(detail, 'Estado'), '1');
      return textOf(detail, 'eNCF') ?? '';
    });
    assert.deepEqual(arrived.sort(), expected);
  });

  it("step 12: the production URLs go to eCF's directory (and only there)", async () => {
    const production = {
      receptionUrl: 'https://ecf.ejemplo.do/recepcion',
      approvalUrl: 'https://ecf.ejemplo.do/aprobacion',
      authenticationUrl: 'https://ecf.ejemplo.do/autenticacion',
    };
    const confirmed = await portal.act('confirm-production-urls', production);
    assert.equal(confirmed.body.postulacion?.step, 13);
    assert.deepEqual(confirmed.body.postulacion.urls.production, production);
    const ecfToken = await authenticate(running.url, key, 'ecf');
    const directory = await fetch(
      `${running.url}/ecf/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${rnc}`,
      { headers: { authorization: `Bearer ${ecfToken}` } },
    );
    assert.deepEqual(await directory.json(), {
      nombre: realName,
      rnc,
      urlRecepcion: production.receptionUrl,
      urlAceptacion: production.approvalUrl,
      urlOpcional: production.authenticationUrl,
    });
    const testToken = await authenticate(running.url, key, 'testecf');
    const testDirectory = await fetch(
      `${running.url}/testecf/consultadirectorio/api/consultas/obtenerdirectorioporrnc?RNC=${rnc}`,
      { headers: { authorization: `Bearer ${testToken}` } },
    );
    assert.deepEqual(await testDirectory.json(), []);
  });

  it('step 13: the sworn declaration, signed by a certificate delegated for the RNC; 14 and 15', async () => {
    const download = await fetch(`${running.url}/sandbox-admin/certification/${rnc}/sworn-declaration.xml`);
    assert.equal(download.status, 200);
    const declaration = await download.text();
    assert.match(declaration, new RegExp(`<RNC>${rnc}</RNC>`));
    const unsigned = await portal.act('sworn-declaration', { xml: declaration });
    assert.equal(unsigned.status, 400);
    assert.match(unsigned.body.message, /signature does not verify/);
    assert.equal(
      (await portal.act('sworn-declaration', { xml: signXml(declaration, key) })).body.postulacion?.step,
      14,
    );
    const finished = await portal.act('verify-status');
    assert.equal(finished.body.postulacion?.step, 15);
    assert.equal(finished.body.postulacion.stepName, 'Finalizado');
    assert.equal((await portal.act('cancel', { reason: 'tarde' })).status, 409);
  });

  it('left every set e-NCF and every simulation e-NCF burned in CerteCF', async () => {
    const burned = new Set(
      (
        (await running.admin('GET', `/documents?rnc=${rnc}`)).body as {
          encf: string;
          outcome: number;
          environment: string;
        }[]
      )
        .filter((document) => document.environment === certecf && document.outcome === 1)
        .map((document) => document.encf),
    );
    for (const row of ecfRows(cases)) assert.ok(burned.has(encfOfRow(row)), encfOfRow(row));
    assert.ok(burned.has(encfOf('31', 102)));
  });
});
