// Faults at the counterpart taxpayer's receiver (DGII's emisorreceptor), as a client delivering an e-CF to a buyer
// meets them: authenticate (seed, signed seed, token), post the e-CF, read the ARECF. A fault can be aimed at the
// reception post alone; the receiver acts out a faulty receiver's answers; the arrivals log names the fault of every
// post, with its e-NCF.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { groupsOf, parseXmlTree, textOf } from '../../src/fiscal/parse/index.js';
import { signXml, verifyEnvelopedSignature } from '../../src/fiscal/xmldsig/index.js';
import { encabezadoOf, issuerRnc, signedEcf, type SignedDocument } from '../support/sandbox-documents.js';
import { startSandbox, xmlForm, type RunningSandbox } from '../support/sandbox-kit.js';
import { testSigningKey, verifyWithXmlsec1Embedded } from '../support/xmldsig-kit.js';
import { validateWithOfficialXsd } from '../support/xmllint.js';

describe('sandbox: faults at the counterpart receiver (emisorreceptor)', () => {
  let running: RunningSandbox;
  let base: string;
  let nextSequence = 7000;

  before(async () => {
    running = await startSandbox();
    base = `${running.url}/testecf/emisorreceptor`;
  });
  after(() => running.close());
  beforeEach(async () => {
    assert.equal((await running.admin('DELETE', '/faults')).status, 204);
  });

  const inject = async (fault: Record<string, unknown>) => {
    const created = await running.admin('POST', '/faults', fault);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  };

  /** A signed e-CF 31 addressed to the counterpart, with a fresh e-NCF. */
  function ecfForCounterpart(): SignedDocument {
    return signedEcf('31', nextSequence++, {
      change: (document) => {
        (encabezadoOf(document)['Comprador'] as Record<string, unknown>)['RNCComprador'] =
          running.sandbox.context.counterpart.rnc;
      },
    });
  }

  /** Seed → signed seed → token at the counterpart, each step's status kept. */
  async function authenticate(): Promise<{ seedStatus: number; tokenStatus: number; token: string | undefined }> {
    const seed = await fetch(`${base}/fe/autenticacion/api/semilla`);
    if (seed.status !== 200) return { seedStatus: seed.status, tokenStatus: 0, token: undefined };
    const answer = await fetch(`${base}/fe/autenticacion/api/validacioncertificado`, {
      method: 'POST',
      body: xmlForm(signXml(await seed.text(), testSigningKey()), 'semilla.xml'),
    });
    const token = answer.status === 200 ? ((await answer.json()) as { token: string }).token : undefined;
    return { seedStatus: seed.status, tokenStatus: answer.status, token };
  }

  async function post(
    ecf: SignedDocument,
    token: string | undefined,
    timeoutMs = 5_000,
  ): Promise<{ status: number; body: string }> {
    const response = await fetch(`${base}/fe/recepcion/api/ecf`, {
      method: 'POST',
      body: xmlForm(ecf.xml, ecf.filename),
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, body: await response.text() };
  }

  function arecfFields(xml: string): Record<string, string | undefined> {
    const parsed = parseXmlTree(xml);
    assert.ok(parsed.ok && parsed.root === 'ARECF', xml);
    const detail = groupsOf(parsed.tree, 'DetalleAcusedeRecibo')[0] ?? {};
    return Object.fromEntries(
      ['RNCEmisor', 'RNCComprador', 'eNCF', 'Estado', 'CodigoMotivoNoRecibido'].map((name) => [
        name,
        textOf(detail, name),
      ]),
    );
  }

  /** An ARECF valid per DGII's XSD (which leaves the Signature optional), signed by the counterpart or not at all. */
  function assertArecf(xml: string, signed: boolean): void {
    const schema = validateWithOfficialXsd('ARECF.xsd', xml);
    assert.ok(schema.valid, schema.errors);
    const ours = verifyEnvelopedSignature(xml);
    const xmlsec = verifyWithXmlsec1Embedded(xml);
    if (!signed) {
      assert.doesNotMatch(xml, /Signature/);
      assert.equal(ours.ok, false);
      assert.equal(xmlsec.ok, false, xmlsec.output);
      return;
    }
    assert.ok(ours.ok);
    assert.equal(
      ours.certificatePem.replace(/\s/g, ''),
      running.sandbox.context.counterpart.key.certificatePem.replace(/\s/g, ''),
    );
    assert.ok(xmlsec.ok, xmlsec.output);
  }

  async function outcomesOf(encf: string): Promise<string[]> {
    const arrivals = await running.admin('GET', `/arrivals?service=emisorreceptor&encf=${encf}`);
    return (arrivals.body as { outcome: string }[]).map((arrival) => arrival.outcome);
  }

  describe('aimed at the reception post alone (emisorreceptor.recepcion)', () => {
    it('answers 500 three times to the post while the seed and token routes answer, then receives it', async () => {
      await inject({ service: 'emisorreceptor.recepcion', mode: 'http500', count: 3 });
      const ecf = ecfForCounterpart();
      for (let attempt = 1; attempt <= 3; attempt++) {
        const session = await authenticate();
        assert.deepEqual([session.seedStatus, session.tokenStatus], [200, 200], `attempt ${attempt}`);
        const failed = await post(ecf, session.token);
        assert.deepEqual([failed.status, failed.body], [500, 'Internal Server Error'], `attempt ${attempt}`);
      }
      const received = await post(ecf, (await authenticate()).token);
      assert.equal(received.status, 200);
      assert.match(received.body, /<Estado>0<\/Estado>/);
      assert.deepEqual(await outcomesOf(ecf.encf), ['fault:http500', 'fault:http500', 'fault:http500', 'received']);
    });

    const stops: [string, number | 'no answer'][] = [
      ['http503', 503],
      ['maintenance', 503],
      ['reset', 'no answer'],
      ['timeout', 'no answer'],
    ];
    for (const [mode, expected] of stops) {
      it(`acts out ${mode} on the post only, logged with the e-NCF it carried`, async () => {
        await inject({ service: 'emisorreceptor.recepcion', mode, count: 1, delayMs: mode === 'timeout' ? 1_000 : 0 });
        const session = await authenticate();
        assert.deepEqual([session.seedStatus, session.tokenStatus], [200, 200]);
        const ecf = ecfForCounterpart();
        const status = await post(ecf, session.token, 300).then(
          (answer) => answer.status,
          () => 'no answer' as const,
        );
        assert.equal(status, expected);
        assert.deepEqual(await outcomesOf(ecf.encf), [`fault:${mode}`]);
      });
    }

    it('delays the post, not the authentication, when slow', async () => {
      await inject({ service: 'emisorreceptor.recepcion', mode: 'slow', count: 1, delayMs: 400 });
      let started = Date.now();
      assert.equal((await authenticate()).tokenStatus, 200);
      assert.ok(Date.now() - started < 350, 'authentication was delayed');
      started = Date.now();
      const ecf = ecfForCounterpart();
      assert.equal((await post(ecf, undefined)).status, 200);
      assert.ok(Date.now() - started >= 380, 'the post answered too fast');
      assert.deepEqual(await outcomesOf(ecf.encf), ['received']);
    });
  });

  it('aims a fault at the authentication alone (emisorreceptor.autenticacion): the post still answers', async () => {
    await inject({ service: 'emisorreceptor.autenticacion', mode: 'http503', count: 2 });
    const refused = await authenticate();
    assert.equal(refused.seedStatus, 503);
    const ecf = ecfForCounterpart();
    assert.equal((await post(ecf, undefined)).status, 200);
    const session = await authenticate();
    assert.deepEqual([session.seedStatus, session.tokenStatus], [503, 0]);
    assert.equal((await authenticate()).tokenStatus, 200);
  });

  it('still hits every route of the counterpart with a fault on the whole service (emisorreceptor)', async () => {
    await inject({ service: 'emisorreceptor', mode: 'http503', count: 1 });
    assert.equal((await authenticate()).seedStatus, 503);
    assert.equal((await authenticate()).tokenStatus, 200);
  });

  it('spends a document fault on the whole service only on the post: the authentication before it is untouched', async () => {
    await inject({ service: 'emisorreceptor', mode: 'reject', count: 1 });
    const session = await authenticate();
    assert.deepEqual([session.seedStatus, session.tokenStatus], [200, 200]);
    const ecf = ecfForCounterpart();
    const answer = await post(ecf, session.token);
    assert.match(answer.body, /<Estado>1<\/Estado><CodigoMotivoNoRecibido>1<\/CodigoMotivoNoRecibido>/);
    assert.deepEqual(await outcomesOf(ecf.encf), ['fault:reject']);
    assert.deepEqual(
      ((await running.admin('GET', '/faults')).body as { remaining: number }[]).map((fault) => fault.remaining),
      [0],
    );
  });

  it('refuses a document fault aimed where no route acts it out', async () => {
    for (const fault of [
      { service: 'autenticacion', mode: 'reject' },
      { service: 'emisorreceptor.autenticacion', mode: 'accept_then_lose' },
      { service: 'consultaresultado', mode: 'accept_then_lose' },
    ]) {
      const refused = await running.admin('POST', '/faults', fault);
      assert.equal(refused.status, 400, JSON.stringify(fault));
      assert.match((refused.body as { message: string }).message, /does not act out the fault/);
    }
    assert.equal(
      (await running.admin('POST', '/faults', { service: 'emisorreceptor.nada', mode: 'http500' })).status,
      400,
    );
  });

  describe("acting out a faulty receiver's answers (emisorreceptor.recepcion)", () => {
    const refusals: [string, string][] = [
      ['reject', '1'],
      ['not_received_1', '1'],
      ['not_received_2', '2'],
      ['not_received_3', '3'],
      ['not_received_4', '4'],
    ];
    for (const [mode, reason] of refusals) {
      it(`${mode}: answers a valid e-CF with a signed ARECF Estado 1, CodigoMotivoNoRecibido ${reason}, keeping nothing`, async () => {
        await inject({ service: 'emisorreceptor.recepcion', mode, count: 1 });
        const ecf = ecfForCounterpart();
        const answer = await post(ecf, (await authenticate()).token);
        assert.equal(answer.status, 200);
        assert.deepEqual(arecfFields(answer.body), {
          RNCEmisor: issuerRnc,
          RNCComprador: running.sandbox.context.counterpart.rnc,
          eNCF: ecf.encf,
          Estado: '1',
          CodigoMotivoNoRecibido: reason,
        });
        assertArecf(answer.body, true);
        // Refused, so not kept: the same e-CF again is received.
        assert.equal(arecfFields((await post(ecf, undefined)).body)['Estado'], '0');
        assert.deepEqual(await outcomesOf(ecf.encf), [`fault:${mode}`, 'received']);
      });
    }

    it('arecf_unsigned: answers Estado 0 about the right e-CF with no Signature, and keeps the e-CF', async () => {
      await inject({ service: 'emisorreceptor.recepcion', mode: 'arecf_unsigned', count: 1 });
      const ecf = ecfForCounterpart();
      const answer = await post(ecf, (await authenticate()).token);
      assert.equal(answer.status, 200);
      assert.deepEqual(arecfFields(answer.body), {
        RNCEmisor: issuerRnc,
        RNCComprador: running.sandbox.context.counterpart.rnc,
        eNCF: ecf.encf,
        Estado: '0',
        CodigoMotivoNoRecibido: undefined,
      });
      assertArecf(answer.body, false);
      // It did receive it: the resend is a duplicate, answered signed.
      const again = await post(ecf, undefined);
      assert.deepEqual(
        [arecfFields(again.body)['Estado'], arecfFields(again.body)['CodigoMotivoNoRecibido']],
        ['1', '3'],
      );
      assertArecf(again.body, true);
      assert.deepEqual(await outcomesOf(ecf.encf), ['fault:arecf_unsigned', 'not_received:duplicate']);
    });

    it('arecf_foreign: answers a signed ARECF Estado 0 about another e-CF of the issuer, and keeps this one', async () => {
      await inject({ service: 'emisorreceptor.recepcion', mode: 'arecf_foreign', count: 1 });
      const ecf = ecfForCounterpart();
      const answer = await post(ecf, (await authenticate()).token);
      assert.equal(answer.status, 200);
      const fields = arecfFields(answer.body);
      assert.notEqual(fields['eNCF'], ecf.encf);
      assert.deepEqual(fields, {
        RNCEmisor: issuerRnc,
        RNCComprador: running.sandbox.context.counterpart.rnc,
        eNCF: `E31${String(Number(ecf.encf.slice(3)) + 1).padStart(10, '0')}`,
        Estado: '0',
        CodigoMotivoNoRecibido: undefined,
      });
      assertArecf(answer.body, true);
      const again = arecfFields((await post(ecf, undefined)).body);
      assert.deepEqual([again['eNCF'], again['Estado'], again['CodigoMotivoNoRecibido']], [ecf.encf, '1', '3']);
      assert.deepEqual(await outcomesOf(ecf.encf), ['fault:arecf_foreign', 'not_received:duplicate']);
    });

    it('arecf_unsigned and arecf_foreign leave a refusal as it is (only the answer to a received e-CF is garbled)', async () => {
      const ecf = ecfForCounterpart();
      assert.equal(arecfFields((await post(ecf, undefined)).body)['Estado'], '0');
      for (const mode of ['arecf_unsigned', 'arecf_foreign']) {
        await inject({ service: 'emisorreceptor.recepcion', mode, count: 1 });
        const duplicate = await post(ecf, undefined);
        assert.deepEqual(
          [
            arecfFields(duplicate.body)['eNCF'],
            arecfFields(duplicate.body)['Estado'],
            arecfFields(duplicate.body)['CodigoMotivoNoRecibido'],
          ],
          [ecf.encf, '1', '3'],
          mode,
        );
        assertArecf(duplicate.body, true);
      }
    });

    it('answers Estado 1, motivo 3, signed, to the same e-CF posted a second time, without any fault', async () => {
      const ecf = ecfForCounterpart();
      const first = await post(ecf, (await authenticate()).token);
      assert.equal(arecfFields(first.body)['Estado'], '0');
      const second = await post(ecf, (await authenticate()).token);
      assert.deepEqual(arecfFields(second.body), {
        RNCEmisor: issuerRnc,
        RNCComprador: running.sandbox.context.counterpart.rnc,
        eNCF: ecf.encf,
        Estado: '1',
        CodigoMotivoNoRecibido: '3',
      });
      assertArecf(second.body, true);
      assert.deepEqual(await outcomesOf(ecf.encf), ['received', 'not_received:duplicate']);
    });

    it('takes the counterpart-only modes on the whole service, and refuses them where no route acts them out', async () => {
      for (const service of ['recepcion', 'emisorreceptor.aprobacioncomercial', 'emisorreceptor.autenticacion'])
        assert.equal(
          (await running.admin('POST', '/faults', { service, mode: 'arecf_unsigned' })).status,
          400,
          service,
        );
      await inject({ service: 'emisorreceptor', mode: 'not_received_2', count: 1 });
      assert.equal((await authenticate()).tokenStatus, 200);
      const answer = arecfFields((await post(ecfForCounterpart(), undefined)).body);
      assert.deepEqual([answer['Estado'], answer['CodigoMotivoNoRecibido']], ['1', '2']);
    });
  });
});
