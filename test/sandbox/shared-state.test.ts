// What the sandbox remembers in memory (src/sandbox/state/state-cache.ts) and what it keeps exact in its tables.
// In one process every write is seen at once, even one made straight through upsertTaxpayer as the test kits do.
// Two processes on one database (two sandboxes on two connection pools here) agree at once on what must be exact
// (a token, the countdown of a fault, an e-NCF burned) and see each other's setup within stateFreshnessMs.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { systemClock } from '../../src/platform/clock.js';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import {
  certificateFingerprint,
  createSandbox,
  ensureTestRanges,
  upsertTaxpayer,
  type Sandbox,
} from '../../src/sandbox/index.js';
import { readDocumentFacts } from '../../src/sandbox/services/document-checks.js';
import { recordReception, rejected, type Verdict } from '../../src/sandbox/services/reception-documents.js';
import { stateFreshnessMs } from '../../src/sandbox/state/state-cache.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/backends.js';
import { fictitiousRnc } from '../support/ecf-documents.js';
import {
  issuerRnc,
  registerIssuer,
  resultOf,
  sendEcf,
  signedEcf,
  type SignedDocument,
} from '../support/sandbox-documents.js';
import { authenticate, officialSchemas, startSandbox, type RunningSandbox } from '../support/sandbox-kit.js';
import { testSigningKey } from '../support/xmldsig-kit.js';

type Admin = RunningSandbox['admin'];

