// Numbering under load (DESIGN §5.1), through the whole create path over HTTP: many integrators creating
// documents at once each get a distinct e-NCF, the sequence has no gap that is not recorded as burned, and creators
// cross from a range that runs out mid-way into the next one. On real PostgreSQL at full load (50 × 20), and on
// embedded PGlite (one session) with less.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../src/platform/clock.js';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import { postgresAvailable } from './support/backends.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Availability {
  total: number;
  used: number;
  reserved: number;
  burned: number;
  remaining: number;
}

interface RangeBody {
  id: string;
  from: string;
  to: string;
  next: string | null;
  status: string;
  availability: Availability;
}

const encf = (sequence: number) => `E31${String(sequence).padStart(10, '0')}`;

function concurrencySuite(
  label: string,
  options: { embedded: boolean; creators: number; perCreator: number; skip: string | false },
) {
  const total = options.creators * options.perCreator;
  // The first range ends part-way through the run, so creators race across into the second one.
  const firstRangeEnd = Math.floor(total * 0.4) + 7;

  describe(
    `documents created concurrently (${label}: ${String(options.creators)} creators × ${String(options.perCreator)})`,
    { timeout: 600_000, skip: options.skip },
    () => {
      let app: TestApp;
      let key: string;
      let firstRangeId: string;
      let secondRangeId: string;
      const clock = fixedClock(new Date('2026-11-21T14:30:00Z'));

      before(async () => {
        app = await startTestApp({ clock, embedded: options.embedded });
        const companyId = await app.provisionCompany({ rnc: issuerRnc });
        const certificate = createSelfSignedP12({
          commonName: 'EMISOR DE PRUEBA',
          serialNumber: issuerRnc,
          notBefore: new Date('2026-01-01'),
          notAfter: new Date('2030-01-01'),
          password: 'clave',
        });
        const installed = await app.sendEvent('certificate.installed', {
          companyId,
          p12Base64: certificate.p12.toString('base64'),
          password: 'clave',
        });
        assert.equal(installed.statusCode, 200, installed.body);
        key = (
          await app.issueKey(companyId, ['documents:create', 'documents:read', 'sequences:manage', 'sequences:read'])
        ).apiKey;
        const register = async (from: number, to: number) => {
          const response = await app.app.inject({
            method: 'POST',
            url: '/api/v1/secuencias/rangos',
            headers: { 'x-api-key': key },
            payload: { ecfType: '31', from: encf(from), to: encf(to), expiresOn: '31-12-2027' },
          });
          assert.equal(response.statusCode, 201, response.body);
          return response.json<{ data: RangeBody }>().data.id;
        };
        firstRangeId = await register(1, firstRangeEnd);
        secondRangeId = await register(firstRangeEnd + 1, 100_000);
      });
      after(() => app.close());

      const rangeOf = async (id: string) => {
        const response = await app.app.inject({
          method: 'GET',
          url: `/api/v1/secuencias/rangos/${id}`,
          headers: { 'x-api-key': key },
        });
        assert.equal(response.statusCode, 200, response.body);
        return response.json<{ data: RangeBody }>().data;
      };

      it('gives every document a distinct e-NCF, gapless from 1, across both ranges, with every number accounted for', async () => {
        const created = (
          await Promise.all(
            Array.from({ length: options.creators }, async (_, creator) => {
              const mine: { id: string; eNCF: string }[] = [];
              for (let i = 0; i < options.perCreator; i++) {
                const response = await app.app.inject({
                  method: 'POST',
                  url: '/api/v1/documentos',
                  headers: { 'x-api-key': key },
                  payload: ecfDocuments['31'],
                });
                assert.equal(
                  response.statusCode,
                  201,
                  `creator ${String(creator)}, document ${String(i)}: ${response.body}`,
                );
                const document = response.json<{ data: { id: string; eNCF: string; status: string } }>().data;
                assert.equal(document.status, 'signed');
                mine.push({ id: document.id, eNCF: document.eNCF });
              }
              // One creator's documents come one after another, so its numbers rise.
              const sequences = mine.map((document) => Number(document.eNCF.slice(3)));
              assert.deepEqual(
                [...sequences].sort((a, b) => a - b),
                sequences,
                `creator ${String(creator)} got numbers out of order`,
              );
              return mine;
            }),
          )
        ).flat();

        assert.equal(created.length, total);
        assert.equal(new Set(created.map((document) => document.id)).size, total, 'every document has its own id');
        assert.equal(new Set(created.map((document) => document.eNCF)).size, total, 'no e-NCF was given twice');

        const first = await rangeOf(firstRangeId);
        const second = await rangeOf(secondRangeId);
        for (const range of [first, second]) {
          const { total: size, used, reserved, burned, remaining } = range.availability;
          assert.equal(
            used + burned + reserved + remaining,
            size,
            `range ${range.from}–${range.to}: ${JSON.stringify(range.availability)}`,
          );
          assert.equal(reserved, 0, 'no offline block was reserved');
        }
        const burned = first.availability.burned + second.availability.burned;
        assert.equal(
          first.availability.used + second.availability.used,
          total,
          'every created document counts as used',
        );
        // The first range is spent entirely before the second is touched.
        assert.deepEqual(
          { status: first.status, next: first.next, remaining: first.availability.remaining },
          { status: 'exhausted', next: null, remaining: 0 },
        );
        const handedOut = total + burned;
        assert.equal(second.next, encf(handedOut + 1), 'the next number follows the last one handed out');

        // Gapless: the documents' numbers are exactly 1..N, where N counts the burned ones too (and none was burned
        // here, as every create succeeded, so N = total).
        assert.equal(burned, 0, 'no number was burned: every creation succeeded');
        assert.deepEqual(
          created.map((document) => Number(document.eNCF.slice(3))).sort((a, b) => a - b),
          Array.from({ length: total }, (_, i) => i + 1),
        );
        assert.ok(
          created.some((document) => document.eNCF === encf(firstRangeEnd)) &&
            created.some((document) => document.eNCF === encf(firstRangeEnd + 1)),
          'creators crossed from the first range into the second',
        );
      });

      it('stores each document under the e-NCF it answered, as the list shows', async () => {
        const seen = new Set<string>();
        let cursor: string | null = null;
        do {
          const url: string = `/api/v1/documentos?ecfType=31&limit=100${cursor === null ? '' : `&cursor=${cursor}`}`;
          const response = await app.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
          assert.equal(response.statusCode, 200, response.body);
          const page = response.json<{ data: { eNCF: string }[]; meta: { nextCursor: string | null } }>();
          for (const document of page.data) {
            assert.ok(!seen.has(document.eNCF), `${document.eNCF} is listed twice`);
            seen.add(document.eNCF);
          }
          cursor = page.meta.nextCursor;
        } while (cursor !== null);
        assert.equal(seen.size, total);
        assert.ok(seen.has(encf(1)) && seen.has(encf(total)));
      });
    },
  );
}

const postgresUp = await postgresAvailable();
concurrencySuite('real PostgreSQL', {
  embedded: false,
  creators: 50,
  perCreator: 20,
  skip: postgresUp ? false : 'PostgreSQL is not running',
});
concurrencySuite('embedded PGlite', { embedded: true, creators: 5, perCreator: 6, skip: false });
