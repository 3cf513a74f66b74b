// The list of documents as the console searches it (issue 45): by e-NCF, by buyer, by issue day (FechaEmision, a
// GMT-4 day, both bounds inclusive), each alone and with the others and the list's older filters, paged by the same
// cursor, newest first; another company's documents never answer; a bad value is a 400 problem naming its parameter.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isValidCedula } from '../src/fiscal/taxpayer-id.js';
import { fixedClock } from '../src/platform/clock.js';
import { installTestCertificate } from './support/archive-world.js';
import { assertFieldError } from './support/assert-problem.js';
import { buyerRnc, ecfDocuments, fictitiousRnc, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';

type Json = Record<string, Record<string, Record<string, unknown>>>;
interface Listed {
  id: string;
  eNCF: string;
  fechaEmision: string;
  rncComprador: string | null;
}
interface Page {
  data: Listed[];
  meta: { nextCursor: string | null };
}

const otherBuyer = fictitiousRnc('13055555');
/** A made-up cédula: ten chosen digits and the check digit they call for. */
const cedula = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']
  .map((digit) => `0010000001${digit}`)
  .find(isValidCedula) as string;
const otherIssuer = fictitiousRnc('13011111');

/** A fixture of `type` issued on `fechaEmision` to `buyer` (none for a 32 without RNCComprador). */
function issued(type: '31' | '32', fechaEmision: string, buyer?: string, issuer = true): Json {
  const body = structuredClone(ecfDocuments[type]) as Json;
  const header = body['Encabezado'] as Record<string, Record<string, unknown>>;
  (header['Emisor'] as Record<string, unknown>)['FechaEmision'] = fechaEmision;
  if (!issuer) delete (header['Emisor'] as Record<string, unknown>)['RNCEmisor'];
  if (buyer !== undefined) (header['Comprador'] as Record<string, unknown>)['RNCComprador'] = buyer;
  return body;
}

describe('GET /api/v1/documentos: e-NCF, buyer and issue-day filters', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));
  /** The company's documents by name, as created. */
  const made: Record<string, Listed> = {};
  let otherCompanyDocument: Listed;

  const get = (url: string, apiKey = key) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
  const list = async (query: string, apiKey = key) => {
    const response = await get(`/api/v1/documentos?${query}`, apiKey);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Page>();
  };
  const nameOf = (document: Listed) => {
    const name = Object.keys(made).find((candidate) => made[candidate]?.id === document.id);
    assert.ok(name !== undefined, `${document.id} (${document.eNCF}) is not one of the company's documents`);
    return name;
  };
  /** The names of the company's documents a query lists, in the order listed. */
  const names = async (query: string) => (await list(query)).data.map(nameOf);

  before(async () => {
    app = await startTestApp({ clock });
    const scopes = ['documents:create', 'documents:read', 'sequences:manage'] as const;
    const companyId = await app.provisionCompany({ rnc: issuerRnc });
    await installTestCertificate(app, companyId, issuerRnc);
    key = (await app.issueKey(companyId, scopes)).apiKey;
    const otherCompany = await app.provisionCompany({ rnc: otherIssuer });
    await installTestCertificate(app, otherCompany, otherIssuer);
    otherKey = (await app.issueKey(otherCompany, scopes)).apiKey;
    for (const [apiKey, type] of [
      [key, '31'],
      [key, '32'],
      [otherKey, '31'],
    ] as const) {
      const registered = await app.app.inject({
        method: 'POST',
        url: '/api/v1/secuencias/rangos',
        headers: { 'x-api-key': apiKey },
        payload: {
          ecfType: type,
          from: `E${type}0000000001`,
          to: `E${type}0000001000`,
          ...(type === '32' ? {} : { expiresOn: '31-12-2027' }),
        },
      });
      assert.equal(registered.statusCode, 201, registered.body);
    }
    const create = async (body: Json, apiKey = key) => {
      // A minute apart, so newest first is the order they were made in.
      clock.advance(60_000);
      const response = await app.app.inject({
        method: 'POST',
        url: '/api/v1/documentos',
        headers: { 'x-api-key': apiKey },
        payload: body,
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<{ data: Listed }>().data;
    };
    made['a1'] = await create(issued('31', '01-11-2026', buyerRnc));
    made['a2'] = await create(issued('31', '10-11-2026', otherBuyer));
    made['a3'] = await create(issued('31', '10-11-2026', buyerRnc));
    made['a4'] = await create(issued('32', '15-11-2026'));
    made['a5'] = await create(issued('31', '15-11-2026', cedula));
    made['a6'] = await create(issued('31', '21-11-2026', buyerRnc));
    // Made last, issued first: the filter reads FechaEmision, not when the document was made.
    made['a7'] = await create(issued('31', '30-10-2026', buyerRnc));
    // Another company: the same e-NCF as a1, the buyer and the day of a3.
    otherCompanyDocument = await create(issued('31', '10-11-2026', buyerRnc, false), otherKey);
    assert.equal(made['a1'].eNCF, 'E310000000001');
    assert.equal(otherCompanyDocument.eNCF, 'E310000000001');
  });
  after(() => app.close());

  it('finds a document by its e-NCF, and only the company’s own', async () => {
    assert.deepEqual(await names('eNCF=E310000000003'), ['a3']);
    assert.deepEqual(await names('eNCF=E320000000001'), ['a4']);
    assert.deepEqual(await names('eNCF=E310000000001'), ['a1']);
    assert.deepEqual(await names('eNCF=E310000000999'), []);
    const theirs = await list('eNCF=E310000000001', otherKey);
    assert.deepEqual(
      theirs.data.map((document) => document.id),
      [otherCompanyDocument.id],
    );
  });

  it("lists a buyer's documents newest first, by RNC or by cédula", async () => {
    assert.deepEqual(await names(`rncComprador=${buyerRnc}`), ['a7', 'a6', 'a3', 'a1']);
    assert.deepEqual(await names(`rncComprador=${otherBuyer}`), ['a2']);
    assert.deepEqual(await names(`rncComprador=${cedula}`), ['a5']);
    const page = await list(`rncComprador=${cedula}`);
    assert.equal(page.data[0]?.rncComprador, cedula);
    // The other company's document to the same buyer is theirs alone.
    assert.deepEqual(
      (await list(`rncComprador=${buyerRnc}`, otherKey)).data.map((document) => document.id),
      [otherCompanyDocument.id],
    );
  });

  it('bounds the issue day inclusively, either bound alone or both', async () => {
    assert.deepEqual(await names('desde=2026-11-10&hasta=2026-11-15'), ['a5', 'a4', 'a3', 'a2']);
    assert.deepEqual(await names('desde=2026-11-10&hasta=2026-11-10'), ['a3', 'a2']);
    assert.deepEqual(await names('desde=2026-11-15'), ['a6', 'a5', 'a4']);
    assert.deepEqual(await names('hasta=2026-11-01'), ['a7', 'a1']);
    assert.deepEqual(await names('desde=2026-11-02&hasta=2026-11-09'), []);
    // A span longer than a year is read along the listing index rather than a day at a time: the same answer.
    assert.deepEqual(await names('desde=2025-10-01&hasta=2026-11-10'), ['a7', 'a3', 'a2', 'a1']);
    assert.deepEqual(await names('desde=2025-11-10&hasta=2026-11-10'), ['a7', 'a3', 'a2', 'a1']);
    const days = (await list('desde=2026-11-10&hasta=2026-11-10')).data.map((document) => document.fechaEmision);
    assert.deepEqual(days, ['10-11-2026', '10-11-2026']);
  });

  it('combines the filters with each other and with status and ecfType', async () => {
    assert.deepEqual(await names(`rncComprador=${buyerRnc}&desde=2026-11-01&hasta=2026-11-10`), ['a3', 'a1']);
    assert.deepEqual(await names(`rncComprador=${buyerRnc}&hasta=2026-11-01&status=signed`), ['a7', 'a1']);
    assert.deepEqual(await names('ecfType=32&desde=2026-11-15'), ['a4']);
    assert.deepEqual(await names('ecfType=31&desde=2026-11-15&hasta=2026-11-15'), ['a5']);
    assert.deepEqual(await names(`eNCF=E310000000003&rncComprador=${buyerRnc}&desde=2026-11-10`), ['a3']);
    assert.deepEqual(await names(`eNCF=E310000000003&rncComprador=${otherBuyer}`), []);
    assert.deepEqual(await names('eNCF=E310000000003&desde=2026-11-11'), []);
    assert.deepEqual(await names(`rncComprador=${buyerRnc}&status=accepted`), []);
    // The English alias takes the same filters.
    const alias = await get(`/api/v1/documents?rncComprador=${otherBuyer}`);
    assert.deepEqual(
      alias.json<Page>().data.map((document) => document.id),
      [made['a2']?.id],
    );
  });

  it('pages through a filtered list with the cursor, each document once, in order', async () => {
    for (const [query, expected] of [
      [`rncComprador=${buyerRnc}`, ['a7', 'a6', 'a3', 'a1']],
      ['desde=2026-11-10&hasta=2026-11-21', ['a6', 'a5', 'a4', 'a3', 'a2']],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Page = await list(`${query}&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`);
        assert.ok(page.data.length <= 2);
        seen.push(...page.data.map(nameOf));
        cursor = page.meta.nextCursor;
        pages++;
      } while (cursor !== null && pages < 10);
      assert.deepEqual(seen, expected, query);
      assert.equal(pages, Math.ceil(expected.length / 2), query);
    }
  });

  it('answers a 400 problem naming the parameter for a value of the wrong shape', async () => {
    for (const [query, pointer] of [
      ['eNCF=E31000000001', '/eNCF'],
      ['eNCF=X310000000001', '/eNCF'],
      ['eNCF=e310000000001', '/eNCF'],
      ['rncComprador=13012345', '/rncComprador'],
      ['rncComprador=1301234567', '/rncComprador'],
      ['rncComprador=130-12345-4', '/rncComprador'],
      ['desde=21-11-2026', '/desde'],
      ['hasta=2026-11-1', '/hasta'],
      ['desde=2026-13-01', '/desde'],
      ['hasta=2026-02-30', '/hasta'],
    ] as const) {
      const error = assertFieldError(await get(`/api/v1/documentos?${query}`), 400, 'validation_failed', pointer);
      assert.equal(error.in, 'query', query);
    }
  });

  it('refuses desde after hasta, naming both', async () => {
    const response = await get('/api/v1/documentos?desde=2026-11-15&hasta=2026-11-10');
    const desde = assertFieldError(response, 400, 'validation_failed', '/desde');
    const hasta = assertFieldError(response, 400, 'validation_failed', '/hasta');
    assert.deepEqual([desde.in, hasta.in], ['query', 'query']);
    assert.match(response.json<{ detail: string }>().detail, /desde 2026-11-15 is after hasta 2026-11-10/);
  });
});
