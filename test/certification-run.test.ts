// Ejecutar (SPEC §4.8; §3, certification rules 3 and 6): the set's cases reach the DGII sandbox through the serial
// lane — one at a time, notes after their invoice is accepted, small consumer invoices as RFCE written from the
// signed full e-CF — each exactly once; a rejection fails the process and a new one carries the accepted cases over
// without resending any.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { readSignatureValue } from '../src/fiscal/xmldsig/index.js';
import { assertProblem } from './support/assert-problem.js';
import { startCertificationWorld, type CaseRead, type CertificationWorld } from './support/certification-kit.js';
import { requireTool } from './support/tools.js';
import { validateWithOfficialXsd } from './support/xmllint.js';
import { verifyWithXmlsec1 } from './support/xmldsig-kit.js';

interface Arrival {
  service: string;
  encf: string | null;
  outcome: string;
  arrived_at: string;
}

const stepTwoDone = (cases: CaseRead[]) =>
  cases.filter((row) => row.step === 2).every((row) => row.status === 'accepted');

describe('certification ejecutar against the DGII sandbox', () => {
  let world: CertificationWorld;
  before(async () => {
    world = await startCertificationWorld();
  });
  after(async () => {
    await world.close();
  });

  /** The independent oracles: DGII's XSD through xmllint, the signature through xmlsec1 with the company's certificate. */
  async function assertOracles(t: TestContext, xml: string, xsd: string): Promise<void> {
    const certificatePem =
      (await world.app.application.services.companies.signingIdentity(world.companyId))?.certificatePem ?? '';
    if (requireTool(t, 'xmllint')) {
      const schema = validateWithOfficialXsd(xsd, xml);
      assert.ok(schema.valid, `${xsd}: ${schema.errors}`);
    }
    if (requireTool(t, 'xmlsec1')) {
      const verified = verifyWithXmlsec1(xml, certificatePem);
      assert.ok(verified.ok, verified.output);
    }
  }

  const arrivals = async () => (await world.sandbox.admin('GET', `/arrivals?rnc=${world.rnc}`)).body as Arrival[];

  it('runs step 2 through the lane: each case once, notes after their invoice, RFCE from the signed e-CF', async (t) => {
    const id = await world.start(world.setFile({ seed: 5 }));
    assertProblem(await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=51`), 400, 'validation_failed');
    assertProblem(await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=0`), 400, 'validation_failed');
    // Two calls at once: the lane still has one case at DGII at a time.
    const [first, second] = await Promise.all([
      world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=20`),
      world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=20`),
    ]);
    assert.equal(first.statusCode, 202, first.body);
    assert.equal(second.statusCode, 202, second.body);
    const handed = [first, second].flatMap((response) =>
      response
        .json<{ data: { queued: { caseKey: string; kind: string }[] } }>()
        .data.queued.map((row) => `${row.kind} ${row.caseKey}`),
    );
    assert.equal(new Set(handed).size, handed.length, 'no case handed in twice');
    const rest = await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=50`);
    assert.equal(rest.statusCode, 202, rest.body);
    assert.equal(rest.json<{ data: { remaining: number } }>().data.remaining, 0);

    const cases = await world.until(id, stepTwoDone);
    const stepTwo = cases.filter((row) => row.step === 2);
    assert.equal(stepTwo.length, 29);
    const received = (await arrivals()).filter((row) => row.service === 'recepcion' || row.service === 'recepcionfc');
    // Each e-NCF reached DGII once: 21 e-CF at reception, 4 RFCE, never a small 32 in full.
    const byEncf = new Map<string, Arrival[]>();
    for (const row of received) byEncf.set(row.encf ?? '', [...(byEncf.get(row.encf ?? '') ?? []), row]);
    assert.equal(received.length, 25, JSON.stringify(received.map((row) => [row.service, row.encf, row.outcome])));
    assert.ok([...byEncf.values()].every((list) => list.length === 1));
    assert.equal(received.filter((row) => row.service === 'recepcionfc').length, 4);
    // One at a time: each arrival comes after the verdict of the one before (the sandbox judges at once here), so
    // arrivals are strictly ordered and a note arrives after its invoice.
    const order = received.map((row) => row.encf);
    for (const note of stepTwo.filter((row) => row.kind === 'ECF' && row.dependsOn !== null)) {
      assert.ok(
        order.indexOf(note.dependsOn) < order.indexOf(note.caseKey.slice(-13)),
        `${note.caseKey} after ${note.dependsOn ?? ''}`,
      );
    }
    const process = (await world.call('GET', `/api/v1/certificacion/${id}`)).json<{
      data: { steps: { number: number; status: string }[] };
    }>().data;
    assert.deepEqual(
      process.steps.slice(0, 3).map((step) => step.status),
      ['done', 'done', 'open'],
    );

    // The RFCE's CodigoSeguridadeCF is the first six characters of the archived full e-CF's SignatureValue.
    for (const row of stepTwo.filter((candidate) => candidate.kind === 'RFCE')) {
      assert.ok(row.documentId !== null);
      const twin = stepTwo.find((candidate) => candidate.kind === 'ECF' && candidate.caseKey === row.caseKey);
      assert.equal(twin?.documentId, row.documentId, 'the ECF and RFCE cases share one document');
      const full = (await world.call('GET', `/api/v1/documentos/${row.documentId}/artefactos/signed-xml`)).body;
      const rfce = (await world.call('GET', `/api/v1/documentos/${row.documentId}/artefactos/rfce-xml`)).body;
      const code = /<CodigoSeguridadeCF>([^<]+)<\/CodigoSeguridadeCF>/.exec(rfce)?.[1];
      assert.equal(code, readSignatureValue(full)?.slice(0, 6));
      await assertOracles(t, rfce, 'RFCE-32.xsd');
    }
    // Every signed e-CF passes DGII's XSD and xmlsec1.
    for (const row of stepTwo.filter((candidate) => candidate.kind === 'ECF')) {
      const xml = (await world.call('GET', `/api/v1/documentos/${row.documentId ?? ''}/artefactos/signed-xml`)).body;
      await assertOracles(t, xml, `e-CF-${row.ecfType ?? ''}.xsd`);
    }
  });
});

describe('certification: a DGII rejection', () => {
  let world: CertificationWorld;
  before(async () => {
    world = await startCertificationWorld();
  });
  after(async () => {
    await world.close();
  });

  it('fails the process at once, sends nothing more, and a new process carries the accepted cases over without resending', async () => {
    const file = world.setFile({ seed: 6 });
    const id = await world.start(file);
    assert.equal((await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=50`)).statusCode, 202);
    await world.until(id, (cases) => cases.filter((row) => row.status === 'accepted').length >= 3);
    // DGII rejects the next document it receives.
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'recepcion', mode: 'reject', count: 1 })).status,
      201,
    );
    const cases = await world.until(id, (rows) => rows.some((row) => row.status === 'rejected'));
    const rejected = cases.find((row) => row.status === 'rejected');
    assert.ok(rejected !== undefined);
    const read = (await world.call('GET', `/api/v1/certificacion/${id}`)).json<{
      data: { status: string; failure: { caseKey: string; step: number }; steps: { number: number; status: string }[] };
    }>().data;
    assert.equal(read.status, 'failed');
    assert.equal(read.failure.caseKey, rejected.caseKey);
    assert.equal(read.steps.find((step) => step.number === 2)?.status, 'failed');
    const atFailure = (await world.sandbox.admin('GET', `/arrivals?rnc=${world.rnc}`)).body as unknown[];
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(
      ((await world.sandbox.admin('GET', `/arrivals?rnc=${world.rnc}`)).body as unknown[]).length,
      atFailure.length,
      'nothing more reached DGII',
    );
    assertProblem(await world.call('POST', `/api/v1/certificacion/${id}/ejecutar`), 409, 'certification_not_active');
    const accepted = (await world.cases(id)).filter((row) => row.status === 'accepted');

    // The same set again uses the rejected e-NCF: refused, nothing starts.
    const again = await world.call('POST', '/api/v1/certificacion/iniciar', file);
    assert.ok(
      assertProblem(again, 422, 'certification_set_invalid').errors?.some(
        (error) => error.code === 'encf_burned' && error.detail.startsWith(rejected.caseKey),
      ),
    );
    // A regenerated set: the rejected case gets a new e-NCF (what DGII's new set gives it).
    const fresh = `${rejected.caseKey.slice(0, -13)}${rejected.caseKey.slice(-13, -4)}9999`;
    const regenerated = JSON.parse(
      JSON.stringify(file).replaceAll(rejected.caseKey.slice(-13), fresh.slice(-13)),
    ) as Record<string, unknown>;
    const next = await world.start(regenerated);
    const carried = (await world.cases(next)).filter((row) => row.carriedFromProcessId === id);
    assert.deepEqual(
      carried.map((row) => `${row.kind} ${row.caseKey}`).sort(),
      accepted.map((row) => `${row.kind} ${row.caseKey}`).sort(),
    );
    assert.ok(carried.every((row) => row.status === 'accepted'));
    assert.equal((await world.call('POST', `/api/v1/certificacion/${next}/ejecutar?limit=50`)).statusCode, 202);
    await world.until(next, stepTwoDone);
    const received = ((await world.sandbox.admin('GET', `/arrivals?rnc=${world.rnc}`)).body as Arrival[]).filter(
      (row) => row.service === 'recepcion' || row.service === 'recepcionfc',
    );
    const counts = new Map<string, number>();
    for (const row of received) counts.set(row.encf ?? '', (counts.get(row.encf ?? '') ?? 0) + 1);
    assert.deepEqual(
      [...counts.values()].filter((count) => count > 1),
      [],
      'no e-NCF reached DGII twice',
    );
    assert.equal(counts.get(rejected.caseKey.slice(-13)), 1);
  });
});

