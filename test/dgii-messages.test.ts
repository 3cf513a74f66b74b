// The DGII client's pure readers: every error body shape DGII answers in (research/dgii-protocol.md §2), the date
// formats, answers read into outcomes (amounts never through a float), and the circuit breaker's states on a
// hand-moved clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCircuitBreaker } from '../src/dgii/circuit-breaker.js';
import { classifyFailure, classifyStatus } from '../src/dgii/failure-classes.js';
import { parseUniversal, parseUsDateTime, windowsOf } from '../src/dgii/dgii-dates.js';
import { parseDgiiMessages } from '../src/dgii/messages.js';
import {
  readAnnulment,
  readEncfStatus,
  readReception,
  readResult,
  readRfceReception,
  readTrackIds,
  readDirectory,
  type Answer,
} from '../src/dgii/responses.js';
import { fixedClock } from '../src/platform/clock.js';

const json = (status: number, body: unknown): Answer => ({
  status,
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  contentType: 'application/json; charset=utf-8',
});

describe('DGII error bodies, every shape, into one message list', () => {
  const cases: [string, string, string | undefined, { codigo: string | null; valor: string }[]][] = [
    [
      'a bare JSON string (validarsemilla, not delegated)',
      JSON.stringify('El RNC 00199999996 del certificado no está delegado para realizar transaciones.'),
      'application/json',
      [{ codigo: null, valor: 'El RNC 00199999996 del certificado no está delegado para realizar transaciones.' }],
    ],
    [
      '{error, mensaje} (reception refusals)',
      JSON.stringify({ error: 'Multipart cannot be empty', mensaje: 'Multipart cannot be empty' }),
      'application/json',
      [{ codigo: null, valor: 'Multipart cannot be empty' }],
    ],
    [
      '{mensajes: [{valor, codigo}]} with numeric codes',
      JSON.stringify({
        mensajes: [
          { valor: 'Firma digital o certificado no válido.', codigo: 1003 },
          { valor: '', codigo: 64 },
        ],
      }),
      undefined,
      [
        { codigo: '1003', valor: 'Firma digital o certificado no válido.' },
        { codigo: '64', valor: '' },
      ],
    ],
    [
      '{mensajes: [strings]} (anularrango)',
      JSON.stringify({
        rnc: '131880681',
        codigo: '03',
        nombre: 'Anulación rechazada',
        mensajes: ['Las secuencias ya fueron utilizadas', 'E310000000001'],
      }),
      undefined,
      [
        { codigo: null, valor: 'Las secuencias ya fueron utilizadas' },
        { codigo: null, valor: 'E310000000001' },
      ],
    ],
    [
      '{mensaje: [strings]} (aprobacioncomercial)',
      JSON.stringify({
        mensaje: ['Factura no encontrada para esta Aprobación comercial.'],
        estado: 'Aprobacion Comercial Rechazada',
        codigo: '02',
      }),
      undefined,
      [{ codigo: null, valor: 'Factura no encontrada para esta Aprobación comercial.' }],
    ],
    [
      'ASP.NET ModelState {title, errors: {field: [...]}}',
      JSON.stringify({
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { xml: ['The xml field is required.'], trackid: ['The trackid field is required.'] },
      }),
      undefined,
      [
        { codigo: null, valor: 'xml: The xml field is required.' },
        { codigo: null, valor: 'trackid: The trackid field is required.' },
      ],
    ],
    [
      'ASP.NET with only a title',
      JSON.stringify({ title: 'Unsupported Media Type', status: 415 }),
      undefined,
      [{ codigo: null, valor: 'Unsupported Media Type' }],
    ],
    [
      'an XML answer',
      '<?xml version="1.0" encoding="utf-8"?><RespuestaAnulacionRango><rnc>131880681</rnc><codigo>03</codigo><nombre>Anulación rechazada</nombre><mensajes>Desde &gt; Hasta</mensajes><mensajes>E310000000009</mensajes></RespuestaAnulacionRango>',
      'application/xml',
      [
        { codigo: null, valor: 'Desde > Hasta' },
        { codigo: null, valor: 'E310000000009' },
      ],
    ],
    // Screened like any XML from outside: the entity is never expanded; the answer is read as text.
    [
      'an XML answer with a DTD entity',
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x "EXPANDIDO">]><r><mensajes>&x;</mensajes></r>',
      'application/xml',
      [{ codigo: null, valor: ']> &x;' }],
    ],
    [
      'XML messages with codes',
      '<Respuesta><mensajes><Mensaje><valor>RNC inválido</valor><codigo>2</codigo></Mensaje></mensajes></Respuesta>',
      'text/xml',
      [{ codigo: '2', valor: 'RNC inválido' }],
    ],
    ['plain text from IIS', 'Service Unavailable', 'text/plain', [{ codigo: null, valor: 'Service Unavailable' }]],
    [
      'an HTML error page, as its text',
      '<!DOCTYPE html><html><head><style>p{}</style><title>502</title></head><body><h1>Bad Gateway</h1></body></html>',
      'text/html',
      [{ codigo: null, valor: '502 Bad Gateway' }],
    ],
    [
      'a BOM and whitespace',
      '\uFEFF  {"mensaje":"El servicio se encuentra en mantenimiento."}  ',
      undefined,
      [{ codigo: null, valor: 'El servicio se encuentra en mantenimiento.' }],
    ],
    ['an empty body (401)', '', undefined, []],
    [
      'control characters and a lone surrogate, which PostgreSQL would refuse (dropped; replaced)',
      JSON.stringify({ mensajes: [{ valor: 'Firma\u0000 inválida\u0007 \uD800', codigo: '10\u00003' }] }),
      undefined,
      [{ codigo: '103', valor: 'Firma inválida \uFFFD' }],
    ],
  ];
  for (const [label, body, contentType, expected] of cases) {
    it(label, () => {
      assert.deepEqual(parseDgiiMessages(Buffer.from(body), contentType), expected);
    });
  }
});

