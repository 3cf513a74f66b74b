// DGII's range annulment (ANECF, anularrango) as the sandbox emulates it: unused numbers voided, used ones refused
// and listed ("con excepción…"), and every rule DGII checks before voiding, each with DGII's answer shape.
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatDgiiTimestamp } from '../../src/fiscal/dates.js';
import { buildAnecf, type AnnulmentLine } from '../../src/fiscal/responses/anecf.js';
import { signXml, type SigningKey } from '../../src/fiscal/xmldsig/index.js';
import { createSelfSignedP12 } from '../../src/platform/crypto/test-certificate.js';
import { issuerRnc } from '../support/ecf-documents.js';
import { authenticate, fixedClock, startSandbox, xmlForm, type RunningSandbox } from '../support/sandbox-kit.js';
import { resultOf, sendEcf, signedEcf } from '../support/sandbox-documents.js';
import { storeJudgedDocument } from '../support/sandbox-state.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

const path = '/testecf/anulacionrangos/api/operaciones/anularrango';
const dgii = {
  exceptions: 'Las secuencias fueron anuladas correctamente. Con excepción de las secuencias del detalle',
  allUsed: 'Las secuencias que está intentando anular han sido utilizadas',
  lineNotSequential: 'El campo NoLinea no es válido, no cumple orden secuencial.',
  couldNotVoid: 'No fue posible anular las siguientes secuencias',
  descending: 'El valor del campo SecuenciaeNCFDesde es mayor al del campo SecuenciaeNCFHasta',
  invalidType: 'El tipo de comprobante no es válido',
};

interface AnnulmentAnswer {
  rnc: string;
  codigo: string;
  nombre: string;
  mensajes: string[];
}

const encf = (type: string, sequence: number) => `E${type}${String(sequence).padStart(10, '0')}`;
const range = (type: string, from: number, to: number) => ({
  SecuenciaeNCFDesde: encf(type, from),
  SecuenciaeNCFHasta: encf(type, to),
});

