// The QR pages as the sandbox serves them: "Aceptado" (conditional included), "Rechazado", or "No fue encontrada
// la factura (e-CF)" — found only when every value of the QR matches the stored document.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { timbreUrl } from '../../src/fiscal/timbre-url.js';
import { issuerRnc } from '../support/ecf-documents.js';
import { fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import { storeJudgedDocument, type JudgedDocument } from '../support/sandbox-state.js';

const notFound = 'No fue encontrada la factura (e-CF)';
const issuerName = 'Emisor <b>"Ñoño"</b> & Hijos, S.R.L.';
const escapedIssuerName = 'Emisor &lt;b&gt;&quot;Ñoño&quot;&lt;/b&gt; &amp; Hijos, S.R.L.';

describe('sandbox: QR pages (consultatimbre, consultatimbrefc)', () => {
  let running: RunningSandbox;
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  let accepted: JudgedDocument;
  let conditional: JudgedDocument;
  let rejected: JudgedDocument;
  let pending: JudgedDocument;
  let consumer: JudgedDocument;

  before(async () => {
    running = await startSandbox({ clock });
    await running.admin('POST', '/taxpayers', { rnc: issuerRnc, name: issuerName });
    accepted = await storeJudgedDocument(running, { type: '31', sequence: 1 });
    conditional = await storeJudgedDocument(running, { type: '31', sequence: 2, outcome: 4 });
    rejected = await storeJudgedDocument(running, { type: '31', sequence: 3, outcome: 2 });
    pending = await storeJudgedDocument(running, {
      type: '31',
      sequence: 4,
      readyAt: new Date(clock.now().getTime() + 60_000),
    });
    consumer = await storeJudgedDocument(running, { type: '32', sequence: 1, channel: 'rfce' });
  });
  after(() => running.close());

  /** The URL the service prints in the QR, pointed at the sandbox. */
  function qrOf(
    document: JudgedDocument,
    change: Partial<
      Record<'RNCComprador' | 'FechaEmision' | 'MontoTotal' | 'FechaHoraFirma' | 'CodigoSeguridad' | 'eNCF', string>
    > = {},
  ): string {
    const url = new URL(
      timbreUrl('TEST', {
        TipoeCF: document.type,
        RNCEmisor: document.RNCEmisor,
        RNCComprador: document.RNCComprador ?? undefined,
        eNCF: document.eNCF,
        FechaEmision: document.FechaEmision,
        MontoTotal: document.MontoTotal,
        FechaHoraFirma: document.FechaHoraFirma,
        CodigoSeguridad: document.CodigoSeguridad,
        ...change,
      }),
    );
    return `${running.url}${url.pathname}${url.search}`;
  }

  async function page(url: string) {
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    return response.text();
  }

  const row = (label: string, value: string) => `<tr><th scope="row">${label}</th><td>${value}</td></tr>`;

  it("shows an accepted e-CF with DGII's fields, every value escaped", async () => {
    assert.equal(accepted.RazonSocialComprador, 'Distribuidora Peña <Prueba> & Hijos');
    const html = await page(qrOf(accepted));
    for (const [label, value] of [
      ['RNC Emisor', issuerRnc],
      ['Razón social emisor', escapedIssuerName],
      ['RNC Comprador', accepted.RNCComprador ?? ''],
      ['Razón social comprador', 'Distribuidora Peña &lt;Prueba&gt; &amp; Hijos'],
      ['e-NCF', 'E310000000001'],
      ['Fecha de Emisión', accepted.FechaEmision],
      ['Total de ITBIS', accepted.TotalITBIS ?? ''],
      ['Monto Total', accepted.MontoTotal],
      ['Estado', 'Aceptado'],
    ] as const) {
      assert.ok(html.includes(row(label, value)), `${label}: ${value}`);
    }
    assert.ok(!html.includes('<b>'));
  });

  it('shows a conditionally accepted e-CF as "Aceptado" and a rejected one as "Rechazado"', async () => {
    assert.ok((await page(qrOf(conditional))).includes(row('Estado', 'Aceptado')));
    assert.ok((await page(qrOf(rejected))).includes(row('Estado', 'Rechazado')));
  });

  it('does not find an e-CF still being processed, until its verdict is out', async () => {
    assert.ok((await page(qrOf(pending))).includes(row('Estado', notFound)));
    clock.advance(60_000);
    assert.ok((await page(qrOf(pending))).includes(row('Estado', 'Aceptado')));
  });

  it('finds the e-CF only when every value of the QR matches', async () => {
    const mismatches = {
      RNCComprador: '130000006',
      FechaEmision: '16-11-2026',
      MontoTotal: '1430.01',
      FechaHoraFirma: '15-11-2026 10:31:08',
      CodigoSeguridad: accepted.CodigoSeguridad.replace(/[A-Za-z]/, (letter) =>
        letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
      ),
      eNCF: 'E310000000009',
    };
    for (const [name, value] of Object.entries(mismatches)) {
      assert.ok((await page(qrOf(accepted, { [name]: value }))).includes(row('Estado', notFound)), name);
    }
    const withoutEncf = qrOf(accepted).replace(/ENCF=[^&]+&/, '');
    assert.ok((await page(withoutEncf)).includes(row('Estado', notFound)));
  });

  it("reads parameter names in any case, the e-NCF in lower case (DT's example), amounts as decimals and percent-encoded codes", async () => {
    const lower = qrOf(accepted)
      .replace(/[?&][A-Za-z]+=/g, (name) => name.toLowerCase())
      .replace('ENCF'.toLowerCase() + '=E31', 'encf=e31');
    assert.ok((await page(lower)).includes(row('Estado', 'Aceptado')));
    assert.ok(
      (await page(qrOf(accepted, { MontoTotal: accepted.MontoTotal.replace(/\.00$/, '.0') }))).includes(
        row('Estado', 'Aceptado'),
      ),
    );
    await running.sandbox.context.db
      .updateTable('sandbox_documents')
      .set({ security_code: 'ab+/CD' })
      .where('encf', '=', conditional.eNCF)
      .execute();
    const encoded = qrOf(conditional, { CodigoSeguridad: 'ab+/CD' });
    assert.ok(encoded.includes('CodigoSeguridad=ab%2B%2FCD'));
    assert.ok((await page(encoded)).includes(row('Estado', 'Aceptado')));
  });

  it('answers in any environment segment, and only for documents of that environment', async () => {
    assert.ok((await page(qrOf(accepted).replace('/testecf/', '/TesteCF/'))).includes(row('Estado', 'Aceptado')));
    assert.ok((await page(qrOf(accepted).replace('/testecf/', '/certecf/'))).includes(row('Estado', notFound)));
  });

  it('shows a consumer invoice sent as RFCE on the FC page, never on the e-CF page', async () => {
    const url = qrOf(consumer);
    assert.match(url, /\/testecf\/ConsultaTimbreFC\?RncEmisor=/);
    const html = await page(url);
    for (const [label, value] of [
      ['RNC Emisor', issuerRnc],
      ['Razón Social', escapedIssuerName],
      ['e-NCF', 'E320000000001'],
      ['Estado', 'Aceptado'],
    ] as const) {
      assert.ok(html.includes(row(label, value)), label);
    }
    assert.ok((await page(qrOf(consumer, { CodigoSeguridad: 'zzzzzz' }))).includes(row('Estado', notFound)));
    assert.ok(
      (await page(qrOf(accepted).replace('ConsultaTimbre?', 'ConsultaTimbreFC?'))).includes(row('Estado', notFound)),
    );
  });
});