describe("DGII's dates", () => {
  it('reads fechaRecepcion (US style, GMT-4) including 12 AM and 12 PM', () => {
    assert.equal(parseUsDateTime('10/8/2026 11:22:49 AM')?.toISOString(), '2026-10-08T15:22:49.000Z');
    assert.equal(parseUsDateTime('11/21/2026 12:05:00 AM')?.toISOString(), '2026-11-21T04:05:00.000Z');
    assert.equal(parseUsDateTime('11/21/2026 12:05:00 PM')?.toISOString(), '2026-11-21T16:05:00.000Z');
    assert.equal(parseUsDateTime('21/11/2026 12:05:00'), null);
  });

  it("reads the token's universal dates", () => {
    assert.equal(parseUniversal('2022-12-11T01:58:56Z')?.toISOString(), '2022-12-11T01:58:56.000Z');
    assert.equal(parseUniversal('11/12/2022'), null);
  });

  it('turns maintenance windows (days, 12-hour times, GMT-4) into instants, past midnight too', () => {
    assert.deepEqual(
      windowsOf('9:00 AM', '12:00 PM', ['06-08-2020', '20-08-2020']).map((window) => [
        window.start.toISOString(),
        window.end.toISOString(),
      ]),
      [
        ['2020-08-06T13:00:00.000Z', '2020-08-06T16:00:00.000Z'],
        ['2020-08-20T13:00:00.000Z', '2020-08-20T16:00:00.000Z'],
      ],
    );
    assert.deepEqual(
      windowsOf('10:00 PM', '2:00 AM', ['31-12-2026']).map((window) => [
        window.start.toISOString(),
        window.end.toISOString(),
      ]),
      [['2027-01-01T02:00:00.000Z', '2027-01-01T06:00:00.000Z']],
    );
    assert.deepEqual(windowsOf('25:00 AM', '2:00 AM', ['31-12-2026']), []);
  });
});