describe('sandbox: range annulment (anulacionrangos)', () => {
  let running: RunningSandbox;
  let token: string;
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  const key = testSigningKey();

  before(async () => {
    running = await startSandbox({ clock });
    assert.equal(
      (
        await running.admin('POST', '/taxpayers', {
          rnc: issuerRnc,
          name: 'EMISOR DE PRUEBA SRL',
          certificates: [key.certificatePem],
        })
      ).status,
      201,
    );
    for (const type of ['31', '32', '34']) {
      assert.equal(
        (
          await running.admin('POST', `/taxpayers/${issuerRnc}/ranges`, {
            environment: 'testecf',
            type,
            from: 1,
            to: 1000,
          })
        ).status,
        201,
      );
    }
    token = await authenticate(running.url, key);
  });
  after(() => running.close());

  function anecfXml(lines: AnnulmentLine[], rnc = issuerRnc): string {
    const built = buildAnecf({ RncEmisor: rnc, FechaHoraAnulacioneNCF: formatDgiiTimestamp(clock.now()), lines });
    assert.ok(built.ok);
    return built.xml;
  }

  async function send(xml: string, options: { token?: string | undefined; signer?: SigningKey; raw?: boolean } = {}) {
    const body = options.raw === true ? xml : signXml(xml, options.signer ?? key);
    const bearer = 'token' in options ? options.token : token;
    const response = await fetch(`${running.url}${path}`, {
      method: 'POST',
      body: xmlForm(body, 'anulacion.xml'),
      headers: bearer === undefined ? {} : { authorization: `bearer ${bearer}` },
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as AnnulmentAnswer };
  }

  /** The voided spans that touch from..to, as [first, last]. */
  async function voided(from: number, to: number, type = '31') {
    const spans = await running.sandbox.context.db
      .selectFrom('sandbox_voided_spans')
      .select(['first_sequence', 'last_sequence'])
      .where('rnc', '=', issuerRnc)
      .where('type', '=', type)
      .where('first_sequence', '<=', to)
      .where('last_sequence', '>=', from)
      .orderBy('first_sequence')
      .execute();
    return spans.map((span) => [span.first_sequence, span.last_sequence]);
  }

  /** The documents' uses of from..to, as [e-NCF, channel]. */
  async function uses(from: number, to: number, type = '31') {
    const rows = await running.sandbox.context.db
      .selectFrom('sandbox_sequence_uses')
      .select(['encf', 'used_by'])
      .where('rnc', '=', issuerRnc)
      .where('encf', '>=', encf(type, from))
      .where('encf', '<=', encf(type, to))
      .orderBy('encf')
      .execute();
    return rows.map((row) => [row.encf, row.used_by]);
  }

  it('voids unused numbers, counted inclusively (1–1 and 5–50 are 47), in several types at once', async () => {
    const { status, body } = await send(
      anecfXml([
        { TipoeCF: '31', ranges: [range('31', 1, 1), range('31', 5, 50)] },
        { TipoeCF: '34', ranges: [range('34', 7, 9)] },
      ]),
    );
    assert.equal(status, 200);
    assert.deepEqual(body, {
      rnc: issuerRnc,
      codigo: '01',
      nombre: 'Anulación procesada',
      mensajes: ['Las secuencias fueron anuladas correctamente (50).'],
    });
    assert.deepEqual(await voided(1, 50), [
      [1, 1],
      [5, 50],
    ]);
    assert.deepEqual(await voided(1, 1000, '34'), [[7, 9]]);
    const stamps = await running.sandbox.context.db
      .selectFrom('sandbox_voided_spans')
      .select('voided_at')
      .where('rnc', '=', issuerRnc)
      .execute();
    assert.deepEqual(
      stamps.map((span) => span.voided_at.getTime()),
      [clock.now().getTime(), clock.now().getTime(), clock.now().getTime()],
    );
    const arrivals = (await running.admin('GET', `/arrivals?service=anulacionrangos&rnc=${issuerRnc}`)).body as {
      outcome: string;
      environment: string;
    }[];
    assert.deepEqual(arrivals.at(-1), { ...arrivals.at(-1), outcome: 'voided:50', environment: 'testecf' });
  });

  it('voids the unused numbers and lists the used ones: DGII\'s "anuladas correctamente con excepción"', async () => {
    await storeJudgedDocument(running, { type: '31', sequence: 60 });
    await storeJudgedDocument(running, { type: '31', sequence: 61, outcome: 4 });
    const { status, body } = await send(anecfXml([{ TipoeCF: '31', ranges: [range('31', 55, 65)] }]));
    assert.equal(status, 200);
    assert.deepEqual(body, {
      rnc: issuerRnc,
      codigo: '02',
      nombre: 'Anulación procesada con excepciones',
      mensajes: [dgii.exceptions, 'E310000000060 - E310000000061: utilizada'],
    });
    assert.deepEqual(await voided(55, 65), [
      [55, 59],
      [62, 65],
    ]);
    assert.deepEqual(await uses(55, 65), [
      ['E310000000060', 'ecf'],
      ['E310000000061', 'ecf'],
    ]);
  });

  it('refuses numbers already used (an RFCE counts: type 32 is checked in both channels), and numbers already voided', async () => {
    await storeJudgedDocument(running, { type: '32', sequence: 3, channel: 'rfce' });
    const used = await send(anecfXml([{ TipoeCF: '32', ranges: [range('32', 3, 3)] }]));
    assert.equal(used.status, 400);
    assert.deepEqual(used.body, {
      rnc: issuerRnc,
      codigo: '03',
      nombre: 'Anulación rechazada',
      mensajes: [dgii.allUsed, 'E320000000003: utilizada'],
    });
    const again = await send(anecfXml([{ TipoeCF: '31', ranges: [range('31', 5, 6)] }]));
    assert.equal(again.status, 400);
    assert.deepEqual(again.body.mensajes, [dgii.allUsed, 'E310000000005 - E310000000006: ya anulada']);
  });

  it('voids the longest span the format carries (9,999,999,999 numbers) at once; reception then refuses its numbers', async () => {
    const added = await running.admin('POST', `/taxpayers/${issuerRnc}/ranges`, {
      environment: 'testecf',
      type: '41',
      from: 1,
      to: 9_999_999_999,
      expiresOn: '2027-12-31',
    });
    assert.equal(added.status, 201);
    await storeJudgedDocument(running, { type: '41', sequence: 5_000_000_000 });
    const whole = anecfXml([{ TipoeCF: '41', ranges: [range('41', 1, 9_999_999_999)] }]);
    assert.match(whole, /<CantidadeNCFAnulados>9999999999<\/CantidadeNCFAnulados>/);
    const { status, body } = await send(whole);
    assert.equal(status, 200);
    assert.deepEqual(body, {
      rnc: issuerRnc,
      codigo: '02',
      nombre: 'Anulación procesada con excepciones',
      mensajes: [dgii.exceptions, 'E415000000000: utilizada'],
    });
    assert.deepEqual(await voided(1, 9_999_999_999, '41'), [
      [1, 4_999_999_999],
      [5_000_000_001, 9_999_999_999],
    ]);
    const arrivals = (await running.admin('GET', `/arrivals?service=anulacionrangos&rnc=${issuerRnc}`)).body as {
      outcome: string;
    }[];
    assert.equal(arrivals.at(-1)?.outcome, 'voided:9999999998/9999999999');

    const again = await send(whole);
    assert.equal(again.status, 400);
    assert.deepEqual(again.body.mensajes, [
      dgii.allUsed,
      'E410000000001 - E414999999999: ya anulada',
      'E415000000000: utilizada',
      'E415000000001 - E419999999999: ya anulada',
    ]);

    for (const sequence of [1, 7_654_321_098, 9_999_999_999]) {
      const trackId = await sendEcf(running.url, token, signedEcf('41', sequence));
      clock.advance(1_000);
      const result = await resultOf(running.url, token, trackId);
      assert.deepEqual(
        { estado: result.estado, secuenciaUtilizada: result.secuenciaUtilizada, valor: result.mensajes[0]?.valor },
        { estado: 'Rechazado', secuenciaUtilizada: true, valor: `El e-NCF ${encf('41', sequence)} ya fue utilizado.` },
      );
    }
  });

  it("refuses numbers outside the taxpayer's authorised ranges, voiding none of the request", async () => {
    const { status, body } = await send(
      anecfXml([
        { TipoeCF: '31', ranges: [range('31', 900, 1002)] },
        { TipoeCF: '33', ranges: [range('33', 1, 1)] },
      ]),
    );
    assert.equal(status, 400);
    assert.deepEqual(body, {
      rnc: issuerRnc,
      codigo: '03',
      nombre: 'Anulación rechazada',
      mensajes: [
        dgii.couldNotVoid,
        `E310000001001 - E310000001002: no autorizada al RNC ${issuerRnc}`,
        `E330000000001: no autorizada al RNC ${issuerRnc}`,
      ],
    });
    assert.equal((await voided(900, 1000)).length, 0);
  });

  it('refuses NoLinea out of order', async () => {
    const xml = anecfXml([
      { TipoeCF: '31', ranges: [range('31', 100, 100)] },
      { TipoeCF: '34', ranges: [range('34', 100, 100)] },
    ]).replace('<NoLinea>2</NoLinea>', '<NoLinea>3</NoLinea>');
    const { status, body } = await send(xml);
    assert.equal(status, 400);
    assert.deepEqual(body, {
      rnc: issuerRnc,
      codigo: '03',
      nombre: 'Anulación rechazada',
      mensajes: [dgii.lineNotSequential],
    });
  });

  it('refuses a range whose Desde is above its Hasta', async () => {
    const xml = anecfXml([{ TipoeCF: '31', ranges: [range('31', 100, 104)] }])
      .replace('<SecuenciaeNCFDesde>E310000000100<', '<SecuenciaeNCFDesde>E310000000105<')
      .replace('<CantidadeNCFAnulados>5</CantidadeNCFAnulados>', '<CantidadeNCFAnulados>0</CantidadeNCFAnulados>');
    const { status, body } = await send(xml);
    assert.equal(status, 400);
    assert.equal(body.codigo, '03');
    assert.deepEqual(body.mensajes, [`${dgii.descending} (línea 1: E310000000105 - E310000000104).`]);
  });

  it('refuses a range of another type than its block, and a type in two blocks', async () => {
    const wrongType = anecfXml([{ TipoeCF: '34', ranges: [range('34', 100, 100)] }]).replace(
      '<TipoeCF>34</TipoeCF>',
      '<TipoeCF>31</TipoeCF>',
    );
    const mismatch = await send(wrongType);
    assert.equal(mismatch.status, 400);
    assert.deepEqual(mismatch.body.mensajes.slice(0, 1), [
      `${dgii.invalidType}: las secuencias no son del tipo 31 de la línea (línea 1: E340000000100 - E340000000100).`,
    ]);
    const twice = anecfXml([
      { TipoeCF: '31', ranges: [range('31', 100, 100)] },
      { TipoeCF: '34', ranges: [range('34', 101, 101)] },
    ])
      .replaceAll('E34', 'E31')
      .replace('<TipoeCF>34</TipoeCF>', '<TipoeCF>31</TipoeCF>');
    const duplicate = await send(twice);
    assert.equal(duplicate.status, 400);
    assert.deepEqual(duplicate.body.mensajes, [
      'El tipo de comprobante 31 aparece en más de una línea; cada tipo se anula en una sola línea.',
    ]);
  });

  it('refuses counts that do not add up, per block and in the header', async () => {
    const xml = anecfXml([
      { TipoeCF: '31', ranges: [range('31', 100, 104)] },
      { TipoeCF: '34', ranges: [range('34', 100, 100)] },
    ])
      .replace('<CantidadeNCFAnulados>5</CantidadeNCFAnulados>', '<CantidadeNCFAnulados>4</CantidadeNCFAnulados>')
      .replace('<CantidadeNCFAnulados>6</CantidadeNCFAnulados>', '<CantidadeNCFAnulados>7</CantidadeNCFAnulados>');
    const { status, body } = await send(xml);
    assert.equal(status, 400);
    assert.deepEqual(body.mensajes, [
      'El campo CantidadeNCFAnulados de la línea 1 (4) no corresponde con la cantidad de secuencias de sus rangos (5).',
      'El campo CantidadeNCFAnulados del encabezado (7) no corresponde con la suma de las líneas (6).',
    ]);
    assert.equal((await voided(100, 104)).length, 0);
  });

  it("refuses a certificate not delegated for the RncEmisor, in DGII's words", async () => {
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
      rnc: '130000014',
      name: 'OTRO EMISOR SRL',
      certificates: [stranger.certificatePem],
    });
    const strangerToken = await authenticate(running.url, strangerKey);
    const xml = anecfXml([{ TipoeCF: '31', ranges: [range('31', 200, 200)] }]);
    const bySession = await send(xml, { token: strangerToken });
    assert.equal(bySession.status, 400);
    assert.deepEqual(bySession.body, {
      rnc: issuerRnc,
      codigo: '03',
      nombre: 'Anulación rechazada',
      mensajes: [`El RNC del certificado no está delegado para realizar transacciones para el RNC: ${issuerRnc}`],
    });
    // A delegated session cannot send a document someone else signed either.
    assert.equal((await send(xml, { signer: strangerKey })).status, 400);
    assert.equal((await voided(200, 200)).length, 0);
  });

  it('refuses a taxpayer that is not a registered electronic taxpayer', async () => {
    const { status, body } = await send(anecfXml([{ TipoeCF: '31', ranges: [range('31', 1, 1)] }], '130000022'));
    assert.equal(status, 400);
    assert.deepEqual(body, {
      rnc: '130000022',
      codigo: '03',
      nombre: 'Anulación rechazada',
      mensajes: ['El RNC 130000022 no está registrado como contribuyente electrónico activo.'],
    });
  });

  it('refuses a signature that does not verify, a document that fails the XSD, and a file that is not XML', async () => {
    const tampered = signXml(anecfXml([{ TipoeCF: '31', ranges: [range('31', 300, 300)] }]), key).replace(
      'E310000000300</SecuenciaeNCFHasta>',
      'E310000000301</SecuenciaeNCFHasta>',
    );
    const badSignature = await send(tampered, { raw: true });
    assert.equal(badSignature.status, 400);
    assert.deepEqual(badSignature.body, {
      rnc: '',
      codigo: '03',
      nombre: 'Anulación rechazada',
      mensajes: ['La firma del documento no es válida'],
    });

    const badXsd = await send(
      anecfXml([{ TipoeCF: '31', ranges: [range('31', 300, 300)] }]).replace(
        '<Version>1.0</Version>',
        '<Version>1.00</Version>',
      ),
    );
    assert.equal(badXsd.status, 400);
    assert.match(
      badXsd.body.mensajes[0] ?? '',
      /^La estructura del archivo XML no es válida, favor proveer un XML con una estructura válida, verificar el XSD correspondiente\. \/ANECF\/Encabezado\/Version/,
    );

    const notXml = await send('esto no es XML', { raw: true });
    assert.equal(notXml.status, 400);
    assert.deepEqual(notXml.body.mensajes, ['Tipo de archivo no valido, favor proveer un XML']);
    assert.equal((await voided(300, 301)).length, 0);
  });

  it('answers 401 without a token, and logs the arrival', async () => {
    const before = ((await running.admin('GET', '/arrivals?service=anulacionrangos')).body as unknown[]).length;
    const { status, body } = await send(anecfXml([{ TipoeCF: '31', ranges: [range('31', 400, 400)] }]), {
      token: undefined,
    });
    assert.equal(status, 401);
    assert.equal(body, undefined);
    const arrivals = (await running.admin('GET', '/arrivals?service=anulacionrangos')).body as { outcome: string }[];
    assert.equal(arrivals.length, before + 1);
    assert.equal(arrivals.at(-1)?.outcome, 'refused:no_session');
  });

  it('answers in XML when asked, like DGII (RespuestaAnulacionRango)', async () => {
    const response = await fetch(`${running.url}${path}`, {
      method: 'POST',
      body: xmlForm(signXml(anecfXml([{ TipoeCF: '31', ranges: [range('31', 500, 500)] }]), key)),
      headers: { authorization: `bearer ${token}`, accept: 'application/xml' },
    });
    assert.equal(response.status, 200);
    assert.equal(
      await response.text(),
      `<?xml version="1.0" encoding="utf-8"?><RespuestaAnulacionRango><rnc>${issuerRnc}</rnc><codigo>01</codigo><nombre>Anulación procesada</nombre><mensajes>Las secuencias fueron anuladas correctamente (1).</mensajes></RespuestaAnulacionRango>`,
    );
  });

  it('acts out accept_then_lose: answers as if voided, keeps nothing', async () => {
    await running.admin('POST', '/faults', { service: 'anulacionrangos', mode: 'accept_then_lose', count: 1 });
    const { status, body } = await send(anecfXml([{ TipoeCF: '31', ranges: [range('31', 600, 609)] }]));
    assert.equal(status, 200);
    assert.equal(body.codigo, '01');
    assert.deepEqual(await voided(600, 609), []);
    const arrivals = (await running.admin('GET', '/arrivals?service=anulacionrangos')).body as { outcome: string }[];
    assert.equal(arrivals.at(-1)?.outcome, 'voided:10:lost');
    // The fault is spent: the same request voids for real now.
    assert.equal((await send(anecfXml([{ TipoeCF: '31', ranges: [range('31', 600, 609)] }]))).status, 200);
    assert.deepEqual(await voided(600, 609), [[600, 609]]);
  });
});
