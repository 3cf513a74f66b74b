// The preview of an e-CF (POST /api/v1/documentos/vista-previa, issue 45): the body creation takes, composed and
// checked by creation's own code, answered with its totals, its lines and its findings; its totals are those the
// created document then shows, to the character; an invalid e-CF is answered 200 with valid false and the findings
// creation refuses it with; a body that is not a JSON object is a 4xx problem, as for creation; and nothing is
// numbered, signed or stored.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ecfTypes } from '../src/fiscal/model/ecf-model-types.js';
import { fixedClock } from '../src/platform/clock.js';
import type { ProblemBody } from '../src/platform/http/problems.js';
import { installTestCertificate } from './support/archive-world.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { buyerRnc, ecfDocuments, fictitiousRnc, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';

type Json = Record<string, unknown>;
interface Finding {
  pointer: string;
  code: string;
  severity: 'error' | 'warning';
  detail: string;
}
interface Preview {
  valid: boolean;
  ecfType: string | null;
  fechaEmision: string | null;
  montoTotal: string | null;
  totalITBIS: string | null;
  totales: Record<string, string> | null;
  otraMoneda: Record<string, string> | null;
  lineas: { numeroLinea: string; montoItem: string; montoItemOtraMoneda: string | null }[];
  findings: Finding[];
}
interface Created {
  id: string;
  eNCF: string;
  fechaEmision: string;
  montoTotal: string;
  totalITBIS: string | null;
  warnings: { pointer: string; code: string; detail: string }[];
}

/** A copy of a fixture with `edit` applied to it. */
function edited(type: keyof typeof ecfDocuments, edit: (document: Record<string, Record<string, Json>>) => void) {
  const document = structuredClone(ecfDocuments[type]) as Record<string, Record<string, Json>>;
  edit(document);
  return document;
}

/** The text leaves of a group: what a preview shows of Totales or OtraMoneda. */
function amountsOf(group: unknown): Record<string, string> | null {
  if (typeof group !== 'object' || group === null) return null;
  return Object.fromEntries(Object.entries(group).filter((entry) => typeof entry[1] === 'string'));
}

