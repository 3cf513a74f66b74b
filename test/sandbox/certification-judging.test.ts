// CerteCF's judging while a postulación runs (research/certification.md §3, §4, §6.12): in step 2 a document must be
// a row of the set, leaf by leaf; a note before its invoice is 614, a burned e-NCF 1209; any rejection starts the
// step over with DGII's inbox message; a consumer invoice is uploaded once; an ACECF outside step 3 gets DGII's
// phase refusal. TesteCF, and CerteCF for a taxpayer without a postulación, judge as they always did.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import type { SetCase } from '../../src/fiscal/certification/index.js';
import {
  certecf,
  ecfRows,
  encfOfRow,
  paths,
  portalOf,
  postTo,
  receive,
  receptionRows,
  rfceRows,
  signedRfceOf,
  signedRowEcf,
  signedSetApprovals,
  type Portal,
} from '../support/cert-portal-kit.js';
import { fictitiousRnc } from '../support/ecf-documents.js';
import { authenticate, fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import { registerIssuer, signedEcf } from '../support/sandbox-documents.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

const rnc = fictitiousRnc('13077702');
const key = testSigningKey();
const now = new Date('2026-11-21T14:00:00Z');
const signedAt = formatDgiiTimestamp(new Date(now.getTime() - 60_000));
const dataTestsReset = 'Las pruebas de datos de eCF han sido reiniciadas debido a que se han rechazado comprobantes';

describe('sandbox: CerteCF judging during the data tests (step 2)', () => {
  let running: RunningSandbox;
  let portal: Portal;
  let token: string;
  let cases: SetCase[];

  const row = (type: string, index = 0): SetCase => {
    const found = ecfRows(cases).filter((setCase) => setCase.ecfType === type)[index];
    assert.ok(found, `a ${type} row`);
    return found;
  };

  before(async () => {
    running = await startSandbox({ clock: fixedClock(now) });
    portal = portalOf(running, rnc);
    assert.equal((await running.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);
    // TesteCF ranges too, for the test that TesteCF is left alone.
    await registerIssuer(running, rnc, { name: 'JUICIOS DE PRUEBA SRL' });
    const urls = {
      receptionUrl: 'http://127.0.0.1:9/',
      approvalUrl: 'http://127.0.0.1:9/',
      authenticationUrl: 'http://127.0.0.1:9/',
    };
    assert.equal((await portal.apply(urls)).status, 201);
    cases = (await portal.downloadSet()).cases;
    assert.equal((await portal.act('validate')).body.postulacion?.step, 2);
    token = await authenticate(running.url, key, certecf);
  });
  after(() => running.close());

  it("refuses a note before its invoice with DGII's 614, and starts the step over", async () => {
    const note = row('33');
    const verdict = await receive(running.url, token, signedRowEcf(note, key, signedAt));
    assert.equal(verdict.estado, 'Rechazado');
    assert.deepEqual(verdict.mensajes, [{ codigo: 614, valor: 'El eNCF modificado no ha sido emitido' }]);
    const state = await portal.state();
    assert.equal(state.step, 2);
    assert.deepEqual(
      state.inbox.map((message) => message.text),
      [dataTestsReset],
    );
  });

  it('counts a row sent verbatim, then answers 1209 to it sent again, and starts the step over: counters back to zero', async () => {
    const invoice = row('31');
    assert.equal((await receive(running.url, token, signedRowEcf(invoice, key, signedAt))).estado, 'Aceptado');
    assert.deepEqual((await portal.state()).counters['2'].ecf['31'], { accepted: 1, expected: 4 });
    const again = await receive(running.url, token, signedRowEcf(invoice, key, signedAt));
    assert.equal(again.estado, 'Rechazado');
    assert.deepEqual(again.mensajes, [{ codigo: 1209, valor: 'Este número de secuencia ya ha sido utilizado' }]);
    const state = await portal.state();
    assert.deepEqual(state.counters['2'].ecf['31'], { accepted: 0, expected: 4 });
    assert.equal(state.inbox.length, 2);
    assert.equal(state.inbox.at(-1)?.text, dataTestsReset);
  });

  it("rejects a row that differs from the set, naming the first pointer that differs in the emulator's words", async () => {
    const invoice = row('31', 1);
    assert.equal((await receive(running.url, token, signedRowEcf(row('31', 2), key, signedAt))).estado, 'Aceptado');
    const changed = signedRowEcf(invoice, key, signedAt, (document) => {
      const comprador = (document['Encabezado'] as Record<string, Record<string, unknown>>)['Comprador'];
      assert.ok(comprador);
      comprador['RazonSocialComprador'] = 'OTRO COMPRADOR SRL';
    });
    const verdict = await receive(running.url, token, changed);
    assert.equal(verdict.estado, 'Rechazado');
    assert.equal(verdict.mensajes[0]?.codigo, 1102);
    assert.match(
      verdict.mensajes[0].valor,
      /^\[sandbox\] El e-CF E310000000002 no coincide con el set de pruebas en \/Encabezado\/Comprador\/RazonSocialComprador: el set dice ".+", el documento "OTRO COMPRADOR SRL"\.$/,
    );
    const state = await portal.state();
    assert.deepEqual(state.counters['2'].ecf['31'], { accepted: 0, expected: 4 });
    assert.equal(state.inbox.length, 3);
  });

  it('rejects an e-NCF outside the set', async () => {
    const verdict = await receive(running.url, token, signedEcf('31', 500, { rnc }));
    assert.equal(verdict.estado, 'Rechazado');
    assert.equal(verdict.mensajes[0]?.codigo, 1101);
    assert.match(
      verdict.mensajes[0].valor,
      /^\[sandbox\] El e-CF E310000000500 no corresponde a ninguna fila del set de pruebas/,
    );
  });

  it('rejects a type 32 under DOP 250,000.00 sent in full to reception (it goes as an RFCE)', async () => {
    const small = ecfRows(cases).find((setCase) => rfceRows(cases).some((rfce) => rfce.caseKey === setCase.caseKey));
    assert.ok(small);
    const verdict = await receive(running.url, token, signedRowEcf(small, key, signedAt));
    assert.equal(verdict.estado, 'Rechazado');
    assert.match(verdict.mensajes[0]?.valor ?? '', /se envía como Resumen \(RFCE\)/);
  });

  describe('the consumer-invoice upload', () => {
    it('takes the full e-CF of an accepted RFCE once, refuses another signature of it, and a second upload starts the step over', async () => {
      const [rfceRow, otherRow] = rfceRows(cases).slice(1);
      assert.ok(rfceRow && otherRow);
      const ecfRow = ecfRows(cases).find((setCase) => setCase.caseKey === rfceRow.caseKey);
      assert.ok(ecfRow);
      const full = signedRowEcf(ecfRow, key, signedAt);
      const notYet = await portal.act('upload-consumer-invoice', { xml: full.xml });
      assert.equal(notYet.status, 400);
      assert.match(notYet.body.message, /No RFCE of E32\d{10} was accepted in this step/);
      const rfce = signedRfceOf(full, key);
      assert.equal(
        (await postTo(running.url, certecf, paths.rfce, token, rfce.xml, rfce.filename)).body['estado'],
        'Aceptado',
      );
      const resigned = signedRowEcf(ecfRow, key, formatDgiiTimestamp(new Date(now.getTime() - 120_000)));
      const wrongCode = await portal.act('upload-consumer-invoice', { xml: resigned.xml });
      assert.equal(wrongCode.status, 400);
      // The code is base64 ('+', '/'): looked for as text, not as a pattern.
      assert.ok(
        wrongCode.body.message.includes(`is not the RFCE's CodigoSeguridadeCF (${rfce.codigoSeguridad})`),
        wrongCode.body.message,
      );

      const uploaded = await portal.act('upload-consumer-invoice', { xml: full.xml });
      assert.equal(uploaded.body.outcome, 'recorded');
      assert.deepEqual(uploaded.body.postulacion?.counters['2'].consumerInvoiceUploads, { accepted: 1, expected: 4 });
      assert.deepEqual(uploaded.body.postulacion.counters['2'].rfce, { accepted: 1, expected: 4 });

      const twice = await portal.act('upload-consumer-invoice', { xml: full.xml });
      assert.equal(twice.status, 200);
      assert.equal(twice.body.outcome, 'reset');
      const state = twice.body.postulacion;
      assert.deepEqual(state?.counters['2'].consumerInvoiceUploads, { accepted: 0, expected: 4 });
      assert.deepEqual(state.counters['2'].rfce, { accepted: 0, expected: 4 });
      assert.equal(
        state.inbox.at(-1)?.text,
        `La factura de consumo ${full.encf} ya había sido cargada y aceptada previamente. ${dataTestsReset}`,
      );
    });
  });

  it("answers an ACECF outside step 3 with DGII's phase refusal (HTTP 400, codigo 02) and resets nothing", async () => {
    const before = await portal.state();
    const [approval] = signedSetApprovals(cases, rnc, key, signedAt);
    assert.ok(approval);
    const answer = await postTo(
      running.url,
      certecf,
      paths.approval,
      token,
      approval.xml,
      `${rnc}${approval.encf}.xml`,
    );
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body, {
      mensaje: [
        `El contribuyente de rnc ${rnc} no se encuentra en la etapa de prueba de datos de aprobación comercial`,
      ],
      estado: 'Aprobacion Comercial Rechazada',
      codigo: '02',
    });
    assert.deepEqual(await portal.state(), before);
  });

  it("leaves TesteCF alone: the same taxpayer's documents there are judged as before, and counted nowhere", async () => {
    const before = await portal.state();
    const testToken = await authenticate(running.url, key, 'testecf');
    const outsideSet = await receive(running.url, testToken, signedEcf('31', 700, { rnc }), 'testecf');
    assert.equal(outsideSet.estado, 'Aceptado');
    const [firstRow] = receptionRows(cases);
    assert.ok(firstRow);
    const setRowInTest = await receive(running.url, testToken, signedRowEcf(firstRow, key, signedAt), 'testecf');
    assert.equal(setRowInTest.estado, 'Aceptado', JSON.stringify(setRowInTest.mensajes));
    const [note] = ecfRows(cases).filter((setCase) => setCase.ecfType === '34');
    assert.ok(note);
    const noteInTest = await receive(running.url, testToken, signedRowEcf(note, key, signedAt), 'testecf');
    // TesteCF's own wording for an unknown reference, not certification's 614.
    assert.equal(noteInTest.mensajes[0]?.codigo, 1015);
    assert.deepEqual(await portal.state(), before);
  });

  it('leaves a CerteCF taxpayer without a postulación alone', async () => {
    const other = fictitiousRnc('13077703');
    assert.equal(
      (
        await running.admin('POST', '/taxpayers', {
          rnc: other,
          name: 'SIN POSTULACION SRL',
          certificates: [key.certificatePem],
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await running.admin('POST', `/taxpayers/${other}/ranges`, {
          environment: certecf,
          type: '31',
          from: 1,
          to: 100,
          expiresOn: '2027-12-31',
        })
      ).status,
      201,
    );
    const verdict = await receive(running.url, token, signedEcf('31', 1, { rnc: other }));
    assert.equal(verdict.estado, 'Aceptado', JSON.stringify(verdict.mensajes));
    assert.equal((await running.admin('GET', `/certification/${other}`)).status, 404);
  });

  it('keeps burned e-NCF burned after a reset: the row accepted before is 1209 again', async () => {
    const verdict = await receive(running.url, token, signedRowEcf(row('31'), key, signedAt));
    assert.deepEqual(verdict.mensajes, [{ codigo: 1209, valor: 'Este número de secuencia ya ha sido utilizado' }]);
    assert.equal(encfOfRow(row('31')), 'E310000000001');
  });
});
