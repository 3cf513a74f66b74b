// Hostile input (DESIGN §4), as an attacker sends it, over real connections to a listening app: text PostgreSQL
// cannot store (NUL) in every place a request carries text, JSON 10,000 levels deep, `null` where a group belongs,
// 1e40 where an integer column waits, XML shaped to make a parser quadratic or recursive at the 5 MB limit, a
// multipart body answered before it was read, and what Node and the router refuse before any route runs. Never a 5xx;
// on the API always problem+json naming the place at fault; and while each costly input is processed, /health on
// another connection answers within 200 ms.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { AddressInfo } from 'node:net';
import { createSelfSignedP12 } from '../src/platform/crypto/test-certificate.js';
import type { ProblemBody } from '../src/platform/http/problems.js';
import { scopes } from '../src/platform/http/scopes.js';
import type { ProblemCode } from '../src/platform/result.js';
import { ecfDocuments, issuerRnc } from './support/ecf-documents.js';
import { admittedXmlShapes, refusedXmlShapes } from './support/hostile-xml.js';
import { nodeProgram } from './support/node-program.js';
import { rawExchange } from './support/raw-http.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const run = promisify(execFile);
const stallProbe = fileURLToPath(new URL('./support/stall-probe.ts', import.meta.url));
const fiveMegabytes = 5 * 1024 * 1024;

interface Row {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  body?: string;
  status: number;
  code: ProblemCode;
  /** The field error the answer must name. */
  error?: { in: string; pointer: string };
}

const nul = '\u0000';
const deepJson = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
const deepArray = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
const withItems = (items: unknown) => JSON.stringify({ ...ecfDocuments['31'], DetallesItems: { Item: items } });

