// Delivering an ACECF to an issuer's receiver, against a scripted transport: the standard paths under the
// directory's bases, the seed flow only when the directory offers authentication, the token as Bearer, the stored
// bytes as multipart `xml` with DGII's file name, and what each kind of answer means.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DirectoryEntry, HttpRequest, HttpResult } from '../src/dgii/index.js';
import { parseSemilla } from '../src/fiscal/responses/semilla.js';
import { verifyEnvelopedSignature } from '../src/fiscal/xmldsig/index.js';
import { deliverToIssuer, receiverEndpoint } from '../src/modules/received/outgoing-response-issuer.js';
import { testSigningKey } from './support/xmldsig-kit.js';

const seedXml =
  '<?xml version="1.0" encoding="utf-8"?><SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>c2VtaWxsYQ==</valor><fecha>2026-11-21T10:00:00.0000000-04:00</fecha></SemillaModel>';
const acecf = { xml: Buffer.from('<ACECF>bytes as stored</ACECF>'), fileName: '131000001E310000000001.xml' };

function answer(status: number, body = ''): HttpResult {
  return { ok: true, status, headers: {}, body: Buffer.from(body) };
}

/** A transport that answers by URL and records every request. */
function scripted(routes: Record<string, (request: HttpRequest) => HttpResult>) {
  const requests: HttpRequest[] = [];
  const transport = (request: HttpRequest) => {
    requests.push(request);
    const route = Object.entries(routes).find(([suffix]) => request.url.endsWith(suffix));
    return Promise.resolve(route === undefined ? answer(404) : route[1](request));
  };
  return { transport, requests };
}

const entry = (overrides: Partial<DirectoryEntry> = {}): DirectoryEntry => ({
  nombre: 'EMISOR',
  rnc: '131880738',
  urlRecepcion: 'https://emisor.example/testecf/x',
  urlAceptacion: 'https://emisor.example/testecf/x',
  urlOpcional: '',
  ...overrides,
});

describe('ACECF to the issuer: receiver endpoints', () => {
  it('appends the standard path to a base, without repeating a service part or a whole path already there', () => {
    const path = '/fe/aprobacioncomercial/api/ecf';
    assert.equal(receiverEndpoint('https://h/testecf/x', path), 'https://h/testecf/x/fe/aprobacioncomercial/api/ecf');
    assert.equal(receiverEndpoint('https://h/testecf/x/', path), 'https://h/testecf/x/fe/aprobacioncomercial/api/ecf');
    assert.equal(
      receiverEndpoint('https://h/x/fe/aprobacioncomercial', path),
      'https://h/x/fe/aprobacioncomercial/api/ecf',
    );
    assert.equal(
      receiverEndpoint('https://h/x/fe/aprobacioncomercial/api/ecf', path),
      'https://h/x/fe/aprobacioncomercial/api/ecf',
    );
  });
});

describe('ACECF to the issuer: delivery', () => {
  it('posts the stored bytes as multipart `xml`, without authentication when the directory offers none', async () => {
    const { transport, requests } = scripted({ '/fe/aprobacioncomercial/api/ecf': () => answer(200) });
    const outcome = await deliverToIssuer(transport, entry(), acecf, testSigningKey());
    assert.deepEqual(outcome, {
      kind: 'delivered',
      url: 'https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      httpStatus: 200,
    });
    assert.equal(requests.length, 1);
    const [post] = requests;
    assert.equal(post?.headers['authorization'], undefined);
    assert.match(post?.headers['content-type'] ?? '', /^multipart\/form-data; boundary=/);
    const body = post?.body?.toString('utf8') ?? '';
    assert.match(body, /Content-Disposition: form-data; name="xml"; filename="131000001E310000000001\.xml"/);
    assert.ok(body.includes('<ACECF>bytes as stored</ACECF>'));
  });

  it('authenticates first when the directory gives urlOpcional: the seed signed with our key, the token as Bearer', async () => {
    let signedSeed = '';
    const { transport, requests } = scripted({
      '/fe/autenticacion/api/semilla': () => answer(200, seedXml),
      '/fe/autenticacion/api/validacioncertificado': (request) => {
        signedSeed = /<SemillaModel[\s\S]*<\/SemillaModel>/.exec(request.body?.toString('utf8') ?? '')?.[0] ?? '';
        return answer(200, '<RespuestaAutenticacion><token>tok-123</token></RespuestaAutenticacion>');
      },
      '/fe/aprobacioncomercial/api/ecf': () => answer(200),
    });
    const outcome = await deliverToIssuer(
      transport,
      entry({ urlOpcional: 'https://auth.example/testecf/x' }),
      acecf,
      testSigningKey(),
    );
    assert.equal(outcome.kind, 'delivered');
    assert.deepEqual(
      requests.map((request) => `${request.method} ${request.url}`),
      [
        'GET https://auth.example/testecf/x/fe/autenticacion/api/semilla',
        'POST https://auth.example/testecf/x/fe/autenticacion/api/validacioncertificado',
        'POST https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      ],
    );
    assert.ok(verifyEnvelopedSignature(signedSeed).ok, 'the seed went back signed');
    const seed = parseSemilla(signedSeed);
    assert.ok(seed.ok);
    assert.equal(seed.value.valor, 'c2VtaWxsYQ==');
    assert.equal(requests[2]?.headers['authorization'], 'Bearer tok-123');
  });

  it('tells a refusal (4xx) from a failure (5xx, no connection, failed authentication) and never posts without a token it needed', async () => {
    const refused = scripted({ '/fe/aprobacioncomercial/api/ecf': () => answer(400, '{"mensaje":"no corresponde"}') });
    assert.deepEqual(await deliverToIssuer(refused.transport, entry(), acecf, testSigningKey()), {
      kind: 'refused',
      url: 'https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      httpStatus: 400,
      detail: 'HTTP 400 {"mensaje":"no corresponde"}',
    });
    const down = scripted({ '/fe/aprobacioncomercial/api/ecf': () => answer(503, 'Service Unavailable') });
    assert.equal((await deliverToIssuer(down.transport, entry(), acecf, testSigningKey())).kind, 'failed');
    const unreachable = (): Promise<HttpResult> =>
      Promise.resolve({ ok: false, failure: 'connect_refused', sent: false, code: 'ECONNREFUSED' });
    assert.deepEqual(await deliverToIssuer(unreachable, entry(), acecf, testSigningKey()), {
      kind: 'failed',
      url: 'https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      detail: 'connect_refused (ECONNREFUSED)',
    });

    const noToken = scripted({
      '/fe/autenticacion/api/semilla': () => answer(200, seedXml),
      '/fe/autenticacion/api/validacioncertificado': () => answer(400, 'firma inválida'),
      '/fe/aprobacioncomercial/api/ecf': () => answer(200),
    });
    const outcome = await deliverToIssuer(
      noToken.transport,
      entry({ urlOpcional: 'https://emisor.example/testecf/x' }),
      acecf,
      testSigningKey(),
    );
    assert.ok(outcome.kind === 'failed');
    assert.match(outcome.detail, /authentication at the issuer failed: validacioncertificado: HTTP 400/);
    assert.equal(
      noToken.requests.some((request) => request.url.endsWith('/fe/aprobacioncomercial/api/ecf')),
      false,
    );

    assert.deepEqual(await deliverToIssuer(refused.transport, entry({ urlAceptacion: '' }), acecf, testSigningKey()), {
      kind: 'failed',
      url: null,
      detail: 'DGII\'s directory gives 131880738 no usable approval URL (urlAceptacion "")',
    });
  });
});
