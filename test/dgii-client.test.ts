// The DGII client against the DGII sandbox over real HTTP: tokens (fetched once under concurrency, reused until
// near expiry, refreshed once after a 401, counted at the sandbox), every service with its outcomes, each injected
// fault mapped to transient or uncertain, the circuit breaker (arrivals counted at the sandbox), service status and
// the connection test. Nothing secret reaches the log.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { createDgiiClient, type DgiiClient, type DgiiClientOptions, type DgiiCredentials } from '../src/dgii/index.js';
import { formatDgiiTimestamp } from '../src/fiscal/dates.js';
import { buildAcecf } from '../src/fiscal/responses/acecf.js';
import { buildAnecf } from '../src/fiscal/responses/anecf.js';
import { signXml } from '../src/fiscal/xmldsig/index.js';
import { fixedClock } from '../src/platform/clock.js';
import { buyerRnc } from './support/ecf-documents.js';
import { issuerRnc, registerIssuer, signedEcf, signedRfce, type SignedDocument } from './support/sandbox-documents.js';
import { counterpartRnc } from '../src/sandbox/index.js';
import { startSandbox, type RunningSandbox } from './support/sandbox-kit.js';
import { testSigningKey } from './support/xmldsig-kit.js';

const start = new Date('2026-11-21T14:00:00Z');
const key = testSigningKey();
const company = 'cmp_issuer';
const buyerCompany = 'cmp_buyer';

