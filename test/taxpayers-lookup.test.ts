// Taxpayer lookups over HTTP (SPEC §4.5): the check digit first (400 naming the rule), then the registry (404 when
// absent), with the scopes of SPEC §5 (documents:read and documents:create derive taxpayers:read).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../src/platform/clock.js';
import { createMemoryCache } from '../src/platform/cache/memory-cache.js';
import type { DirectoryOutcome } from '../src/dgii/index.js';
import { cachedDirectory, createTaxpayersService, importRegistry } from '../src/modules/taxpayers/index.js';
import { assertFieldError, assertProblem } from './support/assert-problem.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { cedulaFor, listingBytes, listingLine, rncFor, writeZip } from './taxpayers-listing.js';

const active = rncFor(13188068);
const suspended = rncFor(13188069);
const person = cedulaFor(1234567891);
const absent = rncFor(13188070);
// DGII issued a few numbers that fail the check digit; the registry lists them and the lookup serves them.
const exception = `${active.slice(0, 8)}${(Number(active[8]) + 1) % 10}`;
const badCheckDigit = `${absent.slice(0, 8)}${(Number(absent[8]) + 1) % 10}`;

describe('taxpayer lookup (/api/v1/contribuyentes/:rnc)', { timeout: 120_000 }, () => {
  let app: TestApp;
  let dir: string;
  const keys: Record<string, string> = {};
  const clock = fixedClock(new Date('2026-11-21T12:00:00Z'));

  before(async () => {
    app = await startTestApp({ clock });
    dir = mkdtempSync(join(tmpdir(), 'ecf-taxpayers-'));
    const path = join(dir, 'DGII_RNC.zip');
    writeZip(
      path,
      'TMP/DGII_RNC.TXT',
      listingBytes([
        listingLine({
          taxId: active,
          legalName: 'DISTRIBUIDORA ÁLVAREZ & PEÑA SRL',
          tradeName: 'ÁLVAREZ PEÑA',
          activity: 'VENTA AL POR MAYOR DE ALIMENTOS',
          started: '15/03/2001',
          status: 'ACTIVO',
          regime: 'NORMAL',
        }),
        listingLine({ taxId: suspended, legalName: 'CERRADA SRL', status: 'SUSPENDIDO', regime: 'RST' }),
        listingLine({ taxId: person, legalName: 'JOSÉ NÚÑEZ', status: 'CESE TEMPORAL', regime: '', started: '' }),
        listingLine({ taxId: exception, legalName: 'NUMERO ESPECIAL SA', status: 'ACTIVO' }),
      ]),
    );
    const report = await importRegistry({ db: app.application.database.db, clock }, path);
    assert.equal(report.inserted, 4);
    const company = await app.provisionCompany();
    keys.taxpayers = (await app.issueKey(company, ['taxpayers:read'])).apiKey;
    keys.documentsRead = (await app.issueKey(company, ['documents:read'])).apiKey;
    keys.documentsCreate = (await app.issueKey(company, ['documents:create'])).apiKey;
    keys.sequences = (await app.issueKey(company, ['sequences:read', 'received:read'])).apiKey;
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (rnc: string, key = keys.taxpayers ?? '', prefix = '/api/v1/contribuyentes/') =>
    app.app.inject({ method: 'GET', url: `${prefix}${rnc}`, headers: { 'x-api-key': key } });

  it('answers a registered RNC with its registry data; the electronic-issuer fields are null while the directory is not wired', async () => {
    const response = await get(active);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<{ data: unknown; meta: { correlationId: string } }>();
    assert.deepEqual(body.data, {
      rnc: active,
      kind: 'rnc',
      legalName: 'DISTRIBUIDORA ÁLVAREZ & PEÑA SRL',
      tradeName: 'ÁLVAREZ PEÑA',
      economicActivity: 'VENTA AL POR MAYOR DE ALIMENTOS',
      startedOn: '2001-03-15',
      status: 'active',
      dgiiStatus: 'ACTIVO',
      paymentRegime: 'NORMAL',
      electronicIssuer: null,
      receiverUrls: null,
      registryUpdatedAt: '2026-11-21T12:00:00.000Z',
    });
    assert.equal(body.meta.correlationId, response.headers['x-correlation-id']);
    const alias = await get(active, keys.taxpayers, '/api/v1/taxpayers/');
    assert.equal(alias.statusCode, 200);
    assert.deepEqual(alias.json<{ data: unknown }>().data, body.data);
  });

  it('answers a cédula, and maps DGII statuses', async () => {
    const response = await get(person);
    assert.equal(response.statusCode, 200, response.body);
    const data = response.json<{ data: Record<string, unknown> }>().data;
    assert.deepEqual(
      [data.kind, data.legalName, data.status, data.dgiiStatus, data.paymentRegime, data.startedOn],
      ['cedula', 'JOSÉ NÚÑEZ', 'temporarily_ceased', 'CESE TEMPORAL', null, null],
    );
    assert.equal((await get(suspended)).json<{ data: { status: string } }>().data.status, 'suspended');
  });

  it('answers 404 problem+json for a valid number the registry does not hold', async () => {
    const problem = assertProblem(await get(absent), 404, 'taxpayer_not_found');
    assert.match(problem.detail, new RegExp(absent));
    assertProblem(await get(cedulaFor(9876543210)), 404, 'taxpayer_not_found');
  });

  it('answers 400 naming the check-digit rule for a number that fails it, RNC or cédula', async () => {
    const rnc = assertFieldError(await get(badCheckDigit), 400, 'validation_failed', '/rnc');
    assert.equal(rnc.code, 'rnc_check_digit');
    assert.match(rnc.detail, /RNC check digit/);
    const cedula = `${person.slice(0, 10)}${(Number(person[10]) + 1) % 10}`;
    assert.equal(assertFieldError(await get(cedula), 400, 'validation_failed', '/rnc').code, 'cedula_check_digit');
  });

  it("serves a number that fails the check digit when DGII lists it (the registry knows DGII's exceptions)", async () => {
    const response = await get(exception);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json<{ data: { legalName: string } }>().data.legalName, 'NUMERO ESPECIAL SA');
  });

  it('answers 400 for anything but 9 or 11 digits', async () => {
    for (const bad of ['12345678', '1234567890', '123456789012', '13188068X', '131-88068-1']) {
      assertFieldError(await get(encodeURIComponent(bad)), 400, 'validation_failed', '/rnc');
    }
  });

  it('lets documents:read and documents:create keys look up (derived scopes), refuses others with 403, and no key with 401', async () => {
    assert.equal((await get(active, keys.documentsRead)).statusCode, 200);
    assert.equal((await get(active, keys.documentsCreate)).statusCode, 200);
    assertProblem(await get(active, keys.sequences), 403, 'scope_missing');
    assertProblem(
      await app.app.inject({ method: 'GET', url: `/api/v1/contribuyentes/${active}` }),
      401,
      'api_key_missing',
    );
  });

  it("adds the electronic-issuer fields from DGII's directory, asks once per number within the cache time, and shrugs off a DGII failure (pausing the company's questions briefly)", async () => {
    const cache = createMemoryCache(clock);
    const asked: string[] = [];
    let down = false;
    const source = (companyId: string, rnc: string): Promise<DirectoryOutcome> => {
      asked.push(rnc);
      assert.equal(companyId, 'cmp_caller');
      if (down) return Promise.resolve({ kind: 'transient', reason: 'network', detail: 'DGII unreachable' });
      return Promise.resolve(
        rnc === active
          ? {
              kind: 'found',
              entry: {
                nombre: 'ACTIVA SRL',
                rnc,
                urlRecepcion: 'https://erp.example.do/ecf',
                urlAceptacion: 'https://erp.example.do/ecf',
                urlOpcional: '',
              },
            }
          : { kind: 'not_found' },
      );
    };
    const db = app.application.database.db;
    const directory = cachedDirectory({ source, cache, clock, namespace: 'TEST', ttlSeconds: 600 });
    const service = createTaxpayersService({ db, clock, directory });

    const first = await service.lookup(active, 'cmp_caller');
    assert.ok(first.ok);
    assert.deepEqual(
      [first.value.electronicIssuer, first.value.receiverUrls],
      [true, { reception: 'https://erp.example.do/ecf', approval: 'https://erp.example.do/ecf', authentication: null }],
    );
    await service.lookup(active, 'cmp_caller');
    assert.deepEqual(asked, [active]);

    const notListed = await service.lookup(suspended, 'cmp_caller');
    assert.ok(notListed.ok);
    assert.deepEqual([notListed.value.electronicIssuer, notListed.value.receiverUrls], [false, null]);

    down = true;
    const unknown = await service.lookup(person, 'cmp_caller');
    assert.ok(unknown.ok);
    assert.deepEqual([unknown.value.electronicIssuer, unknown.value.receiverUrls], [null, null]);
    down = false;
    // The failure is not cached for the number, but the company's lookups leave DGII alone for 30 s.
    const paused = await service.lookup(person, 'cmp_caller');
    assert.ok(paused.ok);
    assert.equal(paused.value.electronicIssuer, null);
    assert.deepEqual(asked, [active, suspended, person], 'asked DGII again right after it failed');
    clock.advance(31_000);
    assert.equal((await service.lookup(person, 'cmp_caller')).ok, true);
    assert.deepEqual(asked, [active, suspended, person, person], 'a failure is not cached');

    clock.advance(601_000);
    await service.lookup(active, 'cmp_caller');
    assert.equal(asked.filter((rnc) => rnc === active).length, 2, 'asked again after the cache time');

    // An entry written where we can see it (the embedded sandbox's registry) is asked again at once.
    await directory.forget(suspended);
    await service.lookup(suspended, 'cmp_caller');
    assert.equal(asked.filter((rnc) => rnc === suspended).length, 2, 'asked again once forgotten');
  });
});
