// The buyer's copy of a commercial approval (ACECF) sent to DGII, as the sandbox emulates it: taken only for an
// e-CF DGII accepted, of a type that takes approvals, whose buyer, date and total it repeats; every refusal in
// DGII's shape ({mensaje: [...], estado, codigo}).
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import { buildAcecf, type Acecf } from '../../src/fiscal/responses/acecf.js';
import { signXml, type SigningKey } from '../../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { buyerRnc, issuerRnc } from '../support/ecf-documents.js';
import { authenticate, fixedClock, startSandbox, xmlForm, type RunningSandbox } from '../support/sandbox-kit.js';
import { storeJudgedDocument, type JudgedDocument } from '../support/sandbox-state.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

const path = '/aprobacioncomercial/api/aprobacioncomercial';
const refused = { estado: 'Aprobacion Comercial Rechazada', codigo: '02' };
const accepted = { mensaje: [], estado: 'Aprobación Comercial Aprobada.', codigo: '01' };

interface ApprovalAnswer {
  mensaje: string[];
  estado: string;
  codigo: string;
}

describe('sandbox: commercial approval received by DGII (aprobacioncomercial)', () => {
  let running: RunningSandbox;
  let token: string;
  let invoice: JudgedDocument;
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  const key = testSigningKey();

  before(async () => {
    running = await startSandbox({ clock });
    for (const [rnc, name] of [
      [issuerRnc, 'EMISOR DE PRUEBA SRL'],
      [buyerRnc, 'COMPRADOR DE PRUEBA SRL'],
    ] as const) {
      assert.equal(
        (await running.admin('POST', '/taxpayers', { rnc, name, certificates: [key.certificatePem] })).status,
        201,
      );
    }
    token = await authenticate(running.url, key);
    invoice = await storeJudgedDocument(running, { type: '31', sequence: 1 });
  });
  after(() => running.close());

  function approvalOf(document: JudgedDocument, change: Partial<Acecf> = {}): Acecf {
    return {
      RNCEmisor: document.RNCEmisor,
      eNCF: document.eNCF,
      FechaEmision: document.FechaEmision,
      MontoTotal: document.MontoTotal,
      RNCComprador: document.RNCComprador ?? buyerRnc,
      FechaHoraAprobacionComercial: formatDgiiTimestamp(clock.now()),
      Estado: '1',
      ...change,
    } as Acecf;
  }

  function acecfXml(approval: Acecf): string {
    const built = buildAcecf(approval);
    assert.ok(built.ok);
    return built.xml;
  }

  async function send(
    xml: string,
    options: { token?: string | undefined; signer?: SigningKey; raw?: boolean; environment?: string } = {},
  ) {
    const body = options.raw === true ? xml : signXml(xml, options.signer ?? key);
    const bearer = 'token' in options ? options.token : token;
    const response = await fetch(`${running.url}/${options.environment ?? 'testecf'}${path}`, {
      method: 'POST',
      body: xmlForm(body, `${buyerRnc}${invoice.eNCF}.xml`),
      headers: bearer === undefined ? {} : { authorization: `bearer ${bearer}` },
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as ApprovalAnswer };
  }

  async function approvals(encf: string) {
    return running.sandbox.context.db
      .selectFrom('sandbox_approvals')
      .selectAll()
      .where('encf', '=', encf)
      .orderBy('id')
      .execute();
  }

  it('takes an approval of an accepted e-CF: HTTP 200, codigo 01, stored with what it says', async () => {
    const xml = signXml(acecfXml(approvalOf(invoice)), key);
    const { status, body } = await send(xml, { raw: true });
    assert.equal(status, 200);
    assert.deepEqual(body, accepted);
    const [stored] = await approvals(invoice.eNCF);
    assert.ok(stored);
    assert.deepEqual(stored, {
      ...stored,
      environment: 'testecf',
      rnc_emisor: issuerRnc,
      encf: invoice.eNCF,
      rnc_comprador: buyerRnc,
      estado: '1',
      accepted: true,
      xml,
    });
    assert.equal(stored.received_at.getTime(), clock.now().getTime());
    const arrivals = (await running.admin('GET', `/arrivals?service=aprobacioncomercial&encf=${invoice.eNCF}`))
      .body as { rnc: string; outcome: string }[];
    assert.deepEqual(
      arrivals.map(({ rnc, outcome }) => ({ rnc, outcome })),
      [{ rnc: issuerRnc, outcome: 'accepted' }],
    );
  });

  it('takes a commercial rejection (Estado 2 with its reason) the same way: DGII validated it', async () => {
    const document = await storeJudgedDocument(running, { type: '33', sequence: 2, outcome: 4 });
    const { status, body } = await send(
      acecfXml(approvalOf(document, { Estado: '2', DetalleMotivoRechazo: 'Mercancía no recibida' })),
    );
    assert.equal(status, 200);
    assert.deepEqual(body, accepted);
    assert.deepEqual(
      (await approvals(document.eNCF)).map((row) => [row.estado, row.accepted]),
      [['2', true]],
    );
  });

  it('compares MontoTotal as a decimal', async () => {
    const document = await storeJudgedDocument(running, { type: '31', sequence: 3 });
    await running.sandbox.context.db
      .updateTable('sandbox_documents')
      .set({ monto_total: '1430' })
      .where('encf', '=', document.eNCF)
      .execute();
    assert.equal(document.MontoTotal, '1430.00');
    assert.equal((await send(acecfXml(approvalOf(document)))).status, 200);
  });

  it('refuses an approval for an e-CF it does not have: "Factura no encontrada…"', async () => {
    const { status, body } = await send(acecfXml(approvalOf(invoice, { eNCF: 'E310000000999' })));
    assert.equal(status, 400);
    assert.deepEqual(body, { mensaje: ['Factura no encontrada para esta Aprobación comercial.'], ...refused });
    // The same e-CF in another environment is another document.
    const elsewhere = await send(acecfXml(approvalOf(invoice)), {
      token: await authenticate(running.url, key, 'certecf'),
      environment: 'certecf',
    });
    assert.deepEqual(elsewhere.body.mensaje, ['Factura no encontrada para esta Aprobación comercial.']);
    const stored = await approvals('E310000000999');
    assert.deepEqual(
      stored.map((row) => row.accepted),
      [false],
    );
  });

  for (const type of ['32', '41', '43', '46', '47']) {
    it(`refuses an approval of a type ${type} e-CF: "no es requerida para este tipo"`, async () => {
      const { status, body } = await send(acecfXml(approvalOf(invoice, { eNCF: `E${type}0000000001` })));
      assert.equal(status, 400);
      assert.deepEqual(body, { mensaje: ['Aprobación Comercial no es requerida para este tipo de e-CF'], ...refused });
    });
  }

  it('refuses an approval of a rejected e-CF, and of one still being processed: "No se encuentra un e-CF válido…"', async () => {
    const rejected = await storeJudgedDocument(running, { type: '31', sequence: 4, outcome: 2 });
    const pending = await storeJudgedDocument(running, {
      type: '31',
      sequence: 5,
      readyAt: new Date(clock.now().getTime() + 60_000),
    });
    for (const document of [rejected, pending]) {
      const { status, body } = await send(acecfXml(approvalOf(document)));
      assert.equal(status, 400);
      assert.deepEqual(body, {
        mensaje: ['No se encuentra un e-CF válido para esta aprobación comercial'],
        ...refused,
      });
    }
    clock.advance(60_000);
    assert.equal((await send(acecfXml(approvalOf(pending)))).status, 200);
  });

  it('refuses an approval whose buyer, date or total differ from the e-CF', async () => {
    await running.admin('POST', '/taxpayers', {
      rnc: '130000014',
      name: 'OTRO COMPRADOR SRL',
      certificates: [key.certificatePem],
    });
    const { status, body } = await send(
      acecfXml(approvalOf(invoice, { RNCComprador: '130000014', FechaEmision: '16-11-2026', MontoTotal: '1430.01' })),
    );
    assert.equal(status, 400);
    assert.deepEqual(body, {
      mensaje: [
        'El RNCComprador (130000014) no corresponde con el del e-CF referenciado.',
        'La FechaEmision (16-11-2026) no corresponde con la del e-CF referenciado.',
        'El MontoTotal (1430.01) no corresponde con el del e-CF referenciado.',
      ],
      ...refused,
    });
  });

  it('refuses an approval of an e-CF without a buyer: "no es requerida para el e-CF Referenciado"', async () => {
    const document = await storeJudgedDocument(running, { type: '31', sequence: 6 });
    await running.sandbox.context.db
      .updateTable('sandbox_documents')
      .set({ rnc_comprador: null })
      .where('encf', '=', document.eNCF)
      .execute();
    const { body } = await send(acecfXml(approvalOf(document)));
    assert.deepEqual(body, { mensaje: ['Aprobación Comercial no es requerida para el e-CF Referenciado'], ...refused });
  });

  it('refuses DetalleMotivoRechazo with Estado 1, and Estado 2 without it', async () => {
    const reasonWithApproval = acecfXml(
      approvalOf(invoice, { Estado: '2', DetalleMotivoRechazo: 'No aplica' }),
    ).replace('<Estado>2</Estado>', '<Estado>1</Estado>');
    assert.deepEqual((await send(reasonWithApproval)).body, {
      mensaje: ['El campo DetalleMotivoRechazo solo aplica cuando el Estado es 2 (e-CF Rechazado).'],
      ...refused,
    });
    const rejectionWithoutReason = acecfXml(approvalOf(invoice)).replace('<Estado>1</Estado>', '<Estado>2</Estado>');
    assert.deepEqual((await send(rejectionWithoutReason)).body, {
      mensaje: ['El campo DetalleMotivoRechazo es requerido cuando el Estado es 2 (e-CF Rechazado).'],
      ...refused,
    });
  });

  it("refuses a certificate not delegated for the RNCComprador, in DGII's words", async () => {
    const stranger = createSelfSignedP12({
      commonName: 'OTRA PERSONA',
      serialNumber: 'IDCDO-00100000001',
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2030-01-01'),
      password: 'x',
    });
    const strangerKey = {
      privateKey: createPrivateKey(stranger.privateKeyPem),
      certificatePem: stranger.certificatePem,
    };
    await running.admin('POST', '/taxpayers', {
      rnc: '130000022',
      name: 'TERCERO SRL',
      certificates: [stranger.certificatePem],
    });
    const { status, body } = await send(acecfXml(approvalOf(invoice)), {
      token: await authenticate(running.url, strangerKey),
    });
    assert.equal(status, 400);
    assert.deepEqual(body, {
      mensaje: [`El RNC del certificado no está delegado para realizar transacciones para el RNC: ${buyerRnc}`],
      ...refused,
    });
    assert.equal((await send(acecfXml(approvalOf(invoice)), { signer: strangerKey })).status, 400);
  });

  it('refuses a signature that does not verify, a document that fails the XSD, and a file that is not XML', async () => {
    const tampered = signXml(acecfXml(approvalOf(invoice)), key).replace('<Estado>1</Estado>', '<Estado>2</Estado>');
    assert.deepEqual((await send(tampered, { raw: true })).body, {
      mensaje: ['La firma del XML no es válida'],
      ...refused,
    });
    // The XSD wants MontoTotal with two decimals.
    const noDecimals = await send(
      acecfXml(approvalOf(invoice)).replace(
        `<MontoTotal>${invoice.MontoTotal}</MontoTotal>`,
        '<MontoTotal>1430</MontoTotal>',
      ),
    );
    assert.equal(noDecimals.status, 400);
    assert.match(
      noDecimals.body.mensaje[0] ?? '',
      /^La estructura del archivo XML no es válido, favor proveer un XML con una estructura válida, verificar el XSD correspondiente\. \/ACECF\/DetalleAprobacionComercial\/MontoTotal/,
    );
    assert.deepEqual((await send('<<no>>', { raw: true })).body, {
      mensaje: ['Tipo de archivo no válido, favor proveer un XML'],
      ...refused,
    });
  });

  it('answers 401 without a token', async () => {
    const { status, body } = await send(acecfXml(approvalOf(invoice)), { token: undefined });
    assert.equal(status, 401);
    assert.equal(body, undefined);
  });

  it('answers in XML when asked (RespuestaAprobacionComercial)', async () => {
    const response = await fetch(`${running.url}/testecf${path}`, {
      method: 'POST',
      body: xmlForm(signXml(acecfXml(approvalOf(invoice, { eNCF: 'E310000000998' })), key)),
      headers: { authorization: `bearer ${token}`, accept: 'application/xml' },
    });
    assert.equal(response.status, 400);
    assert.equal(
      await response.text(),
      '<?xml version="1.0" encoding="utf-8"?><RespuestaAprobacionComercial><mensaje>Factura no encontrada para esta Aprobación comercial.</mensaje><estado>Aprobacion Comercial Rechazada</estado><codigo>02</codigo></RespuestaAprobacionComercial>',
    );
  });

  it('acts out the faults: reject answers "intentar nuevamente"; accept_then_lose answers 200 and keeps nothing', async () => {
    const document = await storeJudgedDocument(running, { type: '31', sequence: 7 });
    await running.admin('POST', '/faults', { service: 'aprobacioncomercial', mode: 'reject', count: 1 });
    assert.deepEqual((await send(acecfXml(approvalOf(document)))).body, {
      mensaje: ['No fue posible procesar la Aprobación comercial. Favor intentar nuevamente'],
      ...refused,
    });
    await running.admin('POST', '/faults', { service: 'aprobacioncomercial', mode: 'accept_then_lose', count: 1 });
    assert.deepEqual((await send(acecfXml(approvalOf(document)))).body, accepted);
    assert.deepEqual(
      (await approvals(document.eNCF)).map((row) => row.accepted),
      [false],
    );
    const arrivals = (await running.admin('GET', `/arrivals?service=aprobacioncomercial&encf=${document.eNCF}`))
      .body as { outcome: string }[];
    assert.deepEqual(
      arrivals.map((arrival) => arrival.outcome),
      ['refused:fault_reject', 'accepted:lost'],
    );
  });
});
