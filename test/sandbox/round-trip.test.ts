// The sandbox's round trip (DESIGN §1): a DGII client drives the sandbox over HTTP from authentication to every
// service — an e-CF of each type that goes to reception polled to its final state, an RFCE, a range annulment, a
// commercial approval, the directory and the service status — and every answer is checked on its fields.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildAcecf } from '../../src/fiscal/responses/acecf.js';
import { buildAnecf } from '../../src/fiscal/responses/anecf.js';
import { signXml } from '../../src/fiscal/xmldsig/index.js';
import { authenticate, fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import {
  buyerRnc,
  encfOf,
  getJson,
  issuerRnc,
  largeConsumerInvoice,
  postDocument,
  registerIssuer,
  resultOf,
  sendEcf,
  signedEcf,
  signedRfce,
  type ResultBody,
} from '../support/sandbox-documents.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

// The sandbox's time is the test's: "En Proceso" lasts exactly until the clock is moved past the delay, however slow
// the machine.
const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
const processingDelayMs = 1_000;

async function finalResult(url: string, token: string, trackId: string): Promise<ResultBody> {
  const pending = await resultOf(url, token, trackId);
  if (pending.codigo !== '3') return pending;
  clock.advance(processingDelayMs);
  const result = await resultOf(url, token, trackId);
  if (result.codigo === '3') throw new Error(`${trackId} still En Proceso after the delay`);
  return result;
}

describe('sandbox round trip, as a DGII client', { timeout: 120_000 }, () => {
  let running: RunningSandbox;
  let token: string;
  const key = testSigningKey();

  before(async () => {
    running = await startSandbox({ clock });
    await registerIssuer(running, issuerRnc);
    await registerIssuer(running, buyerRnc, { name: 'DISTRIBUIDORA PEÑA & HIJOS SRL' });
    assert.equal((await running.admin('PUT', '/settings', { processingDelayMs })).status, 200);
    token = await authenticate(running.url, key);
  });
  after(() => running.close());

  it('takes an e-CF of every type that goes to reception through En Proceso to Aceptado', async () => {
    // The notes (33, 34) modify E310000000007, which must have been accepted first.
    const invoice = signedEcf('31', 7);
    const invoiceTrack = await sendEcf(running.url, token, invoice);
    const pending = await resultOf(running.url, token, invoiceTrack);
    assert.equal(pending.codigo, '3');
    assert.equal(pending.estado, 'En Proceso');
    assert.equal((await finalResult(running.url, token, invoiceTrack)).estado, 'Aceptado');

    const documents = [
      signedEcf('33', 1),
      signedEcf('34', 1),
      signedEcf('41', 1),
      signedEcf('43', 1),
      signedEcf('44', 1),
      signedEcf('45', 1),
      signedEcf('46', 1),
      signedEcf('47', 1),
      signedEcf('32', 1, { change: largeConsumerInvoice }),
    ];
    for (const document of documents) {
      const trackId = await sendEcf(running.url, token, document);
      const result = await finalResult(running.url, token, trackId);
      assert.deepEqual(
        {
          codigo: result.codigo,
          estado: result.estado,
          rnc: result.rnc,
          encf: result.encf,
          secuenciaUtilizada: result.secuenciaUtilizada,
        },
        { codigo: '1', estado: 'Aceptado', rnc: issuerRnc, encf: document.encf, secuenciaUtilizada: true },
        `${document.encf}: ${JSON.stringify(result.mensajes)}`,
      );
      assert.match(result.fechaRecepcion ?? '', /^\d{1,2}\/\d{1,2}\/\d{4} \d{1,2}:\d{2}:\d{2} (AM|PM)$/);
    }

    const trackIds = await getJson(
      running.url,
      `consultatrackids/api/trackids/consulta?rncemisor=${issuerRnc}&encf=${invoice.encf}`,
      token,
    );
    assert.equal(trackIds.status, 200);
    assert.deepEqual(
      (trackIds.body as { trackId: string; estado: string }[]).map((entry) => [entry.trackId, entry.estado]),
      [[invoiceTrack, 'Aceptado']],
    );
    const status = await getJson(
      running.url,
      `consultaestado/api/consultas/estado?rncemisor=${issuerRnc}&ncfelectronico=${invoice.encf}`,
      token,
    );
    assert.equal(status.status, 200);
    assert.equal((status.body as { estado: string; ncfElectronico: string }).ncfElectronico, invoice.encf);
    assert.match((status.body as { estado: string }).estado, /Aceptado/);
  });

  it('takes an RFCE of a consumer invoice under DOP 250,000 with a synchronous verdict', async () => {
    const rfce = signedRfce(signedEcf('32', 2));
    const { status, body } = await postDocument(
      running.url,
      'recepcionfc/api/recepcion/ecf',
      token,
      rfce.xml,
      rfce.filename,
    );
    assert.equal(status, 200, JSON.stringify(body));
    const verdict = body as { codigo: number; estado: string; encf: string; secuenciaUtilizada: boolean };
    assert.deepEqual(
      {
        codigo: verdict.codigo,
        estado: verdict.estado,
        encf: verdict.encf,
        secuenciaUtilizada: verdict.secuenciaUtilizada,
      },
      { codigo: 1, estado: 'Aceptado', encf: rfce.encf, secuenciaUtilizada: true },
    );
  });

  it('annuls a range of unused numbers', async () => {
    const anecf = buildAnecf({
      RncEmisor: issuerRnc,
      FechaHoraAnulacioneNCF: '15-11-2026 11:00:00',
      lines: [
        { TipoeCF: '31', ranges: [{ SecuenciaeNCFDesde: encfOf('31', 100), SecuenciaeNCFHasta: encfOf('31', 109) }] },
      ],
    });
    assert.ok(anecf.ok, anecf.ok ? '' : JSON.stringify(anecf.findings));
    const { status, body } = await postDocument(
      running.url,
      'anulacionrangos/api/operaciones/anularrango',
      token,
      signXml(anecf.xml, key),
      `${issuerRnc}ANECF.xml`,
    );
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal((body as { rnc: string }).rnc, issuerRnc);
    // A voided number cannot be used afterwards.
    const trackId = await sendEcf(running.url, token, signedEcf('31', 105));
    const result = await finalResult(running.url, token, trackId);
    assert.equal(result.estado, 'Rechazado');
  });

  it("takes the buyer's commercial approval of an accepted e-CF", async () => {
    const acecf = buildAcecf({
      RNCEmisor: issuerRnc,
      eNCF: encfOf('31', 7),
      FechaEmision: '15-11-2026',
      MontoTotal: '1430.00',
      RNCComprador: buyerRnc,
      Estado: '1',
      FechaHoraAprobacionComercial: '16-11-2026 09:00:00',
    });
    assert.ok(acecf.ok, acecf.ok ? '' : JSON.stringify(acecf.findings));
    const { status, body } = await postDocument(
      running.url,
      'aprobacioncomercial/api/aprobacioncomercial',
      token,
      signXml(acecf.xml, key),
      `${buyerRnc}${encfOf('31', 7)}.xml`,
    );
    assert.equal(status, 200, JSON.stringify(body));
  });

  it("lists the directory and the services' status", async () => {
    const directory = await getJson(running.url, 'consultadirectorio/api/consultas/listado', token);
    assert.equal(directory.status, 200);
    const entries = directory.body as { rnc: string; urlRecepcion: string }[];
    assert.ok(
      entries.some((entry) => entry.urlRecepcion.endsWith('/testecf/emisorreceptor')),
      JSON.stringify(entries),
    );
    const status = await fetch(`${running.url}/api/estatusservicios/obtenerestatus`, {
      headers: { authorization: 'Apikey prueba' },
    });
    assert.equal(status.status, 200);
  });

  it('counts what arrived: each e-NCF reached reception once', async () => {
    const arrivals = await running.admin('GET', `/arrivals?service=recepcion&encf=${encfOf('31', 7)}`);
    assert.equal((arrivals.body as unknown[]).length, 1);
    const counters = await running.admin('GET', `/counters?rnc=${issuerRnc}`);
    const documents = (
      counters.body as { documents: { channel: string; type: string; outcome: string; count: number }[] }
    ).documents;
    const accepted = documents.filter((row) => row.outcome === 'accepted' && row.channel === 'ecf');
    assert.deepEqual(
      accepted.map((row) => [row.type, row.count]),
      [
        ['31', 1],
        ['32', 1],
        ['33', 1],
        ['34', 1],
        ['41', 1],
        ['43', 1],
        ['44', 1],
        ['45', 1],
        ['46', 1],
        ['47', 1],
      ],
    );
    assert.deepEqual(
      documents.filter((row) => row.channel === 'rfce').map((row) => [row.type, row.outcome, row.count]),
      [['32', 'accepted', 1]],
    );
    assert.deepEqual(
      documents.filter((row) => row.outcome === 'rejected').map((row) => [row.type, row.count]),
      [['31', 1]],
    );
  });
});