describe('answers read into outcomes', () => {
  it('reception: a trackId is received; a 200 without one is uncertain; a 400 is a refusal that does not burn the number', () => {
    assert.deepEqual(readReception(json(200, { trackId: 'abc' })), { kind: 'received', trackId: 'abc' });
    assert.deepEqual(readReception(json(200, { trackId: 'a\u0000bc\u001f' })), { kind: 'received', trackId: 'abc' });
    assert.equal(readReception(json(200, '<html>')).kind, 'uncertain');
    const refused = readReception(
      json(400, { error: 'El nombre del archivo no corresponde', mensaje: 'El nombre del archivo no corresponde' }),
    );
    assert.deepEqual(refused, {
      kind: 'rejected',
      estado: null,
      codigo: null,
      messages: [{ codigo: null, valor: 'El nombre del archivo no corresponde' }],
      secuenciaUtilizada: false,
      httpStatus: 400,
    });
  });

  it('result: every codigo, as string or number, and the estado text when the code is missing', () => {
    const base = {
      trackId: 't-1',
      rnc: '131880681',
      encf: 'E310000000001',
      secuenciaUtilizada: true,
      fechaRecepcion: '10/8/2026 11:22:49 AM',
      mensajes: [],
    };
    assert.deepEqual(readResult(json(200, { ...base, codigo: '0', estado: 'No encontrado' }), 't-1'), {
      kind: 'not_found',
    });
    assert.deepEqual(readResult(json(200, { ...base, codigo: '3', estado: 'En Proceso' }), 't-1'), {
      kind: 'in_process',
      trackId: 't-1',
    });
    const accepted = readResult(json(200, { ...base, codigo: 1, estado: 'Aceptado' }), 't-1');
    assert.equal(accepted.kind, 'accepted');
    assert.equal(accepted.receivedAt?.toISOString(), '2026-10-08T15:22:49.000Z');
    assert.equal(readResult(json(200, { ...base, estado: 'Aceptado Condicional' }), 't-1').kind, 'conditional');
    const rejected = readResult(
      json(200, {
        ...base,
        codigo: '2',
        estado: 'Rechazado',
        secuenciaUtilizada: false,
        mensajes: [{ valor: 'Firma inválida', codigo: 1003 }],
      }),
      't-1',
    );
    assert.deepEqual(rejected.kind === 'rejected' ? [rejected.secuenciaUtilizada, rejected.messages] : undefined, [
      false,
      [{ codigo: '1003', valor: 'Firma inválida' }],
    ]);
    assert.equal(readResult(json(200, { ...base, codigo: '9', estado: '?' }), 't-1').kind, 'transient');
  });

  it('consultaestado keeps amounts as DGII wrote them (no float)', () => {
    const answer = {
      status: 200,
      body: Buffer.from(
        '{"codigo":1,"estado":"Aceptado","rncEmisor":"131880681","ncfElectronico":"E310000000001","montoTotal":1430.10,"totalITBIS":180,"fechaEmision":"15-11-2026"}',
      ),
      contentType: 'application/json',
    };
    const status = readEncfStatus(answer);
    assert.equal(status.kind, 'accepted');
    assert.deepEqual([status.montoTotal, status.totalITBIS, status.eNCF], ['1430.10', '180', 'E310000000001']);
  });

  it('RFCE: a synchronous verdict, conditional included', () => {
    assert.equal(
      readRfceReception(
        json(200, { codigo: 1, estado: 'Aceptado', mensajes: [], encf: 'E320000000001', secuenciaUtilizada: true }),
      ).kind,
      'accepted',
    );
    assert.equal(
      readRfceReception(
        json(200, {
          codigo: 4,
          estado: 'Aceptado Condicional',
          mensajes: [{ codigo: 1014, valor: 'x' }],
          encf: 'E320000000001',
        }),
      ).kind,
      'conditional',
    );
    const rejected = readRfceReception(
      json(200, {
        codigo: 2,
        estado: 'Rechazado',
        mensajes: [{ codigo: 1003, valor: 'Firma' }],
        encf: 'E320000000001',
        secuenciaUtilizada: false,
      }),
    );
    assert.deepEqual(
      rejected.kind === 'rejected' ? [rejected.encf, rejected.secuenciaUtilizada, rejected.httpStatus] : [],
      ['E320000000001', false, 200],
    );
    assert.equal(readRfceReception(json(200, {})).kind, 'uncertain');
  });

  it('trackIds: entries with our name for each estado; an empty list is not found; one object is a list of one', () => {
    assert.deepEqual(readTrackIds(json(200, [])), { kind: 'not_found' });
    const found = readTrackIds(
      json(200, { trackId: 'a', estado: 'Rechazado', fechaRecepcion: '10/8/2026 1:02:03 PM' }),
    );
    assert.deepEqual(
      found.kind === 'found'
        ? found.entries.map((entry) => [entry.trackId, entry.status, entry.receivedAt?.toISOString()])
        : [],
      [['a', 'rejected', '2026-10-08T17:02:03.000Z']],
    );
  });

  it('directory: an object (production quirk) or an array; the entry of the RNC asked for', () => {
    const entry = {
      nombre: 'DGII',
      rnc: '131880681',
      urlRecepcion: 'https://x/fe',
      urlAceptacion: 'https://x/fe',
      urlOpcional: '',
    };
    assert.deepEqual(readDirectory(json(200, entry), '131880681'), { kind: 'found', entry });
    assert.deepEqual(readDirectory(json(200, [entry]), '131880681'), { kind: 'found', entry });
    assert.deepEqual(readDirectory(json(200, []), '131880681'), { kind: 'not_found' });
  });

  it('anularrango: all voided, voided with exceptions (conditional), refused; XML too', () => {
    assert.equal(
      readAnnulment(
        json(200, {
          rnc: '1',
          codigo: '01',
          nombre: 'ok',
          mensajes: ['Las secuencias fueron anuladas correctamente (47).'],
        }),
      ).kind,
      'accepted',
    );
    assert.equal(
      readAnnulment(
        json(200, {
          rnc: '1',
          codigo: '02',
          nombre: 'x',
          mensajes: ['Secuencias anuladas correctamente con excepción de las siguientes', 'E310000000001'],
        }),
      ).kind,
      'conditional',
    );
    const refused = readAnnulment({
      status: 400,
      body: Buffer.from(
        '<RespuestaAnulacionRango><rnc>1</rnc><codigo>03</codigo><nombre>Anulación rechazada</nombre><mensajes>Desde &gt; Hasta</mensajes></RespuestaAnulacionRango>',
      ),
      contentType: 'application/xml',
    });
    assert.deepEqual(refused.kind === 'rejected' ? [refused.codigo, refused.nombre, refused.messages] : [], [
      '03',
      'Anulación rechazada',
      [{ codigo: null, valor: 'Desde > Hasta' }],
    ]);
  });
});

