// The counterpart taxpayer (DGII's emisorreceptor simulator), driven over HTTP: as a receiver (seed, token, e-CF in
// → signed ARECF, ACECF in → 200/400) and as the simulator's issuer and buyer, sending to a taxpayer's receiver
// started here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildEcf } from '../../src/fiscal/build/index.js';
import { buildAcecf } from '../../src/fiscal/responses/acecf.js';
import { groupsOf, parseEcf, parseXmlTree, textOf } from '../../src/fiscal/parse/index.js';
import { parseSemilla } from '../../src/fiscal/responses/semilla.js';
import { validateEcfDocument } from '../../src/fiscal/validate-ecf.js';
import { signCanonicalDocument, signXml, verifyEnvelopedSignature } from '../../src/fiscal/xmldsig/index.js';
import type { EcfType } from '../../src/fiscal/model/ecf-model-types.js';
import { ecfDocuments, issuerRnc, ownedFieldsFor } from '../support/ecf-documents.js';
import { fixedClock, startSandbox, xmlForm, type RunningSandbox } from '../support/sandbox-kit.js';
import { startTestReceiver, type TestReceiver } from '../support/sandbox-receiver.js';
import { testSigningKey, verifyWithXmlsec1 } from '../support/xmldsig-kit.js';
import { validateWithOfficialXsd } from '../support/xmllint.js';

const counterpartRnc = '999999907';
const receiverRnc = '131880738';

