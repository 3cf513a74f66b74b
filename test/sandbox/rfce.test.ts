// DGII's RFCE reception (recepcionfc) and query (consultarfce) as the sandbox emulates them: a synchronous verdict
// for the summary of a type 32 under DOP 250,000.00, the same checks as e-CF reception, and the RFCE's own rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fictitiousRnc } from '../support/ecf-documents.js';
import { authenticate, fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import {
  getJson,
  issuerRnc,
  postDocument,
  registerIssuer,
  signedEcf,
  signedRfce,
  strangerKey,
} from '../support/sandbox-documents.js';
import { testSigningKey } from '../support/xmldsig-kit.js';
import { requireTool } from '../support/tools.js';
import { validateWithOfficialXsd } from '../support/xmllint.js';

const rfcePath = 'recepcionfc/api/recepcion/ecf';

interface RfceAnswer {
  codigo: number;
  estado: string;
  mensajes: { codigo: number; valor: string }[];
  encf: string;
  secuenciaUtilizada: boolean;
}

describe('sandbox: RFCE reception (recepcionfc) and query (consultarfce)', () => {
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  let running: RunningSandbox;
  let token: string;

  before(async () => {
    running = await startSandbox({ clock });
    await registerIssuer(running, issuerRnc);
    token = await authenticate(running.url, testSigningKey());
  });
  after(() => running.close());

  async function send(
    rfce: { xml: string; filename: string },
    sessionToken: string = token,
  ): Promise<{ status: number; body: RfceAnswer }> {
    const { status, body } = await postDocument(running.url, rfcePath, sessionToken, rfce.xml, rfce.filename);
    return { status, body: body as RfceAnswer };
  }

  async function consulta(rnc: string, encf: string, code: string) {
    return getJson(
      running.url,
      `consultarfce/api/Consultas/Consulta?RNC_Emisor=${rnc}&ENCF=${encf}&Cod_Seguridad_eCF=${encodeURIComponent(code)}`,
      token,
    );
  }

  function assertRejected(
    answer: { status: number; body: RfceAnswer },
    codigo: number,
    message: RegExp,
    secuenciaUtilizada: boolean,
  ): void {
    assert.equal(answer.status, 200);
    assert.equal(answer.body.codigo, 2);
    assert.equal(answer.body.estado, 'Rechazado');
    assert.equal(answer.body.secuenciaUtilizada, secuenciaUtilizada);
    assert.equal(answer.body.mensajes.at(0)?.codigo, codigo, JSON.stringify(answer.body.mensajes));
    assert.match(answer.body.mensajes.at(0)?.valor ?? '', message);
  }

  it('accepts the RFCE of a signed type 32 at once, and consultarfce and consultaestado find it', async () => {
    const rfce = signedRfce(signedEcf('32', 1));
    const answer = await send(rfce);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {
      codigo: 1,
      estado: 'Aceptado',
      mensajes: [],
      encf: 'E320000000001',
      secuenciaUtilizada: true,
    });

    const found = await consulta(issuerRnc, rfce.encf, rfce.codigoSeguridad);
    assert.deepEqual(found, {
      status: 200,
      body: {
        rnc: issuerRnc,
        encf: rfce.encf,
        secuenciaUtilizada: true,
        codigo: '1',
        estado: 'Aceptado',
        mensajes: [],
      },
    });
    const wrongCode = await consulta(issuerRnc, rfce.encf, 'ZZZZZZ');
    assert.deepEqual(wrongCode.body, {
      rnc: issuerRnc,
      encf: rfce.encf,
      secuenciaUtilizada: false,
      codigo: '0',
      estado: 'No encontrado',
      mensajes: [],
    });

    const estado = await getJson(
      running.url,
      `consultaestado/api/consultas/estado?rncemisor=${issuerRnc}&ncfelectronico=${rfce.encf}&codigoseguridad=${encodeURIComponent(rfce.codigoSeguridad)}`,
      token,
    );
    assert.deepEqual(estado.body, {
      codigo: 1,
      estado: 'Aceptado',
      rncEmisor: issuerRnc,
      ncfElectronico: rfce.encf,
      montoTotal: 1430,
      totalITBIS: 180,
      fechaEmision: '15-11-2026',
      fechaFirma: null,
      rncComprador: null,
      codigoSeguridad: rfce.codigoSeguridad,
      idExtranjero: null,
    });

    const arrivals = (await running.admin('GET', `/arrivals?encf=${rfce.encf}`)).body as {
      service: string;
      outcome: string;
    }[];
    assert.deepEqual(
      arrivals.map((arrival) => [arrival.service, arrival.outcome]),
      [['recepcionfc', 'accepted']],
    );
  });

  it('accepts an RFCE without Comprador (anonymous consumer), which the official XSD alone would refuse', async (t) => {
    if (!requireTool(t, 'xmllint')) return;
    // The e-CF 32 model requires Comprador; buildRfce leaves it out when it holds none of the RFCE's buyer fields.
    const rfce = signedRfce(signedEcf('32', 2), { edit: (xml) => xml.replace(/<Comprador>.*?<\/Comprador>/, '') });
    assert.doesNotMatch(rfce.xml, /<Comprador>/);
    assert.equal(validateWithOfficialXsd('RFCE-32.xsd', rfce.xml).valid, false);
    assert.equal((await send(rfce)).body.codigo, 1);
  });

  describe('refuses at once what it cannot take', () => {
    it('no bearer token: 401; a file name that does not match: 400', async () => {
      const rfce = signedRfce(signedEcf('32', 3));
      assert.equal((await postDocument(running.url, rfcePath, undefined, rfce.xml, rfce.filename)).status, 401);
      const misnamed = await send({ xml: rfce.xml, filename: 'resumen.xml' });
      assert.equal(misnamed.status, 400);
      assert.match((misnamed.body as unknown as { mensaje: string }).mensaje, /no corresponde al documento/);
    });
  });

  describe('rejects with the e-NCF still usable (secuenciaUtilizada false)', () => {
    it('a CodigoSeguridadeCF that is not 6 characters (XSD)', async () => {
      const rfce = signedRfce(signedEcf('32', 4), {
        edit: (xml) =>
          xml.replace(
            /<CodigoSeguridadeCF>[^<]*<\/CodigoSeguridadeCF>/,
            '<CodigoSeguridadeCF>ABCDE</CodigoSeguridadeCF>',
          ),
      });
      assertRejected(await send(rfce), 1002, /RFCE-32.*CodigoSeguridadeCF/, false);
    });

    it('a signature that does not verify, then the same e-NCF once fixed', async () => {
      const rfce = signedRfce(signedEcf('32', 5));
      assertRejected(
        await send({ ...rfce, xml: rfce.xml.replace('<TipoPago>1</TipoPago>', '<TipoPago>2</TipoPago>') }),
        1003,
        /Firma digital o certificado no válido/,
        false,
      );
      assert.equal((await send(rfce)).body.codigo, 1);
    });

    it('a signer not delegated, an unknown issuer, an e-NCF not authorised', async () => {
      assertRejected(
        await send(signedRfce(signedEcf('32', 6), { key: strangerKey() })),
        1004,
        /no está delegado/,
        false,
      );
      const unknown = fictitiousRnc('13111111');
      assertRejected(await send(signedRfce(signedEcf('32', 6, { rnc: unknown }))), 1006, /no existe/, false);
      assertRejected(await send(signedRfce(signedEcf('32', 5000))), 1010, /no está autorizado/, false);
    });

    it('an injected rejection (fault reject)', async () => {
      await running.admin('POST', '/faults', { service: 'recepcionfc', mode: 'reject', count: 1 });
      const rfce = signedRfce(signedEcf('32', 7));
      assertRejected(await send(rfce), 1099, /Rechazo inyectado/, false);
      assert.equal((await send(rfce)).body.codigo, 1);
    });
  });

  describe('rejects burning the e-NCF (secuenciaUtilizada true)', () => {
    it('an e-NCF already used', async () => {
      const rfce = signedRfce(signedEcf('32', 8));
      assert.equal((await send(rfce)).body.codigo, 1);
      assertRejected(await send(rfce), 1012, /ya fue utilizado/, true);
      // The accepted summary stays the one on record.
      assert.equal(
        ((await consulta(issuerRnc, rfce.encf, rfce.codigoSeguridad)).body as { codigo: string }).codigo,
        '1',
      );
    });

    it('a MontoTotal of DOP 250,000.00 or more', async () => {
      const rfce = signedRfce(signedEcf('32', 9), {
        edit: (xml) => xml.replace('<MontoTotal>1430.00</MontoTotal>', '<MontoTotal>250000.00</MontoTotal>'),
      });
      assertRejected(await send(rfce), 1017, /MontoTotal menor a RD\$250000\.00/, true);
    });
  });

  it('accept_then_lose: Aceptado, then consultarfce does not find it', async () => {
    await running.admin('POST', '/faults', { service: 'recepcionfc', mode: 'accept_then_lose', count: 1 });
    const rfce = signedRfce(signedEcf('32', 10));
    assert.equal((await send(rfce)).body.codigo, 1);
    assert.equal(((await consulta(issuerRnc, rfce.encf, rfce.codigoSeguridad)).body as { codigo: string }).codigo, '0');
    const arrivals = (await running.admin('GET', `/arrivals?encf=${rfce.encf}`)).body as { outcome: string }[];
    assert.deepEqual(
      arrivals.map((arrival) => arrival.outcome),
      ['lost'],
    );
  });

  it('consultarfce needs all three parameters', async () => {
    const missing = await getJson(running.url, `consultarfce/api/Consultas/Consulta?RNC_Emisor=${issuerRnc}`, token);
    assert.equal(missing.status, 400);
    assert.deepEqual(Object.keys((missing.body as { errors: object }).errors), ['ENCF', 'Cod_Seguridad_eCF']);
  });
});