describe('DGII client against the sandbox', () => {
  const sandboxClock = fixedClock(start);
  const clientClock = fixedClock(start);
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  const credentials = new Map<string, DgiiCredentials>([
    [company, { kind: 'certificate', rnc: issuerRnc, identity: key }],
    [buyerCompany, { kind: 'certificate', rnc: buyerRnc, identity: key }],
  ]);
  const clients: DgiiClient[] = [];
  let running: RunningSandbox;

  /** Moves DGII's clock and ours together. */
  const advance = (ms: number) => {
    sandboxClock.advance(ms);
    clientClock.advance(ms);
  };

  function makeClient(overrides: Partial<DgiiClientOptions> = {}): DgiiClient {
    const client = createDgiiClient({
      urls: { baseUrl: running.url, fcBaseUrl: running.url, statusBaseUrl: running.url },
      environment: 'TEST',
      clock: clientClock,
      log: pino({ level: 'debug' }, logStream),
      timeouts: { connectMs: 1_000, responseMs: 1_500 },
      breaker: { failureThreshold: 100, openMs: 5_000 },
      statusApiKey: 'sandbox-status-key',
      credentials: (companyId) => Promise.resolve(credentials.get(companyId)),
      ...overrides,
    });
    clients.push(client);
    return client;
  }

  async function tokensIssued(): Promise<number> {
    const row = await running.sandbox.context.db
      .selectFrom('sandbox_tokens')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async function arrivals(service: string): Promise<{ outcome: string; encf: string | null }[]> {
    return (await running.admin('GET', `/arrivals?service=${service}`)).body as {
      outcome: string;
      encf: string | null;
    }[];
  }

  async function inject(fault: Record<string, unknown>): Promise<void> {
    const created = await running.admin('POST', '/faults', fault);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }

  const file = (document: SignedDocument) => ({ xml: Buffer.from(document.xml, 'utf8'), fileName: document.filename });

  before(async () => {
    running = await startSandbox({ clock: sandboxClock });
    await registerIssuer(running, issuerRnc);
    assert.equal(
      (
        await running.admin('POST', '/taxpayers', {
          rnc: buyerRnc,
          name: 'COMPRADOR DE PRUEBA SRL',
          certificates: [key.certificatePem],
        })
      ).status,
      201,
    );
  });
  after(async () => {
    for (const client of clients) client.close();
    await running.close();
  });
  beforeEach(async () => {
    assert.equal((await running.admin('DELETE', '/faults')).status, 204);
  });

  describe('tokens', () => {
    it('fetches one token for many concurrent callers, and reuses it until shortly before it expires', async () => {
      const client = makeClient();
      const before = await tokensIssued();
      const results = await Promise.all(Array.from({ length: 25 }, () => client.token(company)));
      const tokens = new Set(results.map((result) => (result.kind === 'token' ? result.token : result.kind)));
      assert.equal(tokens.size, 1);
      assert.equal([...tokens][0]?.split('.').length, 3, 'a JWT');
      assert.equal(await tokensIssued(), before + 1);

      // Calls that need the token share it too.
      const queries = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          client.trackIds(company, { rncEmisor: issuerRnc, eNCF: `E3100000009${String(index).padStart(2, '0')}` }),
        ),
      );
      assert.deepEqual(new Set(queries.map((query) => query.kind)), new Set(['not_found']));
      assert.equal(await tokensIssued(), before + 1);

      advance(54 * 60_000);
      const reused = await client.token(company);
      assert.equal(reused.kind === 'token' ? reused.token : undefined, [...tokens][0]);
      assert.equal(await tokensIssued(), before + 1);

      // Five minutes before expiry (the default margin) it is renewed.
      advance(2 * 60_000);
      const renewed = await client.token(company);
      assert.equal(renewed.kind, 'token');
      assert.notEqual(renewed.token, [...tokens][0]);
      assert.equal(await tokensIssued(), before + 2);
    });

    it('shares one token between clients (processes) through the cache, even when they all ask at once', async () => {
      const { createMemoryCache } = await import('../src/platform/cache/memory-cache.js');
      const cache = createMemoryCache(clientClock);
      const processes = Array.from({ length: 6 }, () => makeClient({ cache }));
      const before = await tokensIssued();
      const results = await Promise.all(processes.flatMap((client) => [client.token(company), client.token(company)]));
      assert.equal(new Set(results.map((result) => (result.kind === 'token' ? result.token : result.kind))).size, 1);
      assert.equal(await tokensIssued(), before + 1);
      // A process started later finds it in the cache.
      const late = await makeClient({ cache }).token(company);
      assert.equal(late.kind === 'token' && results[0]?.kind === 'token' && late.token === results[0].token, true);
      assert.equal(await tokensIssued(), before + 1);
    });

    it('after a 401 (the token died at DGII first) fetches exactly one new token and repeats the call', async () => {
      const client = makeClient();
      const first = await client.token(company);
      assert.equal(first.kind, 'token');
      const before = await tokensIssued();
      // DGII's clock runs past the token's hour; ours does not: the next call meets a 401.
      sandboxClock.advance(61 * 60_000);
      try {
        const results = await Promise.all(
          Array.from({ length: 5 }, () => client.trackIds(company, { rncEmisor: issuerRnc, eNCF: 'E310000000999' })),
        );
        assert.deepEqual(
          results.map((result) => result.kind),
          ['not_found', 'not_found', 'not_found', 'not_found', 'not_found'],
        );
        assert.equal(await tokensIssued(), before + 1);
        const second = await client.token(company);
        assert.equal(second.kind, 'token');
        assert.notEqual(second.token, first.token);
      } finally {
        clientClock.set(sandboxClock.now());
      }
    });

    it('a session token the company brought: used as is, and unauthorized (no refetch) once DGII refuses it', async () => {
      const issuing = makeClient();
      const session = await issuing.token(company);
      assert.equal(session.kind, 'token');
      credentials.set('cmp_session', {
        kind: 'session',
        rnc: issuerRnc,
        token: session.token,
        expiresAt: session.expiresAt,
      });
      const client = makeClient();
      const before = await tokensIssued();
      assert.equal(
        (await client.trackIds('cmp_session', { rncEmisor: issuerRnc, eNCF: 'E310000000998' })).kind,
        'not_found',
      );
      sandboxClock.advance(61 * 60_000);
      try {
        const refused = await client.trackIds('cmp_session', { rncEmisor: issuerRnc, eNCF: 'E310000000998' });
        assert.deepEqual(refused, { kind: 'unauthorized', reason: 'session_expired', messages: [], httpStatus: 401 });
        assert.equal(await tokensIssued(), before);
        // Past its own expiry it is not even sent.
        clientClock.set(sandboxClock.now());
        assert.deepEqual(await client.result('cmp_session', 'x'), {
          kind: 'unauthorized',
          reason: 'session_expired',
          messages: [],
        });
      } finally {
        clientClock.set(sandboxClock.now());
      }
    });

    it('issues a seed for signing outside the service and exchanges the signed seed for a session the client can use', async () => {
      const client = makeClient();
      const seed = await client.seed();
      assert.equal(seed.kind, 'seed');
      assert.match(seed.xml, /<SemillaModel[^>]*>[\s\S]*<valor>[A-Za-z0-9+/=]{172}<\/valor>/);
      const session = await client.exchangeSignedSeed(Buffer.from(signXml(seed.xml, key)));
      assert.equal(session.kind, 'token');
      assert.equal(session.expiresAt.getTime(), clientClock.now().getTime() + 60 * 60_000);
      credentials.set('cmp_external', {
        kind: 'session',
        rnc: issuerRnc,
        token: session.token,
        expiresAt: session.expiresAt,
      });
      assert.equal(
        (await client.trackIds('cmp_external', { rncEmisor: issuerRnc, eNCF: 'E310000000995' })).kind,
        'not_found',
      );
      // A seed is good once, and an unsigned one is refused in DGII's words.
      const again = await client.exchangeSignedSeed(Buffer.from(signXml(seed.xml, key)));
      assert.equal(again.kind === 'unauthorized' ? again.reason : again.kind, 'seed_refused');
      const unsigned = await client.exchangeSignedSeed(Buffer.from(((await client.seed()) as { xml: string }).xml));
      assert.equal(unsigned.kind, 'unauthorized');
      assert.match(unsigned.messages[0]?.valor ?? '', /firma/i);
    });

    it("a certificate nobody delegated: unauthorized with DGII's bare-string message; no credentials at all: no_credentials", async () => {
      const { strangerKey } = await import('./support/sandbox-documents.js');
      credentials.set('cmp_stranger', { kind: 'certificate', rnc: issuerRnc, identity: strangerKey() });
      const client = makeClient();
      const refused = await client.trackIds('cmp_stranger', { rncEmisor: issuerRnc, eNCF: 'E310000000997' });
      assert.equal(refused.kind, 'unauthorized');
      assert.equal(refused.reason, 'seed_refused');
      assert.match(refused.messages[0]?.valor ?? '', /no está delegado para realizar transaciones/);
      assert.deepEqual(await client.sendEcf('cmp_nobody', file(signedEcf('31', 996))), { kind: 'no_credentials' });
    });
  });

  describe('services', () => {
    let client: DgiiClient;
    before(() => {
      client = makeClient();
    });

    it('sends an e-CF (received + trackId, one arrival), in process, then accepted; trackIds and statusByEncf find it', async () => {
      const document = signedEcf('31', 1);
      const sent = await client.sendEcf(company, file(document));
      assert.equal(sent.kind, 'received');
      const trackId = sent.trackId;
      assert.match(trackId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(await client.result(company, trackId), { kind: 'in_process', trackId });
      advance(1_000);
      const result = await client.result(company, trackId);
      assert.equal(result.kind, 'accepted');
      assert.deepEqual(
        [
          result.trackId,
          result.encf,
          result.rnc,
          result.estado,
          result.codigo,
          result.secuenciaUtilizada,
          result.messages,
        ],
        [trackId, document.encf, issuerRnc, 'Aceptado', '1', true, []],
      );
      assert.equal(
        result.receivedAt?.getTime(),
        sandboxClock.now().getTime() - 1_000,
        'fechaRecepcion, read from GMT-4',
      );

      const listed = await client.trackIds(company, { rncEmisor: issuerRnc, eNCF: document.encf });
      assert.deepEqual(
        listed.kind === 'found' ? listed.entries.map((entry) => [entry.trackId, entry.estado, entry.status]) : listed,
        [[trackId, 'Aceptado', 'accepted']],
      );
      const status = await client.statusByEncf(company, { rncEmisor: issuerRnc, eNCF: document.encf });
      assert.equal(status.kind, 'accepted');
      assert.deepEqual(
        [status.eNCF, status.montoTotal, status.rncComprador, status.fechaEmision],
        [document.encf, '1430.00', buyerRnc, '15-11-2026'],
      );
      assert.deepEqual(
        (await arrivals('recepcion'))
          .filter((arrival) => arrival.encf === document.encf)
          .map((arrival) => arrival.outcome),
        ['accepted'],
      );
    });

    it('a document DGII rejects: received, then rejected with its messages and the number not consumed', async () => {
      const document = signedEcf('31', 2, {
        edit: (xml) => xml.replace('<Version>1.0</Version>', '<Version>2.0</Version>'),
      });
      const sent = await client.sendEcf(company, file(document));
      assert.equal(sent.kind, 'received');
      advance(1_000);
      const result = await client.result(company, sent.trackId);
      assert.equal(result.kind, 'rejected');
      assert.deepEqual(
        [result.estado, result.codigo, result.secuenciaUtilizada, result.messages[0]?.codigo],
        ['Rechazado', '2', false, '1002'],
      );
      assert.match(result.messages[0]?.valor ?? '', /XSD/);
    });

    it('a request DGII refuses at the door (file name not RNCEmisor+eNCF): rejected with its message, no trackId', async () => {
      const document = signedEcf('31', 3);
      const refused = await client.sendEcf(company, {
        xml: Buffer.from(document.xml),
        fileName: `${issuerRnc}E310000000099.xml`,
      });
      assert.equal(refused.kind, 'rejected');
      assert.deepEqual([refused.httpStatus, refused.secuenciaUtilizada], [400, false]);
      assert.match(refused.messages[0]?.valor ?? '', /nombre del archivo/);
    });

    it('an RFCE of a type 32 under DOP 250,000: a synchronous verdict; statusByEncf finds it with its security code', async () => {
      const rfce = signedRfce(signedEcf('32', 1));
      const verdict = await client.sendRfce(company, file(rfce));
      assert.deepEqual(verdict, {
        kind: 'accepted',
        estado: 'Aceptado',
        codigo: '1',
        messages: [],
        secuenciaUtilizada: true,
        encf: 'E320000000001',
      });
      const status = await client.statusByEncf(company, {
        rncEmisor: issuerRnc,
        eNCF: rfce.encf,
        securityCode: rfce.codigoSeguridad,
      });
      assert.equal(status.kind, 'accepted');
      const wrongCode = await client.statusByEncf(company, {
        rncEmisor: issuerRnc,
        eNCF: rfce.encf,
        securityCode: 'ZZZZZZ',
      });
      assert.deepEqual(wrongCode, { kind: 'not_found' });
      // The same e-NCF again: DGII rejects it as used.
      const again = await client.sendRfce(company, file(rfce));
      assert.equal(again.kind, 'rejected');
    });

    it('an e-NCF never sent and a trackId never given: not found', async () => {
      assert.deepEqual(await client.trackIds(company, { rncEmisor: issuerRnc, eNCF: 'E310000000500' }), {
        kind: 'not_found',
      });
      assert.deepEqual(await client.statusByEncf(company, { rncEmisor: issuerRnc, eNCF: 'E310000000500' }), {
        kind: 'not_found',
      });
      assert.deepEqual(await client.result(company, '3f2504e0-4f89-11d3-9a0c-0305e82c3301'), { kind: 'not_found' });
    });

    it('annuls unused numbers (ANECF) and reports the used ones as exceptions', async () => {
      const anecf = (from: number, to: number) => {
        const built = buildAnecf({
          RncEmisor: issuerRnc,
          FechaHoraAnulacioneNCF: formatDgiiTimestamp(sandboxClock.now()),
          lines: [
            {
              TipoeCF: '31',
              ranges: [
                {
                  SecuenciaeNCFDesde: `E31${String(from).padStart(10, '0')}`,
                  SecuenciaeNCFHasta: `E31${String(to).padStart(10, '0')}`,
                },
              ],
            },
          ],
        });
        assert.ok(built.ok);
        return { xml: Buffer.from(signXml(built.xml, key)), fileName: `${issuerRnc}ANECF.xml` };
      };
      const voided = await client.sendAnecf(company, anecf(900, 910));
      assert.equal(voided.kind, 'accepted', JSON.stringify(voided));
      assert.equal(voided.rnc, issuerRnc);
      // E310000000001 was accepted above: voided with that exception.
      const partly = await client.sendAnecf(company, anecf(1, 1));
      assert.equal(partly.kind, 'rejected', JSON.stringify(partly));
      const mixed = await client.sendAnecf(company, anecf(1, 5));
      assert.equal(mixed.kind, 'conditional', JSON.stringify(mixed));
      assert.ok(mixed.messages.some((message) => message.valor.includes('E310000000001')));
    });

    it('sends a commercial approval (ACECF) of an accepted e-CF, and gets a refusal for an unknown one', async () => {
      const approval = (encf: string) => {
        const built = buildAcecf({
          RNCEmisor: issuerRnc,
          eNCF: encf,
          FechaEmision: '15-11-2026',
          MontoTotal: '1430.00',
          RNCComprador: buyerRnc,
          FechaHoraAprobacionComercial: formatDgiiTimestamp(sandboxClock.now()),
          Estado: '1',
        });
        assert.ok(built.ok);
        return { xml: Buffer.from(signXml(built.xml, key)), fileName: `${buyerRnc}${encf}.xml` };
      };
      assert.deepEqual(await client.sendAcecf(buyerCompany, approval('E310000000001')), {
        kind: 'accepted',
        estado: 'Aprobación Comercial Aprobada.',
        codigo: '01',
        messages: [],
        secuenciaUtilizada: undefined,
      });
      const refused = await client.sendAcecf(buyerCompany, approval('E310000000777'));
      assert.equal(refused.kind, 'rejected');
      assert.deepEqual(
        [refused.codigo, refused.httpStatus, refused.messages.map((message) => message.valor)],
        ['02', 400, ['Factura no encontrada para esta Aprobación comercial.']],
      );
    });

    it("looks up the directory: the counterpart's receiver bases, or not found", async () => {
      const found = await client.directory(company, counterpartRnc);
      assert.equal(found.kind, 'found');
      assert.equal(found.entry.urlRecepcion, `${running.url}/testecf/emisorreceptor`);
      assert.deepEqual(await client.directory(company, '130000001'), { kind: 'not_found' });
    });

    it("reads the service status and this environment's maintenance windows as instants (GMT-4)", async () => {
      const windows = [
        {
          ambiente: 'PreCertificacion',
          horaInicio: '9:00 AM',
          horaFin: '12:00 PM',
          dias: ['21-11-2026', '28-11-2026'],
        },
        { ambiente: 'Produccion', horaInicio: '1:00 PM', horaFin: '4:00 PM', dias: ['21-11-2026'] },
      ];
      assert.equal((await running.admin('PUT', '/settings', { maintenanceWindows: windows })).status, 200);
      try {
        sandboxClock.set(new Date('2026-11-21T12:00:00Z'));
        clientClock.set(new Date('2026-11-21T12:00:00Z'));
        const before = await client.serviceStatus();
        assert.equal(before.kind, 'status');
        assert.deepEqual([before.available, before.estado, before.activeWindow], [true, 'Disponible', null]);
        assert.deepEqual(
          before.windows.map((window) => [window.start.toISOString(), window.end.toISOString()]),
          [
            ['2026-11-21T13:00:00.000Z', '2026-11-21T16:00:00.000Z'],
            ['2026-11-28T13:00:00.000Z', '2026-11-28T16:00:00.000Z'],
          ],
        );
        advance(90 * 60_000); // 9:30 AM in Santo Domingo
        const during = await client.serviceStatus();
        assert.equal(during.kind, 'status');
        assert.deepEqual(
          [during.available, during.estado, during.activeWindow?.end.toISOString()],
          [false, 'No Disponible', '2026-11-21T16:00:00.000Z'],
        );
        assert.deepEqual(await makeClient({ statusApiKey: undefined }).serviceStatus(), { kind: 'no_credentials' });
      } finally {
        await running.admin('PUT', '/settings', { maintenanceWindows: [] });
        sandboxClock.set(new Date('2026-11-21T20:00:00Z'));
        clientClock.set(new Date('2026-11-21T20:00:00Z'));
      }
    });

    it('tests the connection: credentials, a real authentication and a harmless query, never the token', async () => {
      const before = await tokensIssued();
      const report = await client.probe(company);
      assert.deepEqual(
        report.steps.map((step) => [step.step, step.ok, step.outcome]),
        [
          ['credentials', true, 'certificate'],
          ['authentication', true, 'token'],
          ['query', true, 'not_found'],
        ],
      );
      assert.equal(report.ok, true);
      assert.ok(report.sessionExpiresAt !== null);
      assert.equal(await tokensIssued(), before + 1, 'a real authentication, not the cached token');
      const token = await client.token(company);
      assert.ok(token.kind === 'token' && !JSON.stringify(report).includes(token.token));
      const none = await client.probe('cmp_nobody');
      assert.deepEqual([none.ok, none.steps.map((step) => step.outcome)], [false, ['no_credentials']]);
    });
  });

  describe('faults: what DGII may have got', () => {
    let client: DgiiClient;
    let sequence = 100;
    const nextDocument = () => signedEcf('31', (sequence += 1));
    before(() => {
      client = makeClient();
    });

    it('a timeout after DGII accepted the request: uncertain; DGII has nothing, so a later trackIds says not found', async () => {
      await inject({ service: 'recepcion', mode: 'timeout', count: 1, delayMs: 4_000 });
      const document = nextDocument();
      const started = Date.now();
      const sent = await client.sendEcf(company, file(document));
      assert.deepEqual(sent, { kind: 'uncertain', reason: 'response_timeout', detail: 'response_timeout' });
      assert.ok(Date.now() - started < 3_000, 'gave up at the response timeout');
      assert.deepEqual(await client.trackIds(company, { rncEmisor: issuerRnc, eNCF: document.encf }), {
        kind: 'not_found',
      });
    });

    it('a connection reset after the request was written: uncertain', async () => {
      await inject({ service: 'recepcion', mode: 'reset', count: 1 });
      const sent = await client.sendEcf(company, file(nextDocument()));
      assert.equal(sent.kind, 'uncertain');
      assert.equal(sent.reason, 'reset_after_sent');
    });

    it("503 and DGII's maintenance answer: transient (not processed); 500: uncertain", async () => {
      await inject({ service: 'recepcion', mode: 'http503', count: 1 });
      assert.deepEqual(await client.sendEcf(company, file(nextDocument())), {
        kind: 'transient',
        reason: 'server_unavailable',
        detail: 'HTTP 503',
        httpStatus: 503,
        messages: [{ codigo: null, valor: 'Service Unavailable' }],
      });
      await inject({ service: 'recepcion', mode: 'maintenance', count: 1 });
      const maintenance = await client.sendEcf(company, file(nextDocument()));
      assert.equal(maintenance.kind, 'transient');
      assert.match(maintenance.messages?.[0]?.valor ?? '', /mantenimiento/);
      await inject({ service: 'recepcion', mode: 'http500', count: 1 });
      assert.deepEqual(await client.sendEcf(company, file(nextDocument())), {
        kind: 'uncertain',
        reason: 'server_error',
        detail: 'HTTP 500',
        httpStatus: 500,
      });
    });

    it('a slow answer within the response timeout is still an answer', async () => {
      await inject({ service: 'recepcion', mode: 'slow', count: 1, delayMs: 400 });
      assert.equal((await client.sendEcf(company, file(nextDocument()))).kind, 'received');
    });

    it('accepted then lost by DGII: received, and the result is not found', async () => {
      await inject({ service: 'recepcion', mode: 'accept_then_lose', count: 1 });
      const sent = await client.sendEcf(company, file(nextDocument()));
      assert.equal(sent.kind, 'received');
      advance(1_000);
      assert.deepEqual(await client.result(company, sent.trackId), { kind: 'not_found' });
    });

    it('a query that times out or meets a 500 is only transient (asking changes nothing)', async () => {
      await inject({ service: 'consultaresultado', mode: 'timeout', count: 1, delayMs: 4_000 });
      assert.deepEqual(await client.result(company, 'x'), {
        kind: 'transient',
        reason: 'response_timeout',
        detail: 'response_timeout',
      });
      await inject({ service: 'consultaresultado', mode: 'http500', count: 1 });
      assert.deepEqual(await client.result(company, 'x'), {
        kind: 'transient',
        reason: 'server_unavailable',
        detail: 'HTTP 500',
        httpStatus: 500,
      });
    });

    it('a closed port (connection refused): transient, and a host that does not resolve: transient', async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
          const address = server.address();
          server.close(() => {
            resolve(typeof address === 'object' && address !== null ? address.port : 0);
          });
        });
      });
      const closed = makeClient({
        urls: {
          baseUrl: `http://127.0.0.1:${String(port)}`,
          fcBaseUrl: `http://127.0.0.1:${String(port)}`,
          statusBaseUrl: `http://127.0.0.1:${String(port)}`,
        },
      });
      const refused = await closed.sendEcf(company, file(nextDocument()));
      assert.equal(refused.kind, 'transient');
      assert.equal(refused.reason, 'connect_refused');
      const nowhere = makeClient({
        urls: {
          baseUrl: 'http://dgii.invalid',
          fcBaseUrl: 'http://dgii.invalid',
          statusBaseUrl: 'http://dgii.invalid',
        },
      });
      const unresolved = await nowhere.sendEcf(company, file(nextDocument()));
      assert.equal(unresolved.kind === 'transient' ? unresolved.reason : unresolved.kind, 'dns');
    });
  });

  it('a server that takes the connection but never completes TLS: connect timeout, transient (the seed request never went out)', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    const port = await new Promise<number>((resolve) => {
      silent.listen(0, '127.0.0.1', () => {
        const address = silent.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
    try {
      const base = `https://127.0.0.1:${String(port)}`;
      const client = makeClient({
        urls: { baseUrl: base, fcBaseUrl: base, statusBaseUrl: base },
        timeouts: { connectMs: 300, responseMs: 5_000 },
      });
      const started = Date.now();
      const sent = await client.sendEcf(company, { xml: Buffer.from('<ECF/>'), fileName: 'x.xml' });
      assert.deepEqual(sent, { kind: 'transient', reason: 'connect_timeout', detail: 'connect_timeout' });
      assert.ok(Date.now() - started < 2_000);
      assert.equal(sockets.length, 1, 'one connection attempt');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  describe('circuit breaker', () => {
    it('opens after N failures, short-fails without reaching DGII, lets one probe through after openMs, and closes', async () => {
      const client = makeClient({ breaker: { failureThreshold: 3, openMs: 5_000 } });
      assert.equal((await client.token(company)).kind, 'token');
      await inject({ service: 'recepcion', mode: 'http503', count: 3 });
      const reached = async () => (await arrivals('recepcion')).length;
      const before = await reached();
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const sent = await client.sendEcf(company, file(signedEcf('31', 200 + attempt)));
        assert.equal(sent.kind === 'transient' ? sent.reason : sent.kind, 'server_unavailable');
      }
      assert.equal(await reached(), before + 3);
      const open = client.breakers().find((breaker) => breaker.service === 'recepcion');
      assert.deepEqual(open, {
        environment: 'testecf',
        service: 'recepcion',
        state: 'open',
        consecutiveFailures: 3,
        opensUntil: new Date(clientClock.now().getTime() + 5_000),
      });

      const shortFailed = await client.sendEcf(company, file(signedEcf('31', 203)));
      assert.deepEqual(shortFailed, {
        kind: 'transient',
        reason: 'unavailable',
        detail: 'circuit breaker open for recepcion',
        retryAt: new Date(clientClock.now().getTime() + 5_000),
      });
      assert.equal(await reached(), before + 3, 'nothing reached DGII while open');
      // Other services have breakers of their own.
      assert.equal((await client.trackIds(company, { rncEmisor: issuerRnc, eNCF: 'E310000000203' })).kind, 'not_found');

      clientClock.advance(5_000);
      assert.equal(client.breakers().find((breaker) => breaker.service === 'recepcion')?.state, 'half_open');
      const [probe, other] = await Promise.all([
        client.sendEcf(company, file(signedEcf('31', 204))),
        client.sendEcf(company, file(signedEcf('31', 205))),
      ]);
      assert.equal(probe.kind, 'received', 'the one probe went through');
      assert.equal(
        other.kind === 'transient' ? other.reason : other.kind,
        'unavailable',
        'only one probe while half-open',
      );
      assert.equal(await reached(), before + 4);
      assert.deepEqual(
        client.breakers().find((breaker) => breaker.service === 'recepcion'),
        { environment: 'testecf', service: 'recepcion', state: 'closed', consecutiveFailures: 0, opensUntil: null },
      );
      assert.equal((await client.sendEcf(company, file(signedEcf('31', 205)))).kind, 'received');
    });
  });

  it('never logs a token, a seed or a document', async () => {
    const client = makeClient();
    const token = await client.token(company);
    assert.equal(token.kind, 'token');
    const text = logLines.join('');
    assert.ok(logLines.length > 0, 'the client logged something');
    assert.ok(!text.includes(token.token.split('.')[2] ?? 'x'));
    assert.ok(!text.includes('eyJ'), 'no JWT in the log');
    assert.ok(!/<ECF|<SemillaModel|BEGIN CERTIFICATE|<RFCE/.test(text));
  });
});