describe('POST /api/v1/documentos/vista-previa', () => {
  let app: TestApp;
  let key: string;
  let readOnlyKey: string;
  let companyId: string;
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));

  /** A body given as text goes on the wire as it is (JSON or not); an object is sent as JSON. */
  const call = (url: string, body: unknown, headers: Record<string, string> = {}, apiKey = key) =>
    app.app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const preview = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await call('/api/v1/documentos/vista-previa', body, headers);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: Preview }>().data;
  };
  const create = (body: unknown) => call('/api/v1/documentos', body);
  const created = async (body: unknown) => {
    const response = await create(body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: Created }>().data;
  };
  const errorsOf = (findings: Finding[]) =>
    findings.filter((finding) => finding.severity === 'error').map(({ pointer, code }) => ({ pointer, code }));

  before(async () => {
    app = await startTestApp({ clock });
    companyId = await app.provisionCompany({ rnc: issuerRnc });
    await installTestCertificate(app, companyId, issuerRnc);
    key = (await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage', 'sequences:read']))
      .apiKey;
    readOnlyKey = (await app.issueKey(companyId, ['documents:read'])).apiKey;
    for (const type of ecfTypes) {
      const registered = await app.app.inject({
        method: 'POST',
        url: '/api/v1/secuencias/rangos',
        headers: { 'x-api-key': key },
        payload: {
          ecfType: type,
          from: `E${type}0000000001`,
          to: `E${type}0000001000`,
          ...(type === '32' || type === '34' ? {} : { expiresOn: '31-12-2027' }),
        },
      });
      assert.equal(registered.statusCode, 201, registered.body);
    }
  });
  after(() => app.close());

  it('computes Totales and the lines from a body that leaves them out, as strings to the cent', async () => {
    const sent = edited('31', (document) => {
      delete document['Encabezado']?.['Totales'];
      delete (document['Encabezado']?.['Emisor'] as Json)['FechaEmision'];
    });
    const shown = await preview(sent);
    assert.deepEqual(shown, {
      valid: true,
      ecfType: '31',
      fechaEmision: '21-11-2026',
      montoTotal: '1430.00',
      totalITBIS: '180.00',
      totales: {
        MontoGravadoTotal: '1000.00',
        MontoGravadoI1: '1000.00',
        MontoExento: '250.00',
        ITBIS1: '18',
        TotalITBIS: '180.00',
        TotalITBIS1: '180.00',
        MontoTotal: '1430.00',
      },
      otraMoneda: null,
      lineas: [
        { numeroLinea: '1', montoItem: '1000.00', montoItemOtraMoneda: null },
        { numeroLinea: '2', montoItem: '250.00', montoItemOtraMoneda: null },
      ],
      findings: [],
    });
    const document = await created(sent);
    assert.deepEqual(
      [document.montoTotal, document.totalITBIS, document.fechaEmision],
      [shown.montoTotal, shown.totalITBIS, shown.fechaEmision],
    );
  });

  for (const type of ecfTypes) {
    it(`shows for an e-CF ${type} exactly the totals and warnings creation then writes`, async () => {
      const shown = await preview(ecfDocuments[type]);
      assert.equal(shown.valid, true, JSON.stringify(shown.findings));
      assert.equal(shown.ecfType, type);
      const document = await created(ecfDocuments[type]);
      assert.deepEqual(
        { montoTotal: shown.montoTotal, totalITBIS: shown.totalITBIS, fechaEmision: shown.fechaEmision },
        { montoTotal: document.montoTotal, totalITBIS: document.totalITBIS, fechaEmision: document.fechaEmision },
      );
      assert.deepEqual(
        shown.findings.map(({ pointer, code, detail }) => ({ pointer, code, detail })),
        document.warnings,
      );
      // Totales and OtraMoneda as the signed XML carries them, read back from the archive.
      const normalized = await app.app.inject({
        method: 'GET',
        url: `/api/v1/documentos/${document.id}/normalizado`,
        headers: { 'x-api-key': key },
      });
      const header = normalized.json<{ data: { document: { Encabezado: Json } } }>().data.document.Encabezado;
      assert.deepEqual(shown.totales, amountsOf(header['Totales']));
      assert.deepEqual(shown.otraMoneda, amountsOf(header['OtraMoneda']));
    });
  }

  it('shows the amounts of another currency, and each line in it', async () => {
    const shown = await preview(ecfDocuments['46']);
    assert.deepEqual(shown.otraMoneda, {
      TipoMoneda: 'USD',
      TipoCambio: '58.5000',
      MontoGravadoTotalOtraMoneda: '2000.00',
      MontoGravado3OtraMoneda: '2000.00',
      TotalITBISOtraMoneda: '0.00',
      TotalITBIS3OtraMoneda: '0.00',
      MontoTotalOtraMoneda: '2000.00',
    });
    assert.deepEqual(shown.lineas, [{ numeroLinea: '1', montoItem: '117000.00', montoItemOtraMoneda: '2000.00' }]);
  });

  it('answers 200 with valid false and the findings creation refuses the e-CF with, at the fields', async () => {
    const badCheckDigit = `${buyerRnc.slice(0, 8)}${String((Number(buyerRnc.slice(8)) + 1) % 10)}`;
    for (const [edit, pointer] of [
      // Outside its catalogue: the model of the type refuses it.
      [(idDoc: Json) => (idDoc['TipoPago'] = 9), '/Encabezado/IdDoc/TipoPago'],
      // A fiscal rule across the document: the buyer's RNC check digit.
      [(_: Json, comprador: Json) => (comprador['RNCComprador'] = badCheckDigit), '/Encabezado/Comprador/RNCComprador'],
    ] as const) {
      const invalid = edited('31', (document) =>
        edit(document['Encabezado']?.['IdDoc'] as Json, document['Encabezado']?.['Comprador'] as Json),
      );
      const shown = await preview(invalid);
      assert.equal(shown.valid, false);
      const refused = assertProblem(await create(invalid), 422, 'document_invalid');
      assert.deepEqual(
        errorsOf(shown.findings),
        (refused.errors ?? []).map(({ pointer: at, code }) => ({ pointer: at, code })),
      );
      assert.ok(
        errorsOf(shown.findings).some((finding) => finding.pointer === pointer),
        JSON.stringify(shown.findings),
      );
      // The lines are sound: their totals are shown all the same.
      assert.equal(shown.montoTotal, '1430.00');
    }
  });

  it('computes the MontoItem of a line sent without one, which creation then writes', async () => {
    const body = edited('31', (document) => {
      delete (document['DetallesItems']?.['Item'] as unknown as Json[])[0]?.['MontoItem'];
      delete document['Encabezado']?.['Totales'];
    });
    const shown = await preview(body);
    assert.deepEqual(errorsOf(shown.findings), []);
    assert.equal(shown.valid, true);
    assert.deepEqual(shown.lineas[0], { numeroLinea: '1', montoItem: '1000.00', montoItemOtraMoneda: null });
    const document = await created(body);
    assert.equal(document.montoTotal, shown.montoTotal);
    const xml = await app.app.inject({
      url: `/api/v1/documentos/${document.id}/artefactos/signed-xml`,
      headers: { 'x-api-key': key },
    });
    assert.match(
      xml.body,
      /<Item><NumeroLinea>1<\/NumeroLinea>.*<PrecioUnitarioItem>500\.0+<\/PrecioUnitarioItem><MontoItem>1000\.00<\/MontoItem><\/Item>/,
    );
  });

  it('keeps a MontoItem sent as written, and checks it against the line', async () => {
    const shown = await preview(
      edited('31', (document) => {
        ((document['DetallesItems']?.['Item'] as unknown as Json[])[0] ?? {})['MontoItem'] = '1500.00';
        delete document['Encabezado']?.['Totales'];
      }),
    );
    assert.equal(shown.lineas[0]?.montoItem, '1500.00');
    assert.ok(
      shown.findings.some((finding) => finding.pointer === '/DetallesItems/Item/0/MontoItem'),
      JSON.stringify(shown.findings),
    );
  });

  it('shows totals beyond DGII tolerance as a warning, which creation records with the document', async () => {
    const beyond = edited('31', (document) => {
      (document['Encabezado']?.['Totales'] as Json)['MontoTotal'] = '1500.00';
    });
    const shown = await preview(beyond);
    assert.equal(shown.valid, true);
    assert.equal(shown.montoTotal, '1500.00');
    assert.deepEqual(
      shown.findings.map((finding) => [finding.pointer, finding.severity]),
      [['/Encabezado/Totales/MontoTotal', 'warning']],
    );
    const document = await created(beyond);
    assert.equal(document.montoTotal, '1500.00');
    assert.deepEqual(
      document.warnings,
      shown.findings.map(({ pointer, code, detail }) => ({ pointer, code, detail })),
    );
  });

  it("names an e-NCF sent by the client and another company's RNCEmisor as findings", async () => {
    const numbered = await preview(
      edited('31', (document) => {
        (document['Encabezado']?.['IdDoc'] as Json)['eNCF'] = 'E310000000001';
      }),
    );
    assert.equal(numbered.valid, false);
    assert.deepEqual(errorsOf(numbered.findings), [{ pointer: '/Encabezado/IdDoc/eNCF', code: 'service_owned' }]);
    const foreign = await preview(
      edited('31', (document) => {
        (document['Encabezado']?.['Emisor'] as Json)['RNCEmisor'] = fictitiousRnc('13011111');
      }),
    );
    assert.deepEqual(
      { valid: foreign.valid, totales: foreign.totales, lineas: foreign.lineas, errors: errorsOf(foreign.findings) },
      {
        valid: false,
        totales: null,
        lineas: [],
        errors: [{ pointer: '/Encabezado/Emisor/RNCEmisor', code: 'not_the_issuer' }],
      },
    );
  });

  it('answers a body that is not a JSON object with the 4xx problem creation answers', async () => {
    for (const [body, status, code, pointer] of [
      ['{"Encabezado": {"IdDoc": ', 400, 'malformed_body', '/'],
      [JSON.stringify([ecfDocuments['31']]), 400, 'validation_failed', '/'],
      [JSON.stringify('E310000000001'), 400, 'validation_failed', '/'],
    ] as const) {
      const answered = assertFieldError(await call('/api/v1/documentos/vista-previa', body), status, code, pointer);
      const byCreation = (await call('/api/v1/documentos', body)).json<ProblemBody>();
      assert.deepEqual(
        [byCreation.status, byCreation.code, byCreation.errors?.[0]?.code],
        [status, code, answered.code],
      );
    }
  });

  it('numbers, signs and stores nothing, whatever the body and headers', async () => {
    const db = app.application.database.db;
    const tables = [
      'documents',
      'document_artefacts',
      'document_events',
      'idempotency_keys',
      'idempotent_creations',
      'sequence_burned',
      'domain_events',
    ];
    const storage = app.config.storage;
    assert.equal(storage.kind, 'fs');
    const count = async () => ({
      rows: Object.fromEntries(
        await Promise.all(
          tables.map(
            async (table) =>
              [
                table,
                (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db)).rows[0]?.n,
              ] as const,
          ),
        ),
      ),
      files: readdirSync(storage.root, { recursive: true }).length,
    });
    const remaining = async () => {
      const ranges = await app.app.inject({
        method: 'GET',
        url: '/api/v1/secuencias/rangos?ecfType=43',
        headers: { 'x-api-key': key },
      });
      return ranges.json<{ data: { availability: { remaining: number } }[] }>().data[0]?.availability.remaining ?? 0;
    };
    const before = await count();
    const left = await remaining();
    await preview(ecfDocuments['43']);
    await preview(ecfDocuments['43'], { 'idempotency-key': 'vista-1' });
    await preview(edited('43', (document) => delete document['DetallesItems']));
    const alias = await call('/api/v1/documents/preview', ecfDocuments['43']);
    assert.equal(alias.statusCode, 200, alias.body);
    assert.deepEqual(await count(), before);
    assert.equal(await remaining(), left);
    // The next e-NCF is the one that was next before the previews.
    const next = `E43${String(1000 - left + 1).padStart(10, '0')}`;
    assert.equal((await created(ecfDocuments['43'])).eNCF, next);
  });

  it('answers under its English alias alike, and only to a key that may create documents', async () => {
    const english = await call('/api/v1/documents/preview', ecfDocuments['31']);
    assert.equal(english.statusCode, 200);
    assert.deepEqual(english.json<{ data: Preview }>().data, await preview(ecfDocuments['31']));
    assertProblem(
      await call('/api/v1/documentos/vista-previa', ecfDocuments['31'], {}, readOnlyKey),
      403,
      'scope_missing',
    );
  });
});
