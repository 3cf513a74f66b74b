// The postulación itself through the portal's admin routes: who may apply, the set DGII issues (again, with e-NCF
// after every earlier set's; or as an operator gives it, file or workbook; never something that is not a set), and
// cancelling, after which a new postulación may start.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseEncf } from '../../src/fiscal/encf.js';
import type { SetCase } from '../../src/fiscal/certification/index.js';
import { generateCertificationSet } from '../../src/sandbox/certification/set-generator.js';
import { setWorkbook } from '../../src/sandbox/certification/set-workbook.js';
import { encfOfRow, ecfRows, portalOf, xlsxType, type ActionAnswer, type Portal } from '../support/cert-portal-kit.js';
import { fictitiousRnc } from '../support/ecf-documents.js';
import { fixedClock, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';

const now = new Date('2026-11-21T14:00:00Z');
const urls = {
  receptionUrl: 'https://receptor.ejemplo.do/fe',
  approvalUrl: 'https://receptor.ejemplo.do/fe',
  authenticationUrl: 'https://receptor.ejemplo.do/fe',
};

/** The highest sequence number of each type in a set. */
function highest(cases: readonly SetCase[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const setCase of cases) {
    const parsed = parseEncf(encfOfRow(setCase));
    assert.ok(parsed);
    found.set(parsed.ecfType, Math.max(found.get(parsed.ecfType) ?? 0, parsed.sequence));
  }
  return found;
}

describe('sandbox: the certification postulación and its set', () => {
  let running: RunningSandbox;
  const clock = fixedClock(now);

  before(async () => {
    running = await startSandbox({ clock });
  });
  after(() => running.close());

  async function registered(rnc: string, more: object = {}): Promise<Portal> {
    assert.equal(
      (await running.admin('POST', '/taxpayers', { rnc, name: 'EMPRESA POSTULANTE SRL', ...more })).status,
      201,
    );
    return portalOf(running, rnc);
  }

  async function postSet(
    rnc: string,
    contentType: string,
    body: string | Buffer,
  ): Promise<{ status: number; body: ActionAnswer }> {
    const response = await fetch(`${running.url}/sandbox-admin/certification/${rnc}/set`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    return { status: response.status, body: (await response.json()) as ActionAnswer };
  }

  it('takes a postulación only from a registered, active electronic taxpayer, with http(s) URLs', async () => {
    const unknown = await portalOf(running, fictitiousRnc('13077790')).apply(urls);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message ?? '', /No taxpayer \d+ is registered/);
    const paper = await registered(fictitiousRnc('13077791'), { electronic: false });
    assert.equal((await paper.apply(urls)).status, 409);
    const portal = await registered(fictitiousRnc('13077792'));
    const badUrl = await portal.apply({ ...urls, approvalUrl: 'ftp://receptor.ejemplo.do' });
    assert.equal(badUrl.status, 400);
    assert.match(badUrl.body.message ?? '', /approvalUrl is not an http\(s\) URL/);
    assert.equal((await running.admin('GET', `/certification/${fictitiousRnc('13077792')}`)).status, 404);
  });

  it("issues a new set on request whose e-NCF continue after every earlier set's, with the seed and defects asked for", async () => {
    const rnc = fictitiousRnc('13077793');
    const portal = await registered(rnc);
    assert.equal((await portal.apply(urls)).status, 201);
    const first = await portal.downloadSet();
    assert.deepEqual(Object.fromEntries(highest(first.cases)), {
      '31': 4,
      '32': 6,
      '33': 1,
      '34': 2,
      '41': 2,
      '43': 2,
      '44': 2,
      '45': 2,
      '46': 2,
      '47': 2,
    });
    clock.advance(1_000);
    const second = await portal.downloadSet('?regenerate=true&seed=7&defects=type34_without_tipo_ingresos');
    assert.equal(second.status, 200);
    assert.notEqual(second.filename, first.filename);
    assert.deepEqual(Object.fromEntries(highest(second.cases)), {
      '31': 8,
      '32': 12,
      '33': 2,
      '34': 4,
      '41': 4,
      '43': 4,
      '44': 4,
      '45': 4,
      '46': 4,
      '47': 4,
    });
    assert.deepEqual(
      ecfRows(second.cases)
        .filter((setCase) => setCase.ecfType === '31')
        .map(encfOfRow),
      ['E310000000005', 'E310000000006', 'E310000000007', 'E310000000008'],
    );
    const withoutTipoIngresos = ecfRows(second.cases).filter(
      (setCase) => setCase.ecfType === '34' && !JSON.stringify(setCase.payload).includes('TipoIngresos'),
    );
    assert.equal(withoutTipoIngresos.length, 1);
    // The new set is the postulación's now: the same bytes on a plain download.
    assert.ok((await portal.downloadSet()).bytes.equals(second.bytes));
    assert.equal((await portal.state()).setName, second.filename);
    const unknownDefect = await fetch(`${running.url}/sandbox-admin/certification/${rnc}/set.xlsx?defects=nonsense`);
    assert.equal(unknownDefect.status, 400);
  });

  it("registers a set the operator gives, as the set file or as DGII's workbook, and refuses what is not a set", async () => {
    const rnc = fictitiousRnc('13077794');
    const portal = await registered(rnc);
    assert.equal((await portal.apply(urls)).status, 201);
    const given = generateCertificationSet({ rnc, now, seed: 42, sequenceStart: 500 });
    const asFile = await postSet(rnc, 'application/json', JSON.stringify({ label: 'set dado', cases: given }));
    assert.equal(asFile.status, 200, JSON.stringify(asFile.body));
    assert.equal(asFile.body.outcome, 'recorded');
    const downloaded = await portal.downloadSet();
    assert.deepEqual(
      downloaded.cases.map(encfOfRow),
      given.map((setCase) => encfOfRow(setCase)),
    );
    assert.ok(downloaded.bytes.equals(setWorkbook(given)));

    const regiven = generateCertificationSet({ rnc, now, seed: 43, sequenceStart: 900 });
    const asWorkbook = await postSet(rnc, xlsxType, setWorkbook(regiven));
    assert.equal(asWorkbook.status, 200, JSON.stringify(asWorkbook.body));
    assert.deepEqual(
      (await portal.downloadSet()).cases.map(encfOfRow),
      regiven.map((setCase) => encfOfRow(setCase)),
    );

    const notAWorkbook = await postSet(rnc, xlsxType, Buffer.from('not a zip at all'));
    assert.equal(notAWorkbook.status, 400);
    assert.match(notAWorkbook.body.problems?.[0] ?? '', /not a DGII certification set/);
    const empty = await postSet(rnc, 'application/json', JSON.stringify({ label: 'vacío', cases: [] }));
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.body.problems, ['The set has no ECF case.']);
    const othersSet = await postSet(
      rnc,
      'application/json',
      JSON.stringify({ cases: generateCertificationSet({ rnc: fictitiousRnc('13077799'), now }) }),
    );
    assert.equal(othersSet.status, 400);
    assert.match(othersSet.body.message, /is for RNCEmisor \d+, not for \d+/);
    const withoutRfce = await postSet(
      rnc,
      'application/json',
      JSON.stringify({ cases: given.filter((setCase) => setCase.kind === 'ECF') }),
    );
    assert.equal(withoutRfce.status, 400);
    assert.match(withoutRfce.body.problems?.[0] ?? '', /needs its RFCE case/);
    assert.equal((await postSet(rnc, 'text/plain', 'hola')).status, 415);
  });

  it('answers bad input with a 4xx and a message, never a 500', async () => {
    const rnc = fictitiousRnc('13077796');
    const portal = await registered(rnc);
    assert.equal((await portal.apply(urls)).status, 201);
    assert.equal((await portal.act('validate')).status, 200);
    const cases: [string, string, unknown, number][] = [
      ['POST', '/certification/12ab', urls, 400],
      ['POST', `/certification/${rnc}`, { receptionUrl: 'x' }, 400],
      ['POST', `/certification/${rnc}/actions/upload-consumer-invoice`, { xml: 'no es xml' }, 400],
      ['POST', `/certification/${rnc}/actions/upload-consumer-invoice`, { xml: '<ECF><Encabezado/></ECF>' }, 400],
      ['POST', `/certification/${rnc}/actions/upload-consumer-invoice`, {}, 400],
      ['POST', `/certification/${rnc}/actions/sworn-declaration`, { xml: '<DeclaracionJurada/>' }, 409],
      [
        'POST',
        `/certification/${rnc}/actions/upload-printed-representations`,
        { files: [{ slot: '31', pdfBase64: '!!!' }] },
        400,
      ],
      [
        'POST',
        `/certification/${rnc}/actions/upload-printed-representations`,
        { files: [{ slot: '99', pdfBase64: 'JVBERi0=' }] },
        400,
      ],
      ['POST', `/certification/${rnc}/actions/confirm-test-urls`, { receptionUrl: 'nada' }, 400],
      ['POST', `/certification/${rnc}/actions/nonsense`, {}, 404],
      ['POST', `/certification/${rnc}/set`, [], 400],
      [
        'POST',
        `/certification/${rnc}/set`,
        { cases: [{ kind: 'ECF', caseKey: 'x', payload: { Encabezado: 'x' } }] },
        400,
      ],
      ['GET', `/certification/${fictitiousRnc('13077797')}/set.xlsx`, undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const answer = await running.admin(method as 'GET' | 'POST', path, body);
      assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(typeof (answer.body as { message?: unknown }).message, 'string', `${method} ${path}`);
    }
    const badSeed = await fetch(`${running.url}/sandbox-admin/certification/${rnc}/set.xlsx?seed=abc`);
    assert.equal(badSeed.status, 400);
  });

  it('cancels with a reason (its actions then find no postulación), and a new postulación may start', async () => {
    const rnc = fictitiousRnc('13077795');
    const portal = await registered(rnc);
    assert.equal((await portal.apply(urls)).status, 201);
    const cancelled = await portal.act('cancel', { reason: 'Cambio de proveedor de software' });
    assert.equal(cancelled.body.outcome, 'cancelled');
    assert.equal(cancelled.body.postulacion?.cancelled, true);
    assert.equal((await portal.act('validate')).status, 404);
    const again = await portal.apply(urls);
    assert.equal(again.status, 201);
    assert.equal(again.body.step, 1);
    assert.equal(again.body.cancelled, false);
    assert.equal((await portal.act('cancel', {})).status, 400);
  });
});