function adminAt(url: string): Admin {
  return async (method, path, body) => {
    const response = await fetch(`${url}/sandbox-admin${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
}

/**
 * The verdict of a document sent now, as stored (the admin routes show it even when the session may not see it:
 * an issuer DGII does not know). consultaresultado's code when the session may see it.
 */
async function verdictOf(
  url: string,
  token: string,
  document: SignedDocument,
): Promise<{ codigo: string; mensajes: { codigo: number }[] }> {
  const trackId = await sendEcf(url, token, document);
  const listed = await adminAt(url)('GET', `/documents?encf=${document.encf}&rnc=${document.rnc}`);
  const stored = (listed.body as { track_id: string; messages: { codigo: number }[] }[]).find(
    (row) => row.track_id === trackId,
  );
  assert.ok(stored !== undefined, `document ${trackId} stored`);
  return { codigo: (await resultOf(url, token, trackId)).codigo, mensajes: stored.messages };
}

describe('sandbox state in one process', () => {
  let running: RunningSandbox;
  let token: string;
  const delegatedElsewhere = fictitiousRnc('13055555');

  before(async () => {
    running = await startSandbox();
    assert.equal((await running.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);
    // Only for the session: the issuer of the documents is registered by each test.
    await registerIssuer(running, delegatedElsewhere);
    token = await authenticate(running.url, testSigningKey());
  });
  after(() => running.close());

  it('sees a taxpayer registered straight through upsertTaxpayer and ensureTestRanges at once, right after refusing it as unknown', async () => {
    const document = signedEcf('31', 1);
    assert.equal((await verdictOf(running.url, token, document)).mensajes[0]?.codigo, 1006);
    const { db, clock } = running.sandbox.context;
    await upsertTaxpayer(db, {
      rnc: issuerRnc,
      name: 'EMISOR DE PRUEBA SRL',
      certificateSha256: [certificateFingerprint(testSigningKey().certificatePem)],
    });
    await ensureTestRanges(db, issuerRnc, 'testecf', clock.now());
    assert.equal((await verdictOf(running.url, token, document)).codigo, '1');
  });

  it('applies a processing delay, a fault and a taxpayer change made through the admin routes to the very next request', async () => {
    assert.equal((await running.admin('PUT', '/settings', { processingDelayMs: 60_000 })).status, 200);
    assert.equal((await verdictOf(running.url, token, signedEcf('31', 2))).codigo, '3');
    assert.equal((await running.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);

    assert.equal(
      (await running.admin('POST', '/faults', { service: 'recepcion', mode: 'reject', count: 1 })).status,
      201,
    );
    assert.equal((await verdictOf(running.url, token, signedEcf('31', 3))).mensajes[0]?.codigo, 1099);
    assert.equal((await verdictOf(running.url, token, signedEcf('31', 4))).codigo, '1');

    assert.equal(
      (
        await running.admin('POST', '/taxpayers', {
          rnc: issuerRnc,
          name: 'EMISOR DE PRUEBA SRL',
          active: false,
          certificates: [testSigningKey().certificatePem],
        })
      ).status,
      201,
    );
    assert.equal((await verdictOf(running.url, token, signedEcf('31', 5))).mensajes[0]?.codigo, 1007);
  });
});

describe('sandbox: a reception stored in one statement', () => {
  let running: RunningSandbox;
  before(async () => {
    running = await startSandbox();
  });
  after(() => running.close());

  const accepted: Verdict = { outcome: 1, secuenciaUtilizada: true, mensajes: [] };

  async function record(document: SignedDocument, channel: 'ecf' | 'rfce', trackId: string): Promise<Verdict> {
    const read = readDocumentFacts(Buffer.from(document.xml), 'ECF');
    assert.ok(read.ok);
    return recordReception(running.sandbox.context, {
      trackId,
      environment: 'testecf',
      channel,
      facts: read.facts,
      securityCode: 'abc123',
      verdict: accepted,
      processingDelayMs: 0,
      xml: Buffer.from(document.xml),
      arrival: {
        service: channel === 'ecf' ? 'recepcion' : 'recepcionfc',
        environment: 'testecf',
        rnc: document.rnc,
        encf: document.encf,
        ...(channel === 'ecf' ? { trackId } : {}),
        outcomeOf: (verdict) => (verdict.outcome === 2 ? `refused:${verdict.reason ?? ''}` : 'accepted'),
      },
    });
  }

  async function stored(trackId: string, service: string) {
    const { db } = running.sandbox.context;
    const document = await db
      .selectFrom('sandbox_documents')
      .select(['encf', 'outcome', 'secuencia_utilizada', 'messages', 'security_code'])
      .where('track_id', '=', trackId)
      .executeTakeFirstOrThrow();
    const arrivals = await db
      .selectFrom('sandbox_arrivals')
      .select(['outcome', 'track_id'])
      .where('service', '=', service)
      .where('encf', '=', document.encf)
      .execute();
    const uses = await db
      .selectFrom('sandbox_sequence_uses')
      .select(['used_by', 'track_id'])
      .where('track_id', '=', trackId)
      .execute();
    return { document, arrivals, uses };
  }

  it('burns the e-NCF, stores the document and logs its arrival together', async () => {
    const document = signedEcf('31', 41);
    const trackId = '00000000-0000-4000-8000-000000000041';
    assert.deepEqual(await record(document, 'ecf', trackId), accepted);
    assert.deepEqual(await stored(trackId, 'recepcion'), {
      document: { encf: document.encf, outcome: 1, secuencia_utilizada: true, messages: [], security_code: 'abc123' },
      arrivals: [{ outcome: 'accepted', track_id: trackId }],
      uses: [{ used_by: 'ecf', track_id: trackId }],
    });
  });

  it('stores a copy that lost the race for its e-NCF as refused for it (burned), with the arrival its verdict gets', async () => {
    const document = signedEcf('31', 42);
    await record(document, 'ecf', '00000000-0000-4000-8000-000000000042');
    const trackId = '00000000-0000-4000-8000-000000000043';
    const verdict = await record(document, 'rfce', trackId);
    const alreadyUsed = rejected({
      reason: 'encf_already_used',
      mensajes: [{ valor: `El e-NCF ${document.encf} ya fue utilizado.`, codigo: 1012 }],
      secuenciaUtilizada: true,
    });
    assert.deepEqual(verdict, alreadyUsed);
    assert.deepEqual(await stored(trackId, 'recepcionfc'), {
      document: {
        encf: document.encf,
        outcome: 2,
        secuencia_utilizada: true,
        messages: alreadyUsed.mensajes,
        security_code: 'abc123',
      },
      // The RFCE's arrival has no trackId: DGII gives the RFCE none.
      arrivals: [{ outcome: 'refused:encf_already_used', track_id: null }],
      uses: [],
    });
  });
});

const onPostgres = await postgresAvailable();

// PGlite serves one process only: two processes on one sandbox database need PostgreSQL.
describe(
  'sandbox state shared by two processes on one database',
  { skip: onPostgres ? false : 'needs PostgreSQL' },
  () => {
    let testDatabase: TestDatabase;
    const handles: DatabaseHandle[] = [];
    const sandboxes: { sandbox: Sandbox; url: string; admin: Admin }[] = [];
    let token: string;

    before(async () => {
      testDatabase = await createTestDatabase();
      for (let i = 0; i < 2; i++) {
        const handle = await openDatabase(testDatabase.target);
        handles.push(handle);
        const sandbox = await createSandbox({
          db: handle.db,
          clock: systemClock,
          log: pino({ level: 'silent' }),
          schemas: officialSchemas(),
          admin: { enabled: true },
        });
        const url = await sandbox.listen(0, '127.0.0.1');
        sandboxes.push({ sandbox, url, admin: adminAt(url) });
      }
      const [one] = sandboxes;
      assert.ok(one !== undefined);
      assert.equal((await one.admin('PUT', '/settings', { processingDelayMs: 0 })).status, 200);
      await registerIssuer(one, issuerRnc);
    });
    after(async () => {
      for (const { sandbox } of sandboxes) await sandbox.close();
      for (const handle of handles) await handle.close();
      await testDatabase.drop();
    });

    const pair = () => {
      const [one, two] = sandboxes;
      assert.ok(one !== undefined && two !== undefined);
      return { one, two };
    };

    it('serves a token issued by one process at once in the other, and both see the same verdict', async () => {
      const { one, two } = pair();
      token = await authenticate(two.url, testSigningKey());
      await sleep(stateFreshnessMs); // the processing delay set through the other process
      const trackId = await sendEcf(one.url, token, signedEcf('31', 1));
      assert.equal((await resultOf(one.url, token, trackId)).codigo, '1');
      assert.equal((await resultOf(two.url, token, trackId)).codigo, '1');
    });

    it('burns an e-NCF once: a copy sent to the other process is refused as already used', async () => {
      const { one, two } = pair();
      const document = signedEcf('31', 2);
      assert.equal((await verdictOf(one.url, token, document)).codigo, '1');
      const copy = await verdictOf(two.url, token, document);
      assert.deepEqual([copy.codigo, copy.mensajes[0]?.codigo], ['2', 1012]);
    });

    it('hits exactly as many requests as a counted fault says, even in a process that still remembers it untaken', async () => {
      const { one, two } = pair();
      assert.equal(
        (await one.admin('POST', '/faults', { service: 'autenticacion', mode: 'http503', count: 1 })).status,
        201,
      );
      await sleep(stateFreshnessMs); // what the other process remembered of the faults is stale by now
      const seed = (url: string) =>
        fetch(`${url}/testecf/autenticacion/api/autenticacion/semilla`).then((response) => response.status);
      // A request to another service makes the first process remember the fault as it is now: one request left.
      assert.equal((await fetch(`${one.url}/testecf/consultaresultado/api/consultas/estado?trackid=x`)).status, 401);
      assert.equal(await seed(two.url), 503);
      assert.equal(await seed(one.url), 200);
      assert.equal(await seed(two.url), 200);
      const faults = await one.admin('GET', '/faults');
      assert.deepEqual(
        (faults.body as { remaining: number }[]).map((fault) => fault.remaining),
        [0],
      );
    });

    it('sees a taxpayer the other process registered within stateFreshnessMs, after refusing it as unknown', async () => {
      const { one, two } = pair();
      const newcomer = fictitiousRnc('13077777');
      const document = signedEcf('31', 1, { rnc: newcomer });
      assert.equal((await verdictOf(one.url, token, document)).mensajes[0]?.codigo, 1006);
      await registerIssuer(two, newcomer);
      await sleep(stateFreshnessMs);
      assert.equal((await verdictOf(one.url, token, document)).codigo, '1');
    });
  },
);
