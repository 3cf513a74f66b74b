// The certification process through HTTP (SPEC §3, §4.8) — who may use it (SPEC §5 rule 4), `iniciar` checking the
// whole set before anything starts, the manual steps in the portal's order, cancel and complete, and the tenancy
// wall. The run against DGII (ejecutar) is in its own suite.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { generateCertificationSet } from '../src/sandbox/certification/set-generator.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';

type Json = Record<string, unknown>;

interface Tenant {
  companyId: string;
  rnc: string;
  apiKey: string;
}

async function tenant(app: TestApp, options: { certificate?: boolean; enabled?: boolean } = {}): Promise<Tenant> {
  const rnc = nextRnc();
  const companyId = await app.provisionCompany({ rnc, certificationEnabled: options.enabled ?? true });
  if (options.certificate ?? true) {
    const certificate = createSelfSignedP12({
      commonName: 'EMISOR DE PRUEBA',
      serialNumber: rnc,
      notBefore: new Date('2026-01-01'),
      notAfter: new Date('2036-01-01'),
      password: 'clave',
    });
    const installed = await app.sendEvent('certificate.installed', {
      companyId,
      p12Base64: certificate.p12.toString('base64'),
      password: 'clave',
    });
    assert.equal(installed.statusCode, 200, installed.body);
  }
  const { apiKey } = await app.issueKey(companyId, ['certification:manage']);
  return { companyId, rnc, apiKey };
}

function setFile(rnc: string, options: Parameters<typeof generateCertificationSet>[0]['defects'] = []): Json {
  return {
    label: `${rnc}-set.xlsx`,
    cases: generateCertificationSet({ rnc, now: new Date(), seed: 7, defects: options }),
  };
}

