// DGII's e-CF reception as the sandbox emulates it, driven like a DGII client: a trackId at once, "En Proceso" until
// the processing delay has passed, then the verdict; every refusal rule with its code, estado, message and whether
// the e-NCF is burned; the faults a flaky DGII shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { certificateFingerprint } from '../../src/sandbox/index.js';
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';
import { fictitiousRnc } from '../support/ecf-documents.js';
import { authenticate, fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import {
  encabezadoOf,
  issuerRnc,
  largeConsumerInvoice,
  postDocument,
  registerIssuer,
  resultOf,
  sendEcf,
  signedEcf,
  signedRfce,
  strangerKey,
  type ResultBody,
  type SignedDocument,
} from '../support/sandbox-documents.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

const receptionPath = 'recepcion/api/facturaselectronicas';

describe('sandbox: e-CF reception (recepcion) and its verdicts', () => {
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  let running: RunningSandbox;
  let token: string;

  before(async () => {
    running = await startSandbox({ clock });
    await registerIssuer(running, issuerRnc);
    token = await authenticate(running.url, testSigningKey());
  });
  after(() => running.close());

  /** Sends, sees "En Proceso", lets the processing delay pass, and returns the verdict. */
  async function verdictOf(document: SignedDocument, sessionToken = token): Promise<ResultBody> {
    const trackId = await sendEcf(running.url, sessionToken, document);
    const pending = await resultOf(running.url, sessionToken, trackId);
    assert.deepEqual(
      { codigo: pending.codigo, estado: pending.estado, mensajes: pending.mensajes },
      { codigo: '3', estado: 'En Proceso', mensajes: [] },
    );
    clock.advance(1_000);
    const result = await resultOf(running.url, sessionToken, trackId);
    assert.equal(result.trackId, trackId);
    return result;
  }

  function assertRejected(result: ResultBody, codigo: number, message: RegExp, secuenciaUtilizada: boolean): void {
    assert.equal(result.codigo, '2');
    assert.equal(result.estado, 'Rechazado');
    assert.equal(result.secuenciaUtilizada, secuenciaUtilizada);
    assert.equal(result.mensajes.at(0)?.codigo, codigo, JSON.stringify(result.mensajes));
    assert.match(result.mensajes.at(0)?.valor ?? '', message);
  }

  describe('accepts a signed document of every type that goes to reception, after En Proceso', () => {
    // 31 first, with sequence 7: the notes 33 and 34 of the fixtures modify E310000000007.
    const cases: [EcfType, number, string][] = [
      ['31', 7, '31'],
      ['33', 1, '33'],
      ['34', 1, '34'],
      ['41', 1, '41'],
      ['43', 1, '43'],
      ['44', 1, '44'],
      ['45', 1, '45'],
      ['46', 1, '46'],
      ['47', 1, '47'],
      ['32', 1, '32 of DOP 300,000.00'],
    ];
    for (const [type, sequence, label] of cases) {
      it(`type ${label}`, async () => {
        const document = signedEcf(type, sequence, type === '32' ? { change: largeConsumerInvoice } : {});
        const result = await verdictOf(document);
        assert.deepEqual(
          {
            codigo: result.codigo,
            estado: result.estado,
            rnc: result.rnc,
            encf: result.encf,
            secuenciaUtilizada: result.secuenciaUtilizada,
            mensajes: result.mensajes,
          },
          {
            codigo: '1',
            estado: 'Aceptado',
            rnc: issuerRnc,
            encf: document.encf,
            secuenciaUtilizada: true,
            mensajes: [],
          },
        );
        assert.equal(result.fechaRecepcion?.startsWith('11/21/2026 10:00:'), true, result.fechaRecepcion ?? '');
      });
    }
  });

  it('accepts a document indented after signing, reading it as DGII does (whitespace-only text removed)', async () => {
    const signed = signedEcf('31', 21);
    const indented = { ...signed, xml: signed.xml.replace(/></g, '>\r\n  <') };
    assert.notEqual(indented.xml, signed.xml);
    assert.equal((await verdictOf(indented)).codigo, '1');
  });

  it('refuses a document of another kind (an RFCE) sent to e-CF reception, without a trackId', async () => {
    const { status, body } = await postDocument(
      running.url,
      receptionPath,
      token,
      '<RFCE><Encabezado/></RFCE>',
      'x.xml',
    );
    assert.equal(status, 400);
    assert.equal((body as { mensaje: string }).mensaje, 'El elemento raíz del documento debe ser ECF.');
  });

  it('answers Aceptado Condicional (4) for totals beyond DGII tolerance', async () => {
    const document = signedEcf('31', 20, {
      change: (json) => void (child(encabezadoOf(json), 'Totales')['MontoTotal'] = '1450.00'),
    });
    const result = await verdictOf(document);
    assert.equal(result.codigo, '4');
    assert.equal(result.estado, 'Aceptado Condicional');
    assert.equal(result.secuenciaUtilizada, true);
    assert.ok(result.mensajes.length > 0);
    assert.equal(result.mensajes.at(0)?.codigo, 1014);
    assert.match(result.mensajes.at(0)?.valor ?? '', /^Observación en \/Encabezado\/Totales/);
  });

  describe('refuses on arrival what DGII cannot take, without a trackId', () => {
    it('no bearer token: 401', async () => {
      const document = signedEcf('31', 30);
      const { status } = await postDocument(running.url, receptionPath, undefined, document.xml, document.filename);
      assert.equal(status, 401);
    });

    it('a file name that is not RNCEmisor + eNCF + .xml', async () => {
      const document = signedEcf('31', 31);
      const { status, body } = await postDocument(
        running.url,
        receptionPath,
        token,
        document.xml,
        `${issuerRnc}E310000000099.xml`,
      );
      assert.equal(status, 400);
      assert.match((body as { mensaje: string }).mensaje, /El nombre del archivo .* no corresponde al documento/);
    });

    it('XML that is not well-formed, or has a DOCTYPE', async () => {
      const broken = await postDocument(running.url, receptionPath, token, '<ECF><Encabezado>', 'x.xml');
      assert.equal(broken.status, 400);
      assert.match((broken.body as { mensaje: string }).mensaje, /no es un XML válido/);
      const doctype = await postDocument(
        running.url,
        receptionPath,
        token,
        '<!DOCTYPE ECF [<!ENTITY a "b">]><ECF/>',
        'x.xml',
      );
      assert.equal(doctype.status, 400);
    });
  });

  describe('rejects, leaving the e-NCF usable (secuenciaUtilizada false)', () => {
    it('a document the XSD refuses', async () => {
      const document = signedEcf('31', 40, {
        edit: (xml) => xml.replace('<Version>1.0</Version>', '<Version>2.0</Version>'),
      });
      assertRejected(await verdictOf(document), 1002, /Estructura del XML no válida según el XSD e-CF-31/, false);
    });

    it('a signature that does not verify (changed after signing), then takes the same e-NCF once fixed', async () => {
      const good = signedEcf('31', 41);
      const tampered = { ...good, xml: good.xml.replace('Av. 27 de Febrero', 'Av. 30 de Marzo') };
      assertRejected(await verdictOf(tampered), 1003, /Firma digital o certificado no válido/, false);
      const result = await verdictOf(good);
      assert.equal(result.codigo, '1');
    });

    it('a signer whose certificate is not delegated for the issuer', async () => {
      assertRejected(
        await verdictOf(signedEcf('31', 42, { key: strangerKey() })),
        1004,
        /certificado que firmó el documento no está delegado para el RNC/,
        false,
      );
    });

    it('a session whose certificate is not delegated for the issuer (which then cannot see the result either)', async () => {
      const stranger = strangerKey();
      await running.admin('POST', '/taxpayers', {
        rnc: fictitiousRnc('13077777'),
        name: 'OTRO EMISOR SRL',
        certificates: [certificateFingerprint(stranger.certificatePem)],
      });
      const strangerToken = await authenticate(running.url, stranger);
      const document = signedEcf('31', 43);
      const trackId = await sendEcf(running.url, strangerToken, document);
      clock.advance(1_000);
      assert.equal((await resultOf(running.url, strangerToken, trackId)).codigo, '0');
      assertRejected(await resultOf(running.url, token, trackId), 1005, /usuario autenticado no está delegado/, false);
    });

    it('an issuer that does not exist, is inactive or is not electronic', async () => {
      const unknown = fictitiousRnc('13111111');
      // Nobody is delegated for an RNC that does not exist, so no session sees the verdict: the admin log does.
      const trackId = await sendEcf(running.url, token, signedEcf('31', 1, { rnc: unknown }));
      clock.advance(1_000);
      assert.equal((await resultOf(running.url, token, trackId)).codigo, '0');
      const stored = (await running.admin('GET', `/documents?rnc=${unknown}`)).body as {
        track_id: string;
        outcome: number;
        secuencia_utilizada: boolean;
        messages: { valor: string; codigo: number }[];
      }[];
      assert.deepEqual(
        stored.map((row) => [row.track_id, row.outcome, row.secuencia_utilizada, row.messages]),
        [[trackId, 2, false, [{ valor: `El RNC emisor ${unknown} no existe.`, codigo: 1006 }]]],
      );
      const inactive = fictitiousRnc('13122222');
      await registerIssuer(running, inactive);
      await running.admin('POST', '/taxpayers', { rnc: inactive, name: 'INACTIVO SRL', active: false });
      assertRejected(await verdictOf(signedEcf('31', 1, { rnc: inactive })), 1007, /no está activo/, false);
      const paper = fictitiousRnc('13133333');
      await registerIssuer(running, paper);
      await running.admin('POST', '/taxpayers', { rnc: paper, name: 'SOLO PAPEL SRL', electronic: false });
      assertRejected(
        await verdictOf(signedEcf('31', 1, { rnc: paper })),
        1008,
        /no está autorizado como emisor electrónico/,
        false,
      );
    });

    it('an e-NCF of another type than TipoeCF', async () => {
      const built = signedEcf('31', 44, {
        edit: (xml) => xml.replace('<eNCF>E310000000044</eNCF>', '<eNCF>E330000000044</eNCF>'),
      });
      const document = { ...built, encf: 'E330000000044', filename: `${issuerRnc}E330000000044.xml` };
      assertRejected(await verdictOf(document), 1009, /no corresponde al TipoeCF 31/, false);
    });

    it('an e-NCF outside every range authorised to the issuer', async () => {
      assertRejected(
        await verdictOf(signedEcf('31', 5000)),
        1010,
        /E310000005000 no está autorizado para el RNC/,
        false,
      );
    });

    it('an e-NCF whose range expired (by the date in GMT-4)', async () => {
      const expired = fictitiousRnc('13144444');
      // 2026-11-20 ended at 04:00Z on the 21st; the clock is 10:00 GMT-4 on the 21st.
      await registerIssuer(running, expired, { expiresOn: '2026-11-20' });
      assertRejected(await verdictOf(signedEcf('31', 1, { rnc: expired })), 1011, /está vencido/, false);
      const lastDay = fictitiousRnc('13155555');
      await registerIssuer(running, lastDay, { expiresOn: '2026-11-21' });
      assert.equal((await verdictOf(signedEcf('31', 1, { rnc: lastDay }))).codigo, '1');
    });

    it('an injected rejection (fault reject)', async () => {
      await running.admin('POST', '/faults', { service: 'recepcion', mode: 'reject', count: 1 });
      const document = signedEcf('31', 45);
      assertRejected(await verdictOf(document), 1099, /Rechazo inyectado/, false);
      assert.equal((await verdictOf(document)).codigo, '1');
    });
  });

  describe('rejects on content, burning the e-NCF (secuenciaUtilizada true)', () => {
    it('an e-NCF already used: the second copy is refused and the first stays on record', async () => {
      const document = signedEcf('31', 50);
      assert.equal((await verdictOf(document)).codigo, '1');
      assertRejected(await verdictOf(document), 1012, /E310000000050 ya fue utilizado/, true);
    });

    it('a document breaking a fiscal rule', async () => {
      const document = signedEcf('31', 51, {
        change: (json) => void (child(encabezadoOf(json), 'Emisor')['FechaEmision'] = '30-11-2026'),
      });
      assertRejected(
        await verdictOf(document),
        1013,
        /^Error de validación en \/Encabezado\/Emisor\/FechaEmision \(date_in_future\)/,
        true,
      );
      assertRejected(await verdictOf(signedEcf('31', 51)), 1012, /ya fue utilizado/, true);
    });

    it('a note modifying an e-NCF never accepted here (the same note over an accepted one passes above)', async () => {
      const document = signedEcf('34', 2, {
        change: (json) => void (child(json, 'InformacionReferencia')['NCFModificado'] = 'E310000000999'),
      });
      assertRejected(
        await verdictOf(document),
        1015,
        /NCFModificado E310000000999 no corresponde a un e-CF aceptado/,
        true,
      );
    });

    it('a type 32 under DOP 250,000.00, which must go as an RFCE', async () => {
      assertRejected(await verdictOf(signedEcf('32', 2)), 1016, /se envía como Resumen \(RFCE\)/, true);
    });
  });

  describe('faults and the arrivals log', () => {
    it('accept_then_lose: a trackId, then No encontrado; logged as lost', async () => {
      await running.admin('POST', '/faults', { service: 'recepcion', mode: 'accept_then_lose', count: 1 });
      const document = signedEcf('31', 60);
      const trackId = await sendEcf(running.url, token, document);
      clock.advance(1_000);
      const result = await resultOf(running.url, token, trackId);
      assert.deepEqual({ codigo: result.codigo, estado: result.estado }, { codigo: '0', estado: 'No encontrado' });
      // The e-NCF was never burned: sending it again is accepted.
      assert.equal((await verdictOf(document)).codigo, '1');
      const arrivals = (await running.admin('GET', `/arrivals?encf=${document.encf}`)).body as {
        outcome: string;
        track_id: string | null;
        service: string;
      }[];
      assert.deepEqual(
        arrivals.map((arrival) => [arrival.service, arrival.outcome]),
        [
          ['recepcion', 'lost'],
          ['recepcion', 'accepted'],
        ],
      );
      assert.equal(arrivals[0]?.track_id, trackId);
    });

    it('counts every arrival, refusals included', async () => {
      const document = signedEcf('31', 61);
      await postDocument(running.url, receptionPath, token, document.xml, `${issuerRnc}E310000000062.xml`);
      await sendEcf(running.url, token, document);
      await sendEcf(running.url, token, document);
      const arrivals = (await running.admin('GET', `/arrivals?encf=${document.encf}`)).body as { outcome: string }[];
      assert.deepEqual(
        arrivals.map((arrival) => arrival.outcome),
        ['refused:filename', 'accepted', 'accepted'],
      );
    });

    it('an unknown trackId is No encontrado', async () => {
      const result = await resultOf(running.url, token, '00000000-0000-0000-0000-000000000000');
      assert.deepEqual(
        { codigo: result.codigo, estado: result.estado, mensajes: result.mensajes },
        { codigo: '0', estado: 'No encontrado', mensajes: [] },
      );
    });
  });
});

function child(parent: Record<string, unknown>, name: string): Record<string, unknown> {
  return parent[name] as Record<string, unknown>;
}

describe('sandbox: reception without DGII XSDs (checked against the e-CF model)', () => {
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  let running: RunningSandbox;
  let token: string;

  before(async () => {
    running = await startSandbox({ clock, withoutSchemas: true });
    await running.admin('PUT', '/settings', { processingDelayMs: 0 });
    await registerIssuer(running, issuerRnc);
    token = await authenticate(running.url, testSigningKey());
  });
  after(() => running.close());

  it('accepts a sound e-CF and an RFCE at once (no processing delay)', async () => {
    const trackId = await sendEcf(running.url, token, signedEcf('31', 1));
    assert.equal((await resultOf(running.url, token, trackId)).codigo, '1');
    const rfce = signedRfce(signedEcf('32', 1));
    const answer = await postDocument(running.url, 'recepcionfc/api/recepcion/ecf', token, rfce.xml, rfce.filename);
    assert.equal((answer.body as { codigo: number }).codigo, 1);
  });

  it('rejects a structure the model refuses, leaving the e-NCF usable', async () => {
    const document = signedEcf('31', 2, {
      edit: (xml) => xml.replace(/<RazonSocialEmisor>.*?<\/RazonSocialEmisor>/, ''),
    });
    const result = await resultOf(running.url, token, await sendEcf(running.url, token, document));
    assert.equal(result.codigo, '2');
    assert.equal(result.secuenciaUtilizada, false);
    assert.equal(result.mensajes.at(0)?.codigo, 1002);
    assert.match(result.mensajes.at(0)?.valor ?? '', /RazonSocialEmisor/);
  });
});