describe('certification: DGII out of reach is no rejection', () => {
  let world: CertificationWorld;
  before(async () => {
    world = await startCertificationWorld({ env: { SEND_RETRY_BASE_MS: '100' } });
  });
  after(async () => {
    await world.close();
  });

  it('waits while reception answers 503 and goes on once it answers again, the process still active', async () => {
    const id = await world.start(world.setFile({ seed: 8 }));
    assert.equal(
      (await world.sandbox.admin('POST', '/faults', { service: 'recepcion', mode: 'http503', count: 3 })).status,
      201,
    );
    assert.equal((await world.call('POST', `/api/v1/certificacion/${id}/ejecutar?limit=3`)).statusCode, 202);
    const cases = await world.until(id, (rows) => rows.filter((row) => row.status === 'accepted').length === 3);
    assert.deepEqual(
      cases.filter((row) => row.status === 'rejected' || row.status === 'error'),
      [],
    );
    const read = (await world.call('GET', `/api/v1/certificacion/${id}`)).json<{ data: { status: string } }>().data;
    assert.equal(read.status, 'active');
    // The fault answers before the body is read, so its arrivals name no taxpayer.
    const refused = ((await world.sandbox.admin('GET', '/arrivals?service=recepcion')).body as Arrival[]).filter(
      (row) => row.outcome === 'fault:http503',
    );
    assert.equal(refused.length, 3, 'the 503s reached the sandbox, and the same document went again');
  });
});
