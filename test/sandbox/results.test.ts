// DGII's query services as the sandbox emulates them: consultaresultado (by trackId), consultaestado (by e-NCF) and
// consultatrackids (every arrival of an e-NCF), in DGII's shapes; and the session behind them, which survives a
// sandbox restart and ends after one hour.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyEnvelopedSignature } from '../../src/fiscal/xmldsig/index.js';
import { authenticate, fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import {
  buyerRnc,
  encabezadoOf,
  getJson,
  issuerRnc,
  registerIssuer,
  resultOf,
  sendEcf,
  signedEcf,
  type SignedDocument,
} from '../support/sandbox-documents.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

function securityCodeOf(document: SignedDocument): string {
  const verified = verifyEnvelopedSignature(document.xml);
  assert.ok(verified.ok);
  return verified.securityCode;
}

describe('sandbox: consultaresultado, consultaestado, consultatrackids', () => {
  // 14:22:49Z is 10:22:49 AM in GMT-4.
  const clock = fixedClock(new Date('2026-11-21T14:22:49Z'));
  let running: RunningSandbox;
  let token: string;

  before(async () => {
    running = await startSandbox({ clock });
    await registerIssuer(running, issuerRnc);
    token = await authenticate(running.url, testSigningKey());
  });
  after(() => running.close());

  async function estado(query: string, sessionToken = token): Promise<{ status: number; body: unknown; text: string }> {
    const response = await fetch(`${running.url}/testecf/consultaestado/api/consultas/estado?${query}`, {
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text) as unknown, text };
  }

  describe('consultaresultado', () => {
    it("answers DGII's shape: codigo a string, lower-case encf, fechaRecepcion US style in GMT-4", async () => {
      const document = signedEcf('31', 1);
      const trackId = await sendEcf(running.url, token, document);
      const pending = await resultOf(running.url, token, trackId);
      assert.deepEqual(pending, {
        trackId,
        codigo: '3',
        estado: 'En Proceso',
        rnc: issuerRnc,
        encf: 'E310000000001',
        secuenciaUtilizada: false,
        fechaRecepcion: '11/21/2026 10:22:49 AM',
        mensajes: [],
      });
      clock.advance(1_000);
      assert.deepEqual(await resultOf(running.url, token, trackId), {
        ...pending,
        codigo: '1',
        estado: 'Aceptado',
        secuenciaUtilizada: true,
      });
    });

    it('writes afternoon times with PM and no leading zeros', async () => {
      clock.advance(3 * 3_600_000 + 10 * 60_000); // 13:32:50 GMT-4, past the first token's hour
      token = await authenticate(running.url, testSigningKey());
      const trackId = await sendEcf(running.url, token, signedEcf('31', 2));
      assert.equal((await resultOf(running.url, token, trackId)).fechaRecepcion, '11/21/2026 1:32:50 PM');
    });

    it('needs a session and a trackid', async () => {
      assert.equal(
        (await getJson(running.url, 'consultaresultado/api/consultas/estado?trackid=x', undefined)).status,
        401,
      );
      const missing = await getJson(running.url, 'consultaresultado/api/consultas/estado', token);
      assert.equal(missing.status, 400);
      assert.deepEqual((missing.body as { errors: unknown }).errors, { trackid: ['The trackid field is required.'] });
    });
  });

  describe('consultaestado', () => {
    let accepted: SignedDocument;

    before(async () => {
      accepted = signedEcf('31', 10);
      await sendEcf(running.url, token, accepted);
    });

    it('answers not found while the document is still En Proceso, then its values', async () => {
      const query = `rncemisor=${issuerRnc}&ncfelectronico=${accepted.encf}`;
      assert.deepEqual((await estado(query)).body, {
        codigo: 0,
        estado: 'No encontrado',
        rncEmisor: issuerRnc,
        ncfElectronico: accepted.encf,
        montoTotal: null,
        totalITBIS: null,
        fechaEmision: null,
        fechaFirma: null,
        rncComprador: null,
        codigoSeguridad: null,
        idExtranjero: null,
      });
      clock.advance(1_000);
      const code = securityCodeOf(accepted);
      const answer = await estado(`${query}&rnccomprador=${buyerRnc}&codigoseguridad=${encodeURIComponent(code)}`);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {
        codigo: 1,
        estado: 'Aceptado',
        rncEmisor: issuerRnc,
        ncfElectronico: accepted.encf,
        montoTotal: 1430,
        totalITBIS: 180,
        fechaEmision: '15-11-2026',
        fechaFirma: '15-11-2026 10:31:07',
        rncComprador: buyerRnc,
        codigoSeguridad: code,
        idExtranjero: null,
      });
      // Amounts are numbers written exactly as the e-CF wrote them.
      assert.match(answer.text, /"montoTotal":1430\.00,"totalITBIS":180\.00,/);
    });

    it('does not find it with a wrong codigoseguridad or rnccomprador', async () => {
      const query = `rncemisor=${issuerRnc}&ncfelectronico=${accepted.encf}`;
      assert.equal(((await estado(`${query}&codigoseguridad=ZZZZZZ`)).body as { codigo: number }).codigo, 0);
      assert.equal(((await estado(`${query}&rnccomprador=101010101`)).body as { codigo: number }).codigo, 0);
    });

    it('shows Aceptado Condicional and Rechazado, and the accepted verdict over a later duplicate', async () => {
      const conditional = signedEcf('31', 11, {
        change: (json) => void ((encabezadoOf(json)['Totales'] as Record<string, unknown>)['MontoTotal'] = '1450.00'),
      });
      await sendEcf(running.url, token, conditional);
      const refused = signedEcf('31', 12, {
        change: (json) =>
          void ((encabezadoOf(json)['Emisor'] as Record<string, unknown>)['FechaEmision'] = '30-11-2026'),
      });
      await sendEcf(running.url, token, refused);
      await sendEcf(running.url, token, accepted); // a duplicate: rejected, but the invoice stays accepted
      clock.advance(1_000);
      const shown = async (encf: string) => {
        const body = (await estado(`rncemisor=${issuerRnc}&ncfelectronico=${encf}`)).body as {
          codigo: number;
          estado: string;
        };
        return [body.codigo, body.estado];
      };
      assert.deepEqual(await shown(conditional.encf), [4, 'Aceptado Condicional']);
      assert.deepEqual(await shown(refused.encf), [2, 'Rechazado']);
      assert.deepEqual(await shown(accepted.encf), [1, 'Aceptado']);
    });

    it('answers 400 in ASP.NET shape when rncemisor or ncfelectronico is missing', async () => {
      const answer = await estado(`rncemisor=${issuerRnc}`);
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, {
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { ncfelectronico: ['The ncfelectronico field is required.'] },
      });
    });
  });

  describe('consultatrackids and the session', () => {
    const document = signedEcf('31', 20);
    const path = `consultatrackids/api/trackids/consulta?rncemisor=${issuerRnc}&encf=${document.encf}`;

    it('lists one entry per arrival of the e-NCF, each with its estado', async () => {
      const first = await sendEcf(running.url, token, document);
      clock.advance(1_000);
      const second = await sendEcf(running.url, token, document);
      const { status, body } = await getJson(running.url, path, token);
      assert.equal(status, 200);
      assert.deepEqual(body, [
        { trackId: first, estado: 'Aceptado', fechaRecepcion: '11/21/2026 1:32:52 PM' },
        { trackId: second, estado: 'En Proceso', fechaRecepcion: '11/21/2026 1:32:53 PM' },
      ]);
      clock.advance(1_000);
      assert.deepEqual(
        ((await getJson(running.url, path, token)).body as { estado: string }[]).map((entry) => entry.estado),
        ['Aceptado', 'Rechazado'],
      );
    });

    it('answers an empty list for an e-NCF never received, 400 without encf', async () => {
      assert.deepEqual(
        (
          await getJson(
            running.url,
            `consultatrackids/api/trackids/consulta?rncemisor=${issuerRnc}&encf=E310000000999`,
            token,
          )
        ).body,
        [],
      );
      assert.equal(
        (await getJson(running.url, `consultatrackids/api/trackids/consulta?rncemisor=${issuerRnc}`, token)).status,
        400,
      );
    });

    it('keeps a token across a sandbox restart and ends it after one hour', async () => {
      running = await running.restart();
      assert.equal((await getJson(running.url, path, token)).status, 200);
      clock.advance(60 * 60_000);
      assert.equal((await getJson(running.url, path, token)).status, 401);
    });
  });
});
