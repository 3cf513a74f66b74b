// Delivering an ACECF to an issuer's receiver, through the receiver client over a scripted transport: the standard
// paths under the directory's bases, the seed flow only when the directory offers authentication, the token as
// Bearer (kept for the next call), the stored bytes as multipart `xml` with DGII's file name, what each kind of
// answer means, and the address rule before any byte leaves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createReceiverClient,
  receiverEndpoint,
  type DirectoryEntry,
  type HttpRequest,
  type HttpResult,
  type HttpTransport,
} from '../src/dgii/index.js';
import { parseSemilla } from '../src/fiscal/responses/semilla.js';
import { verifyEnvelopedSignature } from '../src/fiscal/xmldsig/index.js';
import type { TargetPolicy } from '../src/platform/http/target-policy.js';
import { deliverToIssuer } from '../src/modules/received/outgoing-response-issuer.js';
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

/** The receiver client as the service builds it, its hosts resolved to a private address the policy allows. */
function clientOf(transport: HttpTransport, policy: TargetPolicy = { environment: 'TEST', allowPrivate: true }) {
  return createReceiverClient({
    transport,
    policy,
    now: () => new Date('2026-11-21T14:00:00Z'),
    resolve: (hostname, rule) =>
      Promise.resolve(
        rule.allowPrivate
          ? { ok: true as const, addresses: [{ address: '10.0.0.7', family: 4 as const }] }
          : { ok: false as const, reason: `${hostname} resolves to 10.0.0.7, a private address` },
      ),
  });
}

function deliver(transport: HttpTransport, directory: DirectoryEntry, client = clientOf(transport)) {
  return deliverToIssuer(client, { companyId: 'cmp_1', entry: directory, acecf, key: testSigningKey() });
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
    const outcome = await deliver(transport, entry());
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
    const outcome = await deliver(transport, entry({ urlOpcional: 'https://auth.example/testecf/x' }));
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
    assert.deepEqual(await deliver(refused.transport, entry()), {
      kind: 'refused',
      url: 'https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      httpStatus: 400,
      detail: 'HTTP 400 {"mensaje":"no corresponde"}',
    });
    const down = scripted({ '/fe/aprobacioncomercial/api/ecf': () => answer(503, 'Service Unavailable') });
    assert.equal((await deliver(down.transport, entry())).kind, 'failed');
    const unreachable = (): Promise<HttpResult> =>
      Promise.resolve({ ok: false, failure: 'connect_refused', sent: false, code: 'ECONNREFUSED' });
    assert.deepEqual(await deliver(unreachable, entry()), {
      kind: 'failed',
      url: 'https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      detail: 'no answer: connect_refused (ECONNREFUSED)',
    });

    const noToken = scripted({
      '/fe/autenticacion/api/semilla': () => answer(200, seedXml),
      '/fe/autenticacion/api/validacioncertificado': () => answer(400, 'firma inválida'),
      '/fe/aprobacioncomercial/api/ecf': () => answer(200),
    });
    const outcome = await deliver(noToken.transport, entry({ urlOpcional: 'https://emisor.example/testecf/x' }));
    assert.ok(outcome.kind === 'failed');
    assert.match(outcome.detail, /^authentication, validacioncertificado: HTTP 400 firma inválida$/);
    assert.equal(
      noToken.requests.some((request) => request.url.endsWith('/fe/aprobacioncomercial/api/ecf')),
      false,
    );

    assert.deepEqual(await deliver(refused.transport, entry({ urlAceptacion: '' })), {
      kind: 'failed',
      url: null,
      detail: "DGII's directory gives 131880738 no approval URL (urlAceptacion)",
    });
  });

  it('keeps the token for the next call, and asks again once the receiver refuses it', async () => {
    let validations = 0;
    let postStatus = 200;
    const { transport, requests } = scripted({
      '/fe/autenticacion/api/semilla': () => answer(200, seedXml),
      '/fe/autenticacion/api/validacioncertificado': () => {
        validations += 1;
        return answer(200, JSON.stringify({ token: `tok-${String(validations)}`, expira: '2026-11-21T15:00:00Z' }));
      },
      '/fe/aprobacioncomercial/api/ecf': () => answer(postStatus),
    });
    const client = clientOf(transport);
    const authenticated = entry({ urlOpcional: 'https://auth.example/testecf/x' });
    assert.equal((await deliver(transport, authenticated, client)).kind, 'delivered');
    assert.equal((await deliver(transport, authenticated, client)).kind, 'delivered');
    assert.equal(validations, 1, 'one token for both');
    postStatus = 401;
    assert.equal((await deliver(transport, authenticated, client)).kind, 'refused');
    postStatus = 200;
    assert.equal((await deliver(transport, authenticated, client)).kind, 'delivered');
    assert.equal(validations, 2, 'a new token after the 401');
    assert.equal(requests.at(-1)?.headers['authorization'], 'Bearer tok-2');
  });

  it('sends nothing to an address the rule refuses, nor over http in PRODUCTION', async () => {
    const { transport, requests } = scripted({ '/fe/aprobacioncomercial/api/ecf': () => answer(200) });
    const privateRefused = await deliver(
      transport,
      entry(),
      clientOf(transport, { environment: 'TEST', allowPrivate: false }),
    );
    assert.deepEqual(privateRefused, {
      kind: 'failed',
      url: 'https://emisor.example/testecf/x/fe/aprobacioncomercial/api/ecf',
      detail: 'no answer: the address is not allowed (emisor.example resolves to 10.0.0.7, a private address)',
    });
    const plain = await deliver(
      transport,
      entry({ urlAceptacion: 'http://emisor.example/ecf/x' }),
      clientOf(transport, { environment: 'PRODUCTION', allowPrivate: true }),
    );
    assert.ok(plain.kind === 'failed');
    assert.match(plain.detail, /must use https in PRODUCTION/);
    assert.equal(requests.length, 0);
  });

  it('goes to the address the rule checked, and reads at most 256 KB of an answer', async () => {
    const { transport, requests } = scripted({ '/fe/aprobacioncomercial/api/ecf': () => answer(200) });
    await deliver(transport, entry());
    const [post] = requests;
    assert.equal(post?.maxResponseBytes, 256 * 1024);
    assert.deepEqual(post.pinned, { address: '10.0.0.7', family: 4 });
  });
});