describe('what a failure means for sending again', () => {
  const failure = (
    kind: 'dns' | 'connect_refused' | 'connect_timeout' | 'connect_failed' | 'broken' | 'response_timeout',
    sent: boolean,
  ) => ({ ok: false as const, failure: kind, sent, code: undefined });
  const cases: [string, ReturnType<typeof failure>, 'send' | 'query', string][] = [
    ['DNS', failure('dns', false), 'send', 'transient:dns'],
    ['refused', failure('connect_refused', false), 'send', 'transient:connect_refused'],
    ['connect timeout', failure('connect_timeout', false), 'send', 'transient:connect_timeout'],
    ['broken before the request was written', failure('broken', false), 'send', 'transient:reset_before_sent'],
    ['broken after the request was written', failure('broken', true), 'send', 'uncertain:reset_after_sent'],
    ['no answer in time after writing', failure('response_timeout', true), 'send', 'uncertain:response_timeout'],
    [
      'no answer in time, request not fully written',
      failure('response_timeout', false),
      'send',
      'transient:response_timeout',
    ],
    ['a query broken after writing', failure('broken', true), 'query', 'transient:network'],
    ['a query with no answer in time', failure('response_timeout', true), 'query', 'transient:response_timeout'],
  ];
  for (const [label, result, mode, expected] of cases) {
    it(`${label} (${mode}): ${expected}`, () => {
      const outcome = classifyFailure(result, mode);
      assert.equal(`${outcome.kind}:${outcome.reason}`, expected);
    });
  }

  it('HTTP statuses: 502/503/408/429 not taken; 500/504 uncertain for a send, transient for a query; 4xx are answers', () => {
    const kinds = (mode: 'send' | 'query') =>
      [502, 503, 408, 429, 500, 504, 400, 401, 200].map((status) => {
        const outcome = classifyStatus({ status, body: Buffer.from(''), contentType: '' }, mode);
        return outcome === undefined ? 'answer' : `${outcome.kind}:${outcome.reason}`;
      });
    const notTaken = [
      'transient:server_unavailable',
      'transient:server_unavailable',
      'transient:server_unavailable',
      'transient:server_unavailable',
    ];
    assert.deepEqual(kinds('send'), [
      ...notTaken,
      'uncertain:server_error',
      'uncertain:server_error',
      'answer',
      'answer',
      'answer',
    ]);
    assert.deepEqual(kinds('query'), [
      ...notTaken,
      'transient:server_unavailable',
      'transient:server_unavailable',
      'answer',
      'answer',
      'answer',
    ]);
  });
});

describe('circuit breaker', () => {
  it('opens after N consecutive failures, short-fails, half-opens for ONE probe, and the probe decides', () => {
    const clock = fixedClock(new Date('2026-11-21T12:00:00Z'));
    const breaker = createCircuitBreaker('testecf', 'recepcion', clock, { failureThreshold: 3, openMs: 10_000 });
    for (let failure = 0; failure < 2; failure += 1) {
      assert.deepEqual(breaker.admit(), { allowed: true, probe: false });
      breaker.failed();
    }
    // A success in between resets the count: failures must be consecutive.
    breaker.admit();
    breaker.succeeded();
    for (let failure = 0; failure < 3; failure += 1) {
      breaker.admit();
      breaker.failed();
    }
    assert.equal(breaker.snapshot().state, 'open');
    assert.deepEqual(breaker.admit(), { allowed: false, retryAt: new Date('2026-11-21T12:00:10Z') });
    clock.advance(10_000);
    assert.equal(breaker.snapshot().state, 'half_open');
    assert.deepEqual(breaker.admit(), { allowed: true, probe: true });
    assert.equal(breaker.admit().allowed, false, 'only one probe at a time');
    breaker.failed();
    assert.deepEqual(breaker.snapshot(), {
      environment: 'testecf',
      service: 'recepcion',
      state: 'open',
      consecutiveFailures: 4,
      opensUntil: new Date('2026-11-21T12:00:20Z'),
    });
    clock.advance(10_000);
    assert.deepEqual(breaker.admit(), { allowed: true, probe: true });
    breaker.succeeded();
    assert.deepEqual(breaker.snapshot(), {
      environment: 'testecf',
      service: 'recepcion',
      state: 'closed',
      consecutiveFailures: 0,
      opensUntil: null,
    });
    assert.deepEqual(breaker.admit(), { allowed: true, probe: false });
  });
});