describe('certification process (CERT)', () => {
  let app: TestApp;
  let main: Tenant;
  const call = (key: string, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.app.inject({
      method,
      url,
      headers: { 'x-api-key': key, 'x-correlation-id': 'corr-cert-1' },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });

  before(async () => {
    app = await startTestApp({ env: { FISCAL_ENV: 'CERT', PUBLIC_BASE_URL: 'https://ecf.example.do' } });
    main = await tenant(app);
  });
  after(async () => {
    await app.close();
  });

  it('answers null before any process, then starts one from a generated set: steps, cases, derived approvals', async () => {
    const none = await call(main.apiKey, 'GET', '/api/v1/certificacion');
    assert.equal(none.statusCode, 200, none.body);
    assert.equal(none.json<{ data: unknown }>().data, null);

    const started = await call(main.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(main.rnc));
    assert.equal(started.statusCode, 201, started.body);
    const process = started.json<{
      data: {
        id: string;
        status: string;
        steps: { number: number; status: string; key: string | null }[];
        cases: { total: number; pending: number };
        checklist: { id: string; status: string; links: string[] }[];
      };
    }>().data;
    assert.equal(process.status, 'active');
    assert.deepEqual(
      process.steps.map((step) => step.status),
      ['open', ...Array<string>(13).fill('locked')],
    );
    assert.deepEqual(
      process.steps.filter((step) => step.key !== null).map((step) => [step.number, step.key]),
      [
        [1, 'registrado'],
        [5, 'representacion_impresa_envio'],
        [6, 'representacion_impresa_validacion'],
        [7, 'url_servicio_prueba'],
        [8, 'url_pruebas_comunicacion'],
        [10, 'inicio_prueba_aprobaciones'],
        [12, 'url_produccion'],
        [13, 'declaracion_jurada'],
        [14, 'verificacion_estatus'],
      ],
    );
    // 25 e-CF, 4 RFCE, and the 11 approvals DGII's step-3 workbook mirrors (the set's 31, 33, 34, 44 and 45).
    assert.deepEqual(process.cases, { total: 40, pending: 40, sent: 0, accepted: 0, rejected: 0, error: 0 });
    const registrado = process.checklist.find((item) => item.id === 'registrado');
    assert.ok(
      registrado?.links.includes('https://ecf.example.do/certecf/' + main.rnc + '/fe/recepcion/api/ecf'),
      JSON.stringify(registrado),
    );

    const cases = await call(main.apiKey, 'GET', `/api/v1/certificacion/${process.id}/casos`);
    assert.equal(cases.statusCode, 200);
    const rows = cases.json<{
      data: { kind: string; caseKey: string; step: number; route: string; dependsOn: string | null; origin: string }[];
    }>().data;
    assert.equal(
      rows.filter(
        (row) => row.kind === 'ACECF' && row.origin === 'derived' && row.step === 3 && row.route === 'approval',
      ).length,
      11,
    );
    assert.equal(
      rows.filter((row) => row.route === 'rfce').length,
      8,
      'the four small 32s and their RFCE go the RFCE way',
    );
    assert.ok(
      rows
        .filter((row) => row.kind === 'ECF' && ['33', '34'].includes(row.caseKey.slice(10, 12)))
        .every((row) => row.dependsOn !== null),
    );
    const filtered = await call(main.apiKey, 'GET', `/api/v1/certificacion/${process.id}/casos?status=accepted`);
    assert.deepEqual(filtered.json<{ data: unknown[] }>().data, []);

    assertProblem(
      await call(main.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(main.rnc)),
      409,
      'certification_active_exists',
    );
    const latest = await call(main.apiKey, 'GET', '/api/v1/certification');
    assert.equal(
      latest.json<{ data: { id: string } }>().data.id,
      process.id,
      'the English alias reads the same process',
    );
    const events = await sql<{
      type: string;
    }>`select type from domain_events where company_id = ${main.companyId} and type like 'certification.%'`.execute(
      app.application.database.db,
    );
    assert.deepEqual(
      events.rows.map((row) => row.type),
      ['certification.process_updated'],
    );
  });

  it("confirms manual steps only in the portal's order, recorded for audit, and ends with cancel", async () => {
    const tenantB = await tenant(app);
    const started = await call(tenantB.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(tenantB.rnc));
    const id = started.json<{ data: { id: string } }>().data.id;

    assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/pasos/inventado/confirmar`, {}),
      404,
      'certification_step_not_found',
    );
    const early = assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/ejecutar`),
      409,
      'certification_step_blocked',
    );
    assert.match(early.detail, /registrado/);
    assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/ejecutar?limit=abc`),
      400,
      'validation_failed',
    );
    const blocked = assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/pasos/url_produccion/confirmar`, {}),
      409,
      'certification_step_blocked',
    );
    assert.match(blocked.detail, /1 Registrado/);
    assert.match(blocked.detail, /11 Recepción Aprobación Comercial/);

    const confirmed = await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/pasos/registrado/confirmar`, {
      note: 'postulación validada',
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const view = confirmed.json<{
      data: {
        steps: { number: number; status: string }[];
        confirmations: {
          step: number;
          key: string;
          note: string;
          apiKeyId: string;
          correlationId: string;
          confirmedAt: string;
        }[];
        timeline: { subject: string; status: string }[];
      };
    }>().data;
    assert.deepEqual(
      view.steps.slice(0, 3).map((step) => step.status),
      ['done', 'open', 'locked'],
    );
    assert.equal(view.confirmations.length, 1);
    assert.deepEqual(
      { ...view.confirmations[0], apiKeyId: undefined },
      {
        step: 1,
        key: 'registrado',
        note: 'postulación validada',
        apiKeyId: undefined,
        correlationId: 'corr-cert-1',
        carriedFrom: null,
        confirmedAt: view.confirmations[0]!.confirmedAt,
      },
    );
    assert.match(view.confirmations[0]!.apiKeyId, /^key_/);
    assert.ok(view.timeline.some((entry) => entry.subject === 'step 2' && entry.status === 'open'));
    // Step 5 waits for the automatic steps 2-4.
    assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/pasos/representacion_impresa_envio/confirmar`),
      409,
      'certification_step_blocked',
    );
    const incomplete = assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/completar`),
      409,
      'certification_incomplete',
    );
    assert.match(incomplete.detail, /cases_accepted/);

    assertFieldError(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/cancelar`, {}),
      400,
      'validation_failed',
      '/reason',
    );
    const cancelled = await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/cancelar`, {
      reason: 'otro representante',
    });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    assert.equal(
      cancelled.json<{ data: { status: string; cancelReason: string } }>().data.cancelReason,
      'otro representante',
    );
    assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/cancelar`, { reason: 'otra vez' }),
      409,
      'certification_not_active',
    );
    assertProblem(
      await call(tenantB.apiKey, 'POST', `/api/v1/certificacion/${id}/pasos/registrado/confirmar`, {}),
      409,
      'certification_not_active',
    );
    // Read-only routes still work on a finished process.
    assert.equal((await call(tenantB.apiKey, 'GET', `/api/v1/certificacion/${id}`)).statusCode, 200);
    assert.equal((await call(tenantB.apiKey, 'GET', `/api/v1/certificacion/${id}/casos`)).statusCode, 200);
    const types = await sql<{
      type: string;
      payload: Json;
    }>`select type, payload from domain_events where company_id = ${tenantB.companyId} and type like 'certification.%' order by occurred_at, id`.execute(
      app.application.database.db,
    );
    assert.deepEqual(
      types.rows.map((row) => row.type).sort(),
      [
        'certification.process_updated',
        'certification.process_updated',
        'certification.step_updated',
        'certification.step_updated',
      ].sort(),
    );
    // A new process may start once the other is over.
    assert.equal(
      (await call(tenantB.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(tenantB.rnc))).statusCode,
      201,
    );
  });

  it('refuses a set with the known defective type 34, naming the case and the pointer, and starts nothing', async () => {
    const tenantC = await tenant(app);
    const file = setFile(tenantC.rnc, ['type34_without_tipo_ingresos']);
    const defective = (file['cases'] as { kind: string; caseKey: string; payload: Json }[]).findIndex(
      (setCase) =>
        setCase.kind === 'ECF' &&
        (setCase.payload['Encabezado'] as { IdDoc: Json }).IdDoc['TipoeCF'] === '34' &&
        !('TipoIngresos' in (setCase.payload['Encabezado'] as { IdDoc: Json }).IdDoc),
    );
    assert.ok(defective >= 0);
    const refused = assertFieldError(
      await call(tenantC.apiKey, 'POST', '/api/v1/certificacion/iniciar', file),
      422,
      'certification_set_invalid',
      `/cases/${String(defective)}/payload/Encabezado/IdDoc/TipoIngresos`,
    );
    assert.match(refused.detail, new RegExp(`^${(file['cases'] as { caseKey: string }[])[defective]!.caseKey}: `));
    assert.equal((await call(tenantC.apiKey, 'GET', '/api/v1/certificacion')).json<{ data: unknown }>().data, null);
  });

  it('uses the ACECF cases a file gives as they are, instead of deriving them', async () => {
    const tenantE = await tenant(app);
    const file = setFile(tenantE.rnc);
    const ecf = (file['cases'] as { kind: string; ecfType: string; caseKey: string; payload: Json }[]).filter(
      (setCase) => setCase.kind === 'ECF' && setCase.ecfType === '31',
    );
    const approval = (setCase: (typeof ecf)[number], buyer: string) => {
      const encabezado = setCase.payload['Encabezado'] as Record<string, Record<string, string>>;
      return {
        kind: 'ACECF',
        caseKey: `${buyer}${encabezado['IdDoc']!['eNCF']!}`,
        payload: {
          DetalleAprobacionComercial: {
            Version: '1.0',
            RNCEmisor: encabezado['Comprador']!['RNCComprador']!,
            eNCF: encabezado['IdDoc']!['eNCF']!,
            FechaEmision: encabezado['Emisor']!['FechaEmision']!,
            MontoTotal: encabezado['Totales']!['MontoTotal']!,
            RNCComprador: buyer,
            Estado: '1',
            FechaHoraAprobacionComercial: '01-05-2020 10:00:00',
          },
        },
      };
    };
    const foreign = { ...file, cases: [...(file['cases'] as unknown[]), approval(ecf[0]!, nextRnc())] };
    assert.ok(
      assertProblem(
        await call(tenantE.apiKey, 'POST', '/api/v1/certificacion/iniciar', foreign),
        422,
        'certification_set_invalid',
      ).errors?.some(
        (error) =>
          error.code === 'not_the_company' &&
          error.pointer.endsWith('/payload/DetalleAprobacionComercial/RNCComprador'),
      ),
    );
    const given = {
      ...file,
      cases: [...(file['cases'] as unknown[]), ...ecf.slice(0, 2).map((setCase) => approval(setCase, tenantE.rnc))],
    };
    const started = await call(tenantE.apiKey, 'POST', '/api/v1/certificacion/iniciar', given);
    assert.equal(started.statusCode, 201, started.body);
    const id = started.json<{ data: { id: string } }>().data.id;
    const approvals = (await call(tenantE.apiKey, 'GET', `/api/v1/certificacion/${id}/casos`))
      .json<{ data: { kind: string; origin: string }[] }>()
      .data.filter((row) => row.kind === 'ACECF');
    assert.deepEqual(
      approvals.map((row) => row.origin),
      ['set', 'set'],
    );
  });

  it('refuses bad input with a clear 4xx', async () => {
    const tenantD = await tenant(app);
    assertProblem(await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', {}), 400, 'validation_failed');
    assertFieldError(
      await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', { label: 'x', cases: 'no' }),
      400,
      'validation_failed',
      '/cases',
    );
    assertProblem(
      await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', {
        label: 'x',
        cases: [{ kind: 'ECF', caseKey: 'K', payload: { Encabezado: 5 } }],
      }),
      422,
      'certification_set_invalid',
    );
    const unpaired = setFile(tenantD.rnc);
    const withoutRfce = {
      ...unpaired,
      cases: (unpaired['cases'] as { kind: string }[]).filter((setCase) => setCase.kind !== 'RFCE'),
    };
    const missing = assertProblem(
      await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', withoutRfce),
      422,
      'certification_set_invalid',
    );
    assert.equal(missing.errors?.filter((error) => error.code === 'rfce_case_missing').length, 4);
    const wrongIssuer = setFile(nextRnc());
    assert.ok(
      assertProblem(
        await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', wrongIssuer),
        422,
        'certification_set_invalid',
      ).errors?.some((error) => error.code === 'not_the_issuer'),
    );
    // A payload nested deeper than any e-CF, and a type 32 whose MontoTotal is no amount: 422, never a 500; a body
    // deeper than any the contract defines is refused before it is read (platform/http/input-screen.ts).
    const deep = (levels: number) =>
      `{"label":"x","cases":[{"kind":"ECF","caseKey":"K","payload":{"Encabezado":${'['.repeat(levels)}"x"${']'.repeat(levels)}}}]}`;
    const start = (payload: string) =>
      app.app.inject({
        method: 'POST',
        url: '/api/v1/certificacion/iniciar',
        headers: { 'x-api-key': tenantD.apiKey, 'content-type': 'application/json' },
        payload,
      });
    const nested = assertProblem(await start(deep(20)), 422, 'certification_set_invalid');
    assert.equal(nested.errors?.[0]?.code, 'too_deep');
    assert.equal(assertProblem(await start(deep(5_000)), 400, 'malformed_body').errors?.[0]?.code, 'too_deep');
    const badAmount = setFile(tenantD.rnc);
    const small32 = (
      badAmount['cases'] as {
        kind: string;
        ecfType: string;
        payload: { Encabezado: { Totales: Record<string, string> } };
      }[]
    ).find((setCase) => setCase.kind === 'ECF' && setCase.ecfType === '32');
    small32!.payload.Encabezado.Totales['MontoTotal'] = '1,5E+21';
    assertProblem(
      await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', badAmount),
      422,
      'certification_set_invalid',
    );
    assertProblem(
      await call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', {
        label: 'x',
        cases: [{ kind: 'ACECF', caseKey: 'a b', payload: {} }],
      }),
      400,
      'validation_failed',
    );
    // Two starts at once: one process, the other told so.
    const [one, two] = await Promise.all([
      call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(tenantD.rnc)),
      call(tenantD.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(tenantD.rnc)),
    ]);
    assert.deepEqual([one.statusCode, two.statusCode].sort(), [201, 409]);
    assertProblem(await call(tenantD.apiKey, 'GET', '/api/v1/certificacion/cpr_nope'), 404, 'certification_not_found');
    assertProblem(
      await call(tenantD.apiKey, 'GET', '/api/v1/certificacion/cpr_nope/casos?status=nada'),
      400,
      'validation_failed',
    );
    const text = await app.app.inject({
      method: 'POST',
      url: '/api/v1/certificacion/iniciar',
      headers: { 'x-api-key': tenantD.apiKey, 'content-type': 'application/json' },
      payload: '{"label": ',
    });
    assertProblem(text, 400, 'malformed_body');
  });

  it('keeps tenants apart, and needs the scope, an enabled company and a certificate', async () => {
    const owner = await tenant(app);
    const id = (await call(owner.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(owner.rnc))).json<{
      data: { id: string };
    }>().data.id;
    const other = await tenant(app);
    for (const [method, url, body] of [
      ['GET', `/api/v1/certificacion/${id}`, undefined],
      ['GET', `/api/v1/certificacion/${id}/casos`, undefined],
      ['POST', `/api/v1/certificacion/${id}/pasos/registrado/confirmar`, {}],
      ['POST', `/api/v1/certificacion/${id}/cancelar`, { reason: 'ajeno' }],
      ['POST', `/api/v1/certificacion/${id}/completar`, undefined],
      ['POST', `/api/v1/certificacion/${id}/ejecutar`, undefined],
    ] as const) {
      const answer = assertProblem(await call(other.apiKey, method, url, body), 404, 'certification_not_found');
      assert.doesNotMatch(JSON.stringify(answer), new RegExp(owner.rnc));
    }
    assert.equal((await call(other.apiKey, 'GET', '/api/v1/certificacion')).json<{ data: unknown }>().data, null);

    const { apiKey: noScope } = await app.issueKey(owner.companyId, ['documents:read']);
    assertProblem(await call(noScope, 'GET', '/api/v1/certificacion'), 403, 'scope_missing');
    const disabled = await tenant(app, { enabled: false });
    assertProblem(await call(disabled.apiKey, 'GET', '/api/v1/certificacion'), 403, 'certification_not_enabled');
    assertProblem(
      await call(disabled.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(disabled.rnc)),
      403,
      'certification_not_enabled',
    );
    const uncertified = await tenant(app, { certificate: false });
    assert.equal((await call(uncertified.apiKey, 'GET', '/api/v1/certificacion')).statusCode, 200);
    assertProblem(
      await call(uncertified.apiKey, 'POST', '/api/v1/certificacion/iniciar', setFile(uncertified.rnc)),
      403,
      'certification_certificate_missing',
    );
  });
});

describe('certification outside CERT', () => {
  it('answers 403 certification_cert_only to a TEST key on a TEST instance', async () => {
    const app = await startTestApp({ env: { FISCAL_ENV: 'TEST' } });
    try {
      const companyId = await app.provisionCompany({ certificationEnabled: true });
      const { apiKey } = await app.issueKey(companyId, ['certification:manage']);
      for (const [method, url] of [
        ['GET', '/api/v1/certificacion'],
        ['POST', '/api/v1/certificacion/iniciar'],
        ['GET', '/api/v1/certificacion/cpr_x'],
        ['POST', '/api/v1/certificacion/cpr_x/completar'],
        ['POST', '/api/v1/certificacion/cpr_x/ejecutar'],
      ] as const) {
        const answer = await app.app.inject({
          method,
          url,
          headers: { 'x-api-key': apiKey },
          ...(method === 'POST'
            ? {
                payload: url.endsWith('iniciar')
                  ? { label: 'x', cases: [{ kind: 'ECF', caseKey: 'k', payload: {} }] }
                  : {},
              }
            : {}),
        });
        assertProblem(answer, 403, 'certification_cert_only');
      }
    } finally {
      await app.close();
    }
  });
});