describe('hostile input over HTTP: never a 5xx, problem+json on the API, no stalls', () => {
  let app: TestApp;
  let base: string;
  let port: number;
  let key: string;
  let companyId: string;
  let documentId: string;

  before(async () => {
    app = await startTestApp({ env: { RECEIVER_AUTH_MODE: 'optional' } });
    companyId = await app.provisionCompany({ rnc: issuerRnc });
    const certificate = createSelfSignedP12({
      commonName: 'EMISOR DE PRUEBA',
      serialNumber: issuerRnc,
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
    key = (await app.issueKey(companyId, [...scopes])).apiKey;
    base = await app.app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.app.server.address() as AddressInfo).port;
    const range = await call(
      'POST',
      '/api/v1/secuencias/rangos',
      JSON.stringify({ ecfType: '31', from: 'E310000000001', to: 'E310000001000', expiresOn: '31-12-2030' }),
    );
    assert.equal(range.status, 201, await range.text());
    const created = await call('POST', '/api/v1/documentos', JSON.stringify(ecfDocuments['31']));
    assert.equal(created.status, 201, await created.clone().text());
    documentId = ((await created.json()) as { data: { id: string } }).data.id;
  });
  after(() => app.close());

  function call(method: string, path: string, body?: string, contentType = 'application/json'): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (body !== undefined) headers['content-type'] = contentType;
    return fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  }

  async function assertProblemAnswer(
    response: Response,
    row: Pick<Row, 'status' | 'code' | 'error'>,
  ): Promise<ProblemBody> {
    const text = await response.text();
    assert.equal(response.status, row.status, text.slice(0, 500));
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const body = JSON.parse(text) as ProblemBody;
    assert.equal(body.code, row.code, text.slice(0, 500));
    assert.equal(body.correlationId, response.headers.get('x-correlation-id'));
    if (row.error !== undefined) {
      const { in: where, pointer } = row.error;
      assert.ok(
        body.errors?.some((error) => error.in === where && error.pointer === pointer),
        `no error in ${where} at ${pointer}: ${JSON.stringify(body.errors).slice(0, 500)}`,
      );
    }
    return body;
  }

  const nulInParams = (url: string, pointer: string, method: Row['method'] = 'GET', body?: string): Row => ({
    name: `NUL in ${pointer.slice(1)} of ${method} ${url}`,
    method,
    url: url.replace(`:${pointer.slice(1)}`, 'doc%00x'),
    ...(body === undefined ? {} : { body }),
    status: 400,
    code: 'validation_failed',
    error: { in: 'params', pointer },
  });

  const table: Row[] = [
    // Documents.
    nulInParams('/api/v1/documentos/:id', '/id'),
    nulInParams('/api/v1/documentos/:id/cronologia', '/id'),
    nulInParams('/api/v1/documentos/:id/normalizado', '/id'),
    nulInParams('/api/v1/documentos/:id/artefactos/signed-xml', '/id'),
    nulInParams('/api/v1/documentos/:id/enviar', '/id', 'POST', '{}'),
    nulInParams('/api/v1/documentos/:id/reintentar', '/id', 'POST', '{}'),
    nulInParams('/api/v1/documentos/:id/actualizar-estado', '/id', 'POST', '{}'),
    {
      name: 'NUL in a query value',
      method: 'GET',
      url: '/api/v1/documentos?cursor=a%00b',
      status: 400,
      code: 'validation_failed',
      error: { in: 'query', pointer: '/cursor' },
    },
    {
      name: 'NUL in a JSON string of an e-CF',
      method: 'POST',
      url: '/api/v1/documentos',
      body: JSON.stringify({
        ...ecfDocuments['31'],
        Encabezado: { ...(ecfDocuments['31']['Encabezado'] as object), IdDoc: { TipoeCF: `31${nul}` } },
      }),
      status: 400,
      code: 'validation_failed',
      error: { in: 'body', pointer: '/Encabezado/IdDoc/TipoeCF' },
    },
    {
      name: 'NUL in a JSON key',
      method: 'POST',
      url: '/api/v1/documentos',
      body: JSON.stringify({ [`Encabezado${nul}`]: {} }),
      status: 400,
      code: 'validation_failed',
      error: { in: 'body', pointer: `/Encabezado${nul}` },
    },
    {
      name: 'a 10,000-level JSON object',
      method: 'POST',
      url: '/api/v1/documentos',
      body: deepJson,
      status: 400,
      code: 'malformed_body',
      error: { in: 'body', pointer: `/${Array.from({ length: 32 }, () => 'a').join('/')}` },
    },
    {
      name: 'a 10,000-level JSON array',
      method: 'POST',
      url: '/api/v1/documentos',
      body: deepArray,
      status: 400,
      code: 'malformed_body',
      error: { in: 'body', pointer: `/${Array.from({ length: 32 }, () => '0').join('/')}` },
    },
    {
      name: 'a null item',
      method: 'POST',
      url: '/api/v1/documentos',
      body: withItems([null]),
      status: 422,
      code: 'document_invalid',
    },
    {
      name: 'null as the item list',
      method: 'POST',
      url: '/api/v1/documentos',
      body: withItems(null),
      status: 422,
      code: 'document_invalid',
    },
    {
      name: 'null as Totales',
      method: 'POST',
      url: '/api/v1/documentos',
      body: JSON.stringify({
        ...ecfDocuments['31'],
        Encabezado: { ...(ecfDocuments['31']['Encabezado'] as object), Totales: null },
      }),
      status: 201,
      code: 'validation_failed',
    },
    {
      name: 'a 10,000-level JSON body to signed-XML intake',
      method: 'POST',
      url: '/api/v1/documentos/xml-firmado',
      body: deepJson,
      status: 400,
      code: 'malformed_body',
    },

    // Received documents.
    nulInParams('/api/v1/recibidos/:id', '/id'),
    nulInParams('/api/v1/recibidos/:id/artefactos/received-xml', '/id'),
    nulInParams('/api/v1/recibidos/:id/respuesta-comercial', '/id', 'POST', '{"estado":"aprobado"}'),

    // Webhooks.
    nulInParams('/api/v1/notificaciones/:id', '/id'),
    nulInParams('/api/v1/notificaciones/:id', '/id', 'PATCH', '{"description":"x"}'),
    // No such route: NUL or not, the answer is the 405 naming the methods there are.
    {
      name: 'NUL in the path of a method the route does not have',
      method: 'DELETE',
      url: '/api/v1/notificaciones/a%00b',
      status: 405,
      code: 'method_not_allowed',
    },
    nulInParams('/api/v1/notificaciones/:id/prueba', '/id', 'POST', '{}'),
    {
      name: 'NUL in a webhook description',
      method: 'POST',
      url: '/api/v1/notificaciones',
      body: JSON.stringify({ url: 'https://erp.example.com/hooks', description: `ERP${nul}` }),
      status: 400,
      code: 'validation_failed',
      error: { in: 'body', pointer: '/description' },
    },

    // Sequences.
    nulInParams('/api/v1/secuencias/asignaciones/:id', '/id'),
    nulInParams('/api/v1/secuencias/asignaciones/:id/cancelar', '/id', 'POST', '{}'),
    nulInParams('/api/v1/secuencias/anulaciones/:id', '/id'),
    nulInParams('/api/v1/secuencias/anulaciones/:id/reintentar', '/id', 'POST', '{}'),
    nulInParams('/api/v1/secuencias/rangos/:id', '/id'),
    {
      name: '1e40 as an allocation count',
      method: 'POST',
      url: '/api/v1/secuencias/asignaciones',
      body: '{"ecfType":"31","deviceId":"caja-1","count":1e40}',
      status: 400,
      code: 'validation_failed',
      error: { in: 'body', pointer: '/count' },
    },
    {
      name: '1e40 as a list limit',
      method: 'GET',
      url: '/api/v1/secuencias/asignaciones?limit=1e40',
      status: 400,
      code: 'validation_failed',
      error: { in: 'query', pointer: '/limit' },
    },

    // Certification and catalogues.
    nulInParams('/api/v1/certificacion/:id', '/id'),
    nulInParams('/api/v1/catalogos/:catalog', '/catalog'),
    nulInParams('/api/v1/contribuyentes/:rnc', '/rnc'),
  ];

  for (const row of table) {
    it(`${row.name} → ${String(row.status)} ${row.code}`, async () => {
      const response = await call(row.method, row.url, row.body);
      if (row.status === 201) {
        // Null read as absent: the service computes the block the client left out.
        assert.equal(response.status, 201, await response.text());
        return;
      }
      await assertProblemAnswer(response, row);
    });
  }

  it('1e40 in every leaf of an e-CF: refused as 4xx naming that leaf, or taken as its text, never a 5xx', async () => {
    const leaves = (value: unknown, path: string[] = []): string[][] =>
      typeof value === 'object' && value !== null
        ? Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]))
        : [path];
    const paths = leaves(ecfDocuments['31']);
    assert.ok(paths.length > 30);
    const outcomes = new Map<number, number>();
    for (const path of paths) {
      const document = structuredClone(ecfDocuments['31']) as Record<string, unknown>;
      let parent = document;
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
      parent[path[path.length - 1] as string] = 1e40;
      const response = await call('POST', '/api/v1/documentos', JSON.stringify(document));
      const text = await response.text();
      outcomes.set(response.status, (outcomes.get(response.status) ?? 0) + 1);
      assert.ok(response.status < 500, `/${path.join('/')}: ${String(response.status)} ${text.slice(0, 300)}`);
      if (response.status === 422) {
        const body = JSON.parse(text) as ProblemBody;
        assert.ok(
          body.errors?.some((error) => error.pointer.startsWith(`/${path[0] ?? ''}`)),
          `/${path.join('/')}: ${text.slice(0, 300)}`,
        );
      }
    }
    // Most fields are amounts, codes, dates or identifiers that 1e40 cannot be.
    assert.ok((outcomes.get(422) ?? 0) > paths.length / 2, JSON.stringify([...outcomes]));
  });

  it("1e40 as the version of an existing document's artefact → 400 naming the query parameter", async () => {
    const response = await call('GET', `/api/v1/documentos/${documentId}/artefactos/signed-xml?version=1e40`);
    await assertProblemAnswer(response, {
      status: 400,
      code: 'validation_failed',
      error: { in: 'query', pointer: '/version' },
    });
  });

  it('control plane: NUL in a path segment and in an event field → 400 naming them', async () => {
    const listed = await app.cloud('GET', '/internal/cloud/v1/companies/co%00x/api-keys');
    assert.equal(listed.statusCode, 400, listed.body);
    assert.match(String(listed.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(
      listed.json<ProblemBody>().errors?.map((error) => [error.in, error.pointer]),
      [['params', '/companyId']],
    );
    const event = await app.sendEvent('company.updated', { companyId, legalName: `Nombre${nul}` });
    assert.equal(event.statusCode, 400, event.body);
    assert.deepEqual(
      event.json<ProblemBody>().errors?.map((error) => [error.in, error.pointer]),
      [['body', '/data/legalName']],
    );
  });

  it("receiver: NUL in the company segment and in the environment segment → 400 in DGII's style, not a 500", async () => {
    for (const path of [
      `/testecf/${issuerRnc}%00/fe/recepcion/api/ecf`,
      `/test%00ecf/${issuerRnc}/fe/aprobacioncomercial/api/ecf`,
      `/testecf/x%00/fe/autenticacion/api/semilla`,
    ]) {
      const response = await fetch(`${base}${path}`, {
        method: path.endsWith('semilla') ? 'GET' : 'POST',
        ...(path.endsWith('semilla') ? {} : { headers: { 'content-type': 'application/xml' }, body: '<ECF/>' }),
      });
      const body = (await response.json()) as { mensaje?: string };
      assert.equal(response.status, 400, `${path}: ${JSON.stringify(body)}`);
      assert.match(body.mensaje ?? '', /NUL/);
    }
  });

  interface Probed {
    name: string;
    bytes: number;
    status: number;
    contentType: string;
    body: string;
    slowestMs: number;
    healthCalls: number;
  }

  type ProbeBody = { xml: string } | { json: 'objects' };
  type ProbeRequest = { name: string; path: string; headers?: Record<string, string> };

  /**
   * Each request sent, with the body named, by a process of its own (test/support/stall-probe.ts), which builds the
   * body and times /health on another connection again and again until the request is answered.
   */
  async function probe(body: ProbeBody, requests: ProbeRequest[]): Promise<Probed[]> {
    const spec = {
      base,
      body,
      requests: requests.map((request) => ({
        ...request,
        method: 'POST',
        headers: { 'content-type': 'application/xml', ...request.headers },
      })),
    };
    const { stdout } = await run(process.execPath, [...nodeProgram(stallProbe), JSON.stringify(spec)], {
      maxBuffer: 1_000_000,
    });
    return stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Probed);
  }

  /**
   * /health within 200 ms while each request is processed, in the best of three tries: a stall of the process
   * (what this looks for: seconds, on every try) fails all three, while a moment of a shared CI machine's
   * scheduling (another test file runs on the other core) does not come back three times.
   */
  async function assertNoStall(body: ProbeBody, probed: Probed[], requests: ProbeRequest[]): Promise<void> {
    for (const [index, first] of probed.entries()) {
      const tries = [first.slowestMs];
      for (let again = 1; again < 3 && Math.min(...tries) >= 200; again++) {
        const request = requests[index];
        assert.ok(request !== undefined);
        tries.push(...(await probe(body, [request])).map((retry) => retry.slowestMs));
      }
      assert.ok(
        Math.min(...tries) < 200,
        `${first.name}: /health took ${tries.map((ms) => ms.toFixed(0)).join(', ')} ms in three tries while the XML was processed`,
      );
    }
  }

  // Shapes the screen admits (every parser is linear on them) but that cost the general parsers seconds at 5 MB: read
  // on the XML thread (platform/xml-checks), answered like any other document.
  for (const shape of Object.keys(admittedXmlShapes)) {
    it(`XML with ${shape} at the 5 MB limit: answered at the e-CF entry points, /health answering within 200 ms meanwhile`, async () => {
      const requests = [
        { name: 'signed-XML intake', path: '/api/v1/documentos/xml-firmado', headers: { 'x-api-key': key } },
        { name: 'receiver, e-CF', path: `/testecf/${issuerRnc}/fe/recepcion/api/ecf` },
      ];
      const probed = await probe({ xml: shape }, requests);
      const [intake, receiver] = probed;
      assert.ok(intake !== undefined && receiver !== undefined);
      assert.ok(
        intake.bytes > fiveMegabytes - 16_384 && intake.bytes <= fiveMegabytes,
        `${String(intake.bytes)} bytes`,
      );
      assert.equal(intake.status, 422, intake.body);
      assert.match(intake.contentType, /^application\/problem\+json/);
      // DGII's standard: an e-CF that is not one gets its signed ARECF, Estado 1 (CodigoMotivoNoRecibido 1).
      assert.equal(receiver.status, 200, receiver.body);
      assert.match(receiver.body, /<Estado>1<\/Estado><CodigoMotivoNoRecibido>1<\/CodigoMotivoNoRecibido>/);
      await assertNoStall({ xml: shape }, probed, requests);
    });
  }

  for (const shape of Object.keys(refusedXmlShapes)) {
    it(`XML with ${shape} at the 5 MB limit: refused at every entry point, /health answering within 200 ms meanwhile`, async () => {
      const requests = [
        { name: 'signed-XML intake', path: '/api/v1/documentos/xml-firmado', headers: { 'x-api-key': key } },
        { name: 'receiver, e-CF', path: `/testecf/${issuerRnc}/fe/recepcion/api/ecf` },
        { name: 'receiver, commercial approval', path: `/testecf/${issuerRnc}/fe/aprobacioncomercial/api/ecf` },
        { name: 'receiver, signed seed', path: `/testecf/${issuerRnc}/fe/autenticacion/api/validacioncertificado` },
      ];
      const probed = await probe({ xml: shape }, requests);
      assert.equal(probed.length, 4);
      for (const answer of probed) {
        assert.ok(
          answer.bytes > fiveMegabytes - 16_384 && answer.bytes <= fiveMegabytes,
          `${String(answer.bytes)} bytes`,
        );
        assert.ok(
          answer.status >= 400 && answer.status < 500,
          `${answer.name}: ${String(answer.status)} ${answer.body}`,
        );
      }
      assert.match(probed[0]?.contentType ?? '', /^application\/problem\+json/);
      await assertNoStall({ xml: shape }, probed, requests);
    });
  }

  it('a 5 MB JSON body of 1.25 million objects: 413 before it is parsed, with or without credentials, /health answering meanwhile', async () => {
    const requests: { name: string; path: string; headers: Record<string, string> }[] = [
      {
        name: 'documents',
        path: '/api/v1/documentos',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
      },
      {
        name: 'control plane, unsigned',
        path: '/internal/cloud/v1/events',
        headers: { 'content-type': 'application/json' },
      },
      {
        name: 'receiver, e-CF',
        path: `/testecf/${issuerRnc}/fe/recepcion/api/ecf`,
        headers: { 'content-type': 'application/json' },
      },
    ];
    const probed = await probe({ json: 'objects' }, requests);
    assert.deepEqual(
      probed.map((answer) => [answer.name, answer.status]),
      requests.map((request) => [request.name, 413]),
    );
    const [documents] = probed;
    assert.match(documents?.contentType ?? '', /^application\/problem\+json/);
    assert.equal((JSON.parse(documents?.body ?? '{}') as ProblemBody).errors?.[0]?.code, 'too_many_values');
    await assertNoStall({ json: 'objects' }, probed, requests);
  });

  it('a multipart body answered before it was read (20,000 empty fields) leaves the connection serving the next request', async () => {
    const boundary = 'hostile-boundary';
    const fields = Array.from(
      { length: 20_000 },
      (_, i) => `--${boundary}\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n\r\n`,
    ).join('');
    const body = Buffer.from(`${fields}--${boundary}--\r\n`);
    assert.ok(body.length > 1_000_000);
    const head = `POST /testecf/${issuerRnc}/fe/recepcion/api/ecf HTTP/1.1\r\nhost: localhost\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${body.length}\r\n\r\n`;
    const exchange = await rawExchange(port, [head, body, 'GET /health HTTP/1.1\r\nhost: localhost\r\n\r\n'], 2);
    const [refused, health] = exchange.responses;
    assert.ok(
      refused !== undefined && refused.status >= 400 && refused.status < 500,
      JSON.stringify(exchange).slice(0, 500),
    );
    // Either the next request on the socket is answered, or the client was told the connection ends.
    if (health === undefined)
      assert.ok(exchange.closed && refused.headers['connection'] === 'close', JSON.stringify(exchange).slice(0, 500));
    else assert.equal(health.status, 200);
  });

  const preRouting: [string, string, number, ProblemCode][] = [
    [
      'a path that is not percent-encoded UTF-8 (%ff)',
      'GET /api/v1/documentos/%ff HTTP/1.1\r\nhost: x\r\nx-api-key: k\r\n\r\n',
      400,
      'malformed_request',
    ],
    [
      'a 20 KB path',
      `GET /api/v1/documentos/${'a'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'a 200-character path segment',
      `GET /api/v1/documentos/${'a'.repeat(200)} HTTP/1.1\r\nhost: x\r\n\r\n`,
      414,
      'uri_too_long',
    ],
    [
      'headers over 16 KB',
      `GET /health HTTP/1.1\r\nhost: x\r\nx-filler: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    [
      'an Expect other than 100-continue',
      'POST /api/v1/documentos HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
      417,
      'expectation_failed',
    ],
    ['a method HTTP does not have', 'FROB /health HTTP/1.1\r\nhost: x\r\n\r\n', 400, 'malformed_request'],
    [
      'CONNECT, which never reaches the router',
      'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n',
      405,
      'method_not_allowed',
    ],
    [
      'a NUL in a header value',
      'GET /health HTTP/1.1\r\nhost: x\r\nx-correlation-id: a\u0000b\r\n\r\n',
      400,
      'malformed_request',
    ],
    [
      'broken chunked framing',
      'POST /api/v1/documentos HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\ncontent-type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      400,
      'malformed_request',
    ],
  ];
  /**
   * One request with `count` headers `x-hN: v` written first, then the request's own: Node's http.request
   * writes Host and Content-Length after the caller's headers. Node used to keep the first 1,000 headers and drop
   * the rest, Host included: a bare 400 with no body.
   */
  function withFiller(count: number, request: { method: string; path: string; headers: string[]; body?: string }) {
    const filler = Array.from({ length: count }, (_, i) => `x-h${String(i)}: v\r\n`).join('');
    const body = request.body ?? '';
    const own = [...request.headers, 'host: localhost', ...(body === '' ? [] : [`content-length: ${body.length}`])];
    return `${request.method} ${request.path} HTTP/1.1\r\n${filler}${own.map((h) => `${h}\r\n`).join('')}\r\n${body}`;
  }

  it("1,000 small headers (about 11 KB) before the request's own: the answer the route gives without them", async () => {
    const form = [
      '--b',
      'Content-Disposition: form-data; name="xml"; filename="e.xml"',
      'Content-Type: text/xml',
      '',
      '<ECF/>',
      '--b--',
      '',
    ].join('\r\n');
    const requests = [
      { method: 'GET', path: '/health', headers: [] },
      { method: 'GET', path: '/api/v1/empresa', headers: [`x-api-key: ${key}`] },
      {
        method: 'POST',
        path: '/api/v1/documentos/vista-previa',
        headers: [`x-api-key: ${key}`, 'content-type: application/json'],
        body: JSON.stringify(ecfDocuments['31']),
      },
      { method: 'GET', path: '/api/v1/no-such-route', headers: [`x-api-key: ${key}`] },
      {
        method: 'POST',
        path: `/testecf/${issuerRnc}/fe/recepcion/api/ecf`,
        headers: ['content-type: multipart/form-data; boundary=b'],
        body: form,
      },
    ];
    for (const request of requests) {
      const [plain] = (await rawExchange(port, [withFiller(0, request)], 1)).responses;
      const [filled] = (await rawExchange(port, [withFiller(1_000, request)], 1)).responses;
      assert.ok(plain !== undefined && filled !== undefined, `${request.path}: both answered`);
      assert.equal(filled.status, plain.status, `${request.path}: ${filled.body.slice(0, 300)}`);
      assert.equal(filled.headers['content-type'], plain.headers['content-type'], request.path);
      assert.ok(filled.body.length > 0, `${request.path}: a body`);
      const withoutIds = (text: string) => text.replace(/"(correlationId|timestamp)":"[^"]*"/g, '');
      if (request.path !== '/api/v1/empresa')
        assert.equal(withoutIds(filled.body), withoutIds(plain.body), request.path);
    }
  });

  it('an HTTP/1.1 request without Host → 400 malformed_request as problem+json naming the header', async () => {
    const [response] = (await rawExchange(port, ['GET /health HTTP/1.1\r\nx-filler: v\r\n\r\n'], 1)).responses;
    assert.ok(response !== undefined);
    assert.equal(response.status, 400);
    assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/);
    const body = JSON.parse(response.body) as ProblemBody;
    assert.equal(body.code, 'malformed_request');
    assert.deepEqual(
      body.errors?.map((error) => [error.in, error.pointer]),
      [['headers', '/host']],
    );
  });

  for (const [name, request, status, code] of preRouting) {
    it(`before routing, ${name} → ${String(status)} ${code} as problem+json`, async () => {
      const exchange = await rawExchange(port, [request], 1);
      const [response] = exchange.responses;
      assert.ok(response !== undefined, 'an answer arrived');
      assert.equal(response.status, status, response.body);
      assert.match(response.headers['content-type'] ?? '', /^application\/problem\+json/);
      const body = JSON.parse(response.body) as ProblemBody;
      assert.equal(body.code, code);
      assert.equal(body.status, status);
      assert.equal(body.correlationId, response.headers['x-correlation-id']);
    });
  }
});