describe('sandbox: the counterpart taxpayer (emisorreceptor)', () => {
  let running: RunningSandbox;
  let receiver: TestReceiver;
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  const key = testSigningKey();
  let base: string;
  let nextSequence = 100;

  before(async () => {
    running = await startSandbox({ clock });
    receiver = await startTestReceiver({ rnc: receiverRnc, key });
    base = `${running.url}/testecf/emisorreceptor`;
    assert.equal(
      (
        await running.admin('POST', '/taxpayers', {
          rnc: receiverRnc,
          name: 'RECEPTOR DE PRUEBA SRL',
          certificates: [key.certificatePem],
        })
      ).status,
      201,
    );
  });
  after(async () => {
    await receiver.close();
    await running.close();
  });

  /** A signed e-CF of the fiscal fixtures, from their issuer to `buyer`, with a fresh e-NCF. */
  function ecfTo(buyer: string, type: EcfType = '31'): { xml: string; encf: string } {
    const document = structuredClone(ecfDocuments[type]) as { Encabezado: { Comprador: Record<string, unknown> } };
    document.Encabezado.Comprador['RNCComprador'] = buyer;
    const encf = `E${type}${String(nextSequence++).padStart(10, '0')}`;
    const built = buildEcf(document, { ...ownedFieldsFor(type), eNCF: encf });
    assert.ok(built.ok, JSON.stringify(built));
    return { xml: signCanonicalDocument(built.xml, key), encf };
  }

  async function sendEcf(xml: string, filename = 'documento.xml', headers: Record<string, string> = {}) {
    const response = await fetch(`${base}/fe/recepcion/api/ecf`, {
      method: 'POST',
      body: xmlForm(xml, filename),
      headers,
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await response.text(),
    };
  }

  function arecfFields(xml: string): Record<string, string | undefined> {
    const parsed = parseXmlTree(xml);
    assert.ok(parsed.ok && parsed.root === 'ARECF');
    const detail = groupsOf(parsed.tree, 'DetalleAcusedeRecibo')[0] ?? {};
    return Object.fromEntries(
      ['RNCEmisor', 'RNCComprador', 'eNCF', 'Estado', 'CodigoMotivoNoRecibido', 'FechaHoraAcuseRecibo'].map((name) => [
        name,
        textOf(detail, name),
      ]),
    );
  }

  /** Every ARECF the counterpart answers is valid per DGII's XSD and signed with its key. */
  function assertSignedArecf(xml: string): void {
    const schema = validateWithOfficialXsd('ARECF.xsd', xml);
    assert.ok(schema.valid, schema.errors);
    const verified = verifyEnvelopedSignature(xml);
    assert.ok(verified.ok);
    assert.equal(
      verified.certificatePem.replace(/\s/g, ''),
      running.sandbox.context.counterpart.key.certificatePem.replace(/\s/g, ''),
    );
    const xmlsec = verifyWithXmlsec1(xml, running.sandbox.context.counterpart.key.certificatePem);
    assert.ok(xmlsec.ok, xmlsec.output);
  }

  async function counterpartToken(): Promise<string> {
    const seed = await (await fetch(`${base}/fe/autenticacion/api/semilla`)).text();
    const response = await fetch(`${base}/fe/autenticacion/api/validacioncertificado`, {
      method: 'POST',
      body: xmlForm(signXml(seed, key), 'semilla.xml'),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { token: string }).token;
  }

  describe('as a receiver', () => {
    it('serves a SemillaModel seed and trades it, signed, for a token once', async () => {
      const seed = await (await fetch(`${running.url}/TesteCF/EmisorReceptor/fe/Autenticacion/api/Semilla`)).text();
      const parsed = parseSemilla(seed);
      assert.ok(parsed.ok);
      assert.equal(parsed.value.fecha, '2026-11-21T10:00:00.0000000-04:00');
      const signed = signXml(seed, key);
      const response = await fetch(`${base}/fe/autenticacion/api/validacioncertificado`, {
        method: 'POST',
        body: xmlForm(signed, 'semilla.xml'),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { token: string; expira: string; expedido: string };
      assert.equal(body.expedido, '2026-11-21T14:00:00Z');
      assert.equal(body.expira, '2026-11-21T15:00:00Z');
      assert.ok(body.token.length > 20);
      const again = await fetch(`${base}/fe/autenticacion/api/validacioncertificado`, {
        method: 'POST',
        body: xmlForm(signed, 'semilla.xml'),
      });
      assert.equal(again.status, 400);
      assert.match(((await again.json()) as { mensaje: string }).mensaje, /ya fue utilizada/);
    });

    it("keeps its seeds apart from DGII's: a counterpart seed does not open DGII's authentication", async () => {
      const seed = await (await fetch(`${base}/fe/autenticacion/api/semilla`)).text();
      const atDgii = await fetch(`${running.url}/testecf/autenticacion/api/autenticacion/validarsemilla`, {
        method: 'POST',
        body: xmlForm(signXml(seed, key), 'semilla.xml'),
      });
      assert.equal(atDgii.status, 400);
    });

    it('refuses a seed whose signature does not verify', async () => {
      const seed = await (await fetch(`${base}/fe/autenticacion/api/semilla`)).text();
      const forged = signXml(seed, key).replace(/<fecha>(\d)/, '<fecha>1');
      const response = await fetch(`${base}/fe/autenticacion/api/validacioncertificado`, {
        method: 'POST',
        body: xmlForm(forged, 'semilla.xml'),
      });
      assert.equal(response.status, 400);
      assert.match(((await response.json()) as { mensaje: string }).mensaje, /firma/);
    });

    it('acknowledges an e-CF addressed to it with a signed ARECF Estado 0', async () => {
      const { xml, encf } = ecfTo(counterpartRnc);
      const answer = await sendEcf(xml, `${issuerRnc}${encf}.xml`);
      assert.equal(answer.status, 200);
      assert.match(answer.contentType, /^application\/xml/);
      assert.deepEqual(arecfFields(answer.body), {
        RNCEmisor: issuerRnc,
        RNCComprador: counterpartRnc,
        eNCF: encf,
        Estado: '0',
        CodigoMotivoNoRecibido: undefined,
        FechaHoraAcuseRecibo: '21-11-2026 10:00:00',
      });
      assertSignedArecf(answer.body);
      const arrivals = (
        await running.sandbox.context.db
          .selectFrom('sandbox_arrivals')
          .selectAll()
          .where('service', '=', 'emisorreceptor')
          .where('encf', '=', encf)
          .execute()
      ).map((row) => row.outcome);
      assert.deepEqual(arrivals, ['received']);
    });

    it('takes a bearer token it issued, and refuses one it did not', async () => {
      const { xml, encf } = ecfTo(counterpartRnc);
      const accepted = await sendEcf(xml, 'x.xml', { authorization: `Bearer ${await counterpartToken()}` });
      assert.equal(arecfFields(accepted.body)['Estado'], '0');
      assert.equal(arecfFields(accepted.body)['eNCF'], encf);
      const refused = await sendEcf(ecfTo(counterpartRnc).xml, 'x.xml', { authorization: 'Bearer not-a-token' });
      assert.equal(refused.status, 401);
    });

    const notReceived: [string, () => { xml: string; filename?: string }, string, Record<string, string>?][] = [
      [
        'XML that is not well-formed',
        () => ({ xml: '<ECF><Encabezado>', filename: `${issuerRnc}E310000000555.xml` }),
        '1',
        { RNCEmisor: issuerRnc, eNCF: 'E310000000555' },
      ],
      [
        'a document that is not an e-CF',
        () => ({ xml: '<?xml version="1.0"?><Factura><Numero>1</Numero></Factura>' }),
        '1',
      ],
      [
        'an e-CF that breaks its XSD',
        () => {
          const { xml } = ecfTo(counterpartRnc);
          return {
            xml: xml.replace(/<FechaEmision>15-11-2026<\/FechaEmision>/, '<FechaEmision>2026-11-15</FechaEmision>'),
          };
        },
        '1',
      ],
      ['a type never sent to a receiver (41)', () => ecfTo(counterpartRnc, '41'), '1'],
      [
        'an e-CF whose signature does not verify',
        () => ({ xml: ecfTo(counterpartRnc).xml.replace('Martillo de carpintero', 'Martillo de carpintera') }),
        '2',
      ],
      ['an e-CF addressed to another buyer', () => ecfTo(receiverRnc), '4', { RNCComprador: counterpartRnc }],
    ];
    for (const [what, make, reason, expected] of notReceived) {
      it(`answers ARECF Estado 1 with reason ${reason} for ${what}`, async () => {
        const { xml, filename } = make();
        const answer = await sendEcf(xml, filename);
        assert.equal(answer.status, 200);
        const fields = arecfFields(answer.body);
        assert.equal(fields['Estado'], '1');
        assert.equal(fields['CodigoMotivoNoRecibido'], reason);
        for (const [name, value] of Object.entries(expected ?? {})) assert.equal(fields[name], value);
        assertSignedArecf(answer.body);
      });
    }

    it('answers ARECF Estado 1 with reason 3 for an e-CF sent twice', async () => {
      const { xml, encf } = ecfTo(counterpartRnc);
      assert.equal(arecfFields((await sendEcf(xml)).body)['Estado'], '0');
      const again = await sendEcf(xml);
      assert.deepEqual(
        [
          arecfFields(again.body)['Estado'],
          arecfFields(again.body)['CodigoMotivoNoRecibido'],
          arecfFields(again.body)['eNCF'],
        ],
        ['1', '3', encf],
      );
      assertSignedArecf(again.body);
    });
    it('acts out injected faults: "accept then lose" acknowledges without keeping it, "reject" refuses', async () => {
      const { xml, encf } = ecfTo(counterpartRnc);
      assert.equal(
        (await running.admin('POST', '/faults', { service: 'emisorreceptor', mode: 'accept_then_lose', count: 1 }))
          .status,
        201,
      );
      assert.equal(arecfFields((await sendEcf(xml)).body)['Estado'], '0');
      // Lost: the same e-CF again is received, not a duplicate.
      assert.equal(arecfFields((await sendEcf(xml)).body)['Estado'], '0');
      assert.equal(
        (await running.admin('POST', '/faults', { service: 'emisorreceptor', mode: 'reject', count: 1 })).status,
        201,
      );
      const rejected = arecfFields((await sendEcf(ecfTo(counterpartRnc).xml)).body);
      assert.deepEqual([rejected['Estado'], rejected['CodigoMotivoNoRecibido']], ['1', '1']);
      const arrivals = (await running.admin('GET', `/arrivals?service=emisorreceptor&encf=${encf}`)).body as {
        outcome: string;
      }[];
      assert.deepEqual(
        arrivals.map((row) => row.outcome),
        ['fault:accept_then_lose', 'received'],
      );
    });
  });

  describe('as the simulator: sending e-CFs to a taxpayer', () => {
    async function emit(body: Record<string, unknown>) {
      const response = await fetch(`${base}/api/emision/emisioncomprobantes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        body: (await response.json()) as {
          encf: string;
          estado: string;
          mensajes: string[];
          xml: string;
          mensaje?: string;
        },
      };
    }

    async function acknowledgement(encf: string, rnc = receiverRnc) {
      const response = await fetch(`${base}/api/emision/consultaacuserecibo?Rnc=${rnc}&Encf=${encf}`);
      return {
        status: response.status,
        body: (await response.json()) as { rnc: string; encf: string; estado: string; mensajes: string[] },
      };
    }

    for (const type of ['31', '33', '34', '44'] as const) {
      it(`sends a valid signed e-CF ${type} to the receiver, authenticating first, and records the valid ARECF`, async () => {
        receiver.arecfMode = 'good';
        const before = receiver.ecfs.length;
        const { status, body } = await emit({
          rnc: receiverRnc,
          tipoEncf: type,
          urlRecepcion: receiver.url,
          urlAutenticacion: receiver.url,
        });
        assert.equal(status, 200);
        assert.equal(body.estado, 'arecf_valid', body.mensajes.join(' | '));
        assert.match(body.encf, new RegExp(`^E${type}\\d{10}$`));
        assert.equal(receiver.ecfs.length, before + 1);
        const received = receiver.ecfs.at(-1);
        assert.ok(received !== undefined);
        assert.equal(received.filename, `${counterpartRnc}${body.encf}.xml`);
        assert.ok(Number(received.contentLength) > 0);
        assert.equal(received.authorization, `Bearer ${receiver.tokens.at(-1) ?? ''}`);
        assert.equal(received.xml, body.xml);
        const schema = validateWithOfficialXsd(`e-CF-${type}.xsd`, received.xml);
        assert.ok(schema.valid, schema.errors);
        const xmlsec = verifyWithXmlsec1(received.xml, running.sandbox.context.counterpart.key.certificatePem);
        assert.ok(xmlsec.ok, xmlsec.output);
        const parsed = parseEcf(received.xml);
        assert.ok(parsed.ok);
        const header = parsed.document['Encabezado'] as Record<string, Record<string, string>>;
        assert.deepEqual(
          [
            header['IdDoc']?.['TipoeCF'],
            header['IdDoc']?.['eNCF'],
            header['Emisor']?.['RNCEmisor'],
            header['Comprador']?.['RNCComprador'],
          ],
          [type, body.encf, counterpartRnc, receiverRnc],
        );
        assert.equal(header['Comprador']?.['RazonSocialComprador'], 'RECEPTOR DE PRUEBA SRL');
        // The fiscal rules and totals hold. The check is made for clients' requests, which leave out the fields a
        // service sets (e-NCF, its expiry, the signing time): taken out here too.
        const request = structuredClone(parsed.document) as {
          Encabezado: { IdDoc: Record<string, unknown> };
          FechaHoraFirma?: unknown;
        };
        delete request.Encabezado.IdDoc['eNCF'];
        delete request.Encabezado.IdDoc['FechaVencimientoSecuencia'];
        delete request.FechaHoraFirma;
        const validation = validateEcfDocument(request, { now: clock.now() });
        assert.deepEqual(
          validation.findings.filter((finding) => finding.severity === 'error'),
          [],
        );
        assert.deepEqual(
          validation.findings.filter((finding) => finding.severity === 'warning'),
          [],
        );
        const state = await acknowledgement(body.encf);
        assert.equal(state.status, 200);
        assert.deepEqual(state.body, {
          rnc: receiverRnc,
          encf: body.encf,
          estado: 'Acuse de recibo válido',
          mensajes: ['Estado 0: e-CF Recibido.'],
        });
      });
    }

    it("answers, like DGII's simulator, with the e-CF it sent when the client does not ask for JSON", async () => {
      const response = await fetch(`${base}/api/emision/emisioncomprobantes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rnc: receiverRnc, tipoEncf: '31', urlRecepcion: receiver.url }),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/xml/);
      assert.equal(await response.text(), receiver.ecfs.at(-1)?.xml);
    });

    it('takes the next e-NCF of its own sequence each time', async () => {
      const first = await emit({ rnc: receiverRnc, tipoEncf: '31', urlRecepcion: receiver.url });
      const second = await emit({ rnc: receiverRnc, tipoEncf: '31', urlRecepcion: receiver.url });
      assert.equal(Number(second.body.encf.slice(3)), Number(first.body.encf.slice(3)) + 1);
      assert.equal(receiver.ecfs.at(-1)?.authorization, undefined);
    });

    const badArecfs: [string, 'tampered' | 'wrong_encf' | 'not_xml', RegExp][] = [
      ['whose signature does not verify', 'tampered', /firma digital del acuse de recibo no es válida/],
      ['about another e-NCF', 'wrong_encf', /eNCF del acuse \(E310000009999\) no corresponde/],
      ['that is not XML', 'not_xml', /no es un acuse de recibo/],
    ];
    for (const [what, mode, message] of badArecfs) {
      it(`records an ARECF ${what} as invalid, with the reason`, async () => {
        receiver.arecfMode = mode;
        const { body } = await emit({ rnc: receiverRnc, tipoEncf: '31', urlRecepcion: receiver.url });
        receiver.arecfMode = 'good';
        assert.equal(body.estado, 'arecf_invalid');
        const state = await acknowledgement(body.encf);
        assert.equal(state.body.estado, 'Acuse de recibo inválido');
        assert.ok(
          state.body.mensajes.some((text) => message.test(text)),
          state.body.mensajes.join(' | '),
        );
      });
    }

    it('records a receiver that does not answer', async () => {
      const { body } = await emit({ rnc: receiverRnc, tipoEncf: '31', urlRecepcion: 'http://127.0.0.1:9' });
      assert.equal(body.estado, 'no_answer');
      const state = await acknowledgement(body.encf);
      assert.equal(state.body.estado, 'Sin respuesta del receptor');
      const exchanges = (await running.admin('GET', '/exchanges')).body as {
        encf: string;
        kind: string;
        target_url: string;
        state: string;
      }[];
      assert.deepEqual(
        exchanges.filter((row) => row.encf === body.encf).map((row) => [row.kind, row.target_url, row.state]),
        [['ecf', 'http://127.0.0.1:9/fe/recepcion/api/ecf', 'no_answer']],
      );
    });

    it("refuses the types a receiver never gets, and missing fields, in DGII's shape", async () => {
      const type32 = await emit({ rnc: receiverRnc, tipoEncf: '32', urlRecepcion: receiver.url });
      assert.equal(type32.status, 400);
      assert.match(type32.body.mensaje ?? '', /32, 41, 43, 45, 46 y 47 no aplican/);
      assert.equal((await emit({ rnc: receiverRnc, tipoEncf: '31' })).status, 400);
      assert.equal((await emit({ rnc: '12', tipoEncf: '31', urlRecepcion: receiver.url })).status, 400);
    });

    it('answers consultaacuserecibo with 404 for an e-NCF it never sent to that taxpayer', async () => {
      assert.equal((await acknowledgement('E310009999999')).status, 404);
    });

    it("receives the taxpayer's ACECF for an e-CF it issued: 200 when it matches, 400 with the reason when not", async () => {
      const { body: issued } = await emit({ rnc: receiverRnc, tipoEncf: '31', urlRecepcion: receiver.url });
      const approval = (changes: { MontoTotal?: string; eNCF?: string; RNCEmisor?: string } = {}) => {
        const built = buildAcecf({
          RNCEmisor: counterpartRnc,
          eNCF: issued.encf,
          FechaEmision: '21-11-2026',
          MontoTotal: '1430.00',
          RNCComprador: receiverRnc,
          Estado: '1',
          FechaHoraAprobacionComercial: '21-11-2026 10:05:00',
          ...changes,
        });
        assert.ok(built.ok);
        return signCanonicalDocument(built.xml, key);
      };
      const send = async (xml: string) => {
        const response = await fetch(`${base}/fe/aprobacioncomercial/api/ecf`, {
          method: 'POST',
          body: xmlForm(xml, `${receiverRnc}${issued.encf}.xml`),
        });
        return { status: response.status, text: await response.text() };
      };
      assert.equal((await send(approval())).status, 200);
      const arrivals = (await running.admin('GET', `/arrivals?service=emisorreceptor&encf=${issued.encf}`)).body as {
        outcome: string;
        rnc: string;
      }[];
      assert.deepEqual(
        arrivals.map((row) => [row.outcome, row.rnc]),
        [['approval:received', counterpartRnc]],
      );
      const refusals: [string, string, RegExp][] = [
        ['another amount', approval({ MontoTotal: '1000.00' }), /MontoTotal/],
        ['an e-NCF it did not issue', approval({ eNCF: 'E310000999999' }), /Factura no encontrada/],
        ['another issuer', approval({ RNCEmisor: receiverRnc }), /no corresponde a este receptor/],
        ['a broken signature', approval().replace('<Estado>1</Estado>', '<Estado>2</Estado>'), /firma/],
        ['no ACECF at all', '<?xml version="1.0"?><Otra/>', /no es una aprobación comercial/],
      ];
      for (const [what, xml, message] of refusals) {
        const answer = await send(xml);
        assert.equal(answer.status, 400, what);
        assert.match((JSON.parse(answer.text) as { mensaje: string }).mensaje, message, what);
      }
    });
  });

  describe('as the simulator: sending a commercial approval to a taxpayer', () => {
    async function taxpayerEcfAtDgii(encf: string): Promise<void> {
      // What DGII holds once the taxpayer's e-CF to the counterpart was accepted.
      const now = clock.now();
      await running.sandbox.context.db
        .insertInto('sandbox_documents')
        .values({
          track_id: `track-${encf}`,
          environment: 'testecf',
          channel: 'ecf',
          rnc_emisor: receiverRnc,
          encf,
          type: '31',
          received_at: now,
          ready_at: now,
          outcome: 1,
          secuencia_utilizada: true,
          messages: '[]',
          monto_total: '1430.00',
          total_itbis: '180.00',
          fecha_emision: '15-11-2026',
          fecha_firma: '15-11-2026 10:31:07',
          rnc_comprador: counterpartRnc,
          id_extranjero: null,
          security_code: 'abc123',
          xml: '<ECF/>',
        })
        .execute();
    }

    async function approve(body: Record<string, unknown>) {
      const response = await fetch(`${base}/api/emision/envioaprobacioncomercial`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        body: (await response.json()) as {
          estado: string;
          codigoHttp: number;
          mensajes: string[];
          xml: string;
          mensaje?: string;
        },
      };
    }

    it("sends a signed ACECF for the taxpayer's e-CF to its approval URL, authenticating first", async () => {
      await taxpayerEcfAtDgii('E310000000777');
      const before = receiver.approvals.length;
      const { status, body } = await approve({
        urlAprobacionComercial: receiver.url,
        urlAutenticacion: `${receiver.url}/fe/autenticacion`,
        rnc: receiverRnc,
        encf: 'E310000000777',
        estadoAprobacion: '1',
      });
      assert.equal(status, 200);
      assert.equal(body.estado, 'accepted');
      assert.equal(receiver.approvals.length, before + 1);
      const arrived = receiver.approvals.at(-1);
      assert.ok(arrived !== undefined);
      assert.equal(arrived.filename, `${counterpartRnc}E310000000777.xml`);
      assert.equal(arrived.authorization, `Bearer ${receiver.tokens.at(-1) ?? ''}`);
      const schema = validateWithOfficialXsd('ACECF.xsd', arrived.xml);
      assert.ok(schema.valid, schema.errors);
      const xmlsec = verifyWithXmlsec1(arrived.xml, running.sandbox.context.counterpart.key.certificatePem);
      assert.ok(xmlsec.ok, xmlsec.output);
      const parsed = parseXmlTree(arrived.xml);
      assert.ok(parsed.ok);
      const detail = groupsOf(parsed.tree, 'DetalleAprobacionComercial')[0] ?? {};
      assert.deepEqual(
        [
          'RNCEmisor',
          'eNCF',
          'FechaEmision',
          'MontoTotal',
          'RNCComprador',
          'Estado',
          'FechaHoraAprobacionComercial',
        ].map((name) => textOf(detail, name)),
        [receiverRnc, 'E310000000777', '15-11-2026', '1430.00', counterpartRnc, '1', '21-11-2026 10:00:00'],
      );
      const exchanges = (await running.admin('GET', '/exchanges')).body as {
        encf: string;
        kind: string;
        state: string;
        http_status: number;
      }[];
      assert.deepEqual(
        exchanges
          .filter((row) => row.kind === 'acecf' && row.encf === 'E310000000777')
          .map((row) => [row.state, row.http_status]),
        [['accepted', 200]],
      );
    });

    it('sends a rejection with its reason, and records a receiver that refuses it', async () => {
      await taxpayerEcfAtDgii('E310000000778');
      receiver.approvalStatus = 400;
      const { body } = await approve({
        urlAprobacionComercial: receiver.url,
        rnc: receiverRnc,
        encf: 'E310000000778',
        estadoAprobacion: '2',
      });
      receiver.approvalStatus = 200;
      assert.equal(body.estado, 'refused');
      assert.equal(body.codigoHttp, 400);
      assert.match(
        receiver.approvals.at(-1)?.xml ?? '',
        /<Estado>2<\/Estado><DetalleMotivoRechazo>[^<]+<\/DetalleMotivoRechazo>/,
      );
    });

    it("refuses an e-NCF DGII does not hold, in DGII's shape", async () => {
      const { status, body } = await approve({
        urlAprobacionComercial: receiver.url,
        rnc: receiverRnc,
        encf: 'E310000000999',
        estadoAprobacion: '1',
      });
      assert.equal(status, 400);
      assert.match(body.mensaje ?? '', /No se encuentra un e-CF válido/);
    });
  });
});
